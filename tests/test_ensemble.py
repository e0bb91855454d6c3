"""Averaged policies (``agents.policy.average_nets``, ``train.lookahead.fit.average``: the
averages of the lookahead recipe).

Checked: the averaged network's logits and value equal the (weighted) mean of its members' on
real observations (members of different widths), so its greedy actions are the argmax of the
mean; the checkpoint written loads and plays at a history table and records its weights;
networks of other sizes, other rules, bad weights and an empty list are refused with a clear
error and write nothing. An average splits back into its members
(``agents.policy.split_average``): their trunks and head weights, averaging back to it exactly.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from agents.policy import (
    CheckpointError,
    PolicyAgent,
    PolicyNet,
    average_nets,
    load_policy,
    save_policy,
    split_average,
)
from president_env.core.engine import Engine
from president_env.core.rules import Rules
from train.lookahead.fit import average


def _members(rules: Rules, widths: tuple[int, ...]) -> list[PolicyNet]:
    eng = Engine(rules)
    nets = []
    for i, width in enumerate(widths):
        torch.manual_seed(i)
        net = PolicyNet(eng.obs_size, eng.num_actions, width)
        for p in net.parameters():  # trained-like heads: the default init makes pi near zero
            p.data.normal_(0, 0.3)
        nets.append(net.eval())
    return nets


def _positions(rules: Rules, n: int = 256) -> tuple[torch.Tensor, torch.Tensor]:
    """Observations and masks of ``n`` positions of random games."""
    eng = Engine(rules)
    st = eng.init(np.arange(n))
    rng = np.random.default_rng(3)
    for _ in range(15):
        st = eng.step(st, eng.sample_random(eng.legal_action_mask(st), rng))
    return torch.as_tensor(eng.observe(st)), torch.as_tensor(eng.legal_action_mask(st))


def test_the_average_is_the_mean_of_its_members() -> None:
    rules = Rules.preset("standard", observation="history")
    nets = _members(rules, (32, 64, 48))
    obs, mask = _positions(rules)
    avg = average_nets(nets)
    assert avg.hidden == 144
    logits, value = avg(obs.float(), mask)
    outs = [n(obs.float(), mask) for n in nets]
    want_logits = sum(o[0] for o in outs) / 3
    want_value = sum(o[1] for o in outs) / 3
    legal = mask.bool()
    torch.testing.assert_close(logits[legal], want_logits[legal], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(value, want_value, rtol=1e-5, atol=1e-5)
    # the members disagree somewhere, so the test would notice a member left out
    picks = torch.stack([o[0].argmax(-1) for o in outs])
    assert bool((picks != picks[0]).any())
    assert torch.equal(logits.argmax(-1), want_logits.argmax(-1))


def test_a_weighted_average_is_the_weighted_mean_of_its_members(tmp_path: Path) -> None:
    rules = Rules.preset("standard", observation="history")
    nets = _members(rules, (32, 48))
    obs, mask = _positions(rules)
    outs = [n(obs.float(), mask) for n in nets]
    legal = mask.bool()
    avg = average_nets(nets, [2.0, 1.0])
    logits, value = avg(obs.float(), mask)
    torch.testing.assert_close(logits[legal], ((2 * outs[0][0] + outs[1][0]) / 3)[legal],
                               rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(value, (2 * outs[0][1] + outs[1][1]) / 3, rtol=1e-5, atol=1e-5)
    # not the plain mean: the weights change some greedy actions
    plain = average_nets(nets)(obs.float(), mask)[0]
    assert bool((plain.argmax(-1) != logits.argmax(-1)).any())
    # equal weights are the plain mean; the CLI writes the weighted one and records the weights
    torch.testing.assert_close(average_nets(nets, [5.0, 5.0])(obs.float(), mask)[0], plain)
    paths = [tmp_path / "a.pt", tmp_path / "b.pt"]
    for p, net in zip(paths, nets):
        save_policy(p, net, rules)
    out = tmp_path / "w.pt"
    average(paths, out, rules, [2.0, 1.0])
    again, _, meta = load_policy(out, rules)
    torch.testing.assert_close(again(obs.float(), mask)[0][legal], logits[legal])
    assert meta["weights"] == [2.0, 1.0]
    for bad in (["1"], ["1", "0"], ["1", "-1"], ["1", "nan"]):
        with pytest.raises(ValueError, match="positive weights"):
            average_nets(nets, [float(b) for b in bad])
        with pytest.raises(ValueError, match="positive weights"):
            average(paths, tmp_path / "no.pt", rules, [float(b) for b in bad])
    assert not (tmp_path / "no.pt").exists()


def test_the_average_written_is_a_checkpoint_that_plays(tmp_path: Path) -> None:
    rules = Rules.preset("standard", observation="history")
    paths = []
    for i, net in enumerate(_members(rules, (32, 32))):
        paths.append(tmp_path / f"m{i}.pt")
        save_policy(paths[-1], net, rules)
    out = tmp_path / "avg" / "policy.pt"
    average(paths, out, rules)
    agent = PolicyAgent.load(out, rules)
    obs, mask = _positions(rules)
    members = [load_policy(p, rules)[0] for p in paths]
    mean = torch.stack([m(obs.float(), mask)[0] for m in members]).mean(0)
    assert np.array_equal(agent.act_batch(obs.numpy(), mask.numpy()),
                          mean.argmax(-1).numpy())


def test_bad_members_are_refused(tmp_path: Path) -> None:
    history = Rules.preset("standard", observation="history")
    a, b = tmp_path / "a.pt", tmp_path / "b.pt"
    save_policy(a, _members(history, (16,))[0], history)
    daifugo = Rules.preset("daifugo", observation="history")
    save_policy(b, _members(daifugo, (16,))[0], daifugo)
    out = tmp_path / "out.pt"
    with pytest.raises(CheckpointError, match="other rules"):
        average([a, b], out, history)
    with pytest.raises(ValueError, match="inputs, actions"):
        average_nets([_members(history, (16,))[0],
                      _members(Rules.preset("standard"), (16,))[0]])
    with pytest.raises(ValueError, match="no networks"):
        average_nets([])
    assert not out.exists()


def test_an_average_splits_back_into_its_members() -> None:
    rules = Rules.preset("standard", observation="history")
    nets = _members(rules, (32, 32, 32))
    obs, mask = _positions(rules)
    legal = mask.bool()
    avg = average_nets(nets, [2.0, 1.0, 1.0])
    parts = split_average(avg, 3, [2.0, 1.0, 1.0])
    assert [p.hidden for p in parts] == [32, 32, 32]
    for part, net in zip(parts, nets):
        mine, theirs = part.state_dict(), net.state_dict()
        for key in ("trunk.0.weight", "trunk.0.bias", "trunk.2.weight", "trunk.2.bias",
                    "pi.weight", "v.weight"):
            torch.testing.assert_close(mine[key], theirs[key], rtol=1e-5, atol=1e-6)
    # averaged again with the same weights: the same network, to the last bit of its logits
    again = average_nets(parts, [2.0, 1.0, 1.0])(obs.float(), mask)
    logits, value = avg(obs.float(), mask)
    torch.testing.assert_close(again[0][legal], logits[legal], rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(again[1], value, rtol=1e-6, atol=1e-6)
    # the wrong weights give other members (their heads scaled otherwise)
    other = split_average(avg, 3)[1].state_dict()["pi.weight"]
    assert not torch.allclose(other, nets[1].state_dict()["pi.weight"])


def test_a_network_that_is_no_such_average_is_refused() -> None:
    rules = Rules.preset("standard", observation="history")
    whole = _members(rules, (64,))[0]  # its second layer mixes every unit with every other
    with pytest.raises(ValueError, match="not an average of 2"):
        split_average(whole, 2)
    with pytest.raises(ValueError, match="do not split into 3"):
        split_average(whole, 3)
    with pytest.raises(ValueError, match="positive weights"):
        split_average(average_nets(_members(rules, (32, 32))), 2, [1.0])
