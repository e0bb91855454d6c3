"""Hard's chances, from the cards still out: that a play holds the trick, that a group can be
shed by following an opponent.

``ge[s]`` (int64) is the number of opponents who could answer a play of ``s`` cards (they hold
at least ``s`` cards); ``outn`` the natural cards out per rank, ``jout`` the jokers out. The
suits of played cards are not public, so every rank out counts for runs.

Variants: with ``bombs`` a bomb holds for sure (it clears the pile at once). An opponent's
bomb is not counted against a play: they are rare, and counting them (as for a beating set)
left Hard no sure play to chain out with and lost places (a duplicate test in daifugo_full:
2.517 against 2.488 mean place for a Hard blind to bombs). With
``revolution_timing="next_trick"`` a set of four does not reverse the order of the trick it is
played in; with ``runs_mixed_suits`` a beating run is likelier (the caller passes the weight
``run_p_mixed`` as ``run_p``).
"""

from __future__ import annotations

from agents.kernels._cache import kernel
from agents.kernels.plays import key
from president_env.core.constants import EIGHT, NUM_RANKS, TOP
from president_env.core.rules import RuleParam


@kernel(inline="always")
def p_has(n, s, m):  # type: ignore[no-untyped-def]
    """Chance that one of ``m`` opponents holds ``s`` of the ``n`` cards out (a rough model:
    certain for a single, ``(n - s + 1) / m ** (s - 1)`` capped at 1 for sets)."""
    if m <= 0 or n < s:
        return 0.0
    if s <= 1:
        return 1.0
    p = (n - s + 1) / float(m) ** (s - 1)
    return 1.0 if p > 1.0 else p


@kernel(inline="always")
def clears(r, ordr, rp):  # type: ignore[no-untyped-def]
    """A set of rank ``r`` played in order ``ordr`` clears the pile."""
    return (rp[RuleParam.TOP_RANK_CLEARS] != 0 and r == (0 if ordr else TOP)) or (
        rp[RuleParam.EIGHT_CLEARS] != 0 and r == EIGHT
    )


@kernel(inline="always")
def bomb_size(s, rp):  # type: ignore[no-untyped-def]
    """A set (or jokers-only set) of ``s`` cards is a bomb."""
    return rp[RuleParam.BOMBS] != 0 and s >= rp[RuleParam.BOMBS]


@kernel
def vset(r, s, ord_play, ge, outn, jout, rp):  # type: ignore[no-untyped-def]
    """Chance that a set of ``s`` cards of rank ``r``, played in order ``ord_play``, holds the
    trick: 1.0 exactly when no set that beats it can exist in the opponents' hands."""
    if rp[RuleParam.TOP_RANK_CLEARS] != 0 and r == (0 if ord_play else TOP):
        return 1.0
    if rp[RuleParam.EIGHT_CLEARS] != 0 and r == EIGHT:
        return 1.0
    if bomb_size(s, rp):
        return 1.0
    ord_after = ord_play
    if rp[RuleParam.REVOLUTION] != 0 and s >= 4 and rp[RuleParam.REVOLUTION_NEXT_TRICK] == 0:
        ord_after = not ord_play
    m = ge[s] if s < ge.shape[0] else 0
    if m == 0:
        return 1.0
    k = key(r, ord_after)
    equal = rp[RuleParam.ALLOW_EQUAL] != 0
    prod = 1.0
    for r2 in range(NUM_RANKS):
        if outn[r2] == 0:
            continue
        k2 = key(r2, ord_after)
        if k2 > k or (equal and k2 == k):
            prod *= 1.0 - p_has(outn[r2] + jout, s, m)
    if jout >= s:
        prod *= 1.0 - p_has(jout, s, m)
    return prod


@kernel
def vjok(s, ge, jout, rp):  # type: ignore[no-untyped-def]
    """Chance that a jokers-only set of ``s`` holds: only an equal one beats it (allow_equal);
    a bomb holds for sure."""
    if bomb_size(s, rp) or rp[RuleParam.ALLOW_EQUAL] == 0 or jout < s:
        return 1.0
    m = ge[s] if s < ge.shape[0] else 0
    return 1.0 - p_has(jout, s, m)


@kernel
def vrun(bottom, length, ord_play, ge, outn, jout, rp, run_p):  # type: ignore[no-untyped-def]
    """Chance that a run holds: 1.0 when no beating run can be made from the cards out; else
    ``(1 - run_p)`` per possible beating position."""
    if rp[RuleParam.EIGHT_CLEARS] != 0 and bottom <= EIGHT < bottom + length:
        return 1.0
    m = ge[length] if length < ge.shape[0] else 0
    if m == 0:
        return 1.0
    long_run = rp[RuleParam.RUN_REVOLUTION]
    if (rp[RuleParam.REVOLUTION] != 0 and long_run > 0 and length >= long_run
            and rp[RuleParam.REVOLUTION_NEXT_TRICK] == 0):
        ord_play = not ord_play  # it revolts at once: a beating run is in the new order
    equal = rp[RuleParam.ALLOW_EQUAL] != 0
    disjoint = rp[RuleParam.RUNS_DISJOINT] != 0
    prod = 1.0
    for b2 in range(NUM_RANKS - length + 1):
        if disjoint:  # only a run with no rank in common beats it (runs_disjoint)
            ok = b2 + length <= bottom if ord_play else b2 >= bottom + length
        elif ord_play:
            ok = b2 < bottom or (equal and b2 == bottom)
        else:
            ok = b2 > bottom or (equal and b2 == bottom)
        if not ok:
            continue
        miss = 0
        for r in range(b2, b2 + length):
            if outn[r] == 0:
                miss += 1
        if miss <= jout and miss < length:
            prod *= 1.0 - run_p
    return prod


@kernel
def follow_share(r, ordr, outn, jout, rp):  # type: ignore[no-untyped-def]
    """Share of the cards out that rank below ``r`` in order ``ordr`` (equal too with
    allow_equal): how often a set of rank ``r`` can follow an opponent's lead (1 for a rank
    that clears). Times a factor per set size, the chance the set gets shed by following."""
    if clears(r, ordr, rp):
        return 1.0
    k = key(r, ordr)
    below = 0.0
    tot = 0.0 + jout
    for r2 in range(NUM_RANKS):
        tot += outn[r2]
        k2 = key(r2, ordr)
        if k2 < k or (k2 == k and rp[RuleParam.ALLOW_EQUAL] != 0):
            below += outn[r2]
    if tot <= 0.0:
        return 1.0
    return below / tot
