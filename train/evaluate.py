"""Benchmark a trained policy against the rule-based agents.

For each baseline (Random, Easy, Normal, Hard) the policy plays a duplicate tournament against
three copies of it (4-player games; in general ``num_players - 1`` copies), and the policy's
mean place (1 = first; 2.5 is the fair share with 4 players), first and last rates come with
95% intervals over deals (:func:`train.eval.tournament.evaluate_policy`).

    python -m train.evaluate agents/pretrained/standard_4p.pt --deals 2000
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.policy import PolicyAgent
from president_env.cli import parse
from train.eval.report import policy_table
from train.eval.tournament import BASELINES, evaluate_policy


@dataclass
class Args:
    checkpoint: Path
    """Policy checkpoint (agents.policy format)."""
    deals: int = 2000
    """Duplicate deals against each baseline."""
    seed: int = 12345
    """Seed of the deals, the seatings and the baselines."""
    baselines: tuple[str, ...] = BASELINES
    """Baselines, comma-separated."""
    json: Path | None = None
    """Write the rows as JSON here."""


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    args = parse(Args, argv)
    policy = PolicyAgent.load(args.checkpoint)
    rows = evaluate_policy(policy, policy.rules, args.deals, args.seed, args.baselines)
    print(policy_table(rows, policy.rules.num_players))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return rows


if __name__ == "__main__":
    main()
