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
import sys
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from president_env.core.rules import Rules
from president_env.extras import missing_extra
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
    ``table.md`` and ``mean_place.png`` (with matplotlib) into ``out_dir``; return their paths."""
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
    if find_spec("matplotlib") is None:  # the base install: everything but the picture
        print(f"no {paths.pop('plot').name}: plots need matplotlib "
              "(pip install 'president-env[train]')", file=sys.stderr)
    else:
        plot_mean_place(res.summary, paths["plot"], title=title)
    return paths


# ---------------------------------------------------------------------------- plots
def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise missing_extra("matplotlib", "train", "a plot") from None

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


def _num(row: dict[str, Any], key: str) -> float:
    """``row[key]`` as a number; NaN where missing or empty (a CSV's blank cell)."""
    value = row.get(key)
    return float("nan") if value is None or value == "" else float(value)


def plot_stages(rows: list[dict[str, Any]], out_png: str | Path, title: str = "") -> Path:
    """The stages of a ``train.lookahead`` run (``rounds.csv`` rows), or of a recipe composed
    from several (``python -m train.curve``): held-out regret, the mean place against three
    Hard (``vs_hard``, ``vs_hard_lo``, ``vs_hard_hi``) and against three Expert
    (``vs_expert``, ``vs_expert_lo``, ``vs_expert_hi``) with their intervals, each panel where
    some row has it and each point where its row does. Against the wall clock when every row
    has ``elapsed_s``, else in the rows' order. Stages named ``<run>.<stage>`` (``L0.R0``) are
    joined by a line within their run only."""
    plt = _pyplot()
    names = [str(r["stage"]) for r in rows]
    runs = [n.split(".")[0] if "." in n else "" for n in names]
    elapsed = [_num(r, "elapsed_s") / 3600 for r in rows]
    timed = bool(rows) and all(np.isfinite(elapsed))
    xs = elapsed if timed else list(range(len(rows)))
    panels = [(key, label) for key, label in (
        ("heldout_regret", "held-out regret (places lost per decision)"),
        ("vs_hard", "mean place against three Hard (95% CI)"),
        ("vs_expert", "mean place against three Expert (95% CI)"))
        if any(np.isfinite(_num(r, key)) for r in rows)]
    if not panels:
        raise ValueError("no stage has a held-out regret or a rating to plot")
    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels) + 0.5, 4.2),
                             squeeze=False)
    for ax, (key, label) in zip(axes[0], panels, strict=True):
        at = [i for i, r in enumerate(rows) if np.isfinite(_num(r, key))]
        x = [xs[i] for i in at]
        mean = np.array([_num(rows[i], key) for i in at])
        for run in dict.fromkeys(runs[i] for i in at):  # a line per run, not across runs
            part = [j for j, i in enumerate(at) if runs[i] == run]
            ax.plot([x[j] for j in part], mean[part], color="C0", marker="o")
        if key != "heldout_regret":
            lo = np.array([_num(rows[i], f"{key}_lo") for i in at])
            hi = np.array([_num(rows[i], f"{key}_hi") for i in at])
            err = np.nan_to_num(np.vstack([mean - lo, hi - mean]))
            ax.errorbar(x, mean, yerr=err, fmt="none", ecolor="C0", capsize=4)
            ax.axhline(2.5, color="grey", lw=0.8, ls="--", label="fair share")
            ax.legend()
        _name_points(ax, x, mean, [names[i] for i in at])
        ax.set_ylabel(label)
        ax.set_xlabel("hours since the start" if timed else "stage, in the order made")
        if not timed:
            ax.set_xticks([])
        ax.grid(alpha=0.3)
    fig.suptitle(title or "train.lookahead: each stage")
    fig.tight_layout()
    out = Path(out_png)
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out


def _name_points(ax: Any, xs: Any, ys: Any, names: list[str]) -> None:
    for x, y, name in zip(xs, ys, names, strict=True):
        ax.annotate(name, (x, y), textcoords="offset points", xytext=(4, 4), fontsize=8)
