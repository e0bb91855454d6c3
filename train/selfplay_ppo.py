"""Batched self-play PPO with action masking in torch: one shared policy plays every seat.

``num_envs`` games run in one :class:`~president_env.vector.VectorEnv`. When a game starts (and
again whenever it auto-resets), each of its seats is given either to the *live* policy
(probability ``1 - pool_share``; every game has at least one live seat) or to a member of the
opponent *pool*: rule-based agents and frozen snapshots of the policy (one every
``snapshot_every`` updates, the last ``pool_size`` kept), drawn by weight (``--pool
"hard:0.5,normal:0.3,snapshots:0.2"``). At every vector step the games whose player to act is a
live seat are decided by one batched forward of the live policy (sampling) and recorded; the
others by their seat's pool agent (grouped by agent, ``act_batch``). Only live transitions
are trained on.

Advantages follow each (game, seat) chain of decisions: a seat's reward (at the end of a deal)
goes to that seat's last decision before it, however many other seats acted in between; see
:func:`compute_advantages`. Until the first snapshot exists, the snapshot weight is spread over
the rule-based members (with no rule-based member, those seats are live).

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

import csv
import dataclasses
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from torch import nn
from tqdm import tqdm

from agents import make_agent
from agents.policy import PolicyAgent, PolicyNet, load_policy, save_policy
from president_env.core.rules import Rules
from president_env.vector import VectorEnv
from train import cli
from train.evaluate import evaluate_policy
from train.learner_env import BatchAgent
from train.ppo_common import PPOArgs
from train.ppo_pool import _masked_entropy, imitate, parse_opponents

SNAPSHOTS = "snapshots"


@dataclass
class Args(PPOArgs):
    pool: str = "hard:0.5,normal:0.3,snapshots:0.2"
    """Pool members and their weights (name:weight, comma-separated): rule-based agents and
    "snapshots" (frozen copies of the policy, the weight shared among them)."""
    pool_share: float = 0.5
    """Probability that a seat goes to a pool member rather than the live policy (0 = pure
    self-play; at least one seat per game is always live)."""
    snapshot_every: int = 10
    """Updates between snapshots added to the pool."""
    total_steps: int = 5_000_000
    """Environment steps to run (every decision counts, live policy and pool agents)."""
    rollout: int = 64
    """Vector steps per update (an update sees rollout * num_envs environment steps)."""
    gamma: float = 1.0
    """Discount per decision of a seat (the reward comes at the end of the deal)."""
    eval_every: int = 10
    """Updates between evaluations against 3 x Hard (0 = only at the end)."""
    eval_deals: int = 300
    """Deals of each evaluation (duplicate: every deal is played in every rotation)."""
    out: str = "runs/selfplay"
    """Output folder: checkpoints, metrics.csv, TensorBoard logs (the run name adds the seed)."""


# --------------------------------------------------------------------------- advantages
def compute_advantages(
    rewards: torch.Tensor,
    dones: torch.Tensor,
    values: torch.Tensor,
    seats: torch.Tensor,
    live: torch.Tensor,
    last_values: torch.Tensor,
    gamma: float,
    lam: float,
) -> torch.Tensor:
    """GAE along each (game, seat) chain of live decisions; ``[T, B]``, 0 on other rows.

    ``rewards [T, B, P]`` (every seat's reward from step t), ``dones [T, B]`` (step t ended
    the game; the game is dealt again in the same step), ``values``/``seats``/``live``
    ``[T, B]`` (value estimate, seat to act and whether the live policy decided at step t),
    ``last_values [B, P]``: every seat's value in the state after the last step. Going
    backwards, ``acc`` gathers each seat's rewards until that seat's previous live decision
    is reached, so a reward that arrives while other seats act goes to the right decision.
    """
    T, B, P = rewards.shape
    rows = torch.arange(B, device=rewards.device)
    next_val = last_values.clone()
    next_adv = torch.zeros_like(next_val)
    acc = torch.zeros_like(next_val)
    adv = torch.zeros((T, B), dtype=values.dtype, device=values.device)
    for t in reversed(range(T)):
        keep = (~dones[t].bool()).to(next_val.dtype)[:, None]
        next_val = next_val * keep  # the finished game's chains do not continue
        next_adv = next_adv * keep
        acc = acc * keep + rewards[t]
        p = seats[t].clamp(min=0).long()
        on = live[t].bool()
        nv, na, r = next_val[rows, p], next_adv[rows, p], acc[rows, p]
        delta = r + gamma * nv - values[t]
        a = delta + gamma * lam * na
        adv[t] = torch.where(on, a, torch.zeros_like(a))
        next_val[rows, p] = torch.where(on, values[t], nv)
        next_adv[rows, p] = torch.where(on, a, na)
        acc[rows, p] = torch.where(on, torch.zeros_like(r), r)
    return adv


# --------------------------------------------------------------------------- pool
def parse_pool(spec: str, rules: Rules, seed: int) -> tuple[list[BatchAgent], list[float], float]:
    """``"hard:0.5,normal:0.3,snapshots:0.2"`` -> rule-based agents, their weights, snapshot weight."""
    named: list[str] = []
    snap_w = 0.0
    for item in spec.split(","):
        if not item.strip():
            continue
        name, _, w = item.partition(":")
        weight = float(w) if w else 1.0
        if weight < 0 or not math.isfinite(weight):
            raise ValueError(f"pool weight of {name.strip()!r} must be >= 0, got {w!r}")
        if name.strip().lower() in (SNAPSHOTS, "snapshot"):
            snap_w += weight
        else:
            named.append(f"{name.strip()}:{weight}")
    agents, weights = parse_opponents(",".join(named), rules, seed) if named else ([], [])
    return agents, weights, snap_w


@dataclass
class Rollout:
    """One rollout, ``[T, B, ...]`` numpy arrays (see :func:`compute_advantages`)."""

    obs: npt.NDArray[np.float32]
    mask: npt.NDArray[np.bool_]
    action: npt.NDArray[np.int64]
    logp: npt.NDArray[np.float32]
    value: npt.NDArray[np.float32]
    seat: npt.NDArray[np.int64]
    live: npt.NDArray[np.bool_]
    rewards: npt.NDArray[np.float32]
    done: npt.NDArray[np.bool_]
    last_values: npt.NDArray[np.float32]


class SelfPlayCollector:
    """B self-play games, each seat given to the live policy or to a pool member."""

    def __init__(
        self,
        rules: Rules,
        num_envs: int,
        rule_agents: list[BatchAgent],
        rule_weights: list[float],
        snapshot_weight: float = 0.0,
        pool_share: float = 0.5,
        pool_size: int = 5,
        seed: int = 0,
        device: torch.device | str = "cpu",
    ) -> None:
        if not 0.0 <= pool_share <= 1.0:
            raise ValueError(f"pool_share must be in [0, 1], got {pool_share}")
        if pool_share > 0 and not rule_agents and snapshot_weight <= 0:
            raise ValueError("pool_share > 0 needs pool members (rule-based or snapshots)")
        if len(rule_weights) != len(rule_agents) or any(w < 0 for w in rule_weights):
            raise ValueError("rule_weights must be one non-negative number per rule agent")
        self.rules = rules
        self.device = torch.device(device)
        self.venv = VectorEnv(num_envs, rules=rules, seed=seed)
        self.num_envs, self.num_players = num_envs, rules.num_players
        self.rule_agents = list(rule_agents)
        self.rule_weights = list(rule_weights)
        self.snapshot_weight = snapshot_weight
        self.pool_share = pool_share
        self.pool_size = pool_size
        self.snapshots: list[BatchAgent] = []
        self._next_slot = 0
        self.rng = np.random.default_rng([seed, 1])
        self.rows = np.arange(num_envs)
        self.obs, self.mask, info = self.venv.reset()
        self.current = info["current_player"]
        self.seat_agent = self.draw_seats(num_envs)  # [B, P]: -1 live, else pool member index
        self.games = 0
        self.places: list[int] = []  # live seats' places (0 = first) in finished games

    # pool members: the rule-based agents, then the snapshot slots (a ring of pool_size)
    @property
    def members(self) -> list[BatchAgent]:
        return self.rule_agents + self.snapshots

    def member_weights(self) -> npt.NDArray[np.float64]:
        w = list(self.rule_weights)
        if self.snapshots:
            w += [self.snapshot_weight / len(self.snapshots)] * len(self.snapshots)
        elif self.rule_agents and sum(w) > 0:
            w = [x * (1 + self.snapshot_weight / sum(w)) for x in w]
        return np.asarray(w, float)

    def add_snapshot(self, net: PolicyNet, seed: int) -> None:
        """Freeze a copy of ``net`` into the pool (replacing the oldest when full)."""
        snap = PolicyNet(net.obs_size, net.num_actions, net.hidden)
        snap.load_state_dict({k: v.detach().cpu() for k, v in net.state_dict().items()})
        agent = PolicyAgent(snap, self.rules, greedy=False, seed=seed, device=str(self.device))
        if len(self.snapshots) < self.pool_size:
            self.snapshots.append(agent)
        else:
            self.snapshots[self._next_slot] = agent
            self._next_slot = (self._next_slot + 1) % self.pool_size

    def draw_seats(self, n: int) -> npt.NDArray[np.int64]:
        """Seat assignments of ``n`` new games: -1 (live policy) or a pool member's index."""
        P = self.num_players
        w = self.member_weights()
        if len(w) == 0 or w.sum() <= 0:
            return np.full((n, P), -1, np.int64)
        live = self.rng.random((n, P)) >= self.pool_share
        none = np.flatnonzero(~live.any(1))
        live[none, self.rng.integers(0, P, len(none))] = True
        member = self.rng.choice(len(w), size=(n, P), p=w / w.sum())
        return np.where(live, -1, member).astype(np.int64)

    @torch.no_grad()
    def _policy(
        self, net: PolicyNet, obs: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        logits, value = net(
            torch.as_tensor(obs, device=self.device), torch.as_tensor(mask, device=self.device)
        )
        dist = torch.distributions.Categorical(logits=logits)
        action = dist.sample()
        out = torch.stack([action.float(), dist.log_prob(action), value]).cpu().numpy()
        return out[0].astype(np.int64), out[1], out[2]

    @torch.no_grad()
    def seat_values(self, net: PolicyNet) -> npt.NDArray[np.float32]:
        """``[B, P]``: the value of every seat's own view of the current states."""
        B, P = self.num_envs, self.num_players
        out = np.zeros((B, P), np.float32)
        ones = torch.ones((B, net.num_actions), dtype=torch.bool, device=self.device)
        for p in range(P):
            obs = self.venv.engine.observe(self.venv.state, players=np.full(B, p))
            _, v = net(torch.as_tensor(obs, device=self.device), ones)
            out[:, p] = v.cpu().numpy()
        return out

    def collect(self, net: PolicyNet, T: int) -> Rollout:
        """Play ``T`` vector steps; the live policy samples its actions."""
        B, P = self.num_envs, self.num_players
        ro = Rollout(
            obs=np.zeros((T, B, self.venv.obs_size), np.float32),
            mask=np.zeros((T, B, self.venv.num_actions), np.bool_),
            action=np.zeros((T, B), np.int64),
            logp=np.zeros((T, B), np.float32),
            value=np.zeros((T, B), np.float32),
            seat=np.zeros((T, B), np.int64),
            live=np.zeros((T, B), np.bool_),
            rewards=np.zeros((T, B, P), np.float32),
            done=np.zeros((T, B), np.bool_),
            last_values=np.zeros((B, P), np.float32),
        )
        members = self.members
        for t in range(T):
            cur = self.current
            who = self.seat_agent[self.rows, cur]
            live = who < 0
            actions = np.zeros(B, np.int64)
            if live.any():
                a, lp, v = self._policy(net, self.obs[live], self.mask[live])
                actions[live], ro.logp[t, live], ro.value[t, live] = a, lp, v
            for k in np.unique(who[~live]):
                sel = who == k
                actions[sel] = members[k].act_batch(self.obs[sel], self.mask[sel])
            ro.obs[t], ro.mask[t], ro.action[t] = self.obs, self.mask, actions
            ro.seat[t], ro.live[t] = cur, live
            self.obs, self.mask, rew, done, info = self.venv.step(actions)
            ro.rewards[t], ro.done[t] = rew, done
            self.current = info["current_player"]
            ended = np.flatnonzero(done)
            if len(ended):
                st = info["final_standings"][ended]
                self.places.extend(st[self.seat_agent[ended] < 0].tolist())
                self.games += len(ended)
                self.seat_agent[ended] = self.draw_seats(len(ended))
        ro.last_values = self.seat_values(net)
        return ro


# --------------------------------------------------------------------------- training
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
    rule_agents, rule_w, snap_w = parse_pool(args.pool, rules, args.seed)
    col = SelfPlayCollector(
        rules, args.num_envs, rule_agents, rule_w, snap_w, args.pool_share, args.pool_size,
        seed=args.seed, device=device,
    )
    net = PolicyNet(col.venv.obs_size, col.venv.num_actions, args.hidden).to(device)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr, eps=1e-5)
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
    columns = ["update", "steps", "live_steps", "seconds", "steps_per_s", "collect_steps_per_s",
               "games", "mean_place", "policy_loss", "value_loss", "entropy", "approx_kl",
               "snapshots", "eval_mean_place"]
    log.writerow(columns)

    T, B = args.rollout, args.num_envs
    n_updates = max(1, args.total_steps // (T * B))
    start = time.perf_counter()
    steps = live_steps = 0
    metrics: dict[str, Any] = {}
    last_eval = float("nan")
    eval_seconds = 0.0  # kept out of steps_per_s
    bar = tqdm(total=n_updates * T * B, disable=not args.progress, unit="step", desc="self-play")
    for update in range(1, n_updates + 1):
        frac = 1.0 - (update - 1) / n_updates
        for g in opt.param_groups:
            g["lr"] = args.lr * frac
        net.eval()
        t0 = time.perf_counter()
        ro = col.collect(net, T)
        collect_sps = T * B / (time.perf_counter() - t0)
        steps += T * B
        bar.update(T * B)
        pl, vl, ent, kl, n_live = ppo_update(net, opt, ro, args, device)
        live_steps += n_live
        elapsed = time.perf_counter() - start
        sps = steps / max(elapsed - eval_seconds, 1e-9)  # earlier evaluations left out
        stop = bool(
            (args.max_seconds and elapsed > args.max_seconds)
            or (args.max_steps and steps >= args.max_steps)
            or update == n_updates
        )
        if args.snapshot_every > 0 and col.snapshot_weight > 0 and update % args.snapshot_every == 0:
            col.add_snapshot(net, seed=args.seed + update)
        eval_place = float("nan")
        if stop or (args.eval_every > 0 and update % args.eval_every == 0):
            t0 = time.perf_counter()
            eval_place = last_eval = evaluate_vs_hard(net, rules, args.eval_deals, args.seed)
            eval_seconds += time.perf_counter() - t0
        recent = col.places[-2000:]
        col.places = recent
        metrics = {
            "update": update,
            "steps": steps,
            "live_steps": live_steps,
            "seconds": round(elapsed, 1),
            "steps_per_s": round(sps, 1),
            "collect_steps_per_s": round(collect_sps, 1),
            "games": col.games,
            "mean_place": float(np.mean(recent)) + 1 if recent else float("nan"),
            "policy_loss": pl,
            "value_loss": vl,
            "entropy": ent,
            "approx_kl": kl,
            "snapshots": len(col.snapshots),
            "eval_mean_place": eval_place,
        }
        log.writerow([metrics[c] for c in columns])
        csv_file.flush()
        if writer is not None:
            for k, v in metrics.items():
                if k != "update" and not (isinstance(v, float) and math.isnan(v)):
                    writer.add_scalar(f"{'eval' if k.startswith('eval') else 'train'}/{k}", v, steps)
        bar.set_postfix(place=f"{metrics['mean_place']:.3f}", vs_hard=f"{last_eval:.3f}",
                        sps=f"{metrics['steps_per_s']:.0f}")
        if update % args.checkpoint_every == 0:
            save_policy(run_dir / f"policy_{steps}.pt", net, rules, meta=metrics)
        if stop:
            break
    bar.close()
    final = run_dir / "policy.pt"
    save_policy(final, net, rules, meta={**metrics, "args": dataclasses.asdict(args)})
    csv_file.close()
    if writer is not None:
        writer.close()
    return {"checkpoint": str(final), "run_dir": str(run_dir), **metrics,
            "last_eval_mean_place": last_eval}


def ppo_update(
    net: PolicyNet, opt: torch.optim.Optimizer, ro: Rollout, args: Args, device: torch.device
) -> tuple[float, float, float, float, int]:
    """PPO epochs on the live transitions of ``ro``: (policy loss, value loss, entropy, kl, n)."""
    live = torch.as_tensor(ro.live, device=device)
    values = torch.as_tensor(ro.value, device=device)
    adv = compute_advantages(
        torch.as_tensor(ro.rewards, device=device), torch.as_tensor(ro.done, device=device),
        values, torch.as_tensor(ro.seat, device=device), live,
        torch.as_tensor(ro.last_values, device=device), args.gamma, args.gae_lambda,
    )
    idx = np.flatnonzero(ro.live.reshape(-1))
    n = len(idx)
    if n == 0:
        return float("nan"), float("nan"), float("nan"), float("nan"), 0
    b_obs = torch.as_tensor(ro.obs.reshape(-1, ro.obs.shape[-1])[idx], device=device)
    b_mask = torch.as_tensor(ro.mask.reshape(-1, ro.mask.shape[-1])[idx], device=device)
    b_act = torch.as_tensor(ro.action.reshape(-1)[idx], device=device)
    b_logp = torch.as_tensor(ro.logp.reshape(-1)[idx], device=device)
    t_idx = torch.as_tensor(idx, device=device)
    b_adv = adv.reshape(-1)[t_idx]
    b_ret = b_adv + values.reshape(-1)[t_idx]
    net.train()
    mb = max(1, n // args.minibatches)
    pl = vl = ent = kl = 0.0
    for _ in range(args.epochs):
        perm = torch.randperm(n, device=device)
        for i in range(args.minibatches):
            j = perm[i * mb : (i + 1) * mb]
            if len(j) == 0:
                break
            logits, v = net(b_obs[j], b_mask[j])
            dist = torch.distributions.Categorical(logits=logits)
            logp = dist.log_prob(b_act[j])
            ratio = torch.exp(logp - b_logp[j])
            a = b_adv[j]
            a = (a - a.mean()) / (a.std(unbiased=False) + 1e-8)
            p_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
            v_loss = 0.5 * ((v - b_ret[j]) ** 2).mean()
            entropy = _masked_entropy(logits, b_mask[j])
            loss = p_loss + args.vf_coef * v_loss - args.ent_coef * entropy
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), args.max_grad_norm)
            opt.step()
            with torch.no_grad():
                kl = float(((ratio - 1) - torch.log(ratio)).mean())
            pl, vl, ent = p_loss.item(), v_loss.item(), entropy.item()
    net.eval()
    return pl, vl, ent, kl, n


def evaluate_vs_hard(net: PolicyNet, rules: Rules, deals: int, seed: int) -> float:
    """The greedy policy's mean place (1 = first) in a duplicate tournament against Hard."""
    snap = PolicyNet(net.obs_size, net.num_actions, net.hidden)
    snap.load_state_dict({k: v.detach().cpu() for k, v in net.state_dict().items()})
    rows = evaluate_policy(
        PolicyAgent(snap, rules), rules, deals, seed=seed + 12345, baselines=("hard",),
        progress=False,
    )
    return float(rows[0]["mean_place"])


def parse_args(argv: list[str] | None = None) -> Args:
    return cli.parse_args(Args, argv, __doc__)


if __name__ == "__main__":
    summary = train(parse_args())
    print({k: summary[k] for k in ("checkpoint", "steps", "seconds", "steps_per_s", "mean_place",
                                   "last_eval_mean_place")})
