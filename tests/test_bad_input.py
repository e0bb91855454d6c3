"""Bad input gets a clear error: hands beyond the pack, damaged checkpoints, a policy at a table
of other rules, and bad command-line values (one line ``error: ...``, exit code 2, before any
work). Also the progress bar of a time-bounded run."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from agents import load_agent, pretrained
from agents.policy import CheckpointError, PolicyAgent, PolicyNet, save_policy
from president_env.cli import check_args
from president_env.core.cards import parse_hand
from president_env.core.engine import Engine
from president_env.core.rules import Rules
from train.common.pool import parse_opponents
from train.eval.tournament import evaluate_policy, run_tournament

STANDARD = Rules.preset("standard")
EQUAL = Rules.preset("standard", allow_equal=True)  # same sizes, another game
SHIPPED = pretrained.path("ppo")


# ---------------------------------------------------------------------------- hands
def test_a_card_given_256_times_is_refused_not_wrapped() -> None:
    eng = Engine(STANDARD)
    many = ["3c " * 256 + "4c", "5c", "6c", "7c"]
    with pytest.raises(ValueError, match=r"card 3c \(id 0\) is dealt 256 times, but the pack holds 1"):
        eng.init_from_hands(many)
    counts = np.zeros((4, 53), np.int64)
    counts[0, 0], counts[1, 5], counts[2, 6], counts[3, 7] = 256, 1, 1, 1
    with pytest.raises(ValueError, match="dealt 256 times"):
        eng.init_from_hands(counts)
    counts[0, 0] = 2**62  # a sum over the players must not overflow either
    counts[1, 0] = 2**62
    with pytest.raises(ValueError, match="but the pack holds 1"):
        eng.init_from_hands(counts)
    with pytest.raises(ValueError, match="is given 200 times in one hand"):
        parse_hand("3c " * 200)
    assert parse_hand("3c 3d 2s JK").tolist().count(1) == 4  # valid input as before


def test_aec_reset_with_a_card_given_256_times_raises() -> None:
    from president_env import env

    e = env(preset="standard")
    with pytest.raises(ValueError, match="dealt 256 times"):
        e.reset(options={"hands": ["3c " * 256 + "4c", "5c", "6c", "7c"]})


# ---------------------------------------------------------------------------- checkpoints
def _net(seed: int = 0) -> PolicyNet:
    torch.manual_seed(seed)
    eng = Engine(STANDARD)
    return PolicyNet(eng.obs_size, eng.num_actions, hidden=16)


@pytest.mark.parametrize(
    "name, value, message",
    [
        ("pi.weight", float("nan"), r"tensor 'pi.weight' holds 1 NaN or infinite value"),
        ("trunk.0.bias", float("inf"), r"tensor 'trunk.0.bias' holds 1 NaN or infinite value"),
        ("trunk.2.weight", 0.0, r"weight matrix 'trunk.2.weight' \(16, 16\) is all zeros"),
    ],
)
def test_checkpoints_with_broken_weights_are_refused(
    tmp_path: Path, name: str, value: float, message: str
) -> None:
    net = _net()
    sd = net.state_dict()
    if value == 0.0:
        sd[name].zero_()
    else:
        sd[name].view(-1)[0] = value
    net.load_state_dict(sd)
    save_policy(tmp_path / "bad.pt", net, STANDARD)
    with pytest.raises(CheckpointError, match=message) as info:
        PolicyAgent.load(tmp_path / "bad.pt")
    assert str(tmp_path / "bad.pt") in str(info.value)


def test_a_truncated_checkpoint_names_the_file(tmp_path: Path) -> None:
    save_policy(tmp_path / "p.pt", _net(), STANDARD)
    data = (tmp_path / "p.pt").read_bytes()
    (tmp_path / "cut.pt").write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match=r"cut.pt is not a readable checkpoint"):
        load_agent(str(tmp_path / "cut.pt"), STANDARD)


# ---------------------------------------------------------------------------- rules
def test_a_policy_of_other_rules_cannot_sit_at_the_table() -> None:
    own = PolicyAgent.load(SHIPPED)  # no rules given: the checkpoint's own
    assert own.rules.allow_equal is False
    diff = r"allow_equal: table True, policy False"
    with pytest.raises(ValueError, match=diff):
        evaluate_policy(own, EQUAL, 2, baselines=("easy",), progress=False)
    with pytest.raises(ValueError, match=r"agent 'p' was made for other rules.*" + diff):
        run_tournament({"p": own, "a": "easy", "b": "easy", "c": "easy"}, EQUAL, 2,
                       progress=False)
    with pytest.raises(CheckpointError, match=r"trained for other rules.*allow_equal"):
        run_tournament({"p": str(SHIPPED), "a": "easy", "b": "easy", "c": "easy"}, EQUAL, 2,
                       progress=False)
    with pytest.raises(CheckpointError, match="allow_equal"):  # a trainer's opponents
        parse_opponents(f"hard:0.5,{SHIPPED}:0.5", EQUAL, seed=0)
    agents, weights = parse_opponents(f"hard:0.5,{SHIPPED}:0.5", STANDARD, seed=0)
    assert isinstance(agents[1], PolicyAgent) and weights == [0.5, 0.5]


# ---------------------------------------------------------------------------- command lines
def _call(main: Callable[..., Any], argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """stderr of ``main(argv)``, which must stop with exit code 2."""
    try:
        code = main(argv)
    except SystemExit as e:
        code = e.code
    err = capsys.readouterr().err
    assert code == 2, (argv, err)
    return err


BAD = [
    ("train.maskable_ppo", ["--total-steps", "-5"], "error: --total-steps -5: expected a number > 0"),
    ("train.maskable_ppo", ["--opponents", "hard,easy"], "error: --opponents hard,easy: give 1 or 3"),
    ("train.maskable_ppo", ["--n-steps", "1"], "error: --n-steps 1: expected an integer >= 2"),
    ("train.ppo_pool", ["--num-envs", "0"], "error: --num-envs 0: expected a number > 0"),
    ("train.ppo_pool", ["--seed", "-1"], "error: --seed -1: expected a number >= 0"),
    ("train.ppo_pool", ["--opponents", "hard:x"], "error: --opponents hard:x: weight of 'hard'"),
    ("train.ppo_pool", ["--init", "missing.pt"], "error: --init missing.pt: no such file"),
    ("train.ppo_pool", ["--lr", "nan"], "error: --lr nan: expected a number > 0"),
    ("train.ppo_pool", ["--preset", "nope"], "error: unknown preset"),
    ("train.selfplay_ppo", ["--pool-share", "1.5"], "error: --pool-share 1.5: expected a number from 0 to 1"),
    ("train.selfplay_ppo", ["--pool", "bogus:1"], "error: --pool bogus:1: unknown agent 'bogus'"),
    ("train.evaluate", [str(SHIPPED), "--deals", "-1"], "error: --deals -1: expected a number > 0"),
    ("train.evaluate", [str(SHIPPED), "--seed", "-1"], "error: --seed -1: expected a number >= 0"),
    ("train.evaluate", ["missing.pt"], "error: checkpoint missing.pt: no such file"),
    ("train.evaluate", [str(SHIPPED), "--baselines", "hard,nobody"], "error: --baselines hard,nobody"),
    ("train.evaluate", [str(SHIPPED), "--preset", "daifugo"], "error: " + str(SHIPPED)),
    ("train.evaluate", [], "error: the following arguments are required: checkpoint"),
    ("train.tournament", ["--deals", "0"], "error: --deals 0: expected a number > 0"),
    ("train.tournament", ["--agents", "hard,x.pt,easy,random"], "error: --agents: no checkpoint file at x.pt"),
    ("train.tournament", ["--agents", "hard,easy"], "one agent per seat"),
    ("train.demo", ["--minutes", "0"], "error: --minutes 0.0: expected a number > 0"),
    ("train.demo", ["--deals", "x"], "error: argument --deals: invalid int value: 'x'"),
    ("apps.play", ["--seed", "-1"], "error: --seed must be a non-negative integer"),
]


@pytest.mark.parametrize("module, argv, message", BAD, ids=[f"{m} {' '.join(a)}" for m, a, _ in BAD])
def test_every_command_line_refuses_bad_values_in_one_line(
    module: str, argv: list[str], message: str, capsys: pytest.CaptureFixture[str],
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    err = _call(importlib.import_module(module).main, argv, capsys)
    assert err.count("\n") == 1 and err.startswith("error: "), err
    assert message in err, err
    assert list(tmp_path.iterdir()) == []  # refused before any work or output


def test_output_paths_are_checked_before_the_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from train import evaluate, tournament

    (tmp_path / "file").write_text("")
    err = _call(evaluate.main, [str(SHIPPED), "--json", str(tmp_path / "file" / "x.json")], capsys)
    assert f"error: --json {tmp_path}/file/x.json: cannot be made: {tmp_path}/file is a file" in err
    err = _call(evaluate.main, [str(SHIPPED), "--json", str(tmp_path)], capsys)
    assert "is a folder, expected a file name" in err
    err = _call(tournament.main, ["--out", str(tmp_path / "file"), "--deals", "1"], capsys)
    assert "is a file, not a folder" in err
    # a missing folder is made when the output is written
    rows = evaluate.main([str(SHIPPED), "--deals", "2", "--baselines", "random",
                          "--json", str(tmp_path / "new" / "deep" / "rows.json")])
    assert (tmp_path / "new" / "deep" / "rows.json").is_file() and len(rows) == 1


def test_arguments_built_in_code_are_checked_too(tmp_path: Path) -> None:
    from train import maskable_ppo, ppo_pool, selfplay_ppo

    with pytest.raises(ValueError, match="--total-steps -5: expected a number > 0"):
        ppo_pool.train(ppo_pool.Args(total_steps=-5, out=str(tmp_path)))
    with pytest.raises(ValueError, match="--eval-deals 0"):
        check_args(selfplay_ppo.Args(eval_deals=0))
    with pytest.raises(ValueError, match="--total-steps -5"):
        maskable_ppo.train(maskable_ppo.Args(total_steps=-5, out=str(tmp_path)))
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------- progress bar
def test_a_time_bounded_run_shows_time_and_a_step_bounded_one_steps(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from train.common.run import _bar
    from train.ppo_pool import Args

    timed = _bar(Args(total_steps=10**9, max_seconds=180, num_envs=128, rollout=64), 999_997_440,
                 "PPO")
    timed.update(45.0)
    line = str(timed)
    timed.close()
    assert timed.total == 180.0
    assert "25%" in line and "elapsed" in line and "left" in line and "999" not in line, line
    steps = _bar(Args(), 2_000_000, "PPO")
    assert steps.total == 2_000_000 and "/2000000" in str(steps)
    steps.close()
    capped = _bar(Args(max_steps=1000, num_envs=16, rollout=32), 10**6, "PPO")
    assert capped.total == 1024  # the update that reaches max_steps
    capped.close()
    capsys.readouterr()


def test_single_agent_env_refuses_an_opponent_of_other_rules_at_construction() -> None:
    from agents import pretrained
    from agents.policy import PolicyAgent
    from president_env import Rules, SingleAgentEnv

    policy = PolicyAgent.load(pretrained.path("ppo"))
    other = Rules.preset("standard", revolution=not policy.rules.revolution)
    with pytest.raises(ValueError, match=r"opponent 1 was made for other rules .*revolution"):
        SingleAgentEnv(rules=other, opponents=policy)
    SingleAgentEnv(rules=policy.rules, opponents=policy).reset(seed=0)  # its own rules: fine
