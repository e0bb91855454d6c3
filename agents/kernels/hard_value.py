"""Hard's value of a hand: its weights, the per-row tables of group values, the hand value.

A hand is valued in leads saved: the sum over its groups (one set per rank, each joker a
single, runs of lone cards when runs are on) of ``f + v - 1 - lambda + mu * key / 12``, where
``f`` is the chance the group gets shed by following (it needs no lead of its own), ``v`` the
chance it holds the trick when played (it gives a lead back); plus a premium ``kappa`` for
each sure card kept, counted up to ``kcap`` of them. Every card of a clearing rank is a
control of its own. The tables (:class:`HardTables`) hold these values per order, rank and
set size, computed once per row (:func:`fill_tables`) for the orders that can happen.

Variants: a bomb (``bombs``) is a sure group that can be shed on any pile (``f`` = ``c1``);
with ``runs_mixed_suits`` the lone cards of consecutive ranks make a run whatever their
suits; with ``max_run_length`` a longer stretch counts as several runs.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

import numpy as np

from agents.kernels._cache import kernel
from agents.kernels.hard_odds import bomb_size, clears, follow_share, vjok, vrun, vset
from agents.kernels.plays import key
from president_env.core.constants import NUM_CARDS, NUM_RANKS
from president_env.core.rules import RuleParam


class HardWeight(IntEnum):
    """Index of each of Hard's weights in its weight vector; the lower-case name is the key of
    :data:`agents.rule_based.HARD_WEIGHTS` (values and meaning there)."""

    C1 = 0
    C2 = 1
    C3 = 2
    C4 = 3
    CRUN = 4
    ALPHA = 5
    MU = 6
    DANGER = 7
    DANGER_PASS = 8
    CHAIN = 9
    RUN_P = 10
    LAMBDA = 11
    KAPPA = 12
    BREAK = 13
    KCAP = 14
    RACE = 15
    RUN_P_MIXED = 16


@kernel(inline="always")
def run_chance(rp, w):  # type: ignore[no-untyped-def]
    """Hard's chance that a possible beating run is held: ``run_p`` (one suit) or
    ``run_p_mixed`` (``runs_mixed_suits``)."""
    if rp[RuleParam.RUNS_MIXED_SUITS] != 0:
        return w[HardWeight.RUN_P_MIXED]
    return w[HardWeight.RUN_P]


class HardTables(NamedTuple):
    """Per-row tables and scratch of the Hard kernel (``o`` = 1 in a revolution)."""

    vt: np.ndarray
    """[2, 13, n + 1] chance a set of (rank, size) holds the trick."""
    gt: np.ndarray
    """[2, 13, n + 1] value of such a set as a group of the hand."""
    ct: np.ndarray
    """[2, 13, n + 1] int64: sure cards it counts for the ``kappa`` premium."""
    jt: np.ndarray
    """[2]: value of a joker as a group, chance a single joker holds."""
    ge: np.ndarray
    """[smax + 2] int64: opponents still in the deal holding at least s cards."""
    ge_t: np.ndarray
    """[smax + 2] int64: the same among those still in this trick."""
    seg_r: np.ndarray
    """[14] scratch: ranks of a segment of lone cards."""
    rem: np.ndarray
    """[53] scratch: cards an action takes."""
    h2: np.ndarray
    """[53] scratch: the hand after an action."""
    nat2: np.ndarray
    """[13] scratch: its naturals per rank."""


@kernel(allocates=True)
def new_tables(rp):  # type: ignore[no-untyped-def]
    """Tables sized for the rules ``rp`` (n = natural cards of one rank in the pack)."""
    smax = rp[RuleParam.MAX_SET]
    max_nat = 4 * rp[RuleParam.DECKS]
    return HardTables(
        np.zeros((2, NUM_RANKS, max_nat + 1)),
        np.zeros((2, NUM_RANKS, max_nat + 1)),
        np.zeros((2, NUM_RANKS, max_nat + 1), np.int64),
        np.zeros(2),
        np.zeros(smax + 2, np.int64),
        np.zeros(smax + 2, np.int64),
        np.zeros(14, np.int64),
        np.zeros(NUM_CARDS, np.int64),
        np.zeros(NUM_CARDS, np.int64),
        np.zeros(NUM_RANKS, np.int64),
    )


@kernel
def _count_answers(tab, seen, rp):  # type: ignore[no-untyped-def]
    """Opponents able to answer a play of s cards: every active one (for the hand value) and
    those still in this trick (for the play now)."""
    smax = rp[RuleParam.MAX_SET]
    final = rp[RuleParam.PASS_IS_FINAL] != 0
    ge, ge_t = tab.ge, tab.ge_t
    ge[:] = 0
    ge_t[:] = 0
    for k in range(1, rp[RuleParam.PLAYERS]):
        if seen.left[k] <= 0:
            continue
        in_trick = not (final and seen.passed[k])
        for s in range(1, smax + 2):
            if seen.left[k] >= s:
                ge[s] += 1
                if in_trick:
                    ge_t[s] += 1


@kernel
def _fill_order(tab, o, outn, jout, rp, w):  # type: ignore[no-untyped-def]
    """The set tables of order ``o``."""
    ordr = o == 1
    for r in range(NUM_RANKS):
        share = follow_share(r, ordr, outn, jout, rp)
        for s in range(1, 4 * rp[RuleParam.DECKS] + 1):
            v = vset(r, s, ordr, tab.ge, outn, jout, rp)
            f = w[HardWeight.C1 + (s if s <= 4 else 4) - 1] * share
            if bomb_size(s, rp):
                f = w[HardWeight.C1]  # a bomb goes on any pile
            tab.vt[o, r, s] = v
            if clears(r, ordr, rp):
                # every card of a clearing rank is a control of its own
                tab.gt[o, r, s] = s * (
                    w[HardWeight.C1] - w[HardWeight.LAMBDA] + w[HardWeight.MU] * key(r, ordr) / 12.0
                )
                tab.ct[o, r, s] = s
            else:
                tab.gt[o, r, s] = (
                    f + v - 1.0 - w[HardWeight.LAMBDA] + w[HardWeight.MU] * key(r, ordr) / 12.0
                )
                tab.ct[o, r, s] = 1 if v >= 1.0 else 0


@kernel
def fill_tables(tab, seen, rev, jout, rp, w):  # type: ignore[no-untyped-def]
    """Fill the tables of one row (the orders that can happen in this deal)."""
    _count_answers(tab, seen, rp)
    for o in range(2):
        if rp[RuleParam.REVOLUTION] == 0 and (o == 1) != rev:
            continue  # this order cannot happen in this deal
        _fill_order(tab, o, seen.outn, jout, rp, w)
    tab.jt[1] = vjok(1, tab.ge, jout, rp)
    tab.jt[0] = (
        w[HardWeight.C1] + tab.jt[1] - 1.0 - w[HardWeight.LAMBDA] + w[HardWeight.MU] * 13.0 / 12.0
    )


@kernel(inline="always")
def _sets_value(nat, jok, o, tab):  # type: ignore[no-untyped-def]
    """Value of the sets and jokers, groups that can be beaten, sure cards."""
    val = 0.0
    losers = 0
    nctrl = 0
    for r in range(NUM_RANKS):
        s = nat[r]
        if s > 0:
            val += tab.gt[o, r, s]
            nctrl += tab.ct[o, r, s]
            if tab.vt[o, r, s] < 1.0:
                losers += 1
    if jok > 0:
        val += jok * tab.jt[0]
        if tab.jt[1] < 1.0:
            losers += jok
        else:
            nctrl += jok
    return val, losers, nctrl


@kernel
def _fold_run(val, losers, s0, n, ordr, tab, outn, jout, rp, w):  # type: ignore[no-untyped-def]
    """Count the ``n`` lone cards of ``tab.seg_r`` from ``s0`` as one run instead of ``n``
    singles."""
    o = 1 if ordr else 0
    lo = tab.seg_r[s0]
    for i in range(s0, s0 + n):
        val -= tab.gt[o, tab.seg_r[i], 1]
    losers -= n
    v = vrun(lo, n, ordr, tab.ge, outn, jout, rp, run_chance(rp, w))
    top = lo if ordr else lo + n - 1
    f = w[HardWeight.CRUN] * key(top, ordr) / 12.0
    val += f + v - 1.0 - w[HardWeight.LAMBDA] + w[HardWeight.MU] * key(top, ordr) / 12.0
    if v < 1.0:
        losers += 1
    return val, losers


@kernel
def _fold_segment(val, losers, n, ordr, tab, outn, jout, rp, w):  # type: ignore[no-untyped-def]
    """Fold the segment of ``n`` lone cards of ``tab.seg_r`` into runs: one, or with
    ``max_run_length`` as many of the longest allowed as fit (three cards or more each)."""
    cap = rp[RuleParam.MAX_RUN_LENGTH]
    if cap == 0 or n <= cap:
        return _fold_run(val, losers, 0, n, ordr, tab, outn, jout, rp, w)
    s0 = 0
    while n - s0 >= 3:
        length = n - s0 if n - s0 < cap else cap
        val, losers = _fold_run(val, losers, s0, length, ordr, tab, outn, jout, rp, w)
        s0 += length
    return val, losers


@kernel
def _runs_value(hand, nat, ordr, val, losers, tab, outn, jout, rp, w):  # type: ignore[no-untyped-def]
    """Fold every segment of three or more lone, beatable cards of a suit (of any suits with
    ``runs_mixed_suits``) into a run."""
    o = 1 if ordr else 0
    mixed = rp[RuleParam.RUNS_MIXED_SUITS] != 0
    for u in range(1 if mixed else 4):
        n = 0
        for r in range(NUM_RANKS + 1):
            lone = (
                r < NUM_RANKS
                and (mixed or hand[4 * r + u] > 0)
                and nat[r] == 1
                and tab.vt[o, r, 1] < 1.0
            )
            if lone:
                tab.seg_r[n] = r
                n += 1
                continue
            if n >= 3:
                val, losers = _fold_segment(val, losers, n, ordr, tab, outn, jout, rp, w)
            n = 0
    return val, losers


@kernel
def hand_value(hand, nat, jok, ordr, tab, outn, jout, rp, w):  # type: ignore[no-untyped-def]
    """Value of a hand in order ``ordr`` (module doc) and the number of its groups that can
    be beaten."""
    val, losers, nctrl = _sets_value(nat, jok, 1 if ordr else 0, tab)
    if rp[RuleParam.RUNS] != 0:
        val, losers = _runs_value(hand, nat, ordr, val, losers, tab, outn, jout, rp, w)
    cap = w[HardWeight.KCAP]
    val += w[HardWeight.KAPPA] * (nctrl if nctrl < cap else cap)
    return val, losers
