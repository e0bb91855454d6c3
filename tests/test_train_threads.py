"""``--threads`` above 1 in the PPO trainers (:mod:`train.common.threads`): the network's work
in fixed slices of rows, on several threads or serially, whichever is timed faster.

Checked: the slices cover the rows; the choice falls back to one thread when the threads are
timed slower and comes back when they are faster, saying so; the sliced gradient is the whole
minibatch's (up to rounding); the weights are bit-identical whether the slices ran on threads,
serially or as the timing chose, so a seeded ``--threads 2`` run repeats; the torch thread
count stays 1 inside the run (no spinning barriers).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch

import train.ppo_pool as ppo_pool
import train.selfplay_ppo as selfplay_ppo
from agents.policy import PolicyNet
from president_env.cli import parse
from train.common.args import PPOArgs
from train.common.ppo import Batch, ppo_update, sample
from train.common.threads import (
    BLOCK,
    FIRST,
    LAST,
    MARGIN,
    SETTLE,
    Choice,
    Shards,
    resolve_threads,
    shards_for,
)

TINY = ["--total-steps", "512", "--num-envs", "8", "--rollout", "16", "--epochs", "2",
        "--minibatches", "2", "--no-progress", "--no-tensorboard", "--threads", "2"]


@pytest.fixture(autouse=True)
def _keep_threads() -> Iterator[None]:
    n = torch.get_num_threads()
    yield
    torch.set_num_threads(n)


def _batch(n: int = 96, obs: int = 12, actions: int = 5, seed: int = 0) -> Batch:
    g = torch.Generator().manual_seed(seed)
    mask = torch.rand(n, actions, generator=g) > 0.4
    mask[:, 0] = True
    return Batch(obs=torch.rand(n, obs, generator=g), mask=mask,
                 action=torch.zeros(n, dtype=torch.long), logp=-torch.rand(n, generator=g),
                 adv=torch.randn(n, generator=g), ret=torch.randn(n, generator=g))


def _update(shards: Shards | None, pick: bool | None, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Two epochs of 3 minibatches on ``_batch()`` from the same start; the weights."""
    if pick is not None:
        monkeypatch.setattr(Choice, "pick", lambda self: pick)
    torch.manual_seed(1)
    net = PolicyNet(12, 5, 16)
    opt = torch.optim.Adam(net.parameters(), lr=1e-2, eps=1e-5)
    args = PPOArgs(epochs=2, minibatches=3)
    losses = ppo_update(net, opt, _batch(), args, adv_ddof=1, shards=shards)
    return net.state_dict(), losses


def test_slices_cover_the_rows_in_order() -> None:
    s = Shards(3)
    try:
        assert s.slices(10) == [slice(0, 4), slice(4, 7), slice(7, 10)]
        assert s.slices(2) == [slice(0, 1), slice(1, 2), slice(2, 2)]
        assert s.map(lambda sl: list(range(10))[sl], 10, s.update) == [[0, 1, 2, 3], [4, 5, 6],
                                                                     [7, 8, 9]]
    finally:
        s.close()
    with pytest.raises(ValueError, match="n >= 2"):
        Shards(1)


def test_threads_setting_resolves() -> None:
    assert resolve_threads(3) == 3 and resolve_threads(0) >= 1
    for bad in (-1, True, 1.5):
        with pytest.raises(ValueError, match="int >= 0"):
            resolve_threads(bad)  # type: ignore[arg-type]
    torch.set_num_threads(2)
    assert shards_for(1, torch.device("cpu")) is None and torch.get_num_threads() == 1
    assert shards_for(2, torch.device("meta")) is None  # not a CPU: no slices
    s = shards_for(2, torch.device("cpu"))
    assert s is not None and s.n == 2 and torch.get_num_threads() == 1
    s.close()


def _feed(c: Choice, on: float, off: float, calls: int) -> list[bool]:
    """``calls`` calls timed ``on`` on the threads and ``off`` serially; the picks."""
    picks = []
    for _ in range(calls):
        p = c.pick()
        picks.append(p)
        c.record(p, on if p else off)
    return picks


def test_choice_falls_back_to_one_thread_when_threads_are_slower_and_comes_back() -> None:
    lines: list[str] = []
    c = Choice("update", 2, lines.append)
    picks = _feed(c, on=3.0, off=1.0, calls=FIRST + BLOCK + 100)  # contention: threads 3x slower
    assert picks[:FIRST] == [True] * FIRST  # starts on the threads
    assert picks[FIRST : FIRST + BLOCK] == [False] * BLOCK  # looks the other way
    rest = picks[FIRST + BLOCK :]  # then one thread, but for the looks back at the threads
    assert not c.parallel and rest[:FIRST] == [False] * FIRST and sum(rest) == 2 * BLOCK
    assert lines == ["--threads 2: update now on 1 thread "
                     "(3e+06 ms per 1000 rows on 2 threads, 1e+06 ms on 1)"]
    picks = _feed(c, on=1.0, off=2.0, calls=200)  # quiet again: back at the next look
    assert c.parallel and c.switches == 2 and sum(picks[-100:]) >= 100 - 2 * BLOCK
    assert "update now on 2 threads (1e+06 ms per 1000 rows on 2 threads, 2e+06 ms on 1)" \
        in lines[-1]


def test_choice_looks_less_often_while_it_holds() -> None:
    c = Choice("acting", 2, lambda line: None)
    picks = _feed(c, on=1.0, off=2.0, calls=20_000)
    assert c.parallel and c.switches == 0
    looks = [i for i in range(1, len(picks)) if not picks[i] and picks[i - 1]]
    gaps = [b - a for a, b in zip(looks, looks[1:])]
    assert gaps[0] == 2 * FIRST + BLOCK and gaps[-1] == LAST + BLOCK  # doubling, then LAST
    assert picks.count(False) < 0.02 * len(picks)  # the cost of looking, once settled


def test_choice_prefers_one_thread_unless_the_threads_win_by_the_margin() -> None:
    c = Choice("update", 2, lambda line: None)
    _feed(c, on=1.0, off=0.97, calls=1000)  # one thread 3% faster: it is chosen, and kept
    assert not c.parallel and c.switches == 1
    c = Choice("update", 2, lambda line: None)
    _feed(c, on=1.0, off=0.99, calls=FIRST + BLOCK)
    assert not c.parallel
    _feed(c, on=1.0, off=1.0 / (1 - MARGIN) * 0.99, calls=3000)  # threads ahead, within margin
    assert not c.parallel and c.switches == 1
    _feed(c, on=1.0, off=1.0 / (1 - MARGIN) * 1.02, calls=3000)  # beyond it: back on threads
    assert c.parallel and c.switches == 2


def test_choice_leaves_out_the_first_calls_of_a_look() -> None:
    c = Choice("update", 2, lambda line: None)
    _feed(c, on=1.0, off=2.0, calls=FIRST)
    times = [0.1] * SETTLE + [2.0] * (BLOCK - SETTLE)  # the first calls of the look flatter it
    for t in times:
        p = c.pick()
        assert not p
        c.record(p, t)
    assert c.parallel and c.switches == 0


def test_sliced_gradient_is_the_minibatch_gradient(monkeypatch: pytest.MonkeyPatch) -> None:
    whole, whole_losses = _update(None, None, monkeypatch)
    s = Shards(3)
    try:
        sliced, sliced_losses = _update(s, True, monkeypatch)
    finally:
        s.close()
    for k in whole:
        torch.testing.assert_close(sliced[k], whole[k], rtol=1e-4, atol=1e-5)
    assert sliced_losses == pytest.approx(whole_losses, rel=1e-4, abs=1e-6)
    assert not torch.equal(whole["pi.bias"], torch.zeros(5))  # trained: the weights moved


def test_threads_or_serial_give_identical_weights(monkeypatch: pytest.MonkeyPatch) -> None:
    s = Shards(2)
    try:
        on, on_losses = _update(s, True, monkeypatch)
        off, off_losses = _update(s, False, monkeypatch)
    finally:
        s.close()
    assert all(torch.equal(on[k], off[k]) for k in on) and on_losses == off_losses


def test_sliced_forward_samples_like_the_whole_forward() -> None:
    torch.manual_seed(0)
    net = PolicyNet(12, 5, 16)
    b = _batch(40)
    s = Shards(2)
    try:
        torch.manual_seed(7)
        a1, lp1, v1 = sample(net, b.obs, b.mask, s)
    finally:
        s.close()
    torch.manual_seed(7)
    a0, lp0, v0 = sample(net, b.obs, b.mask)
    torch.testing.assert_close(v1, v0)
    torch.testing.assert_close(lp1, lp0)
    assert torch.equal(a1, a0) and b.mask[torch.arange(40), a1].all()  # one draw, same rows


def _weights(mod: Any, tmp: Path, extra: list[str]) -> dict[str, torch.Tensor]:
    summary = mod.train(parse(mod.Args, [*TINY, *extra, "--out", str(tmp)]))
    state: dict[str, torch.Tensor] = torch.load(summary["checkpoint"], weights_only=True)[
        "state_dict"]
    return state


@pytest.mark.parametrize("mod", [selfplay_ppo, ppo_pool], ids=["selfplay_ppo", "ppo_pool"])
def test_two_thread_runs_repeat_however_the_timing_chose(
    mod: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    extra = ["--eval-deals", "2", "--eval-every", "0"] if mod is selfplay_ppo else []
    seen: list[int] = []
    inner = mod.ppo_update

    def update(*a: Any, **k: Any) -> Any:
        seen.append(torch.get_num_threads())
        assert isinstance(k["shards"], Shards) and k["shards"].n == 2
        return inner(*a, **k)

    monkeypatch.setattr(mod, "ppo_update", update)
    auto = _weights(mod, tmp_path / "auto", extra)
    assert seen and set(seen) == {1}  # torch's own threads: one, always
    monkeypatch.setattr(Choice, "pick", lambda self: False)
    serial = _weights(mod, tmp_path / "serial", extra)
    monkeypatch.setattr(Choice, "pick", lambda self: True)
    parallel = _weights(mod, tmp_path / "parallel", extra)
    assert all(torch.equal(auto[k], serial[k]) and torch.equal(auto[k], parallel[k])
               for k in auto)


def test_pool_threads_run_one_torch_thread() -> None:
    s = Shards(2)
    try:
        torch.set_num_threads(1)
        got = s.map(lambda sl: torch.get_num_threads(), 4, s.update)
    finally:
        s.close()
    assert got == [1, 1]
