"""The warm start: the policy imitates a rule-based agent before PPO.

:func:`collect_decisions` records a teacher playing every seat of random deals (a
:class:`~president_env.table.Table` whose seats are all external: the teacher decides for every
game that waits, and forced moves, with one legal action, are left out since they teach
nothing); :func:`imitate` trains the network's policy head on them (cross-entropy) and returns
its agreement with the teacher; :func:`warm_start` does both as ``bc_*`` arguments ask.
"""

from __future__ import annotations

import numpy as np
from tqdm import tqdm

from agents import make_agent
from agents.policy import PolicyNet
from president_env.core.constants import PHASE_DONE
from president_env.core.engine import Engine
from president_env.core.rules import Rules
from president_env.extras import missing_extra
from president_env.table import EXTERNAL, Policy, Table
from train.common.args import PPOArgs
from train.common.run import run_dir

try:
    import torch
    from torch import nn
except ImportError:
    raise missing_extra("torch", "train", "train.common.imitation") from None

BATCH = 1024
"""Minibatch size of the imitation."""


def collect_decisions(
    rules: Rules, teacher: Policy, n: int, seed: int, batch: int = 512
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Observations, masks and actions of ``teacher`` playing every seat of random deals."""
    eng = Engine(rules)
    rng = np.random.default_rng(seed)
    table = Table(eng, eng.init(rng.integers(0, 2**62, batch)), [], [EXTERNAL] * rules.num_players)
    obs_l, mask_l, act_l = [], [], []
    got = 0
    while got < n:
        rows, obs, mask = table.pending()
        act = teacher.act_batch(obs, mask)
        choice = mask.sum(1) > 1  # forced moves teach nothing
        obs_l.append(obs[choice])
        mask_l.append(mask[choice])
        act_l.append(act[choice])
        got += int(choice.sum())
        table.step_external(rows, act)
        done = table.state.phase == PHASE_DONE
        if done.any():
            eng.reset_where(table.state, done, rng.integers(0, 2**62, batch))
            table.sync()
    return np.concatenate(obs_l)[:n], np.concatenate(mask_l)[:n], np.concatenate(act_l)[:n]


def imitate(
    net: PolicyNet,
    rules: Rules,
    teacher: Policy,
    n: int,
    epochs: int,
    seed: int,
    device: torch.device,
    progress: bool = True,
) -> float:
    """Train the policy head to pick the teacher's actions (cross-entropy); the agreement."""
    obs, mask, act = collect_decisions(rules, teacher, n, seed)
    o = torch.as_tensor(obs, device=device)
    m = torch.as_tensor(mask, device=device)
    a = torch.as_tensor(act, device=device)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    net.train()
    for _ in tqdm(range(epochs), desc="imitation", disable=not progress):
        perm = torch.randperm(len(a), device=device)
        for i in range(0, len(a), BATCH):
            idx = perm[i : i + BATCH]
            logits, _ = net(o[idx], m[idx])
            loss = nn.functional.cross_entropy(logits, a[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    net.eval()
    with torch.no_grad():
        hits = 0
        for i in range(0, len(a), 8192):
            logits, _ = net(o[i : i + 8192], m[i : i + 8192])
            hits += int((logits.argmax(-1) == a[i : i + 8192]).sum())
    return hits / len(a)


def warm_start(net: PolicyNet, args: PPOArgs, rules: Rules, device: torch.device) -> None:
    """Imitate ``args.bc_teacher`` on ``args.bc_decisions`` decisions (none: nothing to do);
    the agreement goes to ``bc.txt`` in the run folder."""
    if args.bc_decisions <= 0:
        return
    teacher = make_agent(args.bc_teacher, rules, seed=args.seed)
    acc = imitate(net, rules, teacher, args.bc_decisions, args.bc_epochs, args.seed, device,
                  progress=args.progress)
    folder = run_dir(args)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bc.txt").write_text(f"teacher={args.bc_teacher} accuracy={acc:.4f}\n")
