"""The :class:`Agent` protocol and the plumbing shared by the rule-based agents.

An agent decides from what one player may know: its observation vector (see
:mod:`president_env.core.observe`) and the legal-action mask, plus the :class:`~president_env.Rules`
it was built with (pack size, options). It never sees the engine's state.

Two entry points:

* ``act(observation [O], action_mask [A]) -> int``: one decision;
* ``act_batch(observations [B, O], action_masks [B, A]) -> int64 [B]``: ``B`` decisions at once, row by
  row independent; ``act_batch(o[None], m[None])[0] == act(o, m)`` always.

:class:`RuleAgent` is the base of the rule-based agents: it holds the action and observation
tables the compiled kernels (:mod:`agents._kernels`) read, and validates inputs once per batch.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from agents import _kernels as K
from president_env.core.actions import ActionLayout
from president_env.core.observe import ObservationLayout
from president_env.core.rules import Rules

IntArray = npt.NDArray[np.int64]


@runtime_checkable
class Agent(Protocol):
    """What a seat at the table needs: a policy over (observation, legal-action mask)."""

    def act(self, observation: npt.ArrayLike, action_mask: npt.ArrayLike) -> int:
        """The action id to take, one of the True entries of ``action_mask``."""
        ...

    def act_batch(self, observations: npt.ArrayLike, action_masks: npt.ArrayLike) -> IntArray:
        """One action per row of ``observations [B, O]`` and ``action_masks [B, A]``."""
        ...


class BaseAgent:
    """Common input checks; subclasses implement :meth:`_act_batch` on validated arrays."""

    name = "base"

    def __init__(self, rules: Rules, seed: int | None = None) -> None:
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a Rules, got {type(rules).__name__}")
        self.rules = rules
        self.seed = seed
        self.layout = ActionLayout(rules)
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
        obs = np.asarray(observation)
        mask = np.asarray(action_mask)
        if obs.ndim != 1 or mask.ndim != 1:
            raise ValueError(
                f"act takes one observation [O] and one mask [A], got shapes {obs.shape} and "
                f"{mask.shape}; use act_batch for batches"
            )
        return int(self.act_batch(obs[None], mask[None])[0])

    def act_batch(self, observations: npt.ArrayLike, action_masks: npt.ArrayLike) -> IntArray:
        obs = np.asarray(observations, dtype=np.float32)
        mask = np.asarray(action_masks)
        if obs.ndim != 2 or obs.shape[1] != self.obs_size:
            raise ValueError(f"observations must have shape [B, {self.obs_size}], got {obs.shape}")
        if mask.ndim != 2 or mask.shape != (obs.shape[0], self.num_actions):
            raise ValueError(
                f"masks must have shape [{obs.shape[0]}, {self.num_actions}], got {mask.shape}"
            )
        mask = mask.astype(np.bool_, copy=False)
        if len(mask) and not mask.any(axis=1).all():
            b = int(np.flatnonzero(~mask.any(axis=1))[0])
            raise ValueError(f"row {b} of the mask has no legal action (is the game over?)")
        return self._act_batch(np.ascontiguousarray(obs), np.ascontiguousarray(mask))

    def _act_batch(self, obs: np.ndarray, mask: np.ndarray) -> IntArray:
        raise NotImplementedError


class RandomAgent(BaseAgent):
    """A uniformly random legal action (seeded)."""

    name = "random"

    def __init__(self, rules: Rules, seed: int | None = None) -> None:
        super().__init__(rules, seed)
        self.rng = np.random.default_rng(seed)

    def reseed(self, seed: int | None) -> None:
        super().reseed(seed)
        self.rng = np.random.default_rng(seed)

    def _act_batch(self, obs: np.ndarray, mask: np.ndarray) -> IntArray:
        counts = mask.sum(axis=1)
        k = np.minimum((self.rng.random(len(mask)) * counts).astype(np.int64), counts - 1)
        csum = np.cumsum(mask, axis=1)
        return np.argmax(csum > k[:, None], axis=1).astype(np.int64)


class RuleAgent(BaseAgent):
    """Base of the rule-based agents: the tables their compiled kernels read."""

    def __init__(self, rules: Rules, seed: int | None = None) -> None:
        super().__init__(rules, seed)
        lay = self.layout
        self._tables = (
            lay.kind.astype(np.int64),
            lay.rank.astype(np.int64),
            lay.size.astype(np.int64),
            lay.suit.astype(np.int64),
            lay.card.astype(np.int64),
        )
        # start of every observation block the kernels read, looked up by name
        self._off = np.array(
            [self.obs_layout.slices[name].start for name in K.OBS_BLOCKS], dtype=np.int64
        )
        self._rp = rule_params(rules)

    def _args(self) -> tuple[Any, ...]:
        return (self._off, self._rp, *self._tables)


def rule_params(rules: Rules) -> IntArray:
    """The rule options the kernels need, as one int64 vector (``agents._kernels.R_*``)."""
    rp = np.zeros(K.R_SIZE, np.int64)
    rp[K.R_P] = rules.num_players
    rp[K.R_DECKS] = rules.num_decks
    rp[K.R_JOKERS] = rules.num_jokers
    rp[K.R_EQUAL] = rules.allow_equal
    rp[K.R_FINAL] = rules.pass_is_final
    rp[K.R_TOP] = rules.top_rank_clears
    rp[K.R_EIGHT] = rules.eight_clears
    rp[K.R_REVO] = rules.revolution
    rp[K.R_RUNS] = rules.runs
    rp[K.R_SMAX] = rules.max_set_size
    return rp
