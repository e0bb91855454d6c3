"""Throughput benchmark: the President engine, AEC env and vector env beside peer environments.

Every figure is uniformly random legal play of whole games, measured in this one run, so the
ratios compare like with like on the same (noisy, shared) machine. Peers are measured when
installed (``make bench`` makes a venv with RLCard, OpenSpiel and PettingZoo's classic envs).

    python benchmarks/bench.py [--seconds 5] [--repeats 1] [--json out.json]
"""

from __future__ import annotations

import json
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_engine import measure_engine  # noqa: E402
from president_env.cli import parse  # noqa: E402
from president_env.core.rules import PRESETS  # noqa: E402

Result = dict[str, Any]


@dataclass
class Args:
    seconds: float = 5.0
    """Timed seconds per figure."""
    repeats: int = 1
    """Runs per figure (the median is reported)."""
    presets: tuple[str, ...] = tuple(PRESETS)
    """Presets of the engine figures, comma-separated."""
    batch: int = 4096
    """Batch size of the batched figures."""
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


def jobs(args: Args) -> list[Job]:
    """The figures to measure, in order: ``(key, function)``."""
    sec = args.seconds
    out: list[Job] = []
    for preset in args.presets:
        for b in (1, args.batch):
            out.append((f"engine/{preset}/B={b}", partial(measure_engine, preset, b, sec)))
    from benchmarks.bench_env import measure_aec, measure_vector

    for preset in ("standard", "daifugo"):
        out.append((f"aec/{preset}", partial(measure_aec, preset, sec)))
        out.append(
            (f"vector/{preset}/B={args.batch}", partial(measure_vector, preset, args.batch, sec))
        )
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


def ratios(b: int) -> list[tuple[str, str, str, str]]:
    """``(label, numerator key, denominator key, target)`` of the ratios printed at the end."""
    return [
        (
            f"engine standard B={b} / OpenSpiel dou_dizhu",
            f"engine/standard/B={b}",
            "peer/openspiel_dou_dizhu",
            ">= 5x",
        ),
        (
            f"engine daifugo B={b} / OpenSpiel dou_dizhu",
            f"engine/daifugo/B={b}",
            "peer/openspiel_dou_dizhu",
            ">= 2x",
        ),
        (
            "engine standard B=1 / RLCard doudizhu",
            "engine/standard/B=1",
            "peer/rlcard_doudizhu",
            ">= 10x",
        ),
        (
            "AEC standard / PettingZoo texas_holdem_v4",
            "aec/standard",
            "peer/pettingzoo_texas_holdem_v4",
            ">= 3x",
        ),
        (
            f"vector standard / engine standard (B={b})",
            f"vector/standard/B={b}",
            f"engine/standard/B={b}",
            ">= 0.5x",
        ),
    ]


def main(argv: list[str] | None = None) -> dict[str, Result]:
    args = parse(Args, argv)
    results: dict[str, Result] = {}
    print(f"{'figure':44s} {'steps/s':>12s} {'games/s':>10s} {'steps/game':>10s}", flush=True)
    for key, fn in jobs(args):
        r = _median(fn, args.repeats)
        if r is None:
            print(f"{key:44s} {'(not installed)':>12s}", flush=True)
            continue
        results[key] = r
        print(
            f"{key:44s} {r['steps_per_s']:>12,.0f} {r['games_per_s']:>10,.1f} "
            f"{r['steps_per_game']:>10.1f}",
            flush=True,
        )

    def ratio(a: str, b: str) -> str:
        if a in results and b in results:
            return f"{results[a]['steps_per_s'] / results[b]['steps_per_s']:.1f}x"
        return "n/a"

    print("\nratios (steps/s, same run):")
    for label, num, den, target in ratios(args.batch):
        print(f"  {label:48s} {ratio(num, den):>8s}   target {target}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
