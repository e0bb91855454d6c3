"""One game, one call: play an action, then the mask and the observation of the next player
to act (:meth:`president_env.core.engine.Engine.advance`).

At a batch of one the cost of a step is the fixed cost of each compiled call (typing the
state arrays alone takes ~2 us), not the work; this kernel does in one call what
``step_inplace`` + ``legal_action_mask`` + ``observe`` do in three, with the same results.
"""

from __future__ import annotations

import numpy as np

from president_env.core._kernels._jit import kernel
from president_env.core._kernels._legal import mask_kernel
from president_env.core._kernels._observe import observe_kernel
from president_env.core._kernels._play import step_kernel
from president_env.core._kernels._types import Arrays


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
