"""Fitting a network on lookahead labels, and averaging fits into one network.

The policy head regresses the places negated and centred on their mean over the legal actions
(squared error on the legal actions), the value head the negated place of the best action; the
greedy policy plays the action of the best predicted place. With a teacher (``Fit.teacher``), a
distillation: both heads regress the teacher's outputs on the labels' positions instead (an
average of many networks taught to one network of the package's size). :func:`fit` writes
``policy.pt`` (a checkpoint for ``PolicyAgent``, ``train.evaluate`` and ``--init``) and
``metrics.csv`` (per epoch: the losses, and on the training and held-out decisions the
*regret*: the mean place the greedy choice loses against the best label, next to the regret of
the action the behaviour took).

:func:`average` puts fits side by side in one network whose logits and value are the (weighted)
mean of theirs (:func:`agents.policy.average_nets`): fits of other labels err differently, and
their average cancels part of the errors.
"""

from __future__ import annotations

import csv
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from agents.policy import (
    PolicyNet,
    average_nets,
    load_policy,
    save_policy,
    scale_observation,
    split_average,
    weight_shares,
)
from president_env.cli import user_errors
from president_env.core.engine import Engine
from president_env.core.rules import Rules
from president_env.extras import missing_extra
from train.common.args import init_policy
from train.lookahead.labels import read_labels, regret, steady_heap

try:
    import torch
except ImportError:
    raise missing_extra("torch", "train", "train.lookahead.fit") from None


@dataclass(frozen=True)
class Fit:
    """One fit into the folder ``out``: from the checkpoint ``start`` (a checkpoint of the
    standard observation is widened to the history one) or a new network of ``hidden`` units,
    ``epochs`` passes at the learning rate ``lr`` (annealed linearly to a tenth) on the first
    ``1 - holdout`` of the labels, on ``threads`` torch threads, seeded ``seed``."""

    out: Path
    start: str = ""
    hidden: int = 256
    lr: float = 1e-3
    epochs: int = 6
    batch: int = 512
    holdout: float = 0.05
    vf_coef: float = 0.5
    seed: int = 0
    threads: int = 1
    progress: bool = True
    behaviour: str = "hard"
    """Who played the labelled seat (recorded in ``policy.pt``)."""
    teacher: str = ""
    """A checkpoint whose outputs both heads regress (:func:`teacher_outputs`) instead of the
    labels' places; the regrets are still measured on the places."""

    def network(self, rules: Rules) -> PolicyNet:
        """The network the fit starts from, with torch on ``threads`` threads, seeded."""
        torch.set_num_threads(self.threads)
        torch.manual_seed(self.seed)
        eng = Engine(rules)
        if self.start:
            return init_policy(self.start, rules, eng.obs_size, self.hidden)
        return PolicyNet(eng.obs_size, eng.num_actions, self.hidden)


def targets(place: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The policy head's targets (negated places centred over the legal actions, 0 where
    illegal) and the value head's (the negated best place)."""
    q = -place.float()
    mean = torch.where(mask, q, 0).sum(1, keepdim=True) / mask.sum(1, keepdim=True)
    best = torch.where(mask, q, -1e9).max(1).values
    return torch.where(mask, q - mean, 0), best


def teacher_outputs(path: str, rules: Rules, obs: torch.Tensor,
                    chunk: int = 16384) -> tuple[torch.Tensor, torch.Tensor]:
    """The policy logits (before the mask) and values of the checkpoint ``path`` (trained for
    ``rules``) on every row of ``obs``. An average that records its members is run member by
    member (:func:`agents.policy.split_average`), the same outputs without the zeros of its
    block-diagonal second layer (a quarter of the work for twelve members)."""
    net, _, meta = load_policy(path, rules)
    count = len(meta.get("members") or [None])
    try:
        nets, w = split_average(net, count, meta.get("weights")), meta.get("weights")
    except ValueError:  # not an average, or one whose members have mixed
        nets, w = [net], None
    shares = weight_shares([1.0] * len(nets) if w is None else w, len(nets))
    logits, values = torch.empty(len(obs), net.num_actions), torch.empty(len(obs))
    with torch.no_grad():
        for i in range(0, len(obs), chunk):
            x = scale_observation(obs[i : i + chunk].float())
            hs = [n.trunk(x) for n in nets]
            logits[i : i + chunk] = torch.stack([s * n.pi(h) for s, n, h in zip(shares, nets, hs)]
                                                ).sum(0)
            values[i : i + chunk] = torch.stack([s * n.v(h)[:, 0]
                                                 for s, n, h in zip(shares, nets, hs)]).sum(0)
    return logits, values


def fit(job: Fit, rules: Rules, d: dict[str, np.ndarray]) -> dict[str, float]:
    """Train the network on the labels ``d`` (see the module docstring): the last epoch's
    metrics and the number of labels (``decisions``)."""
    steady_heap()
    net = job.network(rules)
    obs, mask = torch.from_numpy(d["obs"]), torch.from_numpy(d["mask"])
    place, act = torch.from_numpy(d["place"]), torch.from_numpy(d["act"]).long()
    n_train = int(round(len(act) * (1 - job.holdout)))
    taught = teacher_outputs(job.teacher, rules, obs) if job.teacher else None
    opt = torch.optim.Adam(net.parameters(), lr=job.lr)
    steps = job.epochs * -(-n_train // job.batch)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda i: 1 - 0.9 * min(i / steps, 1))
    rows: list[dict[str, float]] = [{"epoch": 0, "loss": float("nan"), "value_loss": float("nan"),
                                     **regret(net, obs, mask, place, act, n_train)}]
    for epoch in tqdm(range(1, job.epochs + 1), desc="fit", disable=not job.progress):
        net.train()
        tot = [0.0, 0.0]
        perm = torch.randperm(n_train)
        for i in range(0, n_train, job.batch):
            j = perm[i : i + job.batch]
            m = mask[j]
            if taught is None:
                target, best = targets(place[j], m)
            else:
                target, best = torch.where(m, taught[0][j], 0), taught[1][j]
            logits, v = net(obs[j].float(), m)
            loss = (torch.where(m, logits - target, 0) ** 2).sum() / m.sum()
            vloss = ((v - best) ** 2).mean()
            opt.zero_grad()
            (loss + job.vf_coef * vloss).backward()
            opt.step()
            sched.step()
            tot[0] += loss.item() * len(j)
            tot[1] += vloss.item() * len(j)
        rows.append({"epoch": epoch, "loss": tot[0] / n_train, "value_loss": tot[1] / n_train,
                     **regret(net, obs, mask, place, act, n_train)})
    job.out.mkdir(parents=True, exist_ok=True)
    with open(job.out / "metrics.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    save_policy(job.out / "policy.pt", net, rules, meta={
        "trainer": "train.lookahead", "behaviour": job.behaviour, "decisions": len(act),
        **({"teacher": job.teacher} if job.teacher else {}),
        **{k: float(v) for k, v in rows[-1].items()}})
    return {**rows[-1], "decisions": float(len(act))}


def fit_files(job: Fit, rules: Rules, files: list[Path]) -> dict[str, float]:
    """Fit on the labels of ``files`` (any behaviour, the same rules; a ValueError for none):
    the last epoch's metrics, summed up on stderr."""
    t0 = time.perf_counter()
    with user_errors():
        d = read_labels(rules, files, f"no labels to fit in {job.out} nor in --also")
        if not job.teacher and (d["place"].max(1) < 0).any():
            raise ValueError("positions without labels (a collection without rollouts) are "
                             "fitted to a teacher's outputs only (--teacher)")
    last = fit(job, rules, d)
    print(f"{int(last['decisions'])} decisions, fit in {time.perf_counter() - t0:.0f} s: regret "
          f"{last['train_regret']:.3f} training, {last['heldout_regret']:.3f} held out (the "
          f"behaviour's {last['heldout_behaviour_regret']:.3f}); {job.out}/policy.pt",
          file=sys.stderr)
    return last


def average(members: Sequence[Path], out: Path, rules: Rules,
            weights: Sequence[float] | None = None) -> PolicyNet:
    """Write the average of the checkpoints ``members`` (trained for ``rules``: a
    CheckpointError otherwise), weighted by ``weights`` if given, to ``out``: the network."""
    avg = average_nets([load_policy(p, rules)[0] for p in members], weights)
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {"trainer": "train.lookahead", "members": [str(p) for p in members],
            "weights": None if weights is None else [float(w) for w in weights]}
    save_policy(out, avg, rules, meta=meta)
    return avg
