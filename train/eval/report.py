"""Tables, files and plots of tournaments and training runs.

* :func:`summary_table`, :func:`result_table`: a tournament's statistics in markdown (best
  agent first, then the head-to-head table);
* :func:`save_result`: ``stats.csv``, ``head_to_head.csv``, ``result.json``, ``places.npz``,
  ``table.md`` and ``mean_place.png`` of a tournament;
* :func:`policy_table`: the rows of :func:`train.eval.tournament.evaluate_policy` in markdown;
* :func:`plot_mean_place` (per agent, with intervals), :func:`plot_learning_curve` (from a
  run's ``metrics.csv``) and :func:`plot_stages` (the rounds of ``train.lookahead``): PNG files
  (matplotlib, Agg backend).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from president_env.core.rules import Rules
from train.eval.stats import Summary

if TYPE_CHECKING:
    from train.eval.tournament import TournamentResult


# ---------------------------------------------------------------------------- markdown
def summary_table(s: Summary) -> str:
    """The per-agent table and the head-to-head table, in markdown, best agent first."""
    pct = int(round(s.confidence * 100))
    order = np.argsort(s.mean_place, kind="stable")
    lines = [
        f"| agent | mean place ({pct}% CI) | first (%) | last (%) | points / deal | "
        f"rating mu (sigma) |",
        "|---|---|---|---|---|---|",
    ]
    for i in order:
        rating = f"{s.rating_mu[i]:.1f} ({s.rating_sigma[i]:.1f})" if len(s.rating_mu) else "-"
        lines.append(
            f"| {s.names[i]} "
            f"| {s.mean_place[i]:.3f} [{s.mean_place_lo[i]:.3f}, {s.mean_place_hi[i]:.3f}] "
            f"| {100 * s.first_rate[i]:.1f} [{100 * s.first_rate_lo[i]:.1f}, "
            f"{100 * s.first_rate_hi[i]:.1f}] "
            f"| {100 * s.last_rate[i]:.1f} [{100 * s.last_rate_lo[i]:.1f}, "
            f"{100 * s.last_rate_hi[i]:.1f}] "
            f"| {s.points[i]:.3f} [{s.points_lo[i]:.3f}, {s.points_hi[i]:.3f}] "
            f"| {rating} |"
        )
    lines += ["", "Head to head: % of games the row agent finished ahead of the column agent.", ""]
    lines.append("| | " + " | ".join(s.names[j] for j in order) + " |")
    lines.append("|---" * (len(order) + 1) + "|")
    for i in order:
        cells = ["-" if i == j else f"{100 * s.head_to_head[i, j]:.1f}" for j in order]
        lines.append(f"| {s.names[i]} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def result_table(res: TournamentResult) -> str:
    """A line on what was played, then :func:`summary_table`."""
    r = res.rules
    replays = (
        f" x {res.places.shape[1]} seatings (duplicate, {res.seating})" if res.duplicate else ""
    )
    head = (
        f"{_preset(r)} rules, {r.num_players} players, {res.num_deals} deals{replays}"
        f", seed {res.seed}; {res.games} games in {res.elapsed_s:.1f} s "
        f"({_rate(res.games_per_second)} games/s, batch {res.batch_size}). "
        f"Intervals: 95% t intervals over per-deal means."
    )
    return head + "\n\n" + summary_table(res.summary)


def _rate(per_second: float) -> str:
    """A rate to print: whole numbers from 100 on (4,361), three significant digits below
    (43.6, 0.436), so that a slow table's rate is not rounded to 0."""
    return f"{per_second:,.0f}" if per_second >= 100 else f"{per_second:.3g}"


def policy_table(rows: list[dict[str, Any]], num_players: int) -> str:
    """The rows of :func:`train.eval.tournament.evaluate_policy` as a markdown table."""
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


def _preset(rules: Rules) -> str:
    name = getattr(rules, "preset_name", None)
    return name if isinstance(name, str) else "custom"


# ---------------------------------------------------------------------------- files
def save_result(res: TournamentResult, out_dir: str | Path) -> dict[str, Path]:
    """Write ``stats.csv``, ``head_to_head.csv``, ``result.json``, ``places.npz``,
    ``table.md`` and ``mean_place.png`` into ``out_dir``; return their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {
        "csv": out / "stats.csv",
        "head_to_head": out / "head_to_head.csv",
        "json": out / "result.json",
        "places": out / "places.npz",
        "table": out / "table.md",
        "plot": out / "mean_place.png",
    }
    rows = res.summary.per_agent()
    with paths["csv"].open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    with paths["head_to_head"].open("w", newline="") as f:
        writer2 = csv.writer(f)
        writer2.writerow(["agent", *res.names])
        for i, name in enumerate(res.names):
            h2h = res.summary.head_to_head[i]
            writer2.writerow([name, *("" if i == j else f"{v:.6f}" for j, v in enumerate(h2h))])
    paths["json"].write_text(json.dumps(res.to_dict(), indent=2))
    np.savez_compressed(
        paths["places"], places=res.places, points=res.points, seats=res.seats,
        deal_seeds=res.deal_seeds, names=np.array(res.names),
    )
    paths["table"].write_text(result_table(res) + "\n")
    replays = f" x {res.places.shape[1]} seatings" if res.duplicate else ""
    title = f"{_preset(res.rules)}, {res.rules.num_players} players, {res.num_deals} deals{replays}"
    plot_mean_place(res.summary, paths["plot"], title=title)
    return paths


# ---------------------------------------------------------------------------- plots
def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_mean_place(summary: Summary, path: str | Path, title: str = "") -> None:
    """Bar chart of mean place per agent with its confidence interval."""
    plt = _pyplot()
    order = np.argsort(summary.mean_place, kind="stable")
    x = np.arange(len(order))
    mean = summary.mean_place[order]
    err = np.vstack([mean - summary.mean_place_lo[order], summary.mean_place_hi[order] - mean])
    fig, ax = plt.subplots(figsize=(1.6 * len(order) + 2, 4))
    ax.bar(x, mean - 1, bottom=1, yerr=np.nan_to_num(err), capsize=6, color="#4c72b0")
    ax.set_xticks(x, [summary.names[i] for i in order])
    ax.set_ylabel(f"mean place (1 = first), {int(round(summary.confidence * 100))}% CI")
    n = len(order)
    ax.set_ylim(1, max(n, float(np.nanmax(summary.mean_place_hi)) + 0.2))
    ax.axhline((n + 1) / 2, color="grey", lw=0.8, ls="--")
    if title:
        ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_learning_curve(metrics_csv: str | Path, out_png: str | Path, title: str = "") -> Path:
    """Mean place of the learner (1 = first) against environment steps, from metrics.csv."""
    with Path(metrics_csv).open() as f:
        rows = list(csv.DictReader(f))
    steps = [int(r["steps"]) for r in rows]
    place = [float(r["mean_place"]) for r in rows]
    plt = _pyplot()
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


def plot_stages(rows: list[dict[str, Any]], out_png: str | Path) -> Path:
    """The stages of a ``train.lookahead`` run (``rounds.csv`` rows) against the wall clock:
    held-out regret, and the mean place against three Hard with its interval where measured."""
    plt = _pyplot()
    hours = [float(r["elapsed_s"]) / 3600 for r in rows]
    names = [str(r["stage"]) for r in rows]
    rated = [i for i, r in enumerate(rows) if r.get("vs_hard") is not None]
    fig, axes = plt.subplots(1, 2 if rated else 1, figsize=(11 if rated else 6, 4),
                             squeeze=False)
    ax = axes[0, 0]
    regret = [float(r["heldout_regret"]) for r in rows]
    ax.plot(hours, regret, marker="o")
    ax.set_ylabel("held-out regret (places lost per decision)")
    _name_points(ax, hours, regret, names)
    if rated:
        ax2 = axes[0, 1]
        mean = np.array([float(rows[i]["vs_hard"]) for i in rated])
        lo = np.array([float(rows[i]["vs_hard_lo"]) for i in rated])
        hi = np.array([float(rows[i]["vs_hard_hi"]) for i in rated])
        ax2.errorbar([hours[i] for i in rated], mean, yerr=[mean - lo, hi - mean], marker="o",
                     capsize=4)
        ax2.axhline(2.5, color="grey", lw=0.8, ls="--", label="fair share")
        _name_points(ax2, [hours[i] for i in rated], mean, [names[i] for i in rated])
        ax2.set_ylabel("mean place against three Hard (95% CI)")
        ax2.legend()
    for a in axes[0]:
        a.set_xlabel("hours since the start")
        a.grid(alpha=0.3)
    fig.suptitle("train.lookahead: each stage")
    fig.tight_layout()
    out = Path(out_png)
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out


def _name_points(ax: Any, xs: Any, ys: Any, names: list[str]) -> None:
    for x, y, name in zip(xs, ys, names, strict=True):
        ax.annotate(name, (x, y), textcoords="offset points", xytext=(4, 4), fontsize=8)
