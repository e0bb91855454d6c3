"""The pure game core of President: rules, cards, actions, observation and the batched engine.

Needs numpy and numba only (no PettingZoo, Gymnasium or torch): research code that wants the
engine alone imports it from here.

>>> from president_env.core import Engine, Rules
>>> engine = Engine(Rules.preset("daifugo"))
>>> state = engine.init([0, 1, 2])              # three seeded games
>>> mask = engine.legal_action_mask(state)      # [3, A]
"""

from president_env.core.actions import ActionLayout
from president_env.core.cards import format_hand, parse_hand
from president_env.core.constants import Kind, Phase
from president_env.core.engine import Engine, State, deal_hands
from president_env.core.observe import ObservationLayout
from president_env.core.rules import PRESETS, RuleParam, Rules, rule_params

__all__ = [
    "PRESETS",
    "ActionLayout",
    "Engine",
    "Kind",
    "ObservationLayout",
    "Phase",
    "RuleParam",
    "Rules",
    "State",
    "deal_hands",
    "format_hand",
    "parse_hand",
    "rule_params",
]
