"""President (Scum, Daifugo, Tycoon) as a fast, batched reinforcement-learning environment.

Layers, bottom to top (each imports only those below it):

* :mod:`president_env.core`: rules, cards, actions, observation and the batched engine
  (numpy and numba only);
* :mod:`president_env.rewards` (places to rewards), :mod:`president_env.gate` (one action
  check for every adapter and seat), :mod:`president_env.table` (the ``Policy`` protocol and
  the batched table that seats policies);
* the adapters: :mod:`president_env.aec` (PettingZoo), :mod:`president_env.vector` (many games),
  :mod:`president_env.single_agent` (Gymnasium), :mod:`president_env.learner` (a learner's
  seat in many games);
* :mod:`president_env.testing`: the plain reference implementation and the engine checks.

Names are re-exported here lazily, so ``import president_env.core`` loads no RL library.
The Gymnasium id ``President-v0`` is registered when :mod:`president_env.single_agent` is
imported, or with this package when Gymnasium is already loaded; ``gymnasium.make(
"president_env.single_agent:President-v0")`` always works (``"president_env:President-v0"``
only when this package is first imported after Gymnasium: importing it again does nothing).
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from president_env.aec import env, raw_env
    from president_env.core import PRESETS, ActionLayout, Engine, Kind, Rules, State, deal_hands
    from president_env.learner import LearnerVecEnv
    from president_env.single_agent import SingleAgentEnv
    from president_env.table import Policy, RandomPolicy, Table
    from president_env.vector import VectorEnv

_EXPORTS = {
    "PRESETS": "president_env.core",
    "ActionLayout": "president_env.core",
    "Engine": "president_env.core",
    "Kind": "president_env.core",
    "Rules": "president_env.core",
    "State": "president_env.core",
    "deal_hands": "president_env.core",
    "env": "president_env.aec",
    "raw_env": "president_env.aec",
    "VectorEnv": "president_env.vector",
    "SingleAgentEnv": "president_env.single_agent",
    "LearnerVecEnv": "president_env.learner",
    "Policy": "president_env.table",
    "RandomPolicy": "president_env.table",
    "Table": "president_env.table",
}

__all__ = [
    "PRESETS",
    "ActionLayout",
    "Engine",
    "Kind",
    "LearnerVecEnv",
    "Policy",
    "RandomPolicy",
    "Rules",
    "SingleAgentEnv",
    "State",
    "Table",
    "VectorEnv",
    "deal_hands",
    "env",
    "raw_env",
]
__version__ = "0.15.0"


def __getattr__(name: str) -> Any:  # PEP 562: import the adapters only when asked for
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'president_env' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


def register_gymnasium() -> None:
    """Register ``President-v0`` with Gymnasium (idempotent)."""
    import gymnasium

    if "President-v0" not in gymnasium.registry:
        gymnasium.register("President-v0", entry_point="president_env.single_agent:SingleAgentEnv")


if "gymnasium" in sys.modules:  # registering costs nothing once Gymnasium is loaded
    register_gymnasium()
