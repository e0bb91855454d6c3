"""Benchmark a trained policy against the rule-based agents.

For each baseline (Random, Easy, Normal, Hard) the policy plays a duplicate tournament against
three copies of it (4-player games; in general ``num_players - 1`` copies), and the policy's
mean place (1 = first; 2.5 is the fair share with 4 players), first and last rates come with
95% intervals over deals (:func:`train.eval.tournament.evaluate_policy`).

    python -m train.evaluate policy --deals 2000          # the shipped default, by name
    python -m train.evaluate agents/pretrained/ppo.pt --deals 2000
    python -m train.evaluate runs/maskable_ppo/standard_p4_seed0/model.zip

The policy is a shipped policy's name (``policy``, ``ppo``: :mod:`agents.pretrained`), a checkpoint in the :mod:`agents.policy` format (``.pt``) or an sb3-contrib
``model.zip`` from ``train.maskable_ppo`` (:mod:`agents.sb3`), played under the rules it was
trained for; ``--preset`` (with ``--players`` and ``--rule``) names the rules for a model that
does not store them, or checks that the policy was trained for them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents import NAMED_AGENTS
from agents.checkpoints import load_checkpoint
from agents.pretrained import PRETRAINED, checkpoint_path
from president_env.cli import (
    REQUIRED,
    arg,
    input_file,
    non_negative,
    output_file,
    parse,
    positive,
    rule_options,
    user_errors,
)
from president_env.core.rules import Rules
from train.eval.report import policy_table
from train.eval.tournament import BASELINES, evaluate_policy


def policy_file(value: str) -> str | None:
    """A shipped policy's name or an existing file."""
    return None if value.strip().lower() in PRETRAINED else input_file(value)


@dataclass
class Args:
    checkpoint: str = arg(REQUIRED, policy_file)
    """A shipped policy's name (policy, ppo), a checkpoint (agents.policy format, .pt) or an
    SB3 model.zip."""
    deals: int = arg(2000, positive)
    """Duplicate deals against each baseline."""
    seed: int = arg(12345, non_negative)
    """Seed of the deals, the seatings and the baselines."""
    baselines: tuple[str, ...] = BASELINES
    """Baselines, comma-separated."""
    json: Path | None = arg(None, output_file)
    """Write the rows as JSON here (missing folders are made)."""
    preset: str | None = None
    """Rules to play under (default: the ones the policy stores)."""
    players: int = arg(4, positive)
    """Players at the table, with --preset."""
    extra: dict[str, Any] = rule_options()
    """Rule options overriding --preset."""

    def check(self) -> None:
        unknown = [b for b in self.baselines if b.strip().lower() not in NAMED_AGENTS]
        if unknown or not self.baselines:
            raise ValueError(f"--baselines {','.join(self.baselines)}: expected names from "
                             f"{sorted(NAMED_AGENTS)}")
        if self.extra and self.preset is None:
            raise ValueError("--rule needs --preset")
        self.rules()

    def rules(self) -> Rules | None:
        """The rules named by ``--preset`` (None: the policy's own)."""
        if self.preset is None:
            return None
        return Rules.preset(self.preset, num_players=self.players, **self.extra)


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    args = parse(Args, argv, prog="python -m train.evaluate")
    with user_errors():
        policy = load_checkpoint(checkpoint_path(args.checkpoint), args.rules())
    rows = evaluate_policy(policy, policy.rules, args.deals, args.seed, args.baselines)
    print(policy_table(rows, policy.rules.num_players))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(rows, indent=2))
    return rows


if __name__ == "__main__":
    main()
