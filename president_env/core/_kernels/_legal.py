"""Legal actions: the mask of the player to act, the first illegal action of a batch, and a
random legal action per row.

Following a play, a set must match the pile's size and beat its rank (or equal it with
``allow_equal``), a jokers-only set follows a set of its size (or, with ``allow_equal``,
another jokers-only set), a run follows a run of its length from a higher bottom; leading,
anything held may be played (and, with ``lead_may_pass``, a pass). In a revolution the rank order is reversed (and, with
``jack_back``, after a J in the trick: the order in force is revolution XOR 11-back).

Variants: with ``bombs`` every set (or jokers-only set) of at least that many cards held may
also be played on any pile; with ``runs_mixed_suits`` a run counts the natural cards of its
ranks in any suit; in the exchange with ``president_asks``, while the President has asks to
make (``asks_left``), every ask is legal (any card of the pack, held by anyone or not).

With ``exact_plays`` each set and run action names its cards (:func:`_mask_exact_sets`,
:func:`_mask_exact_runs`): legal when the hand holds every natural card it names, and the
joker if it names one; the rest of the rules is the same, but that with ``lock`` a locked
trick takes only sets and runs of the pile's suits (a lone joker goes on any single still);
with ``spade_three_beats_joker`` the 3 of spades alone follows a lone joker.
"""

from __future__ import annotations

import numpy as np

from president_env.core._kernels._jit import kernel
from president_env.core._kernels._types import Arrays, MaskTables, Pile
from president_env.core.constants import (
    EXACT_SET_JOKER,
    EXACT_SET_SUITS,
    EXACT_SLOTS_PLAIN,
    JOKER,
    NUM_RANKS,
    NUM_SUITS,
    TOP,
    Kind,
    Phase,
)
from president_env.core.rules import RuleParam

PASS_ACTION = 0
S3 = 3
"""The 3 of spades (``spade_three_beats_joker``)."""
S3_SLOT = 8 - 1
"""``exact_plays``: its slot in the set block of the 3s (suits mask 8, no joker)."""


@kernel(inline="always")
def beats(rank, pile_rank, rev, equal):  # type: ignore[no-untyped-def]
    """Whether ``rank`` (of a set, or the bottom of a run) may follow ``pile_rank``: higher
    in the current order, or equal with ``allow_equal``."""
    k = TOP - rank if rev else rank
    kp = TOP - pile_rank if rev else pile_rank
    return k > kp or (equal and k == kp)


@kernel(inline="always")
def _mask_gives(hands, b, p, give_base, num_give, out, row):  # type: ignore[no-untyped-def]
    """Exchange: any card held may be given back."""
    for c in range(num_give):
        if hands[b, p, c] > 0:
            out[row, give_base + c] = True


@kernel(inline="always")
def _mask_asks(ask_base, num_ask, out, row):  # type: ignore[no-untyped-def]
    """Exchange with ``president_asks``: the President may name any card of the pack."""
    for c in range(num_ask):
        out[row, ask_base + c] = True


@kernel(inline="always")
def _mask_bombs(hands, b, p, bombs, smax, set_base, joker_base, out, row):  # type: ignore[no-untyped-def]
    """Following with ``bombs``: every set of ``bombs`` or more cards held (natural cards of one
    rank, jokers filling in, up to ``smax``), and every jokers-only set of that many."""
    jok = hands[b, p, JOKER]
    for r in range(NUM_RANKS):
        c0 = r * NUM_SUITS
        cnt = hands[b, p, c0] + hands[b, p, c0 + 1] + hands[b, p, c0 + 2] + hands[b, p, c0 + 3]
        if cnt == 0:
            continue
        for s in range(bombs, min(cnt + jok, smax) + 1):
            out[row, set_base + r * smax + s - 1] = True
    for s in range(bombs, jok + 1):
        out[row, joker_base + s - 1] = True


@kernel(inline="always")
def _mask_sets(hands, b, p, pile: Pile, equal, smax, set_base, out, row):  # type: ignore[no-untyped-def]
    """Sets of natural cards (jokers fill in): any size up to what is held when leading, the
    pile's size of a rank that beats it when following a set."""
    jok = hands[b, p, JOKER]
    for r in range(NUM_RANKS):
        c0 = r * NUM_SUITS
        cnt = hands[b, p, c0] + hands[b, p, c0 + 1] + hands[b, p, c0 + 2] + hands[b, p, c0 + 3]
        if cnt == 0:
            continue
        if pile.kind == Kind.PASS:
            for s in range(1, min(cnt + jok, smax) + 1):
                out[row, set_base + r * smax + s - 1] = True
        elif cnt + jok >= pile.size and beats(r, pile.rank, pile.rev, equal):
            out[row, set_base + r * smax + pile.size - 1] = True


@kernel(inline="always")
def _mask_jokers(jok, pile: Pile, equal, joker_base, out, row):  # type: ignore[no-untyped-def]
    """Jokers alone (``jok`` held): any number when leading; following, the pile's size on a
    set (or on jokers alone with ``allow_equal``)."""
    if jok == 0:
        return
    if pile.kind == Kind.PASS:
        for s in range(1, jok + 1):
            out[row, joker_base + s - 1] = True
    elif pile.size <= jok and (pile.kind == Kind.SET or (pile.kind == Kind.JOKERS and equal)):
        out[row, joker_base + pile.size - 1] = True


@kernel(inline="always")
def _suits_below(hands, b, p, pre):  # type: ignore[no-untyped-def]
    """``pre[u, r]``: the natural cards of suit u held below rank r."""
    for u in range(NUM_SUITS):
        for r in range(NUM_RANKS):
            pre[u, r + 1] = pre[u, r] + (1 if hands[b, p, r * NUM_SUITS + u] > 0 else 0)


@kernel(inline="always")
def _run_follows(bottom, length, pile: Pile, equal, disjoint):  # type: ignore[no-untyped-def]
    """Whether a run may follow the run on the pile: its length, from a bottom that beats it
    (with ``disjoint``, wholly above the pile's top, or below its bottom in a revolution)."""
    if length != pile.size or not beats(bottom, pile.rank, pile.rev, equal):
        return False
    if disjoint:
        return bottom + length <= pile.rank if pile.rev else bottom >= pile.rank + length
    return True


@kernel(inline="always")
def _mask_runs(hands, b, p, pile: Pile, equal, mixed, disjoint, lay: MaskTables, pre, out, row):  # type: ignore[no-untyped-def]
    """Runs of one suit (any suits if ``mixed``: suit -1) holding at least one natural card,
    jokers filling the gaps; following, the pile's length from a bottom that beats it (with
    ``disjoint``, wholly above the pile's top, or below its bottom in a revolution). ``pre``
    is int64 [4, 14] scratch."""
    if mixed:  # pre[0, r]: ranks below r held in any suit
        for r in range(NUM_RANKS):
            c0 = r * NUM_SUITS
            any_ = hands[b, p, c0] + hands[b, p, c0 + 1] + hands[b, p, c0 + 2] + hands[b, p, c0 + 3]
            pre[0, r + 1] = pre[0, r] + (1 if any_ > 0 else 0)
    else:
        _suits_below(hands, b, p, pre)
    leading = pile.kind == Kind.PASS
    jok = hands[b, p, JOKER]
    for i in range(lay.run_len.shape[0]):
        length = lay.run_len[i]
        bottom = lay.run_bottom[i]
        if not leading and not _run_follows(bottom, length, pile, equal, disjoint):
            continue
        u = max(lay.run_suit[i], 0)
        nat = pre[u, bottom + length] - pre[u, bottom]
        if nat >= 1 and length - nat <= jok:
            out[row, lay.run_base + i] = True


@kernel(inline="always")
def _mask_exact_sets(hands, b, p, pile: Pile, equal, bombs, set_base, width, locked, out, row):  # type: ignore[no-untyped-def]
    """``exact_plays``: every set of natural cards held (any non-empty choice of the suits held
    of a rank) and, with the joker held, each with the joker in a row it lacks; leading, any;
    following a set, the pile's size of a rank that beats it; with ``bombs``, any of that many
    cards or more on any pile; ``locked`` (``lock``: the pile's suits, else -1), only of
    those suits (the joker's row counted). ``width``: the set actions per rank (15 or 44)."""
    slots = width if hands[b, p, JOKER] > 0 else EXACT_SLOTS_PLAIN  # those the hand may use
    for r in range(NUM_RANKS):
        held = 0
        for u in range(NUM_SUITS):
            if hands[b, p, r * NUM_SUITS + u] > 0:
                held |= 1 << u
        if held == 0:
            continue
        follows = pile.kind == Kind.SET and beats(r, pile.rank, pile.rev, equal)
        for i in range(slots):
            suits = EXACT_SET_SUITS[i]
            if suits & held != suits:
                continue
            size = (suits & 1) + (suits >> 1 & 1) + (suits >> 2 & 1) + (suits >> 3 & 1)
            row_ = EXACT_SET_JOKER[i]
            size += 1 if row_ >= 0 else 0
            if locked >= 0 and suits | (1 << row_ if row_ >= 0 else 0) != locked:
                continue
            if (pile.kind == Kind.PASS or (follows and size == pile.size)
                    or (bombs > 0 and size >= bombs)):
                out[row, set_base + r * width + i] = True


@kernel(inline="always")
def _mask_exact_runs(hands, b, p, pile: Pile, equal, disjoint, lay: MaskTables, pre, locked,  # type: ignore[no-untyped-def]
                     out, row):
    """``exact_plays``: every run whose natural cards are all held (its suit's, at every place
    but the joker's) and whose joker, if it names one, is held; following as
    :func:`_mask_runs`; ``locked`` (the pile's suits, else -1), only of that suit. ``pre`` is
    int64 [4, 14] scratch."""
    _suits_below(hands, b, p, pre)
    leading = pile.kind == Kind.PASS
    jok = hands[b, p, JOKER]
    for i in range(lay.run_len.shape[0]):
        length = lay.run_len[i]
        bottom = lay.run_bottom[i]
        joker = lay.run_joker[i]
        if (joker >= 0 and jok == 0) or not (
                leading or _run_follows(bottom, length, pile, equal, disjoint)):
            continue
        u = lay.run_suit[i]
        if locked >= 0 and 1 << u != locked:
            continue
        lo_r, hi_r = max(bottom, 0), min(bottom + length, NUM_RANKS)
        nat = pre[u, hi_r] - pre[u, lo_r]
        cell = bottom + joker
        if joker >= 0 and 0 <= cell < NUM_RANKS and hands[b, p, cell * NUM_SUITS + u] > 0:
            nat -= 1  # the joker stands in for a card held: that card stays
        if nat == length - (1 if joker >= 0 else 0):
            out[row, lay.run_base + i] = True


@kernel
def mask_kernel(rp, tables, arrays, out, lo, hi):  # type: ignore[no-untyped-def]
    """``out[b]`` (bool or int8 [B, A]) = the legal actions of the player to act in game b,
    for the games ``lo <= b < hi``.

    (The helpers are handed the few arrays they read, and the rules of a game are in this
    loop's body rather than in a per-game helper: binding arrays to a helper's parameters in
    the loop costs an atomic reference-count increment and decrement per array and game, which
    numba does not prune here, and which two threads sharing the arrays make dearer still.)"""
    st = Arrays(*arrays)
    lay = MaskTables(*tables)
    hands = st.hands
    pre = np.zeros((NUM_SUITS, NUM_RANKS + 1), np.int64)
    equal = rp[RuleParam.ALLOW_EQUAL] != 0
    smax = rp[RuleParam.MAX_SET]
    runs = rp[RuleParam.RUNS] != 0
    mixed = rp[RuleParam.RUNS_MIXED_SUITS] != 0
    disjoint = rp[RuleParam.RUNS_DISJOINT] != 0
    bombs = rp[RuleParam.BOMBS]
    asks = rp[RuleParam.PRESIDENT_ASKS] != 0
    exact = rp[RuleParam.EXACT_PLAYS] != 0
    s3 = rp[RuleParam.SPADE_THREE_BEATS_JOKER] != 0
    lead_pass = rp[RuleParam.LEAD_MAY_PASS] != 0
    for b in range(lo, hi):
        for a in range(out.shape[1]):
            out[b, a] = False
        phase = st.phase[b]
        p = st.current[b]
        if phase == Phase.EXCHANGE:
            if asks and st.asks_left[b] > 0:
                _mask_asks(lay.ask_base, lay.num_ask, out, b)
            else:
                _mask_gives(hands, b, p, lay.give_base, lay.num_give, out, b)
        elif phase == Phase.PLAY:
            rev = st.revolution[b] != st.jack_back[b]  # (jack_back: the order in force)
            pile = Pile(st.pile_kind[b], st.pile_rank[b], st.pile_size[b], rev)
            if pile.kind != Kind.PASS or lead_pass:  # (lead_may_pass: on an empty pile too)
                out[b, PASS_ACTION] = True
            if exact:  # each play names its cards
                locked = st.pile_suits[b] if st.locked[b] else -1
                _mask_exact_sets(hands, b, p, pile, equal, bombs, lay.set_base,
                                 (lay.joker_base - lay.set_base) // NUM_RANKS, locked, out, b)
                _mask_jokers(hands[b, p, JOKER], pile, equal, lay.joker_base, out, b)
                if s3 and pile.kind == Kind.JOKERS and pile.size == 1 and hands[b, p, S3] > 0:
                    out[b, lay.set_base + S3_SLOT] = True  # the 3 of spades on a lone joker
                if runs and (pile.kind == Kind.PASS or pile.kind == Kind.RUN):
                    _mask_exact_runs(hands, b, p, pile, equal, disjoint, lay, pre, locked, out, b)
                continue
            if pile.kind == Kind.PASS or pile.kind == Kind.SET:
                _mask_sets(hands, b, p, pile, equal, smax, lay.set_base, out, b)
            _mask_jokers(hands[b, p, JOKER], pile, equal, lay.joker_base, out, b)
            if runs and (pile.kind == Kind.PASS or pile.kind == Kind.RUN):
                _mask_runs(hands, b, p, pile, equal, mixed, disjoint, lay, pre, out, b)
            if bombs > 0 and pile.kind != Kind.PASS:
                _mask_bombs(hands, b, p, bombs, smax, lay.set_base, lay.joker_base, out, b)


@kernel
def first_illegal(rp, tables, arrays, actions, num_actions):  # type: ignore[no-untyped-def]
    """Index of the first game whose action is illegal (or out of range), else -1."""
    n = actions.shape[0]
    mask = np.empty((n, num_actions), np.bool_)
    mask_kernel(rp, tables, arrays, mask, 0, n)
    for b in range(n):
        a = actions[b]
        if a < 0 or a >= num_actions or not mask[b, a]:
            return b
    return -1


@kernel(inline="always")
def pick_legal(mask, row, u):  # type: ignore[no-untyped-def]
    """The k-th legal action of ``mask[row]``, k = floor(u * number legal) (u in [0, 1));
    -1 if none is legal."""
    n = 0
    for a in range(mask.shape[1]):
        if mask[row, a]:
            n += 1
    if n == 0:
        return -1
    k = min(int(u * n), n - 1)
    for a in range(mask.shape[1]):
        if mask[row, a]:
            if k == 0:
                return a
            k -= 1
    return -1


@kernel
def sample_legal(mask, u, out, lo, hi):  # type: ignore[no-untyped-def]
    """out[b] = the k-th legal action of row b, k = floor(u[b] * number legal); -1 if none
    (rows ``lo <= b < hi``)."""
    for b in range(lo, hi):
        out[b] = pick_legal(mask, b, u[b])
