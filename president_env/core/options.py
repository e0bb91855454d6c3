"""The metadata of a rule option (:class:`Option`, declared with :func:`option`) and the slots
of the int64 parameter vector that compiled code reads (:class:`RuleParam`).

:mod:`president_env.core.rules` declares every field of :class:`~president_env.core.rules.Rules`
with this metadata and derives validation, the parameter vector, the random rules of the tests
and the docs' tables from it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from enum import IntEnum
from typing import Any


class RuleParam(IntEnum):
    """Index of each rule option in the int64 vector that compiled code reads
    (:func:`rule_params`); shared by the engine's kernels and the agents' kernels."""

    PLAYERS = 0
    DECKS = 1
    JOKERS = 2
    """Jokers in the whole pack."""
    ALLOW_EQUAL = 3
    PASS_IS_FINAL = 4
    TOP_RANK_CLEARS = 5
    EIGHT_CLEARS = 6
    REVOLUTION = 7
    RUNS = 8
    EXCHANGE = 9
    """1 when cards are exchanged before every deal after the first."""
    FIRST_LEAD = 10
    """Index into :data:`~president_env.core.rules.FIRST_LEADS`: 0 the 3 of clubs' holder,
    1 seat 0, 2 the 3 of diamonds' holder."""
    DEALS = 11
    SCORING = 12
    """Index into :data:`SCORINGS`: 0 places, 1 president_vp, 2 tally."""
    TARGET_SCORE = 13
    """0 for none."""
    MAX_SET = 14
    """Largest set: every natural card of a rank plus every joker."""
    REVOLUTION_NEXT_TRICK = 15
    """1 when a revolution takes effect as the trick ends (``revolution_timing="next_trick"``)."""
    WESTERN_REVOLUTION = 16
    BOMBS = 17
    """Least size of a bomb; 0 for none."""
    RUNS_MIXED_SUITS = 18
    MAX_RUN_LENGTH = 19
    """0 for no limit."""
    PRESIDENT_ASKS = 20
    OBSERVATION = 21
    """Index into :data:`~president_env.core.rules.OBSERVATIONS`: 0 standard, 1 history, 2
    record (the history blocks, and the record block, of the observation; nothing in play)."""
    RUNS_DISJOINT = 22
    """1 when a run beats a run only from above its top card (no shared rank)."""
    RUN_REVOLUTION = 23
    """Least length of a run that starts a revolution; 0 for none."""
    PLAY_ON_OWN = 24
    """1 when a trick ends only once the last player to play has passed too (UECda)."""
    JACK_BACK = 25
    """1 when a play holding a J reverses the order until the trick ends (UECda 11-back)."""
    SIX_REVERSES = 26
    """1 when a play holding a 6 reverses the direction of play for the deal (UECda)."""
    STALEMATE_PASSES = 27
    """Passes in a row (across tricks) that end the deal, the players left ranked at random;
    0 for none."""
    EXACT_PLAYS = 28
    """1 when each play names its exact cards (the set and run blocks of the layout differ)."""
    LOCK = 29
    """1 when a play of the previous play's suits locks the trick to them (``lock``)."""
    SPADE_THREE_BEATS_JOKER = 30
    """1 when the 3 of spades alone may follow a lone joker, and clears the pile."""
    RUN_JOKER_ENDS = 31
    """1 when the joker may stand below the 3 or above the 2 of a run (its bottom -1, top 13)."""
    LEAD_MAY_PASS = 32
    """1 when the leader may pass on an empty pile (UECda)."""
    FIRST_LEAD_EVERY_DEAL = 33
    """1 when ``first_lead`` picks the leader of every deal, after the exchange (UECda)."""
    DEAL_FROM = 34
    """Index into :data:`~president_env.core.rules.DEAL_FROMS`: 0 the dealer's left, 1 the
    President (a seat drawn from the seed in a deal without titles; UECda)."""
    TITLE_RESET_EVERY = 35
    """Deals from one clearing of the titles to the next (deals n, 2n, ...); 0 for none."""
    RESEAT_EVERY = 36
    """Deals from one drawing of the seats round the table to the next (deals 0, n, 2n, ...);
    0 for none (player p sits in seat p)."""


# ---------------------------------------------------------------------------- option metadata
@dataclass(frozen=True)
class Option:
    """What :class:`Rules` knows about one of its fields (see :func:`option`)."""

    doc: str
    """One line for the options table."""
    choices: tuple[Any, ...] = ()
    """Allowed values, typed strictly (``True`` is not ``1``)."""
    low: int | None = None
    """With ``high``: any integer from ``low`` to ``high`` (None: no upper bound) is allowed too."""
    high: int | None = None
    samples: tuple[Any, ...] = ()
    """Values that random tests draw, uniformly (repeat one to draw it more often)."""
    param: RuleParam | None = None
    """Slot in :func:`rule_params`; the value is an int, a bool, a string's index among
    ``choices`` (so ``first_lead`` is 1 for ``"seat0"``), or 0 for None."""
    derived: str | None = None
    """A property of :class:`Rules` whose value the slot holds instead (``"num_decks"``)."""
    error: str | None = None
    """The message for a value not allowed, if not the generic one ({value!r} is the value)."""
    requires: str | None = None
    """The option refines another: a property of :class:`Rules` (``"revolution"``, ``"runs"``,
    ``"exchange_on"``, ``"stalemate_on"``) that must be true unless this option has its
    default value."""

    def allows(self, value: Any) -> bool:
        if any(_same(value, c) for c in self.choices):
            return True
        return (
            self.low is not None
            and _is_int(value)
            and value >= self.low
            and (self.high is None or value <= self.high)
        )

    def allowed_text(self) -> str:
        """The allowed values in words: ``"1, 2 or 'auto'"``, ``"an integer from 3 to 8"``."""
        parts = [repr(c) for c in self.choices]
        if self.low is not None:
            bound = f">= {self.low}" if self.high is None else f"from {self.low} to {self.high}"
            parts.append(f"an integer {bound}")
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]

    def problem(self, name: str, value: Any) -> str | None:
        """Why ``value`` is not allowed for option ``name`` (None if it is)."""
        if self.allows(value):
            return None
        if self.error is not None:
            return self.error.format(value=value)
        return f"{name} must be {self.allowed_text()}, got {value!r}"

    def test_values(self) -> tuple[Any, ...]:
        """The values random tests draw (``samples``, else every choice and the whole range)."""
        if self.samples:
            return self.samples
        span = () if self.low is None or self.high is None else range(self.low, self.high + 1)
        return (*self.choices, *span)

    def encode(self, value: Any) -> int:
        """``value`` (of the field, or of ``derived``) as an entry of :func:`rule_params`."""
        if value is None:
            return 0
        if isinstance(value, str):
            return [c for c in self.choices if isinstance(c, str)].index(value)
        return int(value)


def option(
    doc: str,
    choices: tuple[Any, ...] = (),
    *,
    low: int | None = None,
    high: int | None = None,
    samples: tuple[Any, ...] = (),
    param: RuleParam | None = None,
    derived: str | None = None,
    error: str | None = None,
    requires: str | None = None,
) -> dict[str, Option]:
    """Field metadata of a rule option: ``field(default=..., metadata=option(...))``."""
    return {"option": Option(doc, choices, low, high, samples, param, derived, error, requires)}


BOOL = (True, False)

REQUIREMENT_WORDS: dict[str, str] = {
    "revolution": "revolution",
    "runs": "runs",
    "exchange_on": "the card exchange (exchange=True, or 'auto' with deals > 1)",
    "exact_plays": "exact_plays",
    "exact_possible": "one deck, at most one joker and runs of one suit (decks=1, or 'auto' "
                      "with 3-6 players; jokers 0 or 1; runs_mixed_suits=False)",
    "stalemate_on": "stalemate_passes",
}
"""The requirements of refining options (:attr:`Option.requires`) in words, for errors."""


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _same(value: object, choice: object) -> bool:
    """``value`` is ``choice``, of the same kind (a bool is not an int, an int not a bool)."""
    if isinstance(choice, bool) or choice is None:
        return value is choice
    if isinstance(choice, int):
        return _is_int(value) and value == choice
    return isinstance(value, str) and value == choice


def parse_rule_option(text: str) -> tuple[str, Any]:
    """``"deals=3"`` -> ``("deals", 3)``: a command-line rule option (values as Python literals,
    anything else as a string). Raises ValueError without ``=``."""
    key, sep, value = text.partition("=")
    if not sep:
        raise ValueError(f"a rule option is KEY=VALUE, got {text!r}")
    try:
        parsed = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        parsed = value
    return key.strip(), parsed
