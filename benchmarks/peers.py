"""Throughput of peer card-game environments, measured as the shared anchors measure them.

Each function plays whole games to the end with uniformly random **legal** actions on a fixed
seed, runs a few untimed warm-up games, then times whole games until ``seconds`` have passed.
The loops are those of the anchor scripts (``anchors/openspiel_dou_dizhu.py``,
``anchors/rlcard_doudizhu.py``, ``anchors/pettingzoo_texas_holdem.py`` in the project's shared
folder), so the figures here can be compared with the anchors' table:

* one step is one player action;
* OpenSpiel: the chance actions of the deal run inside the timed loop but are not counted;
  ``with_obs=True`` also calls ``state.observation_tensor()`` before every player action;
* RLCard: ``env.step`` always encodes the next player's observation (no bare-engine mode);
* PettingZoo: the default wrapped ``env()``, the standard AEC loop with ``env.last()``; the
  trailing ``env.step(None)`` calls that retire finished agents are timed but not counted.

Every function returns ``None`` when its peer is not importable, so the benchmark runs in any
environment; ``make bench`` builds ``.venv-bench`` with all of them.

Usage: ``python benchmarks/peers.py [--seconds 10] [--seed 0]`` prints one line per peer.
"""

from __future__ import annotations

import importlib
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from president_env.cli import parse  # noqa: E402

PeerResult = dict[str, Any]
"""``{"name": str, "steps_per_s": float, "games_per_s": float, "steps_per_game": float}``."""


def timed_games(
    play_one: Callable[[], int], seconds: float, warmup_games: int
) -> tuple[int, int, float]:
    """Warm up, then play whole games until ``seconds`` have passed: (steps, games, elapsed)."""
    for _ in range(warmup_games):
        play_one()
    steps = games = 0
    t0 = time.perf_counter()
    while True:
        steps += play_one()
        games += 1
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            return steps, games, elapsed


def result(name: str, steps: int, games: int, elapsed: float) -> PeerResult:
    return {
        "name": name,
        "steps_per_s": steps / elapsed,
        "games_per_s": games / elapsed,
        "steps_per_game": steps / games,
    }


def aec_random_games(env: Any, seed: int) -> Callable[[], int]:
    """A function that plays one whole game of a PettingZoo AEC ``env`` with uniformly random
    legal actions and returns its counted steps: the anchors' loop (``reset(seed=seed)`` once,
    then ``reset()``; ``agent_iter``, ``last``, ``step``; ``step(None)`` calls not counted)."""
    import numpy as np

    env.reset(seed=seed)
    rng = random.Random(seed)
    first = [True]

    def play_one() -> int:
        if first[0]:
            first[0] = False
        else:
            env.reset()
        n = 0
        for _agent in env.agent_iter():
            obs, _rew, term, trunc, _info = env.last()
            action: int | None
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.randrange(len(legal))])
                n += 1
            env.step(action)
        return n

    return play_one


def measure_openspiel_dou_dizhu(
    seconds: float = 10.0, seed: int = 0, with_obs: bool = False
) -> PeerResult | None:
    """OpenSpiel (C++ engine) ``dou_dizhu``: ``legal_actions`` + ``apply_action`` per step.

    With ``with_obs``, also ``observation_tensor()`` (a Python list of floats) per step.
    """
    try:
        import pyspiel
    except ImportError:
        return None
    game: Any = pyspiel.load_game("dou_dizhu")
    rng = random.Random(seed)

    def play_one() -> int:
        s: Any = game.new_initial_state()
        n = 0
        while not s.is_terminal():
            if s.is_chance_node():
                outs = s.chance_outcomes()
                acts = [o for o, _ in outs]
                s.apply_action(rng.choices(acts, [p for _, p in outs])[0])
            else:
                if with_obs:
                    s.observation_tensor()
                legal = s.legal_actions()
                s.apply_action(legal[rng.randrange(len(legal))])
                n += 1
        s.returns()
        return n

    steps, games, elapsed = timed_games(play_one, seconds, warmup_games=3)
    name = "openspiel dou_dizhu" + (" + observation_tensor" if with_obs else "")
    return result(name, steps, games, elapsed)


def measure_rlcard_doudizhu(seconds: float = 10.0, seed: int = 0) -> PeerResult | None:
    """RLCard ``doudizhu``: ``env.step`` with its own observation encoding per step."""
    try:
        import rlcard
    except ImportError:
        return None
    env: Any = rlcard.make("doudizhu", config={"seed": seed})
    rng = random.Random(seed)

    def play_one() -> int:
        state, _ = env.reset()
        n = 0
        while not env.is_over():
            legal = list(state["legal_actions"].keys())
            state, _ = env.step(legal[rng.randrange(len(legal))])
            n += 1
        env.get_payoffs()
        return n

    steps, games, elapsed = timed_games(play_one, seconds, warmup_games=3)
    return result("rlcard doudizhu", steps, games, elapsed)


def measure_pettingzoo_texas_holdem(seconds: float = 10.0, seed: int = 0) -> PeerResult | None:
    """PettingZoo ``texas_holdem_v4`` (AEC, default wrappers): the standard ``agent_iter`` loop."""
    try:
        mod: Any = importlib.import_module("pettingzoo.classic.texas_holdem_v4")
    except ImportError:
        return None
    env: Any = mod.env()
    play_one = aec_random_games(env, seed)
    try:
        steps, games, elapsed = timed_games(play_one, seconds, warmup_games=5)
    finally:
        env.close()
    return result("pettingzoo texas_holdem_v4", steps, games, elapsed)


def measure_all(seconds: float = 10.0, seed: int = 0) -> list[PeerResult]:
    """Every peer that is importable, one after the other (OpenSpiel with and without obs)."""
    runs: list[Callable[[], PeerResult | None]] = [
        lambda: measure_openspiel_dou_dizhu(seconds, seed),
        lambda: measure_openspiel_dou_dizhu(seconds, seed, with_obs=True),
        lambda: measure_rlcard_doudizhu(seconds, seed),
        lambda: measure_pettingzoo_texas_holdem(seconds, seed),
    ]
    return [r for r in (run() for run in runs) if r is not None]


@dataclass
class Args:
    seconds: float = 10.0
    """Timed seconds per peer."""
    seed: int = 0
    """Seed of the random play."""


def main(argv: list[str] | None = None) -> None:
    a = parse(Args, argv)
    results = measure_all(a.seconds, a.seed)
    if not results:
        print("no peer importable: run `make bench` (it installs them in .venv-bench)")
    for r in results:
        print(
            f"{r['name']:<42} steps/s={r['steps_per_s']:>9.0f} "
            f"games/s={r['games_per_s']:>8.1f} steps/game={r['steps_per_game']:.1f}"
        )


if __name__ == "__main__":
    main()
