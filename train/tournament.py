"""Evaluation tournaments between agents, batched through the engine, with honest statistics.

``run_tournament({"hard": HardAgent, "easy": "easy", ...}, rules, num_deals=2000, seed=0)``
plays ``num_deals`` deals (games, to be exact: a game is ``rules.deals`` deals, 1 in every
preset). One agent sits in each seat, so there are as many agents as players.

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

Statistics: the deal is the unit
--------------------------------
The ``R`` replays of one deal are *not* independent games (same cards: a good hand is good
for whoever holds it), so treating the ``D * R`` games as independent would make the
intervals wrong. Every statistic is first averaged over the replays of a deal, giving one
value per deal and agent; the deals are independent (independent seeds), and the 95%
confidence interval is the t interval over those ``D`` per-deal means:
``mean +- t(0.975, D-1) * sd / sqrt(D)``. (The seating of a deal is drawn independently too,
so with ``shuffle`` the neighbour effect is part of the per-deal noise, not a bias.)
Reported per agent:

* mean place (1 = first), the rate of first places and of last places, points per deal under
  the rules' scoring (the final score divided by ``rules.deals``), each with its interval;
* head-to-head: how often agent X finished ahead of agent Y in the same game (both seated at
  the same deal), with its interval over deals;
* a multiplayer rating: openskill's Plackett-Luce model updated with every game's finishing
  order, games taken in order (deal by deal, replay by replay). It treats every game as
  a separate match, so its sigma is not a confidence statement; use the intervals above.

The statistics are a pure function of the places, :func:`summarize`, separate from play.

CLI::

    python -m train.tournament --preset standard --players 4 \\
        --agents hard,normal,easy,random --deals 2000 --seed 0 --out results/standard

``--agents hard*4`` seats four Hard agents (named ``hard``, ``hard#2``, ...).
"""

from __future__ import annotations

import argparse
import csv
import functools
import itertools
import json
import math
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np
import numpy.typing as npt

from agents import Agent, make_agent
from president_env.core.engine import Engine
from president_env.core.rules import Rules, parse_rule_option

AgentSpec = Any  # an Agent, a factory (rules, seed) -> Agent, or a built-in agent's name
FloatArray = npt.NDArray[np.float64]


# ================================================================ statistics
@functools.lru_cache(maxsize=256)
def t_quantile(p: float, df: int) -> float:
    """Quantile ``p`` of Student's t with ``df`` degrees of freedom (no scipy needed).

    Exact for 1 and 2 degrees of freedom; up to 100 by bisection on the distribution function
    (Simpson's rule on the density, error below 1e-6); beyond, a fourth-order Cornish-Fisher
    expansion around the normal quantile (error below 1e-6 there).
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if df < 1:
        return math.nan
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2 * p - 1) * math.sqrt(2.0 / (4 * p * (1 - p)))
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    v = float(df)
    if df > 100:
        z = NormalDist().inv_cdf(p)
        g1 = (z**3 + z) / 4
        g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
        g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
        g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
        return z + g1 / v + g2 / v**2 + g3 / v**3 + g4 / v**4
    log_c = math.lgamma((v + 1) / 2) - math.lgamma(v / 2) - 0.5 * math.log(v * math.pi)

    def cdf(t: float, n: int = 2000) -> float:  # P(T <= t) for t >= 0
        h = t / n
        xs = np.linspace(0.0, t, n + 1)
        ys = np.exp(log_c - (v + 1) / 2 * np.log1p(xs * xs / v))
        return 0.5 + h / 3 * float(ys[0] + ys[-1] + 4 * ys[1:-1:2].sum() + 2 * ys[2:-1:2].sum())

    lo, hi = 0.0, 1.0
    while cdf(hi) < p:
        lo, hi = hi, hi * 2
    for _ in range(60):
        mid = (lo + hi) / 2
        if cdf(mid) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def mean_ci(per_deal: npt.ArrayLike, confidence: float = 0.95) -> tuple[float, float, float]:
    """Mean of independent per-deal values and its t confidence interval ``(mean, lo, hi)``
    (``nan`` bounds with a single deal)."""
    x = np.asarray(per_deal, dtype=np.float64)
    n = len(x)
    m = float(x.mean()) if n else math.nan
    if n < 2:
        return m, math.nan, math.nan
    half = t_quantile(0.5 + confidence / 2, n - 1) * float(x.std(ddof=1)) / math.sqrt(n)
    return m, m - half, m + half


@dataclass
class Summary:
    """Statistics of a tournament (see the module docstring for their meaning).

    Per agent ``[N]``: ``mean_place`` (1 = first), ``first_rate``, ``last_rate``, ``points``,
    each with ``*_lo`` / ``*_hi`` bounds. ``head_to_head[i, j]``: share of games where agent
    ``i`` finished ahead of agent ``j`` (``nan`` on the diagonal), with bounds.
    ``rating_mu`` / ``rating_sigma`` / ``rating_ordinal``: openskill Plackett-Luce.
    """

    names: list[str]
    num_deals: int
    rotations: int
    confidence: float
    mean_place: FloatArray
    mean_place_lo: FloatArray
    mean_place_hi: FloatArray
    first_rate: FloatArray
    first_rate_lo: FloatArray
    first_rate_hi: FloatArray
    last_rate: FloatArray
    last_rate_lo: FloatArray
    last_rate_hi: FloatArray
    points: FloatArray
    points_lo: FloatArray
    points_hi: FloatArray
    head_to_head: FloatArray
    head_to_head_lo: FloatArray
    head_to_head_hi: FloatArray
    rating_mu: FloatArray = field(default_factory=lambda: np.zeros(0))
    rating_sigma: FloatArray = field(default_factory=lambda: np.zeros(0))
    rating_ordinal: FloatArray = field(default_factory=lambda: np.zeros(0))

    def per_agent(self) -> list[dict[str, Any]]:
        """One dict of plain numbers per agent (the rows of the CSV)."""
        rows = []
        for i, name in enumerate(self.names):
            row: dict[str, Any] = {"agent": name}
            for stat in ("mean_place", "first_rate", "last_rate", "points"):
                for suffix in ("", "_lo", "_hi"):
                    row[stat + suffix] = float(getattr(self, stat + suffix)[i])
            if len(self.rating_mu):
                row["rating_mu"] = float(self.rating_mu[i])
                row["rating_sigma"] = float(self.rating_sigma[i])
                row["rating_ordinal"] = float(self.rating_ordinal[i])
            rows.append(row)
        return rows

    def to_dict(self) -> dict[str, Any]:
        return {
            "names": list(self.names),
            "num_deals": self.num_deals,
            "rotations": self.rotations,
            "confidence": self.confidence,
            "agents": self.per_agent(),
            "head_to_head": _nan_to_none(self.head_to_head),
            "head_to_head_lo": _nan_to_none(self.head_to_head_lo),
            "head_to_head_hi": _nan_to_none(self.head_to_head_hi),
        }

    def table(self) -> str:
        """The per-agent table and the head-to-head table, in markdown, best agent first."""
        pct = int(round(self.confidence * 100))
        order = np.argsort(self.mean_place, kind="stable")
        lines = [
            f"| agent | mean place ({pct}% CI) | first (%) | last (%) | points / deal | "
            f"rating mu (sigma) |",
            "|---|---|---|---|---|---|",
        ]
        for i in order:
            rating = (
                f"{self.rating_mu[i]:.1f} ({self.rating_sigma[i]:.1f})"
                if len(self.rating_mu)
                else "-"
            )
            lines.append(
                f"| {self.names[i]} "
                f"| {self.mean_place[i]:.3f} [{self.mean_place_lo[i]:.3f}, {self.mean_place_hi[i]:.3f}] "
                f"| {100 * self.first_rate[i]:.1f} [{100 * self.first_rate_lo[i]:.1f}, "
                f"{100 * self.first_rate_hi[i]:.1f}] "
                f"| {100 * self.last_rate[i]:.1f} [{100 * self.last_rate_lo[i]:.1f}, "
                f"{100 * self.last_rate_hi[i]:.1f}] "
                f"| {self.points[i]:.3f} [{self.points_lo[i]:.3f}, {self.points_hi[i]:.3f}] "
                f"| {rating} |"
            )
        lines += ["", "Head to head: % of games the row agent finished ahead of the column agent.", ""]
        lines.append("| | " + " | ".join(self.names[j] for j in order) + " |")
        lines.append("|---" * (len(order) + 1) + "|")
        for i in order:
            cells = [
                "-" if i == j else f"{100 * self.head_to_head[i, j]:.1f}" for j in order
            ]
            lines.append(f"| {self.names[i]} | " + " | ".join(cells) + " |")
        return "\n".join(lines)


def summarize(
    places: npt.ArrayLike,
    points: npt.ArrayLike | None = None,
    names: Sequence[str] | None = None,
    confidence: float = 0.95,
    ratings: bool = True,
) -> Summary:
    """Statistics of a tournament from its results alone.

    ``places [D, R, N]``: the place (0 = first) of agent ``n`` in rotation ``r`` of deal ``d``.
    ``points [D, R, N]``: points per deal, same layout (default: zeros). Every statistic is
    averaged over the ``R`` rotations of a deal first, then the ``D`` per-deal values give the
    mean and its t interval (the deal is the independent unit).
    """
    pl = np.asarray(places)
    if pl.ndim != 3:
        raise ValueError(f"places must be [deals, rotations, agents], got shape {pl.shape}")
    d, r, n = pl.shape
    if d == 0 or r == 0:
        raise ValueError("no games to summarize")
    pts = np.zeros(pl.shape) if points is None else np.asarray(points, dtype=np.float64)
    if pts.shape != pl.shape:
        raise ValueError(f"points must have the shape of places {pl.shape}, got {pts.shape}")
    nm = [f"agent{i}" for i in range(n)] if names is None else list(names)
    if len(nm) != n:
        raise ValueError(f"{len(nm)} names for {n} agents")
    worst = pl.max(axis=2, keepdims=True)

    def stat(x: np.ndarray) -> tuple[FloatArray, FloatArray, FloatArray]:
        per_deal = x.mean(axis=1)  # [D, N]
        res = np.array([mean_ci(per_deal[:, i], confidence) for i in range(n)])
        return res[:, 0], res[:, 1], res[:, 2]

    mp = stat(pl.astype(np.float64) + 1.0)
    fr = stat((pl == 0).astype(np.float64))
    lr = stat((pl == worst).astype(np.float64))
    pt = stat(pts)
    h2h = np.full((n, n), np.nan)
    h2h_lo = np.full((n, n), np.nan)
    h2h_hi = np.full((n, n), np.nan)
    for i in range(n):
        for j in range(n):
            if i != j:
                ahead = (pl[:, :, i] < pl[:, :, j]).astype(np.float64).mean(axis=1)
                h2h[i, j], h2h_lo[i, j], h2h_hi[i, j] = mean_ci(ahead, confidence)
    out = Summary(
        names=nm,
        num_deals=d,
        rotations=r,
        confidence=confidence,
        mean_place=mp[0],
        mean_place_lo=mp[1],
        mean_place_hi=mp[2],
        first_rate=fr[0],
        first_rate_lo=fr[1],
        first_rate_hi=fr[2],
        last_rate=lr[0],
        last_rate_lo=lr[1],
        last_rate_hi=lr[2],
        points=pt[0],
        points_lo=pt[1],
        points_hi=pt[2],
        head_to_head=h2h,
        head_to_head_lo=h2h_lo,
        head_to_head_hi=h2h_hi,
    )
    if ratings:
        out.rating_mu, out.rating_sigma, out.rating_ordinal = rate(pl, nm)
    return out


def rate(places: npt.ArrayLike, names: Sequence[str]) -> tuple[FloatArray, FloatArray, FloatArray]:
    """openskill Plackett-Luce ratings ``(mu, sigma, ordinal)`` after every game in order."""
    from openskill.models import PlackettLuce

    pl = np.asarray(places)
    model = PlackettLuce()
    current = [model.rating(name=str(name)) for name in names]
    for game in pl.reshape(-1, pl.shape[-1]):
        teams = model.rate([[x] for x in current], ranks=[int(v) for v in game])
        current = [team[0] for team in teams]
    return (
        np.array([x.mu for x in current]),
        np.array([x.sigma for x in current]),
        np.array([x.ordinal() for x in current]),
    )


def _nan_to_none(a: np.ndarray) -> list[Any]:
    return [[None if math.isnan(v) else float(v) for v in row] for row in a]


# ================================================================ play
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
    places: npt.NDArray[np.int64]
    points: FloatArray
    seats: npt.NDArray[np.int64]
    deal_seeds: npt.NDArray[np.uint64]
    summary: Summary
    elapsed_s: float
    games: int
    decisions: int
    batch_size: int

    @property
    def games_per_second(self) -> float:
        """Games (one deal each in every preset) played per second, all rotations counted."""
        return self.games / self.elapsed_s if self.elapsed_s > 0 else math.nan

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.elapsed_s if self.elapsed_s > 0 else math.nan

    def table(self) -> str:
        r = self.rules
        head = (
            f"{_preset(r)} rules, {r.num_players} players, {self.num_deals} deals"
            f"{' x ' + str(self.places.shape[1]) + ' seatings (duplicate, ' + self.seating + ')' if self.duplicate else ''}"
            f", seed {self.seed}; {self.games} games in {self.elapsed_s:.1f} s "
            f"({self.games_per_second:.0f} games/s, batch {self.batch_size}). "
            f"Intervals: 95% t intervals over per-deal means."
        )
        return head + "\n\n" + self.summary.table()

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

    def save(self, out_dir: str | Path) -> dict[str, Path]:
        """Write ``stats.csv``, ``head_to_head.csv``, ``result.json``, ``places.npz``,
        ``table.md`` and ``mean_place.png`` into ``out_dir``; return their paths."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        paths = {
            "csv": out / "stats.csv",
            "head_to_head": out / "head_to_head.csv",
            "json": out / "result.json",
            "places": out / "places.npz",
            "table": out / "table.md",
            "plot": out / "mean_place.png",
        }
        rows = self.summary.per_agent()
        with paths["csv"].open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        with paths["head_to_head"].open("w", newline="") as f:
            writer2 = csv.writer(f)
            writer2.writerow(["agent", *self.names])
            for i, name in enumerate(self.names):
                writer2.writerow(
                    [name, *("" if i == j else f"{v:.6f}" for j, v in enumerate(self.summary.head_to_head[i]))]
                )
        paths["json"].write_text(json.dumps(self.to_dict(), indent=2))
        np.savez_compressed(
            paths["places"],
            places=self.places,
            points=self.points,
            seats=self.seats,
            deal_seeds=self.deal_seeds,
            names=np.array(self.names),
        )
        paths["table"].write_text(self.table() + "\n")
        plot_mean_place(self.summary, paths["plot"], title=_title(self))
        return paths


def _preset(rules: Rules) -> str:
    name = getattr(rules, "preset_name", None)
    return name if isinstance(name, str) else "custom"


def _title(res: TournamentResult) -> str:
    return (
        f"{_preset(res.rules)}, {res.rules.num_players} players, "
        f"{res.num_deals} deals" + (f" x {res.places.shape[1]} seatings" if res.duplicate else "")
    )


def plot_mean_place(summary: Summary, path: str | Path, title: str = "") -> None:
    """Bar chart of mean place per agent with its confidence interval (Agg backend)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = np.argsort(summary.mean_place, kind="stable")
    x = np.arange(len(order))
    mean = summary.mean_place[order]
    err = np.vstack([mean - summary.mean_place_lo[order], summary.mean_place_hi[order] - mean])
    fig, ax = plt.subplots(figsize=(1.6 * len(order) + 2, 4))
    ax.bar(x, mean - 1, bottom=1, yerr=np.nan_to_num(err), capsize=6, color="#4c72b0")
    ax.set_xticks(x, [summary.names[i] for i in order])
    ax.set_ylabel(f"mean place (1 = first), {int(round(summary.confidence * 100))}% CI")
    n = len(order)
    ax.set_ylim(1, max(n, float(np.nanmax(summary.mean_place_hi)) + 0.2))
    ax.axhline((n + 1) / 2, color="grey", lw=0.8, ls="--")
    if title:
        ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _resolve(spec: AgentSpec, rules: Rules, seed: int) -> Agent:
    if isinstance(spec, str):
        return make_agent(spec.split("#")[0], rules, seed)
    if hasattr(spec, "act_batch") and not isinstance(spec, type):
        return spec  # type: ignore[no-any-return]
    if callable(spec):
        agent = spec(rules, seed)
        if not hasattr(agent, "act_batch"):
            raise TypeError(f"agent factory {spec!r} returned {agent!r}, which has no act_batch")
        return agent  # type: ignore[no-any-return]
    raise TypeError(f"an agent is an Agent, a factory (rules, seed) -> Agent or a name; got {spec!r}")


def rotation_seats(num_players: int, rotations: int) -> npt.NDArray[np.int64]:
    """``seats[k, i]``: the seat of agent ``i`` in rotation ``k``, ``(i + k) % P``."""
    k = np.arange(rotations)[:, None]
    i = np.arange(num_players)[None, :]
    return (i + k) % num_players


SEATINGS = ("rotate", "shuffle", "all")


def seat_plan(
    num_players: int, num_deals: int, duplicate: bool, seating: str, rng: np.random.Generator
) -> npt.NDArray[np.int64]:
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
) -> TournamentResult:
    """Play ``num_deals`` deals between ``agents`` (one per seat) and summarize them.

    ``agents`` maps a unique name to an Agent, a factory ``(rules, seed) -> Agent`` or a
    built-in agent's name (``"hard"``). With ``duplicate`` every deal is replayed with the
    seats changed so that every agent plays every hand (``seating``: see the module docstring);
    without it every deal is played once in a random seating.
    ``batch_size`` games run at once through the engine; at every step the games are grouped
    by the agent to act and each agent's ``act_batch`` decides its rows.
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
        _resolve(agents[n], rules, int(child.generate_state(1)[0]))
        for n, child in zip(names, agent_ss.spawn(len(names)))
    ]
    deal_seeds = deal_ss.generate_state(num_deals, dtype=np.uint64).astype(np.uint64)
    seats = seat_plan(p, num_deals, duplicate, seating, np.random.default_rng(seat_ss))
    rotations = seats.shape[1]
    job_seats = seats.reshape(-1, p)
    job_deal = np.repeat(np.arange(num_deals), rotations)
    n_jobs = len(job_deal)
    # agent_at[j, s]: the agent in seat s of job j
    agent_at = np.empty_like(job_seats)
    np.put_along_axis(agent_at, job_seats, np.arange(p)[None].repeat(n_jobs, 0), axis=1)

    engine = Engine(rules)
    places = np.full((num_deals, rotations, p), -1, np.int64)
    points = np.zeros((num_deals, rotations, p))
    bsz = min(batch_size, n_jobs)
    slot_job = np.arange(bsz)
    state = engine.init(deal_seeds[job_deal[slot_job]])
    next_job = bsz
    actions = np.zeros(bsz, np.int64)
    decisions = 0
    bar = _progress(n_jobs, progress)
    t0 = time.perf_counter()
    done_games = 0
    while True:
        live = np.flatnonzero(slot_job >= 0)
        if len(live) == 0:
            break
        mask = engine.legal_action_mask(state)
        obs = engine.observe(state)
        who = agent_at[slot_job[live], state.current[live]]
        actions[:] = 0
        for i, agent in enumerate(players):
            rows = live[who == i]
            if len(rows) == 0:
                continue
            act = np.asarray(agent.act_batch(obs[rows], mask[rows]), dtype=np.int64)
            if act.shape != rows.shape or ((act < 0) | (act >= engine.num_actions)).any():
                raise ValueError(f"agent {names[i]!r} returned invalid actions {act!r}")
            if not mask[rows, act].all():
                bad = int(np.flatnonzero(~mask[rows, act])[0])
                raise ValueError(
                    f"agent {names[i]!r} chose the illegal action {int(act[bad])} "
                    f"({engine.layout.name(int(act[bad]))})"
                )
            actions[rows] = act
        decisions += len(live)
        engine.step_inplace(state, actions, check=False)
        over = live[state.phase[live] == 2]
        if len(over) == 0:
            continue
        jobs = slot_job[over]
        final = state.take(over)
        standing = engine.standings(final)  # [G, P] by seat
        js = job_seats[jobs]  # [G, N]
        d_idx = job_deal[jobs]
        r_idx = jobs % rotations
        places[d_idx, r_idx] = np.take_along_axis(standing, js, axis=1)
        points[d_idx, r_idx] = np.take_along_axis(final.scores, js, axis=1) / rules.deals
        done_games += len(over)
        if bar is not None:
            bar.update(len(over))
        n_new = min(len(over), n_jobs - next_job)
        if n_new > 0:
            new_jobs = np.arange(next_job, next_job + n_new)
            next_job += n_new
            state.put(over[:n_new], engine.init(deal_seeds[job_deal[new_jobs]]))
            slot_job[over[:n_new]] = new_jobs
        slot_job[over[n_new:]] = -1
    elapsed = time.perf_counter() - t0
    if bar is not None:
        bar.close()
    assert (places >= 0).all()
    summary = summarize(places, points, names, confidence=confidence, ratings=ratings)
    return TournamentResult(
        names=names,
        rules=rules,
        num_deals=num_deals,
        seed=seed,
        duplicate=duplicate,
        seating=seating if duplicate else "random",
        places=places,
        points=points,
        seats=seats,
        deal_seeds=deal_seeds,
        summary=summary,
        elapsed_s=elapsed,
        games=done_games,
        decisions=decisions,
        batch_size=bsz,
    )


def _progress(total: int, enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="game", desc="tournament", file=sys.stderr)


# ================================================================ CLI
def parse_agents(text: str) -> list[str]:
    """``"hard,normal*2,easy"`` -> unique names ``["hard", "normal", "normal#2", "easy"]``."""
    names: list[str] = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        base, _, count = item.partition("*")
        base = base.strip().lower()
        n = int(count) if count else 1
        if n < 1:
            raise ValueError(f"bad agent count in {item!r}")
        for _ in range(n):
            k = sum(1 for x in names if x.split("#")[0] == base)
            names.append(base if k == 0 else f"{base}#{k + 1}")
    return names


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m train.tournament",
        description="Duplicate tournament between agents, with confidence intervals.",
    )
    ap.add_argument("--preset", default="standard")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument(
        "--agents", default="hard,normal,easy,random", help="comma list, one per seat; name*k repeats"
    )
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="folder for CSV, JSON, table and plot")
    ap.add_argument("--batch-size", type=int, default=1024)
    ap.add_argument("--no-duplicate", action="store_true", help="play each deal once")
    ap.add_argument(
        "--seating", default="shuffle", choices=SEATINGS,
        help="how duplicate replays seat the agents (default: shuffle)",
    )
    ap.add_argument("--no-progress", action="store_true")
    ap.add_argument("--no-ratings", action="store_true", help="skip the openskill ratings")
    ap.add_argument(
        "--rule", action="append", default=[], type=parse_rule_option, metavar="KEY=VALUE",
        help="override a rule option, e.g. --rule deals=3 (repeatable)",
    )
    args = ap.parse_args(argv)
    try:
        rules = Rules.preset(args.preset, num_players=args.players, **dict(args.rule))
        names = parse_agents(args.agents)
        specs: dict[str, AgentSpec | Callable[..., Agent]] = {n: n for n in names}
        res = run_tournament(
            specs,
            rules,
            args.deals,
            seed=args.seed,
            duplicate=not args.no_duplicate,
            seating=args.seating,
            batch_size=args.batch_size,
            progress=not args.no_progress,
            ratings=not args.no_ratings,
        )
    except (ValueError, TypeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(res.table())
    if args.out:
        paths = res.save(args.out)
        print("wrote " + ", ".join(str(p) for p in paths.values()), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
