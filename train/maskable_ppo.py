"""sb3-contrib MaskablePPO on the single-agent Gymnasium env against rule-based opponents.

The learner's seat is drawn every episode; the other seats are played by the named rule-based
agents (one name for all, or one per seat). ``SingleAgentEnv`` exposes ``action_masks()``, so
MaskablePPO trains on it directly, with no wrapper of our own. Logs to TensorBoard and CSV
(stable-baselines3's logger), saves the model, shows a progress bar.

    python -m train.maskable_ppo --preset standard --opponents hard --total-steps 200000

Smoke test: ``python -m train.maskable_ppo --total-steps 512 --n-steps 256``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from agents import make_agent
from president_env.cli import parse
from president_env.core.rules import Rules
from president_env.single_agent import SingleAgentEnv


@dataclass
class Args:
    preset: str = "standard"
    """Rules preset."""
    num_players: int = 4
    """Players at the table."""
    opponents: str = "hard"
    """Rule-based agent for every other seat, or one name per seat (comma-separated)."""
    total_steps: int = 200_000
    """Learner steps to train on."""
    n_steps: int = 2048
    """Steps per rollout."""
    batch_size: int = 256
    """Minibatch size."""
    lr: float = 3e-4
    """Learning rate."""
    ent_coef: float = 0.01
    """Entropy bonus."""
    gamma: float = 1.0
    """Discount (the reward comes at the end of the game)."""
    seed: int = 0
    """Seed of the env, the opponents and the network."""
    threads: int = 1
    """torch CPU threads (small networks run fastest on one)."""
    out: str = "runs/maskable_ppo"
    """Output folder (the run name adds the preset and the seed)."""
    progress: bool = True
    """Show a progress bar."""


def train(args: Args) -> dict[str, Any]:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.monitor import Monitor

    torch.set_num_threads(args.threads)
    rules = Rules.preset(args.preset, num_players=args.num_players)
    names = args.opponents.split(",")
    if len(names) == 1:
        names = names * (rules.num_players - 1)
    if len(names) != rules.num_players - 1:
        raise ValueError(f"give 1 or {rules.num_players - 1} opponents, got {len(names)}")
    opponents = [make_agent(n, rules, seed=args.seed + i) for i, n in enumerate(names)]
    run_dir = Path(args.out) / f"{args.preset}_p{args.num_players}_seed{args.seed}"
    run_dir.mkdir(parents=True, exist_ok=True)
    env = Monitor(SingleAgentEnv(rules=rules, seat="random", opponents=opponents))
    env.reset(seed=args.seed)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        learning_rate=args.lr,
        ent_coef=args.ent_coef,
        gamma=args.gamma,
        seed=args.seed,
        verbose=0,
        device="cpu",
    )
    model.set_logger(configure(str(run_dir), ["csv", "tensorboard"]))
    model.learn(total_timesteps=args.total_steps, progress_bar=args.progress)
    path = run_dir / "model.zip"
    model.save(path)
    return {"model": str(path), "run_dir": str(run_dir), "steps": int(model.num_timesteps)}


if __name__ == "__main__":
    print(train(parse(Args)))
