"""Throughput of the bare batched engine under uniformly random legal play.

:func:`measure_engine`: one timed loop = legal_action_mask, a random legal action per game,
step (unchecked: the actions come from the mask), and a new seeded game wherever one ended
(auto-reset), four engine calls. :func:`measure_fused`: the same play in one call,
:meth:`Engine.play_random` (``steps`` actions per game and call, auto-reset). A step is one
player action in one game, as in the peers' figures. ``threads``: the engine's threads.

:func:`measure_advance` times the one-game path of the adapters instead: one
:meth:`Engine.advance` per action (play, next mask and observation in one compiled call).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from president_env.core.engine import PHASE_DONE, Engine
from president_env.core.rules import Rules
from president_env.testing.configs import all_variants_rules

ALL_VARIANTS = "all_variants"
"""Not a preset: ``daifugo_full`` with every further variant of RULES.md section 12 on too
(Western revolution, mixed and capped runs, the President's asks over two deals)."""


def bench_rules(preset: str, num_players: int | None = None) -> Rules:
    """The rules of a figure: a preset's, or :data:`ALL_VARIANTS`; ``None`` players: the
    preset's own number (4; 5 for ``uecda``, the only number it allows)."""
    if preset == ALL_VARIANTS:
        return all_variants_rules(num_players or 4)
    if num_players is None:
        return Rules.preset(preset)
    return Rules.preset(preset, num_players=num_players)


def measure_engine(
    preset: str,
    batch: int,
    seconds: float = 5.0,
    seed: int = 0,
    num_players: int | None = None,
    threads: int = 1,
) -> dict[str, Any]:
    """Steps/s and games/s of random legal games of ``preset`` at batch size ``batch``."""
    eng = Engine(bench_rules(preset, num_players), threads=threads)
    rng = np.random.default_rng(seed)
    state = eng.init(rng.integers(0, 2**62, batch))
    mask = np.zeros((batch, eng.num_actions), np.bool_)
    actions = np.zeros(batch, np.int64)
    # warm-up (compiles or loads the kernels, reset_where's too: loading it inside the timed
    # loop, at the first game to end, cost up to half of a 2 s figure)
    for _ in range(20):
        eng.legal_action_mask(state, mask)
        eng.sample_random(mask, rng, actions)
        eng.step_inplace(state, actions, check=False)
    eng.reset_where(state, np.zeros(batch, np.bool_), rng.integers(0, 2**62, batch))
    state = eng.init(rng.integers(0, 2**62, batch))
    steps = games = 0
    start = time.perf_counter()
    if batch == 1:
        phase = state.phase
        while time.perf_counter() - start < seconds:
            for _ in range(100):
                eng.legal_action_mask(state, mask)
                eng.sample_random(mask, rng, actions)
                eng.step_inplace(state, actions, check=False)
                steps += 1
                if phase[0] == PHASE_DONE:
                    games += 1
                    state = eng.init(rng.integers(0, 2**62, 1))
                    phase = state.phase
    else:
        while time.perf_counter() - start < seconds:
            eng.legal_action_mask(state, mask)
            eng.sample_random(mask, rng, actions)
            live = int(np.count_nonzero(state.phase != PHASE_DONE))
            eng.step_inplace(state, actions, check=False)
            steps += live
            done = state.phase == PHASE_DONE
            n_done = int(np.count_nonzero(done))
            if n_done:
                games += n_done
                eng.reset_where(state, done, rng.integers(0, 2**62, batch))
    elapsed = time.perf_counter() - start
    return {
        "name": f"president engine {preset} ({eng.rules.num_players} players) B={batch}, {threads} "
                f"threads, separate calls",
        "steps_per_s": steps / elapsed,
        "games_per_s": games / elapsed,
        "steps_per_game": steps / max(games, 1),
    }


def measure_fused(
    preset: str,
    batch: int,
    seconds: float = 5.0,
    seed: int = 0,
    num_players: int | None = None,
    threads: int = 1,
    steps: int = 64,
) -> dict[str, Any]:
    """Steps/s and games/s of :meth:`Engine.play_random` (``steps`` actions per game and
    call, auto-reset) of ``preset`` at batch size ``batch`` on ``threads`` threads."""
    eng = Engine(bench_rules(preset, num_players), threads=threads)
    rng = np.random.default_rng(seed)
    state = eng.init(rng.integers(0, 2**62, batch))
    eng.play_random(state, 4, rng)  # warm-up (compiles or loads the kernels)
    n_steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        played = eng.play_random(state, steps, rng)
        n_steps += played.steps
        games += played.games
    elapsed = time.perf_counter() - start
    return {
        "name": f"president engine {preset} ({eng.rules.num_players} players) B={batch}, {threads} "
                f"threads, play_random",
        "steps_per_s": n_steps / elapsed,
        "games_per_s": games / elapsed,
        "steps_per_game": n_steps / max(games, 1),
        "bytes_per_game": state_bytes(state) / batch,
    }


def state_bytes(state: Any) -> int:
    """Bytes of a :class:`State`'s arrays."""
    return sum(a.nbytes for a in state.arrays())


def measure_advance(
    preset: str, seconds: float = 5.0, seed: int = 0, num_players: int | None = None
) -> dict[str, Any]:
    """Steps/s and games/s of random legal games of ``preset``, one game at a time through
    :meth:`Engine.advance` (with the mask and observation of every next player)."""
    eng = Engine(bench_rules(preset, num_players))
    rng = np.random.default_rng(seed)
    mask = np.zeros(eng.num_actions, np.int8)
    obs = np.zeros(eng.obs_size, np.float32)
    row = mask.reshape(1, -1)
    action = np.zeros(1, np.int64)

    def play_game() -> int:
        state = eng.init(rng.integers(0, 2**62, 1))
        cur, n = eng.advance(state, -1, mask, obs), 0
        while cur >= 0:
            eng.sample_random(row, rng, action)  # type: ignore[arg-type]
            cur = eng.advance(state, int(action[0]), mask, obs)
            n += 1
        return n

    play_game()  # warm-up: compiles or loads the kernels
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += play_game()
        games += 1
    elapsed = time.perf_counter() - start
    return {
        "name": f"president engine {preset} ({eng.rules.num_players} players) B=1 advance",
        "steps_per_s": steps / elapsed,
        "games_per_s": games / elapsed,
        "steps_per_game": steps / max(games, 1),
    }


if __name__ == "__main__":
    for p in ("standard", "daifugo"):
        runs = (*(measure_engine(p, b, seconds=3) for b in (1, 4096)), measure_advance(p, 3),
                *(measure_fused(p, 4096, 3, threads=t) for t in (1, 2)))
        for r in runs:
            print(f"{r['name']:40s} {r['steps_per_s']:>12,.0f} steps/s {r['games_per_s']:>10,.0f} games/s")
