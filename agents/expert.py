"""The Expert: determinized Monte-Carlo search over believed hands, with Hard rollouts.

For each decision of the play phase with more than one legal action, :class:`ExpertAgent`

1. draws ``samples`` deals of the hidden cards from its belief (:mod:`agents.belief`): deals
   consistent with the observation (its hand, every seat's count, the cards played per card id,
   the cards it gave in the exchange, the suits the lowest-suit-first rule of sets rules out;
   :func:`president_env.search.positions.sample_hands`), weighed by how well Hard, as a model of the
   other players, explains every move of the deal so far (the ``record`` block of its
   observation: every play and pass of the deal in order);
2. builds the position of each (:func:`president_env.search.positions.from_observation`), plays every
   legal action in every one of them (the same deals for every action: common random numbers),
   and plays the deal on with :class:`~agents.rule_based.HardAgent` in every seat, in one batched
   engine state for all the rows, actions and deals of the call, until its own seat has gone
   out;
3. takes the action with the best mean place (ties, and differences under ``margin``, go to
   Hard's own choice).

``model`` puts another rule-based agent (:data:`MODELS`) in Hard's place as the model of the
other players, in steps 1 and 2; its own seat's rollouts stay Hard's. ``aim`` aims the
belief's swaps at the cards its model's unexplained moves name (:mod:`agents.belief`).
:class:`KitExpertAgent` (``expert-kit``) models them as the UECda kit's sample client, with
aimed swaps.

It decides from its observation alone, ``Rules(observation="record")`` (a complete
information state: its hand, the exchange as it saw it, every public move of the deal): through
the PettingZoo and Gymnasium envs (made with ``observation="record"``), a vector env, a
:class:`~president_env.table.Table`, a tournament or the web app (which give it that
observation and the other agents their own prefix of it) it decides the same. Its random
draws come per decision from its seed and that observation and mask
(:class:`~president_env.seeding.RowStreams`), so a decision does not depend on the other games
of a batch or on the decisions before it. The exchange and forced moves are Hard's. Budget per
decision: ``samples`` deals (default 64), each from ``steps`` (default 12) Metropolis-Hastings
steps of the belief (a replay of the record each), and ``samples`` rollouts per legal action;
``python -m benchmarks.bench_expert`` measures the time per decision, and ``docs/results.md``
reports it with the Expert's results.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import BaseAgent, IntArray
from agents.belief import MISS, record_belief
from agents.rule_based import EasyAgent, HardAgent, KitAgent, NormalAgent
from president_env.core.constants import PHASE_DONE, PHASE_PLAY
from president_env.core.engine import Engine, State
from president_env.core.rules import Rules
from president_env.search.positions import from_observation, record_moves, sample_hands
from president_env.seeding import RowStreams
from president_env.table import policy_obs_size

SAMPLES = 64
"""Sampled deals of the hidden cards per decision (the default budget)."""
STEPS = 12
"""Metropolis-Hastings steps of the record belief per sampled deal (the default budget: half
the belief's own default, :data:`agents.belief.STEPS`, for twice the deals in about the same
time)."""
ROWS_PER_CALL = 64
"""Decisions searched together in one batched engine state (memory: rows x actions x samples)."""
MODELS: dict[str, type[BaseAgent]] = {"easy": EasyAgent, "normal": NormalAgent, "hard": HardAgent,
                                      "kit": KitAgent}
"""The rule-based agents the Expert can take as its model of the other seats (``model``)."""


class ExpertAgent(BaseAgent):
    """Determinized Monte-Carlo search with Hard rollouts (see the module docstring).

    ``samples``: deals of the hidden cards per decision (:data:`SAMPLES`); ``steps``:
    Metropolis-Hastings steps of the record belief per deal (:data:`STEPS`,
    :mod:`agents.belief`); ``miss``: the belief's weight of a deal per move of another seat that
    its model (Hard) would not have made (1: ignore the record, draw deals uniformly);
    ``margin``: how much better in mean place another action must be to overrule Hard's
    choice; ``model``: the agent (a name of :data:`MODELS`) that plays the other seats in its
    belief and its rollouts, its own seat being Hard's (default ``"hard"``); ``aim``: the
    belief's swaps move the cards that its model's unexplained moves name
    (:mod:`agents.belief`); ``seed``: the sampling streams (with the observation and mask of
    each decision: a decision is a function of those three).

    The Expert reads the record observation: ``rules`` are taken with
    ``observation="record"`` (a table or tournament gives it that observation; make an env
    with ``observation="record"`` to seat it in your own loop). It searches with the history
    observation, its prefix.
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
        model: str = "hard",
        aim: bool = False,
    ) -> None:
        if isinstance(rules, Rules) and rules.observation != "record":
            rules = rules.replace(observation="record")
        super().__init__(rules, seed)
        for name, value, low in (("samples", samples, 1), ("steps", steps, 0)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
                raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
        if not 0.0 < miss <= 1.0:
            raise ValueError(f"miss must be in (0, 1], got {miss!r}")
        self.samples, self.steps = int(samples), int(steps)
        self.miss, self.margin = float(miss), float(margin)
        if model not in MODELS:
            raise ValueError(f"model must be one of {sorted(MODELS)}, got {model!r}")
        if not isinstance(aim, (bool, np.bool_)):
            raise ValueError(f"aim must be True or False, got {aim!r}")
        self.model, self.aim = model, bool(aim)
        self._inner = self.rules.replace(observation="history")
        """The rules of its search: the history observation, the prefix of its own."""
        self._hard = HardAgent(self._inner)
        self._model = self._hard if model == "hard" else MODELS[model](self._inner)
        """The other seats' player in the belief and the rollouts."""
        self._width = self._hard.obs_size
        self._engine = Engine(self._inner, threads=1)
        self._phase = self.obs_layout.slices["phase"]
        self._entropy = _entropy(seed)
        self.rollouts = 0
        """Rollouts played so far (for budgets and reports)."""

    def reseed(self, seed: int | None) -> None:
        super().reseed(seed)
        self._entropy = _entropy(seed)

    def _validated(self, observations: Any, action_masks: Any) -> tuple[np.ndarray, np.ndarray]:
        o = np.asarray(observations)
        if o.ndim == 2 and o.shape[1] == self._width:
            raise ValueError(
                f"the Expert reads the record observation ([B, {self.obs_size}]), got the "
                f"history one {o.shape}: make the env with observation='record' (a table or "
                "tournament does so: president_env.table.table_rules)"
            )
        return super()._validated(observations, action_masks)

    def _act_batch(self, obs: np.ndarray, mask: np.ndarray) -> IntArray:
        # contiguous: the kernels compile once for it (a slice is another type to numba)
        out = self._hard._act_batch(np.ascontiguousarray(obs[:, : self._width]), mask)
        in_play = obs[:, self._phase][:, PHASE_PLAY] > 0
        rows = np.flatnonzero(in_play & (mask.sum(axis=1) > 1))
        for lo in range(0, len(rows), ROWS_PER_CALL):
            r = rows[lo : lo + ROWS_PER_CALL]
            out[r] = self._search(obs[r], mask[r], out[r])
        return out

    # ------------------------------------------------------------------ search
    def _search(self, obs: np.ndarray, mask: np.ndarray, hard: IntArray) -> IntArray:
        """The best action of every row by mean place over the sampled deals."""
        m, n, p = len(obs), self.samples, self.rules.num_players
        streams = RowStreams.keyed(self._entropy, [o.tobytes() + k.tobytes()
                                                   for o, k in zip(obs, mask)])
        moves, n_moves = record_moves(self.rules, obs)
        inner = obs[:, : self._width]
        hands = self._deals(inner, moves[:, : max(int(n_moves.max(initial=0)), 1)], n_moves,
                            streams)
        base = from_observation(self._inner, np.repeat(inner, n, axis=0),
                                hands.reshape(m * n, p, -1))
        row_of, act_of = np.nonzero(mask)  # every (row, legal action), row-major
        pick = (row_of[:, None] * n + np.arange(n)[None]).reshape(-1)
        games = base.take(pick)
        self._engine.step_inplace(games, np.repeat(act_of, n), check=False)
        places = rollout_places(self._engine, self._players(len(pick)), games)
        places = places.reshape(len(row_of), n).mean(axis=1)
        self.rollouts += len(pick)
        best = np.empty(m, np.int64)
        for i in range(m):
            sel = np.flatnonzero(row_of == i)
            j = sel[np.argmin(places[sel])]
            h = sel[act_of[sel] == hard[i]]
            keep = len(h) and places[h[0]] <= places[j] + self.margin
            best[i] = hard[i] if keep else act_of[j]
        return best

    def _players(self, games: int) -> HardAgent | SeatMix:
        """Who plays the rollouts of ``games`` games: Hard in its own seat (seat 0 of a position
        built from its observation), the model in the others."""
        if self._model is self._hard:
            return self._hard
        assign = np.ones((games, self.rules.num_players), np.int64)
        assign[:, 0] = 0
        return SeatMix([self._hard, self._model], assign, self._inner)

    def _deals(self, obs: np.ndarray, moves: np.ndarray, n_moves: np.ndarray,
               rng: Any) -> np.ndarray:
        """``samples`` deals of the hidden cards per row ``[m, n, P, 53]`` (:mod:`agents.belief`)
        for the history observations ``obs`` and their records."""
        n, r = self.samples, self._inner
        if self.miss >= 1.0:
            return sample_hands(r, obs, n, rng, 1.0)
        return record_belief(r, self._engine, self._model, obs, moves, n_moves, n, rng,
                             self.steps, self.miss, self.aim)

    def describe(self) -> dict[str, Any]:
        """The budget and belief settings (for reports)."""
        return {"samples": self.samples, "steps": self.steps, "miss": self.miss,
                "margin": self.margin, "model": self.model, "aim": self.aim}


class KitExpertAgent(ExpertAgent):
    """The Expert with the UECda kit's sample client (:class:`~agents.rule_based.KitAgent`) as
    its model of the other seats: the Expert for a table of the contest's sample clients, where
    its belief and rollouts then predict the other players' moves (elsewhere a wrong model)."""

    name = "expert-kit"

    def __init__(self, rules: Rules, seed: int | None = None, samples: int = SAMPLES,
                 steps: int = STEPS, miss: float = MISS, margin: float = 0.0,
                 aim: bool = True) -> None:
        super().__init__(rules, seed, samples, steps, miss, margin, model="kit", aim=aim)


def _entropy(seed: int | None) -> int:
    """The root of the Expert's streams: ``seed``, or fresh entropy for None."""
    return int(np.random.SeedSequence(seed).entropy)  # type: ignore[arg-type]


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
