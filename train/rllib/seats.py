"""Who plays which seat in an RLlib run: the shared policy, rule-based agents, checkpoints.

``--opponents hard,normal`` gives two seats of every game to fixed policies (the Hard and the
Normal agent) and the others to the shared, trained policy; which seats they take is drawn
again for every game (:class:`SeatMap`, RLlib's ``policy_mapping_fn``), from the run's seed and
the order in which the env runner starts its games, so a run repeats. An opponent is a
rule-based agent's name (:data:`agents.NAMED_AGENTS`) or the path of an :mod:`agents.policy`
checkpoint (``.pt``) trained for the run's rules.
"""

from __future__ import annotations

import random
import re
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np

from agents import NAMED_AGENTS
from agents.policy import PolicyNet, load_policy
from president_env.core.rules import Rules

LIVE = "shared"
"""Module id of the trained policy that every seat not given to an opponent plays."""
CACHE = 4096
"""Games whose seating :class:`SeatMap` remembers (RLlib asks again when it cuts a game)."""


def opponent_modules(
    opponents: list[str], rules: Rules, num_players: int, seed: int
) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """The module id of each opponent seat and each distinct opponent's ``model_config``
    (:func:`fixed_agent_config`); a ValueError for an unknown name, an
    unusable checkpoint or no seat left to the shared policy."""
    if len(opponents) >= num_players:
        raise ValueError(
            f"{len(opponents)} opponents leave no seat of {num_players} to the trained policy"
        )
    ids: list[str] = []
    configs: dict[str, dict[str, Any]] = {}
    for i, spec in enumerate(o.strip() for o in opponents):
        if spec.lower() in NAMED_AGENTS:
            mid = spec.lower()
            if mid not in configs:
                configs[mid] = fixed_agent_config(rules, agent=mid, seed=seed + 1000 + i)
        elif spec.endswith(".pt") or Path(spec).is_file():
            net, _, _ = load_policy(spec, rules)  # CheckpointError (a ValueError) if unusable
            mid = "ckpt_" + re.sub(r"\W", "_", Path(spec).stem)
            configs.setdefault(mid, fixed_agent_config(rules, net=net))
        else:
            raise ValueError(
                f"unknown opponent {spec!r}: expected one of {sorted(NAMED_AGENTS)} or the path of a "
                "policy checkpoint (.pt)"
            )
        ids.append(mid)
    if LIVE in configs:
        raise ValueError(f"{LIVE!r} is the trained policy's module id")
    return ids, configs


def policy_state(net: PolicyNet) -> dict[str, np.ndarray]:
    """``net``'s weights as numpy arrays (for ``model_config``)."""
    return {k: v.detach().cpu().numpy() for k, v in net.state_dict().items()}


def fixed_agent_config(rules: Rules, agent: str = "", net: PolicyNet | None = None,
                       seed: int = 0) -> dict[str, Any]:
    """``model_config`` of a :class:`FixedAgentModule`: a rule-based ``agent`` by name, or the
    greedy policy of ``net``."""
    if (net is None) == (not agent):
        raise ValueError("give either a rule-based agent's name or a PolicyNet, not both")
    if net is None:
        return {"agent": agent, "rules": rules.to_dict(), "seed": seed}
    return {"weights": policy_state(net), "hidden": net.hidden, "rules": rules.to_dict()}


class SeatMap:
    """RLlib's ``policy_mapping_fn``: the seats of each game (episode) drawn once, the opponents
    at ``len(opponent_ids)`` of them, the shared policy at the others."""

    def __init__(self, opponent_ids: list[str], num_players: int, seed: int) -> None:
        self.opponent_ids = list(opponent_ids)
        self.num_players = num_players
        self.seed = seed
        self.games = 0
        self._seats: OrderedDict[str, dict[str, str]] = OrderedDict()

    def __call__(self, agent_id: str, episode: Any, **kwargs: Any) -> str:
        key = str(getattr(episode, "id_", ""))
        seats = self._seats.get(key)
        if seats is None:
            seats = self._draw()
            self._seats[key] = seats
            if len(self._seats) > CACHE:
                self._seats.popitem(last=False)
        return seats.get(agent_id, LIVE)

    def _draw(self) -> dict[str, str]:
        self.games += 1
        rng = random.Random(self.seed * 1_000_003 + self.games)
        chosen = rng.sample(range(self.num_players), len(self.opponent_ids))
        return {f"player_{s}": mid for s, mid in zip(chosen, self.opponent_ids)}
