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
"""

from __future__ import annotations

from president_env.core.actions import Kind
from president_env.core.cards import Rank
from president_env.core.engine import stalemate_seats
from president_env.core.rules import Rules


class Uecda:
    """The UECda part of :class:`~president_env.testing.reference.ReferenceGame` (a mixin: the
    rules and the revolution are the game's)."""

    rules: Rules
    revolution: bool
    seed: int
    deal: int
    place: list[int]
    jack_back: bool = False
    """``jack_back``: a J reversed the order until the trick ends."""
    six_reversed: bool = False
    """``six_reverses``: the 6s played this deal reversed the direction of play."""
    pass_run: int = 0
    """Passes in a row this deal (``stalemate_passes``)."""

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


def _holds(kind: Kind, rank: int, size: int, held: int) -> bool:
    """A set of rank ``held`` (jokers standing in), or a run whose ranks include it."""
    if kind == Kind.SET:
        return rank == held
    return kind == Kind.RUN and rank <= held <= rank + size - 1
