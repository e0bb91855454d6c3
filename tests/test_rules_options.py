"""Rules options (validation, presets, derived values) and the action layout (ids, names, cards)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from president_env.core.actions import ActionLayout, Kind
from president_env.core.cards import (
    JOKER,
    NUM_CARDS,
    Rank,
    Suit,
    format_hand,
    parse_card,
    parse_hand,
)
from president_env.core.rules import (
    FIRST_LEADS,
    OBSERVATIONS,
    OPTIONS,
    PRESET_PLAYERS,
    PRESETS,
    SCORINGS,
    RuleParam,
    Rules,
    rule_params,
)
from president_env.testing.configs import ENABLING, random_rules

# ------------------------------------------------------------------------------ validation


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(num_players=9), "num_players"),
        (dict(num_players=2), "num_players"),
        (dict(num_players=True), "num_players"),
        (dict(jokers=-1), "jokers"),
        (dict(jokers=3), "jokers"),
        (dict(jokers=True), "jokers"),
        (dict(decks=3), "decks"),
        (dict(decks=0), "decks"),
        (dict(decks=True), "decks"),
        (dict(allow_equal=1), "allow_equal"),
        (dict(pass_is_final=0), "pass_is_final"),
        (dict(top_rank_clears=1), "top_rank_clears"),
        (dict(eight_clears=0), "eight_clears"),
        (dict(revolution=1), "revolution"),
        (dict(runs=1), "runs"),
        (dict(exchange=1), "exchange"),
        (dict(exchange="yes"), "exchange"),
        (dict(first_lead="four_of_clubs"), "first_lead"),
        (dict(scoring="golf"), "scoring"),
        (dict(deals=0), "deals"),
        (dict(deals=-2), "deals"),
        (dict(deals=1.5), "deals"),
        (dict(target_score=0), "target_score"),
        (dict(target_score=-3), "target_score"),
        (dict(preset_name="nope"), "unknown preset"),
        (dict(deal_from="bum"), r"deal_from must be 'dealer_left' or 'president', got 'bum'"),
        (dict(deal_from=1), "deal_from"),
        (dict(title_reset_every=0), r"title_reset_every must be None or an integer from 1 to"),
        (dict(title_reset_every=True), "title_reset_every"),
        (dict(title_reset_every=2.0), "title_reset_every"),
        (dict(reseat_every=1), r"reseat_every must be None or an integer from 2 to 10000"),
        (dict(reseat_every=-2), "reseat_every"),
    ],
)
def test_invalid_rules_raise_naming_the_problem(kwargs: dict[str, Any], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        Rules(**kwargs)


ODD_VALUES: list[Any] = [None, True, False, -1, 0, 1, 2, 3, 9, 10_001, 1.5, "auto", "golf", [1]]


@pytest.mark.parametrize("name", list(OPTIONS))
def test_every_value_an_option_does_not_allow_raises_naming_it(name: str) -> None:
    """Derived from the options' metadata: a value outside an option's choices and range raises
    a ValueError that names the option (or the unknown preset) and says what is allowed."""
    opt = OPTIONS[name]
    bad = [v for v in ODD_VALUES if not opt.allows(v)]
    assert bad
    for value in bad:
        with pytest.raises(ValueError) as info:
            Rules(**{name: value})
        text = str(info.value)
        if name == "preset_name":
            assert f"unknown preset {value!r}" in text
        else:
            assert f"{name} must be {opt.allowed_text()}, got {value!r}" in text
    parent = ENABLING[opt.requires] if opt.requires else {}
    for value in opt.test_values():
        assert getattr(Rules(**{**parent, name: value}), name) == value


def test_numpy_scalars_are_taken_as_plain_values() -> None:
    given: dict[str, Any] = dict(
        num_players=np.int64(5), jokers=np.int8(1), runs=np.bool_(True), deals=np.int32(2)
    )
    r = Rules(**given)
    assert (r.num_players, r.jokers, r.runs, r.deals) == (5, 1, True, 2)
    assert all(type(v) in (int, bool, str, type(None)) for v in r.to_dict().values())
    with pytest.raises(ValueError, match="deals"):
        Rules(deals=np.float64(2.0))  # type: ignore[arg-type]


# ------------------------------------------------------------------------------ parameter vector


def test_rule_param_slots_are_fixed() -> None:
    """The kernels of the engine and of the agents index the vector by these names."""
    assert {m.name: m.value for m in RuleParam} == {
        "PLAYERS": 0,
        "DECKS": 1,
        "JOKERS": 2,
        "ALLOW_EQUAL": 3,
        "PASS_IS_FINAL": 4,
        "TOP_RANK_CLEARS": 5,
        "EIGHT_CLEARS": 6,
        "REVOLUTION": 7,
        "RUNS": 8,
        "EXCHANGE": 9,
        "FIRST_LEAD": 10,
        "DEALS": 11,
        "SCORING": 12,
        "TARGET_SCORE": 13,
        "MAX_SET": 14,
        "REVOLUTION_NEXT_TRICK": 15,
        "WESTERN_REVOLUTION": 16,
        "BOMBS": 17,
        "RUNS_MIXED_SUITS": 18,
        "MAX_RUN_LENGTH": 19,
        "PRESIDENT_ASKS": 20,
        "OBSERVATION": 21,
        "RUNS_DISJOINT": 22,
        "RUN_REVOLUTION": 23,
        "PLAY_ON_OWN": 24,
        "JACK_BACK": 25,
        "SIX_REVERSES": 26,
        "STALEMATE_PASSES": 27,
        "EXACT_PLAYS": 28,
        "LOCK": 29,
        "SPADE_THREE_BEATS_JOKER": 30,
        "RUN_JOKER_ENDS": 31,
        "LEAD_MAY_PASS": 32,
        "FIRST_LEAD_EVERY_DEAL": 33,
        "DEAL_FROM": 34,
        "TITLE_RESET_EVERY": 35,
        "RESEAT_EVERY": 36,
    }


def _params_by_hand(r: Rules) -> list[int]:
    """The vector written out option by option (what rule_params derives from the metadata)."""
    return [
        r.num_players,
        r.num_decks,
        r.num_jokers,
        int(r.allow_equal),
        int(r.pass_is_final),
        int(r.top_rank_clears),
        int(r.eight_clears),
        int(r.revolution),
        int(r.runs),
        int(r.exchange_on),
        FIRST_LEADS.index(r.first_lead),
        r.deals,
        SCORINGS.index(r.scoring),
        r.target_score or 0,
        r.max_set_size,
        int(r.revolution_timing == "next_trick"),
        int(r.western_revolution),
        r.bombs or 0,
        int(r.runs_mixed_suits),
        r.max_run_length or 0,
        int(r.president_asks),
        OBSERVATIONS.index(r.observation),
        int(r.runs_disjoint),
        r.run_revolution or 0,
        int(r.play_on_own),
        int(r.jack_back),
        int(r.six_reverses),
        r.stalemate_passes or 0,
        int(r.exact_plays),
        int(r.lock),
        int(r.spade_three_beats_joker),
        int(r.run_joker_ends),
        int(r.lead_may_pass),
        int(r.first_lead_every_deal),
        ["dealer_left", "president"].index(r.deal_from),
        r.title_reset_every or 0,
        r.reseat_every or 0,
    ]


def test_rule_params_hold_every_option() -> None:
    rng = random.Random(5)
    many = [Rules.preset(n, num_players=p) for n, span in PRESET_PLAYERS.items() for p in span]
    many += [random_rules(rng) for _ in range(300)]
    for r in many:
        rp = rule_params(r)
        assert rp.dtype == np.int64 and not rp.flags.writeable
        assert rp.tolist() == _params_by_hand(r), r


def test_seven_players_in_cardverse_raise() -> None:
    with pytest.raises(ValueError, match=r"cardverse.*3-6 players.*num_players=7"):
        Rules.preset("cardverse", num_players=7)
    with pytest.raises(ValueError, match="3-6 players"):
        Rules(num_players=7, preset_name="cardverse")
    assert Rules.preset("cardverse", num_players=6).num_players == 6


def test_unknown_option_and_unknown_preset_raise() -> None:
    with pytest.raises(ValueError, match=r"unknown rule option.*'jokerz'"):
        Rules.preset("standard", jokerz=1)
    with pytest.raises(ValueError, match=r"unknown rule option.*'colour'"):
        Rules.from_dict({"colour": "red"})
    with pytest.raises(ValueError, match=r"unknown rule option.*'speed'"):
        Rules().replace(speed=2)
    with pytest.raises((TypeError, ValueError), match="colour"):
        Rules(colour="red")  # type: ignore[call-arg]
    with pytest.raises(ValueError, match=r"unknown preset 'poker'"):
        Rules.preset("poker")
    with pytest.raises(ValueError, match=r"unknown preset 'poker'"):
        Rules.from_dict({"preset": "poker"})


def test_invalid_values_raise_through_every_constructor() -> None:
    with pytest.raises(ValueError, match="num_players"):
        Rules.preset("daifugo", num_players=9)
    with pytest.raises(ValueError, match="jokers"):
        Rules.from_dict({"jokers": 3})
    with pytest.raises(ValueError, match="deals"):
        Rules().replace(deals=0)
    with pytest.raises(ValueError, match="allow_equal"):
        Rules.preset("runs", allow_equal=1)


def test_every_valid_player_count_is_accepted() -> None:
    for p in range(3, 9):
        assert Rules(num_players=p).num_players == p
    for name, (lo, hi) in PRESET_PLAYERS.items():
        for p in range(lo, hi + 1):
            assert Rules.preset(name, num_players=p).num_players == p


# ------------------------------------------------------------------------------ presets

TABLE = {
    # allow_equal, pass_is_final, revolution, runs, jokers, eight_clears, first_lead, scoring
    "standard": (False, False, False, False, 0, False, "three_of_clubs", "president_vp"),
    "revolution": (True, False, True, False, 0, False, "three_of_clubs", "places"),
    "runs": (True, False, False, True, 0, False, "three_of_clubs", "places"),
    "cardverse": (False, True, True, False, 0, False, "seat0", "places"),
    "daifugo": (True, False, True, True, 2, True, "three_of_clubs", "places"),
    "daifugo_full": (True, False, True, True, 2, True, "three_of_clubs", "places"),
    "uecda": (False, True, True, True, 1, True, "three_of_diamonds", "places"),
}
FURTHER = {  # revolution_timing, western_revolution, bombs, mixed suits, max run, asks
    name: ("immediate", False, None, False, None, False) for name in TABLE
} | {"daifugo_full": ("next_trick", False, 5, False, None, False)}


@pytest.mark.parametrize("name", sorted(TABLE))
def test_presets_have_the_table_options(name: str) -> None:
    r = Rules.preset(name)
    got = (
        r.allow_equal,
        r.pass_is_final,
        r.revolution,
        r.runs,
        r.jokers,
        r.eight_clears,
        r.first_lead,
        r.scoring,
    )
    assert got == TABLE[name]
    further = (
        r.revolution_timing,
        r.western_revolution,
        r.bombs,
        r.runs_mixed_suits,
        r.max_run_length,
        r.president_asks,
    )
    assert further == FURTHER[name]
    assert r.preset_name == name
    assert r.deals == 1
    assert r.target_score is None
    assert r.top_rank_clears is (name != "uecda")  # (the UECda server has no 2-clear)
    assert r.decks == "auto"
    assert r.exchange == "auto"
    assert r.exchange_on is False


def test_preset_list_and_player_ranges() -> None:
    assert sorted(PRESETS) == sorted(TABLE)
    assert PRESET_PLAYERS == {
        "standard": (3, 8),
        "revolution": (3, 8),
        "runs": (3, 8),
        "cardverse": (3, 6),
        "daifugo": (3, 8),
        "daifugo_full": (3, 8),
        "uecda": (5, 5),
    }


@pytest.mark.parametrize(
    "kwargs, parent",
    [
        (dict(revolution_timing="next_trick"), "revolution"),
        (dict(western_revolution=True), "revolution"),
        (dict(runs_mixed_suits=True), "runs"),
        (dict(max_run_length=5), "runs"),
        (dict(president_asks=True), "card exchange"),
        (dict(president_asks=True, exchange=True), "card exchange"),  # one deal: no exchange
        (dict(president_asks=True, deals=3, exchange=False), "card exchange"),
    ],
)
def test_an_option_that_refines_another_is_refused_without_it(
    kwargs: dict[str, Any], parent: str
) -> None:
    name = next(iter(kwargs))
    with pytest.raises(ValueError, match=rf"{name}=.* refines (the )?{parent}.*which is off"):
        Rules(**kwargs)
    with pytest.raises(ValueError, match="refines"):
        Rules.preset("standard", **kwargs)
    opt = OPTIONS[name]
    assert opt.requires is not None
    ok = Rules(**{**kwargs, **ENABLING[opt.requires]})
    assert getattr(ok, name) == kwargs[name]


def test_refining_options_at_their_default_need_nothing() -> None:
    r = Rules(revolution_timing="immediate", western_revolution=False, max_run_length=None)
    assert not r.revolution and not r.runs
    assert Rules(bombs=4).bombs == 4  # bombs refine nothing


def test_rules_without_a_preset_construct() -> None:
    # The field naming the preset once shared its name with the classmethod Rules.preset, which
    # became the field's default: Rules() raised "unknown preset <bound method ...>".
    assert Rules().preset_name is None
    assert Rules(num_players=5).preset_name is None
    assert Rules.from_dict({"jokers": 1}).preset_name is None
    assert Rules(num_players=5).replace(jokers=2).jokers == 2
    assert Rules.from_dict({"preset_name": "runs"}) == Rules.preset("runs")


def test_defaults() -> None:
    r = Rules()
    assert (r.num_players, r.decks, r.jokers, r.deals, r.scoring) == (4, "auto", 0, 1, "places")
    assert (r.allow_equal, r.pass_is_final, r.revolution, r.runs, r.eight_clears) == (
        False,
        False,
        False,
        False,
        False,
    )
    assert r.top_rank_clears is True
    assert r.first_lead == "three_of_clubs"
    assert r.target_score is None


def test_overrides() -> None:
    r = Rules.preset("cardverse", num_players=5, revolution=False, deals=3)
    assert (r.num_players, r.revolution, r.deals, r.pass_is_final, r.first_lead) == (
        5,
        False,
        3,
        True,
        "seat0",
    )
    d = Rules.preset("daifugo", jokers=0, eight_clears=False)
    assert (d.jokers, d.eight_clears, d.runs, d.allow_equal) == (0, False, True, True)
    f = Rules.from_dict({"preset": "standard", "scoring": "tally", "target_score": 5})
    assert (f.scoring, f.target_score, f.preset_name) == ("tally", 5, "standard")
    g = Rules.preset("runs").replace(num_players=8)
    assert (g.num_players, g.runs, g.num_decks) == (8, True, 2)
    assert Rules.from_dict(Rules.preset("revolution", num_players=6).to_dict()) == Rules.preset(
        "revolution", num_players=6
    )


@pytest.mark.parametrize(
    "kwargs, decks, jokers, max_set, cards",
    [
        (dict(num_players=3), 1, 0, 4, 52),
        (dict(num_players=6), 1, 0, 4, 52),
        (dict(num_players=7), 2, 0, 8, 104),
        (dict(num_players=8), 2, 0, 8, 104),
        (dict(num_players=4, jokers=1), 1, 1, 5, 53),
        (dict(num_players=4, jokers=2), 1, 2, 6, 54),
        (dict(num_players=7, jokers=2), 2, 4, 12, 108),
        (dict(num_players=8, jokers=1), 2, 2, 10, 106),
        (dict(num_players=4, decks=2), 2, 0, 8, 104),
        (dict(num_players=8, decks=1), 1, 0, 4, 52),
        (dict(num_players=5, decks=2, jokers=2), 2, 4, 12, 108),
    ],
)
def test_derived_values(
    kwargs: dict[str, Any], decks: int, jokers: int, max_set: int, cards: int
) -> None:
    r = Rules(**kwargs)
    assert (r.num_decks, r.num_jokers, r.max_set_size, r.num_cards) == (decks, jokers, max_set, cards)


@pytest.mark.parametrize(
    "deals, exchange, on",
    [(1, "auto", False), (2, "auto", True), (5, "auto", True), (1, True, False), (3, True, True),
     (3, False, False), (1, False, False)],
)
def test_exchange_on(deals: int, exchange: Any, on: bool) -> None:
    assert Rules(deals=deals, exchange=exchange).exchange_on is on


def test_exchange_pairs() -> None:
    assert Rules(num_players=3).num_exchange_pairs == 1
    assert [Rules(num_players=p).num_exchange_pairs for p in range(4, 9)] == [2] * 5


def test_rules_are_frozen_and_hashable() -> None:
    r = Rules()
    with pytest.raises(AttributeError):
        r.jokers = 2  # type: ignore[misc]
    assert hash(r) == hash(Rules())


# ------------------------------------------------------------------------------ action layout


@pytest.mark.parametrize(
    "rules, size",
    [
        # pass + 13 ranks x S set sizes + J jokers-only + 264 runs + 52/53 gives
        (Rules.preset("standard"), 1 + 13 * 4),
        (Rules.preset("revolution"), 1 + 13 * 4),
        (Rules.preset("cardverse"), 1 + 13 * 4),
        (Rules.preset("runs"), 1 + 13 * 4 + 264),
        (Rules.preset("daifugo"), 1 + 13 * 6 + 2 + 264),
        (Rules.preset("standard", num_players=7), 1 + 13 * 8),
        (Rules.preset("runs", num_players=8), 1 + 13 * 8 + 264),
        (Rules.preset("daifugo", num_players=7), 1 + 13 * 12 + 4 + 264),
        (Rules.preset("standard", deals=2), 1 + 13 * 4 + 52),
        (Rules.preset("daifugo", deals=2), 1 + 13 * 6 + 2 + 264 + 53),
        (Rules.preset("cardverse", deals=3, num_players=6), 1 + 13 * 4 + 52),
    ],
)
def test_layout_sizes(rules: Rules, size: int) -> None:
    lay = ActionLayout(rules)
    assert lay.num_actions == size
    assert len(lay.runs) == (264 if rules.runs else 0)
    counts = np.bincount(lay.kind, minlength=5)
    assert counts[Kind.PASS] == 1
    assert counts[Kind.SET] == 13 * rules.max_set_size
    assert counts[Kind.JOKERS] == rules.num_jokers
    assert counts[Kind.RUN] == len(lay.runs)
    gives = (52 + (rules.num_jokers > 0)) if rules.exchange_on else 0
    assert counts[Kind.GIVE] == gives


def test_action_names() -> None:
    lay = ActionLayout(Rules.preset("daifugo", deals=2))
    assert lay.name(0) == "pass"
    assert lay.name(lay.set_action(Rank.NINE, 1)) == "single 9"
    assert lay.name(lay.set_action(Rank.NINE, 2)) == "pair of 9"
    assert lay.name(lay.set_action(Rank.NINE, 3)) == "three 9s"
    assert lay.name(lay.set_action(Rank.NINE, 4)) == "four 9s"
    assert lay.name(lay.set_action(Rank.NINE, 5)) == "5 x 9"
    assert lay.name(lay.set_action(Rank.TEN, 6)) == "6 x 10"
    assert lay.name(lay.set_action(Rank.TWO, 1)) == "single 2"
    assert lay.name(lay.jokers_action(1)) == "single joker"
    assert lay.name(lay.jokers_action(2)) == "2 jokers"
    assert lay.name(lay.run_action(Suit.HEARTS, Rank.FIVE, 3)) == "run 5-6-7 of hearts"
    assert lay.name(lay.run_action(Suit.CLUBS, Rank.KING, 3)) == "run K-A-2 of clubs"
    assert (
        lay.name(lay.run_action(Suit.SPADES, Rank.THREE, 13))
        == "run 3-4-5-6-7-8-9-10-J-Q-K-A-2 of spades"
    )
    assert lay.name(lay.give_action(parse_card("10h"))) == "give 10h"
    assert lay.name(lay.give_action(JOKER)) == "give JK"
    names = lay.names()
    assert len(names) == len(set(names)) == lay.num_actions


def test_action_ids_are_laid_out_as_documented() -> None:
    lay = ActionLayout(Rules.preset("daifugo", deals=2))
    s = 6
    assert lay.set_action(Rank.THREE, 1) == 1
    assert lay.set_action(Rank.NINE, 2) == 1 + 6 * s + 1
    assert lay.jokers_action(1) == 1 + 13 * s
    assert lay.run_action(Suit.CLUBS, Rank.THREE, 3) == 1 + 13 * s + 2
    assert lay.run_action(Suit.CLUBS, Rank.FOUR, 3) == 1 + 13 * s + 2 + 1
    assert lay.run_action(Suit.CLUBS, Rank.THREE, 4) == 1 + 13 * s + 2 + 11
    assert lay.run_action(Suit.DIAMONDS, Rank.THREE, 3) == 1 + 13 * s + 2 + 66
    assert lay.give_action(0) == 1 + 13 * s + 2 + 264
    assert lay.give_action(JOKER) == lay.num_actions - 1


@pytest.mark.parametrize(
    "rules",
    [Rules.preset(n, deals=2) for n in sorted(set(PRESETS) - {"uecda"})]  # (uecda: exact_plays,
    + [Rules.preset("daifugo", num_players=8, deals=3), Rules.preset("runs", num_players=7)],
)  # whose round trip is in test_exact_plays)
def test_action_ids_round_trip(rules: Rules) -> None:
    lay = ActionLayout(rules)
    for a in range(lay.num_actions):
        k = lay.kind[a]
        if k == Kind.PASS:
            assert a == 0
        elif k == Kind.SET:
            assert lay.set_action(int(lay.rank[a]), int(lay.size[a])) == a
        elif k == Kind.JOKERS:
            assert lay.jokers_action(int(lay.size[a])) == a
        elif k == Kind.RUN:
            su, bottom, length = lay.runs[a - lay.run_base]
            assert (su, bottom, length) == (lay.suit[a], lay.rank[a], lay.size[a])
            assert lay.run_action(su, bottom, length) == a
        else:
            assert k == Kind.GIVE
            assert lay.give_action(int(lay.card[a])) == a
        assert lay.check(a) == a
        numpy_id: Any = np.int64(a)
        assert lay.check(numpy_id) == a


def test_layout_rejects_ids_it_does_not_have() -> None:
    lay = ActionLayout(Rules())  # one deck, no jokers, no runs, one deal
    with pytest.raises(ValueError, match="out of range"):
        lay.check(lay.num_actions)
    with pytest.raises(ValueError, match="out of range"):
        lay.name(-1)
    with pytest.raises(TypeError):
        lay.check(True)
    with pytest.raises(TypeError):
        lay.check(1.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        lay.set_action(Rank.NINE, 5)
    with pytest.raises(ValueError):
        lay.set_action(13, 1)
    with pytest.raises(ValueError):
        lay.jokers_action(1)
    with pytest.raises(ValueError):
        lay.run_action(Suit.HEARTS, Rank.FIVE, 3)
    with pytest.raises(ValueError, match="no card exchange"):
        lay.give_action(0)
    runs = ActionLayout(Rules(runs=True))
    with pytest.raises(ValueError):
        runs.run_action(Suit.HEARTS, Rank.ACE, 3)  # A-2-3 wraps: not a run
    with pytest.raises(ValueError):
        runs.run_action(Suit.HEARTS, Rank.FIVE, 2)  # too short
    with pytest.raises(ValueError):
        ActionLayout(Rules(deals=2)).give_action(JOKER)  # no jokers in play


# ------------------------------------------------------------------------------ cards_for


def _cards(lay: ActionLayout, action: int, hand: str) -> str:
    return format_hand(lay.cards_for(action, parse_hand(hand)))


def test_sets_use_natural_cards_first_lowest_suit_first() -> None:
    lay = ActionLayout(Rules(jokers=2))
    nine = Rank.NINE
    assert _cards(lay, lay.set_action(nine, 1), "9s 9h 9d") == "9d"
    assert _cards(lay, lay.set_action(nine, 2), "9s 9c 9h JK") == "9c 9h"
    assert _cards(lay, lay.set_action(nine, 3), "9s 9c 9h JK") == "9c 9h 9s"
    assert _cards(lay, lay.set_action(nine, 4), "9s 9c 9h JK") == "9c 9h 9s JK"
    assert _cards(lay, lay.set_action(nine, 3), "9h JK JK") == "9h JK JK"
    assert _cards(lay, lay.set_action(nine, 2), "9h JK JK") == "9h JK"
    assert _cards(lay, lay.jokers_action(2), "9h JK JK") == "JK JK"
    with pytest.raises(ValueError, match="cannot play"):
        lay.cards_for(lay.set_action(nine, 1), parse_hand("JK JK"))  # a set needs a natural
    with pytest.raises(ValueError, match="cannot play"):
        lay.cards_for(lay.set_action(nine, 4), parse_hand("9h JK JK"))
    with pytest.raises(ValueError, match="cannot play"):
        lay.cards_for(lay.jokers_action(2), parse_hand("9h JK"))


def test_sets_with_two_decks_take_both_copies_of_the_lowest_suit() -> None:
    lay = ActionLayout(Rules(num_players=7))
    hand = parse_hand("9h 9c 9c 9d 9s")
    assert _cards(lay, lay.set_action(Rank.NINE, 2), "9h 9c 9c 9d 9s") == "9c 9c"
    assert _cards(lay, lay.set_action(Rank.NINE, 4), "9h 9c 9c 9d 9s") == "9c 9c 9d 9h"
    assert lay.cards_for(lay.set_action(Rank.NINE, 5), hand).tolist() == hand.tolist()


def test_runs_use_one_natural_per_place_and_jokers_for_the_rest() -> None:
    lay = ActionLayout(Rules(runs=True, jokers=2, num_players=7))  # two decks, four jokers
    h, c = Suit.HEARTS, Suit.CLUBS
    five = Rank.FIVE
    assert _cards(lay, lay.run_action(h, five, 3), "5h 5h 5s 6h 6c 7h") == "5h 6h 7h"
    assert _cards(lay, lay.run_action(h, five, 3), "5h 7h JK JK") == "5h 7h JK"
    assert _cards(lay, lay.run_action(h, five, 4), "6h JK JK JK") == "6h JK JK JK"
    assert _cards(lay, lay.run_action(c, Rank.KING, 3), "Kc Ac 2c 2s") == "Kc Ac 2c"
    with pytest.raises(ValueError, match="cannot play"):
        lay.cards_for(lay.run_action(h, five, 3), parse_hand("JK JK JK"))  # needs a natural
    with pytest.raises(ValueError, match="cannot play"):
        lay.cards_for(lay.run_action(h, five, 3), parse_hand("5h 6c 7h"))  # one suit
    with pytest.raises(ValueError, match="cannot play"):
        lay.cards_for(lay.run_action(h, five, 4), parse_hand("5h 6h JK"))


def test_give_takes_one_card() -> None:
    lay = ActionLayout(Rules(deals=2, jokers=1))
    assert _cards(lay, lay.give_action(parse_card("10h")), "10h 10s 3c") == "10h"
    assert _cards(lay, lay.give_action(JOKER), "JK 3c") == "JK"
    with pytest.raises(ValueError, match="does not hold 10h"):
        lay.cards_for(lay.give_action(parse_card("10h")), parse_hand("10s"))


def test_pass_plays_nothing_and_bad_hands_raise() -> None:
    lay = ActionLayout(Rules())
    assert lay.cards_for(0, parse_hand("3c")).sum() == 0
    with pytest.raises(ValueError, match="53 counts"):
        lay.cards_for(1, np.zeros(52))
    assert lay.cards_for(1, np.eye(NUM_CARDS, dtype=np.int8)[0]).tolist() == (
        np.eye(NUM_CARDS, dtype=np.int8)[0].tolist()
    )
