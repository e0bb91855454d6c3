"""Batched PPO with action masking in torch: one learner seat against a pool of opponents.

In each of ``num_envs`` games the policy plays one seat (drawn per game); the other seats are
drawn per game from a pool of rule-based agents (batched) and frozen snapshots of the policy
(added every ``snapshot_every`` updates when ``pool_weight > 0``). An optional warm start
imitates a rule-based agent first. This is the trainer of the shipped policy
(``agents/pretrained/standard_4p.pt``); ``train/selfplay_ppo.py`` is the self-play trainer in
which one shared policy plays every seat. Environment steps per second include the policy and
the opponents. Logs to CSV and TensorBoard, saves checkpoints (see :mod:`agents.policy` for the
format), shows progress.

    python -m train.ppo_pool --preset standard --total-steps 2000000 --out runs/ppo

Smoke test: ``python -m train.ppo_pool --total-steps 2048 --num-envs 16 --rollout 32``.
"""

from __future__ import annotations

import csv
import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from agents import make_agent
from agents.policy import PolicyAgent, PolicyNet, load_policy, save_policy
from president_env.core.engine import PHASE_DONE, Engine
from president_env.core.rules import Rules
from train import cli
from train.learner_env import BatchAgent, LearnerVecEnv
from train.ppo_common import PPOArgs


@dataclass
class Args(PPOArgs):
    opponents: str = "hard:0.6,normal:0.3,easy:0.1"
    """Rule-based opponents and their weights (name:weight, comma-separated)."""
    pool_weight: float = 0.0
    """Share of opponent seats given to frozen snapshots of the policy (0 = none)."""
    snapshot_every: int = 20
    """Updates between snapshots added to the opponent pool."""
    total_steps: int = 2_000_000
    """Learner decisions to train on (environment steps of the learner)."""
    out: str = "runs/ppo_pool"
    """Output folder: checkpoints, metrics.csv, TensorBoard logs (the run name adds the seed)."""


def parse_opponents(spec: str, rules: Rules, seed: int) -> tuple[list[BatchAgent], list[float]]:
    agents: list[BatchAgent] = []
    weights: list[float] = []
    for i, item in enumerate(spec.split(",")):
        name, _, w = item.partition(":")
        agents.append(make_agent(name.strip(), rules, seed=seed + i))
        weights.append(float(w) if w else 1.0)
    return agents, weights


def train(args: Args) -> dict[str, Any]:
    """Train; returns a summary (final checkpoint path, steps, seconds, last metrics)."""
    rules = Rules.preset(args.preset, num_players=args.num_players, **args.extra)
    device = torch.device(
        ("cuda" if torch.cuda.is_available() else "cpu") if args.device == "auto" else args.device
    )
    torch.manual_seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    run_dir = Path(args.out) / f"{args.preset}_p{args.num_players}_seed{args.seed}"
    run_dir.mkdir(parents=True, exist_ok=True)
    base_agents, base_w = parse_opponents(args.opponents, rules, args.seed)
    env = LearnerVecEnv(rules, args.num_envs, base_agents, seed=args.seed, weights=base_w)
    net = PolicyNet(env.obs_size, env.num_actions, args.hidden).to(device)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr, eps=1e-5)
    pool: list[BatchAgent] = []
    if args.init:
        start_net, _, _ = load_policy(args.init, rules)
        if start_net.hidden != args.hidden:
            raise ValueError(f"{args.init} has hidden={start_net.hidden}, not {args.hidden}")
        net.load_state_dict(start_net.state_dict())
    if args.bc_decisions > 0:
        teacher = make_agent(args.bc_teacher, rules, seed=args.seed)
        acc = imitate(net, rules, teacher, args.bc_decisions, args.bc_epochs, args.seed, device,
                      progress=args.progress)
        (run_dir / "bc.txt").write_text(f"teacher={args.bc_teacher} accuracy={acc:.4f}\n")

    T, B = args.rollout, args.num_envs
    n_updates = max(1, args.total_steps // (T * B))
    obs_buf = torch.zeros((T, B, env.obs_size), device=device)
    mask_buf = torch.zeros((T, B, env.num_actions), dtype=torch.bool, device=device)
    act_buf = torch.zeros((T, B), dtype=torch.long, device=device)
    logp_buf = torch.zeros((T, B), device=device)
    val_buf = torch.zeros((T, B), device=device)
    rew_buf = torch.zeros((T, B), device=device)
    done_buf = torch.zeros((T, B), device=device)

    writer = None
    if args.tensorboard:
        try:
            from torch.utils.tensorboard import SummaryWriter

            writer = SummaryWriter(str(run_dir / "tb"))
        except ImportError:  # tensorboard is optional
            writer = None
    (run_dir / "args.txt").write_text(repr(args))
    csv_file = (run_dir / "metrics.csv").open("w", newline="")
    log = csv.writer(csv_file)
    log.writerow(["update", "steps", "seconds", "steps_per_s", "episodes", "mean_place",
                  "mean_reward", "policy_loss", "value_loss", "entropy", "approx_kl"])

    obs_np, mask_np = env.reset()
    start = time.perf_counter()
    steps = 0
    places: list[int] = []
    ep_rewards: list[float] = []
    running = np.zeros(B, np.float32)
    metrics: dict[str, Any] = {}
    bar = tqdm(total=n_updates * T * B, disable=not args.progress, unit="step", desc="PPO")
    for update in range(1, n_updates + 1):
        frac = 1.0 - (update - 1) / n_updates
        for g in opt.param_groups:
            g["lr"] = args.lr * frac
        net.eval()
        for t in range(T):
            obs = torch.as_tensor(obs_np, device=device)
            mask = torch.as_tensor(mask_np, device=device)
            with torch.no_grad():
                logits, value = net(obs, mask)
                dist = torch.distributions.Categorical(logits=logits)
                action = dist.sample()
            obs_buf[t], mask_buf[t], act_buf[t] = obs, mask, action
            logp_buf[t], val_buf[t] = dist.log_prob(action), value
            obs_np, mask_np, rew, done, info = env.step(action.cpu().numpy())
            rew_buf[t] = torch.as_tensor(rew, device=device)
            done_buf[t] = torch.as_tensor(done, dtype=torch.float32, device=device)
            running += rew
            if done.any():
                places.extend(info["place"][done].tolist())
                ep_rewards.extend(running[done].tolist())
                running[done] = 0.0
        steps += T * B
        bar.update(T * B)
        with torch.no_grad():
            _, next_value = net(
                torch.as_tensor(obs_np, device=device), torch.as_tensor(mask_np, device=device)
            )
        adv = torch.zeros((T, B), device=device)
        last = torch.zeros(B, device=device)
        for t in reversed(range(T)):
            nv = next_value if t == T - 1 else val_buf[t + 1]
            nonterm = 1.0 - done_buf[t]
            delta = rew_buf[t] + args.gamma * nv * nonterm - val_buf[t]
            last = delta + args.gamma * args.gae_lambda * nonterm * last
            adv[t] = last
        ret = adv + val_buf
        b_obs, b_mask = obs_buf.reshape(T * B, -1), mask_buf.reshape(T * B, -1)
        b_act, b_logp = act_buf.reshape(-1), logp_buf.reshape(-1)
        b_adv, b_ret = adv.reshape(-1), ret.reshape(-1)
        net.train()
        mb = (T * B) // args.minibatches
        pl = vl = ent = kl = 0.0
        for _ in range(args.epochs):
            perm = torch.randperm(T * B, device=device)
            for i in range(args.minibatches):
                idx = perm[i * mb : (i + 1) * mb]
                logits, v = net(b_obs[idx], b_mask[idx])
                dist = torch.distributions.Categorical(logits=logits)
                logp = dist.log_prob(b_act[idx])
                ratio = torch.exp(logp - b_logp[idx])
                a = b_adv[idx]
                a = (a - a.mean()) / (a.std() + 1e-8)
                p_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
                v_loss = 0.5 * ((v - b_ret[idx]) ** 2).mean()
                entropy = _masked_entropy(logits, b_mask[idx])
                loss = p_loss + args.vf_coef * v_loss - args.ent_coef * entropy
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), args.max_grad_norm)
                opt.step()
                with torch.no_grad():
                    kl = float(((ratio - 1) - torch.log(ratio)).mean())
                pl, vl, ent = p_loss.item(), v_loss.item(), entropy.item()
        elapsed = time.perf_counter() - start
        recent = places[-2000:]
        metrics = {
            "update": update,
            "steps": steps,
            "seconds": round(elapsed, 1),
            "steps_per_s": round(steps / elapsed, 1),
            "episodes": len(places),
            "mean_place": float(np.mean(recent)) + 1 if recent else float("nan"),
            "mean_reward": float(np.mean(ep_rewards[-2000:])) if ep_rewards else float("nan"),
            "policy_loss": pl,
            "value_loss": vl,
            "entropy": ent,
            "approx_kl": kl,
        }
        log.writerow(list(metrics.values()))
        csv_file.flush()
        if writer is not None:
            for k, v in metrics.items():
                if k != "update":
                    writer.add_scalar(f"train/{k}", v, steps)
        bar.set_postfix(place=f"{metrics['mean_place']:.3f}", sps=f"{metrics['steps_per_s']:.0f}")
        places = places[-2000:]
        ep_rewards = ep_rewards[-2000:]
        if args.pool_weight > 0 and update % args.snapshot_every == 0:
            snap = PolicyNet(env.obs_size, env.num_actions, args.hidden)
            snap.load_state_dict({k: v.cpu() for k, v in net.state_dict().items()})
            pool = (pool + [PolicyAgent(snap, rules, greedy=False, seed=args.seed + update)])[
                -args.pool_size :
            ]
            w = [x * (1 - args.pool_weight) for x in base_w]
            w += [args.pool_weight * sum(base_w) / len(pool)] * len(pool)
            env.set_opponents(base_agents + pool, w)
        if update % args.checkpoint_every == 0:
            save_policy(run_dir / f"policy_{steps}.pt", net, rules, meta=metrics)
        if (args.max_seconds and elapsed > args.max_seconds) or (
            args.max_steps and steps >= args.max_steps
        ):
            break
    bar.close()
    final = run_dir / "policy.pt"
    save_policy(final, net, rules, meta={**metrics, "args": dataclasses.asdict(args)})
    csv_file.close()
    if writer is not None:
        writer.close()
    return {"checkpoint": str(final), "run_dir": str(run_dir), **metrics}


def collect_decisions(
    rules: Rules, teacher: BatchAgent, n: int, seed: int, batch: int = 512
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Observations, masks and actions of ``teacher`` playing every seat of random deals."""
    eng = Engine(rules)
    rng = np.random.default_rng(seed)
    state = eng.init(rng.integers(0, 2**62, batch))
    mask = np.zeros((batch, eng.num_actions), np.bool_)
    obs_l, mask_l, act_l = [], [], []
    got = 0
    while got < n:
        eng.legal_action_mask(state, mask)
        obs = eng.observe(state)
        act = teacher.act_batch(obs, mask)
        choice = mask.sum(1) > 1  # forced moves teach nothing
        obs_l.append(obs[choice])
        mask_l.append(mask[choice].copy())
        act_l.append(act[choice])
        got += int(choice.sum())
        eng.step_inplace(state, act)
        done = state.phase == PHASE_DONE
        if done.any():
            eng.reset_where(state, done, rng.integers(0, 2**62, batch))
    return np.concatenate(obs_l)[:n], np.concatenate(mask_l)[:n], np.concatenate(act_l)[:n]


def imitate(
    net: PolicyNet,
    rules: Rules,
    teacher: BatchAgent,
    n: int,
    epochs: int,
    seed: int,
    device: torch.device,
    progress: bool = True,
) -> float:
    """Warm start: train the policy head to pick the teacher's actions (cross-entropy)."""
    obs, mask, act = collect_decisions(rules, teacher, n, seed)
    o = torch.as_tensor(obs, device=device)
    m = torch.as_tensor(mask, device=device)
    a = torch.as_tensor(act, device=device)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    net.train()
    bs = 1024
    for _ in tqdm(range(epochs), desc="imitation", disable=not progress):
        perm = torch.randperm(len(a), device=device)
        for i in range(0, len(a), bs):
            idx = perm[i : i + bs]
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


def _masked_entropy(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    logp = torch.log_softmax(logits, -1)
    p = logp.exp()
    return -(torch.where(mask, p * logp, torch.zeros_like(p))).sum(-1).mean()


def parse_args(argv: list[str] | None = None) -> Args:
    return cli.parse_args(Args, argv, __doc__)


if __name__ == "__main__":
    summary = train(parse_args())
    print({k: summary[k] for k in ("checkpoint", "steps", "seconds", "mean_place")})
