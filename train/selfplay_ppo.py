"""Batched self-play PPO with action masking in torch: one shared policy plays every seat.

``num_envs`` games are played at once by a :class:`~train.common.selfplay.SelfPlayCollector`.
When a game starts (and again whenever it is dealt again), each of its seats is given either
to the *live* policy (probability ``1 - pool_share``; every game has at least one live seat) or
to a member of the opponent *pool*: rule-based agents and frozen snapshots of the policy (one
every ``snapshot_every`` updates, the last ``pool_size`` kept), drawn by weight (``--pool
"hard:0.5,normal:0.3,snapshots:0.2"``). At every vector step the games whose player to act is a
live seat are decided by one batched forward of the live policy (sampling) and recorded; the
others by their seat's pool agent (grouped by agent, ``act_batch``). Only live transitions
are trained on.

Advantages follow each (game, seat) chain of decisions: a seat's reward (at the end of a deal)
goes to that seat's last decision before it, however many other seats acted in between; see
:func:`train.common.ppo.seat_gae`. Until the first snapshot exists, the snapshot weight is
spread over the rule-based members (with no rule-based member, those seats are live).

Logs to ``metrics.csv`` and TensorBoard, one row per update: ``steps`` (environment steps:
every decision, live policy and pool agents), ``live_steps`` (the transitions trained on),
``seconds`` (wall clock), ``steps_per_s`` (steps over the time spent collecting and learning,
evaluations left out), ``collect_steps_per_s`` (this update's rollout alone), ``games``
(finished), ``mean_place`` (1 = first: the live seats' final places in the last 2000 live
seats of finished games, whatever sat at the other seats), the PPO losses, entropy and
approximate KL, ``snapshots`` (in the pool) and ``eval_mean_place``: every ``eval_every``
updates and at the end, the greedy policy's mean place in a duplicate tournament against
3 x Hard (``nan`` in the other rows). Checkpoints are in the :mod:`agents.policy` format.

    python -m train.selfplay_ppo --preset standard --total-steps 5000000 --out runs/selfplay

Smoke test: ``python -m train.selfplay_ppo --total-steps 2048 --num-envs 16 --rollout 32``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.policy import PolicyAgent, PolicyNet
from president_env.cli import arg, fraction, non_negative, parse, positive
from president_env.core.rules import Rules
from president_env.extras import missing_extra
from train.common.args import PPOArgs, new_policy, setup
from train.common.imitation import warm_start
from train.common.pool import frozen, parse_pool
from train.common.ppo import Batch, anneal, ppo_update, seat_gae
from train.common.run import Run
from train.common.selfplay import Rollout, SelfPlayCollector
from train.common.threads import shards_for
from train.eval.tournament import evaluate_policy

try:
    import torch
except ImportError:
    raise missing_extra("torch", "train", "train.selfplay_ppo") from None

COLUMNS = ("update", "steps", "live_steps", "seconds", "steps_per_s", "collect_steps_per_s",
           "games", "mean_place", "policy_loss", "value_loss", "entropy", "approx_kl",
           "snapshots", "eval_mean_place")
WINDOW = 2000
"""Live seats of finished games behind ``mean_place``."""


@dataclass
class Args(PPOArgs):
    pool: str = "hard:0.5,normal:0.3,snapshots:0.2"
    """Pool members and their weights (name:weight, comma-separated): rule-based agents,
    checkpoints trained for the same rules (a .pt or an SB3 model.zip path) and "snapshots"
    (frozen copies of the policy, the weight shared among them)."""
    pool_share: float = arg(0.5, fraction)
    """Probability that a seat goes to a pool member rather than the live policy (0 = pure
    self-play; at least one seat per game is always live)."""
    snapshot_every: int = arg(10, non_negative)
    """Updates between snapshots added to the pool."""
    total_steps: int = 5_000_000
    """Environment steps to run (every decision counts, live policy and pool agents)."""
    eval_every: int = arg(10, non_negative)
    """Updates between evaluations against 3 x Hard (0 = only at the end)."""
    eval_deals: int = arg(300, positive)
    """Deals of each evaluation (duplicate: every deal is played in every rotation)."""
    out: str = "runs/selfplay"

    def check(self) -> None:
        super().check()
        try:
            parse_pool(self.pool, self.rules(), self.seed)
        except ValueError as e:
            raise ValueError(f"--pool {self.pool}: {e}") from e


def train(args: Args) -> dict[str, Any]:
    """Train; returns a summary (final checkpoint path, steps, seconds, last metrics)."""
    rules, device = setup(args)
    rule_agents, rule_w, snap_w = parse_pool(args.pool, rules, args.seed)
    shards = shards_for(args.threads, device)
    col = SelfPlayCollector(rules, args.num_envs, rule_agents, rule_w, snap_w, args.pool_share,
                            args.pool_size, seed=args.seed, device=device, shards=shards)
    net, opt = new_policy(args, rules, col.engine.obs_size, col.engine.num_actions, device)
    warm_start(net, args, rules, device)
    T, B = args.rollout, args.num_envs
    run = Run(args, COLUMNS, args.updates * T * B, desc="self-play")
    steps = live_steps = 0
    metrics: dict[str, Any] = {}
    last_eval = float("nan")
    eval_seconds = 0.0  # kept out of steps_per_s
    start = time.perf_counter()
    for update in range(1, args.updates + 1):
        anneal(opt, args.lr, update, args.updates)
        net.eval()
        t0 = time.perf_counter()
        ro = col.collect(net, T)
        collect_sps = T * B / (time.perf_counter() - t0)
        steps += T * B
        batch = live_batch(ro, args, device)
        losses = (ppo_update(net, opt, batch, args, adv_ddof=0, shards=shards) if len(batch)
                  else (math.nan,) * 4)
        live_steps += len(batch)
        elapsed = time.perf_counter() - start
        sps = steps / max(elapsed - eval_seconds, 1e-9)  # earlier evaluations left out
        stop = args.stop(elapsed, steps) or update == args.updates
        if args.snapshot_every > 0 and col.snapshot_weight > 0 and update % args.snapshot_every == 0:
            col.add_snapshot(net, seed=args.seed + update)
        eval_place = math.nan
        if stop or (args.eval_every > 0 and update % args.eval_every == 0):
            t0 = time.perf_counter()
            eval_place = last_eval = evaluate_vs_hard(net, rules, args.eval_deals, args.seed)
            eval_seconds += time.perf_counter() - t0
        recent = col.places = col.places[-WINDOW:]
        metrics = {
            "update": update, "steps": steps, "live_steps": live_steps,
            "seconds": round(elapsed, 1),
            "steps_per_s": round(sps, 1),
            "collect_steps_per_s": round(collect_sps, 1),
            "games": col.games,
            "mean_place": float(np.mean(recent)) + 1 if recent else math.nan,
            **dict(zip(COLUMNS[8:12], losses)),
            "snapshots": len(col.snapshots),
            "eval_mean_place": eval_place,
        }
        run.log(metrics, T * B, place=f"{metrics['mean_place']:.3f}", vs_hard=f"{last_eval:.3f}",
                sps=f"{metrics['steps_per_s']:.0f}")
        run.checkpoint(update, net, rules, metrics)
        if stop:
            break
    if shards is not None:
        shards.close()
    return {**run.finish(net, rules, metrics), "last_eval_mean_place": last_eval}


def live_batch(ro: Rollout, args: PPOArgs, device: torch.device) -> Batch:
    """The live transitions of ``ro`` (those the policy decided) with their per-seat GAE."""
    def tensor(x: np.ndarray) -> torch.Tensor:
        return torch.as_tensor(x, device=device)

    values = tensor(ro.value)
    adv = seat_gae(tensor(ro.rewards), tensor(ro.done), values, tensor(ro.seat), tensor(ro.live),
                   tensor(ro.last_values), args.gamma, args.gae_lambda)
    idx = np.flatnonzero(ro.live.reshape(-1))
    t_idx = tensor(idx)
    b_adv = adv.reshape(-1)[t_idx]
    return Batch(
        obs=tensor(ro.obs.reshape(-1, ro.obs.shape[-1])[idx]),
        mask=tensor(ro.mask.reshape(-1, ro.mask.shape[-1])[idx]),
        action=tensor(ro.action.reshape(-1)[idx]),
        logp=tensor(ro.logp.reshape(-1)[idx]),
        adv=b_adv,
        ret=b_adv + values.reshape(-1)[t_idx],
    )


def evaluate_vs_hard(net: PolicyNet, rules: Rules, deals: int, seed: int) -> float:
    """The greedy policy's mean place (1 = first) in a duplicate tournament against Hard."""
    rows = evaluate_policy(PolicyAgent(frozen(net), rules), rules, deals, seed=seed + 12345,
                           baselines=("hard",), progress=False)
    return float(rows[0]["mean_place"])


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """The command line: train, print the summary's main figures, return the summary."""
    summary = train(parse(Args, argv, prog="python -m train.selfplay_ppo"))
    print({k: summary[k] for k in ("checkpoint", "steps", "seconds", "steps_per_s", "mean_place",
                                   "last_eval_mean_place")})
    return summary


if __name__ == "__main__":
    main()
