"""Fused kernels: many steps of random play in one call, and the views of the next players
after a step.

:func:`play_random_kernel` plays each block of games of a chunk for ``steps`` actions in a row
(mask, a uniformly random legal action, the turn, a new game where one ended) while the
block's games stay in the core's cache; one call from Python for all the steps. Game ``b`` draws
from its own SplitMix64 stream ``keys[b]`` (one draw per action, one per new game's seed),
so the result does not depend on how the batch is split into chunks or threads, and equals
the unfused sequence ``legal_action_mask``, ``sample_legal`` with ``u = uniform(keys[b])``,
``step``, ``reset_where`` with ``seed = next_key(keys[b])`` (tests/test_threads.py checks it
step by step).

:func:`next_views_kernel` is what an adapter does after a step, for a chunk: new games where
asked, then the mask and the observation of the player to act.
"""

from __future__ import annotations

import numpy as np

from president_env.core._kernels._deal import new_game, reset_where, splitmix
from president_env.core._kernels._jit import kernel
from president_env.core._kernels._legal import mask_kernel, pick_legal
from president_env.core._kernels._observe import observe_kernel
from president_env.core._kernels._play import step_kernel
from president_env.core._kernels._types import Arrays, PlayTables
from president_env.core.constants import Phase

_UNIT = 1.0 / 9007199254740992.0  # 2**-53
BLOCK = 64
"""Games stepped together by :func:`play_random_kernel` (their state, ~0.7 kB each in the
standard 4-player game, stays in the core's cache)."""


@kernel(inline="always")
def next_key(keys, b):  # type: ignore[no-untyped-def]
    """The next 64-bit number of game ``b``'s stream (advances ``keys[b]``)."""
    x, r = splitmix(keys[b])
    keys[b] = x
    return r


@kernel(inline="always")
def uniform(keys, b):  # type: ignore[no-untyped-def]
    """The next number of game ``b``'s stream as a float in [0, 1) (53 bits)."""
    return float(next_key(keys, b) >> np.uint64(11)) * _UNIT


@kernel
def draw_uniform(keys, out):  # type: ignore[no-untyped-def]
    """``out[b] = uniform(keys, b)`` for every b (the unfused path's draws, for tests)."""
    for b in range(keys.shape[0]):
        out[b] = uniform(keys, b)


@kernel
def draw_keys(keys, out):  # type: ignore[no-untyped-def]
    """``out[b] = next_key(keys, b)`` for every b (the unfused path's seeds, for tests)."""
    for b in range(keys.shape[0]):
        out[b] = next_key(keys, b)


@kernel
def play_random_kernel(  # type: ignore[no-untyped-def]
    rp, play_tables, mask_tables, arrays, keys, steps, reset, counts, lo, hi
):
    """Games ``lo <= b < hi`` each take up to ``steps`` uniformly random legal actions; a
    game that ends starts again (``reset``; the new seed from its stream) or stops there.
    ``counts[b]`` (int64 [B, 2]) += (actions taken, games ended).

    Runs block by block of :data:`BLOCK` games, all ``steps`` steps of a block before the
    next (the block's games stay in the core's cache), each step the very kernels of the
    unfused path over the block."""
    st = Arrays(*arrays)
    n = keys.shape[0]
    mask = np.empty((n, PlayTables(*play_tables).kind.shape[0]), np.bool_)  # rows lo..hi used
    acts = np.empty(n, np.int64)
    for c0 in range(lo, hi, BLOCK):
        c1 = min(c0 + BLOCK, hi)
        for _ in range(steps):
            mask_kernel(rp, mask_tables, arrays, mask, c0, c1)
            live = False
            for b in range(c0, c1):
                acts[b] = -1
                if st.phase[b] != Phase.DONE:
                    acts[b] = pick_legal(mask, b, uniform(keys, b))
                    counts[b, 0] += 1
                    live = True
            if not live:
                break
            step_kernel(rp, play_tables, arrays, acts, c0, c1)
            for b in range(c0, c1):
                if acts[b] >= 0 and st.phase[b] == Phase.DONE:
                    counts[b, 1] += 1
                    if reset:
                        new_game(rp, st, b, next_key(keys, b))


@kernel
def next_views_kernel(  # type: ignore[no-untyped-def]
    rp, play_tables, mask_tables, off, deals, arrays, done, seeds, mask, obs, players, lo, hi
):
    """For games ``lo <= b < hi``: a new game seeded ``seeds[b]`` where ``done[b]``, then
    ``mask[b]`` and ``obs[b]`` of the player to act (``players[b]``; seat 0 once over)."""
    reset_where(rp, arrays, done, seeds, lo, hi)
    mask_kernel(rp, mask_tables, arrays, mask, lo, hi)
    current = Arrays(*arrays).current
    for b in range(lo, hi):
        players[b] = max(current[b], 0)
    observe_kernel(rp, play_tables, off, arrays, players, deals, obs, lo, hi)
