"""The one-game fast path of the adapters: one compiled call per action.

At a batch of one game the engine's cost is the fixed cost of each compiled call, not the
work. :class:`OneGame` therefore steps with one call that plays the action and fills the legal
mask and the observation of the next player to act, and hands the compiled code its 40 arrays
(the state and the engine's tables) as one int64 vector of their addresses
(:func:`president_env.core._kernels._one.one_advance`): typing and unboxing them one by one
would cost more than the game (~3.5 us against ~0.5 us per call). Results are exactly those of
:meth:`Engine.advance <president_env.core.engine.Engine.advance>` (and so of
``Engine.step_inplace`` + ``Engine.legal_action_mask`` + ``Engine.observe``), which it falls
back to for a state it cannot hand over that way (not C-contiguous, read-only, or of other
dtypes than :data:`~president_env.core._kernels._one.STATE_FIELDS`; see
:func:`~president_env.core._kernels._one.state_spec`, which the engine's direct calls share).

The address vector points into arrays that :class:`OneGame` holds (the state's fields are never
rebound); a copy or an unpickled game builds its own.

(The compiled code is cached on disk under a key that follows every kernel source: see
:mod:`president_env.core._kernels._jit`.)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from president_env.core._kernels._one import (
    INT_FIELDS,
    SLOT,
    TABLE_SLOTS,
    fill_spec,
    one_advance,
    one_restart,
    state_spec,
)
from president_env.core.engine import Engine, State


class OneGame:
    """A batch-of-one engine state with a one-call step.

    ``step(action)`` plays a legal action (the caller checks legality) and returns the next
    player to act; ``mask`` (int8 [A]) and ``obs`` (float32 [O]) then hold that player's legal
    actions and observation, in new arrays each time (arrays handed out earlier never change).
    """

    def __init__(self, engine: Engine, state: State) -> None:
        engine._check(state)  # the players and the history, before the compiled code
        if state.batch_size != 1:
            raise ValueError(f"OneGame holds one game, got a batch of {state.batch_size}")
        self.engine = engine
        self.state = state
        self._num_actions = engine.num_actions
        self._obs_size = engine.obs_size
        self._spec = address_spec(engine, state)
        self.mask: npt.NDArray[np.int8] = np.empty(0, np.int8)
        self.obs: npt.NDArray[np.float32] = np.empty(0, np.float32)
        self.current = self.step(-1)

    def step(self, action: int) -> int:
        """Play ``action`` (assumed legal; < 0: none) and return the next player to act
        (-1: game over)."""
        mask = np.empty(self._num_actions, np.int8)
        obs = np.empty(self._obs_size, np.float32)
        spec = self._spec
        if spec is not None:
            cur = int(one_advance(spec, action, mask, obs))
        else:
            cur = self.engine.advance(self.state, action, mask, obs)
        self.current = cur
        self.mask = mask
        self.obs = obs
        return cur

    def restart(self, seed: int) -> int:
        """A new game dealt from engine seed ``seed`` (an int, 0 <= seed < 2**63), written over
        this one's arrays: the state of ``Engine.init([seed])`` in the same ``State`` (no
        allocation, the address vector kept: an AEC ``reset()`` went from 67 to 7.5 us).
        Returns the player to act; ``mask`` and ``obs`` are theirs, as after :meth:`step`."""
        if self._spec is not None:
            one_restart(self._spec, seed)
        else:  # no address vector: the engine's call, on the same arrays
            self.engine.reset_where(self.state, np.ones(1, np.bool_), [seed])
            self.state.deal_over[0] = False
        return self.step(-1)

    @property
    def fast(self) -> bool:
        """Whether steps go through the address vector (else through ``Engine.advance``)."""
        return self._spec is not None

    # a copy must not point into the original's arrays: it builds its own address vector
    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_spec"}

    def __setstate__(self, d: dict[str, Any]) -> None:
        self.__dict__.update(d)
        self._spec = address_spec(self.engine, self.state)


def address_spec(engine: Engine, state: State) -> npt.NDArray[np.int64] | None:
    """The int64 vector of :func:`one_advance` for ``state`` (one game) and ``engine``'s tables,
    or None when an array cannot be handed over by address (see the module docstring)."""
    head = state_spec(state._flat)  # the state's slots, checked
    if head is None:
        return None
    runs: tuple[Any, ...] = engine._mask_tables
    tables = (engine._rp, *engine._play_tables, *runs[:4], engine._obs_offsets)
    ints = [*runs[4:], engine.rules.deals]
    if len(tables) != TABLE_SLOTS or len(ints) != INT_FIELDS:
        return None
    if any(t.dtype != np.int64 or t.ndim != 1 or not _plain(t) for t in tables):
        return None
    spec = np.zeros(len(head) + TABLE_SLOTS * SLOT + INT_FIELDS, np.int64)
    spec[: len(head)] = head
    fill_spec(tables, spec[len(head) :])
    spec[len(head) + TABLE_SLOTS * SLOT :] = ints
    return spec


def _plain(arr: np.ndarray) -> bool:
    """C-contiguous and aligned (the tables are only read)."""
    f = arr.flags
    return bool(f.c_contiguous and f.aligned)
