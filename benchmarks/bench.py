"""Throughput benchmark: the President engine, AEC env and vector env beside peer environments.

Every figure is uniformly random legal play of whole games, measured in this one run, so the
ratios compare like with like on the same (noisy, shared) machine. Peers are measured when
installed (``make bench`` makes a venv with RLCard, OpenSpiel and PettingZoo's classic envs).

    python benchmarks/bench.py [--seconds 5] [--repeats 1] [--threads 1,2] [--contention]
                               [--json out.json]

Engine figures per preset: ``B=1`` (one game, separate calls), ``B=4096`` with separate calls
(mask, sample, step, reset: ``calls``) and in one call (:meth:`Engine.play_random`:
``fused``), each at every thread count of ``--threads``. ``--contention`` adds the ``standard``
fused figures with a CPU-bound process (``while True: pass``) running beside them, to show that
two threads are not slower than one when another job holds a core.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_engine import ALL_VARIANTS, measure_engine, measure_fused  # noqa: E402
from president_env.cli import parse  # noqa: E402
from president_env.core.rules import PRESETS  # noqa: E402

Result = dict[str, Any]


@dataclass
class Args:
    seconds: float = 5.0
    """Timed seconds per figure."""
    repeats: int = 1
    """Runs per figure (the median is reported)."""
    presets: tuple[str, ...] = (*PRESETS, ALL_VARIANTS)
    """Presets of the engine figures, comma-separated, each at its default number of players (4;
    uecda 5) (all_variants: daifugo_full with every further variant on)."""
    batch: int = 4096
    """Batch size of the batched figures."""
    threads: tuple[int, ...] = (1, 2)
    """Thread counts of the batched engine and vector env figures, comma-separated."""
    contention: bool = False
    """Also measure the fused engine with a busy process on another core."""
    peers: bool = True
    """Measure the peer environments (--no-peers skips them)."""
    json: Path | None = None
    """Write the figures as JSON here."""


def _median(fn: Callable[[], Result | None], repeats: int) -> Result | None:
    runs = [r for r in (fn() for _ in range(repeats)) if r is not None]
    if not runs:
        return None
    out = dict(runs[0])
    for key in ("steps_per_s", "games_per_s"):
        out[key] = statistics.median(r[key] for r in runs)
    return out


Job = tuple[str, Callable[[], Result | None]]
Ratio = tuple[str, str, str, str]


def jobs(args: Args) -> list[Job]:
    """The figures to measure, in order: ``(key, function)``."""
    sec, b = args.seconds, args.batch
    out: list[Job] = []
    for preset in args.presets:
        out.append((f"engine/{preset}/B=1", partial(measure_engine, preset, 1, sec)))
        for t in args.threads:
            out.append((f"engine/{preset}/B={b}/calls/t={t}",
                        partial(measure_engine, preset, b, sec, threads=t)))
            out.append((f"engine/{preset}/B={b}/fused/t={t}",
                        partial(measure_fused, preset, b, sec, threads=t)))
    if args.contention:
        for t in args.threads:
            out.append((f"contention/engine/standard/B={b}/fused/t={t}",
                        partial(_busy, partial(measure_fused, "standard", b, sec, threads=t))))
    from benchmarks.bench_env import measure_aec, measure_vector

    for preset in ("standard", "daifugo"):
        out.append((f"aec/{preset}", partial(measure_aec, preset, sec)))
        for t in args.threads:
            out.append((f"vector/{preset}/B={b}/t={t}",
                        partial(measure_vector, preset, b, sec, threads=t)))
    if args.peers:
        from benchmarks import peers

        out += [
            ("peer/openspiel_dou_dizhu", lambda: peers.measure_openspiel_dou_dizhu(sec, 0)),
            ("peer/rlcard_doudizhu", lambda: peers.measure_rlcard_doudizhu(sec, 0)),
            (
                "peer/pettingzoo_texas_holdem_v4",
                lambda: peers.measure_pettingzoo_texas_holdem(sec, 0),
            ),
        ]
    return out


def _busy(fn: Callable[[], Result]) -> Result:
    """``fn()`` while a CPU-bound process runs (started first, stopped after)."""
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.5)
        return fn()
    finally:
        busy.kill()
        busy.wait()


def ratios(b: int, threads: tuple[int, ...], presets: tuple[str, ...]) -> list[Ratio]:
    """``(label, numerator key, denominator key, target)`` of the ratios printed at the end."""
    os_key = "peer/openspiel_dou_dizhu"
    out: list[Ratio] = []
    for t in threads:
        target = {1: ">= 15x", 2: ">= 25x"}.get(t, "")
        for preset in presets:
            out.append((f"engine {preset} B={b} fused t={t} / OpenSpiel dou_dizhu",
                        f"engine/{preset}/B={b}/fused/t={t}", os_key,
                        target if preset == "standard" else ""))
    for preset in presets:
        for t in threads[1:]:
            out.append((f"engine {preset} fused: t={t} / t={threads[0]}",
                        f"engine/{preset}/B={b}/fused/t={t}",
                        f"engine/{preset}/B={b}/fused/t={threads[0]}", ""))
        out.append((f"engine {preset} t={threads[0]}: fused / calls",
                    f"engine/{preset}/B={b}/fused/t={threads[0]}",
                    f"engine/{preset}/B={b}/calls/t={threads[0]}", ""))
    for t in threads[1:]:
        out.append((f"contention: engine standard fused t={t} / t={threads[0]}",
                    f"contention/engine/standard/B={b}/fused/t={t}",
                    f"contention/engine/standard/B={b}/fused/t={threads[0]}", ">= 1x"))
    out += [
        ("engine standard B=1 / RLCard doudizhu", "engine/standard/B=1", "peer/rlcard_doudizhu",
         ">= 10x"),
        ("AEC standard / PettingZoo texas_holdem_v4", "aec/standard",
         "peer/pettingzoo_texas_holdem_v4", ">= 3x"),
    ]
    for preset in ("standard", "daifugo"):  # the env's step against the bare one-game engine
        out.append((f"AEC {preset} / engine {preset} B=1", f"aec/{preset}",
                    f"engine/{preset}/B=1", ">= 0.9x" if preset == "standard" else ""))
    for t in threads:
        out.append((f"vector standard / engine standard calls (B={b}, t={t})",
                    f"vector/standard/B={b}/t={t}", f"engine/standard/B={b}/calls/t={t}",
                    ">= 0.5x"))
    return out


def main(argv: list[str] | None = None) -> dict[str, Result]:
    args = parse(Args, argv)
    results: dict[str, Result] = {}
    print(f"{'figure':48s} {'steps/s':>12s} {'games/s':>10s} {'steps/game':>10s}", flush=True)
    for key, fn in jobs(args):
        r = _median(fn, args.repeats)
        if r is None:
            print(f"{key:48s} {'(not installed)':>12s}", flush=True)
            continue
        results[key] = r
        print(
            f"{key:48s} {r['steps_per_s']:>12,.0f} {r['games_per_s']:>10,.1f} "
            f"{r['steps_per_game']:>10.1f}",
            flush=True,
        )

    def ratio(a: str, b: str) -> str:
        if a in results and b in results:
            x = results[a]["steps_per_s"] / results[b]["steps_per_s"]
            return f"{x:.2f}x" if x < 10 else f"{x:.1f}x"
        return "n/a"

    print("\nratios (steps/s, same run):")
    for label, num, den, target in ratios(args.batch, args.threads, args.presets):
        if num in results and den in results:
            goal = f"   target {target}" if target else ""
            print(f"  {label:56s} {ratio(num, den):>8s}{goal}")
    for key, r in results.items():
        if "bytes_per_game" in r and key.endswith("/t=1") and key.startswith("engine/"):
            print(f"  memory per game {key.split('/')[1]:12s} {r['bytes_per_game']:>8.0f} bytes")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
