"""President (Scum, Daifugo, Tycoon) as a fast, batched reinforcement-learning environment."""

import gymnasium as _gymnasium

from president_env.actions import ActionLayout, Kind
from president_env.engine import Engine, State, deal_hands
from president_env.env import env, raw_env
from president_env.rules import PRESETS, Rules
from president_env.vector import VectorEnv
from president_env.wrappers import SingleAgentEnv

__all__ = [
    "PRESETS",
    "ActionLayout",
    "Engine",
    "Kind",
    "Rules",
    "SingleAgentEnv",
    "State",
    "VectorEnv",
    "deal_hands",
    "env",
    "raw_env",
]
__version__ = "0.1.0"

if "President-v0" not in _gymnasium.registry:
    _gymnasium.register("President-v0", entry_point="president_env.wrappers:SingleAgentEnv")
