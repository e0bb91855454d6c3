"""Self-play PPO (train/selfplay_ppo.py, train/common/selfplay.py): per-seat advantages, seat
assignment, a smoke run."""

from __future__ import annotations

import csv
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.policy import PolicyAgent, PolicyNet
from president_env.core.rules import Rules
from train.common.pool import parse_pool
from train.common.ppo import seat_gae
from train.common.selfplay import SelfPlayCollector

ROOT = Path(__file__).resolve().parent.parent


def _tiny_buffer() -> dict[str, torch.Tensor]:
    """2 games, 3 seats, 5 steps, written by hand.

    Game 0: seats 0, 1 (live) and 2 (pool) act; the game ends at t=2 with rewards (1, -1, 0)
    and is dealt again in the same step; in the new game seats 1 and 0 act (t=3, 4).
    Game 1 (two deals): seats 2, 0, 2, 1, 2 act, all live; the first deal ends at t=3 (seat 1
    acting) with rewards (0.5, 1, -1): seat 2's -1 belongs to its decision at t=2, seat 0's
    0.5 to t=1, seat 1's 1 to t=3 itself.
    """
    T, B, P = 5, 2, 3
    rewards = torch.zeros((T, B, P))
    rewards[2, 0] = torch.tensor([1.0, -1.0, 0.0])
    rewards[3, 1] = torch.tensor([0.5, 1.0, -1.0])
    dones = torch.zeros((T, B), dtype=torch.bool)
    dones[2, 0] = True
    seats = torch.tensor([[0, 2], [1, 0], [2, 2], [1, 1], [0, 2]])
    live = torch.ones((T, B), dtype=torch.bool)
    live[2, 0] = False
    values = torch.tensor([[0.1, 0.5], [0.2, -0.2], [9.9, 0.3], [0.3, 0.0], [0.4, 0.1]])
    last_values = torch.tensor([[0.5, 0.6, 0.7], [0.2, -0.3, 0.4]])
    return {"rewards": rewards, "dones": dones, "values": values, "seats": seats, "live": live,
            "last_values": last_values}


@pytest.mark.parametrize(
    ("lam", "expected"),
    [
        # lambda = 1: (rewards of the seat until the chain ends + bootstrap) - V
        (1.0, [[0.9, -1.1], [-1.2, 0.9], [0.0, -0.9], [0.3, 0.7], [0.1, 0.3]]),
        # lambda = 0.5: game 1, seat 2: t4 0.3; t2 -1.2 + 0.5 * 0.3; t0 -0.2 + 0.5 * -1.05
        (0.5, [[0.9, -0.725], [-1.2, 0.9], [0.0, -1.05], [0.3, 0.7], [0.1, 0.3]]),
    ],
)
def test_advantages_follow_each_seat(lam: float, expected: list[list[float]]) -> None:
    buf = _tiny_buffer()
    adv = seat_gae(**buf, gamma=1.0, lam=lam)
    torch.testing.assert_close(adv, torch.tensor(expected), atol=1e-6, rtol=0)


def test_advantages_discount_and_reset_at_the_end() -> None:
    buf = _tiny_buffer()
    buf["dones"][4, 1] = True  # game 1 ends at the last step: no bootstrap for it
    buf["rewards"][4, 1] = torch.tensor([-1.0, 0.0, 1.0])
    adv = seat_gae(**buf, gamma=0.9, lam=1.0)
    # the discount is per decision of the seat; the bootstrap of game 1 is dropped.
    # seat 2 of game 1: t4 gets 1 - 0.1; t2 (-1 + 0.9 * 1) - 0.3; t0 0.9 * (-1 + 0.9) - 0.5
    torch.testing.assert_close(adv[4, 1], torch.tensor(0.9))
    torch.testing.assert_close(adv[2, 1], torch.tensor(-0.4))
    torch.testing.assert_close(adv[0, 1], torch.tensor(-0.59))
    # seat 0 of game 1 (t1): its rewards 0.5 (t3) and -1 (t4), no later decision, V = -0.2
    torch.testing.assert_close(adv[1, 1], torch.tensor(-0.3))
    # seat 1 of game 1 (t3): its reward 1 at t3 and 0 at t4, V = 0
    torch.testing.assert_close(adv[3, 1], torch.tensor(1.0))


def _collector(pool: str, share: float, num_envs: int = 16) -> SelfPlayCollector:
    rules = Rules.preset("standard")
    agents, w, snap = parse_pool(pool, rules, 0)
    return SelfPlayCollector(rules, num_envs, agents, w, snap, share, seed=0)


def _net(col: SelfPlayCollector) -> PolicyNet:
    torch.manual_seed(0)
    return PolicyNet(col.engine.obs_size, col.engine.num_actions, hidden=32).eval()


def test_pool_share_zero_is_pure_self_play() -> None:
    col = _collector("hard:1", 0.0)
    ro = col.collect(_net(col), 120)  # games of the untrained policy last ~90 steps
    assert ro.live.all()
    assert ro.mask[np.arange(120)[:, None], np.arange(16)[None], ro.action].all()  # legal
    assert ro.done.any() and col.games == int(ro.done.sum())
    # every seat of every finished game is live: the live policy's places are 0..3 equally
    assert np.bincount(col.places, minlength=4).tolist() == [col.games] * 4


def test_rule_based_pool_takes_some_seats() -> None:
    col = _collector("hard:0.7,normal:0.3", 0.5)
    assert ((col.table.seat_policy == -1).any(1)).all()  # at least one live seat per game
    ro = col.collect(_net(col), 40)
    assert ro.live.any() and not ro.live.all()
    assert ro.mask[np.arange(40)[:, None], np.arange(16)[None], ro.action].all()
    assert ((col.table.seat_policy == -1).any(1)).all()
    # pool rows were played by the rule agents: replaying Hard on its rows gives its choices
    hard = make_agent("hard", Rules.preset("standard"), seed=0)
    pool_rows = ~ro.live
    obs, mask = ro.obs[pool_rows], ro.mask[pool_rows]
    assert (hard.act_batch(obs, mask) == ro.action[pool_rows]).mean() > 0.5
    only_pool = _collector("hard", 1.0)
    assert ((only_pool.table.seat_policy == -1).sum(1) == 1).all()  # exactly the one forced live seat


def test_snapshots_join_the_pool() -> None:
    col = _collector("snapshots:1", 0.5)
    assert (col.table.seat_policy == -1).all()  # no snapshot yet: every seat is live
    net = _net(col)
    col.add_snapshot(net, seed=1)
    col.table.seat_policy[:] = col.draw_seats(col.num_envs)
    ro = col.collect(net, 20)
    assert not ro.live.all() and ro.live.any()
    with pytest.raises(ValueError, match="needs pool members"):
        _collector("", 0.5)


def test_selfplay_ppo_smoke(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    proc = subprocess.run(
        [sys.executable, "-m", "train.selfplay_ppo", "--total-steps", "2048", "--num-envs", "16",
         "--rollout", "32", "--epochs", "2", "--minibatches", "2", "--hidden", "64",
         "--snapshot-every", "1", "--eval-every", "2", "--eval-deals", "4",
         "--checkpoint-every", "2", "--threads", "1", "--out", "out", "--progress", "false"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    run = tmp_path / "out" / "standard_p4_seed0"
    agent = PolicyAgent.load(run / "policy.pt", Rules.preset("standard"))
    assert agent.rules.num_players == 4 and (run / "policy_1024.pt").is_file()
    with (run / "metrics.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [int(r["steps"]) for r in rows] == [512, 1024, 1536, 2048]
    assert int(rows[-1]["live_steps"]) < 2048 and float(rows[-1]["steps_per_s"]) > 0
    assert math.isnan(float(rows[0]["eval_mean_place"]))
    assert 1.0 <= float(rows[1]["eval_mean_place"]) <= 4.0
    assert 1.0 <= float(rows[-1]["eval_mean_place"]) <= 4.0
    assert int(rows[-1]["snapshots"]) == 4
