"""The pure game core of President: rules, cards, actions, observation and the batched engine.

Needs numpy and numba only (no PettingZoo, Gymnasium or torch): research code that wants the
engine alone imports it from here.

>>> from president_env.core import Engine, Rules
>>> engine = Engine(Rules.preset("daifugo"))
>>> state = engine.init([0, 1, 2])              # three seeded games
>>> mask = engine.legal_action_mask(state)      # [3, A]

One game at a time (a batch of one), the fast path every adapter uses is :class:`OneGame`: one
compiled call per action that plays it and fills the next player's mask and observation.

>>> game = OneGame(engine, engine.init([7]))
>>> game.step(int(game.mask.nonzero()[0][0]))   # doctest: +SKIP

Other layers' compiled code may call the engine's :func:`take_cards` (the cards an action takes
from a hand) and :func:`play_suits` (the suits of a play, ``lock``) and key their own numba cache on :data:`KERNEL_SOURCES_HASH`
(:mod:`president_env.core.jit`).
"""

from president_env.core._kernels import SOURCES_HASH as KERNEL_SOURCES_HASH
from president_env.core._kernels import play_suits, take_cards
from president_env.core.actions import ActionLayout
from president_env.core.cards import format_hand, parse_hand
from president_env.core.constants import Kind, Phase
from president_env.core.engine import Engine, State, deal_hands
from president_env.core.observe import ObservationLayout
from president_env.core.one_game import OneGame
from president_env.core.rules import PRESETS, RuleParam, Rules, rule_params

__all__ = [
    "KERNEL_SOURCES_HASH",
    "PRESETS",
    "OneGame",
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
    "play_suits",
    "rule_params",
    "take_cards",
]
