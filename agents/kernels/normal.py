"""Normal: keeps control cards, does not break sets without need, leads low sets.

* Exchange: returns the lowest single (a rank held once, not a 2), else the lowest card; with
  ``president_asks`` names the best card it lacks (:func:`~agents.kernels.asks.normal_ask`).
* Any play that empties the hand is taken.
* Leading: the lowest non-control rank as a whole set (all its natural cards, no jokers), or a
  run of lone cards that starts at least as low; with an opponent down to one card, a set of
  two or more first. Controls (the top rank, fours of a kind) and then jokers are led only
  when nothing else is left.
* Following: the lowest non-control rank held exactly in the size asked (no break, no joker);
  else, only when needed (an opponent down to two cards, four cards or fewer in hand, or at
  most one non-control set left): a broken set, then controls and jokers. Otherwise pass.
  With ``bombs`` a bomb is a control (four of a kind, or it takes jokers): spent only in need.
* With ``jack_back`` Normal keeps to the order after the trick (the revolution's), not the
  order in force: after a J it sheds its lowest cards, which then hold best. Judged in the
  order in force it lost 0.035-0.043 of a place (uecda with jack_back, 5,000 duplicate deals).
"""

from __future__ import annotations

import numpy as np

from agents.kernels._cache import kernel
from agents.kernels.asks import asking, normal_ask
from agents.kernels.observation import new_seen, read
from agents.kernels.plays import hand_total, jokers_used, key, run_holds, strength
from president_env.core.constants import (
    EXACT_SLOTS_JOKER,
    EXACT_SLOTS_PLAIN,
    JOKER,
    NUM_RANKS,
    PHASE_EXCHANGE,
    TOP,
    Kind,
)
from president_env.core.rules import RuleParam

_NEVER = np.int64(1) << 60


@kernel(inline="always")
def _is_control(r, nat, rev):  # type: ignore[no-untyped-def]
    """Cards Normal keeps to regain the lead: the top rank (2s, 3s in a revolution) and fours
    of a kind (jokers are kept apart)."""
    return r == (0 if rev else TOP) or nat[r] >= 4


@kernel(inline="always")
def _set_action(r, size, rp, hand):  # type: ignore[no-untyped-def]
    """Id of the set of ``size`` cards of rank ``r`` (the layout's set block); with
    ``exact_plays`` of every natural card of ``r`` in ``hand`` (``size`` is their number)."""
    if rp[RuleParam.EXACT_PLAYS] == 0:
        return 1 + r * rp[RuleParam.MAX_SET] + size - 1
    suits = 0
    for u in range(4):
        if hand[4 * r + u] > 0:
            suits |= 1 << u
    stride = EXACT_SLOTS_JOKER if rp[RuleParam.JOKERS] > 0 else EXACT_SLOTS_PLAIN
    return 1 + r * stride + suits - 1  # the first 15 slots: the suits alone, by mask


@kernel(inline="always")
def _exchange_return(row, nat, acts):  # type: ignore[no-untyped-def]
    """The lowest single card (a rank held once, not the top rank, not a joker) to return,
    else the first legal gift."""
    choice = -1
    best_c = 99
    for a in range(row.shape[0]):
        if row[a] and acts.kind[a] == Kind.GIVE:
            c = acts.card[a]
            if c != JOKER and c // 4 != TOP and nat[c // 4] == 1 and c < best_c:
                best_c = c
                choice = a
    if choice < 0:
        for a in range(row.shape[0]):
            if row[a]:
                return a
    return choice


@kernel(inline="always")
def _going_out(row, total, acts):  # type: ignore[no-untyped-def]
    """The first legal play that empties the hand, -1 if none."""
    for a in range(row.shape[0]):
        if row[a] and acts.kind[a] != Kind.PASS and acts.size[a] == total:
            return a
    return -1


@kernel(inline="always")
def _in_need(seen, total, rev, n_players):  # type: ignore[no-untyped-def]
    """Whether to break sets or spend controls when following; also the fewest cards an
    opponent still in the deal holds (99 if none)."""
    min_opp = 99
    for k in range(1, n_players):
        if seen.left[k] > 0 and seen.left[k] < min_opp:
            min_opp = seen.left[k]
    n_groups = 0
    for r in range(NUM_RANKS):
        if seen.nat[r] > 0 and not _is_control(r, seen.nat, rev):
            n_groups += 1
    return min_opp <= 2 or total <= 4 or n_groups <= 1, min_opp


@kernel(inline="always")
def _lead_rank(nat, rev, min_opp):  # type: ignore[no-untyped-def]
    """The lowest non-control rank held (-1 if none); with an opponent down to one card, the
    lowest such rank held two or more times if there is one."""
    low_r = -1
    for kk in range(NUM_RANKS):
        r = TOP - kk if rev else kk
        if nat[r] > 0 and not _is_control(r, nat, rev):
            if low_r < 0:
                low_r = r
            if min_opp == 1 and nat[r] >= 2:
                return r
    return low_r


@kernel(inline="always")
def _lone_run(r0, n, u, hand, nat, rev):  # type: ignore[no-untyped-def]
    """A run (bottom, size, suit) made only of held lone non-control cards."""
    for r in range(r0, r0 + n):
        if not run_holds(hand, r, u) or nat[r] != 1 or _is_control(r, nat, rev):
            return False
    return True


@kernel(inline="always")
def _lead_run(row, seen, rev, low_r, acts):  # type: ignore[no-untyped-def]
    """The longest legal run of lone non-control cards, all held, that starts no higher than
    rank ``low_r`` (in the order in effect); -1 if none."""
    best_run = -1
    best_len = 0
    for a in range(row.shape[0]):
        if not row[a] or acts.kind[a] != Kind.RUN:
            continue
        r0, n = acts.rank[a], acts.size[a]
        if acts.card[a] >= 0:  # exact_plays: a run with the joker
            continue
        if not _lone_run(r0, n, acts.suit[a], seen.hand, seen.nat, rev):
            continue
        lo = key(r0, rev)
        hi = key(r0 + n - 1, rev)
        if hi < lo:
            lo = hi
        if low_r >= 0 and lo > key(low_r, rev):
            continue
        if n > best_len:
            best_len = n
            best_run = a
    return best_run


@kernel(inline="always")
def _lowest_play(row, rev, acts):  # type: ignore[no-untyped-def]
    """The lowest legal play (more cards first among equals), -1 if none."""
    choice = -1
    best_score = _NEVER
    for a in range(row.shape[0]):
        k = acts.kind[a]
        if row[a] and k != Kind.PASS:
            n = acts.size[a]
            s = np.int64(strength(k, acts.rank[a], n, rev)) * 100 + 99 - n
            if s < best_score:
                best_score = s
                choice = a
    return choice


@kernel(inline="always")
def _lowest_whole_set(nat, rev, rp, hand):  # type: ignore[no-untyped-def]
    """The lowest rank held (controls included) as a whole set, -1 if none."""
    for kk in range(NUM_RANKS):
        r = TOP - kk if rev else kk
        if nat[r] > 0:
            return _set_action(r, nat[r], rp, hand)
    return -1


@kernel(inline="always")
def _normal_lead(row, seen, rev, min_opp, rp, acts):  # type: ignore[no-untyped-def]
    """Leading: a run of lone cards, else the lowest free rank whole, else the lowest control
    whole; the lowest legal play when that is not legal (jokers only)."""
    nat = seen.nat
    low_r = _lead_rank(nat, rev, min_opp)
    best_run = -1
    if rp[RuleParam.RUNS] != 0:
        best_run = _lead_run(row, seen, rev, low_r, acts)
    if best_run >= 0:
        choice = best_run
    elif low_r >= 0:
        choice = _set_action(low_r, nat[low_r], rp, seen.hand)
    else:
        # only controls (and jokers) left: the lowest control as a whole set
        choice = _lowest_whole_set(nat, rev, rp, seen.hand)
    if choice < 0 or not row[choice]:
        choice = _lowest_play(row, rev, acts)
    return choice


@kernel(inline="always")
def _breaks_nothing(r0, n, u, hand, nat, rev):  # type: ignore[no-untyped-def]
    """A run (bottom, size, suit) whose held cards are all lone non-control cards (missing
    ones come as jokers)."""
    for r in range(r0, r0 + n):
        if run_holds(hand, r, u) and (nat[r] != 1 or _is_control(r, nat, rev)):
            return False
    return True


@kernel(inline="always")
def _follows_in_tier(k, r, n, u, tier, j, seen, rev):  # type: ignore[no-untyped-def]
    """Whether following with the play (kind, rank, size, suit), using ``j`` jokers, is
    allowed in ``tier``: 0 breaks nothing and spends no control or joker, 1 may break a set,
    2 anything."""
    if tier == 2:
        return True
    if j != 0:
        return False
    if k == Kind.SET:
        if _is_control(r, seen.nat, rev):
            return False
        return tier == 1 or seen.nat[r] == n
    if k == Kind.RUN:
        return tier == 1 or _breaks_nothing(r, n, u, seen.hand, seen.nat, rev)
    return False


@kernel(inline="always")
def _normal_follow(row, seen, rev, need, acts):  # type: ignore[no-untyped-def]
    """The lowest play of the first tier that has one (tiers 1 and 2 only when in need);
    else pass (action 0, always legal when following)."""
    for tier in range(3):
        if tier >= 1 and not need:
            return 0
        choice = -1
        best_score = _NEVER
        for a in range(row.shape[0]):
            k = acts.kind[a]
            if not row[a] or k == Kind.PASS:
                continue
            r, n, u = acts.rank[a], acts.size[a], acts.suit[a]
            j = jokers_used(k, r, n, u, acts.card[a], seen.nat, seen.hand)
            if not _follows_in_tier(k, r, n, u, tier, j, seen, rev):
                continue
            s = np.int64(strength(k, r, n, rev)) * 100 + j * 10
            if s < best_score:
                best_score = s
                choice = a
        if choice >= 0:
            return choice
    return 0


@kernel
def _normal_rows(obs, mask, off, rp, acts, seen, out):  # type: ignore[no-untyped-def]
    n_players = rp[RuleParam.PLAYERS]
    for b in range(obs.shape[0]):
        turn = read(obs, b, off, rp, seen)
        row = mask[b]
        rev = turn.rev
        if turn.phase == PHASE_EXCHANGE:
            if rp[RuleParam.PRESIDENT_ASKS] != 0 and asking(row, acts):
                out[b] = normal_ask(obs, b, off, row, seen.hand, rp, acts)
            else:
                out[b] = _exchange_return(row, seen.nat, acts)
            continue
        total = hand_total(seen.hand)
        choice = _going_out(row, total, acts)
        if choice < 0:
            need, min_opp = _in_need(seen, total, rev, n_players)
            if turn.pile_kind == 0:
                choice = _normal_lead(row, seen, rev, min_opp, rp, acts)
            else:
                choice = _normal_follow(row, seen, rev, need, acts)
        out[b] = choice


@kernel(allocates=True)
def normal_kernel(obs, mask, off, rp, acts, out):  # type: ignore[no-untyped-def]
    """Normal's choice for every row (see the module doc)."""
    _normal_rows(obs, mask, off, rp, acts, new_seen(rp[RuleParam.PLAYERS]), out)
