"""Batched single-learner games: in each of B games one seat is the learner, the others are
played by opponents (rule-based agents or frozen policies), all through the batched engine.

``step(actions)`` applies the learner's action in every game, then lets the opponents play
(batched per opponent) until every game waits for its learner again. An episode is one game;
with one deal per game it ends as soon as the learner's place is known (the rest of the deal
does not concern it). A finished game is replaced by a new one at once (auto-reset) with a
new learner seat and new opponents; ``step`` then returns the new game's first observation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from president_env.core.engine import PHASE_DONE, Engine
from president_env.core.rules import Rules


class BatchAgent(Protocol):
    def act_batch(
        self, observations: npt.ArrayLike, action_masks: npt.ArrayLike
    ) -> npt.NDArray[np.int64]: ...


class LearnerVecEnv:
    """B games of one learner against opponents drawn per game from ``opponents``."""

    def __init__(
        self,
        rules: Rules,
        num_envs: int,
        opponents: Sequence[BatchAgent],
        seed: int = 0,
        weights: Sequence[float] | None = None,
    ) -> None:
        if not opponents:
            raise ValueError("at least one opponent is needed")
        self.rules = rules
        self.engine = Engine(rules)
        self.num_envs = num_envs
        self.opponents = list(opponents)
        self.weights = self._norm(weights)
        self.rng = np.random.default_rng(seed)
        self.num_players = rules.num_players
        self.obs_size = self.engine.obs_size
        self.num_actions = self.engine.num_actions
        self._rows = np.arange(num_envs)
        self.state = self.engine.init(self._seeds(num_envs))
        self.learner = self.rng.integers(0, self.num_players, num_envs)
        self.seat_agent = self._draw_opponents(num_envs)
        self.mask = np.zeros((num_envs, self.num_actions), np.bool_)

    def _norm(self, weights: Sequence[float] | None) -> npt.NDArray[np.float64]:
        w = np.ones(len(self.opponents)) if weights is None else np.asarray(weights, float)
        if w.shape != (len(self.opponents),) or (w < 0).any() or w.sum() <= 0:
            raise ValueError("weights must be one non-negative number per opponent")
        return w / w.sum()

    def set_opponents(self, opponents: Sequence[BatchAgent], weights: Sequence[float]) -> None:
        """Change the opponent pool. New weights apply to games started from now on; games in
        progress keep their seats' agents by index (an index past the new pool's end moves to
        its last agent)."""
        self.opponents = list(opponents)
        self.weights = self._norm(weights)
        self.seat_agent = np.minimum(self.seat_agent, len(self.opponents) - 1)

    def _seeds(self, n: int) -> npt.NDArray[np.int64]:
        return self.rng.integers(0, 2**62, n)

    def _draw_opponents(self, n: int) -> npt.NDArray[np.int64]:
        return self.rng.choice(len(self.opponents), size=(n, self.num_players), p=self.weights)

    def reset(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
        self.state = self.engine.init(self._seeds(self.num_envs))
        self.learner = self.rng.integers(0, self.num_players, self.num_envs)
        self.seat_agent = self._draw_opponents(self.num_envs)
        zeros = np.zeros(self.num_envs, np.float32)
        self._advance(zeros, np.zeros(self.num_envs, np.bool_), np.full(self.num_envs, -1))
        return self.engine.observe(self.state), self.engine.legal_action_mask(self.state, self.mask)

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        npt.NDArray[np.float32], npt.NDArray[np.bool_], npt.NDArray[np.float32],
        npt.NDArray[np.bool_], dict[str, Any],
    ]:
        """Learner actions ``[B]`` -> obs, mask, learner reward, episode done, info.

        ``info["place"]``: the learner's place (0 = first) in games that ended, else -1.
        """
        st = self.state
        rewards = np.zeros(self.num_envs, np.float32)
        done = np.zeros(self.num_envs, np.bool_)
        places = np.full(self.num_envs, -1)
        self.engine.step_inplace(st, np.asarray(actions, np.int64))
        self._collect(np.ones(self.num_envs, np.bool_), rewards, done, places)
        self._advance(rewards, done, places)
        obs = self.engine.observe(self.state)
        return obs, self.engine.legal_action_mask(self.state, self.mask), rewards, done, {
            "place": places
        }

    def _collect(
        self,
        stepped: npt.NDArray[np.bool_],
        rewards: npt.NDArray[np.float32],
        done: npt.NDArray[np.bool_],
        places: npt.NDArray[np.int64],
    ) -> None:
        """Rewards of deals that just ended; end episodes whose learner result is known."""
        st = self.state
        rows, me = self._rows, self.learner
        ended = stepped & st.deal_over & ~done
        rewards[ended] += st.rewards[rows, me][ended]
        if self.rules.deals == 1:
            # the learner's place is final as soon as it has one
            out = stepped & ~done & (st.place[rows, me] >= 0) & ~ended
            p = st.place[rows, me].astype(np.float32)
            rewards[out] += 1.0 - 2.0 * p[out] / (self.num_players - 1)
            fin = stepped & ~done & ((st.place[rows, me] >= 0) | (st.phase == PHASE_DONE))
            pl = np.where(st.phase == PHASE_DONE, st.title[rows, me], st.place[rows, me])
        else:
            fin = stepped & ~done & (st.phase == PHASE_DONE)
            pl = self.engine.standings(st)[rows, me]
        if fin.any():
            done |= fin
            places[fin] = pl[fin]
            self.engine.reset_where(st, fin, self._seeds(self.num_envs))
            n = int(fin.sum())
            self.learner[fin] = self.rng.integers(0, self.num_players, n)
            self.seat_agent[fin] = self._draw_opponents(n)

    def _advance(
        self,
        rewards: npt.NDArray[np.float32],
        done: npt.NDArray[np.bool_],
        places: npt.NDArray[np.int64],
    ) -> None:
        """Opponents play until every game waits for its learner."""
        st, eng, rows = self.state, self.engine, self._rows
        mask = np.zeros((self.num_envs, self.num_actions), np.bool_)
        for _ in range(100_000):
            turn = st.current != self.learner
            if not turn.any():
                return
            eng.legal_action_mask(st, mask)
            obs = eng.observe(st)
            acts = np.full(self.num_envs, -1, np.int64)
            who = self.seat_agent[rows, np.maximum(st.current, 0)]
            for k, agent in enumerate(self.opponents):
                sel = turn & (who == k)
                if sel.any():
                    acts[sel] = agent.act_batch(obs[sel], mask[sel])
            eng.step_inplace(st, acts, check=False, where=turn)
            self._collect(turn, rewards, done, places)
        raise RuntimeError("opponents did not hand the turn back to the learner")
