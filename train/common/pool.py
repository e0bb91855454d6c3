"""Opponent pools: fixed agents by weight, and frozen snapshots of the policy.

``"hard:0.6,normal:0.3,runs/a/policy.pt:0.1"`` names agents and their weights (a missing weight
is 1): built-in agents or checkpoints (a ``.pt`` or an SB3 ``model.zip``, which must have been
trained for the run's rules), resolved by :func:`agents.load_agent`; agent ``i`` of the list is
seeded ``seed + i``. In the self-play pool the name ``snapshots`` stands for the frozen copies
of the policy, its weight shared among them. A bad name, file or weight is a ValueError.
"""

from __future__ import annotations

import math

from agents import load_agent
from agents.policy import PolicyAgent, PolicyNet
from president_env.core.rules import Rules
from president_env.table import Policy

SNAPSHOTS = "snapshots"


def parse_opponents(spec: str, rules: Rules, seed: int) -> tuple[list[Policy], list[float]]:
    """``"hard:0.6,normal:0.4"`` -> the agents (agent ``i`` seeded ``seed + i``), their weights."""
    agents: list[Policy] = []
    weights: list[float] = []
    for i, item in enumerate(spec.split(",")):
        name, weight = split_weight(item)
        agents.append(load_agent(name, rules, seed=seed + i))
        weights.append(weight)
    return agents, weights


def split_weight(item: str) -> tuple[str, float]:
    """``"hard:0.6"`` -> ``("hard", 0.6)``; no weight: 1. A ValueError for a weight that is not
    a finite number >= 0."""
    name, sep, w = item.strip().rpartition(":")
    if not sep:
        name, w = w, ""
    name = name.strip()
    if not name:
        raise ValueError(f"an opponent needs a name, got {item!r}")
    try:
        weight = float(w) if w.strip() else 1.0
    except ValueError:
        raise ValueError(f"weight of {name!r} must be a number, got {w!r}") from None
    if weight < 0 or not math.isfinite(weight):
        raise ValueError(f"weight of {name!r} must be >= 0, got {w!r}")
    return name, weight


def parse_pool(spec: str, rules: Rules, seed: int) -> tuple[list[Policy], list[float], float]:
    """``"hard:0.5,normal:0.3,snapshots:0.2"`` -> rule-based agents, their weights, snapshot weight."""
    named: list[str] = []
    snap_w = 0.0
    for item in spec.split(","):
        if not item.strip():
            continue
        name, weight = split_weight(item)
        if name.lower() in (SNAPSHOTS, "snapshot"):
            snap_w += weight
        else:
            named.append(f"{name}:{weight}")
    agents, weights = parse_opponents(",".join(named), rules, seed) if named else ([], [])
    return agents, weights, snap_w


def frozen(net: PolicyNet) -> PolicyNet:
    """A copy of ``net`` on the CPU, detached from training."""
    snap = PolicyNet(net.obs_size, net.num_actions, net.hidden)
    snap.load_state_dict({k: v.detach().cpu() for k, v in net.state_dict().items()})
    return snap


def snapshot(net: PolicyNet, rules: Rules, seed: int, device: str = "cpu") -> PolicyAgent:
    """A frozen copy of ``net`` as a sampling opponent (seeded), run on ``device``."""
    return PolicyAgent(frozen(net), rules, greedy=False, seed=seed, device=device)
