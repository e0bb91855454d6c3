"""sb3-contrib MaskablePPO on the single-agent Gymnasium env against rule-based opponents.

The learner's seat is drawn every episode; the other seats are played by the named agents
(one for all, or one per seat): rule-based agents or checkpoints trained for the same rules (a
``.pt`` or another ``model.zip``, :func:`agents.load_agent`). ``SingleAgentEnv`` exposes
``action_masks()``, so MaskablePPO trains on it directly, with no wrapper of our own. Logs to
TensorBoard and CSV (stable-baselines3's logger), saves the model, shows a progress bar.

The saved ``model.zip`` stores the rules it was trained for (the model attribute
``president_rules``, see :mod:`agents.sb3`), so ``train.evaluate``, ``train.tournament
--agents hard,path/to/model.zip,...`` and ``agents.load_agent`` play it under those rules.

    python -m train.maskable_ppo --preset standard --opponents hard --total-steps 200000

Smoke test: ``python -m train.maskable_ppo --total-steps 512 --n-steps 256``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents import Agent, load_agent
from agents.sb3 import RULES_KEY
from president_env.cli import (
    arg,
    check_args,
    fraction,
    non_negative,
    output_dir,
    parse,
    positive,
)
from president_env.core.rules import Rules
from president_env.envs.single_agent import SingleAgentEnv
from president_env.extras import missing_extra

try:
    import torch
except ImportError:
    raise missing_extra("torch", "train", "train.maskable_ppo") from None


def at_least_2(value: Any) -> str | None:
    """SB3 needs at least 2 (a rollout and a minibatch of one step cannot be normalized)."""
    return None if isinstance(value, int) and value >= 2 else "expected an integer >= 2"


@dataclass
class Args:
    preset: str = "standard"
    """Rules preset."""
    num_players: int = arg(4, positive)
    """Players at the table."""
    opponents: str = "hard"
    """Agent for every other seat, or one per seat (comma-separated): a rule-based agent's name
    or a checkpoint trained for the same rules (.pt or model.zip)."""
    total_steps: int = arg(200_000, positive)
    """Learner steps to train on."""
    n_steps: int = arg(2048, at_least_2)
    """Steps per rollout."""
    batch_size: int = arg(256, at_least_2)
    """Minibatch size."""
    lr: float = arg(3e-4, positive)
    """Learning rate."""
    ent_coef: float = arg(0.01, non_negative)
    """Entropy bonus."""
    gamma: float = arg(1.0, fraction)
    """Discount (the reward comes at the end of the game)."""
    seed: int = arg(0, non_negative)
    """Seed of the env, the opponents and the network."""
    threads: int = arg(1, positive)
    """torch CPU threads (small networks run fastest on one). These are torch's own threads,
    which spin at their barriers: above 1, a run is many times slower while another process
    holds a core (``train.ppo_pool`` and ``train.selfplay_ppo`` slice the work instead)."""
    out: str = arg("runs/maskable_ppo", output_dir)
    """Output folder (the run name adds the preset and the seed)."""
    progress: bool = True
    """Show a progress bar."""

    def check(self) -> None:
        self.opponent_agents(self.rules())

    def rules(self) -> Rules:
        return Rules.preset(self.preset, num_players=self.num_players)

    def opponent_agents(self, rules: Rules) -> list[Agent]:
        """The agents of the other seats (agent ``i`` seeded ``seed + i``)."""
        names = [n.strip() for n in self.opponents.split(",")]
        if len(names) == 1:
            names = names * (rules.num_players - 1)
        if len(names) != rules.num_players - 1:
            raise ValueError(
                f"--opponents {self.opponents}: give 1 or {rules.num_players - 1} agents, "
                f"got {len(names)}"
            )
        return [load_agent(n, rules, seed=self.seed + i) for i, n in enumerate(names)]


def train(args: Args) -> dict[str, Any]:
    """Train; a summary: the model's path, the run folder, the steps trained."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.monitor import Monitor

    check_args(args)
    torch.set_num_threads(args.threads)
    rules = args.rules()
    opponents = args.opponent_agents(rules)
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
    setattr(model, RULES_KEY, rules.to_dict())  # saved in the zip's data (agents.sb3)
    model.save(path)
    return {"model": str(path), "run_dir": str(run_dir), "steps": int(model.num_timesteps)}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """The command line: train, print the summary and return it."""
    summary = train(parse(Args, argv, prog="python -m train.maskable_ppo"))
    print(summary)
    return summary


if __name__ == "__main__":
    main()
