"""Search distillation: a network that imitates a search agent where it plays the opponents.

    python -m train.distill --decisions 60000 --init agents/pretrained/standard_4p.pt \\
        --out runs/distill

Two stages, in one run folder:

1. **collect** (``decisions.npz``): ``games`` games at once at a
   :class:`~president_env.table.Table` of ``observation="history"``; in each the teacher
   (default ``expert``, which reads the table's public record) plays one seat, which rotates
   with the game, and ``opponents`` (default ``hard``) every other seat. Every decision of the
   teacher with more than one legal action is kept: the history observation, the mask, the
   action, and the reward the teacher's deal ended with (the value head's target). A file of
   the same rules, teacher and opponents is extended up to ``decisions`` (a stopped run
   resumes); ``max_seconds`` ends the collection early (the games under way are played out).
2. **fit**: the network (fresh, or ``init``: a checkpoint of the standard observation is
   widened with zero weights on the history inputs, so it starts playing exactly as that
   checkpoint) trains for ``epochs`` passes on the first ``1 - holdout`` of the decisions:
   cross-entropy to the teacher's action plus ``vf_coef`` times the squared error of the value
   to the reward. Writes ``policy.pt`` (a checkpoint for ``PolicyAgent``, ``train.evaluate``
   and ``--init`` of the PPO trainers) and ``metrics.csv`` (per epoch: the loss, the agreement
   with the teacher on the training and on the held-out decisions).

The policy decides from the history observation only: the teacher's search, its belief and
the record it reads are what it learns from, not what it is given.
"""

from __future__ import annotations

import csv
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from agents import load_agent
from agents.policy import PolicyNet, save_policy
from president_env.cli import (
    arg,
    fraction,
    non_negative,
    output_dir,
    parse,
    positive,
    user_errors,
)
from president_env.core.constants import PHASE_DONE
from president_env.core.engine import Engine
from president_env.core.rules import Rules
from president_env.rewards import deal_rewards, reward_table
from president_env.table import Table
from train.common.args import HistoryFitArgs

DATA = "decisions.npz"
SAVE_EVERY = 2000
"""New decisions between saves of the collection."""


@dataclass
class Args(HistoryFitArgs):
    teacher: str = "expert"
    """The agent imitated (a built-in name or a checkpoint)."""
    opponents: str = "hard"
    """The agent in every other seat (a built-in name or a checkpoint)."""
    decisions: int = arg(20_000, positive)
    """Teacher decisions (more than one legal action) to collect in all."""
    games: int = arg(64, positive)
    """Games played at once during the collection."""
    max_seconds: float = arg(0.0, non_negative)
    """End the collection after this many seconds (0 = no limit)."""
    lr: float = arg(3e-4, positive)
    """Adam learning rate of the fit."""
    holdout: float = arg(0.1, fraction)
    """Share of the decisions (the last collected) held out to measure the agreement."""
    out: str = arg("runs/distill", output_dir)
    """Run folder: decisions.npz, policy.pt, metrics.csv."""

    def agents(self) -> tuple[str, ...]:
        return (self.teacher, self.opponents)


class Recorder:
    """A policy that plays as ``agent`` and keeps every batch it decides (observations, masks,
    actions), reading the table's record when ``agent`` does."""

    def __init__(self, agent: Any) -> None:
        self.agent, self.rules = agent, agent.rules
        self.name = str(getattr(agent, "name", "teacher"))
        self.batches: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        if callable(getattr(agent, "act_with_record", None)):
            self.act_with_record = self._with_record

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self._keep(obs, mask, self.agent.act_batch(obs, mask))

    def _with_record(self, obs: np.ndarray, mask: np.ndarray, moves: Any, n: Any) -> np.ndarray:
        return self._keep(obs, mask, self.agent.act_with_record(obs, mask, moves, n))

    def _keep(self, obs: np.ndarray, mask: np.ndarray, act: Any) -> np.ndarray:
        a = np.asarray(act, np.int64)
        self.batches.append((np.array(obs, np.float32), np.array(mask, np.bool_), a.copy()))
        return a


class Collection:
    """The decisions collected so far: kept ones (value known) and those of games under way."""

    def __init__(self, rules: Rules, args: Args, path: Path) -> None:
        self.path, self.meta = path, {"rules": repr(rules.to_dict()), "teacher": args.teacher,
                                      "opponents": args.opponents}
        self.obs: list[np.ndarray] = []
        self.mask: list[np.ndarray] = []
        self.act: list[np.ndarray] = []
        self.ret: list[np.ndarray] = []
        if path.is_file():
            self._load()

    @classmethod
    def read(cls, rules: Rules, args: Args, path: Path) -> Collection:
        """The decisions of the file ``path`` (same rules, teacher and opponents: ValueError)."""
        if not path.is_file():
            raise ValueError(f"no decisions file at {path}")
        return cls(rules, args, path)

    def _load(self) -> None:
        with np.load(self.path) as f:
            for key, want in self.meta.items():
                if str(f[key]) != want:
                    raise ValueError(f"{self.path} holds decisions of another {key}; "
                                     "use another --out")
            self.obs, self.mask = [f["obs"]], [f["mask"]]
            self.act, self.ret = [f["act"]], [f["ret"]]

    def __len__(self) -> int:
        return sum(len(a) for a in self.act)

    def add(self, obs: np.ndarray, mask: np.ndarray, act: np.ndarray, ret: np.ndarray) -> None:
        keep = mask.sum(1) > 1  # forced moves teach nothing
        for out, x in ((self.obs, obs), (self.mask, mask), (self.act, act), (self.ret, ret)):
            out.append(x[keep])

    def arrays(self) -> dict[str, np.ndarray]:
        return {"obs": np.concatenate(self.obs), "mask": np.concatenate(self.mask),
                "act": np.concatenate(self.act), "ret": np.concatenate(self.ret)}

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp.npz")
        fields: dict[str, Any] = {**self.arrays(), **{k: np.array(v) for k, v in self.meta.items()}}
        np.savez_compressed(tmp, allow_pickle=False, **fields)
        tmp.replace(self.path)


def collect(args: Args, rules: Rules, data: Collection) -> None:
    """Play teacher-and-opponents games until ``data`` holds ``args.decisions`` (see the module
    docstring); saves ``data`` every ``SAVE_EVERY`` decisions and at the end."""
    start_len = len(data)
    if start_len >= args.decisions:
        return
    eng = Engine(rules)
    rng = np.random.default_rng([args.seed, start_len])  # a resumed run draws new deals
    teacher = Recorder(load_agent(args.teacher, rules, seed=args.seed + start_len))
    b, p = args.games, rules.num_players
    seat = np.arange(b) % p
    seat_policy = np.ones((b, p), np.int64)
    seat_policy[np.arange(b), seat] = 0
    table = Table(eng, eng.init(rng.integers(0, 2**62, b)), [
        teacher, load_agent(args.opponents, rules, seed=args.seed + start_len + 1)],
        seat_policy, names=[args.teacher, args.opponents])
    rewards = reward_table(rules)
    under_way: list[tuple[np.ndarray, ...]] = [(  # (table rows, obs, mask, act) batches
        np.zeros(0, np.int64), np.zeros((0, eng.obs_size), np.float32),
        np.zeros((0, eng.num_actions), np.bool_), np.zeros(0, np.int64))]
    t0, saved = time.perf_counter(), len(data)
    bar = tqdm(total=args.decisions, initial=start_len, desc="collect", disable=not args.progress)

    def on_step(moved: np.ndarray, seats: np.ndarray, actions: np.ndarray) -> None:
        nonlocal saved, under_way
        rows = np.flatnonzero(moved & (seats == seat))
        if len(rows):  # the teacher's last batch is these rows' decisions, in row order
            under_way.append((rows, *teacher.batches.pop()))
        ended = moved & (table.state.phase == PHASE_DONE)
        if not ended.any():
            return
        reward = deal_rewards(table.state, rewards)[np.arange(b), seat]  # the teacher's
        r, obs, mask, act = (np.concatenate(x) for x in zip(*under_way))
        done = ended[r]  # decisions of the games that ended: their reward is known
        before = len(data)
        data.add(obs[done], mask[done], act[done], reward[r[done]])
        under_way = [(r[~done], obs[~done], mask[~done], act[~done])]
        bar.update(len(data) - before)
        if len(data) - saved >= SAVE_EVERY:
            data.save()
            saved = len(data)
        timed_out = args.max_seconds and time.perf_counter() - t0 > args.max_seconds
        if len(data) < args.decisions and not timed_out:
            eng.reset_where(table.state, ended, rng.integers(0, 2**62, b))
            table.sync()

    table.play_until_external(on_step, max_steps=10**9)
    bar.close()
    data.save()


def fit(args: Args, rules: Rules, d: dict[str, np.ndarray], out: Path) -> dict[str, float]:
    """Train the network on ``d`` (see the module docstring); the last epoch's metrics."""
    net = args.network(rules)
    obs, mask = torch.as_tensor(d["obs"]), torch.as_tensor(d["mask"])
    act, ret = torch.as_tensor(d["act"]), torch.as_tensor(d["ret"])
    n_train = int(round(len(act) * (1 - args.holdout)))
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    rows: list[dict[str, float]] = [{"epoch": 0, "loss": float("nan"), **_agreement(
        net, obs, mask, act, n_train)}]
    for epoch in tqdm(range(1, args.epochs + 1), desc="fit", disable=not args.progress):
        net.train()
        total = 0.0
        perm = torch.randperm(n_train)
        for i in range(0, n_train, args.batch):
            j = perm[i : i + args.batch]
            logits, v = net(obs[j], mask[j])
            loss = nn.functional.cross_entropy(logits, act[j]) + args.vf_coef * (
                (v - ret[j]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(j)
        rows.append({"epoch": epoch, "loss": total / max(n_train, 1),
                     **_agreement(net, obs, mask, act, n_train)})
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "metrics.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    save_policy(out / "policy.pt", net, rules, meta={
        "trainer": "train.distill", "teacher": args.teacher, "opponents": args.opponents,
        "decisions": len(act), **{k: float(v) for k, v in rows[-1].items()}})
    return rows[-1]


def _agreement(net: PolicyNet, obs: torch.Tensor, mask: torch.Tensor, act: torch.Tensor,
               n_train: int) -> dict[str, float]:
    """The share of decisions where the greedy policy picks the teacher's action, on the
    training and on the held-out decisions."""
    net.eval()
    with torch.no_grad():
        hit = torch.cat([net(obs[i : i + 8192], mask[i : i + 8192])[0].argmax(-1)
                         == act[i : i + 8192] for i in range(0, len(act), 8192)])
    held = hit[n_train:]
    return {"train_agreement": float(hit[:n_train].float().mean()),
            "heldout_agreement": float(held.float().mean()) if len(held) else float("nan")}


def main(argv: list[str] | None = None) -> dict[str, float]:
    args = parse(Args, argv, prog="python -m train.distill")
    with user_errors():
        rules = args.rules()
        out = Path(args.out)
        data = Collection(rules, args, out / DATA)
    t0 = time.perf_counter()
    if not args.fit_only:
        collect(args, rules, data)
    t1 = time.perf_counter()
    with user_errors():
        for path in args.also:
            more = Collection.read(rules, args, Path(path))
            for mine, theirs in ((data.obs, more.obs), (data.mask, more.mask),
                                 (data.act, more.act), (data.ret, more.ret)):
                mine.extend(theirs)
        if not len(data):
            raise ValueError(f"no decisions to fit in {out} nor in --also")
    last = fit(args, rules, data.arrays(), out)
    print(f"{len(data)} decisions ({t1 - t0:.0f} s collecting), fit in "
          f"{time.perf_counter() - t1:.0f} s: agreement {last['train_agreement']:.3f} training, "
          f"{last['heldout_agreement']:.3f} held out; {out / 'policy.pt'}", file=sys.stderr)
    return last


if __name__ == "__main__":
    main()
