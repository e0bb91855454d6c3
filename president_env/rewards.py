"""Rewards: the one place that turns the engine's places into rewards, for every adapter.

The engine reports places, titles and scores only (see :mod:`president_env.core.engine`); a step
that ends a deal sets ``state.deal_over`` and writes each player's place in that deal into
``state.title``. Every adapter (AEC env, vector env, single-agent env, learner env, table) asks
this module for the rewards of such a step.

==============  =====================================================================
``reward``      reward for a deal, by finishing place (0 = first)
==============  =====================================================================
``"linear"``    ``1 - 2 * place / (P - 1)``: +1 for first, -1 for last, zero-sum (default)
``"scores"``    the points the place earns under ``rules.scoring``
sequence of P   one number per place, first place first
==============  =====================================================================
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from president_env.core.engine import State
from president_env.core.rules import Rules

RewardOption = str | Sequence[float]
"""``"linear"`` (default), ``"scores"``, or one reward per place (first place first)."""

REWARD_SCHEMES = ("linear", "scores")

FloatArray = npt.NDArray[np.float32]


def place_points(rules: Rules) -> list[int]:
    """Points per place (first place first) under ``rules.scoring``."""
    p = rules.num_players
    if rules.scoring == "places":
        return [p - k for k in range(p)]
    if rules.scoring == "president_vp":
        return [2, 1 if p >= 4 else 0] + [0] * (p - 2)
    return [1] + [0] * (p - 1)


def reward_table(rules: Rules, reward: RewardOption = "linear") -> FloatArray:
    """Reward per finishing place (index 0 = first) for a reward option (see the table above)."""
    p = rules.num_players
    if isinstance(reward, str):
        if reward == "linear":
            return np.array([1.0 - 2.0 * k / (p - 1) for k in range(p)], np.float32)
        if reward == "scores":
            return np.array(place_points(rules), np.float32)
        raise ValueError(
            f"unknown reward {reward!r}: use one of {REWARD_SCHEMES} or a sequence of "
            f"{p} numbers (reward per place, first place first)"
        )
    try:
        table = np.array(reward, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"reward must be one of {REWARD_SCHEMES} or {p} numbers, got {reward!r}"
        ) from None
    if table.shape != (p,) or not np.isfinite(table).all():
        raise ValueError(
            f"a reward table needs {p} finite numbers (one per place, first place first), "
            f"got {reward!r}"
        )
    return table.astype(np.float32)


def deal_rewards(state: State, table: FloatArray, out: FloatArray | None = None) -> FloatArray:
    """Every player's reward ``[B, P]`` for the deals that ended in the last step (rows whose
    ``deal_over`` is False are zero)."""
    r = np.zeros(state.title.shape, np.float32) if out is None else out
    if out is not None:
        r[...] = 0.0
    rows = np.flatnonzero(state.deal_over)
    if len(rows):
        r[rows] = table[state.title[rows]]
    return r
