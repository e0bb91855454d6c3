"""Plots of training runs (matplotlib, written to PNG files)."""

from __future__ import annotations

import csv
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def plot_learning_curve(metrics_csv: str | Path, out_png: str | Path, title: str = "") -> Path:
    """Mean place of the learner (1 = first) against environment steps, from metrics.csv."""
    with Path(metrics_csv).open() as f:
        rows = list(csv.DictReader(f))
    steps = [int(r["steps"]) for r in rows]
    place = [float(r["mean_place"]) for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(steps, place, marker="." if len(steps) < 60 else None, lw=1.2,
            label="learner, sampling (last 2000 games)")
    ax.set_xlabel("learner steps")
    ax.set_ylabel("mean place (1 = President)")
    ax.invert_yaxis()
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title(title or "PPO against rule-based opponents")
    fig.tight_layout()
    out = Path(out_png)
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out
