"""Search distillation (``train.distill``) and starting a history policy from a standard one.

Checked: a widened network decides as the one it came from, whatever the history inputs hold;
``--init`` of a standard checkpoint into a history run, and the refusals; the collection keeps
only the teacher's real choices, each legal, with the reward of the deal it ended in; it
resumes where it stopped and refuses another teacher's file; the fit writes a policy that a
history table plays and metrics per epoch.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
import torch

from agents import load_agent
from agents.policy import PolicyAgent, PolicyNet, load_policy, widen_input
from president_env.core.engine import Engine
from president_env.core.rules import Rules
from president_env.rewards import reward_table
from president_env.table import Table
from train import distill, ppo_pool
from train.common.args import init_policy

SHIPPED = Path(__file__).resolve().parent.parent / "agents" / "pretrained" / "standard_4p.pt"
HISTORY = Rules.preset("standard").replace(observation="history")


def test_a_widened_network_decides_as_the_narrow_one() -> None:
    torch.manual_seed(0)
    narrow = PolicyNet(20, 7, 16)
    wide = widen_input(narrow, 31)
    obs = torch.randn(64, 31) * 3
    mask = torch.rand(64, 7) > 0.3
    mask[:, 0] = True
    with torch.no_grad():
        a_logits, a_v = narrow(obs[:, :20], mask)
        b_logits, b_v = wide(obs, mask)
    assert wide.obs_size == 31 and torch.equal(wide.state_dict()["trunk.0.weight"][:, 20:], torch.zeros(16, 11))
    torch.testing.assert_close(b_logits, a_logits, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(b_v, a_v, rtol=1e-5, atol=1e-5)
    assert torch.equal(a_logits.argmax(-1), b_logits.argmax(-1))
    with pytest.raises(ValueError, match="cannot widen"):
        widen_input(narrow, 19)


def test_the_shipped_policy_starts_a_history_run_and_plays_as_before() -> None:
    eng = Engine(HISTORY)
    net = init_policy(str(SHIPPED), HISTORY, eng.obs_size, 256)
    shipped, _, _ = load_policy(SHIPPED)
    assert net.obs_size == eng.obs_size > shipped.obs_size
    state = eng.init(np.arange(32, dtype=np.uint64))
    obs, mask = eng.observe(state), eng.legal_action_mask(state)
    with torch.no_grad():
        a = net(torch.as_tensor(obs), torch.as_tensor(mask))[0].argmax(-1)
        b = shipped(torch.as_tensor(obs[:, : shipped.obs_size]), torch.as_tensor(mask))[0]
    assert torch.equal(a, b.argmax(-1))
    with pytest.raises(ValueError, match="hidden=256, not 128"):
        init_policy(str(SHIPPED), HISTORY, eng.obs_size, 128)
    with pytest.raises(ValueError, match="reads"):
        init_policy(str(SHIPPED), HISTORY, shipped.obs_size - 1, 256)


def test_a_standard_checkpoint_is_an_opponent_of_a_history_learner(tmp_path: Path) -> None:
    agent = load_agent(str(SHIPPED), HISTORY)  # loaded with the run's (history) rules
    assert isinstance(agent, PolicyAgent) and agent.rules.observation == "standard"  # the prefix
    eng = Engine(HISTORY)
    table = Table(eng, eng.init(np.arange(3, dtype=np.uint64)), [agent], [0, 0, 0, 0])
    assert table.obs_size(0) == Engine(Rules.preset("standard")).obs_size
    assert table.play_until_external() > 0
    out = ppo_pool.main(["--rule", "observation=history", "--opponents", f"{SHIPPED},hard",
                         "--total-steps", "256", "--num-envs", "8", "--rollout", "16",
                         "--no-progress", "--no-tensorboard", "--out", str(tmp_path)])
    assert out["steps"] >= 128


def _run(out: Path, decisions: int, *extra: str) -> dict[str, float]:
    return distill.main(["--teacher", "hard", "--opponents", "random", "--decisions",
                         str(decisions), "--games", "8", "--epochs", "2", "--no-progress",
                         "--out", str(out), *extra])


def test_collect_and_fit_a_history_policy(tmp_path: Path) -> None:
    last = _run(tmp_path, 60)
    with np.load(tmp_path / distill.DATA) as f:
        obs, mask, act, ret = f["obs"], f["mask"], f["act"], f["ret"]
    eng = Engine(HISTORY)
    assert len(act) >= 60 and obs.shape == (len(act), eng.obs_size)
    assert (mask.sum(1) > 1).all()  # forced moves left out
    assert mask[np.arange(len(act)), act].all()  # every kept action legal
    assert set(np.unique(ret)) <= set(reward_table(HISTORY).tolist())
    assert ret.mean() > 0.5  # the teacher's own rewards: Hard against three Random wins most
    hard = load_agent("hard", HISTORY)  # the teacher's choices are Hard's on those observations
    assert np.array_equal(hard.act_batch(obs, mask), act)
    with open(tmp_path / "metrics.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["epoch"] for r in rows] == ["0", "1", "2"]
    agent = PolicyAgent.load(tmp_path / "policy.pt", HISTORY)
    n_train = int(round(len(act) * 0.9))  # the reported agreement is the saved policy's
    assert last["train_agreement"] == pytest.approx(
        float((agent.act_batch(obs[:n_train], mask[:n_train]) == act[:n_train]).mean()))
    table = Table(eng, eng.init(np.arange(4, dtype=np.uint64)), [agent], [0, 0, 0, 0])
    assert table.play_until_external() > 0


def test_the_collection_resumes_and_refuses_other_teachers(tmp_path: Path) -> None:
    _run(tmp_path, 40)
    with np.load(tmp_path / distill.DATA) as f:
        first = f["act"].copy()
    _run(tmp_path, 90)
    with np.load(tmp_path / distill.DATA) as f:
        assert len(f["act"]) >= 90 and np.array_equal(f["act"][: len(first)], first)
    with pytest.raises(SystemExit):
        distill.main(["--teacher", "easy", "--opponents", "random", "--decisions", "10",
                      "--no-progress", "--out", str(tmp_path)])


def test_the_fit_starts_from_the_shipped_policy(tmp_path: Path) -> None:
    _run(tmp_path, 40, "--init", str(SHIPPED), "--epochs", "1")
    net, rules, meta = load_policy(tmp_path / "policy.pt", HISTORY)
    assert rules.observation == "history" and meta["teacher"] == "hard"
    assert net.obs_size == Engine(HISTORY).obs_size
    with np.load(tmp_path / distill.DATA) as f:  # before the fit, it played as the shipped one
        obs, mask, act = f["obs"], f["mask"], f["act"]
    snet, trained, _ = load_policy(SHIPPED)
    n_train = int(round(len(act) * 0.9))
    agree = PolicyAgent(snet, trained).act_batch(obs[:, : snet.obs_size], mask) == act
    with open(tmp_path / "metrics.csv") as f:
        first = next(csv.DictReader(f))
    assert float(first["train_agreement"]) == pytest.approx(float(agree[:n_train].mean()))
    assert float(first["heldout_agreement"]) == pytest.approx(float(agree[n_train:].mean()))


def test_the_fit_adds_the_decisions_of_other_collections(tmp_path: Path) -> None:
    _run(tmp_path / "a", 30)
    _run(tmp_path / "b", 30, "--seed", "1")
    sizes = []
    for name in ("a", "b"):
        with np.load(tmp_path / name / distill.DATA) as f:
            sizes.append(len(f["act"]))
    _run(tmp_path / "a", 30, "--also", str(tmp_path / "b" / distill.DATA))
    _, _, meta = load_policy(tmp_path / "a" / "policy.pt", HISTORY)
    assert meta["decisions"] == sum(sizes)
    _run(tmp_path / "d", 30, "--fit-only", "--also", str(tmp_path / "b" / distill.DATA))
    assert not (tmp_path / "d" / distill.DATA).exists()  # nothing collected
    _, _, meta = load_policy(tmp_path / "d" / "policy.pt", HISTORY)
    assert meta["decisions"] == sizes[1]
    with pytest.raises(SystemExit):  # nothing to fit
        _run(tmp_path / "e", 30, "--fit-only")
    with pytest.raises(SystemExit):  # not a file
        _run(tmp_path / "a", 30, "--also", str(tmp_path / "missing.npz"))
    other = tmp_path / "c"
    distill.main(["--teacher", "easy", "--opponents", "random", "--decisions", "10", "--games",
                  "4", "--epochs", "1", "--no-progress", "--out", str(other)])
    with pytest.raises(SystemExit):  # another teacher's decisions
        _run(tmp_path / "a", 30, "--also", str(other / distill.DATA))
