"""The public history of a deal in :class:`president_env.testing.reference.ReferenceGame`, kept
plainly for a reader to check (the engine's ``seat_played``, ``seat_passed`` and ``recent``
fields, shown by the ``observation="history"`` blocks), with ``observation="history"`` or
``"record"`` only (under ``"standard"`` all three keep their empty values, as the engine's do):

* ``seat_played[seat]``: 53 counts, the cards that seat played this deal (the cards a play
  took from its hand: runs and jokers included);
* ``seat_passed[seat]``: 53 flags; a pass on a top set of ``size`` cards (four and more alike)
  and ``rank`` sets entry ``(min(size, 4) - 1) * 13 + rank``; a pass on a run or on a set of
  jokers alone sets entry 52;
* ``recent``: the last 8 moves of the play phase (every move of the deal with ``"record"``:
  ``Rules.moves_kept``), most recent first, as ``[seat, action id]``
  (passes included; the gives and asks of the exchange are not moves here), ``[-1, -1]`` for
  none.

All three start empty at every deal (the next deal starts in the step that ends one, so the
move that ended it is gone from them; after the last deal they show that deal as it ended).
"""

from __future__ import annotations

from president_env.core.actions import Kind
from president_env.core.cards import NUM_CARDS, NUM_RANKS
from president_env.core.rules import Rules

SET_SIZES = 4
"""Sizes of a set told apart by ``seat_passed`` (four and more alike)."""
PASSED_ON_OTHER = SET_SIZES * NUM_RANKS
"""The ``seat_passed`` entry of a pass on a run or on jokers alone (52)."""
NO_MOVE = (-1, -1)


class History:
    """The history part of :class:`~president_env.testing.reference.ReferenceGame` (a mixin:
    the rules, the pile and the number of players are the game's)."""

    rules: Rules
    num_players: int
    pile_kind: Kind
    pile_rank: int
    pile_size: int

    def _reset_history(self) -> None:
        """A new deal: nothing played, passed or moved yet."""
        self.seat_played: list[list[int]] = [[0] * NUM_CARDS for _ in range(self.num_players)]
        """Per seat, the cards it played this deal (counts per card id)."""
        self.seat_passed: list[list[int]] = [
            [0] * (PASSED_ON_OTHER + 1) for _ in range(self.num_players)
        ]
        """Per seat, 1 for each kind of top play it passed on this deal."""
        self.recent: list[list[int]] = [list(NO_MOVE) for _ in range(self.rules.moves_kept)]
        """The last moves of the play phase, most recent first: [seat, action id]."""

    @property
    def _keeps_history(self) -> bool:
        """Whether the rules keep the history (``observation="history"`` or ``"record"``)."""
        return self.rules.keeps_history

    def _note_move(self, seat: int, action: int) -> None:
        """A move of the play phase (a pass or a play), before it changes anything."""
        if not self._keeps_history:
            return
        self.recent = [[seat, action], *self.recent[:-1]]

    def _note_pass(self, seat: int) -> None:
        """``seat`` passes on the pile as it is (on an empty pile, ``lead_may_pass``: nothing
        to note)."""
        if not self._keeps_history or self.pile_kind == Kind.PASS:
            return
        if self.pile_kind == Kind.SET:
            key = (min(self.pile_size, SET_SIZES) - 1) * NUM_RANKS + self.pile_rank
        else:  # a run, or jokers alone
            key = PASSED_ON_OTHER
        self.seat_passed[seat][key] = 1

    def _note_cards(self, seat: int, cards: list[int]) -> None:
        """``seat`` played ``cards`` (53 counts)."""
        if not self._keeps_history:
            return
        for card, count in enumerate(cards):
            self.seat_played[seat][card] += count
