"""What the PPO trainers share: their common arguments."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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
    """Learner steps per game between updates."""
    epochs: int = 4
    """PPO epochs per update."""
    minibatches: int = 8
    """Minibatches per epoch."""
    lr: float = 3e-4
    """Adam learning rate (annealed linearly to 0 over total_steps)."""
    gamma: float = 1.0
    """Discount (the reward comes at the end of the game)."""
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
    extra: dict[str, Any] = field(default_factory=dict)
    """Rule options overriding the preset."""
