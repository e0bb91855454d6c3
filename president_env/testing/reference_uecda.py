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
"""

from __future__ import annotations

from president_env.core.actions import Kind
from president_env.core.cards import Rank
from president_env.core.rules import Rules


class Uecda:
    """The UECda part of :class:`~president_env.testing.reference.ReferenceGame` (a mixin: the
    rules and the revolution are the game's)."""

    rules: Rules
    revolution: bool
    jack_back: bool = False
    """``jack_back``: a J reversed the order until the trick ends."""
    six_reversed: bool = False
    """``six_reverses``: the 6s played this deal reversed the direction of play."""

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


def _holds(kind: Kind, rank: int, size: int, held: int) -> bool:
    """A set of rank ``held`` (jokers standing in), or a run whose ranks include it."""
    if kind == Kind.SET:
        return rank == held
    return kind == Kind.RUN and rank <= held <= rank + size - 1
