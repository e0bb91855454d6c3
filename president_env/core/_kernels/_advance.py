"""One game, one call: play an action, then the mask and the observation of the next player
to act (:meth:`president_env.core.engine.Engine.advance`).

At a batch of one the cost of a step is the fixed cost of each compiled call (typing the
state arrays alone takes ~2 us), not the work; this kernel does in one call what
``step_inplace`` + ``legal_action_mask`` + ``observe`` do in three, with the same results.

Two bodies, the same statements: :func:`advance_kernel` calls the step, mask and observation
kernels (each compiled once, shared with the batched calls: what Python calls on a state that
cannot be handed over by address), and :func:`advance_inline`, for the compiled one-game path
(``advance_at`` in :mod:`._one`, which ``one_advance`` calls), has the mask and observation
kernels inlined and calls the step kernel that the batched calls compile anyway. Handing the
33-array state tuple from one compiled function to another that is not inlined costs, at a
batch of one, more than the work: called from Python through ``one_advance`` (random
``standard`` games, one call a move, 2026-12-06), 1.74 us a call with none of the three inlined
(measured with the rule vector writable), 1.17-1.19 us with the step called and the mask and
observation inlined, 0.97-1.00 us with all three inlined. Inlining the step as well made
``advance_at`` the longest compile of the package's first use (81-102 s on a clean cache,
against 18 s), for 0.2 us of a move that costs 5.5-8 us through the AEC env (0-6% of its
random-play throughput, back to back): the step is called.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from president_env.core._kernels._jit import kernel
from president_env.core._kernels._legal import mask_kernel
from president_env.core._kernels._observe import observe_kernel
from president_env.core._kernels._play import step_kernel
from president_env.core._kernels._types import Arrays

# the mask and observation kernels again, to be inlined (not cached themselves: only where they
# are inlined, in kernels whose cache follows every kernel source)
_mask_here = njit(inline="always", nogil=True)(mask_kernel.py_func)
_observe_here = njit(inline="always", nogil=True)(observe_kernel.py_func)


@kernel
def advance_kernel(rp, play_tables, mask_tables, off, deals, arrays, action, mask, obs):  # type: ignore[no-untyped-def]
    """Game 0 takes ``action`` (unless < 0); then ``mask`` (int8 or bool [A]) and ``obs``
    (float32 [O]) are those of the player to act, who is returned (-1 once the game is over;
    the observation is then seat 0's)."""
    one = np.empty(1, np.int64)
    if action >= 0:
        one[0] = action
        step_kernel(rp, play_tables, arrays, one, 0, 1)
    cur = Arrays(*arrays).current[0]
    mask_kernel(rp, mask_tables, arrays, mask.reshape((1, mask.shape[0])), 0, 1)
    one[0] = max(cur, 0)
    observe_kernel(rp, play_tables, off, arrays, one, deals, obs.reshape((1, obs.shape[0])), 0, 1)
    return cur


@kernel(inline="always")
def advance_inline(rp, play_tables, mask_tables, off, deals, arrays, action, mask, obs):  # type: ignore[no-untyped-def]
    """:func:`advance_kernel`, inlined where it is called, with the mask and observation
    kernels inlined (the step kernel called)."""
    one = np.empty(1, np.int64)
    if action >= 0:
        one[0] = action
        step_kernel(rp, play_tables, arrays, one, 0, 1)
    cur = Arrays(*arrays).current[0]
    _mask_here(rp, mask_tables, arrays, mask.reshape((1, mask.shape[0])), 0, 1)
    one[0] = max(cur, 0)
    _observe_here(rp, play_tables, off, arrays, one, deals, obs.reshape((1, obs.shape[0])), 0, 1)
    return cur
