"""Helpers over actions shared by the three levels: the action tables, the order in effect,
the strength of a play, the jokers it uses (the cards it takes: the engine's
:func:`~president_env.core.take_cards`).

Ranks are ``0`` (3) .. ``12`` (2) in the usual order; the order in effect is compared through
:func:`key`, ``rank`` or ``12 - rank`` during a revolution. A run's suit is -1 with
``runs_mixed_suits`` (:func:`run_holds`: any natural card of the rank). :func:`is_bomb` and
:func:`revolts` say what a play does beyond its strength (``bombs``, ``revolution``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from agents.kernels._cache import kernel
from president_env.core.actions import ActionLayout
from president_env.core.constants import JACK, JOKER, NUM_CARDS, NUM_RANKS, TOP, Kind
from president_env.core.rules import RuleParam


class Actions(NamedTuple):
    """Per action id (int64 [A]): its kind, rank (bottom of a run), size, suit (runs) and card
    (gifts), as :class:`~president_env.core.actions.ActionLayout` defines them."""

    kind: np.ndarray
    rank: np.ndarray
    size: np.ndarray
    suit: np.ndarray
    card: np.ndarray


def action_tables(layout: ActionLayout) -> Actions:
    """The tables of ``layout`` as the kernels read them."""
    return Actions(
        layout.kind.astype(np.int64),
        layout.rank.astype(np.int64),
        layout.size.astype(np.int64),
        layout.suit.astype(np.int64),
        layout.card.astype(np.int64),
    )


@kernel(inline="always")
def key(r, rev):  # type: ignore[no-untyped-def]
    """Rank ``r`` in the order in effect (higher is stronger)."""
    return TOP - r if rev else r


@kernel(inline="always")
def hand_total(hand):  # type: ignore[no-untyped-def]
    """Cards in a hand (53 counts)."""
    total = 0
    for c in range(NUM_CARDS):
        total += hand[c]
    return total


@kernel(inline="always")
def naturals(hand, nat):  # type: ignore[no-untyped-def]
    """Natural cards per rank of ``hand``, into ``nat``."""
    for r in range(NUM_RANKS):
        nat[r] = hand[4 * r] + hand[4 * r + 1] + hand[4 * r + 2] + hand[4 * r + 3]


@kernel(inline="always")
def run_holds(hand, r, suit):  # type: ignore[no-untyped-def]
    """Whether ``hand`` has a natural card for rank ``r`` of a run of ``suit`` (any suit for a
    suitless run, ``suit`` -1: ``runs_mixed_suits``)."""
    if suit < 0:
        return hand[4 * r] + hand[4 * r + 1] + hand[4 * r + 2] + hand[4 * r + 3] > 0
    return hand[4 * r + suit] > 0


@kernel(inline="always")
def run_missing(hand, bottom, length, suit):  # type: ignore[no-untyped-def]
    """Cards of the run (bottom, length, suit) that ``hand`` lacks (jokers stand in)."""
    miss = 0
    if suit < 0:
        for r in range(bottom, bottom + length):
            if hand[4 * r] + hand[4 * r + 1] + hand[4 * r + 2] + hand[4 * r + 3] == 0:
                miss += 1
        return miss
    for r in range(bottom, bottom + length):
        if hand[4 * r + suit] == 0:
            miss += 1
    return miss


@kernel(inline="always")
def is_bomb(k, n, rp):  # type: ignore[no-untyped-def]
    """``bombs``: the play (kind, size) is a bomb (a set or jokers-only set of at least
    ``bombs`` cards: it goes on any pile and clears it)."""
    b = rp[RuleParam.BOMBS]
    return b != 0 and (k == Kind.SET or k == Kind.JOKERS) and n >= b


@kernel(inline="always")
def revolts(k, r, n, row_rank, row_count, rp):  # type: ignore[no-untyped-def]
    """The play (kind, rank, size) starts a (counter-)revolution: a set of four or more with
    ``revolution``, a run of ``run_revolution`` or more; with ``western_revolution`` also the fourth single of the row of singles
    (``row_rank``, ``row_count`` of the :class:`~agents.kernels.observation.Turn`)."""
    if rp[RuleParam.REVOLUTION] == 0:
        return False
    if k != Kind.RUN and n >= 4:
        return True
    if k == Kind.RUN:  # run_revolution (0: no run revolts)
        return rp[RuleParam.RUN_REVOLUTION] > 0 and n >= rp[RuleParam.RUN_REVOLUTION]
    return (
        rp[RuleParam.WESTERN_REVOLUTION] != 0
        and k == Kind.SET
        and n == 1
        and r == row_rank
        and row_count == 3
    )


@kernel(inline="always")
def jack_turns(k, r, n, rp):  # type: ignore[no-untyped-def]
    """``jack_back``: the play (kind, rank, size) holds a J (a set of Js, a run through the J),
    so it reverses the order until the trick ends."""
    if rp[RuleParam.JACK_BACK] == 0:
        return False
    if k == Kind.SET:
        return r == JACK
    return k == Kind.RUN and r <= JACK < r + n


@kernel(inline="always")
def copies(c, rp):  # type: ignore[no-untyped-def]
    """Copies of card ``c`` in the pack (the joker: every joker)."""
    return rp[RuleParam.JOKERS] if c == JOKER else rp[RuleParam.DECKS]


@kernel(inline="always")
def jokers_used(k, r, n, u, c, nat, hand):  # type: ignore[no-untyped-def]
    """Jokers that a play (kind, rank, size, suit, card) takes from the hand (the engine's
    choice: naturals first; with ``exact_plays`` the one it names, ``card >= 0``)."""
    j = 0
    if (k == Kind.SET and u >= 0) or (k == Kind.RUN and c >= 0):  # exact_plays
        j = 1 if c >= 0 else 0
    elif k == Kind.SET:
        j = n - nat[r]
        if j < 0:
            j = 0
    elif k == Kind.JOKERS:
        j = n
    elif k == Kind.RUN:
        j = run_missing(hand, r, n, u)
    return j


@kernel(inline="always")
def strength(k, r, n, rev):  # type: ignore[no-untyped-def]
    """Key of a play (kind, rank, size) in the order in effect (higher is stronger;
    jokers-only sets are 13, a run is its top card; -1 for a pass or a gift)."""
    st = -1
    if k == Kind.SET:
        st = key(r, rev)
    elif k == Kind.JOKERS:
        st = 13
    elif k == Kind.RUN:
        st = TOP - r if rev else r + n - 1
    return st


@kernel(inline="always")
def _any(row):  # type: ignore[no-untyped-def]
    a = 0
    while a < row.shape[0] and not row[a]:
        a += 1
    return a < row.shape[0]


@kernel
def every_row_legal(mask):  # type: ignore[no-untyped-def]
    """Whether every row of ``mask [B, A]`` has a legal action (cheaper than numpy's
    ``mask.any(axis=1).all()`` on a small batch)."""
    b = 0
    while b < mask.shape[0] and _any(mask[b]):
        b += 1
    return b == mask.shape[0]
