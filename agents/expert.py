"""The Expert: determinized Monte-Carlo search over believed hands, with Hard rollouts.

For each decision of the play phase with more than one legal action, :class:`ExpertAgent`

1. draws ``samples`` deals of the hidden cards from its belief (:mod:`agents.belief`): deals
   consistent with the observation (its hand, every seat's count, the cards played per card id,
   the cards it gave in the exchange, the suits the lowest-suit-first rule of sets rules out;
   :func:`president_env.search.positions.sample_hands`), weighed by how well Hard, as a model of the
   other players, explains every move of the deal so far (the public record a
   :class:`~president_env.table.Table` keeps for it; without a record, the passes of the
   history observation);
2. builds the position of each (:func:`president_env.search.positions.from_observation`), plays every
   legal action in every one of them (the same deals for every action: common random numbers),
   and plays the deal on with :class:`~agents.rule_based.HardAgent` in every seat, in one batched
   engine state for all the rows, actions and deals of the call, until its own seat has gone
   out;
3. takes the action with the best mean place (ties, and differences under ``margin``, go to
   Hard's own choice).

It decides from its observation (``Rules(observation="history")``: a tournament gives it that
observation and the other agents their own prefix of it), the public record and its own hand
only. The exchange and forced moves are Hard's. Budget per decision: ``samples`` deals, each
from ``steps`` Metropolis-Hastings steps of the belief (a replay of the record each), and
``samples`` rollouts per legal action; ``python -m benchmarks.bench_expert`` measures the time
per decision, and ``docs/results.md`` reports it with the Expert's results.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import BaseAgent, IntArray
from agents.belief import MISS, STEPS, pass_belief, record_belief
from agents.rule_based import HardAgent
from president_env.core.constants import PHASE_DONE, PHASE_PLAY
from president_env.core.engine import Engine, State
from president_env.core.rules import Rules
from president_env.search.positions import check_record, from_observation, sample_hands
from president_env.table import policy_obs_size

SAMPLES = 32
"""Sampled deals of the hidden cards per decision (the default budget)."""
ROWS_PER_CALL = 64
"""Decisions searched together in one batched engine state (memory: rows x actions x samples)."""


class ExpertAgent(BaseAgent):
    """Determinized Monte-Carlo search with Hard rollouts (see the module docstring).

    ``samples``: deals of the hidden cards per decision; ``steps``: Metropolis-Hastings steps of
    the record belief per deal (:mod:`agents.belief`); ``miss``: the belief's weight of a deal
    per move of another seat that Hard would not have made (1: ignore the record, draw deals
    uniformly); ``margin``: how much better in mean place another action must be to overrule
    Hard's choice; ``seed``: the sampling stream.

    The Expert reads the history observation: ``rules`` are taken with
    ``observation="history"`` (a table or tournament gives it that observation).
    """

    name = "expert"

    def __init__(
        self,
        rules: Rules,
        seed: int | None = None,
        samples: int = SAMPLES,
        steps: int = STEPS,
        miss: float = MISS,
        margin: float = 0.0,
    ) -> None:
        if isinstance(rules, Rules) and rules.observation != "history":
            rules = rules.replace(observation="history")
        super().__init__(rules, seed)
        for name, value, low in (("samples", samples, 1), ("steps", steps, 0)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
                raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
        if not 0.0 < miss <= 1.0:
            raise ValueError(f"miss must be in (0, 1], got {miss!r}")
        self.samples, self.steps = int(samples), int(steps)
        self.miss, self.margin = float(miss), float(margin)
        self._hard = HardAgent(self.rules)
        self._engine = Engine(self.rules, threads=1)
        self._phase = self.obs_layout.slices["phase"]
        self.rng = np.random.default_rng(seed)
        self.rollouts = 0
        """Rollouts played so far (for budgets and reports)."""

    def reseed(self, seed: int | None) -> None:
        super().reseed(seed)
        self.rng = np.random.default_rng(seed)

    def _act_batch(self, obs: np.ndarray, mask: np.ndarray) -> IntArray:
        return self._decide_rows(obs, mask, None)

    def act_with_record(self, observations: Any, action_masks: Any, moves: Any, n_moves: Any
                        ) -> IntArray:
        """:meth:`act_batch` with the public record of each deal (``moves [B, L, 2]``: seat in
        the observer's frame and action of every move of the play so far, ``n_moves [B]``;
        :meth:`president_env.table.Table.record`), from which the belief weighs its deals."""
        obs, mask = self._validated(observations, action_masks)
        mv, n = check_record(moves, n_moves, len(obs), self.rules.num_players)
        out = np.full(len(obs), -1, np.int64)
        rows = np.flatnonzero(mask.any(axis=1))
        if len(rows):
            out[rows] = self._decide_rows(obs[rows], mask[rows], (mv[rows], n[rows]))
        return out

    def _decide_rows(self, obs: np.ndarray, mask: np.ndarray,
                     record: tuple[np.ndarray, np.ndarray] | None) -> IntArray:
        out = self._hard._act_batch(obs, mask)
        in_play = obs[:, self._phase][:, PHASE_PLAY] > 0
        rows = np.flatnonzero(in_play & (mask.sum(axis=1) > 1))
        for lo in range(0, len(rows), ROWS_PER_CALL):
            r = rows[lo : lo + ROWS_PER_CALL]
            rec = None if record is None else (record[0][r], record[1][r])
            out[r] = self._search(obs[r], mask[r], out[r], rec)
        return out

    # ------------------------------------------------------------------ search
    def _search(self, obs: np.ndarray, mask: np.ndarray, hard: IntArray,
                record: tuple[np.ndarray, np.ndarray] | None) -> IntArray:
        """The best action of every row by mean place over the sampled deals."""
        m, n, p = len(obs), self.samples, self.rules.num_players
        hands = self._deals(obs, record)
        base = from_observation(self.rules, np.repeat(obs, n, axis=0), hands.reshape(m * n, p, -1))
        row_of, act_of = np.nonzero(mask)  # every (row, legal action), row-major
        pick = (row_of[:, None] * n + np.arange(n)[None]).reshape(-1)
        games = base.take(pick)
        self._engine.step_inplace(games, np.repeat(act_of, n), check=False)
        places = rollout_places(self._engine, self._hard, games).reshape(len(row_of), n).mean(axis=1)
        self.rollouts += len(pick)
        best = np.empty(m, np.int64)
        for i in range(m):
            sel = np.flatnonzero(row_of == i)
            j = sel[np.argmin(places[sel])]
            h = sel[act_of[sel] == hard[i]]
            keep = len(h) and places[h[0]] <= places[j] + self.margin
            best[i] = hard[i] if keep else act_of[j]
        return best

    def _deals(self, obs: np.ndarray, record: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
        """``samples`` deals of the hidden cards per row ``[m, n, P, 53]`` (:mod:`agents.belief`)."""
        n, r = self.samples, self.rules
        if self.miss >= 1.0:
            return sample_hands(r, obs, n, self.rng, 1.0)
        if record is None:
            return pass_belief(r, self._engine, self._hard, obs, n, self.rng, self.miss)
        return record_belief(r, self._engine, self._hard, obs, record[0], record[1], n, self.rng,
                             self.steps, self.miss)

    def describe(self) -> dict[str, Any]:
        """The budget and belief settings (for reports)."""
        return {"samples": self.samples, "steps": self.steps, "miss": self.miss,
                "margin": self.margin}


class SeatMix:
    """Who plays each seat of each game of a batch: ``agents[assign[b, s]]`` plays seat ``s``
    of game ``b`` (each agent a policy of ``rules``, or of its standard observation, which reads
    its prefix of the observation: :func:`president_env.table.policy_obs_size`)."""

    def __init__(self, agents: list[Any], assign: np.ndarray, rules: Rules) -> None:
        if assign.ndim != 2 or assign.shape[1] != rules.num_players:
            raise ValueError(f"assign must be [games, {rules.num_players}], got {assign.shape}")
        if assign.size and not 0 <= assign.min() <= assign.max() < len(agents):
            raise ValueError(f"assign must index the {len(agents)} agents")
        self.agents, self.assign, self.rules = agents, assign, rules
        self.widths = [policy_obs_size(a, rules) for a in agents]

    def take(self, rows: np.ndarray) -> SeatMix:
        """The seats of games ``rows`` (in that order)."""
        return SeatMix(self.agents, self.assign[rows], self.rules)

    def act(self, rows: np.ndarray, current: np.ndarray, obs: np.ndarray,
            mask: np.ndarray) -> np.ndarray:
        """The action of the agent of seat ``current[i]`` of game ``rows[i]``, for view ``i``."""
        who = self.assign[rows, current]
        act = np.full(len(rows), -1, np.int64)
        for i in np.unique(who):
            sel = np.flatnonzero(who == i)
            w = self.widths[i]
            act[sel] = self.agents[i].act_batch(obs[sel] if w is None else obs[sel, :w],
                                                mask[sel])
        return act


def rollout_places(eng: Engine, hard: HardAgent | SeatMix, games: State,
                   seat: np.ndarray | None = None, own: Any = None) -> np.ndarray:
    """The place of seat ``seat[b]`` (default 0) in the current deal of every game ``b``, Hard
    playing every seat from here (or, for a :class:`SeatMix` of the games, the agent of each
    seat), or ``own`` (a policy of the engine's rules or of the standard observation) playing
    ``seat[b]`` (``games`` is played on in place)."""
    width = None if own is None else policy_obs_size(own, eng.rules)
    n = games.batch_size
    who = np.zeros(n, np.int64) if seat is None else np.asarray(seat, np.int64)
    place = np.full(n, -1.0)
    idx = np.arange(n)
    st = games
    mask = np.empty((n, eng.num_actions), np.bool_)
    obs = np.empty((n, eng.obs_size), np.float32)
    while True:
        done = _settled(st, idx, who[idx], place)
        if done.all():
            return place
        if done.mean() > 0.25:  # play on with the games still going only
            keep = np.flatnonzero(~done)
            st, idx, done = st.take(keep), idx[keep], done[keep]
            mask, obs = mask[: len(keep)], obs[: len(keep)]
        eng.next_views(st, mask, obs)
        if isinstance(hard, SeatMix):
            act = hard.act(idx, st.current.astype(np.int64), obs, mask)
        else:
            act = hard.act_batch(obs, mask)
        if own is not None:
            mine = np.flatnonzero(~done & (st.current == who[idx]))
            if len(mine):
                view = obs[mine] if width is None else obs[mine, :width]
                act[mine] = own.act_batch(view, mask[mine])
        eng.step_inplace(st, act, check=False, where=~done)


def _settled(st: State, idx: np.ndarray, seat: np.ndarray, place: np.ndarray) -> np.ndarray:
    """Games where ``seat``'s place is known (written into ``place[idx]``)."""
    over = st.deal_over | (st.phase == PHASE_DONE)
    rows = np.arange(st.batch_size)
    gone = st.place[rows, seat] >= 0
    known = np.where(over, st.title[rows, seat], np.where(gone, st.place[rows, seat], -1))
    got = known >= 0
    place[idx[got]] = known[got]
    return np.asarray(got)
