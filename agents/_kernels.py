"""Compiled (numba) decision kernels of the rule-based agents.

Every kernel loops over the rows of a batch in compiled code and reads, per row, only the
observation vector and the legal-action mask (plus the rule options and the action tables):
no hidden card ever reaches an agent. The observation blocks are located through the offsets
of :class:`president_env.core.observe.ObservationLayout` (``O_*`` below index that vector), the rule
options through the vector built by :func:`agents.base.rule_params` (``R_*``).

Ranks are ``0`` (3) .. ``12`` (2) in the usual order; the order in effect is compared through a
key, ``rank`` or ``12 - rank`` during a revolution.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# ---------------------------------------------------------------- observation blocks
# the agents pass the start of each of these blocks (by name, from ObservationLayout.slices)
OBS_BLOCKS = (
    "hand",
    "played",
    "pile_kind",
    "pile_size",
    "pile_rank",
    "revolution",
    "leading",
    "phase",
    "to_act",
    "cards_left",
    "passed",
    "last_player",
    "current",
)
O_HAND = 0
O_PLAYED = 1
O_PKIND = 2
O_PSIZE = 3
O_PRANK = 4
O_REV = 5
O_LEAD = 6
O_PHASE = 7
O_TOACT = 8
O_LEFT = 9
O_PASSED = 10
O_LAST = 11
O_CUR = 12

# ---------------------------------------------------------------- rule options
R_P = 0
R_DECKS = 1
R_JOKERS = 2
R_EQUAL = 3
R_FINAL = 4
R_TOP = 5
R_EIGHT = 6
R_REVO = 7
R_RUNS = 8
R_SMAX = 9
R_SIZE = 10

# ---------------------------------------------------------------- kinds, cards
K_PASS = 0
K_SET = 1
K_JOKERS = 2
K_RUN = 3
K_GIVE = 4
JOKER = 52
TOP = 12
EIGHT = 5
PHASE_EXCHANGE = 0

# ---------------------------------------------------------------- Hard's weights
# (indices into the weight vector; names, defaults and meaning: agents.rule_based.HARD_WEIGHTS)
H_C1 = 0
H_C2 = 1
H_C3 = 2
H_C4 = 3
H_CRUN = 4
H_ALPHA = 5
H_MU = 6
H_DANGER = 7
H_DANGER_PASS = 8
H_CHAIN = 9
H_RUN_P = 10
H_LAMBDA = 11
H_KAPPA = 12
H_BREAK = 13
H_KCAP = 14
H_RACE = 15
H_SIZE = 16


# ================================================================ reading one observation
@njit(cache=True, nogil=True)
def _read(o, off, rp, hand, nat, outn, left, passed):  # type: ignore[no-untyped-def]
    """Fill the hand (53 counts), naturals per rank, naturals of each rank still out (in the
    opponents' hands), cards left and passed flags per relative seat; return the pile and
    flags: (pile kind, pile size, pile rank, revolution, phase, last player (relative seat,
    -1 if none), jokers out)."""
    n_players = rp[R_P]
    for c in range(53):
        hand[c] = np.int64(o[off[O_HAND] + c] + 0.5)
    for r in range(13):
        nat[r] = hand[4 * r] + hand[4 * r + 1] + hand[4 * r + 2] + hand[4 * r + 3]
        n = 4 * rp[R_DECKS] - nat[r] - np.int64(o[off[O_PLAYED] + r] + 0.5)
        outn[r] = n if n > 0 else 0
    jout = rp[R_JOKERS] - hand[JOKER] - np.int64(o[off[O_PLAYED] + 13] + 0.5)
    if jout < 0:
        jout = 0
    pk = 0
    for i in range(4):
        if o[off[O_PKIND] + i] > 0.5:
            pk = i
    ps = np.int64(o[off[O_PSIZE]] + 0.5)
    pr = -1
    for r in range(13):
        if o[off[O_PRANK] + r] > 0.5:
            pr = r
    rev = o[off[O_REV]] > 0.5
    phase = 0
    for i in range(3):
        if o[off[O_PHASE] + i] > 0.5:
            phase = i
    last = -1
    for k in range(n_players):
        left[k] = np.int64(o[off[O_LEFT] + k] + 0.5)
        passed[k] = o[off[O_PASSED] + k] > 0.5
        if o[off[O_LAST] + k] > 0.5:
            last = k
    return pk, ps, pr, rev, phase, last, jout


@njit(cache=True, nogil=True)
def _removed(a, hand, a_kind, a_rank, a_size, a_suit, a_card, out):  # type: ignore[no-untyped-def]
    """The cards (53 counts) that action ``a`` takes from ``hand``: the engine's choice
    (``ActionLayout.cards_for``): naturals lowest suit first, jokers for the missing ones."""
    out[:] = 0
    k = a_kind[a]
    if k == K_SET:
        r = a_rank[a]
        need = a_size[a]
        for u in range(4):
            t = hand[4 * r + u]
            if t > need:
                t = need
            out[4 * r + u] = t
            need -= t
        out[JOKER] = need
    elif k == K_JOKERS:
        out[JOKER] = a_size[a]
    elif k == K_RUN:
        b = a_rank[a]
        u = a_suit[a]
        miss = 0
        for r in range(b, b + a_size[a]):
            if hand[4 * r + u] > 0:
                out[4 * r + u] = 1
            else:
                miss += 1
        out[JOKER] = miss
    elif k == K_GIVE:
        out[a_card[a]] = 1


@njit(cache=True, nogil=True, inline="always")
def _key(r, rev):  # type: ignore[no-untyped-def]
    return 12 - r if rev else r


@njit(cache=True, nogil=True, inline="always")
def _jokers_used(a, nat, hand, a_kind, a_rank, a_size, a_suit):  # type: ignore[no-untyped-def]
    k = a_kind[a]
    if k == K_SET:
        j = a_size[a] - nat[a_rank[a]]
        return j if j > 0 else 0
    if k == K_JOKERS:
        return a_size[a]
    if k == K_RUN:
        miss = 0
        for r in range(a_rank[a], a_rank[a] + a_size[a]):
            if hand[4 * r + a_suit[a]] == 0:
                miss += 1
        return miss
    return 0


@njit(cache=True, nogil=True, inline="always")
def _strength(a, rev, a_kind, a_rank, a_size):  # type: ignore[no-untyped-def]
    """Key of a play in the order in effect (higher is stronger; jokers-only sets are 13)."""
    k = a_kind[a]
    if k == K_SET:
        return _key(a_rank[a], rev)
    if k == K_JOKERS:
        return 13
    if k == K_RUN:
        if rev:
            return 12 - a_rank[a]
        return a_rank[a] + a_size[a] - 1
    return -1


# ================================================================ Easy
@njit(cache=True, nogil=True)
def easy_kernel(obs, mask, off, rp, a_kind, a_rank, a_size, a_suit, a_card, out):  # type: ignore[no-untyped-def]
    """The lowest legal play in the order in effect; fewer jokers, then more cards, break ties;
    pass only when nothing else is legal. In the exchange, the lowest card (usual order)."""
    n_players = rp[R_P]
    hand = np.zeros(53, np.int64)
    nat = np.zeros(13, np.int64)
    outn = np.zeros(13, np.int64)
    left = np.zeros(n_players, np.int64)
    passed = np.zeros(n_players, np.bool_)
    for b in range(obs.shape[0]):
        pk, ps, pr, rev, phase, last, jout = _read(obs[b], off, rp, hand, nat, outn, left, passed)
        best = -1
        best_score = np.int64(1) << 60
        for a in range(mask.shape[1]):
            if not mask[b, a]:
                continue
            k = a_kind[a]
            if k == K_GIVE:
                score = np.int64(a_card[a])
            elif k == K_PASS:
                score = np.int64(1) << 50
            else:
                st = _strength(a, rev, a_kind, a_rank, a_size)
                j = _jokers_used(a, nat, hand, a_kind, a_rank, a_size, a_suit)
                score = np.int64(st) * 10000 + j * 100 + (99 - a_size[a])
            if score < best_score:
                best_score = score
                best = a
        out[b] = best


# ================================================================ Normal
@njit(cache=True, nogil=True, inline="always")
def _is_control(r, nat, rev):  # type: ignore[no-untyped-def]
    """Cards Normal keeps to regain the lead: the top rank (2s, 3s in a revolution) and fours
    of a kind (jokers are kept apart)."""
    return r == (0 if rev else TOP) or nat[r] >= 4


@njit(cache=True, nogil=True)
def normal_kernel(obs, mask, off, rp, a_kind, a_rank, a_size, a_suit, a_card, out):  # type: ignore[no-untyped-def]
    """Normal: keeps control cards, does not break sets without need, leads low sets.

    * Exchange: returns the lowest single (a rank held once, not a 2), else the lowest card.
    * Any play that empties the hand is taken.
    * Leading: the lowest non-control rank as a whole set (all its natural cards, no jokers),
      or a run of lone cards that starts at least as low; with an opponent down to one card,
      a set of two or more first. Controls (the top rank, fours of a kind) and then jokers
      are led only when nothing else is left.
    * Following: the lowest non-control rank held exactly in the size asked (no break, no
      joker); else, only when needed (an opponent down to two cards, four cards or fewer in
      hand, or at most one non-control set left): a broken set, then controls and jokers.
      Otherwise pass.
    """
    n_players = rp[R_P]
    hand = np.zeros(53, np.int64)
    nat = np.zeros(13, np.int64)
    outn = np.zeros(13, np.int64)
    left = np.zeros(n_players, np.int64)
    passed = np.zeros(n_players, np.bool_)
    for b in range(obs.shape[0]):
        pk, ps, pr, rev, phase, last, jout = _read(obs[b], off, rp, hand, nat, outn, left, passed)
        row = mask[b]
        total = 0
        for c in range(53):
            total += hand[c]
        choice = -1
        if phase == PHASE_EXCHANGE:
            best_c = 99
            for a in range(row.shape[0]):
                if row[a] and a_kind[a] == K_GIVE:
                    c = a_card[a]
                    if c != JOKER and c // 4 != TOP and nat[c // 4] == 1 and c < best_c:
                        best_c = c
                        choice = a
            if choice < 0:
                for a in range(row.shape[0]):
                    if row[a]:
                        choice = a
                        break
            out[b] = choice
            continue
        # go out at once when possible
        for a in range(row.shape[0]):
            if row[a] and a_kind[a] != K_PASS and a_size[a] == total:
                choice = a
                break
        if choice >= 0:
            out[b] = choice
            continue
        min_opp = 99
        for k in range(1, n_players):
            if left[k] > 0 and left[k] < min_opp:
                min_opp = left[k]
        n_groups = 0
        for r in range(13):
            if nat[r] > 0 and not _is_control(r, nat, rev):
                n_groups += 1
        need = min_opp <= 2 or total <= 4 or n_groups <= 1
        leading = pk == 0
        if leading:
            # lowest non-control rank
            low_r = -1
            for kk in range(13):
                r = 12 - kk if rev else kk
                if nat[r] > 0 and not _is_control(r, nat, rev):
                    if low_r < 0:
                        low_r = r
                    if min_opp == 1 and nat[r] >= 2:
                        low_r = r
                        break
            if min_opp == 1 and low_r >= 0 and nat[low_r] == 1:
                # no set of two or more: lead the first non-control rank anyway (lowest)
                for kk in range(13):
                    r = 12 - kk if rev else kk
                    if nat[r] > 0 and not _is_control(r, nat, rev):
                        low_r = r
                        break
            # a run of lone cards starting at least as low
            best_run = -1
            best_len = 0
            if rp[R_RUNS] != 0:
                for a in range(row.shape[0]):
                    if not row[a] or a_kind[a] != K_RUN:
                        continue
                    ok = True
                    for r in range(a_rank[a], a_rank[a] + a_size[a]):
                        if hand[4 * r + a_suit[a]] == 0 or nat[r] != 1 or _is_control(r, nat, rev):
                            ok = False
                            break
                    if not ok:
                        continue
                    lo = _key(a_rank[a], rev)
                    hi = _key(a_rank[a] + a_size[a] - 1, rev)
                    if hi < lo:
                        lo = hi
                    if low_r >= 0 and lo > _key(low_r, rev):
                        continue
                    if a_size[a] > best_len:
                        best_len = a_size[a]
                        best_run = a
            if best_run >= 0:
                choice = best_run
            elif low_r >= 0:
                choice = 1 + low_r * rp[R_SMAX] + nat[low_r] - 1
            else:
                # only controls (and jokers) left: the lowest control as a whole set
                for kk in range(13):
                    r = 12 - kk if rev else kk
                    if nat[r] > 0:
                        choice = 1 + r * rp[R_SMAX] + nat[r] - 1
                        break
            if choice < 0 or not row[choice]:
                # jokers only, or an unexpected mask: the lowest legal play
                choice = -1
                best_score = np.int64(1) << 60
                for a in range(row.shape[0]):
                    if row[a] and a_kind[a] != K_PASS:
                        s = np.int64(_strength(a, rev, a_kind, a_rank, a_size)) * 100 + 99 - a_size[a]
                        if s < best_score:
                            best_score = s
                            choice = a
            out[b] = choice
            continue
        # following
        best_score = np.int64(1) << 60
        for tier in range(3):
            if tier >= 1 and not need:
                break
            for a in range(row.shape[0]):
                if not row[a] or a_kind[a] == K_PASS:
                    continue
                k = a_kind[a]
                j = _jokers_used(a, nat, hand, a_kind, a_rank, a_size, a_suit)
                ok = False
                if k == K_SET:
                    r = a_rank[a]
                    ctrl = _is_control(r, nat, rev)
                    if tier == 0:
                        ok = j == 0 and not ctrl and nat[r] == a_size[a]
                    elif tier == 1:
                        ok = j == 0 and not ctrl
                    else:
                        ok = True
                elif k == K_RUN:
                    lone = True
                    for r in range(a_rank[a], a_rank[a] + a_size[a]):
                        c = 4 * r + a_suit[a]
                        if hand[c] > 0 and (nat[r] != 1 or _is_control(r, nat, rev)):
                            lone = False
                    if tier == 0:
                        ok = j == 0 and lone
                    elif tier == 1:
                        ok = j == 0
                    else:
                        ok = True
                else:
                    ok = tier == 2
                if not ok:
                    continue
                s = np.int64(_strength(a, rev, a_kind, a_rank, a_size)) * 100 + j * 10
                if s < best_score:
                    best_score = s
                    choice = a
            if choice >= 0:
                break
        if choice < 0:
            choice = 0  # pass (always legal when following)
        out[b] = choice


# ================================================================ Hard
@njit(cache=True, nogil=True, inline="always")
def _p_has(n, s, m):  # type: ignore[no-untyped-def]
    """Chance that one of ``m`` opponents holds ``s`` of the ``n`` cards out (a rough model:
    certain for a single, ``(n - s + 1) / m ** (s - 1)`` capped at 1 for sets)."""
    if m <= 0 or n < s:
        return 0.0
    if s <= 1:
        return 1.0
    p = (n - s + 1) / float(m) ** (s - 1)
    return 1.0 if p > 1.0 else p


@njit(cache=True, nogil=True, inline="always")
def _clears(r, ordr, rp):  # type: ignore[no-untyped-def]
    """A set of rank ``r`` played in order ``ordr`` clears the pile."""
    return (rp[R_TOP] != 0 and r == (0 if ordr else TOP)) or (rp[R_EIGHT] != 0 and r == EIGHT)


@njit(cache=True, nogil=True)
def _vset(r, s, ord_play, ge, outn, jout, rp):  # type: ignore[no-untyped-def]
    """Chance that a set of ``s`` cards of rank ``r``, played in order ``ord_play``, holds the
    trick: 1.0 exactly when no set that beats it can exist in the opponents' hands."""
    if rp[R_TOP] != 0 and r == (0 if ord_play else TOP):
        return 1.0
    if rp[R_EIGHT] != 0 and r == EIGHT:
        return 1.0
    ord_after = ord_play
    if rp[R_REVO] != 0 and s >= 4:
        ord_after = not ord_play
    m = ge[s] if s < ge.shape[0] else 0
    if m == 0:
        return 1.0
    k = _key(r, ord_after)
    equal = rp[R_EQUAL] != 0
    prod = 1.0
    for r2 in range(13):
        if outn[r2] == 0:
            continue
        k2 = _key(r2, ord_after)
        if k2 > k or (equal and k2 == k):
            prod *= 1.0 - _p_has(outn[r2] + jout, s, m)
    if jout >= s:
        prod *= 1.0 - _p_has(jout, s, m)
    return prod


@njit(cache=True, nogil=True)
def _vjok(s, ge, jout, rp):  # type: ignore[no-untyped-def]
    """Chance that a jokers-only set of ``s`` holds: only an equal one beats it (allow_equal)."""
    if rp[R_EQUAL] == 0 or jout < s:
        return 1.0
    m = ge[s] if s < ge.shape[0] else 0
    return 1.0 - _p_has(jout, s, m)


@njit(cache=True, nogil=True)
def _vrun(bottom, length, ord_play, ge, outn, jout, rp, run_p):  # type: ignore[no-untyped-def]
    """Chance that a run holds: 1.0 when no beating run can be made from the cards out (suits
    of played cards are not public, so every rank out counts); else ``(1 - run_p)`` per
    possible beating position."""
    if rp[R_EIGHT] != 0 and bottom <= EIGHT < bottom + length:
        return 1.0
    m = ge[length] if length < ge.shape[0] else 0
    if m == 0:
        return 1.0
    equal = rp[R_EQUAL] != 0
    prod = 1.0
    for b2 in range(13 - length + 1):
        if ord_play:
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


@njit(cache=True, nogil=True)
def _follow_share(r, ordr, outn, jout, rp):  # type: ignore[no-untyped-def]
    """Share of the cards out that rank below ``r`` in order ``ordr`` (equal too with
    allow_equal): how often a set of rank ``r`` can follow an opponent's lead (1 for a rank
    that clears). Times a factor per set size, the chance the set gets shed by following."""
    if _clears(r, ordr, rp):
        return 1.0
    k = _key(r, ordr)
    below = 0.0
    tot = 0.0 + jout
    for r2 in range(13):
        tot += outn[r2]
        k2 = _key(r2, ordr)
        if k2 < k or (k2 == k and rp[R_EQUAL] != 0):
            below += outn[r2]
    if tot <= 0.0:
        return 1.0
    return below / tot


@njit(cache=True, nogil=True)
def _hand_value(hand, nat, jok, ordr, gt, vt, ct, jt, ge, outn, jout, rp, w, seg_r):  # type: ignore[no-untyped-def]
    """Value of a hand in order ``ordr``, in leads saved: the sum over its groups (one set per
    rank, each joker a single, runs of lone cards when runs are on) of ``f + v - 1``, where
    ``f`` is the chance the group gets shed by following (it needs no lead of its own) and ``v``
    the chance it holds the trick when played (it gives a lead back); see ``gt``; plus a premium
    ``kappa`` for each sure card kept (``ct``), counted up to ``kcap`` of them. Returns
    (value, number of groups that can be beaten)."""
    o = 1 if ordr else 0
    val = 0.0
    losers = 0
    nctrl = 0
    for r in range(13):
        s = nat[r]
        if s > 0:
            val += gt[o, r, s]
            nctrl += ct[o, r, s]
            if vt[o, r, s] < 1.0:
                losers += 1
    if jok > 0:
        val += jok * jt[0]
        if jt[1] < 1.0:
            losers += jok
        else:
            nctrl += jok
    if rp[R_RUNS] != 0:
        for u in range(4):
            n = 0
            for r in range(14):
                lone = r < 13 and hand[4 * r + u] > 0 and nat[r] == 1 and vt[o, r, 1] < 1.0
                if lone:
                    seg_r[n] = r
                    n += 1
                    continue
                if n >= 3:
                    lo = seg_r[0]
                    # fold the lone cards into one run
                    for i in range(n):
                        val -= gt[o, seg_r[i], 1]
                    losers -= n
                    v = _vrun(lo, n, ordr, ge, outn, jout, rp, w[H_RUN_P])
                    top = lo if ordr else lo + n - 1
                    f = w[H_CRUN] * _key(top, ordr) / 12.0
                    val += f + v - 1.0 - w[H_LAMBDA] + w[H_MU] * _key(top, ordr) / 12.0
                    if v < 1.0:
                        losers += 1
                n = 0
    cap = w[H_KCAP]
    val += w[H_KAPPA] * (nctrl if nctrl < cap else cap)
    return val, losers


@njit(cache=True, nogil=True)
def hard_kernel(obs, mask, off, rp, a_kind, a_rank, a_size, a_suit, a_card, w, out, scores):  # type: ignore[no-untyped-def]
    """Hard: card counting and a one-step look-ahead over a value of the hand that is left.

    Counting: the natural cards of each rank still out (in the opponents' hands) are the pack
    less the public ``played`` memory less the own hand; likewise the jokers. For every legal
    action: the cards it takes (as the engine takes them), the order after it (a set of four
    or more reverses it when revolution is on), the chance ``p`` that it holds the trick
    (``_vset``: 1.0 exactly when no beating set can exist among the opponents still in the
    trick who hold enough cards), and the value of the hand that remains (``_hand_value``).

    Score = hand value, + ``alpha * p`` when following (taking the lead from an opponent),
    + ``chain`` when the play surely holds and at most one group that can be beaten is left
    (the hand then goes out by chaining sure plays, the beatable group last), - ``danger``
    terms when Hard is close to going out (``race`` groups or fewer) and an opponent down to
    one or two cards could win the trick (playing) or already holds it (passing); - ``break``
    for playing part of a rank. Going out always wins. In the exchange: the card whose loss
    costs the hand least. ``scores [B, A]`` (or ``[0, A]`` to skip) receives every legal
    action's score.
    """
    n_players = rp[R_P]
    smax = rp[R_SMAX]
    hand = np.zeros(53, np.int64)
    nat = np.zeros(13, np.int64)
    outn = np.zeros(13, np.int64)
    left = np.zeros(n_players, np.int64)
    passed = np.zeros(n_players, np.bool_)
    rem = np.zeros(53, np.int64)
    h2 = np.zeros(53, np.int64)
    nat2 = np.zeros(13, np.int64)
    ge = np.zeros(smax + 2, np.int64)
    ge_t = np.zeros(smax + 2, np.int64)
    max_nat = 4 * rp[R_DECKS]
    vt = np.zeros((2, 13, max_nat + 1))
    gt = np.zeros((2, 13, max_nat + 1))
    ct = np.zeros((2, 13, max_nat + 1), np.int64)
    jt = np.zeros(2)
    seg_r = np.zeros(14, np.int64)
    final = rp[R_FINAL] != 0
    for b in range(obs.shape[0]):
        pk, ps, pr, rev, phase, last, jout = _read(obs[b], off, rp, hand, nat, outn, left, passed)
        row = mask[b]
        total = 0
        for c in range(53):
            total += hand[c]
        # opponents able to answer a set of s cards: all active ones (for the hand value) and
        # those still in this trick (for the play now)
        ge[:] = 0
        ge_t[:] = 0
        for k in range(1, n_players):
            if left[k] <= 0:
                continue
            in_trick = not (final and passed[k])
            for s in range(1, smax + 2):
                if left[k] >= s:
                    ge[s] += 1
                    if in_trick:
                        ge_t[s] += 1
        for o in range(2):
            if rp[R_REVO] == 0 and (o == 1) != rev:
                continue  # this order cannot happen in this deal
            for r in range(13):
                share = _follow_share(r, o == 1, outn, jout, rp)
                for s in range(1, max_nat + 1):
                    v = _vset(r, s, o == 1, ge, outn, jout, rp)
                    f = w[H_C1 + (s if s <= 4 else 4) - 1] * share
                    vt[o, r, s] = v
                    if _clears(r, o == 1, rp):
                        # every card of a clearing rank is a control of its own
                        gt[o, r, s] = s * (w[H_C1] - w[H_LAMBDA] + w[H_MU] * _key(r, o == 1) / 12.0)
                        ct[o, r, s] = s
                    else:
                        gt[o, r, s] = f + v - 1.0 - w[H_LAMBDA] + w[H_MU] * _key(r, o == 1) / 12.0
                        ct[o, r, s] = 1 if v >= 1.0 else 0
        jt[1] = _vjok(1, ge, jout, rp)
        jt[0] = w[H_C1] + jt[1] - 1.0 - w[H_LAMBDA] + w[H_MU] * 13.0 / 12.0
        if phase == PHASE_EXCHANGE:
            best = -1
            best_score = -1e18
            for a in range(row.shape[0]):
                if not row[a]:
                    continue
                h2[:] = hand
                c = a_card[a]
                h2[c] -= 1
                for r in range(13):
                    nat2[r] = h2[4 * r] + h2[4 * r + 1] + h2[4 * r + 2] + h2[4 * r + 3]
                val, losers = _hand_value(
                    h2, nat2, h2[JOKER], False, gt, vt, ct, jt, ge, outn, jout, rp, w, seg_r
                )
                score = val - 1e-4 * c
                if score > best_score:
                    best_score = score
                    best = a
            out[b] = best
            continue
        # opponents about to go out matter when Hard is close to going out itself
        my_groups = hand[JOKER]
        for r in range(13):
            if nat[r] > 0:
                my_groups += 1
        racing = my_groups <= w[H_RACE]
        # an opponent down to one or two cards who holds the trick now
        danger_last = racing and last >= 1 and 0 < left[last] <= 2
        best = -1
        best_score = -1e18
        for a in range(row.shape[0]):
            if not row[a]:
                continue
            k = a_kind[a]
            if k == K_PASS:
                val, losers = _hand_value(
                    hand, nat, hand[JOKER], rev, gt, vt, ct, jt, ge, outn, jout, rp, w, seg_r
                )
                score = val
                if danger_last:
                    score -= w[H_DANGER_PASS]
            else:
                size = a_size[a]
                if size == total:
                    best = a
                    break
                _removed(a, hand, a_kind, a_rank, a_size, a_suit, a_card, rem)
                for c in range(53):
                    h2[c] = hand[c] - rem[c]
                for r in range(13):
                    nat2[r] = h2[4 * r] + h2[4 * r + 1] + h2[4 * r + 2] + h2[4 * r + 3]
                rev2 = rev
                if rp[R_REVO] != 0 and k != K_RUN and size >= 4:
                    rev2 = not rev
                if k == K_SET:
                    p = _vset(a_rank[a], size, rev, ge_t, outn, jout, rp)
                elif k == K_JOKERS:
                    p = _vjok(size, ge_t, jout, rp)
                else:
                    p = _vrun(a_rank[a], size, rev, ge_t, outn, jout, rp, w[H_RUN_P])
                val, losers = _hand_value(
                    h2, nat2, h2[JOKER], rev2, gt, vt, ct, jt, ge, outn, jout, rp, w, seg_r
                )
                score = val
                if pk != 0:
                    score += w[H_ALPHA] * p  # taking the lead from an opponent
                if k == K_SET and nat[a_rank[a]] > size and not _clears(a_rank[a], rev, rp):
                    score -= w[H_BREAK]
                if p >= 1.0 and losers <= 1:
                    score += w[H_CHAIN]
                for kk in range(1, n_players):
                    if not racing:
                        break
                    if 0 < left[kk] <= 2 and size <= left[kk] and not (final and passed[kk]):
                        f = 1.0 if size == left[kk] else 0.5
                        score -= w[H_DANGER] * (1.0 - p) * f
                score -= 1e-6 * _strength(a, rev, a_kind, a_rank, a_size)
            if scores.shape[0] > 0:
                scores[b, a] = score
            if score > best_score:
                best_score = score
                best = a
        out[b] = best
