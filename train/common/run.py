"""A training run's folder and logs: ``args.txt``, ``metrics.csv``, TensorBoard, checkpoints.

``Run(args, columns, total_steps, desc)`` makes ``<out>/<preset>_p<players>_seed<seed>/``,
writes ``args.txt`` and the header of ``metrics.csv`` and opens a TensorBoard writer (when
``args.tensorboard`` and TensorBoard is installed) and a progress bar. Then, once per update,
:meth:`Run.log` writes a row of metrics (a CSV row, TensorBoard scalars: ``eval/<name>`` for
names starting with ``eval``, ``train/<name>`` otherwise, NaN left out),
:meth:`Run.checkpoint` saves ``policy_<steps>.pt`` every ``args.checkpoint_every`` updates, and
:meth:`Run.finish` saves ``policy.pt`` (its metadata holds the last metrics and the arguments)
and closes everything. Checkpoints are in the :mod:`agents.policy` format.

The progress bar counts steps up to the run's last update (``total_steps``, or fewer with
``max_steps``); a run bounded by time (``max_seconds > 0``, e.g. ``total_steps=10**9,
max_seconds=180``) counts seconds instead, showing the time elapsed and left, with the steps
so far beside it.
"""

from __future__ import annotations

import csv
import dataclasses
import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from agents.policy import PolicyNet, save_policy
from president_env.core.rules import Rules
from train.common.args import PPOArgs


def run_dir(args: PPOArgs) -> Path:
    """``<out>/<preset>_p<players>_seed<seed>``."""
    return Path(args.out) / f"{args.preset}_p{args.num_players}_seed{args.seed}"


class Run:
    """The folder, metrics, TensorBoard writer, checkpoints and progress bar of one run."""

    def __init__(self, args: PPOArgs, columns: Sequence[str], total_steps: int, desc: str) -> None:
        self.args = args
        self.columns = list(columns)
        self.dir = run_dir(args)
        self.dir.mkdir(parents=True, exist_ok=True)
        (self.dir / "args.txt").write_text(repr(args))
        self.writer = _tensorboard(self.dir / "tb") if args.tensorboard else None
        self._csv = (self.dir / "metrics.csv").open("w", newline="")
        self._rows = csv.writer(self._csv)
        self._rows.writerow(self.columns)
        self.timed = args.max_seconds > 0
        self.bar = _bar(args, total_steps, desc)
        self.steps = 0
        self._start = time.perf_counter()

    def log(self, metrics: dict[str, Any], new_steps: int, **postfix: str) -> None:
        """One update: a row of ``metrics.csv``, TensorBoard scalars at ``metrics["steps"]``, and
        the progress bar moved by ``new_steps`` with ``postfix`` shown."""
        self._rows.writerow([metrics[c] for c in self.columns])
        self._csv.flush()
        if self.writer is not None:
            for k, v in metrics.items():
                if k == "update" or (isinstance(v, float) and math.isnan(v)):
                    continue
                group = "eval" if k.startswith("eval") else "train"
                self.writer.add_scalar(f"{group}/{k}", v, metrics["steps"])
        self.steps += new_steps
        if self.timed:
            elapsed = min(time.perf_counter() - self._start, float(self.args.max_seconds))
            self.bar.update(max(elapsed - self.bar.n, 0.0))
            self.bar.set_postfix(steps=f"{self.steps:,}", **postfix)
        else:
            self.bar.update(new_steps)
            self.bar.set_postfix(**postfix)

    def checkpoint(self, update: int, net: PolicyNet, rules: Rules, metrics: dict[str, Any]) -> None:
        """Save ``policy_<steps>.pt`` every ``checkpoint_every`` updates."""
        if update % self.args.checkpoint_every == 0:
            save_policy(self.dir / f"policy_{metrics['steps']}.pt", net, rules, meta=metrics)

    def finish(self, net: PolicyNet, rules: Rules, metrics: dict[str, Any]) -> dict[str, Any]:
        """Save ``policy.pt``, close the logs; a summary: checkpoint, run folder, last metrics."""
        self.bar.close()
        final = self.dir / "policy.pt"
        save_policy(final, net, rules, meta={**metrics, "args": dataclasses.asdict(self.args)})
        self._csv.close()
        if self.writer is not None:
            self.writer.close()
        return {"checkpoint": str(final), "run_dir": str(self.dir), **metrics}


def _bar(args: PPOArgs, total_steps: int, desc: str) -> tqdm:
    """Over seconds for a run bounded by time, else over its steps (see the module docstring)."""
    off = not args.progress
    if args.max_seconds > 0:
        fmt = "{desc}: {percentage:3.0f}%|{bar}| {elapsed} elapsed, {remaining} left{postfix}"
        return tqdm(total=float(args.max_seconds), disable=off, desc=desc, bar_format=fmt)
    if args.max_steps:
        per_update = args.rollout * args.num_envs
        total_steps = min(total_steps, math.ceil(args.max_steps / per_update) * per_update)
    return tqdm(total=total_steps, disable=off, unit="step", desc=desc)


def _tensorboard(path: Path) -> Any:
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:  # tensorboard is optional
        return None
    return SummaryWriter(str(path))
