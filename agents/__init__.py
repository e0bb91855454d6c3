"""Agents for President: one :class:`Agent` protocol, four rule-based levels, the Expert (a
search) and the shipped learned policies.

>>> from president_env import Rules
>>> from agents import make_agent
>>> hard = make_agent("hard", Rules.preset("standard"))

``act(observation, action_mask) -> int`` decides once; ``act_batch(obs [B, O], masks [B, A])``
decides for ``B`` games at once (compiled, no Python loop over games), ``-1`` for a row without
a legal action: every agent is a :class:`president_env.table.Policy`.

:func:`load_agent` is the one resolver of an agent named on a command line or in code: a
built-in name (``"hard"``, ``"expert"``), a shipped policy's name (``"policy"``, ``"ppo"``), a checkpoint in the :mod:`agents.policy` format (``.pt``) or an
sb3-contrib ``model.zip`` (:mod:`agents.sb3`), with an optional ``#k`` suffix (``"hard#2"``,
``"runs/a/policy.pt#2"``) that tournaments use to tell copies apart::

    load_agent("hard", rules, seed=1)
    load_agent("runs/maskable_ppo/standard_p4_seed0/model.zip", rules)

A checkpoint must have been trained for ``rules`` (a ValueError lists the options that differ).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from agents import pretrained
from agents.base import Agent, BaseAgent, RandomAgent, RuleAgent
from agents.expert import ExpertAgent, KitExpertAgent
from agents.pretrained import PRETRAINED
from agents.rule_based import HARD_WEIGHTS, EasyAgent, HardAgent, KitAgent, NormalAgent
from president_env.core.rules import Rules

AgentFactory = Callable[[Rules, "int | None"], Agent]

AGENTS: dict[str, type[BaseAgent]] = {
    "random": RandomAgent,
    "easy": EasyAgent,
    "normal": NormalAgent,
    "hard": HardAgent,
    "kit": KitAgent,
}


SEARCH_AGENTS: dict[str, type[BaseAgent]] = {"expert": ExpertAgent, "expert-kit": KitExpertAgent}
"""Agents that search (slower, and reading the history observation): not among the
baselines of :data:`AGENTS`, but named the same way."""
NAMED_AGENTS: dict[str, type[BaseAgent]] = {**AGENTS, **SEARCH_AGENTS}
"""Every agent a name resolves to (:func:`make_agent`, :func:`load_agent`)."""


def make_agent(name: str, rules: Rules, seed: int | None = None) -> BaseAgent:
    """A built-in agent by name (``random``, ``easy``, ``normal``, ``hard``, ``kit``,
    ``expert``, ``expert-kit``)."""
    key = name.strip().lower()
    if key not in NAMED_AGENTS:
        raise ValueError(f"unknown agent {name!r}; agents are {sorted(NAMED_AGENTS)}")
    return NAMED_AGENTS[key](rules, seed)


CHECKPOINT_SUFFIXES = (".pt", ".zip")
"""File endings that make an agent spec a checkpoint path rather than a built-in name."""
_COPY = re.compile(r"#\d+$")


def base_spec(spec: str) -> str:
    """``spec`` without its copy suffix: ``"hard#2"`` -> ``"hard"``."""
    return _COPY.sub("", spec.strip())


def is_checkpoint_spec(spec: str) -> bool:
    """Whether ``spec`` (without a ``#k`` suffix) names a checkpoint file rather than an agent:
    it ends in ``.pt`` or ``.zip`` or holds a path separator."""
    s = base_spec(spec)
    return s.lower().endswith(CHECKPOINT_SUFFIXES) or "/" in s or "\\" in s


def agent_names() -> list[str]:
    """Every name :func:`load_agent` resolves without a path: the built-in agents, then the
    shipped policies (:mod:`agents.pretrained`)."""
    return [*NAMED_AGENTS, *PRETRAINED]


def load_agent(spec: str, rules: Rules, seed: int | None = None) -> Agent:
    """The agent named by ``spec`` for ``rules``: a built-in agent (``"hard"``, ``"expert"``,
    seeded ``seed``), a shipped policy by name (``"policy"``, the default and strongest, or
    ``"ppo"``: :mod:`agents.pretrained`), a ``.pt`` checkpoint (:class:`agents.policy.PolicyAgent`,
    greedy) or an SB3 ``model.zip`` (:class:`agents.sb3.SB3Policy`, deterministic); a ``#k``
    suffix is ignored. ValueError (:class:`agents.errors.CheckpointError` for files) for an
    unknown name, a missing or unusable file, or a checkpoint trained for other rules; a policy
    file without the ``train`` extra installed: :class:`president_env.extras.MissingExtra`."""
    if not isinstance(spec, str):
        raise TypeError(f"an agent spec is a string, got {type(spec).__name__}")
    name = base_spec(spec)
    if not is_checkpoint_spec(name):
        key = name.lower()
        if key in PRETRAINED:
            return _load_file(pretrained.path(key), rules, seed)
        if key not in NAMED_AGENTS:
            raise ValueError(
                f"unknown agent {name!r}; agents are {agent_names()} or a checkpoint path "
                f"(.pt or an SB3 model.zip)"
            )
        return make_agent(name, rules, seed)
    return _load_file(Path(name), rules, seed)


def _load_file(path: Path, rules: Rules, seed: int | None) -> Agent:
    from agents.checkpoints import load_checkpoint  # torch only when a file is loaded

    agent = load_checkpoint(path, rules)
    agent.reseed(seed)
    return agent


__all__ = [
    "AGENTS",
    "HARD_WEIGHTS",
    "NAMED_AGENTS",
    "PRETRAINED",
    "SEARCH_AGENTS",
    "Agent",
    "AgentFactory",
    "BaseAgent",
    "EasyAgent",
    "ExpertAgent",
    "HardAgent",
    "KitAgent",
    "KitExpertAgent",
    "NormalAgent",
    "RandomAgent",
    "RuleAgent",
    "agent_names",
    "base_spec",
    "is_checkpoint_spec",
    "load_agent",
    "make_agent",
]
