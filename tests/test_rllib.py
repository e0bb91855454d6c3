"""Ray RLlib: the README's snippet, ``train.rllib_ppo`` (two updates), its checkpoints and seats.

Every test here is marked ``rllib``: they need the optional extra ``rllib`` (Ray pins its own
Gymnasium), so ``make test`` runs them in ``.venv-rllib`` (``-m rllib``, with
``RLLIB_REQUIRED=1``: a missing Ray fails them there) and deselects them in ``.venv`` (``-m "not
rllib"``). Run elsewhere without Ray, they are skipped with the reason. Ray is imported inside
the tests, never at collection. One local Ray serves every test of the process (about 5 s to
start); each training test runs two updates of a few hundred steps.
"""

from __future__ import annotations

import csv
import importlib.util
import os
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from agents import pretrained
from agents.policy import PolicyAgent
from president_env.cli import check_args
from president_env.core.rules import Rules

HAVE_RAY = importlib.util.find_spec("ray") is not None
pytestmark = [
    pytest.mark.rllib,
    pytest.mark.skipif(
        not HAVE_RAY and not os.environ.get("RLLIB_REQUIRED"),
        reason='needs Ray RLlib: pip install -e ".[rllib]" in its own venv (make test-rllib)',
    ),
]

def _readme_snippet() -> str:
    """The README's RLlib snippet (``<!-- snippet: rllib -->``), verbatim."""
    text = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    found = re.findall(r"<!-- snippet: rllib -->\s*\n```python\n(.*?)\n```", text, re.S)
    assert len(found) == 1, "the README has no (or more than one) RLlib snippet"
    return str(found[0])


README_SNIPPET = _readme_snippet()
"""The README's RLlib section, verbatim: ``test_readme_snippet`` runs this text."""

STANDARD = Rules.preset("standard", num_players=4)


@pytest.fixture(scope="module")
def ray_local() -> Any:
    import ray

    if not ray.is_initialized():
        ray.init(include_dashboard=False, logging_level="warning", log_to_driver=False)
    yield ray
    ray.shutdown()


def test_readme_snippet(ray_local: Any) -> None:
    ns: dict[str, Any] = {}
    exec(compile(README_SNIPPET, "README.md (RLlib)", "exec"), ns)
    runners = ns["result"]["env_runners"]
    assert runners["num_env_steps_sampled_lifetime"] >= 2 * 512
    assert runners["num_episodes_lifetime"] >= 3  # about 95 steps a game: several game ends
    learner = ns["result"]["learners"]["shared"]
    assert np.isfinite(learner["policy_loss"]) and learner["entropy"] > 0


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open() as f:
        return list(csv.DictReader(f))


def test_trainer_two_updates_with_fixed_opponents(ray_local: Any, tmp_path: Path) -> None:
    from train.rllib_ppo import Args, convert, train

    shipped = str(pretrained.path("ppo"))
    args = Args(total_steps=512, rollout=256, env_runners=1, envs_per_runner=1, epochs=2, minibatches=2,
                opponents=("hard", shipped), eval_deals=10, out=str(tmp_path), seed=3,
                progress=False, tensorboard=False, checkpoint_every=1)
    summary = train(args)
    run = Path(summary["run_dir"])
    rows = _rows(run / "metrics.csv")
    assert [int(r["update"]) for r in rows] == [1, 2]
    assert [int(r["steps"]) for r in rows] == [256, 512]
    assert all(float(r["steps_per_s"]) > 0 and float(r["iter_seconds"]) > 0 for r in rows)
    assert 1 <= float(rows[-1]["mean_place"]) <= 4 and int(rows[-1]["games"]) >= 3
    assert 1 <= float(rows[-1]["eval_mean_place"]) <= 4
    for name in ("policy.pt", "policy_256.pt", "policy_512.pt", "rllib", "rllib_512"):
        assert (run / name).exists(), name
    # the .pt plays in the project without Ray's help, for the rules it was trained for
    agent = PolicyAgent.load(run / "policy.pt", STANDARD)
    from president_env import env

    e = env(preset="standard")
    e.reset(seed=1)
    obs, *_ = e.last()
    assert obs["action_mask"][agent.act(obs["observation"], obs["action_mask"])] == 1
    # training moved the weights; the converter reads the same weights back from RLlib's files
    first = torch.load(run / "policy_256.pt", weights_only=True)["state_dict"]
    final = torch.load(run / "policy.pt", weights_only=True)["state_dict"]
    assert any(not torch.equal(first[k], final[k]) for k in final)
    converted = convert(run / "rllib", tmp_path / "converted.pt", STANDARD)
    again = torch.load(converted, weights_only=True)["state_dict"]
    assert all(torch.equal(again[k], final[k]) for k in final)
    assert "opponents=('hard'," in (run / "args.txt").read_text()


def test_cli_errors_are_one_line(tmp_path: Path) -> None:
    from train.rllib_ppo import Args

    for bad, message in (
        (Args(opponents=("hard",) * 4), "no seat of 4"),
        (Args(opponents=("nobody",)), "unknown opponent 'nobody'"),
        (Args(opponents=(str(tmp_path / "missing.pt"),)), "no checkpoint file"),
        (Args(num_envs=8), "not used by train.rllib_ppo"),
        (Args(rollout=2, env_runners=0, envs_per_runner=1, minibatches=8), "cannot make 8 minibatches"),
        (Args(envs_per_runner=0), "--envs-per-runner 0"),
    ):
        with pytest.raises(ValueError, match=message):
            check_args(bad)
    from train.rllib_ppo import convert

    with pytest.raises(ValueError, match="not an RLlib checkpoint"):
        convert(tmp_path, tmp_path / "x.pt", STANDARD)


def test_seat_map_draws_every_game_and_repeats() -> None:
    from train.rllib.seats import LIVE, SeatMap

    class Episode:
        def __init__(self, i: int) -> None:
            self.id_ = f"game{i}"

    def seatings(seed: int) -> list[tuple[str, ...]]:
        seats = SeatMap(["hard", "normal"], 4, seed)
        return [tuple(seats(f"player_{p}", Episode(i)) for p in range(4)) for i in range(40)]

    games = seatings(0)
    assert all(sorted(g) == sorted(["hard", "normal", LIVE, LIVE]) for g in games)
    assert len(set(games)) > 4  # the opponents move around the table
    assert seatings(0) == games and seatings(1) != games


def test_modules_check_spaces_and_mask_illegal_actions() -> None:
    from gymnasium import spaces

    from president_env import env
    from train.rllib.modules import FixedAgentModule, MaskedPPOModule
    from train.rllib.seats import fixed_agent_config

    e = env(preset="standard")
    obs_space, act_space = e.observation_space("player_0"), e.action_space("player_0")
    module = MaskedPPOModule(observation_space=obs_space, action_space=act_space,
                             model_config={"hidden": 32})
    e.reset(seed=0)
    obs, *_ = e.last()
    batch = {"obs": {k: torch.as_tensor(v[None]) for k, v in obs.items()}}
    logits = module.forward_exploration(batch)["action_dist_inputs"][0]
    assert (logits[torch.as_tensor(obs["action_mask"] == 0)] <= -1e8).all()
    hard = FixedAgentModule(observation_space=obs_space, action_space=act_space,
                            model_config=fixed_agent_config(STANDARD, agent="hard"))
    action = int(hard.forward_inference(batch)["actions"][0])
    assert obs["action_mask"][action] == 1
    with pytest.raises(ValueError, match="'observation' and 'action_mask'"):
        MaskedPPOModule(observation_space=spaces.Box(0, 1, (4,)), action_space=act_space,
                        model_config={})
