"""Reading one observation row in compiled code: the blocks the agents use, by name.

:class:`~president_env.core.observe.ObsBlock` (the engine's) names the blocks of the
observation; :func:`block_offsets` gives the start of each (``off[ObsBlock.HAND]``),
looked up by name so that the kernels follow the layout. :func:`read` fills a :class:`Seen`
(scratch arrays, one set per kernel call, reused row after row) and returns the public
:class:`Turn` (the pile and the flags) of one row. Blocks of options that are off have size 0
(their offset is where the next block starts): they are read only when their option is on.

Counts are read as ``int64(x + 0.5)``: the observation is float32 and holds whole numbers.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from agents.kernels._cache import kernel
from president_env.core.constants import JOKER, NUM_CARDS, NUM_RANKS
from president_env.core.observe import LOCK_SIZE, ObsBlock, ObservationLayout
from president_env.core.rules import RuleParam


def block_offsets(layout: ObservationLayout) -> npt.NDArray[np.int64]:
    """Start of every :class:`ObsBlock` in the observation vector, indexed by the block."""
    return layout.offsets()


class Seen(NamedTuple):
    """What one row tells about the cards (int64 counts; seats relative, 0 = the observer)."""

    hand: np.ndarray
    """[53] own cards per card id."""
    nat: np.ndarray
    """[13] own natural cards per rank."""
    outn: np.ndarray
    """[13] natural cards per rank still out (in the opponents' hands)."""
    left: np.ndarray
    """[P] cards left, per seat."""
    passed: np.ndarray
    """[P] bool: passed in this trick, per seat."""


class Turn(NamedTuple):
    """The public situation of one row."""

    pile_kind: int
    """Kind of the top play (0 = empty pile: leading)."""
    pile_size: int
    pile_rank: int
    """Rank of the top set (bottom of a run), -1 if none."""
    rev: bool
    """The order is reversed (revolution)."""
    phase: int
    last: int
    """Seat of the top play, -1 if none."""
    jout: int
    """Jokers still out."""
    pending: bool
    """``next_trick``: a revolution is pending (the order after this trick is ``rev != pending``);
    always False under the default timing."""
    row_rank: int
    """``western_revolution``: rank of the row of single cards in this trick, -1 if none."""
    row_count: int
    """Its length (0..3): a single of ``row_rank`` when it is 3 starts a revolution."""
    jack_back: bool
    """``jack_back``: a J reversed the order until the trick ends (the order in force is
    ``rev != jack_back``); always False without the option."""
    pass_run: int
    """``stalemate_passes``: passes in a row this deal; always 0 without the option."""
    lock_suits: int
    """``lock``: the suits of the top play (``1 << suit``, 16 the joker's row beside all four;
    0 for none or a lone joker); always 0 without the option."""
    locked: bool
    """``lock``: the trick is locked to ``lock_suits``; always False without the option."""


@kernel(allocates=True)
def new_seen(n_players):  # type: ignore[no-untyped-def]
    """Scratch arrays for :func:`read`."""
    return Seen(
        np.zeros(NUM_CARDS, np.int64),
        np.zeros(NUM_RANKS, np.int64),
        np.zeros(NUM_RANKS, np.int64),
        np.zeros(n_players, np.int64),
        np.zeros(n_players, np.bool_),
    )


@kernel(inline="always")
def _hot(obs, b, start, n, default):  # type: ignore[no-untyped-def]
    """Index of the (last) set entry of a one-hot block, ``default`` if none."""
    at = default
    for i in range(n):
        if obs[b, start + i] > 0.5:
            at = i
    return at


@kernel(inline="always")
def _count(x):  # type: ignore[no-untyped-def]
    """A count read from the float32 observation."""
    return np.int64(x + 0.5)


@kernel
def read(obs, b, off, rp, seen):  # type: ignore[no-untyped-def]
    """Fill ``seen`` from row ``b`` of ``obs``; return its :class:`Turn`."""
    hand, nat, outn, left, passed = seen
    for c in range(NUM_CARDS):
        hand[c] = _count(obs[b, off[ObsBlock.HAND] + c])
    played = off[ObsBlock.PLAYED]
    for r in range(NUM_RANKS):
        nat[r] = hand[4 * r] + hand[4 * r + 1] + hand[4 * r + 2] + hand[4 * r + 3]
        n = 4 * rp[RuleParam.DECKS] - nat[r] - _count(obs[b, played + r])
        outn[r] = n if n > 0 else 0
    jout = rp[RuleParam.JOKERS] - hand[JOKER] - _count(obs[b, played + 13])
    if jout < 0:
        jout = 0
    last = -1
    for k in range(rp[RuleParam.PLAYERS]):
        left[k] = _count(obs[b, off[ObsBlock.CARDS_LEFT] + k])
        passed[k] = obs[b, off[ObsBlock.PASSED] + k] > 0.5
        if obs[b, off[ObsBlock.LAST_PLAYER] + k] > 0.5:
            last = k
    pk = _hot(obs, b, off[ObsBlock.PILE_KIND], 4, 0)
    ps = int(obs[b, off[ObsBlock.PILE_SIZE]] + 0.5)
    pr = _hot(obs, b, off[ObsBlock.PILE_RANK], NUM_RANKS, -1)
    rev = obs[b, off[ObsBlock.REVOLUTION]] > 0.5
    phase = _hot(obs, b, off[ObsBlock.PHASE], 3, 0)
    pending = False
    if rp[RuleParam.REVOLUTION_NEXT_TRICK] != 0:  # the block is empty otherwise
        pending = obs[b, off[ObsBlock.PENDING]] > 0.5
    row_rank = -1
    row_count = 0
    if rp[RuleParam.WESTERN_REVOLUTION] != 0:
        row_rank = _hot(obs, b, off[ObsBlock.ROW], NUM_RANKS, -1)
        row_count = _count(4.0 * obs[b, off[ObsBlock.ROW] + NUM_RANKS])
    jack_back = False
    if rp[RuleParam.JACK_BACK] != 0:
        jack_back = obs[b, off[ObsBlock.JACK_BACK]] > 0.5
    pass_run = 0
    if rp[RuleParam.STALEMATE_PASSES] != 0:
        pass_run = _count(obs[b, off[ObsBlock.PASS_RUN]])
    lock_suits = 0
    locked = False
    if rp[RuleParam.LOCK] != 0:
        for i in range(LOCK_SIZE - 1):
            if obs[b, off[ObsBlock.LOCK] + i] > 0.5:
                lock_suits |= 1 << i
        locked = obs[b, off[ObsBlock.LOCK] + LOCK_SIZE - 1] > 0.5
    return Turn(pk, ps, pr, rev, phase, last, jout, pending, row_rank, row_count, jack_back,
                pass_run, lock_suits, locked)


@kernel
def bum_seat(obs, b, off, n_players):  # type: ignore[no-untyped-def]
    """Seat (relative) of the Bum of the previous deal, from the public titles; -1 if none."""
    base = off[ObsBlock.TITLE]
    for k in range(n_players):
        if obs[b, base + k * n_players + n_players - 1] > 0.5:
            return k
    return -1


@kernel(inline="always")
def known_absent(obs, b, off, c):  # type: ignore[no-untyped-def]
    """``president_asks``: an ask of card ``c`` in this exchange found that the Bum held none."""
    asked = _count(obs[b, off[ObsBlock.ASKED] + c])
    held = _count(obs[b, off[ObsBlock.ASK_HELD] + c])
    return asked > held
