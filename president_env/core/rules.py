"""Rule options of President as one frozen, typed dataclass, with the presets.

Every option of the rules reference (``RULES.md`` in the project's shared folder, summarised in
``docs/rules.md``) is a field of :class:`Rules`. Every option combines with every other, except
that an option refining another (``western_revolution`` refines ``revolution``; see
:attr:`Option.requires`) is refused without it.

One field is not a rule of play: ``observation`` picks what each player observes
(``"history"`` appends the history blocks of :mod:`president_env.core.observe`: cards each seat
played, what each seat passed on, the last moves; ``"record"`` appends to those the whole
record of the deal's play, every move in order); the game itself is the same, and a policy made
for a smaller observation may sit at a table of a larger one (it sees its own prefix; see
:func:`president_env.table.check_rules`).

Each field is declared with :func:`option`: its doc, its allowed values (``choices`` and/or an
integer range) and its slot in the kernels' parameter vector. Everything else about an option is
derived from that metadata (:data:`OPTIONS`), never written again:

* validation in ``Rules.__post_init__``: an impossible value raises ``ValueError`` naming the
  option and its allowed values;
* the int64 vector that compiled code reads (:func:`rule_params`, indexed by :class:`RuleParam`);
* the random rules of the differential test and the property tests' strategies
  (:attr:`Option.samples`);
* the options and presets tables of ``docs/rules.md`` and the README
  (:mod:`president_env.testing.doctables` renders them, ``tests/test_docs.py`` checks them,
  ``make docs`` rewrites them).

Adding a variant is then four places: the field here, the kernel logic, the reference logic
(:mod:`president_env.testing.reference`) and a scenario test.

Presets (``Rules.preset(name, **overrides)``): :data:`PRESETS` (the options each one sets),
:data:`PRESET_PLAYERS` (its player range) and :data:`PRESET_SOURCES` (its source documents in
``RULES.md``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

import numpy as np

from president_env.core.cards import NUM_NATURAL
from president_env.core.constants import HISTORY_LEN
from president_env.core.options import BOOL, REQUIREMENT_WORDS, Option, RuleParam, option

Scoring = Literal["places", "president_vp", "tally"]
FirstLead = Literal["three_of_clubs", "seat0", "three_of_diamonds"]
RevolutionTiming = Literal["immediate", "next_trick"]
Observation = Literal["standard", "history", "record"]
DealFrom = Literal["dealer_left", "president"]

SCORINGS: tuple[str, ...] = get_args(Scoring)
FIRST_LEADS: tuple[str, ...] = get_args(FirstLead)
REVOLUTION_TIMINGS: tuple[str, ...] = get_args(RevolutionTiming)
OBSERVATIONS: tuple[str, ...] = get_args(Observation)
DEAL_FROMS: tuple[str, ...] = get_args(DealFrom)

PRESETS: dict[str, dict[str, Any]] = {
    "standard": dict(scoring="president_vp"),
    "revolution": dict(allow_equal=True, revolution=True),
    "runs": dict(allow_equal=True, runs=True),
    "cardverse": dict(pass_is_final=True, revolution=True, first_lead="seat0"),
    "daifugo": dict(allow_equal=True, revolution=True, runs=True, jokers=2, eight_clears=True),
    "daifugo_full": dict(allow_equal=True, revolution=True, runs=True, jokers=2, eight_clears=True,
                         revolution_timing="next_trick", bombs=5),
    "uecda": dict(  # the UECda standard server's defaults (RULES.md section 13; docs/rules.md)
        num_players=5, jokers=1, pass_is_final=True, top_rank_clears=False, eight_clears=True,
        revolution=True, runs=True, first_lead="three_of_diamonds", exact_plays=True,
        run_joker_ends=True, runs_disjoint=True, run_revolution=5, spade_three_beats_joker=True,
        lock=True, play_on_own=True, stalemate_passes=20, lead_may_pass=True,
        first_lead_every_deal=True, deal_from="president", title_reset_every=100, reseat_every=3,
    ),  # (a match is Rules.preset("uecda", deals=100))
}
PRESET_PLAYERS: dict[str, tuple[int, int]] = {
    "standard": (3, 8), "revolution": (3, 8), "runs": (3, 8), "cardverse": (3, 6),
    "daifugo": (3, 8), "daifugo_full": (3, 8), "uecda": (5, 5),
}
PRESET_SOURCES: dict[str, str] = {
    "standard": "004", "revolution": "000", "runs": "001", "cardverse": "003",
    "daifugo": "000+001", "daifugo_full": "000+001+004", "uecda": "UECda",
}
"""The source documents (``seeds/`` beside ``RULES.md``) each preset follows."""


MAX_DEALS = 10_000
MAX_STALEMATE = 10_000
"""Most passes in a row that ``stalemate_passes`` may ask for (the state counts them in int16)."""
MAX_OPTION_INT = 2**63 - 1
"""Largest integer option (in size): the engine holds the options as int64 (``rule_params``)."""


# ---------------------------------------------------------------------------- the rules
@dataclass(frozen=True)
class Rules:
    """All options of one President game. Defaults are those of the rules reference."""

    num_players: int = field(
        default=4,
        metadata=option("players at the table", low=3, high=8, param=RuleParam.PLAYERS),
    )
    decks: int | Literal["auto"] = field(
        default="auto",
        metadata=option(
            'number of 52-card decks; "auto": one for 3-6 players, two for 7-8',
            (1, 2, "auto"),
            samples=("auto", "auto", 1, 2),
            param=RuleParam.DECKS,
            derived="num_decks",
        ),
    )
    jokers: int = field(
        default=0,
        metadata=option(
            "jokers per deck; jokers are wild",
            (0, 1, 2),
            samples=(0, 0, 1, 2),
            param=RuleParam.JOKERS,
            derived="num_jokers",
        ),
    )
    allow_equal: bool = field(
        default=False,
        metadata=option(
            "a play of equal rank may follow (not only a higher one)",
            BOOL,
            param=RuleParam.ALLOW_EQUAL,
        ),
    )
    pass_is_final: bool = field(
        default=False,
        metadata=option(
            "a player who passes is out of the trick until it ends (off: may play again later)",
            BOOL,
            param=RuleParam.PASS_IS_FINAL,
        ),
    )
    top_rank_clears: bool = field(
        default=True,
        metadata=option(
            "a set of the top rank (2s; 3s in a revolution) clears the pile",
            BOOL,
            param=RuleParam.TOP_RANK_CLEARS,
        ),
    )
    eight_clears: bool = field(
        default=False,
        metadata=option(
            "a set of 8s (or, with runs, a run through the 8) clears the pile",
            BOOL,
            param=RuleParam.EIGHT_CLEARS,
        ),
    )
    revolution: bool = field(
        default=False,
        metadata=option(
            "a set of four or more cards reverses the rank order at once",
            BOOL,
            param=RuleParam.REVOLUTION,
        ),
    )
    runs: bool = field(
        default=False,
        metadata=option(
            "runs of three or more cards of one suit may be played", BOOL, param=RuleParam.RUNS
        ),
    )
    exchange: bool | Literal["auto"] = field(
        default="auto",
        metadata=option(
            'card exchange before every deal after the first; "auto": on when deals > 1',
            (True, False, "auto"),
            param=RuleParam.EXCHANGE,
            derived="exchange_on",
        ),
    )
    first_lead: FirstLead = field(
        default="three_of_clubs",
        metadata=option(
            "who leads the first deal: the holder of the 3 of clubs, seat 0, or the holder of "
            "the 3 of diamonds (UECda)",
            FIRST_LEADS,
            param=RuleParam.FIRST_LEAD,
        ),
    )
    deals: int = field(
        default=1,
        metadata=option(
            "deals in a game",
            low=1,
            high=MAX_DEALS,
            samples=(1, 1, 2, 3, 3, 5),
            param=RuleParam.DEALS,
        ),
    )
    scoring: Scoring = field(
        default="places",
        metadata=option(
            'points per deal: "places" (P for 1st .. 1 for last), "president_vp" (2 and 1), '
            '"tally" (presidencies)',
            SCORINGS,
            param=RuleParam.SCORING,
        ),
    )
    target_score: int | None = field(
        default=None,
        metadata=option(
            "the game ends at the end of the deal in which a player reaches this score",
            (None,),
            low=1,
            samples=(None, None, None, 1, 2, 3, 5, 8, 12),
            param=RuleParam.TARGET_SCORE,
        ),
    )
    revolution_timing: RevolutionTiming = field(default="immediate", metadata=option(
        'when a revolution reverses the order: "immediate", or "next_trick" (pending, public, '
        "until the trick ends)", REVOLUTION_TIMINGS, param=RuleParam.REVOLUTION_NEXT_TRICK,
        requires="revolution"))
    western_revolution: bool = field(default=False, metadata=option(
        "a revolution also reverses the direction of play; four single cards of one rank "
        "in a row in a trick also start one", BOOL, samples=(False, False, True),
        param=RuleParam.WESTERN_REVOLUTION, requires="revolution"))
    bombs: int | None = field(default=None, metadata=option(
        "least size of a bomb: a set that may be played on any pile, in turn, and clears it",
        (None,), low=4, samples=(None, None, 4, 5, 6), param=RuleParam.BOMBS))
    runs_mixed_suits: bool = field(default=False, metadata=option(
        "a run may mix suits (one action per ranks, no suit)", BOOL,
        samples=(False, False, True), param=RuleParam.RUNS_MIXED_SUITS, requires="runs"))
    max_run_length: int | None = field(default=None, metadata=option(
        "longest run allowed (jokers counted); None: no limit", (None,), low=3,
        samples=(None, None, 3, 4, 5), param=RuleParam.MAX_RUN_LENGTH, requires="runs"))
    president_asks: bool = field(default=False, metadata=option(
        "in the exchange the President names the two cards the Bum gives (ask actions)", BOOL,
        samples=(False, False, True), param=RuleParam.PRESIDENT_ASKS, requires="exchange_on"))
    runs_disjoint: bool = field(default=False, metadata=option(
        "a run beats a run of its length only with every card above the other's highest "
        "(below its lowest in a revolution): the two share no rank (UECda)",
        BOOL, samples=(False, False, True), param=RuleParam.RUNS_DISJOINT, requires="runs"))
    run_revolution: int | None = field(default=None, metadata=option(
        "least length of a run that starts a revolution, as a set of four does (UECda: 5); "
        "None: no run does", (None,), low=3, samples=(None, None, 5, 3),
        param=RuleParam.RUN_REVOLUTION, requires="revolution"))
    play_on_own: bool = field(default=False, metadata=option(
        "a trick ends only when every player still in has passed, the last one to play too: "
        "he may play again on his own play (UECda)", BOOL, samples=(False, False, True),
        param=RuleParam.PLAY_ON_OWN))
    jack_back: bool = field(default=False, metadata=option(
        "a play holding a J (a set of Js, jokers standing in; a run through the J) reverses "
        "the order until the trick ends (UECda 11-back)", BOOL, samples=(False, False, True),
        param=RuleParam.JACK_BACK))
    six_reverses: bool = field(default=False, metadata=option(
        "a play holding a 6 (as a J does for jack_back) reverses the direction of play for the "
        "rest of the deal (UECda 6-revers)", BOOL, samples=(False, False, True),
        param=RuleParam.SIX_REVERSES))
    stalemate_passes: int | None = field(default=None, metadata=option(
        "passes in a row, across tricks (any play starts the count again), that end the deal: "
        "the players still in take the places left at random, from the game's seed (UECda: "
        "20); None: never", (None,), low=2, high=MAX_STALEMATE,
        samples=(None, None, None, 2, 3, 20), param=RuleParam.STALEMATE_PASSES))
    exact_plays: bool = field(default=False, metadata=option(
        "each play names its exact cards: a set's suits, the joker's suit row, the joker's "
        "place in a run (it may stand in for a card held; UECda)", BOOL,
        samples=(False, False, True), param=RuleParam.EXACT_PLAYS, requires="exact_possible"))
    lock: bool = field(default=False, metadata=option(
        "a play of the suits of the play it follows locks the trick to them until it ends (the "
        "joker's row is its suit; a lone joker ignores and clears the lock; UECda)", BOOL,
        samples=(False, True), param=RuleParam.LOCK, requires="exact_plays"))
    run_joker_ends: bool = field(default=False, metadata=option(
        "with runs, the joker may extend a run below the 3 or above the 2 (JK-3-4, Q-K-A-2-JK; "
        "a run from below the 3 ranks lowest; UECda)", BOOL, samples=(False, True),
        param=RuleParam.RUN_JOKER_ENDS, requires="exact_plays"))
    spade_three_beats_joker: bool = field(default=False, metadata=option(
        "the 3 of spades alone may follow a lone joker (even in a locked trick) and clears the "
        "pile (UECda)", BOOL, samples=(False, True), param=RuleParam.SPADE_THREE_BEATS_JOKER,
        requires="exact_plays"))
    lead_may_pass: bool = field(default=False, metadata=option(
        "the leader may pass on an empty pile; when all have passed, the same leader leads "
        "again (UECda; needs stalemate_passes, which ends a deal that nobody plays in)", BOOL,
        samples=(False, True), param=RuleParam.LEAD_MAY_PASS, requires="stalemate_on"))
    first_lead_every_deal: bool = field(default=False, metadata=option(
        "first_lead picks the leader of every deal, after the exchange, not only of the first "
        "(the Bum leads the others otherwise; UECda: the 3 of diamonds' holder)", BOOL,
        samples=(False, False, True), param=RuleParam.FIRST_LEAD_EVERY_DEAL))
    deal_from: DealFrom = field(default="dealer_left", metadata=option(
        'who gets the first card of a deal: "dealer_left" (the seat after the dealer: seat 0 '
        'in the first deal, then the Bum\'s left); "president" (the President, and in the '
        "first deal a seat drawn from the game's seed; UECda: 11/11/11/10/10 cards from the "
        "daifugo)", DEAL_FROMS, samples=("dealer_left", "dealer_left", "president"),
        param=RuleParam.DEAL_FROM))
    title_reset_every: int | None = field(default=None, metadata=option(
        "every n deals (deals n, 2n, ...) the titles are cleared: that deal has no exchange and "
        "is dealt and led as the first deal is (UECda's class reset, FLASH_MIBUN_NUMBER: 100); "
        "None: never", (None,), low=1, high=MAX_DEALS, samples=(None, None, 1, 2, 3),
        param=RuleParam.TITLE_RESET_EVERY))
    reseat_every: int | None = field(default=None, metadata=option(
        "every n deals (deals 0, n, 2n, ...) the players are seated round the table in an order "
        "drawn from the game's seed; they keep their ids, titles and scores (UECda's seat "
        "change, RULE_SEKIGAE_NUM: 3); None: player p sits in seat p", (None,), low=2,
        high=MAX_DEALS, samples=(None, None, None, 2, 3), param=RuleParam.RESEAT_EVERY,
        error=f"reseat_every must be None or an integer from 2 to {MAX_DEALS}, got {{value!r}} "
        "(the seats are drawn at deals 0, n, 2n, ...; the UECda server takes 1 for never: that "
        "is None)"))
    observation: Observation = field(default="standard", metadata=option(
        'what a player observes: "standard"; "history" (adds the cards each seat played, '
        'what each seat passed on and the last 8 moves); "record" (adds to "history" every '
        "move of the deal's play in order); changes nothing in play", OBSERVATIONS,
        samples=("standard", "standard", "history", "record"), param=RuleParam.OBSERVATION))
    preset_name: str | None = field(default=None, metadata=option(
        "the preset these rules came from (its player range is checked); set by Rules.preset",
        (None, *PRESETS), samples=(None,),
        error=f"unknown preset {{value!r}}; presets are {sorted(PRESETS)}"))

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, (np.integer, np.bool_)):  # numpy scalars count as plain ones
                value = value.item()
                object.__setattr__(self, f.name, value)
            if isinstance(value, int) and not -MAX_OPTION_INT <= value <= MAX_OPTION_INT:
                size = (f"2**{value.bit_length() - 1} or more" if value > 0
                        else f"-2**{(-value).bit_length() - 1} or less")
                raise ValueError(
                    f"invalid Rules: {f.name} must be an integer the engine can hold (at most "
                    f"2**63 - 1 in size), got {size}"
                )
            problem = f.metadata["option"].problem(f.name, value)
            if problem is not None:
                raise ValueError(f"invalid Rules: {problem}")
        if self.preset_name is not None:
            lo, hi = PRESET_PLAYERS[self.preset_name]
            if not lo <= self.num_players <= hi:
                raise ValueError(
                    f"invalid Rules: preset {self.preset_name!r} is for {lo}-{hi} players, got "
                    f"num_players={self.num_players}"
                )
        if self.num_cards < self.num_players:
            raise ValueError("invalid Rules: fewer cards than players")
        for name, opt in OPTIONS.items():
            if opt.requires is not None and not getattr(self, opt.requires):
                value = getattr(self, name)
                if value != _DEFAULTS[name]:
                    raise ValueError(
                        f"invalid Rules: {name}={value!r} refines {REQUIREMENT_WORDS[opt.requires]}"
                        f", which is off; turn it on or leave {name} at {_DEFAULTS[name]!r}"
                    )

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
    def keeps_history(self) -> bool:
        """Whether the engine keeps the deal's public history (``observation`` "history" or
        "record"; the fields ``seat_played``, ``seat_passed`` and ``recent`` of the state)."""
        return self.observation != "standard"

    @property
    def record_length(self) -> int:
        """The most moves a deal's play can make: every play takes a card, and between two plays
        (and after the last) each seat passes at most once: ``num_cards * P + P`` (the last
        player passes too with ``play_on_own``: ``num_cards * (P + 1) + P + 1``; with
        ``lead_may_pass`` up to ``stalemate_passes`` passes come between two plays)."""
        passes = self.num_players + int(self.play_on_own)  # (at most, between two plays)
        if self.lead_may_pass and self.stalemate_passes is not None:  # (then at most n)
            passes = max(passes, self.stalemate_passes + 1)
        return self.num_cards * passes + passes

    @property
    def moves_kept(self) -> int:
        """Moves of the play phase the state keeps in ``recent``: 0 (standard), the last
        ``HISTORY_LEN`` (8, "history") or all of them (:attr:`record_length`, "record")."""
        if self.observation == "record":
            return self.record_length
        return HISTORY_LEN if self.observation == "history" else 0

    @property
    def exchange_on(self) -> bool:
        """Whether cards are exchanged before every deal after the first."""
        return self.deals > 1 and (self.exchange is True or self.exchange == "auto")

    @property
    def stalemate_on(self) -> bool:
        """Whether passes in a row end a deal (``stalemate_passes``)."""
        return self.stalemate_passes is not None

    @property
    def max_set_size(self) -> int:
        """Largest set: every natural card of a rank plus every joker."""
        return 4 * self.num_decks + self.num_jokers

    @property
    def exact_possible(self) -> bool:
        """Whether ``exact_plays`` may be on: one deck, at most one joker, one suit per run."""
        return self.num_decks == 1 and self.num_jokers <= 1 and not self.runs_mixed_suits

    @property
    def num_exchange_pairs(self) -> int:
        """1 (Bum and President) with 3 players, else 2 (and Vice-Bum with Vice-President)."""
        return 1 if self.num_players == 3 else 2


OPTIONS: Mapping[str, Option] = {f.name: f.metadata["option"] for f in dataclasses.fields(Rules)}
"""Every option of :class:`Rules`, in field order, with its metadata."""

_DEFAULTS: dict[str, Any] = {f.name: f.default for f in dataclasses.fields(Rules)}


_DERIVED_PARAMS: dict[RuleParam, str] = {RuleParam.MAX_SET: "max_set_size"}
"""Slots of :func:`rule_params` that no single option fills: the property of Rules they hold."""


def _check_param_slots() -> None:
    """Every :class:`RuleParam` is filled exactly once (by an option or a derived property)."""
    slots = [o.param for o in OPTIONS.values() if o.param is not None] + list(_DERIVED_PARAMS)
    if sorted(slots) != list(RuleParam):
        raise AssertionError(f"RuleParam slots {sorted(slots)} != {list(RuleParam)}")


_check_param_slots()


def rule_params(rules: Rules) -> np.ndarray:
    """The options of ``rules`` as the int64 vector indexed by :class:`RuleParam`."""
    rp = np.zeros(len(RuleParam), np.int64)
    for name, opt in OPTIONS.items():
        if opt.param is not None:
            rp[opt.param] = opt.encode(getattr(rules, opt.derived or name))
    for slot, prop in _DERIVED_PARAMS.items():
        rp[slot] = int(getattr(rules, prop))
    rp.setflags(write=False)
    return rp


# ---------------------------------------------------------------------------- helpers
def _check_names(options: dict[str, Any]) -> None:
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise ValueError(f"unknown rule option(s) {unknown}; options are {sorted(OPTIONS)}")


_dataclass_init = Rules.__init__


def _checked_init(self: Rules, *args: Any, **kwargs: Any) -> None:
    _check_names(kwargs)  # an unknown option is a ValueError that lists the options
    _dataclass_init(self, *args, **kwargs)


Rules.__init__ = _checked_init  # type: ignore[method-assign]
