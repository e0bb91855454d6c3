"""The PPO trainers' common arguments and the set-up they imply.

:class:`PPOArgs` holds every option that ``train.ppo_pool`` and ``train.selfplay_ppo`` share,
with its documentation (shown by ``--help``, see :mod:`president_env.cli`); each trainer's
``Args`` adds its own and changes defaults. :func:`setup` turns them into the rules and the
device (and seeds torch), :func:`new_policy` into the network and its optimizer.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents import load_agent, make_agent
from agents.policy import PolicyNet, load_policy, widen_input
from president_env.cli import (
    arg,
    check_args,
    fraction,
    input_file,
    non_negative,
    output_dir,
    positive,
    rule_options,
)
from president_env.core.engine import Engine
from president_env.core.rules import Rules
from president_env.extras import missing_extra

try:
    import torch
except ImportError:
    raise missing_extra("torch", "train", "train.common.args") from None


@dataclass
class PPOArgs:
    """Arguments common to ``train.ppo_pool`` and ``train.selfplay_ppo``."""

    preset: str = "standard"
    """Rules preset the policy is trained for."""
    num_players: int = arg(4, positive)
    """Players at the table."""
    pool_size: int = arg(5, positive)
    """Most recent snapshots of the policy kept in the opponent pool."""
    total_steps: int = arg(2_000_000, positive)
    """Steps to train on (see the trainer)."""
    num_envs: int = arg(256, positive)
    """Games played at once."""
    rollout: int = arg(64, positive)
    """Steps per game between updates (an update sees rollout * num_envs steps)."""
    epochs: int = arg(4, positive)
    """PPO epochs per update."""
    minibatches: int = arg(8, positive)
    """Minibatches per epoch."""
    lr: float = arg(3e-4, positive)
    """Adam learning rate (annealed linearly to 0 over total_steps)."""
    gamma: float = arg(1.0, fraction)
    """Discount per decision (the reward comes at the end of the deal)."""
    gae_lambda: float = arg(0.95, fraction)
    """GAE lambda."""
    clip: float = arg(0.2, positive)
    """PPO clip range."""
    ent_coef: float = arg(0.01, non_negative)
    """Entropy bonus."""
    vf_coef: float = arg(0.5, non_negative)
    """Value loss weight."""
    max_grad_norm: float = arg(0.5, positive)
    """Gradient clipping."""
    hidden: int = arg(256, positive)
    """Width of the two hidden layers."""
    init: str = arg("", input_file)
    """Start from this policy checkpoint (trained for the same rules) instead of from scratch;
    one of the standard observation starts a run of ``--rule observation=history`` playing as
    it does (zero weights on the history inputs)."""
    bc_decisions: int = arg(0, non_negative)
    """Before PPO, imitate ``bc_teacher`` on this many of its decisions (0 = start from scratch)."""
    bc_teacher: str = "hard"
    """Rule-based agent imitated by the warm start."""
    bc_epochs: int = arg(3, positive)
    """Passes over the imitation data."""
    threads: int = arg(1, non_negative)
    """CPU threads of the network's work (0 = one per core). Above 1, the forward and each
    minibatch's gradient are split in that many fixed slices of rows, run on that many threads
    or, while that is timed slower (another process holding a core), on one; torch itself runs
    one thread (its own threads spin at barriers and collapse then; see
    ``train/common/threads.py``). A seeded run repeats for the same value, however the timing
    chose; runs with different values differ in the last bits, and grow apart."""
    compile: bool = False
    """Compile the policy's forward with ``torch.compile`` (slower first update; falls back to
    eager with a message if compilation fails)."""
    seed: int = arg(0, non_negative)
    """Seed of the games, the seat and opponent draws, the agents and the network."""
    device: str = "auto"
    """"cpu", "cuda" or "auto" (the GPU when there is one)."""
    out: str = arg("runs/ppo_pool", output_dir)
    """Output folder: checkpoints, metrics.csv, TensorBoard logs (the run name adds the seed)."""
    checkpoint_every: int = arg(50, positive)
    """Updates between checkpoints (the final one is always saved)."""
    progress: bool = True
    """Show a progress bar."""
    max_seconds: float = arg(0.0, non_negative)
    """Stop after this many seconds of training (0 = no limit)."""
    max_steps: int = arg(0, non_negative)
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

    def check(self) -> None:
        """The checks that need the rules: preset and options, the imitated agent, ``init``
        trained for these rules (ValueError; see :func:`president_env.cli.check_args`)."""
        rules = self.rules()
        if self.bc_decisions:
            make_agent(self.bc_teacher, rules)
        if self.init:
            load_policy(self.init, rules)
        if self.device != "auto":
            try:
                dev = torch.device(self.device)
            except RuntimeError as e:
                raise ValueError(f"--device {self.device}: expected cpu, cuda or auto ({e})") from e
            if dev.type == "cuda" and not torch.cuda.is_available():
                raise ValueError(f"--device {self.device}: {no_gpu()}; use --device cpu or auto")

    def rules(self) -> Rules:
        """The rules of the run: the preset, ``num_players`` players, the ``--rule`` options."""
        return Rules.preset(self.preset, num_players=self.num_players, **self.extra)

    def stop(self, elapsed: float, steps: int) -> bool:
        """Whether ``max_seconds`` or ``max_steps`` ends the run now."""
        return bool(
            (self.max_seconds and elapsed > self.max_seconds)
            or (self.max_steps and steps >= self.max_steps)
        )


def setup(args: PPOArgs) -> tuple[Rules, torch.device]:
    """The rules and the device of a run (after :func:`~president_env.cli.check_args`: a
    ValueError for a bad argument); seeds torch and sets it to one thread (``--threads``
    above 1 is :func:`train.common.threads.shards_for`'s)."""
    check_args(args)
    rules = args.rules()
    auto = "cuda" if torch.cuda.is_available() else "cpu"
    device = torch.device(auto if args.device == "auto" else args.device)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    return rules, device


def no_gpu() -> str:
    """Why there is no CUDA device: torch built without CUDA, or no GPU visible."""
    if torch.version.cuda is None:
        return f"this torch ({torch.__version__}) is built without CUDA"
    return "no CUDA GPU is visible (torch.cuda.is_available() is False)"


def new_policy(
    args: PPOArgs, rules: Rules, obs_size: int, num_actions: int, device: torch.device
) -> tuple[PolicyNet, torch.optim.Optimizer]:
    """The network (fresh, or the weights of ``args.init``: see :func:`init_policy`) and its
    Adam optimizer."""
    net = PolicyNet(obs_size, num_actions, args.hidden).to(device)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr, eps=1e-5)
    if args.init:
        net.load_state_dict(init_policy(args.init, rules, obs_size, args.hidden).state_dict())
    if args.compile:
        compile_policy(net, obs_size, num_actions, device)
    return net, opt


@dataclass
class HistoryFitArgs:
    """Arguments of a trainer that collects decisions at a table of ``observation="history"``
    and fits a network on them (``train.lookahead``), which adds its own and the agents it
    loads (:meth:`agents`)."""

    preset: str = "standard"
    """Rules preset (the observation is always ``history``)."""
    num_players: int = arg(4, positive)
    """Players at the table."""
    hidden: int = arg(256, positive)
    """Width of the two hidden layers."""
    epochs: int = arg(8, positive)
    """Passes over the training decisions."""
    batch: int = arg(256, positive)
    """Decisions per gradient step."""
    vf_coef: float = arg(0.5, non_negative)
    """Weight of the value loss."""
    init: str = arg("", input_file)
    """Start the fit from this checkpoint (one of the standard observation is widened with zero
    weights on the history inputs, so it starts playing exactly as that checkpoint)."""
    also: tuple[str, ...] = ()
    """More collection files of the same rules (collections run side by side with other
    seeds), added to the fit after this run's own, comma-separated."""
    seed: int = arg(0, non_negative)
    """Seed of the deals, the agents and the fit."""
    threads: int = arg(1, positive)
    """torch threads of the fit. More only on an otherwise idle machine: with another process
    on the other core, a 200,000-decision fit on 2 threads had not ended its first epoch after
    150 s, one epoch took about 10 s on one thread."""
    out: str = arg("runs/fit", output_dir)
    """Run folder."""
    fit_only: bool = False
    """Skip the collection: fit on this folder's collection (if any) and the ``--also`` files."""
    progress: bool = True
    """Show progress bars."""
    extra: dict[str, Any] = rule_options()
    """Rule options overriding the preset."""

    def agents(self) -> tuple[str, ...]:
        """The agent specs the run loads (checked by :meth:`check`)."""
        return ()

    def rules(self) -> Rules:
        """The preset with ``num_players`` and the ``--rule`` options, history observation."""
        extra = {**self.extra, "observation": "history"}
        return Rules.preset(self.preset, num_players=self.num_players, **extra)

    def check(self) -> None:
        """The agents and ``init`` must load for the rules, the ``--also`` files must exist
        (ValueError)."""
        rules = self.rules()
        for spec in self.agents():
            load_agent(spec, rules)
        if self.init:
            init_policy(self.init, rules, Engine(rules).obs_size, self.hidden)
        for path in self.also:
            if not Path(path).is_file():
                raise ValueError(f"--also {path}: no such file")


def init_policy(path: str, rules: Rules, obs_size: int, hidden: int) -> PolicyNet:
    """The checkpoint ``path`` (trained for ``rules``) as a network of ``obs_size`` inputs: a
    checkpoint of the standard observation starting a run of ``observation="history"`` is
    widened with zero weights on the history inputs (:func:`agents.policy.widen_input`), so
    the run starts playing exactly as the checkpoint. A ValueError for another width."""
    start, _, _ = load_policy(path, rules)
    if start.hidden != hidden:
        raise ValueError(f"{path} has hidden={start.hidden}, not {hidden}")
    if start.obs_size != obs_size:
        if start.obs_size > obs_size:
            raise ValueError(f"{path} reads {start.obs_size} inputs; these rules give {obs_size}")
        start = widen_input(start, obs_size)
    return start


def compile_policy(net: PolicyNet, obs_size: int, num_actions: int, device: torch.device) -> bool:
    """``torch.compile`` ``net``'s forward in place (its weights and ``state_dict`` unchanged),
    tried at once on a small batch, forward and backward; if that fails, ``net`` stays eager and
    one line on stderr says why. Any later graph that fails to compile also runs eagerly
    (dynamo's ``suppress_errors``). Returns whether ``net`` is compiled."""
    import torch._dynamo

    net.compile()
    try:
        obs = torch.zeros((2, obs_size), device=device)
        mask = torch.ones((2, num_actions), dtype=torch.bool, device=device)
        logits, value = net(obs, mask)
        (logits.logsumexp(-1).sum() + value.sum()).backward()
    except Exception as e:  # inductor fails in many ways (no compiler, unsupported device)
        net._compiled_call_impl = None  # what Module.compile() set: back to eager
        msg = str(e).strip().splitlines()[0] if str(e).strip() else ""
        print(f"--compile: torch.compile failed ({type(e).__name__}: {msg[:200]}); "
              "running without it", file=sys.stderr, flush=True)
        return False
    finally:
        net.zero_grad(set_to_none=True)
    torch._dynamo.config.suppress_errors = True
    return True
