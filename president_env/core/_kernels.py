"""Compiled (numba) kernels of the batched engine.

Each kernel loops over the games of a batch in compiled code (no Python loop over games)
and over the small constant axes (players, ranks, suits) inside each game. The state is
passed as one tuple of arrays in the order of :data:`STATE_FIELDS`, the rule options as
one int64 vector laid out by the ``RP_*`` indices, and the action layout as its tables.
Only :mod:`president_env.core.engine` calls these; it validates inputs first.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# ---------------------------------------------------------------- constants
PHASE_EXCHANGE = 0
PHASE_PLAY = 1
PHASE_DONE = 2

K_NONE = 0  # pass (as an action), nothing (as the pile)
K_SET = 1
K_JOKERS = 2
K_RUN = 3
K_GIVE = 4

JOKER = 52
NCARD = 53
EIGHT = 5
TOP = 12

RP_P = 0
RP_DECKS = 1
RP_JOKERS = 2
RP_EQUAL = 3
RP_FINAL = 4
RP_TOP_CLEARS = 5
RP_EIGHT_CLEARS = 6
RP_REVOLUTION = 7
RP_RUNS = 8
RP_EXCHANGE = 9
RP_SEAT0 = 10
RP_DEALS = 11
RP_SCORING = 12  # 0 places, 1 president_vp, 2 tally
RP_TARGET = 13  # 0 = none
RP_SMAX = 14
RP_SIZE = 15

STATE_FIELDS = (
    "hands",
    "phase",
    "current",
    "pile_kind",
    "pile_rank",
    "pile_size",
    "last_player",
    "passed",
    "revolution",
    "place",
    "n_finished",
    "title",
    "scores",
    "deal",
    "played",
    "gave",
    "received",
    "to_return",
    "rewards",
    "deal_over",
    "seed",
    "dealer",
)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


# ---------------------------------------------------------------- seeded shuffle
@njit(cache=True, nogil=True)
def _splitmix(x: np.uint64) -> tuple[np.uint64, np.uint64]:
    x = x + _GOLDEN
    z = x
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x, z ^ (z >> np.uint64(31))


@njit(cache=True, nogil=True)
def deal_into(seed, deal_no, dealer, n_players, n_decks, n_jokers, out):  # type: ignore[no-untyped-def]
    """Shuffle the pack with a generator keyed by (seed, deal_no) and deal it into ``out``.

    Cards go one at a time, starting at the dealer's left (seat dealer + 1).
    """
    n = 52 * n_decks + n_jokers
    deck = np.empty(n, np.int64)
    k = 0
    for _ in range(n_decks):
        for c in range(52):
            deck[k] = c
            k += 1
    for _ in range(n_jokers):
        deck[k] = JOKER
        k += 1
    x, _r = _splitmix(np.uint64(seed))
    x = x ^ (np.uint64(deal_no) * np.uint64(0xD1B54A32D192ED03))
    for i in range(n - 1, 0, -1):
        x, r = _splitmix(x)
        j = np.int64(r % np.uint64(i + 1))
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t
    out[:] = 0
    for i in range(n):
        out[(dealer + 1 + i) % n_players, deck[i]] += 1


# ---------------------------------------------------------------- small rule helpers
@njit(cache=True, nogil=True, inline="always")
def _next_active(place, passed, b, seat, n_players, skip_passed):  # type: ignore[no-untyped-def]
    """Next seat to the left of ``seat`` still holding cards (and not passed, if asked)."""
    for i in range(1, n_players + 1):
        q = (seat + i) % n_players
        if place[b, q] < 0 and not (skip_passed and passed[b, q]):
            return q
    return -1


@njit(cache=True, nogil=True, inline="always")
def _seat_with_title(title, b, t, n_players):  # type: ignore[no-untyped-def]
    for q in range(n_players):
        if title[b, q] == t:
            return q
    return -1


@njit(cache=True, nogil=True, inline="always")
def _new_trick(st, b, winner, n_players):  # type: ignore[no-untyped-def]
    """Clear the pile; the winner leads, or the next seat to the left holding cards."""
    (hands, phase, current, pile_kind, pile_rank, pile_size, last_player, passed, revolution,
     place, n_finished, title, scores, deal, played, gave, received, to_return, rewards,
     deal_over, seed, dealer) = st
    pile_kind[b] = K_NONE
    pile_rank[b] = -1
    pile_size[b] = 0
    last_player[b] = -1
    passed[b, :] = False
    if place[b, winner] < 0:
        current[b] = winner
    else:
        current[b] = _next_active(place, passed, b, winner, n_players, False)


@njit(cache=True, nogil=True, inline="always")
def _give(st, b, src, dst, card):  # type: ignore[no-untyped-def]
    hands = st[0]
    gave = st[15]
    received = st[16]
    hands[b, src, card] -= 1
    hands[b, dst, card] += 1
    gave[b, src, card] += 1
    received[b, dst, card] += 1


@njit(cache=True, nogil=True, inline="always")
def _best_card(hands, b, p):  # type: ignore[no-untyped-def]
    for c in range(NCARD - 1, -1, -1):
        if hands[b, p, c] > 0:
            return c
    return -1


@njit(cache=True, nogil=True)
def _start_deal(rp, st, b, deal_cards):  # type: ignore[no-untyped-def]
    """Deal (unless the hands were given), reset the deal's state, run the automatic gifts."""
    (hands, phase, current, pile_kind, pile_rank, pile_size, last_player, passed, revolution,
     place, n_finished, title, scores, deal, played, gave, received, to_return, rewards,
     deal_over, seed, dealer) = st
    n_players = rp[RP_P]
    if deal_cards:
        deal_into(seed[b], deal[b], dealer[b], n_players, rp[RP_DECKS], rp[RP_JOKERS], hands[b])
    pile_kind[b] = K_NONE
    pile_rank[b] = -1
    pile_size[b] = 0
    last_player[b] = -1
    passed[b, :] = False
    revolution[b] = False
    place[b, :] = -1
    n_finished[b] = 0
    played[b, :] = 0
    gave[b, :, :] = 0
    received[b, :, :] = 0
    to_return[b, :] = 0
    phase[b] = PHASE_PLAY
    if deal[b] == 0:
        lead = 0
        if rp[RP_SEAT0] == 0:
            for q in range(n_players):
                if hands[b, q, 0] > 0:
                    lead = q
                    break
        current[b] = lead
        return
    bum = _seat_with_title(title, b, n_players - 1, n_players)
    current[b] = bum
    if rp[RP_EXCHANGE] == 0:
        return
    president = _seat_with_title(title, b, 0, n_players)
    for _ in range(2):
        _give(st, b, bum, president, _best_card(hands, b, bum))
    to_return[b, president] = 2
    if n_players >= 4:
        vice_bum = _seat_with_title(title, b, n_players - 2, n_players)
        vice = _seat_with_title(title, b, 1, n_players)
        _give(st, b, vice_bum, vice, _best_card(hands, b, vice_bum))
        to_return[b, vice] = 1
    phase[b] = PHASE_EXCHANGE
    current[b] = president


@njit(cache=True, nogil=True)
def _end_deal(rp, st, b):  # type: ignore[no-untyped-def]
    """The last player gets the last place; titles, scores, rewards; next deal or game over."""
    (hands, phase, current, pile_kind, pile_rank, pile_size, last_player, passed, revolution,
     place, n_finished, title, scores, deal, played, gave, received, to_return, rewards,
     deal_over, seed, dealer) = st
    n_players = rp[RP_P]
    for q in range(n_players):
        if place[b, q] < 0:
            place[b, q] = n_players - 1
    n_finished[b] = n_players
    scoring = rp[RP_SCORING]
    best = 0
    for q in range(n_players):
        pl = place[b, q]
        title[b, q] = pl
        rewards[b, q] = 1.0 - 2.0 * pl / (n_players - 1)
        if scoring == 0:
            scores[b, q] += n_players - pl
        elif scoring == 1:
            if pl == 0:
                scores[b, q] += 2
            elif pl == 1 and n_players >= 4:
                scores[b, q] += 1
        elif pl == 0:
            scores[b, q] += 1
        if scores[b, q] > best:
            best = scores[b, q]
    deal_over[b] = True
    target = rp[RP_TARGET]
    if deal[b] + 1 >= rp[RP_DEALS] or (target > 0 and best >= target):
        phase[b] = PHASE_DONE
        current[b] = -1
        return
    deal[b] += 1
    dealer[b] = _seat_with_title(title, b, n_players - 1, n_players)
    _start_deal(rp, st, b, True)


# ---------------------------------------------------------------- legal actions
@njit(cache=True, nogil=True, inline="always")
def _mask_row(rp, a_run_suit, a_run_bottom, a_run_len, set_base, joker_base, run_base,
              give_base, n_give, st, b, row):  # type: ignore[no-untyped-def]
    """Fill ``row`` (bool [A], all False on entry) with the legal actions of game ``b``."""
    hands = st[0]
    phase = st[1]
    p = st[2][b]
    if phase[b] == PHASE_DONE:
        return
    if phase[b] == PHASE_EXCHANGE:
        for c in range(n_give):
            if hands[b, p, c] > 0:
                row[give_base + c] = True
        return
    pk = st[3][b]
    pr = st[4][b]
    ps = st[5][b]
    rev = st[8][b]
    equal = rp[RP_EQUAL] != 0
    smax = rp[RP_SMAX]
    jok = hands[b, p, JOKER]
    leading = pk == K_NONE
    if not leading:
        row[0] = True
    # sets of natural cards (plus jokers)
    if leading or pk == K_SET:
        kp = 0
        if pk == K_SET:
            kp = TOP - pr if rev else pr
        for r in range(13):
            c0 = r * 4
            cnt = hands[b, p, c0] + hands[b, p, c0 + 1] + hands[b, p, c0 + 2] + hands[b, p, c0 + 3]
            if cnt == 0:
                continue
            if leading:
                top = cnt + jok
                if top > smax:
                    top = smax
                for s in range(1, top + 1):
                    row[set_base + r * smax + s - 1] = True
            elif cnt + jok >= ps:
                kr = TOP - r if rev else r
                if kr > kp or (equal and kr == kp):
                    row[set_base + r * smax + ps - 1] = True
    # jokers-only sets
    if jok > 0:
        if leading:
            for s in range(1, jok + 1):
                row[joker_base + s - 1] = True
        elif ps <= jok and (pk == K_SET or (pk == K_JOKERS and equal)):
            row[joker_base + ps - 1] = True
    # runs
    if rp[RP_RUNS] != 0 and (leading or pk == K_RUN):
        pre = np.zeros((4, 14), np.int64)
        for u in range(4):
            for r in range(13):
                pre[u, r + 1] = pre[u, r] + (1 if hands[b, p, r * 4 + u] > 0 else 0)
        for i in range(a_run_len.shape[0]):
            length = a_run_len[i]
            if not leading and length != ps:
                continue
            bottom = a_run_bottom[i]
            if not leading:
                if rev:
                    if not (bottom < pr or (equal and bottom == pr)):
                        continue
                elif not (bottom > pr or (equal and bottom == pr)):
                    continue
            u = a_run_suit[i]
            nat = pre[u, bottom + length] - pre[u, bottom]
            if nat >= 1 and length - nat <= jok:
                row[run_base + i] = True


@njit(cache=True, nogil=True)
def mask_kernel(rp, a_run_suit, a_run_bottom, a_run_len, set_base, joker_base, run_base,
                give_base, n_give, st, out):  # type: ignore[no-untyped-def]
    out[:, :] = False
    for b in range(out.shape[0]):
        _mask_row(rp, a_run_suit, a_run_bottom, a_run_len, set_base, joker_base, run_base,
                  give_base, n_give, st, b, out[b])


@njit(cache=True, nogil=True)
def first_illegal(rp, a_run_suit, a_run_bottom, a_run_len, set_base, joker_base, run_base,
                  give_base, n_give, st, actions, num_actions):  # type: ignore[no-untyped-def]
    """Index of the first game whose action is illegal (or out of range), else -1."""
    row = np.zeros(num_actions, np.bool_)
    for b in range(actions.shape[0]):
        a = actions[b]
        if a < 0 or a >= num_actions:
            return b
        row[:] = False
        _mask_row(rp, a_run_suit, a_run_bottom, a_run_len, set_base, joker_base, run_base,
                  give_base, n_give, st, b, row)
        if not row[a]:
            return b
    return -1


# ---------------------------------------------------------------- one play
@njit(cache=True, nogil=True, inline="always")
def _play(rp, a_kind, a_rank, a_size, a_suit, a_card, st, b, a):  # type: ignore[no-untyped-def]
    (hands, phase, current, pile_kind, pile_rank, pile_size, last_player, passed, revolution,
     place, n_finished, title, scores, deal, played, gave, received, to_return, rewards,
     deal_over, seed, dealer) = st
    n_players = rp[RP_P]
    p = current[b]
    kind = a_kind[a]
    if phase[b] == PHASE_EXCHANGE:
        partner = _seat_with_title(title, b, n_players - 1 - title[b, p], n_players)
        _give(st, b, p, partner, a_card[a])
        to_return[b, p] -= 1
        if to_return[b, p] == 0:
            nxt = -1
            for q in range(n_players):
                if to_return[b, q] > 0:
                    nxt = q
                    break
            if nxt >= 0:
                current[b] = nxt
            else:
                phase[b] = PHASE_PLAY
                current[b] = _seat_with_title(title, b, n_players - 1, n_players)
        return
    if kind == K_NONE:
        passed[b, p] = True
    else:
        r = a_rank[a]
        size = a_size[a]
        rev = revolution[b]
        clears = False
        if kind == K_SET:
            need = size
            c0 = r * 4
            for u in range(4):
                t = hands[b, p, c0 + u]
                if t > need:
                    t = need
                hands[b, p, c0 + u] -= t
                need -= t
            hands[b, p, JOKER] -= need
            played[b, r] += size - need
            played[b, 13] += need
            top = 0 if rev else TOP
            if (rp[RP_TOP_CLEARS] != 0 and r == top) or (rp[RP_EIGHT_CLEARS] != 0 and r == EIGHT):
                clears = True
        elif kind == K_JOKERS:
            hands[b, p, JOKER] -= size
            played[b, 13] += size
            r = -1
        else:  # run
            u = a_suit[a]
            missing = 0
            for rr in range(r, r + size):
                c = rr * 4 + u
                if hands[b, p, c] > 0:
                    hands[b, p, c] -= 1
                    played[b, rr] += 1
                else:
                    missing += 1
            hands[b, p, JOKER] -= missing
            played[b, 13] += missing
            if rp[RP_EIGHT_CLEARS] != 0 and r <= EIGHT < r + size:
                clears = True
        if rp[RP_REVOLUTION] != 0 and kind != K_RUN and size >= 4:
            revolution[b] = not rev
        pile_kind[b] = kind
        pile_rank[b] = r
        pile_size[b] = size
        last_player[b] = p
        if rp[RP_FINAL] == 0:
            passed[b, :] = False
        empty = True
        for c in range(NCARD):
            if hands[b, p, c] != 0:
                empty = False
                break
        if empty:
            place[b, p] = n_finished[b]
            n_finished[b] += 1
            if n_finished[b] == n_players - 1:
                _end_deal(rp, st, b)
                return
        if clears:
            _new_trick(st, b, p, n_players)
            return
    lp = last_player[b]
    over = True
    for q in range(n_players):
        if q != lp and place[b, q] < 0 and not passed[b, q]:
            over = False
            break
    if over:
        _new_trick(st, b, lp, n_players)
    else:
        current[b] = _next_active(place, passed, b, p, n_players, True)


@njit(cache=True, nogil=True)
def step_kernel(rp, a_kind, a_rank, a_size, a_suit, a_card, st, actions):  # type: ignore[no-untyped-def]
    deal_over = st[19]
    rewards = st[18]
    for b in range(actions.shape[0]):
        if actions[b] < 0:  # not stepped this time
            continue
        if deal_over[b]:
            deal_over[b] = False
            rewards[b, :] = 0.0
        if st[1][b] == PHASE_DONE:
            continue
        _play(rp, a_kind, a_rank, a_size, a_suit, a_card, st, b, actions[b])


@njit(cache=True, nogil=True)
def init_kernel(rp, st, deal_cards):  # type: ignore[no-untyped-def]
    """Start game ``b`` for every b: the arrays hold zeros, seeds are set (and hands if given)."""
    n_players = rp[RP_P]
    for b in range(st[1].shape[0]):
        st[11][b, :] = -1  # title
        st[12][b, :] = 0  # scores
        st[13][b] = 0  # deal
        st[21][b] = n_players - 1  # dealer
        st[18][b, :] = 0.0
        st[19][b] = False
        _start_deal(rp, st, b, deal_cards)


@njit(cache=True, nogil=True)
def reset_where(rp, st, done, new_seeds):  # type: ignore[no-untyped-def]
    """Start a new game (seeded deal) in every game b where ``done[b]``."""
    n_players = rp[RP_P]
    for b in range(done.shape[0]):
        if done[b]:
            st[20][b] = new_seeds[b]
            st[11][b, :] = -1
            st[12][b, :] = 0
            st[13][b] = 0
            st[21][b] = n_players - 1
            _start_deal(rp, st, b, True)


@njit(cache=True, nogil=True)
def sample_legal(mask, u, out):  # type: ignore[no-untyped-def]
    """out[b] = the k-th legal action of row b, k = floor(u[b] * number legal); -1 if none."""
    for b in range(mask.shape[0]):
        n = 0
        for a in range(mask.shape[1]):
            if mask[b, a]:
                n += 1
        if n == 0:
            out[b] = -1
            continue
        k = int(u[b] * n)
        if k >= n:
            k = n - 1
        for a in range(mask.shape[1]):
            if mask[b, a]:
                if k == 0:
                    out[b] = a
                    break
                k -= 1
