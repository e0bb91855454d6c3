"""A learner's seat in many games at once: the vector env of single-agent training.

``LearnerVecEnv(rules, num_envs, opponents)`` plays B games of one learner against policies
drawn per game and seat from ``opponents`` (with ``weights``); the learner's seat is drawn per
game too. It is a :class:`~president_env.table.Table` whose learner seats are external: every
``step(actions)`` plays the learner's action in each game, then the opponents until each game
waits for its learner again.

=====================  ==============  ======================================================
returned by ``step``   shape, dtype    meaning
=====================  ==============  ======================================================
``obs``                [B, O] float32  the learner's observation in each game
``mask``               [B, A] bool     its legal actions
``rewards``            [B] float32     the learner's deal rewards since its last action
                                       (:mod:`president_env.rewards`, ``reward`` option)
``done``               [B] bool        the learner's episode ended (the game is re-dealt at
                                       once, with new seats)
``info["place"]``      [B] int64       the learner's final place (0 = first) where ``done``
=====================  ==============  ======================================================

An episode is one game; with ``deals == 1`` it ends as soon as the learner has its place (the
rest of the deal cannot change it). Seeded: the same ``seed`` repeats every game and seat (an
int >= 0; another type is a TypeError, a negative int a ValueError). ``copy.deepcopy`` and
``pickle`` copy the games in play, the opponents and the generator.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from president_env.core.constants import PHASE_DONE
from president_env.core.engine import Engine, State
from president_env.core.rules import Rules
from president_env.rewards import RewardOption, deal_rewards, reward_table
from president_env.seeding import check_seed
from president_env.table import EXTERNAL, Policy, Table

FloatArray = npt.NDArray[np.float32]
BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]


class LearnerVecEnv:
    """B games of one learner against opponents drawn per game from ``opponents``."""

    def __init__(
        self,
        rules: Rules,
        num_envs: int,
        opponents: Sequence[Policy],
        seed: int = 0,
        weights: Sequence[float] | None = None,
        reward: RewardOption = "linear",
    ) -> None:
        if not opponents:
            raise ValueError("at least one opponent is needed")
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.rules = rules
        self.engine = Engine(rules)
        self.num_envs = int(num_envs)
        self.opponents = list(opponents)
        self.weights = self._norm(weights)
        self.reward_table = reward_table(rules, reward)
        self.rng = np.random.default_rng(check_seed(seed))
        self.num_players = rules.num_players
        self.obs_size = self.engine.obs_size
        self.num_actions = self.engine.num_actions
        self._rows = np.arange(self.num_envs)
        self.table = self._new_table()

    @property
    def state(self) -> State:
        """The engine state of the B games."""
        return self.table.state

    @property
    def learner(self) -> IntArray:
        """The learner's seat in each game."""
        return self._learner

    # ------------------------------------------------------------------ opponents
    def _norm(self, weights: Sequence[float] | None) -> npt.NDArray[np.float64]:
        w = np.ones(len(self.opponents)) if weights is None else np.asarray(weights, float)
        if w.shape != (len(self.opponents),) or (w < 0).any() or w.sum() <= 0:
            raise ValueError("weights must be one non-negative number per opponent")
        return w / w.sum()

    def set_opponents(self, opponents: Sequence[Policy], weights: Sequence[float]) -> None:
        """Change the opponent pool. New weights apply to games started from now on; games in
        progress keep their seats' policies by index (an index past the new pool's end moves to
        its last policy)."""
        self.opponents = list(opponents)
        self.weights = self._norm(weights)
        t = self.table
        t.policies = self.opponents
        t.seat_policy = np.where(
            t.seat_policy == EXTERNAL, EXTERNAL, np.minimum(t.seat_policy, len(self.opponents) - 1)
        )

    def _seeds(self, n: int) -> IntArray:
        return self.rng.integers(0, 2**62, n)

    def _draw_seats(self, n: int) -> tuple[IntArray, IntArray]:
        """Learner seats [n] and seat policies [n, P] (the learner's seat EXTERNAL)."""
        learner = self.rng.integers(0, self.num_players, n)
        seats = self.rng.choice(len(self.opponents), size=(n, self.num_players), p=self.weights)
        seats[np.arange(n), learner] = EXTERNAL
        return learner, seats

    def _new_table(self) -> Table:
        state = self.engine.init(self._seeds(self.num_envs))
        self._learner, seats = self._draw_seats(self.num_envs)
        return Table(self.engine, state, self.opponents, seats)

    # ------------------------------------------------------------------ api
    def reset(self) -> tuple[FloatArray, BoolArray]:
        """New games: ``(obs [B, O], mask [B, A])`` of every learner."""
        self.table = self._new_table()
        self._play_opponents(np.zeros(self.num_envs, np.float32),
                             np.zeros(self.num_envs, np.bool_), np.full(self.num_envs, -1))
        return self._observe()

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[FloatArray, BoolArray, FloatArray, BoolArray, dict[str, Any]]:
        """Learner actions ``[B]`` -> obs, mask, learner reward, episode done, info."""
        rewards = np.zeros(self.num_envs, np.float32)
        done = np.zeros(self.num_envs, np.bool_)
        places = np.full(self.num_envs, -1)
        self.table.step_external(self._rows, actions)
        self._collect(np.ones(self.num_envs, np.bool_), rewards, done, places)
        self._play_opponents(rewards, done, places)
        obs, mask = self._observe()
        return obs, mask, rewards, done, {"place": places}

    # ------------------------------------------------------------------ helpers
    def _observe(self) -> tuple[FloatArray, BoolArray]:
        t = self.table
        return self.engine.observe(t.state), self.engine.legal_action_mask(t.state, t.mask)

    def _play_opponents(self, rewards: FloatArray, done: BoolArray, places: IntArray) -> None:
        self.table.play_until_external(
            lambda moved, seats, actions: self._collect(moved, rewards, done, places)
        )

    def _collect(
        self, stepped: BoolArray, rewards: FloatArray, done: BoolArray, places: IntArray
    ) -> None:
        """Rewards of deals that just ended; end (and re-deal) episodes whose result is known."""
        st = self.table.state
        rows, me = self._rows, self._learner
        ended = stepped & st.deal_over & ~done
        rewards[ended] += deal_rewards(st, self.reward_table)[rows, me][ended]
        my_place = st.place[rows, me]
        if self.rules.deals == 1:  # the learner's place is final as soon as it has one
            out = stepped & ~done & (my_place >= 0) & ~ended
            rewards[out] += self.reward_table[my_place[out]]
            fin = stepped & ~done & ((my_place >= 0) | (st.phase == PHASE_DONE))
            pl = np.where(st.phase == PHASE_DONE, st.title[rows, me], my_place)
        else:
            fin = stepped & ~done & (st.phase == PHASE_DONE)
            pl = self.engine.standings(st)[rows, me]
        if fin.any():
            done |= fin
            places[fin] = pl[fin]
            self.engine.reset_where(st, fin, self._seeds(self.num_envs))
            learner, seats = self._draw_seats(int(fin.sum()))
            self._learner[fin] = learner
            self.table.seat_policy[fin] = seats
