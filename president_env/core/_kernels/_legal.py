"""Legal actions: the mask of the player to act, the first illegal action of a batch, and a
random legal action per row.

Following a play, a set must match the pile's size and beat its rank (or equal it with
``allow_equal``), a jokers-only set follows a set of its size (or, with ``allow_equal``,
another jokers-only set), a run follows a run of its length from a higher bottom; leading,
anything held may be played. In a revolution the rank order is reversed.
"""

from __future__ import annotations

import numpy as np

from president_env.core._kernels._jit import kernel
from president_env.core._kernels._types import Arrays, MaskTables, Pile
from president_env.core.constants import JOKER, NUM_RANKS, NUM_SUITS, TOP, Kind, Phase
from president_env.core.rules import RuleParam

PASS_ACTION = 0


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
def _mask_runs(hands, b, p, pile: Pile, equal, lay: MaskTables, pre, out, row):  # type: ignore[no-untyped-def]
    """Runs of one suit holding at least one natural card, jokers filling the gaps; following,
    the pile's length from a bottom that beats it. ``pre`` is int64 [4, 14] scratch."""
    for u in range(NUM_SUITS):
        for r in range(NUM_RANKS):  # pre[u, r]: natural cards of suit u held below rank r
            pre[u, r + 1] = pre[u, r] + (1 if hands[b, p, r * NUM_SUITS + u] > 0 else 0)
    leading = pile.kind == Kind.PASS
    jok = hands[b, p, JOKER]
    for i in range(lay.run_len.shape[0]):
        length = lay.run_len[i]
        bottom = lay.run_bottom[i]
        if not leading and (length != pile.size or not beats(bottom, pile.rank, pile.rev, equal)):
            continue
        u = lay.run_suit[i]
        nat = pre[u, bottom + length] - pre[u, bottom]
        if nat >= 1 and length - nat <= jok:
            out[row, lay.run_base + i] = True


@kernel(inline="always")
def mask_game(rp, lay: MaskTables, hands, b, phase, p, pile: Pile, pre, out, row):  # type: ignore[no-untyped-def]
    """Set ``out[row]`` (all False on entry) to the legal actions of seat ``p`` in game ``b``
    (``phase``, ``pile``: the game's)."""
    if phase == Phase.DONE:
        return
    if phase == Phase.EXCHANGE:
        _mask_gives(hands, b, p, lay.give_base, lay.num_give, out, row)
        return
    equal = rp[RuleParam.ALLOW_EQUAL] != 0
    if pile.kind != Kind.PASS:
        out[row, PASS_ACTION] = True
    if pile.kind == Kind.PASS or pile.kind == Kind.SET:
        _mask_sets(hands, b, p, pile, equal, rp[RuleParam.MAX_SET], lay.set_base, out, row)
    _mask_jokers(hands[b, p, JOKER], pile, equal, lay.joker_base, out, row)
    if rp[RuleParam.RUNS] != 0 and (pile.kind == Kind.PASS or pile.kind == Kind.RUN):
        _mask_runs(hands, b, p, pile, equal, lay, pre, out, row)


@kernel
def mask_kernel(rp, tables, arrays, out):  # type: ignore[no-untyped-def]
    """``out[b]`` (bool or int8 [B, A]) = the legal actions of the player to act in game b."""
    st = Arrays(*arrays)
    lay = MaskTables(*tables)
    pre = np.zeros((NUM_SUITS, NUM_RANKS + 1), np.int64)
    out[:, :] = False
    for b in range(out.shape[0]):
        pile = Pile(st.pile_kind[b], st.pile_rank[b], st.pile_size[b], st.revolution[b])
        mask_game(rp, lay, st.hands, b, st.phase[b], st.current[b], pile, pre, out, b)


@kernel
def first_illegal(rp, tables, arrays, actions, num_actions):  # type: ignore[no-untyped-def]
    """Index of the first game whose action is illegal (or out of range), else -1."""
    st = Arrays(*arrays)
    lay = MaskTables(*tables)
    pre = np.zeros((NUM_SUITS, NUM_RANKS + 1), np.int64)
    row = np.zeros((1, num_actions), np.bool_)
    for b in range(actions.shape[0]):
        a = actions[b]
        if a < 0 or a >= num_actions:
            return b
        row[:, :] = False
        pile = Pile(st.pile_kind[b], st.pile_rank[b], st.pile_size[b], st.revolution[b])
        mask_game(rp, lay, st.hands, b, st.phase[b], st.current[b], pile, pre, row, 0)
        if not row[0, a]:
            return b
    return -1


@kernel
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
