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
``run_p_mixed`` as ``run_p``). With ``lock`` (:func:`vset_locked`, :func:`vrun_locked`), in a
trick locked to the suits of the play (already locked, or locked by the play itself) only sets
and runs of those suits beat it: the cards of the rank that Hard holds are not out, and a
natural card it lacks is out with the share of the rank's cards not yet played. With
``spade_three_beats_joker`` a lone joker holds only if no opponent may answer with the 3 of
spades (:func:`vjok_seen`), for the trick at hand; the value of a joker kept in hand leaves the
3 out of account: counting it there too made the joker a loser to plan around and cost 0.04 of
a place (uecda, 10,000 duplicate deals), where counting it for the trick alone gained 0.06.
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
    return vset_locked(r, s, 0, ord_play, ge, outn, outn, jout, rp)


@kernel
def vset_locked(r, s, suits, ord_play, ge, hand, outn, jout, rp):  # type: ignore[no-untyped-def]
    """:func:`vset` in a trick locked to ``suits`` after the play (``lock``; 0: not locked,
    ``hand`` then unread): a beating set must be of those suits (:func:`p_locked`); a lone
    joker still beats a single."""
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
            if suits == 0:
                prod *= 1.0 - p_has(outn[r2] + jout, s, m)
            else:
                prod *= 1.0 - p_locked(hand, r2, suits, s, outn, jout, m)
    if jout >= s:
        prod *= 1.0 - p_has(jout, s, m)
    return prod


@kernel
def p_locked(hand, r, suits, s, outn, jout, m):  # type: ignore[no-untyped-def]
    """``lock`` (one deck, at most one joker: ``exact_plays``): chance that one of ``m``
    opponents holds a set of ``s`` cards of rank ``r`` of exactly ``suits`` (the joker's row,
    16, needs the joker; a suit whose card Hard holds needs it too). Each natural card of the
    rank that Hard lacks is still out with chance ``q = outn / (cards Hard lacks)``; all ``f``
    needed ones are out with ``q ** f``, all but one (a spare joker stands in, if one natural
    card is left beside it) with ``f * q ** (f - 1) * (1 - q)``; one opponent holds them with ``1 / m ** (s - 1)``, as in
    :func:`p_has`. A set holds at least one natural card."""
    need_j = 1 if suits & 16 else 0
    free = 0
    for u in range(4):
        if suits >> u & 1:
            if hand[4 * r + u] > 0:
                need_j += 1
            else:
                free += 1
    if need_j > jout or free == 0:
        return 0.0
    lacks = 4 - hand[4 * r] - hand[4 * r + 1] - hand[4 * r + 2] - hand[4 * r + 3]
    q = outn[r] / lacks if lacks > 0 else 0.0
    p = q ** free
    if jout - need_j >= 1 and free >= 2:
        p += free * q ** (free - 1) * (1.0 - q)
    p /= float(m) ** (s - 1)
    return 1.0 if p > 1.0 else p


@kernel
def vjok(s, ge, jout, rp):  # type: ignore[no-untyped-def]
    """Chance that a jokers-only set of ``s`` holds: only an equal one beats it (allow_equal);
    a bomb holds for sure."""
    if bomb_size(s, rp) or rp[RuleParam.ALLOW_EQUAL] == 0 or jout < s:
        return 1.0
    m = ge[s] if s < ge.shape[0] else 0
    return 1.0 - p_has(jout, s, m)


SPADE_THREE = 3
"""Card id of the 3 of spades (rank 0, suit 3)."""


@kernel
def vjok_seen(s, ge, hand, outn, jout, rp):  # type: ignore[no-untyped-def]
    """:func:`vjok`, and with ``spade_three_beats_joker`` a lone joker is beaten by the 3 of
    spades too: unless Hard holds it, it is out with the share of the 3s not yet played."""
    p = vjok(s, ge, jout, rp)
    m = ge[1] if ge.shape[0] > 1 else 0
    if s == 1 and rp[RuleParam.SPADE_THREE_BEATS_JOKER] != 0 and hand[SPADE_THREE] == 0 and m > 0:
        lacks = 4 - hand[0] - hand[1] - hand[2] - hand[3]
        if lacks > 0:
            p *= 1.0 - outn[0] / lacks
    return p


@kernel
def vrun(bottom, length, ord_play, ge, outn, jout, rp, run_p):  # type: ignore[no-untyped-def]
    """Chance that a run holds: 1.0 when no beating run can be made from the cards out; else
    ``(1 - run_p)`` per possible beating position."""
    return vrun_locked(bottom, length, -1, ord_play, ge, outn, outn, jout, rp, run_p)


@kernel
def vrun_locked(bottom, length, suit, ord_play, ge, hand, outn, jout, rp, run_p):  # type: ignore[no-untyped-def]
    """:func:`vrun` in a trick locked to ``suit`` after the play (``lock``; -1: not locked,
    ``hand`` then unread): the cards of that suit that Hard holds cannot be in a beating run
    (a joker must stand in for them)."""
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
            if outn[r] == 0 or (suit >= 0 and hand[4 * r + suit] > 0):
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
