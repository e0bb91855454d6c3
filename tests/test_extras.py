"""The base install: what works without the extras, and the one line that names the extra for
what does not. Run with the extras' packages hidden from the import system (a fresh venv with
``pip install .`` behaves so; the closing note of the 1.0 change measured one)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXTRAS = ("torch", "stable_baselines3", "sb3_contrib", "fastapi", "starlette", "uvicorn",
          "tensorboard", "matplotlib", "openskill")
HIDE = f"import sys\nfor m in {EXTRAS!r}: sys.modules[m] = None\n"


def _python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", HIDE + code, *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)


def test_the_env_agents_and_records_work_without_extras() -> None:
    code = (
        "import gymnasium, numpy as np, president_env\n"
        "from pettingzoo.test import api_test\n"
        "from agents import load_agent\n"
        "from president_env import Rules, Table, VectorEnv\n"
        "from president_env.core import Engine\n"
        "gymnasium.make('President-v0').reset(seed=0)\n"
        "api_test(president_env.env(preset='daifugo'), num_cycles=100)\n"
        "VectorEnv(4, preset='standard', seed=0).reset()\n"
        "rules = Rules.preset('standard', observation='record')\n"
        "seats = [load_agent(n, rules, seed=1) for n in ('expert', 'hard', 'normal', 'easy')]\n"
        "engine = Engine(rules)\n"
        "table = Table(engine, engine.init([3]), seats, np.arange(4))\n"
        "table.play_until_external()\n"
        "assert table.state.terminated.all()\n"
        "e = president_env.env(preset='standard', record=True); e.reset(seed=1)\n"
        "for a in e.agent_iter():\n"
        "    o, r, te, tr, i = e.last()\n"
        "    e.step(None if te or tr else int(o['action_mask'].nonzero()[0][0]))\n"
        "from president_env.records import record_from_json\n"
        "record_from_json(e.unwrapped.record.to_json())\n"
        "print('ok')\n"
    )
    out = _python(code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("ok")


@pytest.mark.parametrize(("spec", "extra"), [("policy", "train"), ("ppo", "train")])
def test_a_policy_file_names_the_extra(spec: str, extra: str) -> None:
    code = (
        "from agents import load_agent\nfrom president_env import Rules\n"
        "from president_env.extras import MissingExtra\n"
        "try:\n"
        f"    load_agent({spec!r}, Rules.preset('standard'))\n"
        "except MissingExtra as e:\n"
        "    print(e)\n"
    )
    out = _python(code)
    assert out.returncode == 0, out.stderr
    assert f"pip install 'president-env[{extra}]'" in out.stdout


@pytest.mark.parametrize(("module", "args", "extra"), [
    ("train.ppo_pool", ["--help"], "train"),
    ("train.evaluate", ["policy", "--deals", "2"], "train"),
    ("apps.play", ["--web", "--port", "1"], "web"),
])
def test_a_command_that_needs_an_extra_says_which_in_one_line(
        module: str, args: list[str], extra: str) -> None:
    code = "import runpy\nsys.argv = sys.argv[:1] + sys.argv[1:]\n" \
           f"runpy.run_module({module!r}, run_name='__main__', alter_sys=True)\n"
    out = _python(code, *args)
    assert out.returncode == 1
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and f"[{extra}]" in lines[0], out.stderr


def test_a_tournament_of_rule_based_agents_runs_without_extras(tmp_path: Path) -> None:
    code = ("import runpy\n"
            "runpy.run_module('train.tournament', run_name='__main__', alter_sys=True)\n")
    out = _python(code, "--agents", "hard,normal,easy,random", "--deals", "8", "--seed", "0",
                  "--no-progress", "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert "| hard |" in out.stdout
    assert (tmp_path / "stats.csv").is_file() and not (tmp_path / "mean_place.png").exists()
    assert "president-env[train]" in out.stderr  # the plot it could not draw
