"""Throughput benchmark: the President engine, AEC env and vector env beside peer environments.

Every figure is uniformly random legal play of whole games, measured in this one run, so the
ratios compare like with like on the same (noisy, shared) machine. Peers are measured when
installed (``make bench`` makes a venv with RLCard, OpenSpiel and PettingZoo's classic envs).

    python benchmarks/bench.py [--seconds 5] [--repeats 1] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_engine import measure_engine  # noqa: E402
from president_env.core.rules import PRESETS  # noqa: E402

Result = dict[str, Any]


def _median(fn: Callable[[], Result | None], repeats: int) -> Result | None:
    runs = [r for r in (fn() for _ in range(repeats)) if r is not None]
    if not runs:
        return None
    out = dict(runs[0])
    for key in ("steps_per_s", "games_per_s"):
        out[key] = statistics.median(r[key] for r in runs)
    return out


def main(argv: list[str] | None = None) -> dict[str, Result]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--seconds", type=float, default=5.0, help="timed seconds per figure")
    ap.add_argument("--repeats", type=int, default=1, help="runs per figure (median reported)")
    ap.add_argument("--presets", default=",".join(PRESETS), help="comma-separated presets")
    ap.add_argument("--batch", type=int, default=4096, help="batch size of the batched figures")
    ap.add_argument("--no-peers", action="store_true", help="skip the peer environments")
    ap.add_argument("--json", type=Path, help="write the figures as JSON here")
    args = ap.parse_args(argv)
    sec, rep = args.seconds, args.repeats
    jobs: list[tuple[str, Callable[[], Result | None]]] = []
    for preset in args.presets.split(","):
        for b in (1, args.batch):
            jobs.append((f"engine/{preset}/B={b}", partial(measure_engine, preset, b, sec)))
    from benchmarks.bench_env import measure_aec, measure_vector

    for preset in ("standard", "daifugo"):
        jobs.append((f"aec/{preset}", partial(measure_aec, preset, sec)))
        jobs.append(
            (f"vector/{preset}/B={args.batch}", partial(measure_vector, preset, args.batch, sec))
        )
    if not args.no_peers:
        from benchmarks import peers

        jobs += [
            ("peer/openspiel_dou_dizhu", lambda: peers.measure_openspiel_dou_dizhu(sec, 0)),
            ("peer/rlcard_doudizhu", lambda: peers.measure_rlcard_doudizhu(sec, 0)),
            (
                "peer/pettingzoo_texas_holdem_v4",
                lambda: peers.measure_pettingzoo_texas_holdem(sec, 0),
            ),
        ]
    results: dict[str, Result] = {}
    print(f"{'figure':44s} {'steps/s':>12s} {'games/s':>10s} {'steps/game':>10s}", flush=True)
    for key, fn in jobs:
        r = _median(fn, rep)
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

    b = args.batch
    print("\nratios (steps/s, same run):")
    for label, num, den, target in (
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
    ):
        print(f"  {label:48s} {ratio(num, den):>8s}   target {target}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
