"""President (Scum, Daifugo, Tycoon) as a fast, batched reinforcement-learning environment."""

from president_env.actions import ActionLayout, Kind
from president_env.engine import Engine, State, deal_hands
from president_env.rules import PRESETS, Rules

__all__ = ["PRESETS", "ActionLayout", "Engine", "Kind", "Rules", "State", "deal_hands"]
__version__ = "0.1.0"
