"""Duplicate tournament between agents, with confidence intervals.

Every deal is replayed so that every agent plays every hand (``--seating``: ``shuffle`` draws a
new cyclic order of the agents per deal, ``rotate`` keeps the given order, ``all`` plays every
seating); statistics are per-deal means with 95% t intervals. Details:
:mod:`train.eval.tournament` (play) and :mod:`train.eval.stats` (statistics).

    python -m train.tournament --preset standard --players 4 \\
        --agents hard,normal,easy,random --deals 2000 --seed 0 --out results/standard

``--agents hard*4`` seats four Hard agents (named ``hard``, ``hard#2``, ...). A seat may be a
trained policy: ``--agents hard*3,runs/a/policy.pt`` or an sb3-contrib ``model.zip`` from
``train.maskable_ppo`` (:func:`agents.load_agent`); it must have been trained for the rules of
the table. Every argument is checked before the first game (one line ``error: ...`` and exit
code 2).

``--record 20 --record-select worst:random`` keeps the 20 games that ``random`` finished lowest
as game records (``docs/records.md``) in ``--record-dir`` (default ``OUT/records``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agents import NAMED_AGENTS, base_spec, is_checkpoint_spec
from president_env.cli import arg, non_negative, output_dir, parse, positive, rule_options
from president_env.core.rules import Rules
from train.eval.recording import parse_selection, save_records
from train.eval.tournament import parse_agents, run_tournament


@dataclass
class Args:
    preset: str = "standard"
    """Rules preset."""
    players: int = arg(4, positive)
    """Players at the table (one agent per seat)."""
    agents: str = "hard,normal,easy,random"
    """Agents, comma-separated, one per seat: built-in names or checkpoint paths (.pt or an SB3
    model.zip); name*k repeats one."""
    deals: int = arg(2000, positive)
    """Deals to play (each replayed in every seating of --seating)."""
    seed: int = arg(0, non_negative)
    """Seed of the deals, the seatings and the agents."""
    out: str | None = arg(None, output_dir)
    """Folder for the CSV, JSON, table and plot (made if missing)."""
    batch_size: int = arg(1024, positive)
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
    record: int = arg(0, non_negative)
    """Keep this many games as game records (JSON, see docs/records.md)."""
    record_select: str = "first"
    """Which games --record keeps: first, worst:NAME (the games agent NAME finished lowest) or
    best:NAME."""
    record_dir: str | None = None
    """Folder for the game records (default: OUT/records, or ./records without --out)."""
    extra: dict[str, Any] = rule_options()
    """Override a rule option of the preset."""

    def check(self) -> None:
        """The rules, one known agent or existing checkpoint file per seat."""
        rules = Rules.preset(self.preset, num_players=self.players, **self.extra)
        names = parse_agents(self.agents)
        if len(names) != rules.num_players:
            raise ValueError(
                f"--agents {self.agents}: {len(names)} agents for {rules.num_players} seats; "
                f"give exactly one agent per seat (e.g. --agents hard*{rules.num_players})"
            )
        for name in names:
            spec = base_spec(name)
            if is_checkpoint_spec(spec) and not Path(spec).is_file():
                raise ValueError(f"--agents: no checkpoint file at {spec}")
            if not is_checkpoint_spec(spec) and spec not in NAMED_AGENTS:
                raise ValueError(
                    f"--agents: unknown agent {spec!r}; agents are {sorted(NAMED_AGENTS)} or a "
                    f"checkpoint path (.pt or an SB3 model.zip)"
                )
        agent = parse_selection(self.record_select).agent
        if agent is not None and agent not in names:
            raise ValueError(f"--record-select: no agent {agent!r} at the table; agents: {names}")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(Args, argv, prog="python -m train.tournament")
    try:
        rules = Rules.preset(args.preset, num_players=args.players, **args.extra)
        names = parse_agents(args.agents)
        res = run_tournament(
            {n: n for n in names}, rules, args.deals, seed=args.seed, duplicate=args.duplicate,
            seating=args.seating, batch_size=args.batch_size, progress=args.progress,
            ratings=args.ratings, record=args.record, record_select=args.record_select,
        )
    except (ValueError, TypeError) as e:  # e.g. a checkpoint trained for other rules
        print(f"error: {' '.join(str(e).split())}", file=sys.stderr)
        return 2
    print(res.table())
    if args.out:
        paths = res.save(args.out)
        print("wrote " + ", ".join(str(p) for p in paths.values()), file=sys.stderr)
    if res.records:
        folder = Path(args.record_dir or Path(args.out or ".") / "records")
        save_records(res.records, folder)
        print(f"wrote {len(res.records)} game records to {folder}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
