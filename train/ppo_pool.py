"""Batched PPO with action masking in torch: one learner seat against a pool of opponents.

In each of ``num_envs`` games the policy plays one seat (drawn per game); the other seats are
drawn per game from a pool of rule-based agents (batched) and frozen snapshots of the policy
(added every ``snapshot_every`` updates when ``pool_weight > 0``): the games are a
:class:`~president_env.envs.learner.LearnerVecEnv`. An optional warm start imitates a rule-based
agent first. This is the trainer of the shipped policy (``agents/pretrained/ppo.pt``);
``train/selfplay_ppo.py`` is the self-play trainer in which one shared policy plays every seat.

Logs to ``metrics.csv`` and TensorBoard, one row per update: ``steps`` (learner steps; the
opponents' moves are not counted but their time is, in ``steps_per_s``), ``episodes`` (the
finished games in the window: the last 2000 of earlier updates and this update's),
``mean_place`` and ``mean_reward`` (the learner's, over the last 2000 games), the PPO losses,
entropy and approximate KL. Saves checkpoints (see :mod:`agents.policy` for the format), shows
progress.

    python -m train.ppo_pool --preset standard --total-steps 2000000 --out runs/ppo

Smoke test: ``python -m train.ppo_pool --total-steps 2048 --num-envs 16 --rollout 32``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.policy import PolicyNet
from president_env.cli import arg, fraction, parse, positive
from president_env.envs.learner import LearnerVecEnv
from president_env.extras import missing_extra
from president_env.table import Policy
from train.common.args import PPOArgs, new_policy, setup
from train.common.imitation import warm_start
from train.common.pool import parse_opponents, snapshot
from train.common.ppo import Batch, anneal, gae, ppo_update, sample
from train.common.run import Run
from train.common.threads import Shards, shards_for

try:
    import torch
except ImportError:
    raise missing_extra("torch", "train", "train.ppo_pool") from None

COLUMNS = ("update", "steps", "seconds", "steps_per_s", "episodes", "mean_place", "mean_reward",
           "policy_loss", "value_loss", "entropy", "approx_kl")
WINDOW = 2000
"""Games behind ``mean_place`` and ``mean_reward``."""


@dataclass
class Args(PPOArgs):
    opponents: str = "hard:0.6,normal:0.3,easy:0.1"
    """Opponents and their weights (name:weight, comma-separated): rule-based agents or
    checkpoints trained for the same rules (a .pt or an SB3 model.zip path)."""
    pool_weight: float = arg(0.0, fraction)
    """Share of opponent seats given to frozen snapshots of the policy (0 = none)."""
    snapshot_every: int = arg(20, positive)
    """Updates between snapshots added to the opponent pool."""
    total_steps: int = 2_000_000
    """Learner decisions to train on (environment steps of the learner)."""
    out: str = "runs/ppo_pool"

    def check(self) -> None:
        super().check()
        try:
            parse_opponents(self.opponents, self.rules(), self.seed)
        except ValueError as e:
            raise ValueError(f"--opponents {self.opponents}: {e}") from e


def train(args: Args) -> dict[str, Any]:
    """Train; returns a summary (final checkpoint path, steps, seconds, last metrics)."""
    rules, device = setup(args)
    base_agents, base_w = parse_opponents(args.opponents, rules, args.seed)
    env = LearnerVecEnv(rules, args.num_envs, base_agents, seed=args.seed, weights=base_w)
    net, opt = new_policy(args, rules, env.obs_size, env.num_actions, device)
    warm_start(net, args, rules, device)
    run = Run(args, COLUMNS, args.updates * args.rollout * args.num_envs, desc="PPO")
    shards = shards_for(args.threads, device)
    rollout = LearnerRollout(env, args.rollout, device, shards)
    pool: list[Policy] = []
    metrics: dict[str, Any] = {}
    start = time.perf_counter()
    for update in range(1, args.updates + 1):
        anneal(opt, args.lr, update, args.updates)
        batch = rollout.collect(net, args)
        losses = ppo_update(net, opt, batch, args, adv_ddof=1, shards=shards)
        elapsed = time.perf_counter() - start
        metrics = rollout.metrics(update, elapsed, losses)
        run.log(metrics, len(batch), place=f"{metrics['mean_place']:.3f}",
                sps=f"{metrics['steps_per_s']:.0f}")
        if args.pool_weight > 0 and update % args.snapshot_every == 0:
            pool = (pool + [snapshot(net, rules, seed=args.seed + update)])[-args.pool_size :]
            env.set_opponents(base_agents + pool, pool_weights(base_w, args.pool_weight, len(pool)))
        run.checkpoint(update, net, rules, metrics)
        if args.stop(elapsed, rollout.steps):
            break
    if shards is not None:
        shards.close()
    return run.finish(net, rules, metrics)


def pool_weights(base: list[float], pool_weight: float, snapshots: int) -> list[float]:
    """The rule-based agents' weights scaled by ``1 - pool_weight``, then ``snapshots`` equal
    weights that add up to ``pool_weight`` of the rule-based total."""
    w = [x * (1 - pool_weight) for x in base]
    return w + [pool_weight * sum(base) / snapshots] * snapshots


class LearnerRollout:
    """``T`` learner steps in each game of a :class:`LearnerVecEnv`, in torch buffers, and the
    learner's finished games (places and rewards) for the metrics. ``shards``: the
    forward's slices and threads (``--threads`` above 1)."""

    def __init__(
        self, env: LearnerVecEnv, T: int, device: torch.device, shards: Shards | None = None
    ) -> None:
        B = env.num_envs
        self.env, self.T, self.device, self.shards = env, T, device, shards
        self.obs = torch.zeros((T, B, env.obs_size), device=device)
        self.mask = torch.zeros((T, B, env.num_actions), dtype=torch.bool, device=device)
        self.action = torch.zeros((T, B), dtype=torch.long, device=device)
        self.logp = torch.zeros((T, B), device=device)
        self.value = torch.zeros((T, B), device=device)
        self.reward = torch.zeros((T, B), device=device)
        self.done = torch.zeros((T, B), device=device)
        self.steps = 0
        self.places: list[int] = []
        self.ep_rewards: list[float] = []
        self.running = np.zeros(B, np.float32)
        self.next_obs, self.next_mask = env.reset()

    def collect(self, net: PolicyNet, args: PPOArgs) -> Batch:
        """Play ``T`` steps, sampling the learner's actions; the transitions with their GAE."""
        net.eval()
        dev = self.device
        for t in range(self.T):
            obs = torch.as_tensor(self.next_obs, device=dev)
            mask = torch.as_tensor(self.next_mask, device=dev)
            action, self.logp[t], self.value[t] = sample(net, obs, mask, self.shards)
            self.obs[t], self.mask[t], self.action[t] = obs, mask, action
            self.next_obs, self.next_mask, rew, done, info = self.env.step(action.cpu().numpy())
            self.reward[t] = torch.as_tensor(rew, device=dev)
            self.done[t] = torch.as_tensor(done, dtype=torch.float32, device=dev)
            self.running += rew
            if done.any():
                self.places.extend(info["place"][done].tolist())
                self.ep_rewards.extend(self.running[done].tolist())
                self.running[done] = 0.0
        self.steps += self.action.numel()
        with torch.no_grad():
            _, next_value = net(torch.as_tensor(self.next_obs, device=dev),
                                torch.as_tensor(self.next_mask, device=dev))
        adv = gae(self.reward, self.done, self.value, next_value, args.gamma, args.gae_lambda)
        n = self.action.numel()
        return Batch(obs=self.obs.reshape(n, -1), mask=self.mask.reshape(n, -1),
                     action=self.action.reshape(-1), logp=self.logp.reshape(-1),
                     adv=adv.reshape(-1), ret=(adv + self.value).reshape(-1))

    def metrics(
        self, update: int, elapsed: float, losses: tuple[float, float, float, float]
    ) -> dict[str, Any]:
        """The row of ``metrics.csv`` after an update (then the window keeps its last games)."""
        recent = self.places[-WINDOW:]
        m = {
            "update": update,
            "steps": self.steps,
            "seconds": round(elapsed, 1),
            "steps_per_s": round(self.steps / elapsed, 1),
            "episodes": len(self.places),
            "mean_place": float(np.mean(recent)) + 1 if recent else float("nan"),
            "mean_reward": float(np.mean(self.ep_rewards[-WINDOW:])) if self.ep_rewards
            else float("nan"),
            **dict(zip(COLUMNS[-4:], losses)),
        }
        self.places, self.ep_rewards = recent, self.ep_rewards[-WINDOW:]
        return m


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """The command line: train, print the summary's main figures, return the summary."""
    summary = train(parse(Args, argv, prog="python -m train.ppo_pool"))
    print({k: summary[k] for k in ("checkpoint", "steps", "seconds", "mean_place")})
    return summary


if __name__ == "__main__":
    main()
