"""The trainers and the evaluation on the further variants (RULES.md section 12): every trainer
runs on ``daifugo_full`` with every other new option turned on too (Western revolution, mixed and
capped runs, the President's asks over two deals), and its checkpoint plays those rules."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents import load_agent
from agents.policy import PolicyAgent
from president_env.core.engine import Engine
from president_env.core.rules import Rules
from president_env.table import Table
from president_env.testing.configs import ALL_VARIANTS, all_variants_rules

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = [f"{name}={value!r}" for name, value in ALL_VARIANTS.items()]
RULES = all_variants_rules()


def _train(module: str, extra: list[str], tmp_path: Path) -> Path:
    rules = [arg for opt in VARIANTS for arg in ("--rule", opt)]
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    proc = subprocess.run(
        [sys.executable, "-m", module, "--preset", "daifugo_full", *rules, "--total-steps",
         "1024", "--num-envs", "16", "--rollout", "32", "--epochs", "1", "--minibatches", "2",
         "--snapshot-every", "1", "--checkpoint-every", "1", "--threads", "1", "--out", "out",
         "--progress", "false", *extra],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (run,) = (tmp_path / "out").iterdir()
    return run


@pytest.mark.slow
@pytest.mark.parametrize(
    "module, extra",
    [
        ("train.selfplay_ppo", ["--hidden", "64", "--eval-every", "1", "--eval-deals", "4"]),
        ("train.ppo_pool", ["--bc-decisions", "300", "--bc-epochs", "1"]),
    ],
)
def test_trainers_run_on_every_variant(module: str, extra: list[str], tmp_path: Path) -> None:
    run = _train(module, extra, tmp_path)
    with (run / "metrics.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [int(r["steps"]) for r in rows] == [512, 1024]
    agent = PolicyAgent.load(run / "policy.pt", RULES)
    assert agent.rules == RULES
    with pytest.raises(ValueError, match="other rules"):
        PolicyAgent.load(run / "policy.pt", Rules.preset("daifugo_full"))
    # the checkpoint plays whole games of those rules at a table, asks included
    eng = Engine(RULES)
    policies = [agent, *(load_agent(name, RULES, seed=1) for name in ("hard", "easy", "random"))]
    table = Table(eng, eng.init(np.arange(8)), policies, np.arange(4))
    table.play_until_external()
    assert table.state.terminated.all()
    assert np.all(np.sort(eng.standings(table.state), axis=1) == np.arange(4))
