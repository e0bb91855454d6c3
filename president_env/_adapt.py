"""Helpers shared by the adapters (AEC env, vector env, single-agent wrapper).

Everything RL-specific that the engine deliberately does not know lives here or in the
adapters: building Rules from keyword options, checking one action id, the observation bounds
for a Box space, and reward schemes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from president_env.core.observe import ObservationLayout
from president_env.core.rules import Rules

RewardOption = str | Sequence[float]
"""``"linear"`` (default), ``"scores"``, or one reward per place (first place first)."""

REWARD_SCHEMES = ("linear", "scores")

SEED_HIGH = 2**63 - 1
"""Engine seeds drawn by the adapters lie in ``0 .. SEED_HIGH - 1``."""


def game_seed(seed: int) -> int:
    """The engine seed of the game that ``reset(seed=seed)`` deals (AEC and vector envs)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"a seed is a non-negative integer, got {seed!r}")
    state = np.random.SeedSequence(int(seed)).generate_state(1, np.uint64)
    return int(state[0] >> np.uint64(1))


def make_rules(preset: str | None, rules: Rules | None, options: dict[str, Any]) -> Rules:
    """Rules from a preset name or a Rules object, with rule options as keywords.

    ``make_rules("cardverse", None, {"num_players": 5})``; ``make_rules(None, rules, {})``;
    ``make_rules(None, None, {"runs": True})`` (options over the defaults of ``Rules()``).
    """
    if rules is not None:
        if preset is not None:
            raise ValueError(
                f"give either preset={preset!r} or rules=..., not both (to change a preset, "
                "pass options as keywords: preset='cardverse', num_players=5)"
            )
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a president_env.Rules, got {type(rules).__name__}")
        return rules.replace(**options) if options else rules
    if preset is not None:
        if not isinstance(preset, str):
            raise TypeError(f"preset must be a preset name (str), got {preset!r}")
        return Rules.preset(preset, **options)
    return Rules.from_dict(options)


def as_action(action: Any, num_actions: int) -> int:
    """``action`` as a Python int in ``0..num_actions-1``, else a TypeError or ValueError.

    Accepts Python ints, numpy integer scalars and 0-d integer arrays; rejects bools, floats,
    strings, None and arrays of any other shape.
    """
    if type(action) is int:
        a = action
    elif isinstance(action, (bool, np.bool_)):
        raise TypeError(f"an action is an integer id, got the bool {action!r}")
    elif isinstance(action, np.integer):
        a = int(action)
    elif isinstance(action, np.ndarray):
        if action.shape != () or not np.issubdtype(action.dtype, np.integer):
            raise TypeError(
                "an action is one integer id (an int, a numpy integer or a 0-d integer "
                f"array), got an array of shape {action.shape} and dtype {action.dtype}"
            )
        a = int(action)
    elif isinstance(action, int):  # int subclasses (IntEnum members)
        a = int(action)
    else:
        raise TypeError(f"an action is an integer id, got {type(action).__name__} {action!r}")
    if not 0 <= a < num_actions:
        raise ValueError(f"action {a} is out of range 0..{num_actions - 1}")
    return a


def observation_high(rules: Rules, layout: ObservationLayout) -> npt.NDArray[np.float32]:
    """Upper bound of every entry of the observation vector (the lower bound is 0)."""
    p = rules.num_players
    decks, jokers = rules.num_decks, rules.num_jokers
    max_score = {"places": p, "president_vp": 2, "tally": 1}[rules.scoring] * rules.deals
    bounds = {
        "hand": max(decks, jokers),
        "played": max(4 * decks, jokers),
        "pile_size": max(rules.max_set_size, 13),
        "cards_left": rules.num_cards,
        "score": max_score,
        "gave": max(decks, jokers, 2),
        "received": max(decks, jokers, 2),
        "to_return": 2,
    }
    high = np.ones(layout.size, np.float32)
    for name, value in bounds.items():
        high[layout.slices[name]] = value
    return high


def reward_table(rules: Rules, reward: RewardOption) -> npt.NDArray[np.float32]:
    """Reward per finishing place (index 0 = first) for a reward option.

    ``"linear"``: ``1 - 2 * place / (P - 1)``, from +1 for first to -1 for last (the engine's
    ``state.rewards``); ``"scores"``: the points the place earns under ``rules.scoring``;
    a sequence: one number per place.
    """
    p = rules.num_players
    if isinstance(reward, str):
        if reward == "linear":
            return np.array([1.0 - 2.0 * k / (p - 1) for k in range(p)], np.float32)
        if reward == "scores":
            if rules.scoring == "places":
                pts = [p - k for k in range(p)]
            elif rules.scoring == "president_vp":
                pts = [2, 1 if p >= 4 else 0] + [0] * (p - 2)
            else:
                pts = [1] + [0] * (p - 1)
            return np.array(pts, np.float32)
        raise ValueError(
            f"unknown reward {reward!r}: use one of {REWARD_SCHEMES} or a sequence of "
            f"{p} numbers (reward per place, first place first)"
        )
    try:
        table = np.array(reward, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"reward must be one of {REWARD_SCHEMES} or {p} numbers, got {reward!r}") from None
    if table.shape != (p,) or not np.isfinite(table).all():
        raise ValueError(
            f"a reward table needs {p} finite numbers (one per place, first place first), "
            f"got {reward!r}"
        )
    return table.astype(np.float32)


def is_linear(rules: Rules, table: npt.NDArray[np.float32]) -> bool:
    """Whether ``table`` equals the engine's own rewards (so ``state.rewards`` can be used)."""
    return bool(np.array_equal(table, reward_table(rules, "linear")))

