"""Label collection: games at a table of ``observation="history"`` where, at every decision with
more than one legal action of a labelled seat, each legal action is played in a copy of the
*true* engine state and the deal played on; the acting seat's place after each action is that
action's label.

A :class:`Collection` says who plays: without a behaviour (``"hard"``) the opponents play every
seat, each labelled; with one (a checkpoint) it plays one seat per game (rotating with each new
game), the only one labelled, and the opponents the others. The opponents (``"hard"``, or agents
with weights as ``train.ppo_pool --opponents``: ``"hard:1,self:1"``, ``self`` being the
behaviour) are drawn per seat for each new game, and play on in the rollouts; the labelled seat
is played on by Hard, or by ``rollout`` (a checkpoint: the labels are its own action values, a
step of policy iteration from it), or by no one (``rollout="none"``: positions only, their
places -1, as for the student's own play in a distillation). Kept: the history observation,
the mask, the action taken and the places (:class:`~train.lookahead.labels.Labels`). A file of
the same rules, behaviour, rollout and opponents is extended up to its share of ``decisions``:
a stopped run resumes.
"""

from __future__ import annotations

import multiprocessing
import signal
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from agents import load_agent
from agents.expert import SeatMix, rollout_places
from agents.rule_based import HardAgent
from president_env.core.constants import PHASE_DONE
from president_env.core.engine import Engine, State
from president_env.core.rules import Rules
from president_env.extras import missing_extra
from president_env.table import policy_obs_size
from train.common.pool import split_weight
from train.lookahead.labels import DATA, Labels

try:
    import torch
except ImportError:
    raise missing_extra("torch", "train", "train.lookahead.collect") from None

SAVE_EVERY = 50_000
"""New labelled decisions between saves of the collection."""
HARD = "hard"
"""The behaviour of a collection without one, and the default rollout and opponents."""
SELF = "self"
"""In ``opponents``: the behaviour (Hard when there is none)."""
UNPLAYED = "none"
"""The rollout of a collection of positions only: no action is played on, every place is -1."""


@dataclass(frozen=True)
class Collection:
    """One collection of labels into the folder ``out``: ``decisions`` in all, shared by
    ``workers`` processes side by side (``labels.npz``, or ``labels_<i>.npz`` each with their
    own deals), ``games`` games at once in each."""

    rules: Rules
    out: Path
    decisions: int
    seed: int = 0
    behaviour: str = HARD
    rollout: str = HARD
    opponents: str = HARD
    workers: int = 1
    games: int = 256
    progress: bool = True

    def paths(self) -> list[Path]:
        """The labels files of the collection's workers."""
        return label_paths(self.out, self.workers)

    def labels(self, part: int) -> Labels:
        """Worker ``part``'s labels so far (a ValueError for a file of another collection)."""
        return Labels(self.rules, self.behaviour, self.paths()[part], self.rollout,
                      self.opponents)

    def check(self) -> None:
        """A ValueError when an agent does not load for the rules, the opponents' weights sum
        to 0, or a file of the collection holds other rules, behaviour, rollout or opponents."""
        check_opponents(self.opponents, self.rules)
        for name in {self.behaviour, self.rollout} - {HARD, SELF, UNPLAYED}:
            load_agent(name, self.rules)
        for part in range(self.workers):
            self.labels(part)


def check_opponents(opponents: str, rules: Rules) -> None:
    """A ValueError when an agent of ``opponents`` (``"hard:1,self:1"``) does not load for
    ``rules`` or their weights sum to 0."""
    named = [split_weight(item) for item in opponents.split(",")]
    if sum(w for _, w in named) <= 0:
        raise ValueError(f"opponents {opponents}: the weights sum to 0")
    for name in {n for n, _ in named} - {HARD, SELF}:
        load_agent(name, rules)


def act_dtype(num_actions: int) -> type[np.integer[Any]]:
    """The type the actions taken are kept in: int8 while every action id fits (up to 127, as
    in every preset without runs), else int16 (the ``uecda`` preset's 2,606 actions)."""
    return np.int8 if num_actions <= 128 else np.int16


def label_paths(out: Path, workers: int) -> list[Path]:
    """The labels files of a collection into ``out`` by ``workers`` side by side."""
    if workers == 1:
        return [out / DATA]
    return [out / f"labels_{i}.npz" for i in range(workers)]


def label_places(eng: Engine, hard: HardAgent | SeatMix, st: State, rows: np.ndarray,
                 mask: np.ndarray, own: Any = None) -> np.ndarray:
    """``[len(rows), A]`` int8: the place of the seat to act in game ``rows[i]`` after each
    legal action of ``mask[i]``, Hard playing every seat after it (or the agents of a
    :class:`SeatMix` of the games ``rows``), or ``own`` that seat (-1 where illegal)."""
    row_of, act_of = np.nonzero(mask)
    games = st.take(rows[row_of])
    seat = games.current.astype(np.int64)
    eng.step_inplace(games, act_of, check=False)
    out = np.full(mask.shape, -1, np.int8)
    players = hard.take(row_of) if isinstance(hard, SeatMix) else hard
    out[row_of, act_of] = rollout_places(eng, players, games, seat, own)
    return out


def opponent_pool(job: Collection, me: Any) -> tuple[list[Any], np.ndarray]:
    """The agents of ``job.opponents`` (``self``: ``me``) and their probabilities."""
    agents, weights = [], []
    for i, item in enumerate(job.opponents.split(",")):
        name, w = split_weight(item)
        agents.append(me if name == SELF else load_agent(name, job.rules, job.seed + 1 + i))
        weights.append(w)
    return agents, np.asarray(weights) / sum(weights)


def collect_part(job: Collection, part: int) -> int:
    """Worker ``part`` of the collection (its share of ``decisions``, its own deals), in its own
    process when there are several: the number of labels in its file."""
    threads = torch.get_num_threads()
    # one torch thread: the batches are small, and a pool of threads spins (tens of times
    # slower) while another process holds the other core
    torch.set_num_threads(1)
    try:
        data = job.labels(part)
        collect(job, data, -(-job.decisions // job.workers), part)
    finally:
        torch.set_num_threads(threads)
    return len(data)


def collect(job: Collection, data: Labels, decisions: int, part: int = 0) -> None:
    """Play and label until ``data`` holds ``decisions`` (see the module docstring); saves
    ``data`` every ``SAVE_EVERY`` decisions and at the end."""
    start = len(data)
    if start >= decisions:
        return
    rules = job.rules
    eng, hard = Engine(rules, threads=1), HardAgent(rules)
    rng = np.random.default_rng([job.seed, part, start])  # a resumed run draws new deals
    agent = None if job.behaviour == HARD else load_agent(job.behaviour, rules, job.seed)
    width = policy_obs_size(agent, rules) if agent is not None else None
    own = None if job.rollout in (HARD, UNPLAYED) else load_agent(job.rollout, rules, job.seed)
    b, p = job.games, rules.num_players
    seat = np.arange(b) % p
    st = eng.init(rng.integers(0, 2**62, b))
    pool, weight = opponent_pool(job, hard if agent is None else agent)
    mix = SeatMix(pool, np.zeros((b, p), np.int64), rules)
    if len(pool) > 1:  # one agent: the deals of a run without opponents (no draws)
        mix.assign[:] = rng.choice(len(pool), (b, p), p=weight)
    mask = np.empty((b, eng.num_actions), np.bool_)
    obs = np.empty((b, eng.obs_size), np.float32)
    done = np.zeros(b, np.bool_)
    saved = start
    bar = tqdm(total=decisions, initial=start, desc=f"label {part}", position=part,
               disable=not job.progress)
    while len(data) < decisions:
        eng.next_views(st, mask, obs, done, rng.integers(0, 2**62, b))
        seat = np.where(done, (seat + 1) % p, seat)
        if len(pool) > 1 and done.any():
            mix.assign[done] = rng.choice(len(pool), (int(done.sum()), p), p=weight)
        act = mix.act(np.arange(b), st.current.astype(np.int64), obs, mask)
        mine = np.ones(b, np.bool_) if agent is None else st.current == seat
        if agent is not None and mine.any():
            view = obs[mine] if width is None else obs[mine, :width]
            act[mine] = agent.act_batch(view, mask[mine])
        rows = np.flatnonzero(mine & (mask.sum(axis=1) > 1))
        if len(rows):
            place = (np.full(mask[rows].shape, -1, np.int8) if job.rollout == UNPLAYED
                     else label_places(eng, mix.take(rows), st, rows, mask[rows], own))
            data.add(obs=obs[rows].astype(np.float16), mask=mask[rows].copy(),
                     act=act[rows].astype(act_dtype(eng.num_actions)), place=place)
            bar.update(len(rows))
        if len(data) - saved >= SAVE_EVERY:
            data.save()
            saved = len(data)
        eng.step_inplace(st, act, check=False)
        done = st.phase == PHASE_DONE
    bar.close()
    data.save()


def collect_all(job: Collection) -> list[Path]:
    """The collection ``job`` (its workers side by side): the files it wrote."""
    if job.workers == 1:
        collect_part(job, 0)
        return [p for p in job.paths() if p.is_file()]
    # SIGTERM ends this process through SystemExit, so the pool's exit ends the workers too
    # (killed without it, the parent would leave them collecting)
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _exit_on_term) if main else None
    try:
        with multiprocessing.get_context("spawn").Pool(job.workers) as pool:
            pool.starmap(collect_part, [(job, i) for i in range(job.workers)])
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)
    return [p for p in job.paths() if p.is_file()]


def _exit_on_term(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)
