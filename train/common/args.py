"""The PPO trainers' common arguments and the set-up they imply.

:class:`PPOArgs` holds every option that ``train.ppo_pool`` and ``train.selfplay_ppo`` share,
with its documentation (shown by ``--help``, see :mod:`president_env.cli`); each trainer's
``Args`` adds its own and changes defaults. :func:`setup` turns them into the rules and the
device (and seeds torch), :func:`new_policy` into the network and its optimizer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from agents.policy import PolicyNet, load_policy
from president_env.cli import rule_options
from president_env.core.rules import Rules


@dataclass
class PPOArgs:
    """Arguments common to ``train.ppo_pool`` and ``train.selfplay_ppo``."""

    preset: str = "standard"
    """Rules preset the policy is trained for."""
    num_players: int = 4
    """Players at the table."""
    pool_size: int = 5
    """Most recent snapshots of the policy kept in the opponent pool."""
    total_steps: int = 2_000_000
    """Steps to train on (see the trainer)."""
    num_envs: int = 256
    """Games played at once."""
    rollout: int = 64
    """Steps per game between updates (an update sees rollout * num_envs steps)."""
    epochs: int = 4
    """PPO epochs per update."""
    minibatches: int = 8
    """Minibatches per epoch."""
    lr: float = 3e-4
    """Adam learning rate (annealed linearly to 0 over total_steps)."""
    gamma: float = 1.0
    """Discount per decision (the reward comes at the end of the deal)."""
    gae_lambda: float = 0.95
    """GAE lambda."""
    clip: float = 0.2
    """PPO clip range."""
    ent_coef: float = 0.01
    """Entropy bonus."""
    vf_coef: float = 0.5
    """Value loss weight."""
    max_grad_norm: float = 0.5
    """Gradient clipping."""
    hidden: int = 256
    """Width of the two hidden layers."""
    init: str = ""
    """Start from this policy checkpoint (trained for the same rules) instead of from scratch."""
    bc_decisions: int = 0
    """Before PPO, imitate ``bc_teacher`` on this many of its decisions (0 = start from scratch)."""
    bc_teacher: str = "hard"
    """Rule-based agent imitated by the warm start."""
    bc_epochs: int = 3
    """Passes over the imitation data."""
    threads: int = 0
    """torch CPU threads (0 = torch's default)."""
    seed: int = 0
    """Seed of the games, the seat and opponent draws, the agents and the network."""
    device: str = "auto"
    """"cpu", "cuda" or "auto" (the GPU when there is one)."""
    out: str = "runs/ppo_pool"
    """Output folder: checkpoints, metrics.csv, TensorBoard logs (the run name adds the seed)."""
    checkpoint_every: int = 50
    """Updates between checkpoints (the final one is always saved)."""
    progress: bool = True
    """Show a progress bar."""
    max_seconds: float = 0.0
    """Stop after this many seconds of training (0 = no limit)."""
    max_steps: int = 0
    """Stop after this many steps (0 = total_steps); the learning rate still anneals over
    total_steps, so a run stopped by time can be reproduced exactly by its step count."""
    tensorboard: bool = True
    """Also log to TensorBoard."""
    extra: dict[str, Any] = rule_options()
    """Rule options overriding the preset."""

    @property
    def updates(self) -> int:
        """PPO updates that ``total_steps`` makes (at least one)."""
        return max(1, self.total_steps // (self.rollout * self.num_envs))

    def stop(self, elapsed: float, steps: int) -> bool:
        """Whether ``max_seconds`` or ``max_steps`` ends the run now."""
        return bool(
            (self.max_seconds and elapsed > self.max_seconds)
            or (self.max_steps and steps >= self.max_steps)
        )


def setup(args: PPOArgs) -> tuple[Rules, torch.device]:
    """The rules and the device of a run; seeds torch and sets its threads."""
    rules = Rules.preset(args.preset, num_players=args.num_players, **args.extra)
    auto = "cuda" if torch.cuda.is_available() else "cpu"
    device = torch.device(auto if args.device == "auto" else args.device)
    torch.manual_seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    return rules, device


def new_policy(
    args: PPOArgs, rules: Rules, obs_size: int, num_actions: int, device: torch.device
) -> tuple[PolicyNet, torch.optim.Optimizer]:
    """The network (fresh, or the weights of ``args.init``) and its Adam optimizer."""
    net = PolicyNet(obs_size, num_actions, args.hidden).to(device)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr, eps=1e-5)
    if args.init:
        start, _, _ = load_policy(args.init, rules)
        if start.hidden != args.hidden:
            raise ValueError(f"{args.init} has hidden={start.hidden}, not {args.hidden}")
        net.load_state_dict(start.state_dict())
    return net, opt
