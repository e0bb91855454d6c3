"""Statistics of a tournament, with honest intervals: the deal is the unit.

The ``R`` replays of one deal are *not* independent games (same cards: a good hand is good
for whoever holds it), so treating the ``D * R`` games as independent would make the
intervals wrong. Every statistic is first averaged over the replays of a deal, giving one
value per deal and agent; the deals are independent (independent seeds), and the 95%
confidence interval is the t interval over those ``D`` per-deal means:
``mean +- t(0.975, D-1) * sd / sqrt(D)``, cut to the values the statistic can take (a rate to
0..1, a mean place to 1..N: the cut interval holds the true value whenever the whole one does,
so its coverage is the same; a rate near 0 over few deals no longer reads "-1.4 %"). (The seating of a deal is drawn independently too,
so with ``shuffle`` seating the neighbour effect is part of the per-deal noise, not a bias.)
Reported per agent (:class:`Summary`):

* mean place (1 = first), the rate of first places and of last places, points per deal under
  the rules' scoring (the final score divided by ``rules.deals``), each with its interval;
* head-to-head: how often agent X finished ahead of agent Y in the same game (both seated at
  the same deal), with its interval over deals;
* a multiplayer rating: openskill's Plackett-Luce model updated with every game's finishing
  order, games taken in order (deal by deal, replay by replay). It treats every game as
  a separate match, so its sigma is not a confidence statement; use the intervals above.

The statistics are a pure function of the places, :func:`summarize`, separate from play
(:mod:`train.eval.tournament`) and from their tables and plots (:mod:`train.eval.report`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.util import find_spec
from statistics import NormalDist
from typing import Any

import numpy as np
import numpy.typing as npt

from president_env.extras import missing_extra

FloatArray = npt.NDArray[np.float64]


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

    def stat(x: np.ndarray, low: float = -math.inf, high: float = math.inf
             ) -> tuple[FloatArray, FloatArray, FloatArray]:
        per_deal = x.mean(axis=1)  # [D, N]
        res = np.array([mean_ci(per_deal[:, i], confidence) for i in range(n)])
        return res[:, 0], np.clip(res[:, 1], low, high), np.clip(res[:, 2], low, high)

    stats = {
        "mean_place": stat(pl.astype(np.float64) + 1.0, 1.0, float(n)),
        "first_rate": stat((pl == 0).astype(np.float64), 0.0, 1.0),
        "last_rate": stat((pl == worst).astype(np.float64), 0.0, 1.0),
        "points": stat(pts),
    }
    bounds = {
        name + suffix: values[k]
        for name, values in stats.items()
        for k, suffix in enumerate(("", "_lo", "_hi"))
    }
    h2h = np.full((3, n, n), np.nan)  # value, lo, hi
    for i in range(n):
        for j in range(n):
            if i != j:
                ahead = (pl[:, :, i] < pl[:, :, j]).astype(np.float64).mean(axis=1)
                h2h[:, i, j] = np.clip(mean_ci(ahead, confidence), 0.0, 1.0)
    out = Summary(
        names=nm, num_deals=d, rotations=r, confidence=confidence, **bounds,
        head_to_head=h2h[0], head_to_head_lo=h2h[1], head_to_head_hi=h2h[2],
    )
    if ratings and find_spec("openskill") is not None:  # none in the base install
        out.rating_mu, out.rating_sigma, out.rating_ordinal = rate(pl, nm)
    return out


def rate(places: npt.ArrayLike, names: Sequence[str]) -> tuple[FloatArray, FloatArray, FloatArray]:
    """openskill Plackett-Luce ratings ``(mu, sigma, ordinal)`` after every game in order."""
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        raise missing_extra("openskill", "train", "ratings") from None

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
