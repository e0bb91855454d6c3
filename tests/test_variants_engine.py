"""The engine side of the six variants of RULES.md section 12 (the rule scenarios are in
tests/test_variants.py, the differential test against the reference in
tests/test_differential.py):

- the action layout: mixed-suit runs without suit, runs capped by ``max_run_length``, the ask
  block (ids, names, counts, errors), the tables the kernels read;
- ``ActionLayout.cards_for`` equals the kernel's ``take_cards`` for every kind, on random hands;
- random games with every new option run to the end keeping the invariants (cards conserved,
  one player to act who holds cards, the new fields in range, nothing pending between tricks),
  on 3-8 players, one and two decks, and every variant actually happens;
- a batch of 1000 equals its games one at a time (and the one-call fast path), two threads equal
  one, the fused random play equals the unfused calls.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

from president_env.core import OneGame
from president_env.core import _kernels as K
from president_env.core._kernels import _pool
from president_env.core.actions import ActionLayout, action_layout
from president_env.core.cards import JOKER, NUM_CARDS, NUM_RANKS, NUM_SUITS, RANK_NAMES
from president_env.core.constants import MIN_RUN, Kind
from president_env.core.engine import PHASE_DONE, PHASE_EXCHANGE, PHASE_PLAY, Engine, State
from president_env.core.rules import Rules

ALL: dict[str, Any] = dict(
    revolution=True,
    revolution_timing="next_trick",
    western_revolution=True,
    bombs=4,
    runs=True,
    runs_mixed_suits=True,
    max_run_length=6,
    president_asks=True,
    allow_equal=True,
    jokers=1,
    deals=3,
)
"""Every new option on (and what makes them happen often: allow_equal for rows of singles)."""


def _all(**changes: Any) -> Rules:
    return Rules(**{**ALL, **changes})


# ------------------------------------------------------------------------------ layout
def test_mixed_runs_have_no_suit_by_length_then_bottom() -> None:
    lay = ActionLayout(Rules(runs=True, runs_mixed_suits=True))
    want = [(-1, b, n) for n in range(MIN_RUN, NUM_RANKS + 1) for b in range(NUM_RANKS - n + 1)]
    assert list(lay.runs) == want and len(lay.runs) == 66
    ids = range(lay.run_base, lay.run_base + 66)
    assert all(lay.kind[a] == Kind.RUN and lay.suit[a] == -1 for a in ids)
    assert lay.name(lay.run_action(-1, 2, 3)) == "run 5-6-7"
    assert lay.name(lay.run_action(-1, 0, 13)) == "run " + "-".join(RANK_NAMES)
    assert lay.give_base == lay.run_base + 66
    with pytest.raises(ValueError, match="no run of suit 0"):
        lay.run_action(0, 2, 3)  # runs have no suit


@pytest.mark.parametrize("mixed", [False, True])
@pytest.mark.parametrize("longest", [3, 5, 12, 13])
def test_runs_longer_than_max_run_length_are_not_in_the_layout(mixed: bool, longest: int) -> None:
    lay = ActionLayout(Rules(runs=True, runs_mixed_suits=mixed, max_run_length=longest))
    per_suit = sum(NUM_RANKS - n + 1 for n in range(MIN_RUN, longest + 1))
    assert len(lay.runs) == per_suit * (1 if mixed else NUM_SUITS)
    assert max(n for _, _, n in lay.runs) == longest
    assert lay.give_base == lay.run_base + len(lay.runs) == lay.num_actions
    if longest < NUM_RANKS:
        with pytest.raises(ValueError, match="no run"):
            lay.run_action(-1 if mixed else 0, 0, longest + 1)
    uncapped = ActionLayout(Rules(runs=True, runs_mixed_suits=mixed))
    assert set(lay.runs) <= set(uncapped.runs)
    assert uncapped.runs[: len(lay.runs)] == lay.runs or not mixed  # mixed: a prefix


@pytest.mark.parametrize("jokers", [0, 2])
def test_the_ask_block_follows_the_give_block(jokers: int) -> None:
    lay = ActionLayout(Rules(deals=2, jokers=jokers, president_asks=True, runs=True))
    n = 52 + (1 if jokers else 0)
    assert lay.ask_base == lay.give_base + n and lay.num_ask == n
    assert lay.num_actions == lay.ask_base + n
    for c in range(n):
        a = lay.ask_action(c)
        assert a == lay.ask_base + c
        assert (lay.kind[a], lay.card[a], lay.size[a], lay.rank[a]) == (Kind.ASK, c, 1, -1)
    assert lay.name(lay.ask_action(51)) == "ask 2s"
    assert lay.name(lay.ask_action(0)) == "ask 3c"
    if jokers:
        assert lay.name(lay.ask_action(JOKER)) == "ask joker"
    assert len(set(lay.names())) == lay.num_actions  # every name tells its action
    tables = K.mask_tables(lay)
    assert (tables.ask_base, tables.num_ask, tables.num_give) == (lay.ask_base, n, n)
    with pytest.raises(ValueError, match="no ask action for card 53"):
        lay.ask_action(53)
    with pytest.raises(ValueError, match="no ask action"):
        lay.ask_action(-1)
    with pytest.raises(TypeError, match="integer id"):
        lay.ask_action(True)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no give action"):
        lay.give_action(n)  # the gives end where the asks start


def test_without_asks_there_is_no_ask_block() -> None:
    lay = ActionLayout(Rules(deals=2))
    assert lay.num_ask == 0 and lay.ask_base == lay.num_actions
    assert Kind.ASK not in set(lay.kind.tolist())
    with pytest.raises(ValueError, match="president_asks is off"):
        lay.ask_action(0)
    assert K.mask_tables(lay).num_ask == 0


def test_bombs_and_revolution_variants_add_no_actions() -> None:
    base: dict[str, Any] = dict(runs=True, jokers=2, deals=2, revolution=True)
    lay = ActionLayout(Rules(**base))
    assert lay.num_actions == 1 + 13 * (4 + 2) + 2 + 264 + 53 and lay.num_ask == 0
    assert lay.name(lay.run_base) == "run 3-4-5 of clubs"
    more = ActionLayout(Rules(**base, bombs=4, western_revolution=True,
                              revolution_timing="next_trick"))
    assert more.names() == lay.names()


def test_the_shared_layout_is_the_layout_of_its_rules_and_read_only() -> None:
    """``action_layout`` hands every caller of equal rules one layout (engines and agents share
    it): the tables of a fresh one, and none of them writable."""
    rules = Rules(runs=True, jokers=1, deals=2, president_asks=True)
    shared, fresh = action_layout(rules), ActionLayout(rules)
    assert action_layout(Rules(runs=True, jokers=1, deals=2, president_asks=True)) is shared
    assert Engine(rules).layout is shared
    plain = action_layout(Rules())
    assert plain is not shared and plain.num_actions < fresh.num_actions
    assert shared.names() == fresh.names() and shared.runs == fresh.runs
    for name in ("kind", "rank", "size", "suit", "card"):
        table = getattr(shared, name)
        assert np.array_equal(table, getattr(fresh, name))
        with pytest.raises(ValueError, match="read-only"):
            table[0] = 1


@pytest.mark.parametrize(
    "rules",
    [
        Rules(runs=True, runs_mixed_suits=True, jokers=2, deals=2, president_asks=True),
        Rules(num_players=7, runs=True, runs_mixed_suits=True, max_run_length=5, jokers=1,
              deals=2, president_asks=True),
    ],
    ids=["one deck", "two decks"],
)
def test_cards_for_equals_take_cards_for_every_kind(rules: Rules) -> None:
    eng = Engine(rules)
    lay = eng.layout
    rng = np.random.default_rng(7)
    hands = eng.init(rng.integers(0, 2**32, 6)).hands.reshape(-1, NUM_CARDS)
    out = np.empty(NUM_CARDS, np.int64)
    seen: set[int] = set()
    for hand in hands:
        for a in range(lay.num_actions):
            try:
                want = lay.cards_for(a, hand)
            except ValueError:
                continue  # the hand cannot make this play
            K.take_cards(hand, int(lay.kind[a]), int(lay.rank[a]), int(lay.size[a]),
                         int(lay.suit[a]), int(lay.card[a]), out)
            assert out.tolist() == want.tolist(), lay.name(a)
            seen.add(int(lay.kind[a]))
    assert seen == {int(k) for k in Kind}


def test_cards_of_a_mixed_run_and_of_an_ask() -> None:
    lay = ActionLayout(Rules(runs=True, runs_mixed_suits=True, jokers=1, deals=2,
                             president_asks=True))
    hand = np.zeros(NUM_CARDS, np.int64)
    for c in (2 * 4 + 3, 2 * 4 + 1, 4 * 4 + 2, JOKER):  # 5s 5d 7h JK
        hand[c] = 1
    got = lay.cards_for(lay.run_action(-1, 2, 3), hand)  # 5-6-7: 5d (lowest suit), JK, 7h
    assert np.flatnonzero(got).tolist() == [2 * 4 + 1, 4 * 4 + 2, JOKER]
    with pytest.raises(ValueError, match="cannot play"):
        lay.cards_for(lay.run_action(-1, 2, 4), hand)  # 5-6-7-8: two places to fill
    assert lay.cards_for(lay.ask_action(51), hand).sum() == 0  # from the Bum, not the asker


# ------------------------------------------------------------------------------ random games
def _check(eng: Engine, st: State) -> None:
    """The invariants of every state, over the batch."""
    r = eng.rules
    pack = 52 * r.num_decks + r.num_jokers
    total = st.hands.sum(axis=(1, 2), dtype=np.int64) + st.played.sum(axis=1, dtype=np.int64)
    assert (total == pack).all(), "cards are conserved"
    live = st.phase != PHASE_DONE
    assert (st.current[~live] == -1).all()
    b = np.flatnonzero(live)
    cur = st.current[b].astype(np.int64)
    assert ((cur >= 0) & (cur < r.num_players)).all()
    play = st.phase[b] == PHASE_PLAY
    assert (st.place[b, cur][play] < 0).all(), "the player to act is still in the deal"
    assert (st.hands[b, cur].sum(axis=1)[play] > 0).all(), "and holds cards"
    assert eng.legal_action_mask(st)[b].any(axis=1).all(), "someone can act"
    assert ((st.row_count >= 0) & (st.row_count <= 3)).all()
    assert ((st.row_rank == -1) == (st.row_count == 0)).all()
    empty = st.pile_kind == Kind.PASS
    assert not (st.pending & empty).any(), "nothing pending between tricks"
    assert (st.row_count[empty] == 0).all()
    assert ((st.asks_left >= 0) & (st.asks_left <= 2)).all()
    assert (st.phase[st.asks_left > 0] == PHASE_EXCHANGE).all()
    made = st.asked >= 0
    assert (made == (st.ask_held >= 0)).all() and ((st.asked < NUM_CARDS) & (st.ask_held <= 1)).all()
    assert not (made[:, 1] & ~made[:, 0]).any(), "asks are made in order"
    if not r.president_asks:
        assert not made.any() and not st.asks_left.any()


def _run_to_end(eng: Engine, st: State, rng: np.random.Generator, limit: int = 5000) -> dict[str, int]:
    """Random legal play (checked steps) until every game is over; counts of what happened."""
    seen = dict(pending=0, right=0, row=0, asks=0, held=0, bombs=0, mixed=0)
    lay = eng.layout
    least = eng.rules.bombs or NUM_CARDS
    for _ in range(limit):
        _check(eng, st)
        if (st.phase == PHASE_DONE).all():
            return seen
        a = eng.sample_random(eng.legal_action_mask(st), rng)
        kind, size = lay.kind[np.maximum(a, 0)], lay.size[np.maximum(a, 0)]
        is_set = (a >= 0) & ((kind == Kind.SET) | (kind == Kind.JOKERS))
        seen["bombs"] += int((is_set & (size >= least) & (st.pile_kind != Kind.PASS)).sum())
        seen["mixed"] += int(((kind == Kind.RUN) & (a >= 0)).sum())
        eng.step_inplace(st, a)
        seen["pending"] += int(st.pending.sum())
        seen["right"] += int((st.revolution & (st.phase == PHASE_PLAY)).sum())
        seen["row"] += int((st.row_count >= 2).sum())
        seen["asks"] += int((st.asked[:, 1] >= 0).sum())
        seen["held"] += int((st.ask_held == 1).sum())
    raise AssertionError(f"games still running after {limit} steps")


@pytest.mark.parametrize(
    ("players", "decks"), list(itertools.product(range(3, 9), (1, 2)))
)
def test_random_games_with_every_variant_end_keeping_the_invariants(
    players: int, decks: int
) -> None:
    timing = "next_trick" if (players + decks) % 2 else "immediate"
    rules = _all(num_players=players, decks=decks, revolution_timing=timing,
                 bombs=4 + (decks - 1) * (players % 3))
    eng = Engine(rules, threads=1)
    st = eng.init(np.arange(24) + 100 * players + decks)
    seen = _run_to_end(eng, st, np.random.default_rng(players * 10 + decks))
    assert seen["asks"] > 0 and seen["mixed"] > 0
    assert (st.deal == rules.deals - 1).all()


def test_every_variant_happens_in_a_batch_of_1000() -> None:
    eng = Engine(_all(jokers=2), threads=1)
    st = eng.init(np.arange(1000))
    seen = _run_to_end(eng, st, np.random.default_rng(0))
    assert all(v > 0 for v in seen.values()), seen
    assert 0 < seen["held"] < seen["asks"] * 2  # named cards held, and not


def test_a_batch_equals_its_games_one_at_a_time_and_the_fast_path() -> None:
    eng = Engine(_all(num_players=5, jokers=2), threads=2)
    b = 1000
    st = eng.init(np.arange(b) + 7)
    rng = np.random.default_rng(1)
    picked = [0, 333, 999]
    ones = [eng.init([7 + i]) for i in picked]
    fast = OneGame(eng, eng.init([7 + picked[0]]))
    assert fast.fast
    for t in range(3000):
        if (st.phase == PHASE_DONE).all():
            break
        mask = eng.legal_action_mask(st)
        a = eng.sample_random(mask, rng)
        assert fast.mask.tolist() == mask[picked[0]].astype(np.int8).tolist(), f"step {t}"
        eng.step_inplace(st, a, check=False)
        for i, one in zip(picked, ones):
            if one.phase[0] != PHASE_DONE:
                eng.step_inplace(one, a[i : i + 1])
            assert one.equals(st.take(i)), f"game {i}, step {t}"
        if a[picked[0]] >= 0:
            assert fast.step(int(a[picked[0]])) == int(st.current[picked[0]])
        assert fast.state.equals(st.take(picked[0])), f"fast path, step {t}"
    assert (st.phase == PHASE_DONE).all()


def test_two_threads_equal_one_and_fused_equals_unfused() -> None:
    rules = _all(num_players=6, jokers=2, revolution_timing="immediate")
    one, two = Engine(rules, threads=1), Engine(rules, threads=2)
    n = 2 * _pool.MIN_CHUNK + 37
    s1, s2 = one.init(np.arange(n)), two.init(np.arange(n))
    p1 = one.play_random(s1, 400, np.random.default_rng(5))
    p2 = two.play_random(s2, 400, np.random.default_rng(5))
    assert p1 == p2 and p1.games > 0
    assert s1.equals(s2)
    m1, m2 = np.zeros((n, one.num_actions), np.bool_), np.zeros((n, one.num_actions), np.bool_)
    o1, o2 = np.zeros((n, one.obs_size), np.float32), np.zeros((n, one.obs_size), np.float32)
    done = np.arange(n) % 3 == 0
    one.next_views(s1, m1, o1, done, np.arange(n) + 9)
    two.next_views(s2, m2, o2, done, np.arange(n) + 9)
    assert s1.equals(s2) and (m1 == m2).all() and (m1 == one.legal_action_mask(s1)).all()
    # the fused kernel, one step at a time, equals mask + draw + step + reset
    fused, plain = s1.take(np.arange(96)), s1.take(np.arange(96))
    keys = np.random.default_rng(2).integers(0, 2**64, 96, dtype=np.uint64)
    fkeys, counts = keys.copy(), np.zeros((96, 2), np.int64)
    for t in range(300):
        K.play_random_kernel(one._rp, one._play_tables, one._mask_tables, fused._flat, fkeys, 1,
                             True, counts, 0, 96)
        live = plain.phase != PHASE_DONE
        u, drawn = np.zeros(96), keys.copy()
        K.draw_uniform(drawn, u)
        keys[live] = drawn[live]
        acts = np.zeros(96, np.int64)
        K.sample_legal(one.legal_action_mask(plain), u, acts, 0, 96)
        one.step_inplace(plain, np.where(live, acts, -1))
        ended = live & (plain.phase == PHASE_DONE)
        seeds, drawn = np.zeros(96, np.uint64), keys.copy()
        K.draw_keys(drawn, seeds)
        keys[ended] = drawn[ended]
        one.reset_where(plain, ended, seeds)
        assert fused.equals(plain), f"step {t}"
    assert counts[:, 1].sum() > 0


def test_new_fields_reset_at_every_deal() -> None:
    eng = Engine(_all(deals=6), threads=1)
    st = eng.init(np.arange(200))
    rng = np.random.default_rng(3)
    starts = 0
    while not (st.phase == PHASE_DONE).all():
        eng.step_inplace(st, eng.sample_random(eng.legal_action_mask(st), rng))
        new = st.deal_over & (st.phase != PHASE_DONE)
        starts += int(new.sum())
        assert not st.pending[new].any() and not st.revolution[new].any()
        assert (st.row_rank[new] == -1).all() and (st.row_count[new] == 0).all()
        assert (st.asks_left[new] == 2).all() and (st.asked[new] == -1).all()
        assert (st.ask_held[new] == -1).all() and (st.to_return[new].sum(axis=1) == 1).all()
    assert starts == 200 * 5
