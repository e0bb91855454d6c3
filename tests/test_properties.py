"""Properties of random legal games over every preset, player count and many options.

Each example draws rules (a preset, a player count in its range, some option overrides drawn
from the options' metadata, and 1-3 deals; half the time the variants of ``RULES.md`` section
12 that were drawn turn on the option they refine, else they are dropped without it) and a
seed, then plays random legal actions (drawn from the engine's own mask) to the end of the
game, checking an invariant at every step. The
invariants are those of :mod:`president_env.testing.checks`, which ``check_engine`` also runs
for any rules (tested at the end of this file).
"""

from __future__ import annotations

import random
import textwrap
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from president_env.core.engine import PHASE_DONE, Engine, State
from president_env.core.rules import OPTIONS, PRESET_PLAYERS, PRESETS, Rules
from president_env.rewards import deal_rewards, reward_table
from president_env.testing.checks import (
    EngineCheckError,
    check_cards,
    check_engine,
    check_hidden_cards,
    check_turn,
    step_bound,
)
from president_env.testing.configs import ENABLING, all_variants_rules, drop_unmet, random_rules
from president_env.testing.difftest import VARIANTS

MAX_SEED = 2**64 - 1

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

DRAWN_APART = ("num_players", "deals", "preset_name")
"""Options drawn by :func:`rules_st` itself (a preset's player range, 1..max_deals) or not at all."""

OVERRIDES = {
    name: st.sampled_from(opt.test_values())
    for name, opt in OPTIONS.items()
    if name not in DRAWN_APART
}
"""Every other option, drawn from its test values (see ``Option.test_values``)."""


@st.composite
def rules_st(draw: st.DrawFn, max_deals: int = 3) -> Rules:
    name = draw(st.sampled_from(sorted(PRESETS)))
    lo, hi = PRESET_PLAYERS[name]
    players = draw(st.integers(lo, hi))
    deals = draw(st.integers(1, max_deals))
    extra = draw(st.fixed_dictionaries({}, optional=OVERRIDES))
    values = {**PRESETS[name], "num_players": players, "deals": deals, **extra}
    if draw(st.booleans()):
        values = _enable_refined(values)
    return Rules.preset(name, **drop_unmet(values))


def _enable_refined(values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with the option that each refining option off its default needs turned on
    (``configs.ENABLING``; at least 2 deals for the exchange)."""
    out = dict(values)
    for name, value in values.items():
        requirement = OPTIONS[name].requires
        if requirement is not None and value != Rules.__dataclass_fields__[name].default:
            for key, needed in ENABLING[requirement].items():
                out[key] = max(out.get(key, 1), needed) if key == "deals" else needed
    return out


def test_rules_st_draws_every_variant() -> None:
    """The strategy reaches every value of the section 12 variants (with its parent option)."""
    seen: dict[str, set[Any]] = {name: set() for name in VARIANTS}

    @settings(max_examples=300, deadline=None, database=None, derandomize=True)
    @given(rules_st())
    def draw(r: Rules) -> None:
        for name in VARIANTS:
            seen[name].add(getattr(r, name))

    draw()
    for name in VARIANTS:
        assert seen[name] == set(OPTIONS[name].test_values()), name


seeds = st.integers(0, MAX_SEED)


@cache
def engine(r: Rules) -> Engine:
    return Engine(r)


def walk(eng: Engine, seed: int, actions_seed: int | None = None) -> Iterator[tuple[State, int]]:
    """The states of a random legal game (with the action taken from each, -1 at the end)."""
    rng = np.random.default_rng(seed if actions_seed is None else actions_seed)
    s = eng.init(np.array([seed], dtype=np.uint64))
    for _ in range(step_bound(eng.rules) + 1):
        mask = eng.legal_action_mask(s)
        if s.phase[0] == PHASE_DONE:
            yield s, -1
            return
        a = int(eng.sample_random(mask, rng)[0])
        yield s, a
        s = eng.step(s, np.array([a]))
    raise AssertionError(f"the game did not end within {step_bound(eng.rules)} steps")


# ------------------------------------------------------------------------------ properties


@SETTINGS
@given(rules_st(), seeds)
def test_cards_are_conserved(r: Rules, seed: int) -> None:
    eng = engine(r)
    for s, _a in walk(eng, seed):
        check_cards(r, s)


@SETTINGS
@given(rules_st(), seeds)
def test_exactly_one_player_acts_and_the_mask_is_never_empty(r: Rules, seed: int) -> None:
    eng = engine(r)
    for s, _a in walk(eng, seed):
        check_turn(eng, s)


@SETTINGS
@given(rules_st(), seeds)
def test_every_game_ends_within_the_bound_after_its_deals(r: Rules, seed: int) -> None:
    eng = engine(r)
    deals_ended = 0
    for steps, (s, _a) in enumerate(walk(eng, seed)):
        deals_ended += bool(s.deal_over[0])
        assert steps <= step_bound(r)
    assert s.phase[0] == PHASE_DONE
    best = int(s.scores[0].max())
    if r.target_score is None or best < r.target_score:
        assert deals_ended == r.deals
    else:
        assert 1 <= deals_ended <= r.deals
    assert int(s.deal[0]) == deals_ended - 1
    # every deal gave every place once
    assert sorted(s.place[0].tolist()) == list(range(r.num_players))
    assert s.deal_over[0]
    assert deal_rewards(s, reward_table(r))[0].sum() == pytest.approx(0.0, abs=1e-5)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules_st(), seeds)
def test_the_same_seed_repeats_exactly(r: Rules, seed: int) -> None:
    eng = engine(r)
    first = list(walk(eng, seed))
    second = list(walk(eng, seed))
    assert len(first) == len(second)
    for (s1, a1), (s2, a2) in zip(first, second):
        assert a1 == a2
        assert s1.equals(s2)
    assert eng.init(np.array([seed], dtype=np.uint64)).equals(
        eng.init(np.array([seed], dtype=np.uint64))
    )


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules_st(max_deals=2), st.lists(seeds, min_size=2, max_size=5), seeds)
def test_a_batch_of_games_equals_the_games_one_by_one(
    r: Rules, game_seeds: list[int], actions_seed: int
) -> None:
    eng = engine(r)
    b = len(game_seeds)
    batch = eng.init(np.array(game_seeds, dtype=np.uint64))
    singles = [eng.init(np.array([g], dtype=np.uint64)) for g in game_seeds]
    rng = np.random.default_rng(actions_seed)
    for _ in range(step_bound(r) + 1):
        for i in range(b):
            assert batch.take(i).equals(singles[i])
        mask = eng.legal_action_mask(batch)
        for i in range(b):
            assert np.array_equal(mask[i], eng.legal_action_mask(singles[i])[0])
        if batch.terminated.all():
            return
        actions = eng.sample_random(mask, rng)
        actions[actions < 0] = 0  # games that are over ignore their action
        batch = eng.step(batch, actions)
        singles = [eng.step(single, actions[i : i + 1]) for i, single in enumerate(singles)]
    raise AssertionError("the games did not end")


@SETTINGS
@given(rules_st(), seeds)
def test_swapping_hidden_cards_between_opponents_leaves_other_observations_unchanged(
    r: Rules, seed: int
) -> None:
    eng = engine(r)
    rng = np.random.default_rng(seed ^ 0x5EED)
    checked = 0
    for i, (s, _a) in enumerate(walk(eng, seed)):
        if i % 7 == 0:
            checked += check_hidden_cards(eng, s, rng)
    assert checked > 0


@SETTINGS
@given(rules_st(), seeds)
def test_step_does_not_modify_its_input(r: Rules, seed: int) -> None:
    eng = engine(r)
    for s, a in walk(eng, seed):
        if a < 0:
            break
        before = s.copy()
        after = eng.step(s, np.array([a]))
        assert s.equals(before)
        assert not after.equals(before)
        for x, y in zip(after.arrays(), s.arrays()):
            assert not np.shares_memory(x, y)


def _illegal_actions(eng: Engine, s: State) -> list[int]:
    mask = eng.legal_action_mask(s)[0]
    illegal = [int(x) for x in np.flatnonzero(~mask)]
    return illegal + [-1, eng.num_actions, eng.num_actions + 7]


@SETTINGS
@given(rules_st(max_deals=2), seeds)
def test_illegal_actions_raise_and_change_nothing(r: Rules, seed: int) -> None:
    eng = engine(r)
    rng = np.random.default_rng(seed)
    for i, (s, _a) in enumerate(walk(eng, seed)):
        if i % 5 or s.phase[0] == PHASE_DONE:
            continue
        bad = _illegal_actions(eng, s)
        for x in rng.choice(bad, size=min(4, len(bad)), replace=False):
            before = s.copy()
            with pytest.raises(ValueError, match="illegal|out of range"):
                eng.step(s, np.array([int(x)]))
            assert s.equals(before)
            with pytest.raises(ValueError):
                eng.step_inplace(s, np.array([int(x)]))
            assert s.equals(before)


@settings(max_examples=10, deadline=None)
@given(rules_st(max_deals=2), st.lists(seeds, min_size=2, max_size=4, unique=True))
def test_one_illegal_action_in_a_batch_changes_no_game(r: Rules, game_seeds: list[int]) -> None:
    eng = engine(r)
    s = eng.init(np.array(game_seeds, dtype=np.uint64))
    mask = eng.legal_action_mask(s)
    actions = eng.sample_random(mask, np.random.default_rng(0))
    illegal = np.flatnonzero(~mask[-1])
    actions[-1] = illegal[0] if len(illegal) else eng.num_actions
    before = s.copy()
    with pytest.raises(ValueError, match=f"game {len(game_seeds) - 1}"):
        eng.step_inplace(s, actions)
    assert s.equals(before)


@settings(max_examples=10, deadline=None)
@given(rules_st(max_deals=1), seeds)
def test_finished_games_ignore_their_actions(r: Rules, seed: int) -> None:
    eng = engine(r)
    *_, (end, _a) = walk(eng, seed)
    assert end.phase[0] == PHASE_DONE
    again = eng.step(end, np.array([0]))
    for name in ("hands", "scores", "place", "title", "phase", "current", "deal", "played"):
        assert np.array_equal(getattr(again, name), getattr(end, name)), name


BAD_ACTIONS: list[tuple[Callable[[int], Any], type[Exception]]] = [
    (lambda b: np.zeros(b + 1, np.int64), ValueError),
    (lambda b: np.zeros((b, 1), np.int64), ValueError),
    (lambda b: np.zeros((1, b), np.int64), ValueError),
    (lambda b: np.zeros(0, np.int64), ValueError),
    (lambda b: np.full(b, 1.0), TypeError),
    (lambda b: np.ones(b, np.bool_), TypeError),
    (lambda b: np.array(["1"] * b), TypeError),
]


@pytest.mark.parametrize("batch", [1, 3])
@pytest.mark.parametrize("make, error", BAD_ACTIONS)
def test_actions_of_the_wrong_shape_or_dtype_raise(
    batch: int, make: Callable[[int], Any], error: type[Exception]
) -> None:
    eng = engine(Rules.preset("daifugo"))
    s = eng.init(np.arange(batch, dtype=np.uint64))
    before = s.copy()
    with pytest.raises(error):
        eng.step(s, make(batch))
    with pytest.raises(error):
        eng.step_inplace(s, make(batch))
    assert s.equals(before)


def test_scalar_actions_and_lists_are_accepted_for_a_batch_of_one() -> None:
    eng = engine(Rules.preset("standard"))
    s = eng.init(np.array([0], dtype=np.uint64))
    a = int(np.flatnonzero(eng.legal_action_mask(s)[0])[0])
    want = eng.step(s, np.array([a]))
    assert eng.step(s, a).equals(want)
    assert eng.step(s, [a]).equals(want)
    assert eng.step(s, np.int32(a)).equals(want)
    with pytest.raises(ValueError):
        eng.step(eng.init(np.arange(3, dtype=np.uint64)), a)


@pytest.mark.parametrize("players", [[-1], [4], [0, 1]])
def test_observe_rejects_bad_players(players: list[int]) -> None:
    eng = engine(Rules.preset("standard"))
    s = eng.init(np.array([0], dtype=np.uint64))
    with pytest.raises(ValueError):
        eng.observe(s, np.array(players))


# ------------------------------------------------------------------------------ check_engine


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_check_engine_passes_every_preset(name: str) -> None:
    lo, hi = PRESET_PLAYERS[name]
    for players in (lo, hi):
        rules = Rules.preset(name, num_players=players, deals=2)
        tally = check_engine(rules, games=4, seed=players)
        assert (tally.games, tally.deals) == (4, 8)


def test_check_engine_passes_random_mixes() -> None:
    rng = random.Random("check_engine mixes")
    for _ in range(3):
        tally = check_engine(random_rules(rng, max_deals=3), games=4, seed=rng.randrange(99))
        assert tally.games == 4


@pytest.mark.parametrize("players", [3, 6, 8])
def test_check_engine_passes_every_variant_at_once(players: int) -> None:
    """``daifugo_full`` with every other variant of section 12 on (asks, Western revolution,
    mixed and capped runs): every invariant, hidden cards and the reference."""
    rules = all_variants_rules(players)
    tally = check_engine(rules, games=4, seed=players)
    assert (tally.games, tally.deals) == (4, 8)


def test_check_engine_catches_a_leak_and_prints_a_replay_that_fails_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The checks have teeth: an observation that reveals seat 0's hand to everybody fails,
    and the reproduction in the message (``check_game(...)``) fails the same way."""
    original = Engine.observe

    def leaky(self: Engine, state: State, players: Any = None) -> Any:
        obs = original(self, state, players)
        obs[:, 0] += (state.hands[:, 0] * np.arange(state.hands.shape[-1])).sum(axis=-1)
        return obs

    monkeypatch.setattr(Engine, "observe", leaky)
    rules = Rules.preset("standard", num_players=4)
    with pytest.raises(EngineCheckError, match="observer") as info:
        check_engine(rules, games=4, reference=False)
    message = str(info.value)
    assert "check_game(Rules.from_dict(" in message
    code = textwrap.dedent(message.split("replay:\n", 1)[1])
    with pytest.raises(EngineCheckError, match="observer"):
        exec(code, {})
    monkeypatch.undo()
    exec(code, {})  # the same game passes every check with the real observation
