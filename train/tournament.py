"""Duplicate tournament between agents, with confidence intervals.

Every deal is replayed so that every agent plays every hand (``--seating``: ``shuffle`` draws a
new cyclic order of the agents per deal, ``rotate`` keeps the given order, ``all`` plays every
seating); statistics are per-deal means with 95% t intervals. Details:
:mod:`train.eval.tournament` (play) and :mod:`train.eval.stats` (statistics).

    python -m train.tournament --preset standard --players 4 \\
        --agents hard,normal,easy,random --deals 2000 --seed 0 --out results/standard

``--agents hard*4`` seats four Hard agents (named ``hard``, ``hard#2``, ...).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from president_env.cli import parse, rule_options
from president_env.core.rules import Rules
from train.eval.tournament import parse_agents, run_tournament


@dataclass
class Args:
    preset: str = "standard"
    """Rules preset."""
    players: int = 4
    """Players at the table (one agent per seat)."""
    agents: str = "hard,normal,easy,random"
    """Agents, comma-separated, one per seat; name*k repeats a name."""
    deals: int = 2000
    """Deals to play (each replayed in every seating of --seating)."""
    seed: int = 0
    """Seed of the deals, the seatings and the agents."""
    out: str | None = None
    """Folder for the CSV, JSON, table and plot."""
    batch_size: int = 1024
    """Games played at once."""
    duplicate: bool = True
    """Replay every deal so that every agent plays every hand (--no-duplicate: play each deal
    once, in a random seating)."""
    seating: Literal["rotate", "shuffle", "all"] = "shuffle"
    """How duplicate replays seat the agents."""
    progress: bool = True
    """Show a progress bar."""
    ratings: bool = True
    """Compute openskill ratings."""
    extra: dict[str, Any] = rule_options()
    """Override a rule option of the preset."""


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(Args, argv, prog="python -m train.tournament")
    try:
        rules = Rules.preset(args.preset, num_players=args.players, **args.extra)
        names = parse_agents(args.agents)
        res = run_tournament(
            {n: n for n in names}, rules, args.deals, seed=args.seed, duplicate=args.duplicate,
            seating=args.seating, batch_size=args.batch_size, progress=args.progress,
            ratings=args.ratings,
        )
    except (ValueError, TypeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(res.table())
    if args.out:
        paths = res.save(args.out)
        print("wrote " + ", ".join(str(p) for p in paths.values()), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
