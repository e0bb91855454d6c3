"""Tournament statistics, duplicate seating, and the two command-line tools."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents import EasyAgent
from president_env.core.engine import Engine
from president_env.core.rules import Rules
from train.eval.report import _rate, summary_table
from train.eval.stats import summarize, t_quantile
from train.eval.tournament import parse_agents, run_tournament, seat_plan

ROOT = Path(__file__).resolve().parents[1]

# 3 deals x 2 replays x 3 agents, places 0 = first
PLACES = np.array(
    [
        [[0, 1, 2], [1, 0, 2]],
        [[0, 2, 1], [0, 1, 2]],
        [[2, 1, 0], [0, 1, 2]],
    ]
)
T975_2 = 4.302652729911275  # t quantile 0.975, 2 degrees of freedom


def test_t_quantile_matches_tables() -> None:
    for df, value in [(1, 12.7062), (2, 4.3027), (3, 3.1824), (5, 2.5706), (10, 2.2281),
                      (30, 2.0423), (1000, 1.9623)]:
        assert t_quantile(0.975, df) == pytest.approx(value, abs=1e-4)
    assert t_quantile(0.95, 20) == pytest.approx(1.7247, abs=1e-4)
    assert t_quantile(0.025, 7) == pytest.approx(-2.3646, abs=1e-4)
    assert t_quantile(0.975, 101) == pytest.approx(1.9837, abs=1e-4)


def test_summary_statistics_equal_hand_computed_values() -> None:
    s = summarize(PLACES, points=3 - PLACES, names=["a", "b", "c"])
    # agent a: per-deal mean places (1-based) 1.5, 1.0, 2.0 -> mean 1.5, sd 0.5
    half = T975_2 * 0.5 / math.sqrt(3)
    assert s.mean_place[0] == pytest.approx(1.5)
    assert 1.5 - half < 1 and s.mean_place_lo[0] == 1.0  # cut at place 1
    assert s.mean_place_hi[0] == pytest.approx(1.5 + half)
    # agent b: 1.5, 2.5, 2.0 -> mean 2.0, sd 0.5; agent c: 3.0, 2.5, 2.0 -> 2.5, sd 0.5
    np.testing.assert_allclose(s.mean_place, [1.5, 2.0, 2.5])
    np.testing.assert_allclose(s.mean_place_hi, [1.5 + half, 3.0, 3.0])  # cut at N=3
    np.testing.assert_allclose(s.mean_place_lo, [1.0, 1.0, 2.5 - half])  # and at 1
    # first places: a 0.5, 1, 0.5; b 0.5, 0, 0; c 0, 0, 0.5
    np.testing.assert_allclose(s.first_rate, [2 / 3, 1 / 6, 1 / 6])
    # last places: a 0, 0, 0.5; b 0, 0.5, 0; c 1, 0.5, 0.5
    np.testing.assert_allclose(s.last_rate, [1 / 6, 1 / 6, 2 / 3])
    # last rate of c: values 1, .5, .5 -> mean 2/3, sd sqrt(1/12)
    sd = math.sqrt(((1 - 2 / 3) ** 2 + 2 * (0.5 - 2 / 3) ** 2) / 2)
    assert 2 / 3 - T975_2 * sd / math.sqrt(3) < 0 < 1 < 2 / 3 + T975_2 * sd / math.sqrt(3)
    assert (s.last_rate_lo[2], s.last_rate_hi[2]) == (0.0, 1.0)  # cut to a rate's 0..1
    assert (s.first_rate_lo >= 0).all() and (s.head_to_head_lo[~np.eye(3, dtype=bool)] >= 0).all()
    # points = 3 - place: mean 3 - (mean place - 1)
    np.testing.assert_allclose(s.points, [2.5, 2.0, 1.5])
    # head to head: a ahead of b in 1/2, 2/2, 1/2 of the replays
    assert s.head_to_head[0, 1] == pytest.approx(2 / 3)
    assert s.head_to_head[1, 0] == pytest.approx(1 / 3)
    assert s.head_to_head[0, 2] == pytest.approx((1 + 1 + 0.5) / 3)
    assert math.isnan(s.head_to_head[1, 1])
    assert s.rating_mu[0] > s.rating_mu[2]
    table = summary_table(s)
    assert "| a | 1.500" in table and "Head to head" in table
    assert s.to_dict()["agents"][0]["mean_place"] == pytest.approx(1.5)


def test_summary_rejects_bad_shapes() -> None:
    with pytest.raises(ValueError, match="deals, rotations, agents"):
        summarize(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="shape of places"):
        summarize(PLACES, points=np.zeros((1, 2, 3)))
    one = summarize(PLACES[:1], ratings=False)
    assert math.isnan(one.mean_place_lo[0])


@pytest.mark.parametrize("seating", ["rotate", "shuffle", "all"])
def test_seat_plans_give_every_agent_every_hand(seating: str) -> None:
    seats = seat_plan(4, 10, True, seating, np.random.default_rng(0))
    replays = {"rotate": 4, "shuffle": 4, "all": 24}[seating]
    assert seats.shape == (10, replays, 4)
    for d in range(10):
        for r in range(replays):
            assert sorted(seats[d, r]) == [0, 1, 2, 3]  # one agent per seat
        for i in range(4):  # every agent sits in every seat equally often
            counts = np.bincount(seats[d, :, i], minlength=4)
            assert (counts == replays // 4).all()
    if seating == "all":
        assert len({tuple(x) for x in seats[0]}) == 24
    single = seat_plan(4, 10, False, seating, np.random.default_rng(0))
    assert single.shape == (10, 1, 4)


@pytest.mark.parametrize("seating", ["rotate", "shuffle"])
def test_duplicate_replays_deal_the_same_hands_to_the_seats(seating: str) -> None:
    """With identical deterministic agents, every replay of a deal ends the same way by seat,
    so agent i's place in replay r is the place of its seat: checks the seat bookkeeping."""
    rules = Rules.preset("standard", num_players=4)
    agents = {f"easy{i}": EasyAgent for i in range(4)}
    res = run_tournament(
        agents, rules, num_deals=12, seed=3, seating=seating, batch_size=7, progress=False
    )
    engine = Engine(rules)
    easy = EasyAgent(rules)
    state = engine.init(res.deal_seeds)
    while not state.terminated.all():
        live = ~state.terminated
        actions = np.zeros(state.batch_size, np.int64)
        actions[live] = easy.act_batch(
            engine.observe(state)[live], engine.legal_action_mask(state)[live]
        )
        engine.step_inplace(state, actions)
    seat_place = state.place  # [D, P]
    expect = np.take_along_axis(seat_place[:, None, :], res.seats, axis=2)
    np.testing.assert_array_equal(res.places, expect)
    assert res.games == 12 * 4
    np.testing.assert_allclose(res.summary.mean_place, 2.5)  # everybody plays every hand


def test_one_game_at_a_time_plays_the_same_games() -> None:
    """A table of one game (its fast path) and a batch, refilled as games end, agree."""
    rules = Rules.preset("standard", num_players=4)
    agents = {f"easy{i}": EasyAgent for i in range(4)}
    one = run_tournament(agents, rules, num_deals=3, seed=2, batch_size=1, progress=False,
                         ratings=False)
    batch = run_tournament(agents, rules, num_deals=3, seed=2, batch_size=5, progress=False,
                           ratings=False)
    np.testing.assert_array_equal(one.places, batch.places)
    np.testing.assert_array_equal(one.points, batch.points)
    assert one.games == batch.games == 12 and one.decisions == batch.decisions


def test_tournament_is_seeded_and_reports_points() -> None:
    rules = Rules.preset("cardverse", num_players=3)
    agents = {"hard": "hard", "easy": "easy", "random": "random"}
    a = run_tournament(agents, rules, 20, seed=5, progress=False, ratings=False)
    b = run_tournament(agents, rules, 20, seed=5, progress=False, ratings=False)
    np.testing.assert_array_equal(a.places, b.places)
    # "places" scoring: N points for first .. 1 for last
    np.testing.assert_array_equal(a.points, 3 - a.places)
    with pytest.raises(ValueError, match="one agent per seat"):
        run_tournament({"hard": "hard"}, rules, 2, progress=False)


def test_the_rate_of_a_slow_table_is_not_rounded_to_zero() -> None:
    # an Expert ladder plays 0.44 games/s: the table's first line once said "0 games/s"
    assert [_rate(x) for x in (0.4355, 4.361, 43.61, 436.1, 4361.2)] == [
        "0.435", "4.36", "43.6", "436", "4,361"]


def test_parse_agents_names_repeats() -> None:
    assert parse_agents("hard,normal*2,easy") == ["hard", "normal", "normal#2", "easy"]
    assert parse_agents("hard*3") == ["hard", "hard#2", "hard#3"]


def _run(args: list[str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    return subprocess.run(
        [sys.executable, *args], input=stdin, capture_output=True, text=True, cwd=ROOT,
        env=env, timeout=300,
    )


def test_tournament_cli_smoke(tmp_path: Path) -> None:
    out = tmp_path / "res"
    proc = _run([
        "-m", "train.tournament", "--preset", "standard", "--players", "4",
        "--agents", "hard,normal,easy,random", "--deals", "6", "--seed", "0",
        "--out", str(out), "--no-progress",
    ])
    assert proc.returncode == 0, proc.stderr
    assert "mean place" in proc.stdout
    for name in ("stats.csv", "head_to_head.csv", "result.json", "table.md", "mean_place.png"):
        assert (out / name).stat().st_size > 0
    data = json.loads((out / "result.json").read_text())
    assert data["summary"]["names"] == ["hard", "normal", "easy", "random"]
    assert data["games"] == 6 * 4
    bad = _run(["-m", "train.tournament", "--players", "4", "--agents", "hard,easy",
                "--deals", "2", "--no-progress"])
    assert bad.returncode == 2 and "one agent per seat" in bad.stderr


def test_play_cli_smoke_with_stdin() -> None:
    answers = "nonsense\n99\npair of jokers\n" + "1\n" * 400
    proc = _run(
        ["-m", "apps.play", "--preset", "standard", "--players", "4", "--seat", "0",
         "--opponents", "hard", "--seed", "4"],
        stdin=answers,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Your hand:" in out and "Pile:" in out and "1) " in out
    assert "Invalid choice: 'nonsense'" in out
    assert "choose a number from 1 to" in out
    assert "Game over" in out and "You finished" in out
    stopped = _run(["-m", "apps.play", "--players", "3", "--opponents", "easy,normal",
                    "--seed", "1"], stdin="quit\n")
    assert stopped.returncode == 1 and "Game stopped" in stopped.stdout
    bad = _run(["-m", "apps.play", "--players", "4", "--opponents", "easy,normal"])
    assert bad.returncode == 2 and "--opponents" in bad.stderr
