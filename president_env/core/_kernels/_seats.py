"""The seats round the table: who sits where, and who is next.

Player ``p`` sits in seat ``p`` unless ``reseat_every`` draws the seats
(:func:`~._deal.seat_order`; ``State.seat_of`` holds the seat of each player). Play goes to
the left (seat s + 1) or, in the direction of play (:func:`direction`), to the right; every
"next seat" of the rules (the next to act, the leader after a trick, the deal, the dealer) goes
round the table by seat.
"""

from __future__ import annotations

import numpy as np

from president_env.core._kernels._jit import kernel


@kernel(inline="always")
def player_in_seat(seat_of, b, s, n_players):  # type: ignore[no-untyped-def]
    """The player of game ``b`` in seat ``s`` (``seat_of``: the state's seat of each player)."""
    for q in range(n_players):
        if seat_of[b, q] == s:
            return q
    return -1


@kernel(inline="always")
def seat_left(seat_of, b, q, k, n_players):  # type: ignore[no-untyped-def]
    """The player ``k`` seats to the left of player ``q`` round the table (k may be < 0)."""
    return player_in_seat(seat_of, b, (seat_of[b, q] + k + n_players) % n_players, n_players)


@kernel(inline="always")
def next_active(place, passed, b, seat, n_players, skip_passed, d):  # type: ignore[no-untyped-def]
    """Next seat from ``seat`` in direction ``d`` (1: to the left, -1: to the right) still
    holding cards (and not passed, if asked)."""
    for i in range(1, n_players + 1):
        q = (seat + n_players + d * i) % n_players
        if place[b, q] < 0 and not (skip_passed and passed[b, q]):
            return q
    return -1


@kernel(inline="always")
def next_seated(place, passed, b, seat, n_players, skip_passed, d, seat_of, reseat):  # type: ignore[no-untyped-def]
    """:func:`next_active` round the table: with ``reseat`` (``reseat_every``) the nearest
    player in direction ``d`` by the seats of ``seat_of`` (``seat`` itself last), else by id."""
    if not reseat:
        return next_active(place, passed, b, seat, n_players, skip_passed, d)
    here = np.int64(seat_of[b, seat])
    best, nearest = -1, n_players + 1
    for q in range(n_players):
        if place[b, q] < 0 and not (skip_passed and passed[b, q]):
            k = (d * (np.int64(seat_of[b, q]) - here) + 2 * n_players) % n_players
            k = n_players if k == 0 else k
            if k < nearest:
                best, nearest = q, k
    return best


@kernel(inline="always")
def direction(western, revolution, six_reversed):  # type: ignore[no-untyped-def]
    """Direction of play: -1 (to the right) in a revolution with ``western_revolution``
    (``RuleParam.WESTERN_REVOLUTION``), else 1 (to the left); the other way round while
    ``six_reversed`` (``six_reverses``). (Scalars only: handing ``rp`` to a helper in a game
    loop costs a reference count per call.)"""
    return -1 if (western and revolution) != six_reversed else 1
