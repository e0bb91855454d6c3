"""The typed interface of the kernels: the state and the action tables as NamedTuples of arrays.

Python hands every kernel plain tuples (numba types a plain tuple at the call several times
faster than a NamedTuple: about 2.2 against 3.5 us for the 27 state arrays of version 0.4,
which is most of the cost of a step at a batch of one); each kernel called from Python wraps
them once, as in ``st = Arrays(*arrays)``, and from there on reads fields by name
(``st.hands[b, p, c]``; arrays are written in place). The field order is that of :class:`~president_env.core.engine.State`.

Inside the loop over games, a kernel hands its helpers the numbers of the game (such as a
:class:`Pile`) and the few arrays they read or write, never the whole NamedTuple: binding a
tuple of arrays to a helper's parameter costs an atomic reference-count increment and
decrement per array (~300 ns per game for the 30 arrays, against ~20-100 ns of game logic).
Helpers that run once per deal (dealing, the exchange) take the whole state.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from president_env.core.constants import HISTORY_LEN, PASS_KEYS, PASS_OTHER

__all__ = ["HISTORY_LEN", "MOVE", "NUM_ASKS", "PASS_KEYS", "PASS_OTHER", "STATE_DTYPES", "Arrays",
           "MaskTables", "Pile", "PlayTables", "Played"]

NUM_ASKS = 2
"""Asks of the President in one exchange (``president_asks``): the width of ``asked``."""

# HISTORY_LEN (8: the moves kept in ``recent``, dimension "H") and PASS_KEYS (53: the width of
# ``seat_passed``, dimension "X"; PASS_OTHER = 52 for a pass on a run or jokers alone) live in
# president_env.core.constants, which the observation layout reads too.
MOVE = 2
"""A move of ``recent`` (dimension "M"): the seat, then the action id."""


STATE_DTYPES: dict[str, tuple[type, tuple[str, ...]]] = {
    "hands": (np.int8, ("P", "C")),
    "phase": (np.int8, ()),
    "current": (np.int8, ()),
    "pile_kind": (np.int8, ()),
    "pile_rank": (np.int8, ()),
    "pile_size": (np.int8, ()),
    "last_player": (np.int8, ()),
    "passed": (np.bool_, ("P",)),
    "revolution": (np.bool_, ()),
    "place": (np.int8, ("P",)),
    "n_finished": (np.int8, ()),
    "title": (np.int8, ("P",)),
    "scores": (np.int32, ("P",)),
    "deal": (np.int16, ()),
    "played": (np.int8, ("R",)),
    "gave": (np.int8, ("P", "C")),
    "received": (np.int8, ("P", "C")),
    "to_return": (np.int8, ("P",)),
    "deal_over": (np.bool_, ()),
    "seed": (np.uint64, ()),
    "dealer": (np.int8, ()),
    "pending": (np.bool_, ()),
    "row_rank": (np.int8, ()),
    "row_count": (np.int8, ()),
    "asks_left": (np.int8, ()),
    "asked": (np.int8, ("K",)),
    "ask_held": (np.int8, ("K",)),
    "jack_back": (np.bool_, ()),
    "six_reversed": (np.bool_, ()),
    "pass_run": (np.int16, ()),
    "seat_played": (np.int8, ("P", "C")),
    "seat_passed": (np.int8, ("P", "X")),
    "recent": (np.int16, ("H", "M")),
    "pile_suits": (np.int8, ()),
    "locked": (np.bool_, ()),
    "seat_of": (np.int8, ("P",)),
}
"""dtype and dimensions after the batch axis of every state array, in the order of
:class:`Arrays` (P players, C card ids, R ranks and the jokers, K asks, X keys of a pass,
H moves kept, M numbers of a move): the one statement of the state's layout
(:class:`~president_env.core.engine.State` and the one-game spec of :mod:`._one` derive theirs
from it). Without ``observation="history"`` the last three (the deal's history) have size 0:
``seat_played`` and ``seat_passed`` [B,P,0], ``recent`` [B,0,2] (``State.zeros(...,
history=False)``: the same dtypes and numbers of dimensions, so the same compiled kernels)."""


class Arrays(NamedTuple):
    """The state of ``B`` games (the fields of :class:`~president_env.core.engine.State`)."""

    hands: np.ndarray
    phase: np.ndarray
    current: np.ndarray
    pile_kind: np.ndarray
    pile_rank: np.ndarray
    pile_size: np.ndarray
    last_player: np.ndarray
    passed: np.ndarray
    revolution: np.ndarray
    place: np.ndarray
    n_finished: np.ndarray
    title: np.ndarray
    scores: np.ndarray
    deal: np.ndarray
    played: np.ndarray
    gave: np.ndarray
    received: np.ndarray
    to_return: np.ndarray
    deal_over: np.ndarray
    seed: np.ndarray
    dealer: np.ndarray
    pending: np.ndarray
    row_rank: np.ndarray
    row_count: np.ndarray
    asks_left: np.ndarray
    asked: np.ndarray
    ask_held: np.ndarray
    jack_back: np.ndarray
    six_reversed: np.ndarray
    pass_run: np.ndarray
    seat_played: np.ndarray
    seat_passed: np.ndarray
    recent: np.ndarray
    pile_suits: np.ndarray
    locked: np.ndarray
    seat_of: np.ndarray


class PlayTables(NamedTuple):
    """What each action id plays (int64 [A] each; see :class:`~president_env.core.actions.
    ActionLayout`)."""

    kind: np.ndarray
    rank: np.ndarray
    """Rank of a set, bottom rank of a run (-1 with the joker below the 3), else -1."""
    size: np.ndarray
    suit: np.ndarray
    """Suit of a run; with ``exact_plays`` the natural suits of a set (a mask); else -1."""
    card: np.ndarray
    """Card given back in the exchange; with ``exact_plays`` the joker's row in a set, its
    offset from the bottom in a run; else -1."""


class MaskTables(NamedTuple):
    """Where each block of action ids starts, and the runs (int64 [R] each, in id order)."""

    run_suit: np.ndarray
    run_bottom: np.ndarray
    run_len: np.ndarray
    run_joker: np.ndarray
    """``exact_plays``: the joker's offset from the bottom (-1: none); else -1."""
    set_base: int
    joker_base: int
    run_base: int
    give_base: int
    num_give: int
    """Give actions (cards that can be returned in the exchange; 0 without exchange)."""
    ask_base: int
    """First ask action (``president_asks``; where the give block ends otherwise)."""
    num_ask: int
    """Ask actions (cards that can be named; 0 without ``president_asks``)."""


class Pile(NamedTuple):
    """The top play of one game, as numbers (kind ``Kind.PASS``: an empty pile)."""

    kind: int
    rank: int
    """Rank of a set, bottom rank of a run, -1 for jokers alone or no play."""
    size: int
    rev: bool
    """The rank order in force is reversed (revolution, or with ``jack_back`` revolution XOR
    11-back)."""


assert tuple(STATE_DTYPES) == Arrays._fields


class Played(NamedTuple):
    """What :meth:`~president_env.core.engine.Engine.play_random` did: actions taken and games
    ended, over the batch."""

    steps: int
    games: int
