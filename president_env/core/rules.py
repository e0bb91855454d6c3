"""Rule options of President as one frozen, typed dataclass, with the presets.

Every option of the rules reference (``RULES.md`` in the project's shared folder, summarised in
``docs/rules.md``) is a field of :class:`Rules`. Every option combines with every
other. Impossible values raise ``ValueError`` at construction, saying why.

Presets (``Rules.preset(name, **overrides)``):

==============  ====  =======  ===========  ===========  ==========  ====  ======  ======  ==============  ============
preset          seed  players  allow_equal  pass_final   revolution  runs  jokers  eight   first_lead      scoring
==============  ====  =======  ===========  ===========  ==========  ====  ======  ======  ==============  ============
``standard``    004   3-8      no           no           no          no    0       no      three_of_clubs  president_vp
``revolution``  000   3-8      yes          no           yes         no    0       no      three_of_clubs  places
``runs``        001   3-8      yes          no           no          yes   0       no      three_of_clubs  places
``cardverse``   003   3-6      no           yes          yes         no    0       no      seat0           places
``daifugo``     000+1 3-8      yes          no           yes         yes   2       yes     three_of_clubs  places
==============  ====  =======  ===========  ===========  ==========  ====  ======  ======  ==============  ============
"""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, Literal

import numpy as np

from president_env.core.cards import NUM_NATURAL

Scoring = Literal["places", "president_vp", "tally"]
FirstLead = Literal["three_of_clubs", "seat0"]

SCORINGS: tuple[str, ...] = ("places", "president_vp", "tally")
FIRST_LEADS: tuple[str, ...] = ("three_of_clubs", "seat0")

PRESETS: dict[str, dict[str, Any]] = {
    "standard": dict(scoring="president_vp"),
    "revolution": dict(allow_equal=True, revolution=True),
    "runs": dict(allow_equal=True, runs=True),
    "cardverse": dict(pass_is_final=True, revolution=True, first_lead="seat0"),
    "daifugo": dict(allow_equal=True, revolution=True, runs=True, jokers=2, eight_clears=True),
}
PRESET_PLAYERS: dict[str, tuple[int, int]] = {
    "standard": (3, 8),
    "revolution": (3, 8),
    "runs": (3, 8),
    "cardverse": (3, 6),
    "daifugo": (3, 8),
}

_BOOL_FIELDS = (
    "allow_equal",
    "pass_is_final",
    "top_rank_clears",
    "eight_clears",
    "revolution",
    "runs",
)


@dataclass(frozen=True)
class Rules:
    """All options of one President game. Defaults are those of the rules reference."""

    num_players: int = 4
    """Players at the table, 3..8."""
    decks: int | Literal["auto"] = "auto"
    """Number of 52-card decks: 1, 2, or "auto" (one for 3-6 players, two for 7-8)."""
    jokers: int = 0
    """Jokers per deck: 0, 1 or 2."""
    allow_equal: bool = False
    """A play of equal rank may follow (not only a higher one)."""
    pass_is_final: bool = False
    """A player who passes is out of the trick until it ends (off: may play again later)."""
    top_rank_clears: bool = True
    """A set of the top rank (2s; 3s in a revolution) clears the pile."""
    eight_clears: bool = False
    """A set of 8s (or, with runs, a run through the 8) clears the pile."""
    revolution: bool = False
    """A set of four or more cards reverses the rank order at once."""
    runs: bool = False
    """Runs of three or more cards of one suit may be played."""
    exchange: bool | Literal["auto"] = "auto"
    """Card exchange between deals: True, False or "auto" (on when there is more than one deal)."""
    first_lead: FirstLead = "three_of_clubs"
    """Who leads the first deal: the holder of the 3 of clubs, or seat 0."""
    deals: int = 1
    """Number of deals in a game."""
    scoring: Scoring = "places"
    """"places" (N points for 1st .. 1 for last), "president_vp" (2 and 1), "tally" (presidencies)."""
    target_score: int | None = None
    """End the game once a player reaches this score (the deal in progress is completed)."""
    preset_name: str | None = None
    """Name of the preset these rules came from (checked for its player range), or None."""

    def __post_init__(self) -> None:
        def bad(msg: str) -> ValueError:
            return ValueError(f"invalid Rules: {msg}")

        for f in dataclasses.fields(self):  # numpy integers are accepted as plain ints
            v = getattr(self, f.name)
            if isinstance(v, np.integer):
                object.__setattr__(self, f.name, int(v))
            elif isinstance(v, np.bool_):
                object.__setattr__(self, f.name, bool(v))

        if not _is_int(self.num_players) or not 3 <= self.num_players <= 8:
            raise bad(f"num_players must be an integer from 3 to 8, got {self.num_players!r}")
        if self.decks != "auto" and (not _is_int(self.decks) or self.decks not in (1, 2)):
            raise bad(f"decks must be 1, 2 or 'auto', got {self.decks!r}")
        if not _is_int(self.jokers) or self.jokers not in (0, 1, 2):
            raise bad(f"jokers (per deck) must be 0, 1 or 2, got {self.jokers!r}")
        for name in _BOOL_FIELDS:
            if not isinstance(getattr(self, name), bool):
                raise bad(f"{name} must be True or False, got {getattr(self, name)!r}")
        if self.exchange != "auto" and not isinstance(self.exchange, bool):
            raise bad(f"exchange must be True, False or 'auto', got {self.exchange!r}")
        if self.first_lead not in FIRST_LEADS:
            raise bad(f"first_lead must be one of {FIRST_LEADS}, got {self.first_lead!r}")
        if not _is_int(self.deals) or self.deals < 1:
            raise bad(f"deals must be an integer >= 1, got {self.deals!r}")
        if self.deals > 10_000:
            raise bad(f"deals must be at most 10000, got {self.deals}")
        if self.scoring not in SCORINGS:
            raise bad(f"scoring must be one of {SCORINGS}, got {self.scoring!r}")
        if self.target_score is not None and (
            not _is_int(self.target_score) or self.target_score < 1
        ):
            raise bad(f"target_score must be None or an integer >= 1, got {self.target_score!r}")
        if self.preset_name is not None:
            if self.preset_name not in PRESETS:
                raise bad(f"unknown preset {self.preset_name!r}; presets are {sorted(PRESETS)}")
            lo, hi = PRESET_PLAYERS[self.preset_name]
            if not lo <= self.num_players <= hi:
                raise bad(
                    f"preset {self.preset_name!r} is for {lo}-{hi} players, got num_players="
                    f"{self.num_players}"
                )
        if self.num_cards < self.num_players:
            raise bad("fewer cards than players")

    # ----------------------------------------------------------------- constructors
    @classmethod
    def preset(cls, name: str, **overrides: Any) -> Rules:
        """The rules of a named preset, with any option overridden.

        >>> Rules.preset("cardverse", num_players=5).pass_is_final
        True
        """
        if name not in PRESETS:
            raise ValueError(f"unknown preset {name!r}; presets are {sorted(PRESETS)}")
        _check_names(overrides)
        kwargs: dict[str, Any] = {**PRESETS[name], "preset_name": name, **overrides}
        return cls(**kwargs)

    @classmethod
    def from_dict(cls, options: dict[str, Any]) -> Rules:
        """Rules from a dict of options; ``"preset"`` (or ``"preset_name"``) picks a preset."""
        opts = dict(options)
        name = opts.pop("preset", None)
        name = opts.pop("preset_name", None) or name
        if name is not None:
            return cls.preset(name, **opts)
        _check_names(opts)
        return cls(**opts)

    def replace(self, **changes: Any) -> Rules:
        """A copy with some options changed (validated again)."""
        _check_names(changes)
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    # ----------------------------------------------------------------- derived values
    @property
    def num_decks(self) -> int:
        if self.decks == "auto":
            return 1 if self.num_players <= 6 else 2
        return int(self.decks)

    @property
    def num_jokers(self) -> int:
        """Jokers in the whole pack (per deck times decks)."""
        return self.jokers * self.num_decks

    @property
    def num_cards(self) -> int:
        return NUM_NATURAL * self.num_decks + self.num_jokers

    @property
    def exchange_on(self) -> bool:
        """Whether cards are exchanged before every deal after the first."""
        return self.deals > 1 and (self.exchange is True or self.exchange == "auto")

    @property
    def max_set_size(self) -> int:
        """Largest set: every natural card of a rank plus every joker."""
        return 4 * self.num_decks + self.num_jokers

    @property
    def num_exchange_pairs(self) -> int:
        """1 (Bum and President) with 3 players, else 2 (and Vice-Bum with Vice-President)."""
        return 1 if self.num_players == 3 else 2


class RuleParam(IntEnum):
    """Index of each rule option in the int64 vector that compiled code reads
    (:meth:`Rules.params`); shared by the engine's kernels and the agents' kernels."""

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
    SEAT0_LEADS = 10
    DEALS = 11
    SCORING = 12
    """Index into :data:`SCORINGS`: 0 places, 1 president_vp, 2 tally."""
    TARGET_SCORE = 13
    """0 for none."""
    MAX_SET = 14
    """Largest set: every natural card of a rank plus every joker."""


def rule_params(rules: Rules) -> np.ndarray:
    """The options of ``rules`` as the int64 vector indexed by :class:`RuleParam`."""
    values = {
        RuleParam.PLAYERS: rules.num_players,
        RuleParam.DECKS: rules.num_decks,
        RuleParam.JOKERS: rules.num_jokers,
        RuleParam.ALLOW_EQUAL: rules.allow_equal,
        RuleParam.PASS_IS_FINAL: rules.pass_is_final,
        RuleParam.TOP_RANK_CLEARS: rules.top_rank_clears,
        RuleParam.EIGHT_CLEARS: rules.eight_clears,
        RuleParam.REVOLUTION: rules.revolution,
        RuleParam.RUNS: rules.runs,
        RuleParam.EXCHANGE: rules.exchange_on,
        RuleParam.SEAT0_LEADS: rules.first_lead == "seat0",
        RuleParam.DEALS: rules.deals,
        RuleParam.SCORING: SCORINGS.index(rules.scoring),
        RuleParam.TARGET_SCORE: rules.target_score or 0,
        RuleParam.MAX_SET: rules.max_set_size,
    }
    rp = np.zeros(len(RuleParam), np.int64)
    for k, v in values.items():
        rp[k] = int(v)
    rp.setflags(write=False)
    return rp


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


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _check_names(options: dict[str, Any]) -> None:
    names = {f.name for f in dataclasses.fields(Rules)}
    unknown = sorted(set(options) - names)
    if unknown:
        raise ValueError(f"unknown rule option(s) {unknown}; options are {sorted(names)}")


_dataclass_init = Rules.__init__


def _checked_init(self: Rules, *args: Any, **kwargs: Any) -> None:
    _check_names(kwargs)  # an unknown option is a ValueError that lists the options
    _dataclass_init(self, *args, **kwargs)


Rules.__init__ = _checked_init  # type: ignore[method-assign]
