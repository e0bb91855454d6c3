"""The learning curve of a recipe of stages, from a table of them: a run's ``rounds.csv``
(``train.lookahead`` writes it with ``rounds.png`` itself) or one composed from several runs.
The docs' curve of the recipe is its full-size run's ``rounds.csv``:

    python -m train.curve docs/data/recipe_stages.csv --out docs/img/recipe_learning_curve.png

Columns (one row per stage, a blank cell where a stage was not measured): ``stage`` (its
name), and any of ``heldout_regret``; ``vs_hard``, ``vs_hard_lo``, ``vs_hard_hi`` (mean place
against three Hard and its 95% interval); ``vs_expert``, ``vs_expert_lo``, ``vs_expert_hi``
(against three Expert); ``elapsed_s`` (seconds since the start: the x axis when every row has
it, else the rows' order). :func:`train.eval.report.plot_stages` draws it.
"""

from __future__ import annotations

import csv
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from president_env.cli import REQUIRED, arg, input_file, output_file, parse, user_errors
from train.eval.report import plot_stages


@dataclass
class Args:
    stages: str = arg(REQUIRED, input_file)
    """The table of stages (CSV, a header row)."""
    out: str = arg("curve.png", output_file)
    """The picture to write (PNG; missing folders are made)."""
    title: str = ""
    """The figure's title (default: train.lookahead's)."""


def read_stages(path: str | Path) -> list[dict[str, Any]]:
    """The rows of a stages table; a ValueError naming what is wrong when it has no ``stage``
    column, no row, or a cell that is not a number where one is expected."""
    with Path(path).open(newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or "stage" not in rows[0]:
        raise ValueError(f"{path}: expected a CSV with a 'stage' column and one row per stage")
    for n, row in enumerate(rows, start=2):
        for key, value in row.items():
            if key not in ("stage", "folder") and value not in ("", None):
                try:
                    float(value)
                except ValueError:
                    raise ValueError(
                        f"{path}, line {n}: {key} = {value!r} is not a number") from None
    return rows


def main(argv: list[str] | None = None) -> Path:
    args = parse(Args, argv, prog="python -m train.curve")
    with user_errors():
        rows = read_stages(args.stages)
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        out = plot_stages(rows, args.out, args.title)
    print(f"{len(rows)} stages plotted to {out}", file=sys.stderr)
    return out


if __name__ == "__main__":
    main()
