"""The wrappers that :func:`president_env.envs.aec.env` puts around the bare AEC env.

Both are subclasses of PettingZoo's own, with the same contract: :class:`ActionCheckWrapper`
(PettingZoo's ``AssertOutOfBoundsWrapper``) raises a clear TypeError / ValueError from the
:mod:`president_env.gate` instead of a bare assertion; :class:`OrderEnforcingWrapper` reads the
env's attributes directly instead of through a ``__getattr__`` chain (which costs more than the
game's own step), and its ``last()``, ``step()`` and ``agent_iter()`` make the same checks as
PettingZoo's in one call each instead of one per wrapper layer: ``last()`` goes straight to the
bare env when no layer in between changes ``observe`` or ``last`` (as with ``env()``'s
wrappers; ``TerminateIllegalWrapper`` does change ``observe``, so there it goes through every
layer as before), and ``step()`` when the only layers in between are :class:`ActionCheckWrapper`
(the bare env's ``step`` raises the same errors for the same actions).
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.base import BaseWrapper
from pettingzoo.utils.wrappers.order_enforcing import (
    AECOrderEnforcingIterable,
    AECOrderEnforcingIterator,
)

from president_env.gate import as_action


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's OrderEnforcingWrapper, reading the env's attributes directly.

    The same checks (nothing before ``reset()``); the attributes that every AEC loop reads at
    every step (``agent_selection``, ``agents``, ``rewards``, ``terminations``, ...) are
    properties here instead of a ``__getattr__`` chain through every wrapper, which costs more
    than the game's own step. The env's wrappers do not override these attributes.
    """

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped
        self._direct = _plain_layers(env)
        self._step_direct = _checks_only(env)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last()``, read from the bare env (see the module docstring)."""
        if self._direct and self._has_reset:
            return self._raw.last(observe)  # type: ignore[no-any-return]
        self._guard("agent_selection")
        return super().last(observe)  # type: ignore[no-any-return]

    def step(self, action: Any) -> None:
        """PettingZoo's ``step()``: an error before reset, a warning once no agent is left."""
        raw = self._raw
        if self._step_direct and self._has_reset and raw.agents:  # the bare env checks
            self._has_updated = True
            raw.step(action)
        elif not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self._raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _Iterable(self, max_iter)

    def _guard(self, name: str) -> None:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")

    @property
    def agent_selection(self) -> str:
        self._guard("agent_selection")
        return self._raw.agent_selection  # type: ignore[no-any-return]

    @property
    def agents(self) -> list[str]:
        self._guard("agents")
        return self._raw.agents  # type: ignore[no-any-return]

    @property
    def num_agents(self) -> int:
        self._guard("num_agents")
        return len(self._raw.agents)

    @property
    def rewards(self) -> dict[str, float]:
        self._guard("rewards")
        return self._raw.rewards  # type: ignore[no-any-return]

    @property
    def terminations(self) -> dict[str, bool]:
        self._guard("terminations")
        return self._raw.terminations  # type: ignore[no-any-return]

    @property
    def truncations(self) -> dict[str, bool]:
        self._guard("truncations")
        return self._raw.truncations  # type: ignore[no-any-return]

    @property
    def infos(self) -> dict[str, dict[str, Any]]:
        self._guard("infos")
        return self._raw.infos  # type: ignore[no-any-return]

    @property
    def _cumulative_rewards(self) -> dict[str, float]:
        return self._raw._cumulative_rewards  # type: ignore[no-any-return]

    def __str__(self) -> str:
        return str(self.env)


class ActionCheckWrapper(wrappers.AssertOutOfBoundsWrapper):
    """AssertOutOfBoundsWrapper with clear errors: a TypeError for an action of the wrong type,
    a ValueError for an id out of range or ``None`` for an agent that is not terminated."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw: Any = env.unwrapped
        self._num_actions = int(self._raw.num_actions)

    def step(self, action: Any) -> None:
        if action is None:
            raw = self._raw
            agent = raw.agent_selection
            if not (raw.terminations.get(agent, False) or raw.truncations.get(agent, False)):
                raise ValueError(raw._none_message(agent))
        elif type(action) is not int or not 0 <= action < self._num_actions:
            as_action(action, self._num_actions)
        self.env.step(action)


class _Iterable(AECOrderEnforcingIterable):  # type: ignore[misc]
    def __iter__(self) -> _Iterator:
        return _Iterator(self.env, self.max_iter)


class _Iterator(AECOrderEnforcingIterator):  # type: ignore[misc]
    """PettingZoo's order-enforcing iterator, reading the bare env's agents directly."""

    def __next__(self) -> str:
        env = self.env
        raw = env._raw
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        env._has_updated = False
        return raw.agent_selection  # type: ignore[no-any-return]


def _plain_layers(env: AECEnv) -> bool:
    """Whether every wrapper from ``env`` down to the bare env leaves ``observe`` and ``last``
    as PettingZoo's BaseWrapper has them (so that ``last()`` may read the bare env)."""
    e = env
    while isinstance(e, BaseWrapper):
        cls = type(e)
        if cls.observe is not BaseWrapper.observe or cls.last is not BaseWrapper.last:
            return False
        e = e.env
    return True


def _checks_only(env: AECEnv) -> bool:
    """Whether every wrapper from ``env`` down to the bare env is an :class:`ActionCheckWrapper`,
    whose checks the bare env's ``step`` makes too, with the same errors (so that ``step`` may
    go straight to the bare env)."""
    e = env
    while isinstance(e, BaseWrapper):
        if type(e) is not ActionCheckWrapper:
            return False
        e = e.env
    return True
