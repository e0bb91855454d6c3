"""Helpers shared by the adapters (AEC env, vector env, single-agent wrapper).

Building Rules from keyword options, the seeds of reset(seed=...), the observation bounds for a
Box space. Rewards live in :mod:`president_env.rewards`, action checks in
:mod:`president_env.gate`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from president_env.core.observe import ObservationLayout
from president_env.core.rules import Rules
from president_env.rewards import place_points

SEED_HIGH = 2**63 - 1
"""Engine seeds drawn by the adapters lie in ``0 .. SEED_HIGH - 1``."""


def game_seed(seed: int) -> int:
    """The engine seed of the game that ``reset(seed=seed)`` deals (AEC and vector envs)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"a seed is a non-negative integer, got {seed!r}")
    state = np.random.SeedSequence(int(seed)).generate_state(1, np.uint64)
    return int(state[0] >> np.uint64(1))


def game_seeds(seed: int, n: int) -> npt.NDArray[np.uint64]:
    """The engine seeds of ``n`` games seeded ``seed, seed + 1, ...`` (``game_seed`` of each):
    game ``b`` of ``VectorEnv(n, seed=seed)`` is the game of ``env().reset(seed=seed + b)``."""
    return np.array([game_seed(seed + b) for b in range(n)], np.uint64)


def draw_seeds(rng: np.random.Generator, n: int) -> npt.NDArray[np.uint64]:
    """``n`` engine seeds drawn from ``rng`` (new games after the first ones)."""
    return rng.integers(0, SEED_HIGH, size=n, dtype=np.int64).astype(np.uint64)


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


def observation_high(rules: Rules, layout: ObservationLayout) -> npt.NDArray[np.float32]:
    """Upper bound of every entry of the observation vector (the lower bound is 0)."""
    decks, jokers = rules.num_decks, rules.num_jokers
    max_score = max(place_points(rules)) * rules.deals
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
