"""Regret of a network on lookahead labels (``train.lookahead``): the mean place its greedy
choice loses against the best label of each decision."""

from __future__ import annotations

import torch

from agents.policy import PolicyNet


def regret(net: PolicyNet, obs: torch.Tensor, mask: torch.Tensor, place: torch.Tensor,
           act: torch.Tensor, n_train: int) -> dict[str, float]:
    """Mean place lost against the best label by the greedy choice (``regret``) and by the
    action the behaviour took (``behaviour_regret``), on the training and held-out rows."""
    net.eval()
    with torch.no_grad():
        pick = torch.cat([net(obs[i : i + 8192].float(), mask[i : i + 8192])[0].argmax(-1)
                          for i in range(0, len(act), 8192)])
    p = place.to(torch.int16)
    best = torch.where(mask, p, 99).min(1).values
    lost = (p.gather(1, pick[:, None])[:, 0] - best).float()
    took = (p.gather(1, act[:, None])[:, 0] - best).float()
    out: dict[str, float] = {}
    for name, sl in (("train", slice(0, n_train)), ("heldout", slice(n_train, None))):
        some = len(act[sl]) > 0
        out[f"{name}_regret"] = float(lost[sl].mean()) if some else float("nan")
        out[f"{name}_behaviour_regret"] = float(took[sl].mean()) if some else float("nan")
    return out
