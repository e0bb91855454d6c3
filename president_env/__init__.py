"""President (Scum, Daifugo, Tycoon) as a fast, batched reinforcement-learning environment.

Layers, bottom to top (each imports only those below it):

* :mod:`president_env.core`: rules, cards, actions, observation, the batched engine and the
  one-game fast path (numpy and numba only);
* the seating layer: :mod:`president_env.rewards` (places to rewards), :mod:`president_env.gate`
  (one action check for every adapter and seat), :mod:`president_env.table` (the ``Policy``
  protocol and the batched table that seats policies);
* the adapters, :mod:`president_env.envs`: ``aec`` (PettingZoo), ``vector`` (many games),
  ``single_agent`` (Gymnasium), ``learner`` (a learner's seat in many games);
* beside them: :mod:`president_env.render` (text and pictures), :mod:`president_env.records`
  (game records), :mod:`president_env.search` (positions and hand sampling),
  :mod:`president_env.cli` (command lines from dataclasses), :mod:`president_env.testing` (the
  plain reference implementation and the engine checks).

Names are re-exported here lazily, so ``import president_env.core`` loads no adapter. Importing
this package registers the Gymnasium id ``President-v0`` (``gymnasium.make("President-v0")``
works whichever of the two was imported first; ``gymnasium.register_envs(president_env)`` is
Gymnasium's way to say so in code that uses no other name of it).
"""

from __future__ import annotations

import contextlib
import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from president_env.core import PRESETS, ActionLayout, Engine, Kind, Rules, State, deal_hands
    from president_env.envs.aec import env, raw_env
    from president_env.envs.learner import LearnerVecEnv
    from president_env.envs.single_agent import SingleAgentEnv
    from president_env.envs.vector import VectorEnv
    from president_env.table import Policy, RandomPolicy, Table

_EXPORTS = {
    "PRESETS": "president_env.core",
    "ActionLayout": "president_env.core",
    "Engine": "president_env.core",
    "Kind": "president_env.core",
    "Rules": "president_env.core",
    "State": "president_env.core",
    "deal_hands": "president_env.core",
    "env": "president_env.envs.aec",
    "raw_env": "president_env.envs.aec",
    "VectorEnv": "president_env.envs.vector",
    "SingleAgentEnv": "president_env.envs.single_agent",
    "LearnerVecEnv": "president_env.envs.learner",
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
__version__ = "1.0.0"


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
        gymnasium.register("President-v0", entry_point="president_env.envs.single_agent:SingleAgentEnv")


with contextlib.suppress(ImportError):  # the engine alone (president_env.core) needs no Gymnasium
    register_gymnasium()
