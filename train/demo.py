"""The main job (``make demo``): a game on the table, a short training, a tournament, plots.

1. deals a 4-player ``standard`` game and shows the table and a few random legal plays;
2. trains a policy for ``--minutes`` on the CPU (imitation of the Hard agent as a warm start,
   then batched PPO against rule-based opponents), with a progress bar;
3. plays duplicate tournaments of that policy against three Random, Easy, Normal and Hard
   agents, and, when present, of the shipped pretrained policy, and prints the tables;
4. writes the learning curve (PNG), the tables (markdown, JSON) to ``--out``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agents import pretrained
from agents.policy import PolicyAgent
from president_env.cli import arg, non_negative, output_dir, parse, positive
from president_env.core.engine import Engine
from president_env.core.rules import Rules
from president_env.render import render_table
from train import ppo_pool
from train.eval.report import plot_learning_curve, policy_table
from train.eval.tournament import evaluate_policy

PRETRAINED = pretrained.path()  # the default, strongest shipped policy


@dataclass
class Args:
    minutes: float = arg(3.0, positive)
    """Training time."""
    deals: int = arg(500, positive)
    """Duplicate deals per tournament."""
    bc_decisions: int = arg(100_000, non_negative)
    """Imitation warm start size (decisions of the Hard agent)."""
    num_envs: int = arg(128, positive)
    """Games played at once in training."""
    seed: int = arg(0, non_negative)
    """Seed of the game shown, the training and the tournaments."""
    out: Path = arg(Path("results/demo"), output_dir)
    """Output folder: the run, the learning curve, the tables."""


def show_game(rules: Rules, seed: int, plays: int = 6) -> None:
    eng = Engine(rules)
    state = eng.init([seed])
    rng = np.random.default_rng(seed)
    print(render_table(rules, state))
    for _ in range(plays):
        mask = eng.legal_action_mask(state)
        a = eng.sample_random(mask, rng)
        print(f"\n> seat {int(state.current[0])} plays: {eng.layout.name(int(a[0]))}")
        state = eng.step(state, a)
    print()
    print(render_table(rules, state))


def main(argv: list[str] | None = None) -> None:
    args = parse(Args, argv, prog="python -m train.demo")
    args.out.mkdir(parents=True, exist_ok=True)
    rules = Rules.preset("standard", num_players=4)

    print("=" * 78 + "\n1. A game of President (4 players, standard rules)\n" + "=" * 78)
    show_game(rules, args.seed)

    print("=" * 78 + f"\n2. Training a policy for {args.minutes:g} minutes on the CPU\n" + "=" * 78)
    t0 = time.perf_counter()
    summary = ppo_pool.train(
        ppo_pool.Args(
            preset="standard",
            total_steps=10**9,
            max_seconds=args.minutes * 60,
            bc_decisions=args.bc_decisions,
            num_envs=args.num_envs,
            rollout=64,
            seed=args.seed,
            out=str(args.out / "runs"),
            threads=1,
        )
    )
    print(
        f"trained {summary['steps']:,} learner steps in {time.perf_counter() - t0:.0f} s "
        f"({summary['steps_per_s']:,.0f} steps/s); checkpoint {summary['checkpoint']}"
    )
    curve = plot_learning_curve(
        Path(summary["run_dir"]) / "metrics.csv", args.out / "learning_curve.png",
        "Demo: PPO after imitation of Hard, 4-player standard",
    )
    print(f"learning curve: {curve}")

    print("=" * 78 + f"\n3. Tournaments ({args.deals} duplicate deals each)\n" + "=" * 78)
    results = {}
    candidates = [("demo policy", Path(summary["checkpoint"]))]
    if PRETRAINED.is_file():
        candidates.append(("shipped pretrained policy", PRETRAINED))
    for label, path in candidates:
        policy = PolicyAgent.load(path, rules)  # a history policy gets a history table
        rows = evaluate_policy(policy, rules, args.deals, seed=args.seed + 1, progress=True)
        results[label] = rows
        print(f"\n{label} ({path}):\n")
        print(policy_table(rows, rules.num_players))
    (args.out / "tournaments.json").write_text(json.dumps(results, indent=2))
    md = "\n\n".join(f"## {k}\n\n{policy_table(v, rules.num_players)}" for k, v in results.items())
    (args.out / "tournaments.md").write_text(md + "\n")
    print(f"\nwritten: {args.out}/tournaments.md, tournaments.json, learning_curve.png")


if __name__ == "__main__":
    main()
