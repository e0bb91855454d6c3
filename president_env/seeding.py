"""Seeds: the one check of a seed, and the engine seeds an adapter deals from a user's seed.

``reset(seed=s)`` of the AEC env deals the game of engine seed :func:`game_seed` ``(s)``; game
``b`` of ``VectorEnv(n, seed=s)`` is the game of ``env().reset(seed=s + b)`` (:func:`game_seeds`);
later games are dealt from seeds drawn from the adapter's generator (:func:`draw_seeds`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

SEED_HIGH = 2**63 - 1
"""Engine seeds drawn by the adapters lie in ``0 .. SEED_HIGH - 1``."""


def check_seed(seed: Any) -> int:
    """``seed`` as a Python int, else a TypeError (not an int) or ValueError (negative)."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(
            f"seed must be an int >= 0 or None, got {type(seed).__name__} {seed!r}"
        )
    if seed < 0:
        raise ValueError(f"seed must be an int >= 0 or None, got {seed!r}")
    return int(seed)


def game_seed(seed: int) -> int:
    """The engine seed of the game that ``reset(seed=seed)`` deals (AEC and vector envs);
    ``seed`` is checked by :func:`check_seed`."""
    state = np.random.SeedSequence(check_seed(seed)).generate_state(1, np.uint64)
    return int(state[0] >> np.uint64(1))


def game_seeds(seed: int, n: int) -> npt.NDArray[np.uint64]:
    """The engine seeds of ``n`` games seeded ``seed, seed + 1, ...`` (``game_seed`` of each):
    game ``b`` of ``VectorEnv(n, seed=seed)`` is the game of ``env().reset(seed=seed + b)``."""
    first = check_seed(seed)
    return np.array([game_seed(first + b) for b in range(n)], np.uint64)


def draw_seeds(rng: np.random.Generator, n: int) -> npt.NDArray[np.uint64]:
    """``n`` engine seeds drawn from ``rng`` (new games after the first ones)."""
    return rng.integers(0, SEED_HIGH, size=n, dtype=np.int64).astype(np.uint64)
