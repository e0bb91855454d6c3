"""The RL libraries researchers use, on the envs as they are, with no glue.

Every snippet of the README's "Use with RL libraries" section runs here (those named
``rllib...`` run in the RLlib venv, ``tests/test_rllib.py``), and each client has a test of its
own: a rollout through at least three game ends, or two training iterations, with warnings as
errors. The only warnings let through are third-party notices that this project cannot fix,
each named in :data:`THIRD_PARTY_NOISE`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from president_env import SingleAgentEnv, VectorEnv, env
from president_env.core.rules import PRESET_PLAYERS, PRESETS

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SNIPPETS = {"sb3_subproc", "sb3_maskable_ppo", "torchrl", "tianshou", "cleanrl_torch"}
"""The README's snippets that run here; deleting one fails ``test_readme_lists_every_snippet``."""

THIRD_PARTY_NOISE: list[tuple[str, type[Warning]]] = [
    # TorchRL warns for any PettingZoo other than the one it was tested with (1.24.3)
    ("PettingZoo in TorchRL is tested", UserWarning),
]
PRESET_NAMES = list(PRESETS)


@pytest.fixture
def strict() -> Iterator[None]:
    """Warnings are errors (but THIRD_PARTY_NOISE); torch on one thread (a shared machine)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for message, category in THIRD_PARTY_NOISE:
            warnings.filterwarnings("ignore", message=message, category=category)
        yield
    torch.set_num_threads(threads)


def wrapped_presets() -> list[Any]:
    """The presets the libraries' wrappers are run on: ``daifugo_full`` (345 actions, the
    largest observation of the 3-8 player presets) and ``uecda`` (2,606 actions, five players)
    in ``make test``; the others ``long`` (``make test-long``: the wrappers see the same env
    class, only the sizes of its spaces differ)."""
    short = {"daifugo_full", "uecda"}
    assert short <= set(PRESET_NAMES)
    return [p if p in short else pytest.param(p, marks=pytest.mark.long) for p in PRESET_NAMES]


WRAPPED_PRESETS = wrapped_presets()


def few_players(preset: str) -> int:
    """The fewest players of a preset: the shortest games."""
    return PRESET_PLAYERS[preset][0]


# ---------------------------------------------------------------------- README snippets
def readme_snippets() -> dict[str, str]:
    """``{name: code}`` of every python block after a ``<!-- snippet: NAME -->`` line."""
    text = README.read_text()
    found = re.findall(r"<!-- snippet: (\S+) -->\s*\n```python\n(.*?)\n```", text, re.S)
    names = [name for name, _ in found]
    assert len(names) == len(set(names)), f"snippet names repeat: {names}"
    assert len(found) == text.count("<!-- snippet:"), "a snippet marker without a python block"
    return dict(found)


def test_readme_lists_every_snippet() -> None:
    names = set(readme_snippets())
    assert {n for n in names if not n.startswith("rllib")} == SNIPPETS
    assert "rllib" in names  # run by tests/test_rllib.py in the RLlib venv


def strict_header() -> str:
    """Lines run before a snippet: the warning filters of :func:`strict`, torch on one thread."""
    filters = "".join(
        f"warnings.filterwarnings('ignore', message={m!r}, category={c.__name__})\n"
        for m, c in THIRD_PARTY_NOISE
    )
    return (
        "import warnings\nwarnings.simplefilter('error')\n" + filters
        + "import torch\ntorch.set_num_threads(1)\n"
    )


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_readme_snippet_runs(name: str, tmp_path: Path) -> None:
    """Each snippet as a user runs it: ``python snippet.py``, in a process of its own (worker
    processes then import the script, as SB3's SubprocVecEnv does), warnings as errors."""
    script = tmp_path / f"readme_snippet_{name}.py"  # not the name of a module it imports
    script.write_text(strict_header() + readme_snippets()[name] + "\n")
    run = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, f"snippet {name} failed:\n{run.stdout}\n{run.stderr}"


@pytest.mark.parametrize("first", ["president_env", "gymnasium"])
def test_gymnasium_make_by_module_whatever_was_imported_first(first: str) -> None:
    """``gymnasium.make("president_env.envs.single_agent:President-v0")`` finds the id whether the
    package or Gymnasium was imported first (a fresh process: the registry starts empty)."""
    code = (
        f"import {first}\nimport president_env, gymnasium\n"
        "e = gymnasium.make('president_env.envs.single_agent:President-v0', preset='standard')\n"
        "obs, info = e.reset(seed=1)\nassert obs.shape == e.observation_space.shape\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr


# ---------------------------------------------------------------------- Stable-Baselines3
@pytest.mark.slow
def test_sb3_make_vec_env_subprocess_maskable_ppo(strict: None) -> None:
    """SB3 builds string ids with ``render_mode="rgb_array"``; before this release the env
    refused it and the parent saw only a ``ConnectionResetError``. The worker processes of a
    notebook or of pytest do not import the caller's modules:
    ``"president_env.envs.single_agent:President-v0"`` imports the module that registers the id (a script that imports ``president_env`` may name
    ``"President-v0"``, as the README's snippet does)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    venv = make_vec_env(
        "president_env.envs.single_agent:President-v0",
        n_envs=2,
        vec_env_cls=SubprocVecEnv,
        env_kwargs={"preset": "cardverse", "num_players": 3, "seat": "random"},
    )
    try:
        assert venv.render_mode == "rgb_array"
        model = MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=64, seed=0, device="cpu")
        model.learn(512)  # two iterations of 2 x 128 steps
        assert model.num_timesteps == 512
        assert len(model.ep_info_buffer or ()) >= 3  # games ended (Monitor records each)
        frames = [np.asarray(f) for f in venv.get_images()]
        assert all(f.ndim == 3 and f.shape[2] == 3 and f.dtype == np.uint8 for f in frames)
    finally:
        venv.close()


# ---------------------------------------------------------------------- TorchRL
@pytest.mark.slow
@pytest.mark.parametrize("preset", WRAPPED_PRESETS)
def test_torchrl_pettingzoo_wrapper_every_preset(strict: None, preset: str) -> None:
    """Before this release the rollout crashed at the first game end: infos gained keys."""
    import torch
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    tenv = PettingZooWrapper(
        env(preset=preset, num_players=few_players(preset)), use_mask=True, seed=0
    )
    check_env_specs(tenv)
    # the random actions come from torch's generator: seeded, the rollout does not depend on
    # the tests run before it in the process (at torch seeds 0-5, 400 steps end 2 or 3 random
    # 5-player uecda games, 600 end 4 or 5)
    torch.manual_seed(0)
    rollout = tenv.rollout(600, break_when_any_done=False)
    done = rollout["next", "done"].reshape(-1)
    assert int(done.sum()) >= 3, preset
    standing = rollout["next", "player_0", "info", "standing"].reshape(-1)
    assert (standing[done] >= 0).all() and (standing[~done] == -1).all()
    reward = sum(rollout["next", a, "reward"].sum() for a in tenv.possible_agents)
    assert abs(float(reward)) < 1e-4  # linear rewards: zero-sum in every deal


# ---------------------------------------------------------------------- Tianshou
@pytest.mark.slow
@pytest.mark.parametrize("preset", WRAPPED_PRESETS)
def test_tianshou_collects_episodes_every_preset(strict: None, preset: str) -> None:
    from tianshou.algorithm import (
        MARLRandomDiscreteMaskedOffPolicyAlgorithm,
        MultiAgentOffPolicyAlgorithm,
    )
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    def make() -> PettingZooEnv:
        return PettingZooEnv(env(preset=preset, num_players=few_players(preset)))

    e = make()
    random_seats: list[Any] = [
        MARLRandomDiscreteMaskedOffPolicyAlgorithm(e.action_space) for _ in e.agents
    ]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=random_seats, env=e)
    venv = DummyVectorEnv([make, make])
    venv.seed(0)
    collector: Collector[Any] = Collector(algorithm, venv, VectorReplayBuffer(4000, 2))
    stats = collector.collect(n_episode=3, reset_before_collect=True)
    assert stats.n_collected_episodes == 3, preset
    returns = np.asarray(stats.returns)
    assert returns.shape == (3, len(e.agents))
    np.testing.assert_allclose(returns.sum(axis=1), 0.0, atol=1e-5)


# ---------------------------------------------------------------------- plain torch
def test_torch_loop_over_the_vector_env_with_masked_sampling(strict: None) -> None:
    """Self-play in the vector env: one torch policy samples a legal action in every game."""
    venv = VectorEnv(8, preset="daifugo", num_players=3, seed=0)
    policy = torch.nn.Linear(venv.obs_size, venv.num_actions)
    obs, mask, info = venv.reset()
    ends = 0
    for _ in range(400):
        logits = policy(torch.as_tensor(obs)).masked_fill(~torch.as_tensor(mask), -1e8)
        action = torch.distributions.Categorical(logits=logits).sample()
        assert mask[np.arange(8), action.numpy()].all()
        obs, mask, rewards, terminated, info = venv.step(action.numpy())
        ends += int(terminated.sum())
        assert np.allclose(rewards.sum(axis=1), 0.0, atol=1e-6)
    assert ends >= 3


def test_gymnasium_vector_api_same_step_autoreset(strict: None) -> None:
    """CleanRL's ``SyncVectorEnv``: info arrays of fixed keys, masks through ``call``."""
    import gymnasium as gym

    envs: Any = gym.make_vec(
        "President-v0",
        num_envs=3,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP},
        preset="cardverse",
        num_players=3,
    )
    obs, info = envs.reset(seed=0)
    keys = set(info)
    rng, ends = np.random.default_rng(0), 0
    for _ in range(200):
        masks = np.stack(envs.call("action_masks"))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, reward, terminated, truncated, info = envs.step(actions)
        assert keys <= set(info)  # every key, every step (and final_info at episode ends)
        if terminated.any():
            final = info["final_info"]
            assert keys <= set(final) and (final["standing"][terminated] >= 0).all()
        ends += int(terminated.sum())
    assert ends >= 3
    envs.close()


# ---------------------------------------------------------------------- infos
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_aec_infos_keep_their_keys_and_types_from_reset(preset: str) -> None:
    e = env(preset=preset, num_players=few_players(preset), deals=2)
    e.reset(seed=0)
    first = {a: dict(i) for a, i in e.infos.items()}
    assert all(v == {"deal": 0, "score": 0, "standing": -1} for v in first.values())
    rng, final = np.random.default_rng(0), {}
    for agent in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        assert set(info) == {"deal", "score", "standing"}
        assert all(type(v) is int for v in info.values())
        if term or trunc:
            final[agent] = info
            e.step(None)
            continue
        assert info["standing"] == -1
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    scores = e.unwrapped.game_state.scores[0]
    assert [final[a]["score"] for a in e.possible_agents] == scores.tolist()
    assert sorted(final[a]["standing"] for a in e.possible_agents) == list(range(len(final)))
    assert all(final[a]["deal"] == 1 for a in e.possible_agents)


def test_single_agent_infos_keep_their_keys_and_types_from_reset() -> None:
    s = SingleAgentEnv(preset="standard", deals=2, seat="random")
    obs, info = s.reset(seed=3)
    types = {k: type(v) for k, v in info.items()}
    assert info["standing"] == -1 and info["illegal_action"] is False
    rng, done, deals = np.random.default_rng(0), False, set()
    while not done:
        obs, _, done, _, info = s.step(int(rng.choice(np.flatnonzero(s.action_masks()))))
        assert {k: type(v) for k, v in info.items()} == types
        assert info["scores"].shape == (4,) and info["scores"].dtype == np.int32
        state = s.game_state  # the values of this step, not of an earlier one
        assert info["deal"] == state.deal[0] and info["score"] == state.scores[0, info["seat"]]
        np.testing.assert_array_equal(info["scores"], state.scores[0])
        deals.add(info["deal"])
    assert deals == {0, 1}
    assert info["standing"] in range(4) and info["score"] == info["scores"][info["seat"]]


# ---------------------------------------------------------------------- PettingZoo checkers
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_pettingzoo_render_test_every_mode(strict: None, preset: str) -> None:
    from pettingzoo.test import render_test

    n = few_players(preset)
    render_test(lambda render_mode=None: env(preset=preset, num_players=n, render_mode=render_mode))
