"""Properties of random legal games over every preset, player count and many options.

Each example draws rules (a preset, a player count in its range, some option overrides and
1-3 deals) and a seed, then plays random legal actions (drawn from the engine's own mask)
to the end of the game, checking an invariant at every step.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from president_env.core.cards import JOKER, NUM_NATURAL, NUM_RANKS
from president_env.core.constants import Kind
from president_env.core.engine import PHASE_DONE, PHASE_EXCHANGE, PHASE_PLAY, Engine, State
from president_env.core.rules import PRESET_PLAYERS, PRESETS, Rules

MAX_SEED = 2**64 - 1

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

OVERRIDES = {
    "jokers": st.integers(0, 2),
    "pass_is_final": st.booleans(),
    "allow_equal": st.booleans(),
    "revolution": st.booleans(),
    "runs": st.booleans(),
    "eight_clears": st.booleans(),
    "top_rank_clears": st.booleans(),
    "exchange": st.sampled_from(["auto", True, False]),
    "scoring": st.sampled_from(["places", "president_vp", "tally"]),
}


@st.composite
def rules_st(draw: st.DrawFn, max_deals: int = 3) -> Rules:
    name = draw(st.sampled_from(sorted(PRESETS)))
    lo, hi = PRESET_PLAYERS[name]
    players = draw(st.integers(lo, hi))
    deals = draw(st.integers(1, max_deals))
    extra = draw(st.fixed_dictionaries({}, optional=OVERRIDES))
    if draw(st.booleans()):
        extra["target_score"] = draw(st.integers(1, 12))
    return Rules.preset(name, num_players=players, deals=deals, **extra)


seeds = st.integers(0, MAX_SEED)


@cache
def engine(r: Rules) -> Engine:
    return Engine(r)


def step_bound(r: Rules) -> int:
    """Steps a game can take at most: every play removes a card, at most P - 1 passes come
    between two plays, and the exchange takes at most 3 returns per deal."""
    return r.deals * (r.num_cards * r.num_players + 3)


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


# ------------------------------------------------------------------------------ invariants


def check_cards(r: Rules, s: State) -> None:
    """Cards held plus cards played this deal make up the pack, rank by rank."""
    held = s.hands[0].astype(np.int64)
    assert (held >= 0).all()
    per_card = held.sum(axis=0)
    assert (per_card[:NUM_NATURAL] <= r.num_decks).all()
    by_rank = per_card[:NUM_NATURAL].reshape(NUM_RANKS, 4).sum(axis=1) + s.played[0, :NUM_RANKS]
    assert by_rank.tolist() == [4 * r.num_decks] * NUM_RANKS
    assert int(per_card[JOKER]) + int(s.played[0, NUM_RANKS]) == r.num_jokers
    # the exchange moves cards between players only
    assert np.array_equal(s.gave[0].sum(axis=0), s.received[0].sum(axis=0))


def check_turn(r: Rules, eng: Engine, s: State) -> None:
    """Exactly one player acts, and it is one who can: holds cards (and, in the exchange, owes
    some)."""
    p, cur = r.num_players, int(s.current[0])
    mask = eng.legal_action_mask(s)[0]
    if s.phase[0] == PHASE_DONE:
        assert cur == -1
        assert not mask.any()
        return
    assert 0 <= cur < p
    assert s.cards_left[0, cur] > 0
    assert mask.any()
    kinds = eng.layout.kind[mask]
    if s.phase[0] == PHASE_EXCHANGE:
        assert s.to_return[0, cur] > 0
        assert (kinds == Kind.GIVE).all()
        assert 0 <= s.title[0, cur] <= 1
    else:
        assert s.phase[0] == PHASE_PLAY
        assert s.place[0, cur] == -1
        assert not s.passed[0, cur]
        assert (kinds != Kind.GIVE).all()
        assert bool(mask[0]) == (s.pile_kind[0] != 0)  # pass only when following
        assert int(s.n_finished[0]) == int((s.place[0] >= 0).sum()) <= p - 2
        assert (s.cards_left[0][s.place[0] >= 0] == 0).all()
        assert (s.to_return[0] == 0).all()


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
        check_turn(r, eng, s)


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
    assert s.rewards[0].sum() == pytest.approx(0.0, abs=1e-5)


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


def _swap_hidden_card(s: State, a: int, b: int, rng: np.random.Generator) -> State | None:
    """A copy of ``s`` where players a and b swapped one card each (None if impossible)."""
    ca = np.flatnonzero(s.hands[0, a])
    cb = np.flatnonzero(s.hands[0, b])
    pairs = [(x, y) for x in ca for y in cb if x != y]
    if not pairs:
        return None
    x, y = pairs[int(rng.integers(len(pairs)))]
    t = s.copy()
    t.hands[0, a, x] -= 1
    t.hands[0, a, y] += 1
    t.hands[0, b, y] -= 1
    t.hands[0, b, x] += 1
    return t


@SETTINGS
@given(rules_st(), seeds)
def test_swapping_hidden_cards_between_opponents_leaves_other_observations_unchanged(
    r: Rules, seed: int
) -> None:
    eng = engine(r)
    p = r.num_players
    rng = np.random.default_rng(seed ^ 0x5EED)
    checked = 0
    for i, (s, _a) in enumerate(walk(eng, seed)):
        if i % 7:
            continue
        a, b = (int(q) for q in rng.choice(p, size=2, replace=False))
        t = _swap_hidden_card(s, a, b, rng)
        if t is None:
            continue
        for o in range(p):
            before = eng.observe(s, np.array([o]))
            after = eng.observe(t, np.array([o]))
            if o in (a, b):
                hand = eng.obs_layout.slices["hand"]
                assert not np.array_equal(before[0, hand], after[0, hand])
            else:
                assert np.array_equal(before, after), f"observer {o}, swap between {a} and {b}"
        checked += 1
        # the default observer is the player to act
        cur = max(int(s.current[0]), 0)
        assert np.array_equal(eng.observe(s), eng.observe(s, np.array([cur])))
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
