"""The stages of a multi-round training run (``train.lookahead``): ``rounds.csv`` and
``rounds.png``, one row per fit, with its policy against three Hard where measured."""

from __future__ import annotations

import csv
import sys
import time
from pathlib import Path
from typing import Any

from agents.policy import PolicyAgent
from president_env.core.rules import Rules

EVAL_SEED = 12345
"""Seed of the deals of each stage's evaluation (``train.evaluate``'s default)."""


class Stages:
    """One row per fit (its stage, labels, the seconds of its collection and fit, its held-out
    regret and the wall clock since the start), with its policy against three Hard over
    ``eval_deals`` duplicate deals when that is not 0; written to ``out/rounds.csv`` and plotted
    to ``out/rounds.png`` after each row."""

    def __init__(self, out: Path, rules: Rules, eval_deals: int = 0,
                 progress: bool = True) -> None:
        self.out, self.rules, self.eval_deals, self.progress = out, rules, eval_deals, progress
        self.rows: list[dict[str, Any]] = []
        self.t0 = self.t = time.perf_counter()

    def lap(self) -> float:
        """Seconds since the last lap (the start, or the last collection, fit or rating)."""
        now = time.perf_counter()
        took, self.t = now - self.t, now
        return took

    def add(self, stage: str, folder: Path, collect_s: float, last: dict[str, float]) -> None:
        """Record the fit just written in ``folder`` (``last``: its last metrics), measure its
        policy, rewrite the files."""
        from train.eval.report import plot_stages
        from train.eval.tournament import evaluate_policy

        row: dict[str, Any] = {
            "stage": stage, "folder": str(folder), "decisions": int(last["decisions"]),
            "collect_s": round(collect_s, 1), "fit_s": round(self.lap(), 1),
            "heldout_regret": last["heldout_regret"],
            "heldout_behaviour_regret": last["heldout_behaviour_regret"]}
        if self.eval_deals:
            policy = PolicyAgent.load(folder / "policy.pt", self.rules)
            res = evaluate_policy(policy, self.rules, self.eval_deals, EVAL_SEED, ("hard",),
                                  progress=self.progress)[0]
            row.update(vs_hard=res["mean_place"], vs_hard_lo=res["mean_place_lo"],
                       vs_hard_hi=res["mean_place_hi"], eval_s=round(self.lap(), 1))
            print(f"{stage}: {res['mean_place']:.3f} [{res['mean_place_lo']:.3f}, "
                  f"{res['mean_place_hi']:.3f}] against three Hard", file=sys.stderr)
        row["elapsed_s"] = round(time.perf_counter() - self.t0, 1)
        self.rows.append(row)
        keys = list(dict.fromkeys(k for r in self.rows for k in r))
        with open(self.out / "rounds.csv", "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            w.writerows(self.rows)
        plot_stages(self.rows, self.out / "rounds.png")
