"""The one-game fast path of the adapters: one compiled call per action.

At a batch of one game the engine's cost is the fixed cost of each compiled call (passing
the 22 state arrays alone costs ~3 us), not the work. :class:`OneGame` therefore runs the
engine's own kernels (step, legal mask, observation of the next player to act) inside one
compiled function, :func:`advance`, so that an AEC step costs one call. Results are exactly
those of ``Engine.step_inplace`` + ``Engine.legal_action_mask`` + ``Engine.observe``.

The compiled function is cached on disk (numba ``cache=True``) under a key that includes a
hash of the engine's kernel sources (``_kernels.py``, ``observe.py``): numba itself only
watches the file that defines a function, so without the hash an edit of the engine could
leave a stale compiled copy here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from president_env.core import _kernels as K
from president_env.core import observe as _observe
from president_env.core.engine import Engine, State
from president_env.core.observe import observe_kernel


def _sources_hash() -> int:
    h = hashlib.sha256()
    for mod in (K, _observe):
        h.update(Path(str(mod.__file__)).read_bytes())
    return int.from_bytes(h.digest()[:7], "little")


def _build(deps: int) -> Callable[..., int]:
    @njit(cache=True, nogil=True)
    def advance(rp, a_kind, a_rank, a_size, a_suit, a_card, run_suit, run_bottom,  # type: ignore[no-untyped-def]
                run_len, set_base, joker_base, run_base, give_base, n_give, off, deals,
                st, action, mask, obs):
        """Play ``action`` (unless < 0), then fill the mask and the observation of the next
        player to act; returns that player (-1 once the game is over)."""
        if deps < 0:  # never: ties the compiled code to the engine's sources (see above)
            return -2
        if action >= 0:
            acts = np.empty(1, np.int64)
            acts[0] = action
            K.step_kernel(rp, a_kind, a_rank, a_size, a_suit, a_card, st, acts)
        cur = st[2][0]
        K.mask_kernel(rp, run_suit, run_bottom, run_len, set_base, joker_base, run_base,
                      give_base, n_give, st, mask.reshape((1, mask.shape[0])))
        players = np.empty(1, np.int64)
        players[0] = cur if cur >= 0 else 0
        observe_kernel(rp, off, st, players, deals, obs.reshape((1, obs.shape[0])))
        return cur

    return advance  # type: ignore[no-any-return]


advance = _build(_sources_hash())


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
        self._arrays = state.arrays()
        e: Any = engine
        self._args = (
            *e._step_args,
            *e._mask_args[1:],
            e._obs_offsets,
            engine.rules.deals,
            self._arrays,
        )
        self._num_actions = engine.num_actions
        self._obs_size = engine.obs_size
        self.mask: npt.NDArray[np.int8] = np.empty(0, np.int8)
        self.obs: npt.NDArray[np.float32] = np.empty(0, np.float32)
        self.current = self._advance(-1)

    def step(self, action: int) -> int:
        """Play ``action`` (assumed legal) and return the next player to act (-1: game over)."""
        self.current = cur = self._advance(action)
        return cur

    def _advance(self, action: int) -> int:
        mask = np.empty(self._num_actions, np.int8)
        obs = np.empty(self._obs_size, np.float32)
        cur = int(advance(*self._args, action, mask, obs))
        self.mask = mask
        self.obs = obs
        return cur
