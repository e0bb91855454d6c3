"""Decision time of the Expert (:class:`agents.ExpertAgent`) at its default budget.

Hard plays every seat of ``games`` games of a preset (``observation="record"``); at every
decision of the play phase with a choice, seat 0's decision is also asked of the Expert (its
``act_batch`` on the observation and mask), one game at a time (``--batch 1``: an env's opponent) or all
the games waiting at once (a tournament's batched call). Printed: decisions timed, milliseconds
per decision (the mean; with ``--batch 1`` also the median and the 90th percentile of the calls),
and the Expert's rollouts per decision. The Expert searches on one thread.

    python -m benchmarks.bench_expert --preset standard --games 64 --batch 64

``--samples`` and ``--steps`` time another budget than the default (the Expert's own options).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents import ExpertAgent, HardAgent
from agents.expert import SAMPLES, STEPS
from president_env.core.engine import Engine
from president_env.core.rules import Rules


def measure(preset: str, games: int, batch: int, seed: int = 0, max_decisions: int = 400,
            samples: int = SAMPLES, steps: int = STEPS) -> dict[str, float]:
    """``{"decisions", "ms_per_decision", "ms_median", "ms_p90", "rollouts_per_decision"}``
    (see the module doc; the median and 90th percentile are of the calls, per decision)."""
    rules = Rules.preset(preset, observation="record")
    engine, hard = Engine(rules), HardAgent(rules)
    expert = ExpertAgent(rules, seed=seed, samples=samples, steps=steps)
    state = engine.init(np.arange(games, dtype=np.uint64) + 1000 * seed)
    timed, spent, calls = 0, 0.0, []
    while not state.terminated.all() and timed < max_decisions:
        obs, mask = engine.observe(state), engine.legal_action_mask(state)
        acts = hard.act_batch(obs, mask)
        ask = np.flatnonzero((state.current == 0) & (state.phase == 1) & (mask.sum(axis=1) > 1))
        for lo in range(0, len(ask), batch):
            rows = ask[lo : lo + batch]
            t0 = time.perf_counter()
            expert.act_batch(obs[rows], mask[rows])
            took = time.perf_counter() - t0
            spent += took
            calls.append(took / len(rows))
            timed += len(rows)
        engine.step_inplace(state, acts, check=False, where=~state.terminated)
    return {
        "decisions": float(timed),
        "ms_per_decision": 1000.0 * spent / max(timed, 1),
        "ms_median": 1000.0 * float(np.median(calls)) if calls else float("nan"),
        "ms_p90": 1000.0 * float(np.percentile(calls, 90)) if calls else float("nan"),
        "rollouts_per_decision": expert.rollouts / max(timed, 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_expert", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", default="standard")
    ap.add_argument("--games", type=int, default=64)
    ap.add_argument("--batch", type=int, default=64, help="decisions per call (1: one at a time)")
    ap.add_argument("--max-decisions", type=int, default=400)
    ap.add_argument("--samples", type=int, default=SAMPLES, help="deals sampled per decision")
    ap.add_argument("--steps", type=int, default=STEPS, help="belief steps per sampled deal")
    args = ap.parse_args(argv)
    if args.games < 1 or args.batch < 1:
        ap.error("--games and --batch must be at least 1")
    res = measure(args.preset, args.games, args.batch, max_decisions=args.max_decisions,
                  samples=args.samples, steps=args.steps)
    print(f"expert {args.preset} batch {args.batch} (samples {args.samples}, steps "
          f"{args.steps}): {res['decisions']:.0f} decisions, "
          f"{res['ms_per_decision']:.1f} ms per decision (median {res['ms_median']:.1f}, "
          f"90th percentile {res['ms_p90']:.1f} ms of the calls), "
          f"{res['rollouts_per_decision']:.0f} rollouts per decision", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
