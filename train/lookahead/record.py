"""The record of the recipe's stages (:mod:`train.lookahead.stages`): ``rounds.csv`` and
``rounds.png``, one row per fit, with its policy against three Hard where measured; a resumed
run replays the stages its ``rounds.csv`` records instead of making them again."""

from __future__ import annotations

import csv
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.policy import PolicyAgent
from president_env.core.rules import Rules
from train.eval.report import plot_stages
from train.eval.tournament import evaluate_policy

METRICS = ("decisions", "heldout_regret", "heldout_behaviour_regret", "train_regret",
           "train_behaviour_regret")
"""A stage's metrics that its row records (a replayed stage gives them back)."""
EVAL_SEED = 12345
"""Seed of the deals of each stage's evaluation (``train.evaluate``'s default)."""


def recorded_rows(out: Path) -> dict[str, dict[str, Any]]:
    """The rows of ``out/rounds.csv`` by stage (none without it)."""
    if not (out / "rounds.csv").is_file():
        return {}
    with open(out / "rounds.csv", newline="") as f:
        return {r["stage"]: r for r in csv.DictReader(f)}


class Stages:
    """One row per fit (its stage, labels, the seconds of its collection and fit, its held-out
    regret and the wall clock since the start), with its policy against three Hard over
    ``eval_deals`` duplicate deals when that is not 0; written to ``out/rounds.csv`` and plotted
    to ``out/rounds.png`` after each row."""

    def __init__(self, out: Path, rules: Rules, eval_deals: int = 0,
                 progress: bool = True, resume: bool = False) -> None:
        self.out, self.rules, self.eval_deals, self.progress = out, rules, eval_deals, progress
        self.rows: list[dict[str, Any]] = []
        self.t0 = self.t = time.perf_counter()
        self.recorded: dict[str, dict[str, Any]] = {}
        """With ``resume``: the rows of ``out/rounds.csv`` by stage, replayed by :meth:`stage`
        until a stage is made again (the later ones built on it)."""
        self.made = False
        """Whether a stage was made (not replayed)."""
        if resume:
            self.recorded = recorded_rows(out)

    def stage(self, stage: str, folder: Path, collect_s: float,
              make: Callable[[], dict[str, float]]) -> dict[str, float]:
        """The stage ``stage`` whose policy is ``folder/policy.pt``: replayed when the run
        resumes and its ``rounds.csv`` records it with that policy in place (its row kept, the
        clock set to its wall clock), else made (``make()``: its last metrics) and recorded
        (:meth:`add`); its metrics."""
        row = self.recorded.get(stage)
        if row is None or row["folder"] != str(folder) or not (folder / "policy.pt").is_file():
            self.recorded, self.made = {}, True
            last = make()
            self.add(stage, folder, collect_s, last)
            return last
        self.append(dict(row))
        self.sync(float(row["elapsed_s"]))
        print(f"{stage}: recorded in {self.out / 'rounds.csv'}, not made again", file=sys.stderr)
        return {k: float(row[k]) for k in METRICS if row.get(k) not in ("", None)}

    def sync(self, elapsed_s: float) -> None:
        """Set the clock to ``elapsed_s`` since the start (after stages replayed or copied)."""
        self.t = time.perf_counter()
        self.t0 = self.t - elapsed_s

    def lap(self) -> float:
        """Seconds since the last lap (the start, or the last collection, fit or rating)."""
        now = time.perf_counter()
        took, self.t = now - self.t, now
        return took

    def add(self, stage: str, folder: Path, collect_s: float, last: dict[str, float]) -> None:
        """Record the fit just written in ``folder`` (``last``: its last metrics), measure its
        policy, rewrite the files."""
        row: dict[str, Any] = {
            "stage": stage, "folder": str(folder), "decisions": int(last["decisions"]),
            "collect_s": round(collect_s, 1), "fit_s": round(self.lap(), 1),
            **{k: last[k] for k in METRICS[1:] if k in last}}
        if self.eval_deals:
            policy = PolicyAgent.load(folder / "policy.pt", self.rules)
            res = evaluate_policy(policy, self.rules, self.eval_deals, EVAL_SEED, ("hard",),
                                  progress=self.progress)[0]
            row.update(vs_hard=res["mean_place"], vs_hard_lo=res["mean_place_lo"],
                       vs_hard_hi=res["mean_place_hi"], eval_s=round(self.lap(), 1))
            print(f"{stage}: {res['mean_place']:.3f} [{res['mean_place_lo']:.3f}, "
                  f"{res['mean_place_hi']:.3f}] against three Hard", file=sys.stderr)
        row["elapsed_s"] = round(time.perf_counter() - self.t0, 1)
        self.append(row)

    def append(self, row: dict[str, Any]) -> None:
        """Add ``row`` as it is and rewrite the files."""
        self.rows.append(row)
        keys = list(dict.fromkeys(k for r in self.rows for k in r))
        with open(self.out / "rounds.csv", "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            w.writerows(self.rows)
        plot_stages(self.rows, self.out / "rounds.png")
