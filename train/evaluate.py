"""Benchmark a trained policy against the rule-based agents.

For each baseline (Random, Easy, Normal, Hard) the policy plays a duplicate tournament against
three copies of it (4-player games; in general ``num_players - 1`` copies), and the policy's
mean place (1 = first; 2.5 is the fair share with 4 players), first and last rates come with
95% intervals over deals.

    python -m train.evaluate agents/pretrained/standard_4p.pt --deals 2000
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from agents.policy import PolicyAgent
from president_env.core.rules import Rules
from train.tournament import run_tournament

BASELINES = ("random", "easy", "normal", "hard")


def evaluate_policy(
    policy: PolicyAgent,
    rules: Rules,
    num_deals: int,
    seed: int = 0,
    baselines: tuple[str, ...] = BASELINES,
    progress: bool = True,
    batch_size: int = 1024,
) -> list[dict[str, Any]]:
    """One row per baseline: the policy's statistics against ``num_players - 1`` copies of it."""
    rows = []
    for name in baselines:
        agents: dict[str, Any] = {"policy": policy}
        for k in range(1, rules.num_players):
            agents[f"{name}_{k}"] = name
        res = run_tournament(
            agents, rules, num_deals, seed=seed, progress=progress, ratings=False,
            batch_size=batch_size,
        )
        s = res.summary
        rows.append(
            {
                "opponents": f"{rules.num_players - 1} x {name}",
                "deals": num_deals,
                "games": res.games,
                "mean_place": float(s.mean_place[0]),
                "mean_place_lo": float(s.mean_place_lo[0]),
                "mean_place_hi": float(s.mean_place_hi[0]),
                "first_rate": float(s.first_rate[0]),
                "last_rate": float(s.last_rate[0]),
                "points": float(s.points[0]),
            }
        )
    return rows


def table(rows: list[dict[str, Any]], num_players: int) -> str:
    fair = (num_players + 1) / 2
    lines = [
        f"| policy vs | deals (games) | mean place, 95% CI (fair share {fair:g}) | first % | last % "
        "| points / deal |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['opponents']} | {r['deals']} ({r['games']}) | {r['mean_place']:.3f} "
            f"[{r['mean_place_lo']:.3f}, {r['mean_place_hi']:.3f}] | {100 * r['first_rate']:.1f} "
            f"| {100 * r['last_rate']:.1f} | {r['points']:.3f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("checkpoint", type=Path)
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=12345)
    ap.add_argument("--baselines", default=",".join(BASELINES))
    ap.add_argument("--json", type=Path, help="write the rows as JSON here")
    args = ap.parse_args(argv)
    policy = PolicyAgent.load(args.checkpoint)
    rows = evaluate_policy(
        policy, policy.rules, args.deals, args.seed, tuple(args.baselines.split(","))
    )
    print(table(rows, policy.rules.num_players))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return rows


if __name__ == "__main__":
    main()
