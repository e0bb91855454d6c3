"""A trained policy as an agent: a masked actor-critic network and its checkpoint format.

A checkpoint is a file written by :func:`save_policy` (``torch.save`` of a plain dict):
``{"format": "president-policy", "version": 1, "rules": Rules.to_dict(), "obs_size",
"num_actions", "hidden", "state_dict", "meta"}``. :meth:`PolicyAgent.load` checks every part and
raises :class:`CheckpointError` with the reason for a missing, corrupt or foreign file, one
trained for other rules, or weights that cannot be a trained network (a NaN or infinite value,
a weight matrix of zeros). An sb3-contrib ``model.zip`` is read by :mod:`agents.sb3`;
:func:`agents.checkpoints.load_checkpoint` reads either. Needs the ``train`` extra (torch).

Rules of a policy
-----------------
A policy may carry the :class:`~president_env.Rules` it was built or trained for as its
``rules`` attribute (the rule-based agents, :class:`PolicyAgent` and
:class:`agents.sb3.SB3Policy` do). Two rules of the same observation and action sizes can
differ in how the game is played, so whatever seats a policy at a table of given rules
(tournaments, :func:`train.eval.tournament.evaluate_policy`, the trainers' opponents) calls
:func:`~president_env.table.check_rules`, which raises a ValueError naming the options that differ. A policy without
``rules`` is trusted.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from agents.base import act_one
from agents.errors import CheckpointError
from president_env.core.engine import Engine
from president_env.core.rules import Rules
from president_env.extras import missing_extra
from president_env.table import check_rules, rule_differences

try:
    import torch
    from torch import nn
except ImportError:
    raise missing_extra("torch", "train", "agents.policy (a trained policy)") from None

__all__ = ["CheckpointError", "PolicyAgent", "PolicyNet", "average_nets", "check_rules",
           "check_weights", "load_policy", "rule_differences", "save_policy", "split_average"]

FORMAT = "president-policy"
VERSION = 1


class PolicyNet(nn.Module):
    """Shared MLP trunk, a masked policy head over the flat actions and a value head."""

    def __init__(self, obs_size: int, num_actions: int, hidden: int = 256) -> None:
        super().__init__()
        self.obs_size, self.num_actions, self.hidden = obs_size, num_actions, hidden
        self.trunk = nn.Sequential(
            nn.Linear(obs_size, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU()
        )
        self.pi = nn.Linear(hidden, num_actions)
        self.v = nn.Linear(hidden, 1)
        nn.init.orthogonal_(self.pi.weight, gain=0.01)
        nn.init.zeros_(self.pi.bias)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits (illegal actions at -1e9) and values."""
        h = self.trunk(scale_observation(obs))
        logits = self.pi(h).masked_fill(~mask, -1e9)
        return logits, self.v(h).squeeze(-1)


def widen_input(net: PolicyNet, obs_size: int) -> PolicyNet:
    """A copy of ``net`` that reads ``obs_size >= net.obs_size`` inputs: the first layer's
    weights of the new (last) inputs are zero, so it decides exactly as ``net`` on any
    observation whose prefix is ``net``'s. This is how a policy of the standard observation
    starts a policy of ``observation="history"`` (the history blocks come last)."""
    if obs_size < net.obs_size:
        raise ValueError(f"cannot widen a network of {net.obs_size} inputs to {obs_size}")
    wide = PolicyNet(obs_size, net.num_actions, net.hidden)
    state = {k: v.detach().clone() for k, v in net.state_dict().items()}
    first = torch.zeros(net.hidden, obs_size)
    first[:, : net.obs_size] = state["trunk.0.weight"]
    state["trunk.0.weight"] = first
    wide.load_state_dict(state)
    return wide


def average_nets(nets: list[PolicyNet], weights: Sequence[float] | None = None) -> PolicyNet:
    """One :class:`PolicyNet` whose policy logits (before the mask) and value are the mean of
    ``nets``' (same inputs and actions, any widths), or their mean weighted by ``weights``
    (positive, one per net, normalised to sum to 1): the members side by side in a trunk as
    wide as all of them together (block-diagonal second layer), heads averaging theirs. An
    ensemble that is a plain checkpoint, so everything that reads one plays it."""
    if not nets:
        raise ValueError("no networks to average")
    sizes = {(n.obs_size, n.num_actions) for n in nets}
    if len(sizes) > 1:
        raise ValueError(f"the networks differ in (inputs, actions): {sorted(sizes)}")
    w = weight_shares([1.0] * len(nets) if weights is None else weights, len(nets))
    sd = [n.state_dict() for n in nets]

    def cat(key: str, dim: int = 0) -> torch.Tensor:
        return torch.cat([s[key] for s in sd], dim)

    state = {"trunk.0.weight": cat("trunk.0.weight"), "trunk.0.bias": cat("trunk.0.bias"),
             "trunk.2.weight": torch.block_diag(*[s["trunk.2.weight"] for s in sd]),
             "trunk.2.bias": cat("trunk.2.bias")}
    for head in ("pi", "v"):
        state[f"{head}.weight"] = torch.cat([s[f"{head}.weight"] * wi for s, wi in zip(sd, w)], 1)
        state[f"{head}.bias"] = sum(s[f"{head}.bias"] * wi for s, wi in zip(sd, w))
    out = PolicyNet(nets[0].obs_size, nets[0].num_actions, sum(n.hidden for n in nets))
    out.load_state_dict(state)
    return out.eval()


def split_average(net: PolicyNet, count: int,
                  weights: Sequence[float] | None = None) -> list[PolicyNet]:
    """The ``count`` members of equal width that :func:`average_nets` averaged into ``net``
    (weighted by ``weights``, or equally): ``average_nets(split_average(net, n, w), w)`` is
    ``net`` exactly. Each member's trunk and head weights are its own; its head biases are the
    average's (only the members' weighted mean of them is in ``net``). A ValueError when
    ``net`` is not such an average (a width that ``count`` does not divide, or weights between
    the members' blocks of its second layer)."""
    if count < 1 or net.hidden % count:
        raise ValueError(f"{net.hidden} hidden units do not split into {count} equal members")
    w = weight_shares([1.0] * count if weights is None else weights, count)
    h, sd = net.hidden // count, net.state_dict()
    inner = sd["trunk.2.weight"].clone()
    for i in range(count):
        inner[i * h:(i + 1) * h, i * h:(i + 1) * h] = 0
    if bool(inner.any()):
        raise ValueError(f"not an average of {count} networks: its second layer mixes them")
    members = []
    for i in range(count):
        s = slice(i * h, (i + 1) * h)
        m = PolicyNet(net.obs_size, net.num_actions, h)
        m.load_state_dict({
            "trunk.0.weight": sd["trunk.0.weight"][s], "trunk.0.bias": sd["trunk.0.bias"][s],
            "trunk.2.weight": sd["trunk.2.weight"][s, s], "trunk.2.bias": sd["trunk.2.bias"][s],
            "pi.weight": sd["pi.weight"][:, s] / w[i], "pi.bias": sd["pi.bias"].clone(),
            "v.weight": sd["v.weight"][:, s] / w[i], "v.bias": sd["v.bias"].clone()})
        members.append(m.eval())
    return members


def weight_shares(weights: Sequence[float], n: int) -> torch.Tensor:
    """``weights`` as shares summing to 1; a ValueError unless ``n`` finite positive numbers."""
    w = torch.as_tensor(list(weights), dtype=torch.float32)
    if len(w) != n or not bool(torch.isfinite(w).all() & (w > 0).all()):
        raise ValueError(f"expected {n} positive weights (one per network), got {list(weights)}")
    return w / w.sum()


def scale_observation(obs: torch.Tensor) -> torch.Tensor:
    # counts and scores can reach tens; a fixed squashing keeps inputs in a sane range
    return torch.tanh(obs / 4.0) * 2.0


def save_policy(path: str | Path, net: PolicyNet, rules: Rules, meta: dict[str, Any] | None = None) -> None:
    """Write ``net`` (trained for ``rules``) as a checkpoint file."""
    torch.save(
        {
            "format": FORMAT,
            "version": VERSION,
            "rules": rules.to_dict(),
            "obs_size": net.obs_size,
            "num_actions": net.num_actions,
            "hidden": net.hidden,
            "state_dict": {k: v.detach().cpu() for k, v in net.state_dict().items()},
            "meta": meta or {},
        },
        Path(path),
    )


def load_policy(path: str | Path, rules: Rules | None = None) -> tuple[PolicyNet, Rules, dict[str, Any]]:
    """Read a checkpoint; with ``rules``, check it was trained for them."""
    p = Path(path)
    if not p.is_file():
        raise CheckpointError(f"no checkpoint file at {p}")
    try:
        ck = torch.load(p, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises many kinds for a damaged file
        raise CheckpointError(f"{p} is not a readable checkpoint ({type(e).__name__}: {e})") from e
    if not isinstance(ck, dict) or ck.get("format") != FORMAT:
        raise CheckpointError(f"{p} is not a {FORMAT} checkpoint")
    if ck.get("version") != VERSION:
        raise CheckpointError(f"{p} has checkpoint version {ck.get('version')}, expected {VERSION}")
    try:
        trained = Rules.from_dict(dict(ck["rules"], preset_name=None))
    except (KeyError, TypeError, ValueError) as e:
        raise CheckpointError(f"{p} holds invalid rules: {e}") from e
    if rules is not None and rule_differences(rules, trained):
        raise CheckpointError(
            f"{p} was trained for other rules; differences (wanted, trained): "
            f"{rule_differences(rules, trained)}"
        )
    eng = Engine(trained)
    if ck.get("obs_size") != eng.obs_size or ck.get("num_actions") != eng.num_actions:
        raise CheckpointError(f"{p}: network sizes do not match its rules")
    meta = ck.get("meta", {})
    if not isinstance(meta, dict):
        raise CheckpointError(f"{p}: its meta is a {type(meta).__name__}, expected a dict")
    state = ck.get("state_dict")
    if not isinstance(state, dict) or not all(
        isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items()
    ):
        raise CheckpointError(
            f"{p}: its state_dict is a {type(state).__name__}, expected a dict of named tensors"
        )
    hidden = _hidden_width(ck.get("hidden", 256), state, p)
    net = PolicyNet(eng.obs_size, eng.num_actions, hidden)
    try:
        net.load_state_dict(state)
    except (KeyError, RuntimeError) as e:
        raise CheckpointError(f"{p}: the weights do not fit the network ({e})") from e
    check_weights(net.state_dict(), p)
    net.eval()
    return net, trained, dict(meta)


def _hidden_width(hidden: object, state: dict[str, torch.Tensor], p: Path) -> int:
    """The checkpoint's ``hidden`` field, checked before any network is built: a positive
    integer that is the width of its first layer's weights (so no allocation larger than the
    file's own weights is attempted)."""
    if isinstance(hidden, bool) or not isinstance(hidden, int) or hidden < 1:
        raise CheckpointError(f"{p}: its hidden width is {hidden!r}, expected a positive integer")
    first = state.get("trunk.0.weight")
    width = int(first.shape[0]) if first is not None and first.ndim == 2 else None
    if width != hidden:
        raise CheckpointError(
            f"{p}: its hidden width is {hidden}, but its weights 'trunk.0.weight' are "
            f"{tuple(first.shape) if first is not None else 'missing'}"
        )
    return hidden


def check_weights(tensors: dict[str, torch.Tensor], source: str | Path) -> None:
    """A :class:`CheckpointError` naming ``source`` and the tensor when a value is NaN or
    infinite, or a weight matrix is all zeros (no trained network has either)."""
    for name, t in tensors.items():
        if not torch.is_floating_point(t):
            continue
        if not bool(torch.isfinite(t).all()):
            bad = int((~torch.isfinite(t)).sum())
            raise CheckpointError(
                f"{source}: tensor {name!r} holds {bad} NaN or infinite value(s) of {t.numel()}; "
                f"expected finite weights (was training diverging?)"
            )
        if t.ndim >= 2 and not bool(t.any()):
            raise CheckpointError(
                f"{source}: weight matrix {name!r} {tuple(t.shape)} is all zeros; expected the "
                f"weights of a trained network"
            )




class PolicyAgent:
    """Plays a trained checkpoint through the agent interface (greedy by default); a
    :class:`president_env.table.Policy`."""

    def __init__(
        self,
        net: PolicyNet,
        rules: Rules,
        greedy: bool = True,
        seed: int | None = None,
        device: str = "cpu",
    ) -> None:
        self.net = net.to(device).eval()
        self.rules = rules
        self.greedy = greedy
        self.device = device
        self.gen = torch.Generator(device=device)
        self.gen.manual_seed(0 if seed is None else seed)

    def reseed(self, seed: int | None) -> None:
        """Restart the sampling generator (used when ``greedy=False``)."""
        self.gen.manual_seed(0 if seed is None else seed)

    @classmethod
    def load(cls, path: str | Path, rules: Rules | None = None, **kwargs: Any) -> PolicyAgent:
        """The policy of a checkpoint file of this format (an SB3 ``model.zip`` too:
        :func:`agents.checkpoints.load_checkpoint` picks the reader). With ``rules``, a
        :class:`CheckpointError` unless trained for them."""
        net, trained, _ = load_policy(path, rules)
        # the observation is the one it was trained for: a table of a larger observation
        # hands it its prefix (president_env.table.policy_obs_size)
        own = trained if rules is None else rules.replace(observation=trained.observation)
        return cls(net, own, **kwargs)

    @torch.no_grad()
    def act_batch(
        self, observations: npt.ArrayLike, action_masks: npt.ArrayLike
    ) -> npt.NDArray[np.int64]:
        """One action per row (a :class:`president_env.table.Policy`); -1 for a row whose mask
        has no legal action (the network never sees it)."""
        obs_np = np.asarray(observations, np.float32)
        mask_np = np.asarray(action_masks, bool)
        if obs_np.ndim != 2 or mask_np.ndim != 2 or obs_np.shape[0] != mask_np.shape[0]:
            raise ValueError(
                f"expected [B, obs] and [B, actions], got {obs_np.shape}, {mask_np.shape}"
            )
        if obs_np.shape[1] != self.net.obs_size or mask_np.shape[1] != self.net.num_actions:
            hint = (f" (it reads observation={self.rules.observation!r}: make the env with "
                    "that observation, or a larger one and hand it the prefix "
                    "obs[:, :size]; a table does so: president_env.table.policy_obs_size)"
                    if self.rules.observation != "standard" else "")
            raise ValueError(
                f"observation/mask sizes {obs_np.shape[1]}/{mask_np.shape[1]} do not match the "
                f"policy's {self.net.obs_size}/{self.net.num_actions}{hint}"
            )
        legal = mask_np.any(axis=1)
        if legal.all():
            return self._decide(obs_np, mask_np)
        out = np.full(len(mask_np), -1, np.int64)
        rows = np.flatnonzero(legal)
        if len(rows):
            out[rows] = self._decide(obs_np[rows], mask_np[rows])
        return out

    def _decide(self, obs_np: np.ndarray, mask_np: np.ndarray) -> npt.NDArray[np.int64]:
        obs = torch.as_tensor(obs_np, device=self.device)
        mask = torch.as_tensor(mask_np, device=self.device)
        logits, _ = self.net(obs, mask)
        if self.greedy:
            a = logits.argmax(-1)
        else:
            a = torch.multinomial(torch.softmax(logits, -1), 1, generator=self.gen).squeeze(-1)
        return a.cpu().numpy().astype(np.int64)

    def act(self, observation: npt.ArrayLike, action_mask: npt.ArrayLike) -> int:
        """One decision; a ValueError when ``action_mask`` has no legal action."""
        return act_one(self, observation, action_mask)
