"""One action: the cards it takes, what it does to the trick (clears, revolution, going out),
the exchange's returned cards, and who acts next.

:func:`step_kernel` reads as the rules of a turn; its helpers take the game's numbers and the
few arrays they touch (see :mod:`._types` on why not the whole state inside the loop).

The variants of RULES.md section 12, each behind its rule parameter (read once per call, so a
game without them runs the same instructions as before): a bomb (:func:`is_bomb`) clears the
pile; with ``revolution_timing="next_trick"`` a revolving play toggles ``pending``, which the
end of the trick applies before the next leader is found; with ``western_revolution`` play
turns to the right during a revolution (:func:`direction`) and a row of four single natural
cards of one rank in a trick revolts too; with ``president_asks`` the exchange starts with the
President's asks (``Kind.ASK``), answered at once from the Bum's hand. The UECda server's
rules: with ``play_on_own`` the trick ends only when the last player to play has passed too
(:func:`_trick_won`), so he may play again on his own play; with ``jack_back`` a play
holding a J (:func:`_holds_rank`) toggles ``jack_back`` until the trick ends, and the order in
force is ``revolution != jack_back``; with ``six_reverses`` a play holding a 6 toggles
``six_reversed``, which turns the direction of play (:func:`direction`) until the deal ends;
with ``stalemate_passes`` that many passes in a row (``pass_run``) end the deal, the players
still in ranked from the game's seed (:func:`~._deal.rank_the_rest`); with ``reseat_every``
the next player is the next round the table by ``seat_of`` (:func:`~._seats.next_seated`).

The public history of the deal is kept only with ``observation="history"`` or ``"record"``
(``RuleParam.OBSERVATION``; :func:`step_kernel` runs a copy of its loop compiled for each
value, so the default rules run no instruction of it): the cards each seat played
(``seat_played``, with the public memory in :func:`_take`), what each seat passed on
(:func:`_note_pass`) and the last moves of the play phase (:func:`_note_move`). Otherwise
those fields keep their values of the deal's start (zeros, ``recent`` -1).

:func:`take_cards` is the one statement of which cards an action takes from a hand (also the
documented choice of :meth:`~president_env.core.actions.ActionLayout.cards_for`): a set uses
natural cards lowest suit first and jokers for the rest, a run one natural card of its suit
(mixed suits: the lowest suit held) for each place held and a joker for each other; with
``exact_plays`` an action names its cards (a set's suits and joker, a run's joker place).
"""

from __future__ import annotations

import numpy as np

from president_env.core._kernels._deal import (
    best_card,
    end_deal,
    first_lead,
    give,
    rank_the_rest,
    seat_with_title,
)
from president_env.core._kernels._jit import kernel
from president_env.core._kernels._seats import direction, next_seated
from president_env.core._kernels._types import (
    NUM_ASKS,
    PASS_OTHER,
    Arrays,
    PlayTables,
)
from president_env.core.constants import (
    EIGHT,
    JACK,
    JOKER,
    NUM_CARDS,
    NUM_RANKS,
    NUM_SUITS,
    SIX,
    TOP,
    Kind,
    Phase,
)
from president_env.core.rules import RuleParam


# ---------------------------------------------------------------- cards of an action
@kernel(inline="always")
def take_cards(hand, kind, rank, size, suit, card, out):  # type: ignore[no-untyped-def]
    """Write into ``out`` (an int vector of 53 counts) the cards that the action (kind, rank,
    size, suit, card: one row of the action tables) takes from ``hand`` (53 counts).

    A pass or an ask takes nothing; a run of suit -1 (mixed suits) takes the lowest suit held
    of each rank; the hand is assumed able to make the play (see the mask). With
    ``exact_plays`` a set's ``suit`` is the mask of its natural suits and ``card`` the joker's
    row (-1: none), a run's ``card`` the joker's offset from its bottom (-1: none).
    """
    out[:] = 0
    if kind == Kind.SET and suit >= 0:  # exact_plays
        for u in range(NUM_SUITS):
            out[rank * NUM_SUITS + u] = suit >> u & 1
        out[JOKER] = 1 if card >= 0 else 0
    elif kind == Kind.RUN and card >= 0:  # exact_plays, with the joker at offset card
        for i in range(size):
            if i != card:
                out[(rank + i) * NUM_SUITS + suit] = 1
        out[JOKER] = 1
    elif kind == Kind.SET:
        need = size
        for u in range(NUM_SUITS):
            c = rank * NUM_SUITS + u
            t = min(hand[c], need)
            out[c] = t
            need -= t
        out[JOKER] = need
    elif kind == Kind.JOKERS:
        out[JOKER] = size
    elif kind == Kind.RUN:
        missing = 0
        for r in range(rank, rank + size):
            c = r * NUM_SUITS + suit
            if suit < 0:  # mixed suits: the lowest suit held
                c = r * NUM_SUITS
                while c < (r + 1) * NUM_SUITS - 1 and hand[c] == 0:
                    c += 1
            if hand[c] > 0:
                out[c] = 1
            else:
                missing += 1
        out[JOKER] = missing
    elif kind == Kind.GIVE:
        out[card] = 1


@kernel(inline="always")
def _take(  # type: ignore[no-untyped-def]
    hands, played, seat_played, history, b, p, kind, rank, size, suit, card, taken
):
    """Take the cards of a play from the hand of ``p`` into the public memory of cards played,
    per rank, and per seat if ``history`` (``taken``: int8 [53] scratch)."""
    take_cards(hands[b, p], kind, rank, size, suit, card, taken)
    lo = hi = 0  # the natural cards the play may take: one rank, or a run's ranks
    if kind == Kind.SET:
        lo, hi = rank * NUM_SUITS, (rank + 1) * NUM_SUITS
    elif kind == Kind.RUN:  # (run_joker_ends: the joker's place may lie outside the ranks)
        lo, hi = max(rank, 0) * NUM_SUITS, min(rank + size, NUM_RANKS) * NUM_SUITS
    for c in range(lo, hi):
        hands[b, p, c] -= taken[c]
        played[b, c // NUM_SUITS] += taken[c]
        if history:  # a constant (see step_kernel)
            seat_played[b, p, c] += taken[c]
    hands[b, p, JOKER] -= taken[JOKER]
    played[b, JOKER // NUM_SUITS] += taken[JOKER]  # played[13] counts the jokers
    if history:
        seat_played[b, p, JOKER] += taken[JOKER]


@kernel(inline="always")
def _note_move(recent, b, p, a):  # type: ignore[no-untyped-def]
    """History: seat ``p`` took action ``a`` in the play phase; the older moves shift by one
    (``recent`` keeps the last 8 moves, or every move of the deal with ``"record"``)."""
    for i in range(recent.shape[1] - 1, 0, -1):
        recent[b, i, 0] = recent[b, i - 1, 0]
        recent[b, i, 1] = recent[b, i - 1, 1]
    recent[b, 0, 0] = p
    recent[b, 0, 1] = a


@kernel(inline="always")
def _note_pass(seat_passed, b, p, pile_kind, pile_rank, pile_size):  # type: ignore[no-untyped-def]
    """History: ``p`` passes on the top play (a set of its size, 4 and more alike, and rank;
    or a run or a jokers-only set, one entry for both)."""
    if pile_kind == Kind.SET:
        seat_passed[b, p, (min(pile_size, 4) - 1) * NUM_RANKS + pile_rank] = 1
    elif pile_kind != Kind.PASS:
        seat_passed[b, p, PASS_OTHER] = 1


@kernel(inline="always")
def _clears(rp, kind, rank, size, rev, on_joker):  # type: ignore[no-untyped-def]
    """Whether the play clears the pile: a set of the top rank (2s; 3s in a revolution) with
    ``top_rank_clears``; a set of 8s, or a run through the 8, with ``eight_clears``; a set on
    a lone joker (``on_joker``: the 3 of spades, the one that may follow it) with
    ``spade_three_beats_joker``."""
    if on_joker and kind == Kind.SET and rp[RuleParam.SPADE_THREE_BEATS_JOKER] != 0:
        return True
    eights = rp[RuleParam.EIGHT_CLEARS] != 0
    if kind == Kind.SET:
        top = 0 if rev else TOP
        return (rp[RuleParam.TOP_RANK_CLEARS] != 0 and rank == top) or (eights and rank == EIGHT)
    if kind == Kind.RUN:
        return eights and rank <= EIGHT < rank + size
    return False


@kernel(inline="always")
def _holds_rank(on, kind, rank, size, r):  # type: ignore[no-untyped-def]
    """With ``on`` (its option's flag), whether a play holds a card of rank ``r``: a set of
    that rank (jokers standing in count) or a run through it; never jokers alone. A J turns
    the order until the trick ends (``jack_back``), a 6 the direction (``six_reverses``)."""
    if not on:
        return False
    if kind == Kind.SET:
        return rank == r
    return kind == Kind.RUN and rank <= r < rank + size


@kernel(inline="always")
def _turn(jack_back, six_reversed, b, jacks, sixes, kind, rank, size):  # type: ignore[no-untyped-def]
    """A play holding a J turns the order until the trick ends (``jacks``: ``jack_back``),
    one holding a 6 the direction of play until the deal ends (``sixes``: ``six_reverses``)."""
    jack_back[b] = jack_back[b] != _holds_rank(jacks, kind, rank, size, JACK)
    six_reversed[b] = six_reversed[b] != _holds_rank(sixes, kind, rank, size, SIX)


@kernel(inline="always")
def play_suits(kind, suit, card):  # type: ignore[no-untyped-def]
    """``exact_plays``: the suits of a play (bit ``1 << suit``): a set's natural suits and the
    joker's row (16 beside all four suits), a run's suit; 0 for jokers alone."""
    if kind == Kind.SET:
        return suit | (1 << card if card >= 0 else 0)
    if kind == Kind.RUN:
        return 1 << suit
    return 0


@kernel(inline="always")
def _lock(lock, pile_suits, locked, b, pile_kind, kind, suit, card):  # type: ignore[no-untyped-def]
    """With ``lock``: a play of the suits of the play it follows locks the trick; a lone joker
    clears the lock (it ignores it too: see the mask)."""
    if not lock:
        return
    suits = play_suits(kind, suit, card)
    if kind == Kind.JOKERS:
        locked[b] = False
    elif pile_kind != Kind.PASS and suits == pile_suits[b]:
        locked[b] = True
    pile_suits[b] = suits


@kernel(inline="always")
def _top_play(lock, pile_kind, pile_rank, pile_size, last_player, pile_suits, locked, b, p, kind,  # type: ignore[no-untyped-def]
              rank, size, suit, card):
    """The play of ``p`` goes on top of the pile (with ``lock`` its suits, and the lock they
    make); returns whether it went on a lone joker (``spade_three_beats_joker``)."""
    on_joker = pile_kind[b] == Kind.JOKERS
    _lock(lock, pile_suits, locked, b, pile_kind[b], kind, suit, card)
    pile_kind[b] = kind
    pile_rank[b] = rank
    pile_size[b] = size
    last_player[b] = p
    return on_joker


@kernel(inline="always")
def _went_out(hands, place, n_finished, b, p):  # type: ignore[no-untyped-def]
    """If ``p`` holds no card, the next place is theirs; returns whether they went out."""
    for c in range(NUM_CARDS):
        if hands[b, p, c] != 0:
            return False
    place[b, p] = n_finished[b]
    n_finished[b] += 1
    return True


@kernel(inline="always")
def new_trick(  # type: ignore[no-untyped-def]
    pile_kind, pile_rank, pile_size, last_player, passed, place, current, b, winner, n_players, d,
    pile_suits, locked, seat_of, reseat
):
    """Clear the pile (and ``lock``'s suits and lock); the winner leads, or the next seat in
    direction ``d`` holding cards. With no winner (-1: everyone passed on the empty pile,
    ``lead_may_pass``) the seat after the last to pass (``current``) holding cards, the leader,
    leads again. (``seat_of``, ``reseat``: see :func:`~._seats.next_seated`.)"""
    pile_suits[b] = 0
    locked[b] = False
    pile_kind[b] = Kind.PASS
    pile_rank[b] = -1
    pile_size[b] = 0
    last_player[b] = -1
    passed[b, :] = False
    if winner >= 0 and place[b, winner] < 0:
        current[b] = winner
    else:
        after = winner if winner >= 0 else current[b]
        current[b] = next_seated(place, passed, b, after, n_players, False, d, seat_of, reseat)


@kernel(inline="always")
def _trick_won(place, passed, b, last_player, n_players, own):  # type: ignore[no-untyped-def]
    """Whether everyone else still holding cards has passed since the top play (with ``own``,
    ``play_on_own``: everyone, the last player too)."""
    for q in range(n_players):
        if (own or q != last_player) and place[b, q] < 0 and not passed[b, q]:
            return False
    return True


@kernel(inline="always")
def _revolts(rp, kind, size):  # type: ignore[no-untyped-def]
    """Whether the play reverses the rank order: a set (or jokers alone) of 4+ cards, with
    ``revolution``; a run of ``run_revolution`` or more cards."""
    if rp[RuleParam.REVOLUTION] == 0:
        return False
    if kind == Kind.RUN:
        return rp[RuleParam.RUN_REVOLUTION] > 0 and size >= rp[RuleParam.RUN_REVOLUTION]
    return size >= 4


@kernel(inline="always")
def is_bomb(bombs, kind, size):  # type: ignore[no-untyped-def]
    """Whether a play is a bomb: a set or jokers-only set of ``bombs`` (``RuleParam.BOMBS``,
    0 for none) or more cards."""
    return bombs > 0 and (kind == Kind.SET or kind == Kind.JOKERS) and size >= bombs


@kernel(inline="always")
def _row_of_singles(row_rank, row_count, b, kind, rank, size):  # type: ignore[no-untyped-def]
    """Western revolution: count a single natural card into the trick's row of singles of one
    rank (any other play breaks the row); returns whether it is the fourth, which revolts (the
    row then starts again)."""
    if kind != Kind.SET or size != 1:
        row_rank[b] = -1
        row_count[b] = 0
        return False
    if row_rank[b] == rank:
        row_count[b] += 1
    else:
        row_rank[b] = rank
        row_count[b] = 1
    if row_count[b] < 4:
        return False
    row_rank[b] = -1
    row_count[b] = 0
    return True


@kernel(inline="always")
def _end_of_trick(revolution, pending, row_rank, row_count, b):  # type: ignore[no-untyped-def]
    """The trick ends: a pending revolution takes effect, the row of singles is broken."""
    if pending[b]:
        revolution[b] = not revolution[b]
        pending[b] = False
    row_rank[b] = -1
    row_count[b] = 0


@kernel(inline="always")
def _return_card(rp, st: Arrays, b, p, card):  # type: ignore[no-untyped-def]
    """Exchange: ``p`` gives back ``card`` to its partner (President to Bum, Vice to
    Vice-Bum); once all is returned, the Bum leads (``first_lead_every_deal``: the seat that
    :func:`~._deal.first_lead` picks in the hands after the exchange)."""
    n_players = rp[RuleParam.PLAYERS]
    partner = seat_with_title(st.title, b, n_players - 1 - st.title[b, p], n_players)
    give(st, b, p, partner, card)
    st.to_return[b, p] -= 1
    if st.to_return[b, p] != 0:
        return
    for q in range(n_players):
        if st.to_return[b, q] > 0:
            st.current[b] = q
            return
    st.phase[b] = Phase.PLAY
    st.current[b] = seat_with_title(st.title, b, n_players - 1, n_players)
    if rp[RuleParam.FIRST_LEAD_EVERY_DEAL] != 0:
        st.current[b] = first_lead(rp, st, b)


@kernel(inline="always")
def _ask(rp, st: Arrays, b, p, card):  # type: ignore[no-untyped-def]
    """``president_asks``: the President ``p`` names ``card``; the Bum gives one copy if held,
    else its best card. After the last ask the President returns as many cards as asked."""
    n_players = rp[RuleParam.PLAYERS]
    bum = seat_with_title(st.title, b, n_players - 1, n_players)
    i = 0
    while i < NUM_ASKS - 1 and st.asked[b, i] >= 0:
        i += 1
    st.asked[b, i] = card
    held = st.hands[b, bum, card] > 0
    st.ask_held[b, i] = 1 if held else 0
    give(st, b, bum, p, card if held else best_card(st.hands, b, bum))
    st.asks_left[b] -= 1
    if st.asks_left[b] == 0:
        st.to_return[b, p] = i + 1


@kernel(inline="always")
def _exchange_move(rp, st: Arrays, b, p, kind, card):  # type: ignore[no-untyped-def]
    """A move of the exchange: an ask (``president_asks``) or a card given back."""
    if kind == Kind.ASK:
        _ask(rp, st, b, p, card)
    else:
        _return_card(rp, st, b, p, card)


@kernel
def step_kernel(rp, tables, arrays, actions, lo, hi):  # type: ignore[no-untyped-def]
    """Every game ``lo <= b < hi`` with ``actions[b] >= 0`` takes that (legal) action: the
    rules of a turn (:func:`_step_games`). Its loop is compiled twice, with and without the
    history of ``observation="history"``: a flag read at run time in one loop still cost the
    default rules ~3% of a step (registers for three more arrays), a constant costs nothing."""
    if rp[RuleParam.OBSERVATION] != 0:
        _step_games(rp, tables, arrays, actions, lo, hi, True)
    else:
        _step_games(rp, tables, arrays, actions, lo, hi, False)


@kernel(inline="always")
def _step_games(rp, tables, arrays, actions, lo, hi, history):  # type: ignore[no-untyped-def]
    """The rules of a turn in every game stepped, keeping the deal's history iff ``history``
    (a constant at each call). (One body, not split into a per-game helper: handing a helper
    the dozen arrays of a turn costs more reference counting than the turn itself.)"""
    st = Arrays(*arrays)
    tab = PlayTables(*tables)
    taken = np.zeros(NUM_CARDS, np.int8)
    n_players = rp[RuleParam.PLAYERS]
    next_trick = rp[RuleParam.REVOLUTION_NEXT_TRICK] != 0
    western = rp[RuleParam.WESTERN_REVOLUTION] != 0
    variants = next_trick or western  # what the end of a trick has to apply
    bombs = rp[RuleParam.BOMBS]
    own = rp[RuleParam.PLAY_ON_OWN] != 0
    jacks = rp[RuleParam.JACK_BACK] != 0
    sixes = rp[RuleParam.SIX_REVERSES] != 0
    stale = rp[RuleParam.STALEMATE_PASSES]
    lock = rp[RuleParam.LOCK] != 0
    reseat = rp[RuleParam.RESEAT_EVERY] != 0
    for b in range(lo, hi):
        a = actions[b]
        if a < 0:
            continue  # not stepped this time
        st.deal_over[b] = False
        if st.phase[b] == Phase.DONE:
            continue
        p = st.current[b]
        if st.phase[b] == Phase.EXCHANGE:
            _exchange_move(rp, st, b, p, tab.kind[a], tab.card[a])
            continue
        winner, kind = -1, tab.kind[a]  # (winner: who wins the trick with it; -1: it goes on)
        if history:
            _note_move(st.recent, b, p, a)
        if kind == Kind.PASS:
            st.passed[b, p] = True
            if history:
                _note_pass(st.seat_passed, b, p, st.pile_kind[b], st.pile_rank[b],
                           st.pile_size[b])
            st.pass_run[b] += 1
            if st.pass_run[b] == stale:  # stalemate_passes (0: never) end the deal
                rank_the_rest(rp, st, b)
                continue
        else:
            st.pass_run[b] = 0
            rank, size = tab.rank[a], tab.size[a]  # (rank -1: jokers alone)
            rev = st.revolution[b] != st.jack_back[b]  # the order in force
            _take(st.hands, st.played, st.seat_played, history, b, p, kind, rank, size,
                  tab.suit[a], tab.card[a], taken)
            revolts = _revolts(rp, kind, size)
            if western and _row_of_singles(st.row_rank, st.row_count, b, kind, rank, size):
                revolts = True
            if revolts and next_trick:
                st.pending[b] = not st.pending[b]
            elif revolts:
                st.revolution[b] = not st.revolution[b]
            _turn(st.jack_back, st.six_reversed, b, jacks, sixes, kind, rank, size)
            on_joker = _top_play(lock, st.pile_kind, st.pile_rank, st.pile_size, st.last_player,
                                 st.pile_suits, st.locked, b, p, kind, rank, size, tab.suit[a],
                                 tab.card[a])
            if rp[RuleParam.PASS_IS_FINAL] == 0:
                st.passed[b, :] = False  # a play brings back everyone who passed
            went_out = _went_out(st.hands, st.place, st.n_finished, b, p)
            if went_out and st.n_finished[b] == n_players - 1:
                end_deal(rp, st, b)  # the last player takes the last place
                continue
            if _clears(rp, kind, rank, size, rev, on_joker) or is_bomb(bombs, kind, size):
                winner = p
        over = winner >= 0 or _trick_won(st.place, st.passed, b, st.last_player[b], n_players, own)
        if over and winner < 0:
            winner = st.last_player[b]  # (-1: nobody played, lead_may_pass: see new_trick)
        if over and variants:  # a pending revolution first, then the next leader
            _end_of_trick(st.revolution, st.pending, st.row_rank, st.row_count, b)
        d = direction(western, st.revolution[b], st.six_reversed[b])
        if over:
            st.jack_back[b] = False
            new_trick(st.pile_kind, st.pile_rank, st.pile_size, st.last_player, st.passed,
                      st.place, st.current, b, winner, n_players, d, st.pile_suits, st.locked,
                      st.seat_of, reseat)
        else:
            st.current[b] = next_seated(st.place, st.passed, b, p, n_players, True, d,
                                        st.seat_of, reseat)
