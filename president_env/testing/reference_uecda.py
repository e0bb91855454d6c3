"""The rules of the UECda contest's standard server in
:class:`president_env.testing.reference.ReferenceGame` (a mixin), each off by default, written
again from the rule text (``docs/experiments/2026-12-04-uecda-server-rules.md``) apart from
the engine:

* ``jack_back`` (11-back): a play holding a J (a set of Js, jokers standing in; a run whose
  ranks include the J; never jokers alone) reverses the order until the trick ends; a second
  one turns it back. ``jack_back`` is the state of it; every comparison, and the top rank of
  ``top_rank_clears``, uses the order in force, revolution XOR 11-back (:attr:`reversed_order`).
* ``six_reverses`` (6-revers): a play holding a 6 (the same way) reverses the direction of play
  until the deal ends (``six_reversed``; the game's ``direction``).
* ``stalemate_passes=n``: the ``n``-th pass in a row (``pass_run``, across tricks; any play
  starts the count again) ends the deal: the players still in take the places left in the
  order of :func:`~president_env.core.engine.stalemate_seats` (the engine's seeded stream,
  shared as the deal is).
* ``lead_may_pass`` (needs ``stalemate_passes``): the leader may pass on an empty pile (a pass
  that notes nothing in ``seat_passed``); when every player still in has passed, the seat
  after the last to pass holding cards, who led, leads again.
* ``first_lead_every_deal``: the first deal's lead rule (``first_lead``) picks the leader of
  every deal, in the hands after the exchange, instead of the Bum.
* ``deal_from="president"``: the President gets the first card of a deal (the dealer is the
  seat before); in the first deal, the seat of :func:`~president_env.core.engine.initial_seat`
  (the engine's seeded stream, as the deal's hands are).
* ``title_reset_every=n``: deals n, 2n, ... start as the first deal does, whatever the titles
  (the last deal's places, still in ``title``): its dealer, its leader (``first_lead``), no
  exchange.
* ``reseat_every=n``: at deals 0, n, 2n, ... the players sit round the table (``seats``, the
  player in each seat from seat 0) in the order of :func:`~president_env.core.engine.seat_order`
  (the engine's seeded stream), else player p in seat p. Play, the deal (row s of
  :func:`~president_env.core.engine.deal_hands`, dealt from the dealer's seat, is the hand of
  the player in seat s), the dealer and ``first_lead``'s lowest seat go round the table by
  seat; players keep their ids, titles and scores.
* ``lock`` (with ``exact_plays``): a play whose suits (the joker's row counted) are those of the
  play it follows locks the trick to them (``pile_suits``, ``locked``); a lone joker ignores
  and clears the lock; the trick's end releases it.
* ``spade_three_beats_joker``: the 3 of spades alone may follow a lone joker, and clears.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from president_env.core.actions import ActionLayout, Kind
from president_env.core.cards import NUM_CARDS, NUM_SUITS, THREE_OF_CLUBS, THREE_OF_DIAMONDS, Rank
from president_env.core.constants import JOKER_ROW
from president_env.core.engine import deal_hands, initial_seat, seat_order, stalemate_seats
from president_env.core.rules import Rules

_SPADE_THREE = [int(c == Rank.THREE * NUM_SUITS + 3) for c in range(NUM_CARDS)]
"""The cards of the 3 of spades alone."""


class Uecda:
    """The UECda part of :class:`~president_env.testing.reference.ReferenceGame` (a mixin: the
    rules and the revolution are the game's)."""

    rules: Rules
    layout: ActionLayout
    revolution: bool
    seed: int
    deal: int
    place: list[int]
    pile_kind: Kind
    pile_size: int
    pile_suits: int = 0
    """``lock``: the suits of the top play (``1 << suit``; the joker's row counts, 16 its
    fifth row beside four suits), 0 none."""
    locked: bool = False
    """``lock``: the trick is locked to ``pile_suits``."""
    jack_back: bool = False
    """``jack_back``: a J reversed the order until the trick ends."""
    six_reversed: bool = False
    """``six_reverses``: the 6s played this deal reversed the direction of play."""
    pass_run: int = 0
    """Passes in a row this deal (``stalemate_passes``)."""
    title: list[int]
    num_players: int
    _hands: list[list[int]]
    seats: list[int]
    """The player in each seat round the table, from seat 0 (``reseat_every``)."""

    @property
    def seat_of(self) -> list[int]:
        """The seat of each player (as the engine's ``State.seat_of``)."""
        return [self.seats.index(q) for q in range(self.num_players)]

    def _seat_players(self) -> None:
        """Seat the players for the deal about to start: player p in seat p, or with
        ``reseat_every=n`` the seeded order at deals 0, n, 2n, ... (kept in between)."""
        every = self.rules.reseat_every
        if every is None and self.deal == 0:
            self.seats = list(range(self.num_players))
        elif every is not None and self.deal % every == 0:
            self.seats = seat_order(self.seed, self.deal, self.num_players)

    def _seat_left(self, player: int, k: int) -> int:
        """The player ``k`` seats to the left of ``player`` (to the right for k < 0)."""
        return self.seats[(self.seats.index(player) + k) % self.num_players]

    def _dealt(self, dealer: int) -> npt.NDArray[np.int8]:
        """The seeded hands of this deal, dealt round the table from ``dealer``'s left."""
        rows = deal_hands(self.rules, self.seed, self.deal, self.seats.index(dealer))
        return rows[np.argsort(self.seats)]  # (player q holds the row of its seat)

    def _first_leader(self) -> int:
        """The player in seat 0 (``"seat0"``), or in the lowest seat holding the 3 of clubs
        (diamonds), seat 0 if nobody holds one: the first deal's leader (every deal's with
        ``first_lead_every_deal``, after the exchange)."""
        if self.rules.first_lead == "seat0":
            return self.seats[0]
        three = THREE_OF_CLUBS if self.rules.first_lead == "three_of_clubs" else THREE_OF_DIAMONDS
        holders = [q for q in self.seats if self._hands[q][three] > 0]
        return holders[0] if holders else self.seats[0]

    def _titles_cleared(self) -> bool:
        """Whether the deal starts without titles: the first, and every n-th with
        ``title_reset_every=n``."""
        every = self.rules.title_reset_every
        return self.deal == 0 or (every is not None and self.deal % every == 0)

    def _dealer(self) -> int:
        """The dealer of the deal about to start (the first card goes to the seat after it):
        the previous Bum (the player in seat P-1 without titles), or with
        ``deal_from="president"`` the player seated before the President (before the seeded
        initial player without titles)."""
        players, fresh = self.num_players, self._titles_cleared()
        if self.rules.deal_from == "dealer_left":
            return self.seats[-1] if fresh else self.title.index(players - 1)
        first = initial_seat(self.seed, self.deal, players) if fresh else self.title.index(0)
        return self._seat_left(first, -1)

    def _deal_leader(self) -> int:
        """The leader of a deal after the first, once its exchange is over: the Bum, or with
        ``first_lead_every_deal`` the seat ``first_lead`` picks in the hands as they are."""
        if self.rules.first_lead_every_deal:
            return self._first_leader()
        return self.title.index(self.num_players - 1)

    @property
    def reversed_order(self) -> bool:
        """The order in force is reversed: revolution XOR 11-back."""
        return self.revolution != self.jack_back

    def _note_jack_and_six(self, kind: Kind, rank: int, size: int) -> None:
        """``jack_back``: a play holding a J turns the order of the rest of the trick;
        ``six_reverses``: one holding a 6 the direction of play."""
        if self.rules.jack_back and _holds(kind, rank, size, Rank.JACK):
            self.jack_back = not self.jack_back
        if self.rules.six_reverses and _holds(kind, rank, size, Rank.SIX):
            self.six_reversed = not self.six_reversed


    def _stalls(self) -> bool:
        """Count a pass; at the ``stalemate_passes``-th in a row the players still in take the
        places left, in the seeded order: True (the caller ends the deal)."""
        self.pass_run += 1
        if self.pass_run != self.rules.stalemate_passes:
            return False
        left = [q for q in stalemate_seats(self.seed, self.deal, len(self.place))
                if self.place[q] < 0]
        finished = len(self.place) - len(left)
        for i, q in enumerate(left):
            self.place[q] = finished + i
        return True

    def _suits(self, action: int) -> int:
        """``exact_plays``: the suits a play names: a set's natural suits and the row the joker
        stands in, a run's suit; none for a lone joker."""
        lay = self.layout
        kind, suit, joker = lay.kind[action], int(lay.suit[action]), int(lay.card[action])
        if kind == Kind.SET:
            return suit | (0 if joker < 0 else 16 if joker == JOKER_ROW else 1 << joker)
        return 1 << suit if kind == Kind.RUN else 0

    def _lock_allows(self, action: int, kind: Kind) -> bool:
        """``lock``: a locked trick takes only plays of its suits (a lone joker ignores it)."""
        return not self.locked or kind == Kind.JOKERS or self._suits(action) == self.pile_suits

    def _note_lock(self, action: int, kind: Kind) -> None:
        """``lock``: the same suits as the play followed lock the trick; a lone joker unlocks."""
        if not self.rules.lock:
            return
        suits = self._suits(action)
        if kind == Kind.JOKERS:
            self.locked = False
        elif self.pile_kind != Kind.PASS and suits == self.pile_suits:
            self.locked = True
        self.pile_suits = suits

    def _spade_three_on_joker(self, action: int) -> bool:
        """``spade_three_beats_joker``: ``action`` is the 3 of spades alone and the pile a lone
        joker (in a locked trick too: the joker cleared the lock)."""
        lay = self.layout
        return (self.rules.spade_three_beats_joker and self.pile_kind == Kind.JOKERS
                and self.pile_size == 1 and lay.kind[action] == Kind.SET
                and lay.cards_for(action, [1] * NUM_CARDS).tolist() == _SPADE_THREE)


def _holds(kind: Kind, rank: int, size: int, held: int) -> bool:
    """A set of rank ``held`` (jokers standing in), or a run whose ranks include it."""
    if kind == Kind.SET:
        return rank == held
    return kind == Kind.RUN and rank <= held <= rank + size - 1
