"""Evaluation tournaments between agents, played at a batched table.

``run_tournament({"hard": HardAgent, "easy": "easy", ...}, rules, num_deals=2000, seed=0)``
plays ``num_deals`` deals (games, to be exact: a game is ``rules.deals`` deals, 1 in every
preset). One agent sits in each seat, so there are as many agents as players. The games are
a :class:`~president_env.table.Table` of ``batch_size`` games whose seats are all played by the
agents (each agent's ``act_batch`` decides every game where it is to act, through the table's
gate); a finished game is replaced at once by the next one to play.

Duplicate form (``duplicate=True``, the default)
------------------------------------------------
Every deal is replayed with the seats rotated: every replay starts from ``Engine.init`` with the
deal's seed, so the same cards go to the same seats, and the agents change seats between
replays so that every agent plays every hand. Seating (``seating``):

* ``"rotate"``: the ``P`` rotations of the given order, agent ``i`` in seat ``(i + k) % P`` in
  rotation ``k``. The cyclic order of the agents never changes, so each agent always plays
  right after the same neighbour. That matters a lot in President: the player right after a
  random player has to answer its wild plays and loses about 0.3 of a place for it (4
  players), more than the gap between two levels of agent; so with ``hard,normal,easy,random``
  in that order, Hard always sits after Random and the table measures the seat, not the skill.
  Use it only when the order is what you want to measure.
* ``"shuffle"`` (default): a fresh random cyclic order of the agents for every deal (seeded),
  then its ``P`` rotations: every agent still plays every hand of every deal, and who sits
  next to whom is random from deal to deal, so it averages out over deals.
* ``"all"``: all ``P!`` seatings of every deal (24 with four players): every agent plays every
  hand with every arrangement of neighbours; the least noisy, for small tables.

Without duplicate (``duplicate=False``) every deal is played once, in a random seating.

The statistics (intervals over deals, head to head, ratings) are :mod:`train.eval.stats`; the
tables, files and plots :mod:`train.eval.report`. :func:`evaluate_policy` is the benchmark of a
trained policy: a tournament against ``P - 1`` copies of each baseline.
"""

from __future__ import annotations

import itertools
import math
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from agents import is_checkpoint_spec, load_agent
from president_env.core.constants import PHASE_DONE
from president_env.core.engine import Engine
from president_env.core.rules import Rules
from president_env.records import GameRecord
from president_env.table import Policy, Table, check_rules, table_rules
from train.eval import report
from train.eval.recording import BatchRecorder
from train.eval.stats import FloatArray, Summary, summarize

AgentSpec = Any  # a Policy, a factory (rules, seed) -> Policy, an agent's name or a path
IntArray = npt.NDArray[np.int64]
SEATINGS = ("rotate", "shuffle", "all")
BASELINES = ("random", "easy", "normal", "hard")
MAX_STEPS = 100_000
"""Steps that one batch of games may take before the table gives up (a stuck policy)."""


@dataclass
class TournamentResult:
    """What :func:`run_tournament` played and measured.

    ``places`` / ``points`` ``[D, R, N]`` (place 0 = first) and ``seats [D, R, N]``: the place,
    points and seat of agent ``n`` in replay ``r`` of deal ``d``.
    """

    names: list[str]
    rules: Rules
    num_deals: int
    seed: int
    duplicate: bool
    seating: str
    places: IntArray
    points: FloatArray
    seats: IntArray
    deal_seeds: npt.NDArray[np.uint64]
    summary: Summary
    elapsed_s: float
    games: int
    decisions: int
    batch_size: int
    records: list[GameRecord] = field(default_factory=list)
    """The games kept by ``record`` (:class:`~president_env.records.GameRecord`)."""

    @property
    def games_per_second(self) -> float:
        """Games (one deal each in every preset) played per second, all rotations counted."""
        return self.games / self.elapsed_s if self.elapsed_s > 0 else math.nan

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.elapsed_s if self.elapsed_s > 0 else math.nan

    def table(self) -> str:
        """The tables of :func:`train.eval.report.result_table`."""
        return report.result_table(self)

    def save(self, out_dir: str | Path) -> dict[str, Path]:
        """The files of :func:`train.eval.report.save_result`."""
        return report.save_result(self, out_dir)

    def to_dict(self) -> dict[str, Any]:
        return {
            "names": self.names,
            "rules": self.rules.to_dict(),
            "num_deals": self.num_deals,
            "seed": self.seed,
            "duplicate": self.duplicate,
            "seating": self.seating,
            "replays_per_deal": int(self.places.shape[1]),
            "games": self.games,
            "decisions": self.decisions,
            "elapsed_s": self.elapsed_s,
            "games_per_second": self.games_per_second,
            "decisions_per_second": self.decisions_per_second,
            "batch_size": self.batch_size,
            "summary": self.summary.to_dict(),
        }


# ---------------------------------------------------------------------------- seating
def rotation_seats(num_players: int, rotations: int) -> IntArray:
    """``seats[k, i]``: the seat of agent ``i`` in rotation ``k``, ``(i + k) % P``."""
    k = np.arange(rotations)[:, None]
    i = np.arange(num_players)[None, :]
    return (i + k) % num_players


def seat_plan(
    num_players: int, num_deals: int, duplicate: bool, seating: str, rng: np.random.Generator
) -> IntArray:
    """``seats [D, R, N]``: the seat of agent ``n`` in replay ``r`` of deal ``d``.

    ``seating`` is ``"rotate"``, ``"shuffle"`` or ``"all"`` (see the module docstring); without
    ``duplicate``, one random seating per deal (``R = 1``).
    """
    p = num_players
    if seating not in SEATINGS:
        raise ValueError(f"seating must be one of {SEATINGS}, got {seating!r}")
    if not duplicate:
        return np.argsort(rng.random((num_deals, 1, p)), axis=2)
    rot = rotation_seats(p, p)  # [R, N]
    if seating == "rotate":
        return np.broadcast_to(rot[None], (num_deals, p, p)).copy()
    if seating == "shuffle":
        # agent order[d, j] sits at cyclic position j: seat (j + k) % P in rotation k
        order = np.argsort(rng.random((num_deals, p)), axis=1)
        pos = np.argsort(order, axis=1)  # cyclic position of every agent
        return (pos[:, None, :] + np.arange(p)[None, :, None]) % p
    if math.factorial(p) > 5040:
        raise ValueError(f"seating='all' would replay every deal {math.factorial(p)} times")
    perms = np.array(list(itertools.permutations(range(p))), dtype=np.int64)
    return np.broadcast_to(perms[None], (num_deals, *perms.shape)).copy()


def parse_agents(text: str) -> list[str]:
    """``"hard,normal*2,easy"`` -> unique names ``["hard", "normal", "normal#2", "easy"]``;
    checkpoint paths (``runs/a/policy.pt``, ``model.zip``) keep their case."""
    names: list[str] = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        base, _, count = item.partition("*")
        base = base.strip() if is_checkpoint_spec(base) else base.strip().lower()
        try:
            n = int(count) if count else 1
        except ValueError:
            n = 0
        if n < 1:
            raise ValueError(f"bad agent count in {item!r}: expected name*k with k >= 1")
        for _ in range(n):
            k = sum(1 for x in names if x.split("#")[0] == base)
            names.append(base if k == 0 else f"{base}#{k + 1}")
    return names


def _resolve(name: str, spec: AgentSpec, rules: Rules, seed: int) -> Policy:
    """The policy of ``spec`` (see :func:`run_tournament`), checked to be made for ``rules``."""
    if isinstance(spec, str):
        agent = load_agent(spec, rules, seed)
    elif hasattr(spec, "act_batch") and not isinstance(spec, type):
        agent = spec
    elif callable(spec):
        agent = spec(rules, seed)
        if not hasattr(agent, "act_batch"):
            raise TypeError(f"agent factory {spec!r} returned {agent!r}, which has no act_batch")
    else:
        raise TypeError(
            f"an agent is an Agent, a factory (rules, seed) -> Agent, a name or a checkpoint "
            f"path; got {spec!r}"
        )
    check_rules(agent, table_rules(rules, [agent]), name=f"agent {name!r}")
    return agent  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------- play
class _Schedule:
    """The games of a tournament (every replay of every deal) and what they gave.

    Job ``j`` is replay ``j % R`` of deal ``j // R``; ``agent_at[j, s]`` is the agent in seat
    ``s`` of job ``j``. Rows of the table take the jobs in order; a finished row takes the next.
    """

    def __init__(self, engine: Engine, seats: IntArray, deal_seeds: npt.NDArray[np.uint64]) -> None:
        self.engine = engine
        self.seats = seats
        self.deal_seeds = deal_seeds
        num_deals, self.rotations, p = seats.shape
        self.job_seats = seats.reshape(-1, p)
        self.job_deal = np.repeat(np.arange(num_deals), self.rotations)
        self.n_jobs = len(self.job_deal)
        self.agent_at = np.empty_like(self.job_seats)
        np.put_along_axis(
            self.agent_at, self.job_seats, np.arange(p)[None].repeat(self.n_jobs, 0), axis=1
        )
        self.places = np.full(seats.shape, -1, np.int64)
        self.points = np.zeros(seats.shape)
        self.done_games = 0
        self.next_job = 0

    def table(self, policies: list[Policy], names: list[str], batch: int) -> Table:
        """A table of the first ``batch`` games; its rows will take the later ones."""
        self.slot_job = np.arange(batch)
        self.next_job = batch
        state = self.engine.init(self.deal_seeds[self.job_deal[self.slot_job]])
        return Table(self.engine, state, policies, self.agent_at[self.slot_job], names)

    def refill(self, table: Table, moved: npt.NDArray[np.bool_], bar: Any) -> None:
        """Record the games that just ended and deal the next jobs into their rows."""
        state = table.state
        over = np.flatnonzero(moved & (state.phase == PHASE_DONE))
        if len(over) == 0:
            return
        jobs = self.slot_job[over]
        final = state.take(over)
        js = self.job_seats[jobs]  # [G, N]
        d_idx, r_idx = self.job_deal[jobs], jobs % self.rotations
        standing = self.engine.standings(final)  # [G, P] by seat
        self.places[d_idx, r_idx] = np.take_along_axis(standing, js, axis=1)
        self.points[d_idx, r_idx] = (
            np.take_along_axis(final.scores, js, axis=1) / self.engine.rules.deals
        )
        self.done_games += len(over)
        if bar is not None:
            bar.update(len(over))
        n_new = min(len(over), self.n_jobs - self.next_job)
        if n_new > 0:
            new_jobs = np.arange(self.next_job, self.next_job + n_new)
            self.next_job += n_new
            state.put(over[:n_new], self.engine.init(self.deal_seeds[self.job_deal[new_jobs]]))
            self.slot_job[over[:n_new]] = new_jobs
            table.seat_policy[over[:n_new]] = self.agent_at[new_jobs]
            table.sync()  # a table of one game follows the new deal
        self.slot_job[over[n_new:]] = -1

    def job_meta(self, row: int) -> dict[str, int]:
        """Which game is in ``row``: its deal and replay (for its game record)."""
        job = int(self.slot_job[row])
        return {"deal": int(self.job_deal[job]), "replay": job % self.rotations}


def run_tournament(
    agents: Mapping[str, AgentSpec],
    rules: Rules,
    num_deals: int,
    seed: int = 0,
    duplicate: bool = True,
    seating: str = "shuffle",
    batch_size: int = 1024,
    progress: bool = True,
    confidence: float = 0.95,
    ratings: bool = True,
    record: int = 0,
    record_select: str = "first",
) -> TournamentResult:
    """Play ``num_deals`` deals between ``agents`` (one per seat) and summarize them.

    ``agents`` maps a unique name to a policy (an Agent), a factory ``(rules, seed) -> Agent``,
    a built-in agent's name (``"hard"``) or a checkpoint path (``.pt`` or an SB3 ``model.zip``,
    :func:`agents.load_agent`). A policy with a ``rules`` attribute must have been made for
    ``rules`` (a ValueError lists the options that differ: :func:`agents.policy.check_rules`). With ``duplicate`` every deal is replayed with the
    seats changed so that every agent plays every hand (``seating``: see the module docstring);
    without it every deal is played once in a random seating. ``batch_size`` games are played
    at once at the table. ``record`` games are kept as game records (``result.records``):
    the first to end, or by ``record_select`` (``"worst:NAME"``, ``"best:NAME"``: see
    :mod:`train.eval.recording`).
    """
    names = list(agents)
    p = rules.num_players
    if len(names) != p:
        raise ValueError(
            f"{len(names)} agents for {p} seats: give exactly one agent per seat "
            f"(e.g. --agents hard*{p} on the command line)"
        )
    if num_deals < 1:
        raise ValueError(f"num_deals must be at least 1, got {num_deals}")
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    deal_ss, seat_ss, agent_ss = np.random.SeedSequence(seed).spawn(3)
    players = [
        _resolve(n, agents[n], rules, int(child.generate_state(1)[0]))
        for n, child in zip(names, agent_ss.spawn(len(names)))
    ]
    deal_seeds = deal_ss.generate_state(num_deals, dtype=np.uint64).astype(np.uint64)
    seats = seat_plan(p, num_deals, duplicate, seating, np.random.default_rng(seat_ss))
    plan = _Schedule(Engine(table_rules(rules, players)), seats, deal_seeds)
    bsz = min(batch_size, plan.n_jobs)
    table = plan.table(players, names, bsz)
    recorder = (
        BatchRecorder(table, record, record_select, plan.job_meta, "tournament") if record else None
    )
    bar = _progress(plan.n_jobs, progress)
    t0 = time.perf_counter()

    def on_step(moved: npt.NDArray[np.bool_], seats: IntArray, actions: IntArray) -> None:
        if recorder is not None:
            recorder.on_step(moved, seats, actions)  # before refill re-deals the ended games
        plan.refill(table, moved, bar)

    table.play_until_external(on_step, max_steps=MAX_STEPS * (plan.n_jobs // bsz + 1))
    elapsed = time.perf_counter() - t0
    if bar is not None:
        bar.close()
    assert (plan.places >= 0).all()
    return TournamentResult(
        names=names, rules=rules, num_deals=num_deals, seed=seed, duplicate=duplicate,
        seating=seating if duplicate else "random", places=plan.places, points=plan.points,
        seats=seats, deal_seeds=deal_seeds,
        summary=summarize(plan.places, plan.points, names, confidence=confidence, ratings=ratings),
        elapsed_s=elapsed, games=plan.done_games, decisions=table.decisions, batch_size=bsz,
        records=[] if recorder is None else recorder.records(),
    )


def _progress(total: int, enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="game", desc="tournament", file=sys.stderr)


# ---------------------------------------------------------------------------- policies
def evaluate_policy(
    policy: Policy,
    rules: Rules,
    num_deals: int,
    seed: int = 0,
    baselines: tuple[str, ...] = BASELINES,
    progress: bool = True,
    batch_size: int = 1024,
) -> list[dict[str, Any]]:
    """One row per baseline: the policy's statistics in a duplicate tournament against
    ``num_players - 1`` copies of it (mean place with its interval, first and last rates,
    points per deal); :func:`train.eval.report.policy_table` shows them."""
    rows = []
    for name in baselines:
        agents: dict[str, Any] = {"policy": policy}
        for k in range(1, rules.num_players):
            agents[f"{name}_{k}"] = name
        res = run_tournament(
            agents, rules, num_deals, seed=seed, progress=progress, ratings=False,
            batch_size=batch_size,
        )
        s = res.summary
        rows.append(
            {
                "opponents": f"{rules.num_players - 1} x {name}",
                "deals": num_deals,
                "games": res.games,
                "mean_place": float(s.mean_place[0]),
                "mean_place_lo": float(s.mean_place_lo[0]),
                "mean_place_hi": float(s.mean_place_hi[0]),
                "first_rate": float(s.first_rate[0]),
                "last_rate": float(s.last_rate[0]),
                "points": float(s.points[0]),
            }
        )
    return rows
