"""Both cores and the fused calls: the same results for any number of threads, and the fused
calls equal to the unfused sequence step by step.

- ``Engine(rules, threads=1)`` and ``threads=2`` (batches split into chunks) give identical
  masks, observations and states after every step, reset and fused call;
- :meth:`Engine.play_random` equals, step by step, mask + ``sample_legal`` with the game's own
  draws + ``step_inplace`` + ``reset_where`` with the game's own seeds, with and without reset;
- :meth:`Engine.next_views` equals ``reset_where`` + ``legal_action_mask`` + ``observe``;
- bad thread counts, steps and generators are clear errors.
"""

from __future__ import annotations

import numpy as np
import pytest

from president_env.core import _kernels as K
from president_env.core._kernels import _pool
from president_env.core.engine import PHASE_DONE, Engine, State
from president_env.core.rules import Rules

B = 2 * _pool.MIN_CHUNK + 37  # split into chunks with two threads (and an uneven last chunk)
PRESETS = ("standard", "daifugo")


def _engines(preset: str) -> tuple[Engine, Engine]:
    rules = Rules.preset(preset)
    return Engine(rules, threads=1), Engine(rules, threads=2)


def test_batches_split_into_chunks() -> None:
    parts = _pool.chunks(B, 2)
    assert len(parts) == 2 * _pool.CHUNKS_PER_THREAD
    assert parts[0][0] == 0 and parts[-1][1] == B
    assert all(a[1] == b[0] for a, b in zip(parts, parts[1:]))
    assert _pool.chunks(_pool.MIN_CHUNK * 2 - 1, 2) == [(0, _pool.MIN_CHUNK * 2 - 1)]
    assert _pool.chunks(1, 8) == [(0, 1)]


@pytest.mark.parametrize("preset", PRESETS)
def test_two_threads_equal_one_step_by_step(preset: str) -> None:
    one, two = _engines(preset)
    seeds = np.arange(B) + 11
    s1, s2 = one.init(seeds), two.init(seeds)
    rng1, rng2 = np.random.default_rng(3), np.random.default_rng(3)
    a1, a2 = np.zeros(B, np.int64), np.zeros(B, np.int64)
    for t in range(60):
        m1, m2 = one.legal_action_mask(s1), two.legal_action_mask(s2)
        np.testing.assert_array_equal(m1, m2)
        np.testing.assert_array_equal(one.observe(s1), two.observe(s2))
        one.sample_random(m1, rng1, a1)
        two.sample_random(m2, rng2, a2)
        np.testing.assert_array_equal(a1, a2)
        one.step_inplace(s1, a1, check=t % 2 == 0)
        two.step_inplace(s2, a2, check=t % 2 == 0)
        done = s1.phase == PHASE_DONE
        one.reset_where(s1, done, seeds + 1000 * t)
        two.reset_where(s2, done, seeds + 1000 * t)
        assert s1.equals(s2), f"step {t}"
    p1 = one.play_random(s1, 150, np.random.default_rng(5))
    p2 = two.play_random(s2, 150, np.random.default_rng(5))
    assert p1 == p2 and p1.games > 0
    assert s1.equals(s2)


def _unfused_step(eng: Engine, st: State, keys: np.ndarray, reset: bool) -> None:
    """One step of random play as separate engine calls, with each game's own draws."""
    live = st.phase != PHASE_DONE
    mask = eng.legal_action_mask(st)
    u, seeds = np.zeros(len(keys)), np.zeros(len(keys), np.uint64)
    drawn = keys.copy()
    K.draw_uniform(drawn, u)
    keys[live] = drawn[live]  # only games that act draw
    actions = np.zeros(len(keys), np.int64)
    K.sample_legal(mask, u, actions, 0, len(keys))
    eng.step_inplace(st, np.where(live, actions, -1))
    ended = live & (st.phase == PHASE_DONE)
    if reset:
        drawn = keys.copy()
        K.draw_keys(drawn, seeds)
        keys[ended] = drawn[ended]
        eng.reset_where(st, ended, seeds)


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("reset", [True, False])
def test_play_random_equals_unfused_step_by_step(preset: str, reset: bool) -> None:
    eng = Engine(Rules.preset(preset, deals=2), threads=1)
    n = 96  # more than one block of the fused kernel
    fused, plain = eng.init(np.arange(n)), eng.init(np.arange(n))
    keys = np.random.default_rng(1).integers(0, 2**64, n, dtype=np.uint64)
    fkeys = keys.copy()
    counts = np.zeros((n, 2), np.int64)
    args = (eng._rp, eng._play_tables, eng._mask_tables, fused._flat)
    for t in range(400):
        K.play_random_kernel(*args, fkeys, 1, reset, counts, 0, n)
        _unfused_step(eng, plain, keys, reset)
        assert fused.equals(plain), f"step {t}"
        np.testing.assert_array_equal(fkeys, keys)
    if reset:
        assert counts[:, 1].min() >= 1  # every game ended and started again
    else:
        assert (fused.phase == PHASE_DONE).all()  # played to the end, then stopped


@pytest.mark.parametrize("preset", PRESETS)
def test_play_random_in_one_call_equals_many(preset: str) -> None:
    eng = Engine(Rules.preset(preset), threads=2)
    a, b = eng.init(np.arange(B)), eng.init(np.arange(B))
    keys = np.random.default_rng(9).integers(0, 2**64, B, dtype=np.uint64)
    ka, kb = keys.copy(), keys.copy()
    ca, cb = np.zeros((B, 2), np.int64), np.zeros((B, 2), np.int64)
    K.play_random_kernel(eng._rp, eng._play_tables, eng._mask_tables, a._flat, ka, 300, True, ca,
                         0, B)
    for _ in range(300):
        eng._run(K.play_random_kernel, (eng._rp, eng._play_tables, eng._mask_tables, b._flat, kb,
                                        1, True, cb), B)
    assert a.equals(b)
    np.testing.assert_array_equal(ca, cb)
    assert ca[:, 0].sum() == 300 * B  # with reset, every game acts at every step


def test_play_random_counts_and_stops_without_reset() -> None:
    eng = Engine(Rules.preset("standard", deals=1), threads=1)
    st = eng.init(np.arange(8))
    played = eng.play_random(st, 10_000, np.random.default_rng(0), reset=False)
    assert played.games == 8 and (st.phase == PHASE_DONE).all()
    assert played.steps >= 8 * 3  # all but the last player act at least once
    assert eng.play_random(st, 10, np.random.default_rng(0), reset=False) == (0, 0)


@pytest.mark.parametrize("preset", PRESETS)
def test_next_views_equals_reset_mask_observe(preset: str) -> None:
    one, two = _engines(preset)
    st = one.init(np.arange(B))
    one.play_random(st, 40, np.random.default_rng(2), reset=False)
    done = np.random.default_rng(4).random(B) < 0.5  # games restarted, in play or over
    seeds = np.arange(B) + 500
    ref = st.copy()
    one.reset_where(ref, done, seeds)
    mask_ref, obs_ref = one.legal_action_mask(ref), one.observe(ref)
    for eng in (one, two):
        got = st.copy()
        mask = np.ones((B, eng.num_actions), np.bool_)
        obs = np.full((B, eng.obs_size), np.nan, np.float32)
        eng.next_views(got, mask, obs, done, seeds)
        assert got.equals(ref)
        np.testing.assert_array_equal(mask, mask_ref)
        np.testing.assert_array_equal(obs, obs_ref)
    eng = one
    mask = np.zeros((B, eng.num_actions), np.bool_)
    obs = np.zeros((B, eng.obs_size), np.float32)
    eng.next_views(ref, mask, obs)  # no reset
    np.testing.assert_array_equal(mask, mask_ref)


def test_threads_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_pool.ENV_VAR, "3")
    assert Engine().threads == 3
    monkeypatch.delenv(_pool.ENV_VAR)
    assert 1 <= Engine().threads <= _pool.MAX_DEFAULT_THREADS
    eng = Engine(threads=1)
    eng.threads = 2
    assert eng.threads == 2
    for bad in (0, -1, 1.5, "2", True):
        with pytest.raises(ValueError, match="threads must be a positive integer"):
            Engine(threads=bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="threads must be a positive integer"):
            eng.threads = bad  # type: ignore[assignment]
    assert eng.threads == 2  # a failed setting changes nothing
    monkeypatch.setenv(_pool.ENV_VAR, "many")
    with pytest.raises(ValueError, match="PRESIDENT_THREADS must be a positive integer"):
        Engine()


def test_fused_calls_reject_bad_input() -> None:
    eng = Engine(threads=1)
    st = eng.init(np.arange(4))
    before = st.copy()
    for steps in (-1, 1.5, True):
        with pytest.raises(ValueError, match="steps must be a non-negative integer"):
            eng.play_random(st, steps, np.random.default_rng(0))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="rng must be a numpy Generator"):
        eng.play_random(st, 3, 0)  # type: ignore[arg-type]
    mask = np.zeros((4, eng.num_actions), np.bool_)
    obs = np.zeros((4, eng.obs_size), np.float32)
    with pytest.raises(ValueError, match="mask must be bool"):
        eng.next_views(st, mask[:3], obs)
    with pytest.raises(ValueError, match="obs must be C-contiguous float32"):
        eng.next_views(st, mask, obs.astype(np.float64))
    with pytest.raises(ValueError, match="done must have shape"):
        eng.next_views(st, mask, obs, np.zeros(3, np.bool_), np.zeros(3, np.uint64))
    with pytest.raises(ValueError, match="needs the seeds"):
        eng.next_views(st, mask, obs, np.ones(4, np.bool_))
    assert st.equals(before)


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork")
def test_pool_works_in_a_forked_child() -> None:
    """A child forked after the pool started gets its own threads (no deadlock)."""
    import multiprocessing as mp

    eng = Engine(threads=2)
    st = eng.init(np.arange(B))
    eng.play_random(st, 5, np.random.default_rng(0))  # the parent's pool is running
    ctx = mp.get_context("fork")
    with ctx.Pool(1) as pool:
        child = pool.apply_async(_child_steps, (st,)).get(timeout=60)
    eng.play_random(st, 5, np.random.default_rng(1))
    assert child.equals(st)


def _child_steps(st: State) -> State:
    eng = Engine(threads=2)
    eng.play_random(st, 5, np.random.default_rng(1))
    return st
