"""Rule-based agents for President: one :class:`Agent` protocol, four levels.

>>> from president_env import Rules
>>> from agents import make_agent
>>> hard = make_agent("hard", Rules.preset("standard"))

``act(observation, action_mask) -> int`` decides once; ``act_batch(obs [B, O], masks [B, A])``
decides for ``B`` games at once (compiled, no Python loop over games), ``-1`` for a row without
a legal action: every agent is a :class:`president_env.table.Policy`.
"""

from __future__ import annotations

from collections.abc import Callable

from agents.base import Agent, BaseAgent, RandomAgent, RuleAgent
from agents.rule_based import HARD_WEIGHTS, EasyAgent, HardAgent, NormalAgent
from president_env.core.rules import Rules

AgentFactory = Callable[[Rules, "int | None"], Agent]

AGENTS: dict[str, type[BaseAgent]] = {
    "random": RandomAgent,
    "easy": EasyAgent,
    "normal": NormalAgent,
    "hard": HardAgent,
}


def make_agent(name: str, rules: Rules, seed: int | None = None) -> BaseAgent:
    """A built-in agent by name (``random``, ``easy``, ``normal``, ``hard``)."""
    key = name.strip().lower()
    if key not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; agents are {sorted(AGENTS)}")
    return AGENTS[key](rules, seed)


__all__ = [
    "AGENTS",
    "HARD_WEIGHTS",
    "Agent",
    "AgentFactory",
    "BaseAgent",
    "EasyAgent",
    "HardAgent",
    "NormalAgent",
    "RandomAgent",
    "RuleAgent",
    "make_agent",
]
