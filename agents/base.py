"""The :class:`Agent` protocol and the plumbing shared by the rule-based agents.

An agent decides from what one player may know: its observation vector (see
:mod:`president_env.core.observe`) and the legal-action mask, plus the :class:`~president_env.Rules`
it was built with (pack size, options). It never sees the engine's state.

Every agent is a :class:`president_env.table.Policy` that says which rules it was made for
(its ``rules`` attribute, a convention every policy may follow: :func:`president_env.table.check_rules` compares
them with a table's and names the options that differ), with one more entry point:

* ``act_batch(observations [B, O], action_masks [B, A]) -> int64 [B]``: ``B`` decisions at once,
  row by row independent; a row whose mask has no legal action gets ``-1`` (the kernel never
  sees it);
* ``act(observation [O], action_mask [A]) -> int``: one decision (a ValueError when the mask
  has no legal action); ``act_batch(o[None], m[None])[0] == act(o, m)`` always.

:class:`RuleAgent` is the base of the rule-based agents: it holds the action tables, the
observation offsets and the rule vector the compiled kernels (:mod:`agents.kernels`) read, and
validates inputs once per batch.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from agents.kernels import action_tables, block_offsets, every_row_legal
from president_env.core.actions import action_layout
from president_env.core.observe import ObservationLayout
from president_env.core.rules import Rules, rule_params
from president_env.table import Policy, RandomPolicy

IntArray = npt.NDArray[np.int64]
_EVERY_ROW_LEGAL: Any = every_row_legal  # a numba dispatcher, typed loosely for mypy


def act_one(policy: Any, observation: npt.ArrayLike, action_mask: npt.ArrayLike) -> int:
    """``policy.act_batch`` on one row: the action, or a ValueError when the mask has none."""
    a = int(policy.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])
    if a < 0:
        raise ValueError("the action mask has no legal action (is the game over?)")
    return a


@runtime_checkable
class Agent(Policy, Protocol):
    """What a seat at the table needs: a :class:`~president_env.table.Policy` over
    (observation, legal-action mask) that also decides one row at a time."""

    def act(self, observation: npt.ArrayLike, action_mask: npt.ArrayLike) -> int:
        """The action id to take, one of the True entries of ``action_mask``."""
        ...


class BaseAgent:
    """Common input checks; subclasses implement :meth:`_act_batch` on validated arrays whose
    rows all have a legal action."""

    name = "base"

    def __init__(self, rules: Rules, seed: int | None = None) -> None:
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a Rules, got {type(rules).__name__}")
        self.rules = rules
        self.seed = seed
        self.layout = action_layout(rules)
        self.obs_layout = ObservationLayout(rules)
        self.num_actions = self.layout.num_actions
        self.obs_size = self.obs_layout.size

    def __repr__(self) -> str:
        return f"{type(self).__name__}(players={self.rules.num_players}, preset={getattr(self.rules, 'preset_name', None)!r})"

    def reseed(self, seed: int | None) -> None:
        """Restart the agent's random choices from ``seed`` (environments call it at reset so
        that a seeded episode repeats exactly). Deterministic agents ignore it."""
        self.seed = seed

    def act(self, observation: npt.ArrayLike, action_mask: npt.ArrayLike) -> int:
        """One decision; a ValueError when ``action_mask`` has no legal action."""
        obs = np.asarray(observation)
        mask = np.asarray(action_mask)
        if obs.ndim != 1 or mask.ndim != 1:
            raise ValueError(
                f"act takes one observation [O] and one mask [A], got shapes {obs.shape} and "
                f"{mask.shape}; use act_batch for batches"
            )
        a = int(self.act_batch(obs[None], mask[None])[0])
        if a < 0:
            raise ValueError("the action mask has no legal action (is the game over?)")
        return a

    def act_batch(self, observations: npt.ArrayLike, action_masks: npt.ArrayLike) -> IntArray:
        """One action per row of ``observations [B, O]`` and ``action_masks [B, A]``; -1 for a
        row with no legal action."""
        return self._decide(*self._validated(observations, action_masks))

    def _validated(
        self, observations: npt.ArrayLike, action_masks: npt.ArrayLike
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(obs float32 [B, O], mask bool [B, A])``, C-contiguous; a ValueError naming the
        expected shapes otherwise."""
        obs = np.asarray(observations, dtype=np.float32)
        mask = np.asarray(action_masks)
        if obs.ndim != 2 or obs.shape[1] != self.obs_size:
            raise ValueError(f"observations must have shape [B, {self.obs_size}], got {obs.shape}")
        if mask.ndim != 2 or mask.shape != (obs.shape[0], self.num_actions):
            raise ValueError(
                f"masks must have shape [{obs.shape[0]}, {self.num_actions}], got {mask.shape}"
            )
        mask = mask.astype(np.bool_, copy=False)
        return np.ascontiguousarray(obs), np.ascontiguousarray(mask)

    def _decide(self, obs: np.ndarray, mask: np.ndarray) -> IntArray:
        """:meth:`_act_batch` on the rows with a legal action, -1 on the others."""
        if _EVERY_ROW_LEGAL(mask):
            return self._act_batch(obs, mask)
        legal = mask.any(axis=1)
        out = np.full(len(mask), -1, np.int64)
        rows = np.flatnonzero(legal)
        if len(rows):
            out[rows] = self._act_batch(obs[rows], mask[rows])
        return out

    def _act_batch(self, obs: np.ndarray, mask: np.ndarray) -> IntArray:
        raise NotImplementedError


class RandomAgent(BaseAgent):
    """A uniformly random legal action (seeded); one draw per row, -1 for a row without a
    legal action (as :class:`president_env.table.RandomPolicy`)."""

    name = "random"

    def __init__(self, rules: Rules, seed: int | None = None) -> None:
        super().__init__(rules, seed)
        self._policy = RandomPolicy(seed)

    @property
    def rng(self) -> np.random.Generator:
        return self._policy.rng

    def reseed(self, seed: int | None) -> None:
        super().reseed(seed)
        self._policy.reseed(seed)

    def _decide(self, obs: np.ndarray, mask: np.ndarray) -> IntArray:
        return self._act_batch(obs, mask)

    def _act_batch(self, obs: np.ndarray, mask: np.ndarray) -> IntArray:
        return self._policy.act_batch(obs, mask)


class RuleAgent(BaseAgent):
    """Base of the rule-based agents: the tables their compiled kernels read."""

    def __init__(self, rules: Rules, seed: int | None = None) -> None:
        super().__init__(rules, seed)
        self._acts = action_tables(self.layout)
        # start of every observation block the kernels read, looked up by name
        self._off = block_offsets(self.obs_layout)
        self._rp = rule_params(rules)

    def __setstate__(self, d: dict[str, Any]) -> None:
        self.__dict__.update(d)
        self._rp.setflags(write=False)  # as made (see Engine.__reduce__): one compiled type

    def _args(self) -> tuple[Any, ...]:
        return (self._off, self._rp, self._acts)
