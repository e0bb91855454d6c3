"""The wrapper that :func:`president_env.envs.aec.env` puts around the bare AEC env.

:class:`OrderEnforcingWrapper` is PettingZoo's, with the same checks (nothing before ``reset()``,
a warning at a ``step()`` once no agent is left, ``step()`` or ``reset()`` between two turns of
``agent_iter()``). It adds no rule of its own: every action goes to the wrapped env's ``step``,
which checks it (:mod:`president_env.gate`) and applies the illegal-move penalty. What it changes
is speed only: the attributes that every AEC loop reads at every step (``agent_selection``,
``agents``, ``rewards``, ``terminations``, ...) are properties that read the wrapped env instead
of PettingZoo's ``__getattr__`` fallback (which costs more than the game's own step),
``step()`` makes PettingZoo's checks in one call, and ``last()`` is the wrapped env's own (the
bare env's reuses the observation it built for the step).
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import (
    AECOrderEnforcingIterable,
    AECOrderEnforcingIterator,
)


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's OrderEnforcingWrapper, reading the wrapped env's attributes directly (see
    the module docstring): the same checks, in one call each."""

    def step(self, action: Any) -> None:
        """PettingZoo's ``step()``: an error before reset, a warning once no agent is left,
        else the wrapped env's ``step``."""
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self.env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last()``: an AttributeError before reset, else the wrapped env's."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)  # type: ignore[no-any-return]

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
        return self.env.agent_selection  # type: ignore[no-any-return]

    @property
    def agents(self) -> list[str]:
        self._guard("agents")
        return self.env.agents  # type: ignore[no-any-return]

    @property
    def num_agents(self) -> int:
        self._guard("num_agents")
        return len(self.env.agents)

    @property
    def rewards(self) -> dict[str, float]:
        self._guard("rewards")
        return self.env.rewards  # type: ignore[no-any-return]

    @property
    def terminations(self) -> dict[str, bool]:
        self._guard("terminations")
        return self.env.terminations  # type: ignore[no-any-return]

    @property
    def truncations(self) -> dict[str, bool]:
        self._guard("truncations")
        return self.env.truncations  # type: ignore[no-any-return]

    @property
    def infos(self) -> dict[str, dict[str, Any]]:
        self._guard("infos")
        return self.env.infos  # type: ignore[no-any-return]

    @property
    def _cumulative_rewards(self) -> dict[str, float]:
        return self.env._cumulative_rewards  # type: ignore[no-any-return]

    def __str__(self) -> str:
        return str(self.env)


class _Iterable(AECOrderEnforcingIterable):  # type: ignore[misc]
    def __iter__(self) -> _Iterator:
        return _Iterator(self.env, self.max_iter)


class _Iterator(AECOrderEnforcingIterator):  # type: ignore[misc]
    """PettingZoo's order-enforcing iterator, reading the wrapped env's agents directly."""

    def __next__(self) -> str:
        env = self.env
        inner = env.env
        if not inner.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        env._has_updated = False
        return inner.agent_selection  # type: ignore[no-any-return]
