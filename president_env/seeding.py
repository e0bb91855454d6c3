"""Seeds: the one check of a seed, and the engine seeds an adapter deals from a user's seed.

``reset(seed=s)`` of the AEC env deals the game of engine seed :func:`game_seed` ``(s)``; game
``b`` of ``VectorEnv(n, seed=s)`` is the game of ``env().reset(seed=s + b)`` (:func:`game_seeds`);
later games are dealt from seeds drawn from the adapter's generator (:func:`draw_seeds`).
:class:`RowStreams` gives each row of a batch its own random stream (the Expert's search).
"""

from __future__ import annotations

import hashlib
from typing import Any, TypeAlias

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


class RowStreams:
    """Random draws split by rows, each row from its own generator: what a row gets depends on
    its generator only, not on the other rows of the batch, so a search decides a position the
    same whether it meets it alone (an env's loop) or among many (a tournament's table).

    Draws take a ``size`` whose first dimension is a multiple of the number of rows ``R``: row
    ``i``'s generator draws the ``i``-th of ``R`` equal consecutive parts (``size[0] // R``
    rows each: the samples of decision ``i``, as ``np.repeat(obs, n, axis=0)`` lays them out).
    :meth:`keyed` seeds row ``i`` from ``seed`` and a digest of ``keys[i]`` (its observation and
    mask)."""

    def __init__(self, generators: list[np.random.Generator]) -> None:
        self.generators = generators

    @classmethod
    def keyed(cls, seed: int, keys: list[bytes]) -> RowStreams:
        """Row ``i`` seeded from ``seed`` and the BLAKE2 digest of ``keys[i]``."""
        words = [np.frombuffer(hashlib.blake2b(k, digest_size=16).digest(), np.uint32)
                 for k in keys]
        return cls([np.random.default_rng(np.random.SeedSequence([seed, *map(int, w)]))
                    for w in words])

    def rows(self, select: npt.ArrayLike) -> RowStreams:
        """The streams of some rows (indices or a boolean mask), sharing their generators."""
        sel = np.asarray(select)
        idx = np.flatnonzero(sel) if sel.dtype == np.bool_ else sel.astype(np.int64)
        return RowStreams([self.generators[int(i)] for i in idx])

    def _parts(self, size: Any) -> tuple[int, tuple[int, ...]]:
        shape = (int(size),) if np.ndim(size) == 0 else tuple(int(x) for x in size)
        r = len(self.generators)
        if not shape or (r == 0 and shape[0]) or (r and shape[0] % r):
            raise ValueError(f"a draw of shape {shape} does not split into {r} rows")
        return (shape[0] // r if r else 0), shape[1:]

    def random(self, size: Any) -> npt.NDArray[np.float64]:
        """Uniform floats in [0, 1) of shape ``size`` (as ``Generator.random``)."""
        each, rest = self._parts(size)
        if not self.generators:
            return np.zeros((0, *rest))
        return np.concatenate([g.random((each, *rest)) for g in self.generators])

    def integers(self, low: int, high: int, size: Any, dtype: Any = np.int64) -> np.ndarray:
        """Integers in [low, high) of shape ``size`` (as ``Generator.integers``)."""
        each, rest = self._parts(size)
        if not self.generators:
            return np.zeros((0, *rest), dtype)
        return np.concatenate([g.integers(low, high, (each, *rest), dtype=dtype)
                               for g in self.generators])


Random: TypeAlias = "np.random.Generator | RowStreams"
"""A source of draws: one generator for a whole batch, or a :class:`RowStreams` per row."""
