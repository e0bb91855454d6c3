"""Strength through the PettingZoo env (:mod:`train.eval.aec`): every deal with the agent in
every seat, the same games whatever the number of processes, the CSVs it appends."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from president_env.core.rules import Rules
from train.eval.aec import main, measure, summary


def test_every_seat_of_every_deal_and_the_same_games_in_two_processes() -> None:
    rules = Rules.preset("standard", num_players=3, observation="record")
    one = measure(rules, "random", "hard", 3, seed=5, jobs=1, progress=False)
    assert [(d, s) for d, s, _ in one] == [(d, s) for d in range(3) for s in range(3)]
    assert {pl for _, _, pl in one} <= {1, 2, 3}
    assert measure(rules, "random", "hard", 3, seed=5, jobs=2, progress=False) == one
    mean, lo, hi = summary(one)
    assert lo <= mean <= hi and mean == np.mean([pl for _, _, pl in one])
    assert summary([(0, 0, 1), (0, 1, 3), (1, 0, 2), (1, 1, 2)])[0] == 2.0


def test_the_command_appends_its_rows(tmp_path: Path) -> None:
    out, places = tmp_path / "s.csv", tmp_path / "p.csv"
    for _ in range(2):
        main(["--agent", "hard", "--opponents", "random", "--players", "3", "--deals", "2",
              "--out", str(out), "--places", str(places)])
    with out.open(newline="") as f:
        runs = list(csv.DictReader(f))
    with places.open(newline="") as f:
        games = list(csv.DictReader(f))
    assert len(runs) == 2 and runs[0]["mean_place"] == runs[1]["mean_place"]
    assert len(games) == 12 and runs[0]["deals"] == "2" and runs[0]["players"] == "3"
    # hard against random wins more often than its fair share
    assert float(runs[0]["mean_place"]) <= 2.0
