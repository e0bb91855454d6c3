"""Training scripts (smoke tests as subprocesses), their command lines, checkpoints and the
policy agent."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pytest
import torch

from agents import pretrained
from agents.checkpoints import load_checkpoint
from agents.policy import CheckpointError, PolicyAgent, PolicyNet, load_policy, save_policy
from president_env.cli import parse, parser, rule_options
from president_env.core.engine import Engine
from president_env.core.rules import Rules

ROOT = Path(__file__).resolve().parent.parent


def _run(args: list[str], tmp_path: Path, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg", OMP_NUM_THREADS="1")
    proc = subprocess.run(
        [sys.executable, *args], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


def test_ppo_pool_smoke(tmp_path: Path) -> None:
    _run(
        ["-m", "train.ppo_pool", "--total-steps", "1024", "--num-envs", "16", "--rollout",
         "32", "--bc-decisions", "500", "--bc-epochs", "1", "--pool-weight", "0.3",
         "--snapshot-every", "1", "--checkpoint-every", "1", "--out", "out", "--progress",
         "false"],
        tmp_path,
    )
    run = tmp_path / "out" / "standard_p4_seed0"
    assert (run / "policy.pt").is_file()
    lines = (run / "metrics.csv").read_text().splitlines()
    assert lines[0].startswith("update,steps") and len(lines) == 3  # header + 2 updates
    agent = PolicyAgent.load(run / "policy.pt", Rules.preset("standard"))
    assert agent.rules.num_players == 4


def test_maskable_ppo_smoke(tmp_path: Path) -> None:
    _run(
        ["-m", "train.maskable_ppo", "--total-steps", "256", "--n-steps", "128",
         "--batch-size", "64", "--opponents", "easy", "--out", "out"],  # default progress bar
        tmp_path,
    )
    assert (tmp_path / "out" / "standard_p4_seed0" / "model.zip").is_file()


def test_demo_smoke(tmp_path: Path) -> None:
    proc = _run(
        ["-m", "train.demo", "--minutes", "0.05", "--deals", "8", "--bc-decisions", "500",
         "--num-envs", "16", "--out", "demo"],
        tmp_path,
        timeout=600,
    )
    assert "3 x hard" in proc.stdout
    assert (tmp_path / "demo" / "learning_curve.png").stat().st_size > 1000
    assert (tmp_path / "demo" / "tournaments.md").is_file()


def _net(rules: Rules, seed: int = 0) -> PolicyNet:
    torch.manual_seed(seed)
    eng = Engine(rules)
    return PolicyNet(eng.obs_size, eng.num_actions, hidden=32)


def _decisions(rules: Rules, n: int = 64) -> tuple[np.ndarray, np.ndarray]:
    eng = Engine(rules)
    rng = np.random.default_rng(0)
    state = eng.init(np.arange(n))
    for _ in range(7):
        state = eng.step(state, eng.sample_random(eng.legal_action_mask(state), rng))
    return eng.observe(state), eng.legal_action_mask(state)


def test_checkpoint_round_trip_plays_the_same(tmp_path: Path) -> None:
    rules = Rules.preset("standard")
    net = _net(rules)
    save_policy(tmp_path / "p.pt", net, rules, meta={"note": "test"})
    obs, mask = _decisions(rules)
    before = PolicyAgent(net, rules).act_batch(obs, mask)
    agent = PolicyAgent.load(tmp_path / "p.pt", rules)
    after = agent.act_batch(obs, mask)
    np.testing.assert_array_equal(before, after)
    assert mask[np.arange(len(after)), after].all()  # legal
    assert agent.act(obs[0], mask[0]) == after[0]
    _, _, meta = load_policy(tmp_path / "p.pt")
    assert meta == {"note": "test"}


def test_sampling_policy_is_seeded_and_legal() -> None:
    rules = Rules.preset("daifugo")
    obs, mask = _decisions(rules)
    a = PolicyAgent(_net(rules), rules, greedy=False, seed=3).act_batch(obs, mask)
    b = PolicyAgent(_net(rules), rules, greedy=False, seed=3).act_batch(obs, mask)
    np.testing.assert_array_equal(a, b)
    assert mask[np.arange(len(a)), a].all()


def test_bad_checkpoints_are_refused(tmp_path: Path) -> None:
    rules = Rules.preset("standard")
    with pytest.raises(CheckpointError, match="no checkpoint file"):
        PolicyAgent.load(tmp_path / "missing.pt")
    (tmp_path / "junk.pt").write_bytes(b"\x00not a checkpoint" * 10)
    with pytest.raises(CheckpointError, match="not a readable checkpoint"):
        PolicyAgent.load(tmp_path / "junk.pt")
    torch.save({"hello": 1}, tmp_path / "other.pt")
    with pytest.raises(CheckpointError, match="not a president-policy checkpoint"):
        PolicyAgent.load(tmp_path / "other.pt")
    save_policy(tmp_path / "p.pt", _net(rules), rules)
    with pytest.raises(CheckpointError, match="trained for other rules"):
        PolicyAgent.load(tmp_path / "p.pt", Rules.preset("daifugo"))
    with pytest.raises(CheckpointError, match="trained for other rules"):
        PolicyAgent.load(tmp_path / "p.pt", Rules.preset("standard", num_players=5))
    # a truncated file
    data = (tmp_path / "p.pt").read_bytes()
    (tmp_path / "cut.pt").write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError):
        PolicyAgent.load(tmp_path / "cut.pt")
    # weights of another shape
    ck = torch.load(tmp_path / "p.pt", weights_only=True)
    ck["state_dict"]["pi.bias"] = torch.zeros(3)
    torch.save(ck, tmp_path / "shape.pt")
    with pytest.raises(CheckpointError, match="do not fit"):
        PolicyAgent.load(tmp_path / "shape.pt")


def test_policy_agent_checks_shapes() -> None:
    rules = Rules.preset("standard")
    agent = PolicyAgent(_net(rules), rules)
    obs, mask = _decisions(rules, 4)
    with pytest.raises(ValueError, match="do not match"):
        agent.act_batch(obs[:, :10], mask)
    with pytest.raises(ValueError, match="expected"):
        agent.act_batch(obs[0], mask[0])


def test_seeded_training_repeats_exactly(tmp_path: Path) -> None:
    from train.ppo_pool import Args, train

    def run(out: str) -> dict[str, torch.Tensor]:
        summary = train(
            Args(total_steps=1024, num_envs=16, rollout=32, bc_decisions=300, bc_epochs=1,
                 out=str(tmp_path / out), progress=False, tensorboard=False, threads=1, seed=5)
        )
        net, _, _ = load_policy(summary["checkpoint"])
        return net.state_dict()

    a, b = run("a"), run("b")
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_shipped_policy_loads_and_beats_random() -> None:
    from train.eval.tournament import evaluate_policy

    rules = Rules.preset("standard", num_players=4)
    agent = PolicyAgent.load(pretrained.path("ppo"), rules)
    assert (pretrained.path("ppo")).stat().st_size < 5_000_000
    rows = evaluate_policy(agent, rules, num_deals=50, seed=3, baselines=("random",),
                           progress=False)
    assert rows[0]["mean_place_hi"] < 1.6  # random opponents average 2.5



@dataclass
class _Base:
    deals: int = 10
    """Deals to play, 100% of them."""
    tags: tuple[str, ...] = ("a", "b")
    """Tags, comma-separated."""


@dataclass
class _Args(_Base):
    deals: int = 5
    seating: Literal["rotate", "all"] = "rotate"
    """How to seat."""
    progress: bool = True
    """Show a bar."""
    out: Path | None = None
    """Output."""
    extra: dict[str, Any] = rule_options()
    """Rule options."""
    plain: list[int] = field(default_factory=list)


def test_command_lines_come_from_the_dataclasses() -> None:
    from train import ppo_pool, selfplay_ppo

    help_text = " ".join(parser(_Args).format_help().split())
    for doc in ("Deals to play, 100% of them. (default: 5)", "How to seat.", "Show a bar.",
                "--no-progress", "Rule options.", "KEY=VALUE"):
        assert doc in help_text, doc
    assert parse(_Args, []) == _Args()
    args = parse(_Args, ["--deals", "3", "--tags", "x,y", "--seating", "all", "--no-progress",
                         "--out", "o", "--rule", "deals=3", "--rule", "jokers=2", "--plain", "1,2"])
    assert args == _Args(3, ("x", "y"), "all", False, Path("o"), {"deals": 3, "jokers": 2}, [1, 2])
    assert parse(_Args, ["--progress", "false"]).progress is False
    assert parse(_Args, ["--progress"]).progress is True
    for bad in (["--seating", "none"], ["--deals", "x"], ["--progress", "maybe"], ["--plain", "1,a"]):
        with pytest.raises(SystemExit):
            parse(_Args, bad)
    # the trainers: every field documented, the shared ones from PPOArgs
    for cls in (ppo_pool.Args, selfplay_ppo.Args):
        text = " ".join(parser(cls).format_help().split())
        assert "Rules preset the policy is trained for." in text and "PPO clip range." in text
        assert "Output folder: checkpoints" in text  # `out` declared again, doc inherited


# ---------------------------------------------------------------------------- SB3 models
@pytest.fixture(scope="module")
def sb3_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A MaskablePPO model.zip from train.maskable_ppo (256 steps, in-process)."""
    from train import maskable_ppo

    out = tmp_path_factory.mktemp("sb3")
    summary = maskable_ppo.train(maskable_ppo.Args(
        total_steps=256, n_steps=128, batch_size=64, opponents="easy", out=str(out),
        progress=False,
    ))
    assert summary["steps"] == 256
    return Path(summary["model"])


def test_a_maskable_ppo_model_is_a_policy(sb3_model: Path) -> None:
    from sb3_contrib import MaskablePPO

    from agents import load_agent
    from agents.sb3 import SB3Policy, is_sb3_model, saved_rules

    rules = Rules.preset("standard")
    assert is_sb3_model(sb3_model) and not is_sb3_model(pretrained.path("ppo"))
    assert saved_rules(sb3_model) == Rules.from_dict(dict(rules.to_dict(), preset_name=None))
    policy = load_agent(f"{sb3_model}#2", rules)
    assert isinstance(policy, SB3Policy) and policy.rules == rules
    assert isinstance(load_checkpoint(sb3_model), SB3Policy)  # the one loader reads it too
    obs, mask = _decisions(rules)
    mask[3] = False  # a row without a legal action
    actions = policy.act_batch(obs, mask)
    assert actions[3] == -1
    rows = np.flatnonzero(mask.any(axis=1))
    expected, _ = MaskablePPO.load(sb3_model).predict(
        obs[rows], action_masks=mask[rows], deterministic=True
    )
    np.testing.assert_array_equal(actions[rows], expected)
    assert mask[rows, actions[rows]].all()
    assert policy.act(obs[0], mask[0]) == actions[0]
    sampled = SB3Policy.load(sb3_model, deterministic=False, seed=1).act_batch(obs[rows], mask[rows])
    again = SB3Policy.load(sb3_model, deterministic=False, seed=1).act_batch(obs[rows], mask[rows])
    np.testing.assert_array_equal(sampled, again)
    assert mask[rows, sampled].all()


def test_sb3_model_in_a_tournament_and_the_evaluator(
    sb3_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from train import evaluate, tournament
    from train.common.pool import parse_opponents
    from train.eval.tournament import run_tournament

    rules = Rules.preset("standard")
    shipped = pretrained.path("ppo")
    res = run_tournament({"zip": str(sb3_model), "hard": "hard", "pt": str(shipped),
                          "easy": "easy"}, rules, 4, seed=1, progress=False, ratings=False)
    assert res.names == ["zip", "hard", "pt", "easy"] and (res.places >= 0).all()
    assert tournament.main(["--agents", f"hard,{sb3_model},{shipped},easy", "--deals", "2",
                            "--no-progress", "--no-ratings", "--out", str(tmp_path / "t")]) == 0
    assert str(sb3_model) in capsys.readouterr().out
    rows = evaluate.main([str(sb3_model), "--deals", "4", "--baselines", "hard",
                          "--json", str(tmp_path / "e" / "rows.json")])
    assert rows[0]["opponents"] == "3 x hard" and (tmp_path / "e" / "rows.json").is_file()
    agents, _ = parse_opponents(f"hard:0.5,{sb3_model}:0.5", rules, seed=0)  # trainers' pools
    assert type(agents[1]).__name__ == "SB3Policy"


def test_bad_sb3_models_are_refused(sb3_model: Path, tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    from agents.sb3 import RULES_KEY, SB3Policy

    with pytest.raises(CheckpointError, match="trained for other rules.*allow_equal"):
        SB3Policy.load(sb3_model, Rules.preset("standard", allow_equal=True))
    model = MaskablePPO.load(sb3_model)
    delattr(model, RULES_KEY)
    model.save(tmp_path / "plain.zip")
    with pytest.raises(CheckpointError, match="does not store its rules"):
        SB3Policy.load(tmp_path / "plain.zip")
    assert SB3Policy.load(tmp_path / "plain.zip", Rules.preset("standard")).rules.num_players == 4
    with pytest.raises(CheckpointError, match="observations"):
        SB3Policy.load(tmp_path / "plain.zip", Rules.preset("daifugo"))
    weights = model.policy.state_dict()
    weights["action_net.weight"][0, 0] = float("nan")
    model.policy.load_state_dict(weights)
    model.save(tmp_path / "nan.zip")
    with pytest.raises(CheckpointError, match=r"nan.zip: tensor 'action_net.weight' holds 1 NaN"):
        SB3Policy.load(tmp_path / "nan.zip", Rules.preset("standard"))
    data = sb3_model.read_bytes()
    (tmp_path / "cut.zip").write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="cut.zip"):
        load_checkpoint(tmp_path / "cut.zip")
