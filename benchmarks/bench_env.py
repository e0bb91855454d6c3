"""Throughput of the PettingZoo AEC env and of the vector env under uniformly random legal play.

* :func:`measure_aec`: the default wrapped ``president_env.envs.aec()``, played exactly like the
  PettingZoo anchor (``anchors/pettingzoo_texas_holdem.py``): ``for agent in env.agent_iter()``,
  ``env.last()``, a uniformly random legal action from ``obs["action_mask"]``, ``env.step``;
  ``env.reset(seed=seed)`` once, then ``env.reset()`` for every following game. Each step with
  a real action counts; the trailing ``step(None)`` calls that retire the terminated agents are
  timed but not counted.
* :func:`measure_vector`: ``VectorEnv(num_envs)`` with same-step auto-reset; one timed step =
  a random legal action per game from the returned mask (``Engine.sample_random``), then
  ``step`` (legality check, engine step, auto-reset, next masks and observations). Every game
  acts in every step, so a step counts ``num_envs`` player actions.

Both return ``{"name", "steps_per_s", "games_per_s", "steps_per_game"}`` like
:mod:`benchmarks.peers`. Usage: ``python benchmarks/bench_env.py [--seconds 5]``.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.peers import aec_random_games, result, timed_games  # noqa: E402
from president_env import VectorEnv, env  # noqa: E402
from president_env.cli import parse  # noqa: E402


def measure_aec(
    preset: str = "standard",
    seconds: float = 5.0,
    seed: int = 0,
    num_players: int = 4,
    warmup_games: int = 5,
) -> dict[str, Any]:
    """Steps/s and games/s of the wrapped AEC env (random legal play, the anchor's loop)."""
    e = env(preset=preset, num_players=num_players)
    try:
        steps, games, elapsed = timed_games(aec_random_games(e, seed), seconds, warmup_games)
    finally:
        e.close()
    return result(f"president aec env {preset} ({num_players} players)", steps, games, elapsed)


def measure_vector(
    preset: str = "standard",
    num_envs: int = 4096,
    seconds: float = 5.0,
    seed: int = 0,
    num_players: int = 4,
    threads: int | None = None,
) -> dict[str, Any]:
    """Steps/s and games/s of ``VectorEnv(num_envs)`` (random legal play, auto-reset) on
    ``threads`` threads (None: the engine's default)."""
    venv = VectorEnv(num_envs, preset=preset, seed=seed, num_players=num_players, threads=threads)
    rng = np.random.default_rng(seed)
    actions = np.zeros(num_envs, np.int64)
    _obs, mask, _info = venv.reset()
    for _ in range(20):  # warm-up (compiles or loads the kernels)
        venv.engine.sample_random(mask, rng, actions)
        _obs, mask, _rew, _term, _info = venv.step(actions)
    steps = games = 0
    start = time.perf_counter()
    while True:
        venv.engine.sample_random(mask, rng, actions)
        _obs, mask, _rew, term, _info = venv.step(actions)
        steps += num_envs
        games += int(np.count_nonzero(term))
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    return {
        "name": f"president vector env {preset} B={num_envs} ({num_players} players), "
        f"{venv.engine.threads} threads",
        "steps_per_s": steps / elapsed,
        "games_per_s": games / elapsed,
        "steps_per_game": steps / max(games, 1),
    }


@dataclass
class Args:
    seconds: float = 5.0
    """Timed seconds per figure."""
    presets: tuple[str, ...] = ("standard", "daifugo")
    """Presets, comma-separated."""
    batch: int = 4096
    """Games of the vector env."""


def main(argv: list[str] | None = None) -> None:
    args = parse(Args, argv)
    for preset in args.presets:
        for r in (
            measure_aec(preset, args.seconds),
            measure_vector(preset, args.batch, args.seconds),
        ):
            print(
                f"{r['name']:52s} {r['steps_per_s']:>12,.0f} steps/s "
                f"{r['games_per_s']:>10,.1f} games/s {r['steps_per_game']:>7.1f} steps/game",
                flush=True,
            )


if __name__ == "__main__":
    main()
