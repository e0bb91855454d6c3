"""The one-game fast path of the adapters: one compiled call per action.

At a batch of one game the engine's cost is the fixed cost of each compiled call (typing the
21 state arrays alone costs ~2 us), not the work. :class:`OneGame` therefore steps with
:meth:`Engine.advance <president_env.core.engine.Engine.advance>`, which plays the action and
fills the legal mask and the observation of the next player to act in one compiled call, so
that an AEC step costs one call. Results are exactly those of ``Engine.step_inplace`` +
``Engine.legal_action_mask`` + ``Engine.observe``.

(The compiled code is cached on disk under a key that follows every kernel source: see
:mod:`president_env.core._kernels._jit`.)
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from president_env.core.engine import Engine, State


class OneGame:
    """A batch-of-one engine state with a one-call step.

    ``step(action)`` plays a legal action (the caller checks legality) and returns the next
    player to act; ``mask`` (int8 [A]) and ``obs`` (float32 [O]) then hold that player's legal
    actions and observation, in new arrays each time (arrays handed out earlier never change).
    """

    def __init__(self, engine: Engine, state: State) -> None:
        if state.batch_size != 1:
            raise ValueError(f"OneGame holds one game, got a batch of {state.batch_size}")
        self.engine = engine
        self.state = state
        self._advance = engine.advance
        self._num_actions = engine.num_actions
        self._obs_size = engine.obs_size
        self.mask: npt.NDArray[np.int8] = np.empty(0, np.int8)
        self.obs: npt.NDArray[np.float32] = np.empty(0, np.float32)
        self.current = self.step(-1)

    def step(self, action: int) -> int:
        """Play ``action`` (assumed legal; < 0: none) and return the next player to act
        (-1: game over)."""
        mask = np.empty(self._num_actions, np.int8)
        obs = np.empty(self._obs_size, np.float32)
        self.current = cur = self._advance(self.state, action, mask, obs)
        self.mask = mask
        self.obs = obs
        return cur
