"""The wrappers that :func:`president_env.aec.env` puts around the bare AEC env.

Both are subclasses of PettingZoo's own, with the same contract: :class:`ActionCheckWrapper`
(PettingZoo's ``AssertOutOfBoundsWrapper``) raises a clear TypeError / ValueError from the
:mod:`president_env.gate` instead of a bare assertion; :class:`OrderEnforcingWrapper` reads the
env's attributes directly instead of through a ``__getattr__`` chain (which costs more than the
game's own step).
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

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
