"""The observation kernel: one player's view of each game, block by block (see
:mod:`president_env.core.observe` for the layout; ``off[ObsBlock.X]`` is where block X
starts)."""

from __future__ import annotations

import numpy as np

from president_env.core._kernels._jit import kernel
from president_env.core._kernels._seats import player_in_seat
from president_env.core._kernels._types import Arrays, PlayTables
from president_env.core.constants import (
    HISTORY_LEN,
    NUM_CARDS,
    NUM_RANKS,
    PLAYED_SIZE,
    Kind,
    Phase,
)
from president_env.core.observe import (
    LOCK_SIZE,
    MOVE_KINDS,
    MOVE_SIZE,
    MOVE_SIZE_SCALE,
    ObsBlock,
)
from president_env.core.rules import RuleParam


@kernel(inline="always")
def _flag(x):  # type: ignore[no-untyped-def]
    return 1.0 if x else 0.0


@kernel(inline="always")
def _clear(out, b, start, n):  # type: ignore[no-untyped-def]
    for i in range(start, start + n):
        out[b, i] = 0.0


@kernel(inline="always")
def _seat_k(seat_of, b, me, k, n_players, reseat):  # type: ignore[no-untyped-def]
    """The player in "seat k", the k-th seat to the left of ``me`` (``reseat``:
    ``reseat_every``, by the seats of ``seat_of``; else player ``me + k``)."""
    if reseat:
        return player_in_seat(seat_of, b, (seat_of[b, me] + k) % n_players, n_players)
    return (me + k) % n_players


@kernel(inline="always")
def _k_of(seat_of, b, me, q, n_players, reseat):  # type: ignore[no-untyped-def]
    """Which "seat k" player ``q`` sits in for ``me`` (the inverse of :func:`_seat_k`)."""
    if reseat:
        return (np.int64(seat_of[b, q]) - seat_of[b, me] + n_players) % n_players
    return (q - me + n_players) % n_players


@kernel(inline="always")
def _row(out, b, o_row, row_rank, row_count):  # type: ignore[no-untyped-def]
    """The ``row`` block: one-hot rank of the row of singles (none: all zero), count / 4."""
    _clear(out, b, o_row, NUM_RANKS)
    if row_rank >= 0:
        out[b, o_row + row_rank] = 1.0
    out[b, o_row + NUM_RANKS] = row_count / 4.0


@kernel(inline="always")
def _uecda(out, b, off, jacks, stale, lock, jack_back, pass_run, pile_suits, locked):  # type: ignore[no-untyped-def]
    """The blocks of the UECda server's options, each written only with its option (size 0
    without): ``jack_back``, ``pass_run``, and ``lock``: the top play's five suit bits (clubs ..
    spades, the fifth row), then 1 while the trick is locked to them."""
    if jacks:
        out[b, off[ObsBlock.JACK_BACK]] = _flag(jack_back)
    if stale:
        out[b, off[ObsBlock.PASS_RUN]] = pass_run
    if lock:
        o_lock = off[ObsBlock.LOCK]
        for u in range(LOCK_SIZE - 1):
            out[b, o_lock + u] = pile_suits >> u & 1
        out[b, o_lock + LOCK_SIZE - 1] = _flag(locked)


@kernel(inline="always")
def _asks(out, b, o_asked, o_held, asked, ask_held):  # type: ignore[no-untyped-def]
    """The ``asked`` and ``ask_held`` blocks: per card id, the asks naming it (``asked[i]``,
    -1 not made) and those of them that the Bum held (``ask_held[i] == 1``)."""
    _clear(out, b, o_asked, NUM_CARDS)
    _clear(out, b, o_held, NUM_CARDS)
    for i in range(asked.shape[0]):
        c = asked[i]
        if c >= 0:
            out[b, o_asked + c] += 1.0
            if ask_held[i] == 1:
                out[b, o_held + c] += 1.0


@kernel(inline="always")
def _per_seat(out, b, o_played, o_passed, played, passed, me, n_players, seat_of, reseat):  # type: ignore[no-untyped-def]
    """The history blocks ``seat_played`` and ``seat_passed`` (from ``o_played``,
    ``o_passed``): the rows ``played[q]`` and ``passed[q]`` of each player q, seat k's k-th."""
    for k in range(n_players):
        q = _seat_k(seat_of, b, me, k, n_players, reseat)
        for c in range(played.shape[1]):
            out[b, o_played + k * played.shape[1] + c] = played[q, c]
        for c in range(passed.shape[1]):
            out[b, o_passed + k * passed.shape[1] + c] = passed[q, c]


@kernel(inline="always")
def _recent(  # type: ignore[no-untyped-def]
    out, b, start, recent, me, n_players, kinds, ranks, sizes, seat_of, reseat
):
    """The ``recent`` block: per move (seat, action id; seat -1 for none), most recent first,
    seat k one-hot, kind one-hot, rank one-hot (sets and runs), cards / 8 (``kinds``,
    ``ranks``, ``sizes``: the play tables)."""
    width = n_players + MOVE_SIZE
    _clear(out, b, start, HISTORY_LEN * width)
    for i in range(HISTORY_LEN):
        seat = recent[i, 0]
        if seat < 0:
            continue
        a = recent[i, 1]
        o = start + i * width
        out[b, o + _k_of(seat_of, b, me, seat, n_players, reseat)] = 1.0
        kind = kinds[a]
        out[b, o + n_players + kind] = 1.0
        if (kind == Kind.SET or kind == Kind.RUN) and ranks[a] >= 0:  # (-1: joker below 3)
            out[b, o + n_players + MOVE_KINDS + ranks[a]] = 1.0
        if kind != Kind.PASS:
            out[b, o + n_players + MOVE_KINDS + NUM_RANKS] = sizes[a] / MOVE_SIZE_SCALE


@kernel(inline="always")
def _record(out, b, start, recent, me, n_players, seat_of, reseat):  # type: ignore[no-untyped-def]
    """The ``record`` block: the number of moves of the deal's play so far, then per move (the
    whole of ``recent``, most recent first) seat k + 1 and action id + 1; zeros past the
    first move."""
    n = recent.shape[0]
    _clear(out, b, start, 1 + 2 * n)
    count = 0
    for i in range(n):
        seat = recent[i, 0]
        if seat < 0:
            break
        out[b, start + 1 + 2 * i] = _k_of(seat_of, b, me, seat, n_players, reseat) + 1
        out[b, start + 2 + 2 * i] = recent[i, 1] + 1
        count += 1
    out[b, start] = count


@kernel
def observe_kernel(  # type: ignore[no-untyped-def]
    rp, play_tables, off, arrays, players, deals, out, lo, hi
):
    """``out[b]`` (float32 [B, O]) = the observation of player ``me = players[b]`` in game b;
    "seat k" is the k-th seat to the left of ``me`` round the table (``reseat_every``: by
    ``seat_of``). Every entry is written (``out`` may hold anything on entry): the one-hot
    blocks are cleared first, the others written whole. Games ``lo <= b < hi``. (``play_tables``: what each action id plays, for the ``recent`` block.)"""
    st = Arrays(*arrays)
    tab = PlayTables(*play_tables)
    n_players = rp[RuleParam.PLAYERS]
    pending = rp[RuleParam.REVOLUTION_NEXT_TRICK] != 0  # the blocks of the further variants
    western = rp[RuleParam.WESTERN_REVOLUTION] != 0  # (size 0 when their option is off)
    asks = rp[RuleParam.PRESIDENT_ASKS] != 0
    jacks = rp[RuleParam.JACK_BACK] != 0
    sixes = rp[RuleParam.SIX_REVERSES] != 0
    stale = rp[RuleParam.STALEMATE_PASSES] != 0
    lock = rp[RuleParam.LOCK] != 0
    history = rp[RuleParam.OBSERVATION] != 0  # the history blocks (size 0 under "standard")
    record = rp[RuleParam.OBSERVATION] == 2  # the record block (size 0 unless "record")
    reseat = rp[RuleParam.RESEAT_EVERY] != 0
    for b in range(lo, hi):
        me = players[b]
        _clear(out, b, off[ObsBlock.PILE_KIND], 4)
        _clear(out, b, off[ObsBlock.PILE_RANK], NUM_RANKS)
        _clear(out, b, off[ObsBlock.PHASE], 3)
        _clear(out, b, off[ObsBlock.PLACE], 2 * n_players * n_players)  # place and title
        o_hand, o_gave, o_received = off[ObsBlock.HAND], off[ObsBlock.GAVE], off[ObsBlock.RECEIVED]
        for c in range(NUM_CARDS):  # own cards, and those given and received in the exchange
            out[b, o_hand + c] = st.hands[b, me, c]
            out[b, o_gave + c] = st.gave[b, me, c]
            out[b, o_received + c] = st.received[b, me, c]
        o_played = off[ObsBlock.PLAYED]
        for r in range(PLAYED_SIZE):
            out[b, o_played + r] = st.played[b, r]
        out[b, off[ObsBlock.PILE_KIND] + st.pile_kind[b]] = 1.0
        out[b, off[ObsBlock.PILE_SIZE]] = st.pile_size[b]
        if st.pile_rank[b] >= 0:
            out[b, off[ObsBlock.PILE_RANK] + st.pile_rank[b]] = 1.0
        out[b, off[ObsBlock.REVOLUTION]] = _flag(st.revolution[b])
        to_act = st.current[b] == me
        leading = to_act and st.pile_kind[b] == Kind.PASS and st.phase[b] == Phase.PLAY
        out[b, off[ObsBlock.LEADING]] = _flag(leading)
        out[b, off[ObsBlock.PHASE] + st.phase[b]] = 1.0
        out[b, off[ObsBlock.TO_ACT]] = _flag(to_act)
        for k in range(n_players):  # seat k: cards left, passed, top play, to act, place...
            q = _seat_k(st.seat_of, b, me, k, n_players, reseat)
            left = 0
            hand = st.hands[b, q]
            for c in range(NUM_CARDS):
                left += hand[c]
            out[b, off[ObsBlock.CARDS_LEFT] + k] = left
            out[b, off[ObsBlock.PASSED] + k] = _flag(st.passed[b, q])
            out[b, off[ObsBlock.LAST_PLAYER] + k] = _flag(st.last_player[b] == q)
            out[b, off[ObsBlock.CURRENT] + k] = _flag(st.current[b] == q)
            if st.place[b, q] >= 0:  # one-hot rows of P
                out[b, off[ObsBlock.PLACE] + k * n_players + st.place[b, q]] = 1.0
            if st.title[b, q] >= 0:
                out[b, off[ObsBlock.TITLE] + k * n_players + st.title[b, q]] = 1.0
            out[b, off[ObsBlock.SCORE] + k] = st.scores[b, q]
        out[b, off[ObsBlock.TO_RETURN]] = st.to_return[b, me]
        out[b, off[ObsBlock.DEAL]] = st.deal[b] / deals
        if pending:
            out[b, off[ObsBlock.PENDING]] = _flag(st.pending[b])
        if western or sixes:  # 1: play goes to the right
            right = (western and st.revolution[b]) != st.six_reversed[b]
            out[b, off[ObsBlock.DIRECTION]] = _flag(right)
        if western:
            _row(out, b, off[ObsBlock.ROW], st.row_rank[b], st.row_count[b])
        if asks:
            out[b, off[ObsBlock.ASKS_LEFT]] = st.asks_left[b]
            _asks(out, b, off[ObsBlock.ASKED], off[ObsBlock.ASK_HELD], st.asked[b], st.ask_held[b])
        _uecda(out, b, off, jacks, stale, lock, st.jack_back[b], st.pass_run[b], st.pile_suits[b],
               st.locked[b])
        if history:
            _per_seat(out, b, off[ObsBlock.SEAT_PLAYED], off[ObsBlock.SEAT_PASSED],
                      st.seat_played[b], st.seat_passed[b], me, n_players, st.seat_of, reseat)
            _recent(out, b, off[ObsBlock.RECENT], st.recent[b], me, n_players, tab.kind,
                    tab.rank, tab.size, st.seat_of, reseat)
        if record:
            _record(out, b, off[ObsBlock.RECORD], st.recent[b], me, n_players, st.seat_of, reseat)

