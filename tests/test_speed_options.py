"""The trainers' speed options: ``--threads`` (default 1), ``--compile`` and ``--device``.

Each runs a tiny training in this process (or a subprocess for the command line's exit code)
and checks what the option does inside the run: the threads the update runs on (torch on one,
the work in slices), a compiled policy that trains (slow: ~20 s of compilation) or a clear fallback when compilation
fails, a one-line error and exit code 2 for ``--device cuda`` without a GPU.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch

import train.ppo_pool as ppo_pool
import train.selfplay_ppo as selfplay_ppo
from agents.policy import PolicyNet
from president_env.cli import parse
from train.common.args import PPOArgs, compile_policy

ROOT = Path(__file__).resolve().parent.parent
TINY = ["--total-steps", "256", "--num-envs", "8", "--rollout", "16", "--epochs", "1",
        "--minibatches", "2", "--no-progress", "--no-tensorboard"]


@pytest.fixture(autouse=True)
def _keep_threads() -> Iterator[None]:
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


def _threads_in_update(
    mod: Any, monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> list[tuple[int, int]]:
    """Train ``mod`` with ``argv``; for every PPO update, torch's thread count and the slices
    its work is cut into (``train.common.threads``: one per thread of ``--threads``)."""
    seen: list[tuple[int, int]] = []
    inner = mod.ppo_update

    def update(*a: Any, **k: Any) -> Any:
        shards = k.get("shards")
        seen.append((torch.get_num_threads(), 1 if shards is None else shards.n))
        return inner(*a, **k)

    monkeypatch.setattr(mod, "ppo_update", update)
    mod.train(parse(mod.Args, argv))
    return seen


def test_threads_default_is_one() -> None:
    assert PPOArgs().threads == 1
    assert selfplay_ppo.Args().threads == ppo_pool.Args().threads == 1


@pytest.mark.parametrize("mod", [selfplay_ppo, ppo_pool], ids=["selfplay_ppo", "ppo_pool"])
def test_threads_option_takes_effect_inside_the_run(
    mod: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    extra = ["--eval-deals", "2"] if mod is selfplay_ppo else []
    torch.set_num_threads(2)
    seen = _threads_in_update(mod, monkeypatch, [*TINY, *extra, "--out", str(tmp_path / "a")])
    assert seen and set(seen) == {(1, 1)}  # the default
    torch.set_num_threads(1)
    seen = _threads_in_update(
        mod, monkeypatch, [*TINY, *extra, "--threads", "2", "--out", str(tmp_path / "b")]
    )
    assert seen and set(seen) == {(1, 2)}  # torch on one thread, the work in 2 slices


def test_compile_failure_falls_back_to_eager_with_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    net = PolicyNet(10, 4, 8)
    obs, mask = torch.rand(3, 10), torch.ones(3, 4, dtype=torch.bool)
    eager = net(obs, mask)

    def broken(self: torch.nn.Module, *a: Any, **k: Any) -> None:
        def fail(*a: Any, **k: Any) -> Any:
            raise RuntimeError("no compiler here\nmore detail")

        self._compiled_call_impl = fail

    monkeypatch.setattr(torch.nn.Module, "compile", broken)
    assert compile_policy(net, 10, 4, torch.device("cpu")) is False
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "--compile: torch.compile failed (RuntimeError: no compiler here); running without it" in err
    again = net(obs, mask)  # eager again, same weights, no gradients left behind
    assert torch.equal(again[0], eager[0]) and torch.equal(again[1], eager[1])
    assert all(p.grad is None for p in net.parameters())


@pytest.mark.slow
def test_compile_runs_a_tiny_update(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    compiled: list[bool] = []
    inner = ppo_pool.ppo_update

    def update(net: PolicyNet, *a: Any, **k: Any) -> Any:
        compiled.append(net._compiled_call_impl is not None)
        return inner(net, *a, **k)

    monkeypatch.setattr(ppo_pool, "ppo_update", update)
    summary = ppo_pool.train(parse(ppo_pool.Args, [*TINY, "--compile", "--out", str(tmp_path)]))
    assert compiled == [True, True]
    assert Path(summary["checkpoint"]).is_file()
    state = torch.load(summary["checkpoint"], weights_only=True)["state_dict"]
    assert not any(k.startswith("_orig_mod") for k in state)  # loadable by an eager net


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is present")
@pytest.mark.parametrize("trainer", ["selfplay_ppo", "ppo_pool"])
def test_device_cuda_without_gpu_is_a_one_line_error(trainer: str, tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", f"train.{trainer}", *TINY, "--device", "cuda",
         "--out", str(tmp_path)],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    assert out.returncode == 2
    last = out.stderr.strip().splitlines()[-1]
    assert "error: --device cuda:" in last and "use --device cpu or auto" in last
    assert "Traceback" not in out.stderr
    assert not any(tmp_path.iterdir())  # nothing started
