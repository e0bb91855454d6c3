"""Multi-agent PPO with Ray RLlib: the way to train beyond one machine.

The PettingZoo AEC env (:func:`president_env.env`) goes through RLlib's own wrapper
(``ray.rllib.env.wrappers.pettingzoo_env.PettingZooEnv``); one shared policy (module
``"shared"``, a :class:`train.rllib.modules.MaskedPPOModule`: the network of
:class:`agents.policy.PolicyNet`, illegal actions masked) plays every seat in self-play, and
``--opponents hard,normal`` gives that many seats of every game, drawn again for every game, to
fixed policies: rule-based agents by name or policy checkpoints (``.pt``), see
:mod:`train.rllib.seats`. Only the shared policy is trained.

Ray runs locally by default (``ray.init()``); ``--address auto`` or ``--address
ray://host:10001`` joins an existing cluster (every node needs this package installed: ``pip
install -e ".[rllib]"``). ``--env-runners`` processes each play ``--envs-per-runner`` games; an
update trains on ``rollout * max(1, env_runners) * envs_per_runner`` steps (every decision
counts, the opponents' too), in ``epochs`` passes of ``minibatches`` minibatches; the learning
rate anneals linearly to 0 over ``total_steps``. ``--env-runners 0`` samples in the driver.

Logs as the other trainers (:class:`train.common.run.Run`): a progress bar, a run folder
``<out>/<preset>_p<players>_seed<seed>/`` with ``args.txt``, ``metrics.csv`` and TensorBoard,
one row per update: ``steps``, ``seconds``, ``steps_per_s`` (evaluations left out),
``iter_seconds`` (this update: sampling and learning), ``games`` (finished), ``mean_place`` (1 =
first: the shared policy's final places in the last 2000 of its finished games), PPO's
``policy_loss``, ``value_loss``, ``entropy`` (PPO's clipped loss as in the other trainers:
no KL term, so no KL figure) and ``eval_mean_place`` (every ``eval_every`` updates and at the end: the greedy policy's mean place
in a duplicate tournament against 3 x Hard). Every ``checkpoint_every`` updates and at the end
the run writes RLlib's checkpoint (``rllib_<steps>/``, ``rllib/``: ``Algorithm.from_checkpoint``
resumes it) and beside it the shared policy as an :mod:`agents.policy` checkpoint
(``policy_<steps>.pt``, ``policy.pt``) that ``train.evaluate``, the tournament and
``PolicyAgent.load`` read without Ray. An RLlib checkpoint of the shared module written by
another script converts with ``--convert``::

    python -m train.rllib_ppo --total-steps 2000000 --env-runners 2 --opponents hard,normal
    python -m train.rllib_ppo --address auto --env-runners 32 --envs-per-runner 8
    python -m train.rllib_ppo --convert runs/rllib/standard_p4_seed0/rllib --out policy.pt

Needs the optional extra ``rllib`` (Ray pins its own Gymnasium: use a separate venv, ``make
.venv-rllib/.installed``). Smoke test: ``python -m train.rllib_ppo --total-steps 512
--env-runners 0 --rollout 128 --eval-deals 20``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.policy import PolicyNet, save_policy
from president_env.cli import arg, fail, non_negative, parse, positive, user_errors
from president_env.core.engine import Engine
from president_env.core.rules import Rules
from president_env.extras import missing_extra
from train.common.args import PPOArgs, new_policy, setup
from train.common.imitation import warm_start
from train.common.run import Run
from train.rllib.seats import LIVE, SeatMap, opponent_modules
from train.selfplay_ppo import evaluate_vs_hard

try:
    import torch
except ImportError:
    raise missing_extra("torch", "train", "train.rllib_ppo") from None

COLUMNS = ("update", "steps", "seconds", "steps_per_s", "iter_seconds", "games", "mean_place",
           "policy_loss", "value_loss", "entropy", "eval_mean_place")
WINDOW = 2000
"""Finished games of the shared policy behind ``mean_place``."""
ENV_NAME = "president_aec"
LEARNER_STATS = {"policy_loss": "policy_loss", "value_loss": "vf_loss", "entropy": "entropy"}
"""metrics.csv column: RLlib's learner result key."""


@dataclass
class Args(PPOArgs):
    opponents: tuple[str, ...] = ()
    """Seats of every game given to fixed policies (comma-separated: rule-based agents
    random/easy/normal/hard, or .pt checkpoints), drawn again for every game; the other seats
    play the shared, trained policy."""
    address: str = ""
    """Ray cluster to join ("auto", "ray://host:10001"); empty: start a local Ray."""
    env_runners: int = arg(2, non_negative)
    """RLlib env runners (processes that play games; 0 = play in the driver)."""
    envs_per_runner: int = arg(4, positive)
    """Games each env runner plays at once (one batched forward of the policy for all)."""
    rollout: int = 256
    """Steps per game slot between updates (an update sees rollout * max(1, env_runners) *
    envs_per_runner steps)."""
    num_envs: int = 256
    """Not used by this trainer (games at once: env_runners x envs_per_runner)."""
    pool_size: int = 5
    """Not used by this trainer (no snapshots: see --opponents)."""
    total_steps: int = 2_000_000
    """Environment steps to run (every decision counts, shared policy and opponents)."""
    eval_every: int = arg(10, non_negative)
    """Updates between evaluations against 3 x Hard (0 = only at the end)."""
    eval_deals: int = arg(300, positive)
    """Deals of each evaluation (duplicate: every deal is played in every rotation)."""
    out: str = "runs/rllib"
    convert: str = ""
    """Only convert: the RLlib checkpoint folder (an Algorithm's, or the shared RLModule's) to
    the agents.policy checkpoint --out (a .pt file), for --preset/--rule rules; no training."""

    @property
    def batch(self) -> int:
        """Steps per update."""
        return self.rollout * max(1, self.env_runners) * self.envs_per_runner

    @property
    def updates(self) -> int:
        return max(1, self.total_steps // self.batch)

    def check(self) -> None:
        super().check()
        if self.num_envs != 256 or self.pool_size != 5:
            raise ValueError("--num-envs and --pool-size are not used by train.rllib_ppo "
                             "(see --env-runners, --envs-per-runner and --opponents)")
        if self.batch < self.minibatches:
            raise ValueError(f"an update of {self.batch} steps cannot make {self.minibatches} "
                             "minibatches (raise --rollout)")
        opponent_modules(list(self.opponents), self.rules(), self.num_players, self.seed)


def require_ray() -> Any:
    """The ``ray`` module; an ImportError that says how to install it when it is missing."""
    try:
        import ray
        import ray.rllib  # noqa: F401
    except ImportError as e:
        raise ImportError(
            f"train.rllib_ppo needs Ray RLlib ({e}): install the optional extra in its own venv "
            '(Ray pins its own Gymnasium): pip install -e ".[rllib]", or make .venv-rllib/.installed'
        ) from e
    return ray


def rllib_config(args: Args, rules: Rules, init: PolicyNet | None) -> Any:
    """RLlib's PPOConfig of the run (``init``: the shared policy's starting weights)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module import MultiRLModuleSpec, RLModuleSpec

    from train.rllib.modules import FixedAgentModule, MaskedPPOModule, policy_state

    ids, fixed = opponent_modules(list(args.opponents), rules, args.num_players, args.seed)
    live_cfg = {"hidden": args.hidden, "weights": None if init is None else policy_state(init)}
    specs = {LIVE: RLModuleSpec(module_class=MaskedPPOModule, model_config=live_cfg)}
    specs.update({m: RLModuleSpec(module_class=FixedAgentModule, model_config=c)
                  for m, c in fixed.items()})
    gpu = args.device == "cuda" or (args.device == "auto" and torch.cuda.is_available())
    return (
        PPOConfig()
        .environment(ENV_NAME, env_config={"rules": rules}, disable_env_checking=True)
        .env_runners(num_env_runners=args.env_runners, num_envs_per_env_runner=args.envs_per_runner,
                     rollout_fragment_length=args.rollout)
        .learners(num_gpus_per_learner=1 if gpu else 0)
        .multi_agent(policies={LIVE, *fixed}, policy_mapping_fn=SeatMap(ids, args.num_players,
                                                                         args.seed),
                     policies_to_train=[LIVE])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(train_batch_size_per_learner=args.batch,
                  minibatch_size=args.batch // args.minibatches, num_epochs=args.epochs,
                  lr=[[0, args.lr], [args.total_steps, 0.0]], gamma=args.gamma,
                  lambda_=args.gae_lambda, clip_param=args.clip, entropy_coeff=args.ent_coef,
                  vf_loss_coeff=args.vf_coef, grad_clip=args.max_grad_norm, use_kl_loss=False)
        .callbacks(on_episode_end=log_places)
        .debugging(seed=args.seed)
        .reporting(metrics_num_episodes_for_smoothing=WINDOW)
    )


def make_env(config: dict[str, Any]) -> Any:
    """RLlib's env creator: the AEC env through RLlib's ``PettingZooEnv``."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from president_env import env

    return PettingZooEnv(env(**config))


def log_places(*, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
    """RLlib callback: the shared policy's final places (1 = first) of a finished game."""
    for aid, agent_ep in episode.agent_episodes.items():
        if episode.module_for(aid) != LIVE or metrics_logger is None:
            continue
        info = agent_ep.get_infos(-1)
        if "standing" in info:
            metrics_logger.log_value("mean_place", info["standing"] + 1, reduce="mean",
                                     window=WINDOW)


def shared_net(algo: Any, engine: Engine) -> PolicyNet:
    """The shared policy's current weights (from the learner) as a :class:`PolicyNet`."""
    from train.rllib.modules import net_from_module_state

    state = algo.learner_group.get_weights(module_ids=[LIVE])[LIVE]
    return net_from_module_state(state, engine.obs_size, engine.num_actions)


def train(args: Args) -> dict[str, Any]:
    """Train; returns a summary (final checkpoint path, steps, seconds, last metrics)."""
    ray = require_ray()
    from ray.tune.registry import register_env

    rules, device = setup(args)
    engine = Engine(rules)
    init: PolicyNet | None = None
    if args.init or args.bc_decisions:
        init, _ = new_policy(args, rules, engine.obs_size, engine.num_actions, device)
        warm_start(init, args, rules, device)
        init = init.cpu()
    if not ray.is_initialized():
        ray.init(address=args.address or None, include_dashboard=False,
                 logging_level="warning", log_to_driver=False)
    register_env(ENV_NAME, make_env)
    algo = rllib_config(args, rules, init).build_algo()
    try:
        return _loop(args, algo, rules, engine)
    finally:
        algo.stop()


def _loop(args: Args, algo: Any, rules: Rules, engine: Engine) -> dict[str, Any]:
    run = Run(args, COLUMNS, args.updates * args.batch, desc="rllib")
    metrics: dict[str, Any] = {}
    steps, last_eval, eval_seconds = 0, math.nan, 0.0
    start = time.perf_counter()
    for update in range(1, args.updates + 1):
        t0 = time.perf_counter()
        result = algo.train()
        iter_seconds = time.perf_counter() - t0
        runners, learner = result.get("env_runners", {}), result.get("learners", {}).get(LIVE, {})
        new_steps = int(runners.get("num_env_steps_sampled_lifetime", steps)) - steps
        steps += new_steps
        elapsed = time.perf_counter() - start
        stop = args.stop(elapsed, steps) or update == args.updates
        net = shared_net(algo, engine)
        eval_place = math.nan
        if stop or (args.eval_every > 0 and update % args.eval_every == 0):
            t0 = time.perf_counter()
            eval_place = last_eval = evaluate_vs_hard(net, rules, args.eval_deals, args.seed)
            eval_seconds += time.perf_counter() - t0
        metrics = {
            "update": update, "steps": steps, "seconds": round(elapsed, 1),
            "steps_per_s": round(steps / max(elapsed - eval_seconds, 1e-9), 1),
            "iter_seconds": round(iter_seconds, 3),
            "games": int(runners.get("num_episodes_lifetime", 0)),
            "mean_place": float(runners.get("mean_place", math.nan)),
            **{c: float(learner.get(k, math.nan)) for c, k in LEARNER_STATS.items()},
            "eval_mean_place": eval_place,
        }
        run.log(metrics, new_steps, place=f"{metrics['mean_place']:.3f}",
                vs_hard=f"{last_eval:.3f}", sps=f"{metrics['steps_per_s']:.0f}")
        if update % args.checkpoint_every == 0:
            run.checkpoint(update, net, rules, metrics)
            algo.save_to_path(str((run.dir / f"rllib_{steps}").absolute()))
        if stop:
            break
    algo.save_to_path(str((run.dir / "rllib").absolute()))
    return {**run.finish(shared_net(algo, engine), rules, metrics), "last_eval_mean_place": last_eval}


def convert(source: str | Path, out: str | Path, rules: Rules) -> Path:
    """Write the shared policy of the RLlib checkpoint ``source`` (an Algorithm's folder, or
    the shared RLModule's own) as an :mod:`agents.policy` checkpoint ``out``; a ValueError
    when ``source`` holds no :class:`~train.rllib.modules.MaskedPPOModule` for ``rules``."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    from train.rllib.modules import net_from_module_state

    src = Path(source)
    folder = next((p for p in (src / "learner_group" / "learner" / "rl_module" / LIVE, src)
                   if (p / "module_state.pkl").is_file() or (p / "module_state.pt").is_file()),
                  None)
    if folder is None:
        raise ValueError(f"{src} is not an RLlib checkpoint of the {LIVE!r} RLModule "
                         f"(expected learner_group/learner/rl_module/{LIVE}/ inside)")
    state = RLModule.from_checkpoint(str(folder.absolute())).get_state()
    engine = Engine(rules)
    net = net_from_module_state(state, engine.obs_size, engine.num_actions)
    dest = Path(out)
    dest.parent.mkdir(parents=True, exist_ok=True)
    save_policy(dest, net, rules, meta={"converted_from": str(src)})
    return dest


def main() -> None:
    args = parse(Args)
    try:
        require_ray()
    except ImportError as e:
        fail(str(e))
    if args.convert:
        with user_errors():
            out = args.out if args.out.endswith(".pt") else str(Path(args.out) / "policy.pt")
            print(convert(args.convert, out, args.rules()))
        return
    summary = train(args)
    print({k: summary[k] for k in ("checkpoint", "steps", "seconds", "steps_per_s", "mean_place",
                                   "last_eval_mean_place")})


if __name__ == "__main__":
    main()
