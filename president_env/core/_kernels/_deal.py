"""Deals: the seeded shuffle, the start of a deal (reset, automatic exchange gifts), the end of
a deal (places, titles, scores; the next deal or the end of the game), and new games.

Titles are the places of the previous deal: 0 is the President, 1 the Vice-President,
``P - 2`` the Vice-Bum and ``P - 1`` the Bum.
"""

from __future__ import annotations

import numpy as np

from president_env.core._kernels._jit import kernel
from president_env.core._kernels._seats import player_in_seat, seat_left
from president_env.core._kernels._types import NUM_ASKS, Arrays
from president_env.core.constants import JOKER, NUM_CARDS, NUM_NATURAL, Kind, Phase, Scoring
from president_env.core.rules import SCORINGS, RuleParam

assert tuple(s.name.lower() for s in Scoring) == SCORINGS, "Scoring follows rules.SCORINGS"

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


# ---------------------------------------------------------------- seeded shuffle
@kernel
def splitmix(x: np.uint64) -> tuple[np.uint64, np.uint64]:
    """One step of SplitMix64: the next state and its output."""
    x = x + _GOLDEN
    z = x
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x, z ^ (z >> np.uint64(31))


@kernel(inline="always")
def _keyed(seed, deal_no):  # type: ignore[no-untyped-def]
    """A SplitMix64 state keyed by (seed, deal_no)."""
    x, _r = splitmix(seed)
    return x ^ (np.uint64(deal_no) * np.uint64(0xD1B54A32D192ED03))


@kernel(inline="always")
def _shuffle(x, a, n):  # type: ignore[no-untyped-def]
    """Fisher-Yates shuffle of ``a[:n]`` in place, drawn from the SplitMix64 state ``x``."""
    for i in range(n - 1, 0, -1):
        x, r = splitmix(x)
        j = np.int64(r % np.uint64(i + 1))
        t = a[i]
        a[i] = a[j]
        a[j] = t


@kernel
def deal_into(seed, deal_no, dealer, n_players, n_decks, n_jokers, seat_of, out):  # type: ignore[no-untyped-def]
    """Shuffle the pack with a generator keyed by (seed, deal_no) and deal it into ``out``.

    Cards go one at a time round the table, starting at the dealer's left (the player in seat
    ``seat_of[dealer] + 1``; ``seat_of``: the seat of each player, see :func:`seat_order`).
    """
    in_seat = np.empty(n_players, np.int64)  # the player in each seat
    for q in range(n_players):
        in_seat[seat_of[q]] = q
    n = NUM_NATURAL * n_decks + n_jokers
    deck = np.empty(n, np.int64)
    k = 0
    for _ in range(n_decks):
        for c in range(NUM_NATURAL):
            deck[k] = c
            k += 1
    for _ in range(n_jokers):
        deck[k] = JOKER
        k += 1
    _shuffle(_keyed(np.uint64(seed), deal_no), deck, n)
    out[:] = 0
    for i in range(n):
        out[in_seat[(seat_of[dealer] + 1 + i) % n_players], deck[i]] += 1


@kernel
def stalemate_order(seed, deal_no, n_players, out):  # type: ignore[no-untyped-def]
    """``stalemate_passes``: a permutation of the seats into ``out`` (int64 [P]), shuffled by a
    generator keyed by (seed, deal_no) apart from the deal's: the players still in when the
    deal stalls take the places left in this order. (Seeded runs repeat it exactly.)"""
    for q in range(n_players):
        out[q] = q
    _shuffle(_keyed(np.uint64(seed) ^ np.uint64(0x5851F42D4C957F2D), deal_no), out, n_players)


@kernel
def initial_seat(seed, deal_no, n_players):  # type: ignore[no-untyped-def]
    """``deal_from="president"``: the seat that gets the first card of deal ``deal_no`` when it
    has no titles (the server's random initial person), drawn by a generator keyed by (seed,
    deal_no) apart from the deal's and the stalemate's. (Seeded runs repeat it exactly.)"""
    _x, r = splitmix(_keyed(np.uint64(seed) ^ np.uint64(0x2545F4914F6CDD1D), deal_no))
    return np.int64(r % np.uint64(n_players))


@kernel
def seat_order(seed, deal_no, n_players, out):  # type: ignore[no-untyped-def]
    """``reseat_every``: the players round the table from seat 0 into ``out`` (int64 [P]) for
    the deals from ``deal_no`` on, shuffled by a generator keyed by (seed, deal_no) apart from
    the deal's, the stalemate's and :func:`initial_seat`'s. (Seeded runs repeat it exactly.)"""
    for q in range(n_players):
        out[q] = q
    _shuffle(_keyed(np.uint64(seed) ^ np.uint64(0x9FB21C651E98DF25), deal_no), out, n_players)


@kernel
def rank_the_rest(rp, st: Arrays, b):  # type: ignore[no-untyped-def]
    """The deal stalls (``stalemate_passes``): the players still in take the places left in
    the order of :func:`stalemate_order`; then the deal ends."""
    n_players = rp[RuleParam.PLAYERS]
    order = np.empty(n_players, np.int64)
    stalemate_order(st.seed[b], st.deal[b], n_players, order)
    for i in range(n_players):
        q = order[i]
        if st.place[b, q] < 0:
            st.place[b, q] = st.n_finished[b]
            st.n_finished[b] += 1
    end_deal(rp, st, b)


# ---------------------------------------------------------------- small helpers
@kernel(inline="always")
def seat_with_title(title, b, t, n_players):  # type: ignore[no-untyped-def]
    """The seat of game ``b`` whose title is ``t`` (-1 if none)."""
    for q in range(n_players):
        if title[b, q] == t:
            return q
    return -1


@kernel(inline="always")
def _seat_players(rp, st: Arrays, b):  # type: ignore[no-untyped-def]
    """Seat the players for the deal about to start: player p in seat p at deal 0, or with
    ``reseat_every=n`` in the order of :func:`seat_order` at deals 0, n, 2n, ... (kept in
    between)."""
    n_players = rp[RuleParam.PLAYERS]
    every = rp[RuleParam.RESEAT_EVERY]
    if every == 0:
        if st.deal[b] == 0:
            for q in range(n_players):
                st.seat_of[b, q] = q
        return
    if st.deal[b] % every != 0:
        return
    order = np.empty(n_players, np.int64)
    seat_order(st.seed[b], st.deal[b], n_players, order)
    for s in range(n_players):
        st.seat_of[b, order[s]] = s


@kernel(inline="always")
def give(st: Arrays, b, src, dst, card):  # type: ignore[no-untyped-def]
    """Move one ``card`` from seat ``src`` to seat ``dst`` in the exchange."""
    st.hands[b, src, card] -= 1
    st.hands[b, dst, card] += 1
    st.gave[b, src, card] += 1
    st.received[b, dst, card] += 1


@kernel(inline="always")
def best_card(hands, b, p):  # type: ignore[no-untyped-def]
    """The best card that ``p`` holds (the highest id: the joker, then 2s down), -1 if none."""
    for c in range(NUM_CARDS - 1, -1, -1):
        if hands[b, p, c] > 0:
            return c
    return -1


@kernel(inline="always")
def _deal_points(scoring, place, n_players):  # type: ignore[no-untyped-def]
    """Points of a finishing ``place`` under the ``scoring`` (see :class:`Scoring`)."""
    if scoring == Scoring.PLACES:
        return n_players - place
    if scoring == Scoring.PRESIDENT_VP:
        if place == 0:
            return 2
        return 1 if place == 1 and n_players >= 4 else 0
    return 1 if place == 0 else 0  # tally of presidencies


# ---------------------------------------------------------------- start of a deal
@kernel(inline="always")
def titles_cleared(rp, deal_no):  # type: ignore[no-untyped-def]
    """Whether deal ``deal_no`` starts without titles: the first deal, and with
    ``title_reset_every=n`` deals n, 2n, ..., which are dealt and led as the first, with no
    exchange (``st.title`` keeps the last deal's places: the rewards of the step that ended
    it read them, and they stay in view)."""
    every = rp[RuleParam.TITLE_RESET_EVERY]
    return deal_no == 0 or (every > 0 and deal_no % every == 0)


@kernel(inline="always")
def _dealer(rp, st: Arrays, b):  # type: ignore[no-untyped-def]
    """The dealer of the deal about to start (the first card goes to the seat after it): the
    player in seat P - 1 in a deal without titles, else the previous Bum; with
    ``deal_from="president"`` the player seated before the President (before the player
    :func:`initial_seat` draws without titles)."""
    n_players = rp[RuleParam.PLAYERS]
    fresh = titles_cleared(rp, st.deal[b])
    if rp[RuleParam.DEAL_FROM] == 0:
        if fresh:
            return player_in_seat(st.seat_of, b, n_players - 1, n_players)
        return seat_with_title(st.title, b, n_players - 1, n_players)
    if fresh:
        first = initial_seat(st.seed[b], st.deal[b], n_players)
    else:
        first = seat_with_title(st.title, b, 0, n_players)
    return seat_left(st.seat_of, b, first, -1, n_players)


@kernel(inline="always")
def _reset_deal(st: Arrays, b):  # type: ignore[no-untyped-def]
    """An empty pile, nobody passed or finished, no revolution (none pending, no row of
    singles), nothing played, exchanged or asked, no history (``seat_played``,
    ``seat_passed``, ``recent``)."""
    st.pile_kind[b] = Kind.PASS
    st.pile_rank[b] = -1
    st.pile_size[b] = 0
    st.last_player[b] = -1
    st.passed[b, :] = False
    st.revolution[b] = False
    st.place[b, :] = -1
    st.n_finished[b] = 0
    st.played[b, :] = 0
    st.gave[b, :, :] = 0
    st.received[b, :, :] = 0
    st.to_return[b, :] = 0
    st.pending[b] = False
    st.row_rank[b] = -1
    st.row_count[b] = 0
    st.asks_left[b] = 0
    st.asked[b, :] = -1
    st.ask_held[b, :] = -1
    st.jack_back[b] = False
    st.six_reversed[b] = False
    st.pass_run[b] = 0
    st.seat_played[b, :, :] = 0
    st.seat_passed[b, :, :] = 0
    st.recent[b, :, :] = -1
    st.pile_suits[b] = 0
    st.locked[b] = False
    st.phase[b] = Phase.PLAY


@kernel(inline="always")
def first_lead(rp, st: Arrays, b):  # type: ignore[no-untyped-def]
    """Who leads the first deal (every deal with ``first_lead_every_deal``, after its
    exchange): the player in seat 0, or in the lowest seat holding the 3 of clubs (card 0) or
    of diamonds (card 1; seat 0 if nobody holds it)."""
    lead = rp[RuleParam.FIRST_LEAD]
    n_players = rp[RuleParam.PLAYERS]
    if lead != 1:  # (1: "seat0")
        card = 1 if lead == 2 else 0
        for s in range(n_players):
            q = player_in_seat(st.seat_of, b, s, n_players)
            if st.hands[b, q, card] > 0:
                return q
    return player_in_seat(st.seat_of, b, 0, n_players)


@kernel(inline="always")
def _exchange_gifts(rp, st: Arrays, b, bum):  # type: ignore[no-untyped-def]
    """The Bum gives its two best cards to the President (and, with 4+ players, the Vice-Bum
    its best card to the Vice-President), who then return as many: the President acts. With
    ``president_asks`` the Bum's cards go as the President asks for them (``asks_left``)."""
    n_players = rp[RuleParam.PLAYERS]
    president = seat_with_title(st.title, b, 0, n_players)
    if rp[RuleParam.PRESIDENT_ASKS] != 0:
        held = 0
        for c in range(NUM_CARDS):
            held += st.hands[b, bum, c]
        st.asks_left[b] = min(NUM_ASKS, held)
    else:
        for _ in range(2):
            give(st, b, bum, president, best_card(st.hands, b, bum))
        st.to_return[b, president] = 2
    if n_players >= 4:
        vice_bum = seat_with_title(st.title, b, n_players - 2, n_players)
        vice = seat_with_title(st.title, b, 1, n_players)
        give(st, b, vice_bum, vice, best_card(st.hands, b, vice_bum))
        st.to_return[b, vice] = 1
    st.phase[b] = Phase.EXCHANGE
    st.current[b] = president


@kernel
def start_deal(rp, st: Arrays, b, deal_cards):  # type: ignore[no-untyped-def]
    """Deal (unless the hands were given), reset the deal's state, run the automatic gifts."""
    n_players = rp[RuleParam.PLAYERS]
    if deal_cards:
        deal_into(st.seed[b], st.deal[b], st.dealer[b], n_players, rp[RuleParam.DECKS],
                  rp[RuleParam.JOKERS], st.seat_of[b], st.hands[b])
    _reset_deal(st, b)
    if titles_cleared(rp, st.deal[b]):  # the first deal (and title_reset_every's): no exchange
        st.current[b] = first_lead(rp, st, b)
        return
    bum = seat_with_title(st.title, b, n_players - 1, n_players)
    st.current[b] = bum  # the Bum leads the deals after the first (first_lead_every_deal: see
    if rp[RuleParam.FIRST_LEAD_EVERY_DEAL] != 0:  # first_lead, after the exchange if any)
        st.current[b] = first_lead(rp, st, b)
    if rp[RuleParam.EXCHANGE] != 0:
        _exchange_gifts(rp, st, b, bum)


# ---------------------------------------------------------------- end of a deal
@kernel
def end_deal(rp, st: Arrays, b):  # type: ignore[no-untyped-def]
    """The last player gets the last place; titles and scores; the next deal or game over."""
    n_players = rp[RuleParam.PLAYERS]
    for q in range(n_players):
        if st.place[b, q] < 0:
            st.place[b, q] = n_players - 1
    st.n_finished[b] = n_players
    best = 0
    for q in range(n_players):
        pl = st.place[b, q]
        st.title[b, q] = pl
        st.scores[b, q] += _deal_points(rp[RuleParam.SCORING], pl, n_players)
        if st.scores[b, q] > best:
            best = st.scores[b, q]
    st.deal_over[b] = True
    target = rp[RuleParam.TARGET_SCORE]
    if st.deal[b] + 1 >= rp[RuleParam.DEALS] or (target > 0 and best >= target):
        st.phase[b] = Phase.DONE
        st.current[b] = -1
        return
    st.deal[b] += 1
    _seat_players(rp, st, b)  # (reseat_every: drawn again at deals n, 2n, ...)
    st.dealer[b] = _dealer(rp, st, b)  # the Bum (deal_from: the seat before the President)
    start_deal(rp, st, b, True)


# ---------------------------------------------------------------- new games
@kernel(inline="always")
def _new_game(rp, st: Arrays, b):  # type: ignore[no-untyped-def]
    """No titles or scores yet, deal 0, players seated (``reseat_every``: drawn), dealt by
    seat P - 1 (``deal_from="president"``: by the seat before :func:`initial_seat`)."""
    st.title[b, :] = -1
    st.scores[b, :] = 0
    st.deal[b] = 0
    _seat_players(rp, st, b)
    st.dealer[b] = _dealer(rp, st, b)


@kernel
def init_kernel(rp, arrays, deal_cards):  # type: ignore[no-untyped-def]
    """Start every game: the arrays hold zeros, seeds are set (and hands, unless
    ``deal_cards``)."""
    st = Arrays(*arrays)
    for b in range(st.phase.shape[0]):
        _new_game(rp, st, b)
        st.deal_over[b] = False
        start_deal(rp, st, b, deal_cards)


@kernel
def new_game(rp, st: Arrays, b, seed):  # type: ignore[no-untyped-def]
    """Start a new game (seeded deal) in game ``b``."""
    st.seed[b] = seed
    _new_game(rp, st, b)
    start_deal(rp, st, b, True)


@kernel
def reset_where(rp, arrays, done, new_seeds, lo, hi):  # type: ignore[no-untyped-def]
    """Start a new game (seeded deal) in every game ``lo <= b < hi`` where ``done[b]``."""
    st = Arrays(*arrays)
    for b in range(lo, hi):
        if done[b]:
            new_game(rp, st, b, new_seeds[b])
