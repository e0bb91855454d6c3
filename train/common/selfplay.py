"""The self-play collector: one shared policy plays the live seats of B games at a table.

The B games are a :class:`~president_env.table.Table`: the *live* seats are external (the
network decides them), the pool members (rule-based agents and frozen snapshots of the policy)
are the table's policies. When a game starts (and again whenever it is dealt again), each of
its seats is drawn: the live policy with probability ``1 - pool_share`` (every game has at least
one live seat), else a member by weight (:meth:`SelfPlayCollector.member_weights`). Every
vector step makes one decision in every game: one batched forward of the network for the games
whose seat to act is live (sampling, recorded for training), the table's policies for the
others (one ``act_batch`` per member, through the table's gate); a finished game is dealt again
in the same step. The games are those of ``VectorEnv(B, seed=seed)``: game ``b`` starts from
the vector env's seed for it, later games from a generator seeded ``seed``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from agents.policy import PolicyNet
from president_env.core.constants import PHASE_DONE
from president_env.core.engine import Engine
from president_env.core.rules import Rules
from president_env.extras import missing_extra
from president_env.rewards import deal_rewards, reward_table
from president_env.seeding import draw_seeds, game_seeds
from president_env.table import EXTERNAL, Policy, Table
from train.common.pool import snapshot
from train.common.ppo import sample
from train.common.threads import Shards

try:
    import torch
except ImportError:
    raise missing_extra("torch", "train", "train.common.selfplay") from None

F32 = npt.NDArray[np.float32]


@dataclass
class Rollout:
    """One rollout, ``[T, B, ...]`` numpy arrays (see :func:`train.common.ppo.seat_gae`)."""

    obs: F32
    mask: npt.NDArray[np.bool_]
    action: npt.NDArray[np.int64]
    logp: F32
    value: F32
    seat: npt.NDArray[np.int64]
    live: npt.NDArray[np.bool_]
    rewards: F32
    done: npt.NDArray[np.bool_]
    last_values: F32

    @classmethod
    def zeros(cls, T: int, B: int, P: int, obs_size: int, num_actions: int) -> Rollout:
        return cls(
            obs=np.zeros((T, B, obs_size), np.float32),
            mask=np.zeros((T, B, num_actions), np.bool_),
            action=np.zeros((T, B), np.int64),
            logp=np.zeros((T, B), np.float32),
            value=np.zeros((T, B), np.float32),
            seat=np.zeros((T, B), np.int64),
            live=np.zeros((T, B), np.bool_),
            rewards=np.zeros((T, B, P), np.float32),
            done=np.zeros((T, B), np.bool_),
            last_values=np.zeros((B, P), np.float32),
        )


class SelfPlayCollector:
    """B self-play games, each seat given to the live policy or to a pool member."""

    def __init__(
        self,
        rules: Rules,
        num_envs: int,
        rule_agents: list[Policy],
        rule_weights: list[float],
        snapshot_weight: float = 0.0,
        pool_share: float = 0.5,
        pool_size: int = 5,
        seed: int = 0,
        device: torch.device | str = "cpu",
        shards: Shards | None = None,
    ) -> None:
        if not 0.0 <= pool_share <= 1.0:
            raise ValueError(f"pool_share must be in [0, 1], got {pool_share}")
        if pool_share > 0 and not rule_agents and snapshot_weight <= 0:
            raise ValueError("pool_share > 0 needs pool members (rule-based or snapshots)")
        if len(rule_weights) != len(rule_agents) or any(w < 0 for w in rule_weights):
            raise ValueError("rule_weights must be one non-negative number per rule agent")
        self.rules = rules
        self.device = torch.device(device)
        self.shards = shards  # the live policy's forward in slices (--threads above 1)
        self.engine = Engine(rules)
        self.num_envs, self.num_players = num_envs, rules.num_players
        self.rule_agents = list(rule_agents)
        self.rule_weights = list(rule_weights)
        self.snapshot_weight = snapshot_weight
        self.pool_share = pool_share
        self.pool_size = pool_size
        self.snapshots: list[Policy] = []
        self._next_slot = 0
        self.reward_table = reward_table(rules, "linear")
        self.deal_rng = np.random.default_rng(seed)  # new games, as VectorEnv(seed=seed) deals
        self.rng = np.random.default_rng([seed, 1])  # seat draws
        first = game_seeds(seed, num_envs)
        seats = self.draw_seats(num_envs)  # [B, P]: EXTERNAL live, else pool member index
        self.table = Table(self.engine, self.engine.init(first), self.members, seats)
        self.games = 0
        self.places: list[int] = []  # live seats' places (0 = first) in finished games

    # pool members: the rule-based agents, then the snapshot slots (a ring of pool_size)
    @property
    def members(self) -> list[Policy]:
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
        agent = snapshot(net, self.rules, seed, device=str(self.device))
        if len(self.snapshots) < self.pool_size:
            self.snapshots.append(agent)
        else:
            self.snapshots[self._next_slot] = agent
            self._next_slot = (self._next_slot + 1) % self.pool_size
        self.table.policies = self.members

    def draw_seats(self, n: int) -> npt.NDArray[np.int64]:
        """Seat assignments of ``n`` new games: EXTERNAL (live policy) or a member's index."""
        P = self.num_players
        w = self.member_weights()
        if len(w) == 0 or w.sum() <= 0:
            return np.full((n, P), EXTERNAL, np.int64)
        live = self.rng.random((n, P)) >= self.pool_share
        none = np.flatnonzero(~live.any(1))
        live[none, self.rng.integers(0, P, len(none))] = True
        member = self.rng.choice(len(w), size=(n, P), p=w / w.sum())
        return np.where(live, EXTERNAL, member).astype(np.int64)

    def _policy(self, net: PolicyNet, obs: F32, mask: npt.NDArray[np.bool_]) -> tuple[
        npt.NDArray[np.int64], F32, F32
    ]:
        """The network's sampled actions, their log-probabilities and the values (numpy)."""
        dev = self.device
        action, logp, value = sample(net, torch.as_tensor(obs, device=dev),
                                     torch.as_tensor(mask, device=dev), self.shards)
        out = torch.stack([action.float(), logp, value]).cpu().numpy()
        return out[0].astype(np.int64), out[1], out[2]

    @torch.no_grad()
    def seat_values(self, net: PolicyNet) -> F32:
        """``[B, P]``: the value of every seat's own view of the current states."""
        B, P = self.num_envs, self.num_players
        out = np.zeros((B, P), np.float32)
        ones = torch.ones((B, net.num_actions), dtype=torch.bool, device=self.device)
        for p in range(P):
            obs = self.engine.observe(self.table.state, players=np.full(B, p))
            _, v = net(torch.as_tensor(obs, device=self.device), ones)
            out[:, p] = v.cpu().numpy()
        return out

    def collect(self, net: PolicyNet, T: int) -> Rollout:
        """Play ``T`` vector steps; the live policy samples its actions."""
        eng = self.engine
        ro = Rollout.zeros(T, self.num_envs, self.num_players, eng.obs_size, eng.num_actions)
        for t in range(T):
            ro.seat[t] = self.table.state.current
            ro.obs[t] = eng.observe(self.table.state)
            eng.legal_action_mask(self.table.state, ro.mask[t])
            ro.action[t], ro.live[t] = self._decide(net, ro, t)
            self._step(ro, t)
        ro.last_values = self.seat_values(net)
        return ro

    def _decide(self, net: PolicyNet, ro: Rollout, t: int) -> tuple[
        npt.NDArray[np.int64], npt.NDArray[np.bool_]
    ]:
        """One action per game: the network's (sampled) where the seat is live, the seated
        members' elsewhere."""
        who = self.table.acting_policy()
        live = who == EXTERNAL
        actions = self.table.decide(ro.obs[t], ro.mask[t], who)
        if live.any():
            a, ro.logp[t, live], ro.value[t, live] = self._policy(net, ro.obs[t, live],
                                                                  ro.mask[t, live])
            actions[live] = self.table.gate.check_batch(a, ro.mask[t, live], who="the live policy")
        return actions, live

    def _step(self, ro: Rollout, t: int) -> None:
        """Play the actions of step ``t``; rewards, finished games (dealt again, seats drawn)."""
        st = self.table.state
        self.engine.step_inplace(st, ro.action[t], check=False)
        deal_rewards(st, self.reward_table, out=ro.rewards[t])
        ended = np.flatnonzero((st.phase == PHASE_DONE) & st.deal_over)
        ro.done[t, ended] = True
        if len(ended) == 0:
            return
        standings = self.engine.standings(st.take(ended))
        self.places.extend(standings[self.table.seat_policy[ended] == EXTERNAL].tolist())
        self.games += len(ended)
        seeds = np.zeros(self.num_envs, np.uint64)
        seeds[ended] = draw_seeds(self.deal_rng, len(ended))
        self.engine.reset_where(st, ro.done[t], seeds)
        self.table.seat_policy[ended] = self.draw_seats(len(ended))
