"""Numbers shared by the engine, the observation, the agents and the adapters.

Everything here is a plain ``int`` or an ``IntEnum`` so that compiled (numba) code reads it as
a constant. Cards are ``rank * 4 + suit`` with the joker at :data:`JOKER` (see
:mod:`president_env.core.cards`); ranks run ``0`` (3) .. ``12`` (2) in the usual order.
"""

from __future__ import annotations

from enum import IntEnum

NUM_RANKS = 13
NUM_SUITS = 4
NUM_NATURAL = NUM_RANKS * NUM_SUITS
JOKER = NUM_NATURAL
"""Card id of the joker (all jokers are alike)."""
NUM_CARDS = NUM_NATURAL + 1
"""Length of a hand vector: one count per natural card, then the jokers."""
PLAYED_SIZE = NUM_RANKS + 1
"""Public memory of cards played: one count per rank, then the jokers."""

TOP = NUM_RANKS - 1
"""Rank of the 2, the top rank in the usual order."""
EIGHT = 5
"""Rank of the 8 (``eight_clears``)."""
SIX = 3
"""Rank of the 6 (``six_reverses``)."""
JACK = 8
"""Rank of the J (``jack_back``)."""
MIN_RUN = 3
"""Fewest cards in a run."""
HISTORY_LEN = 8
"""Moves of the play phase that the state keeps (``recent``) and the history observation
shows, most recent first."""
PASS_KEYS = NUM_CARDS
"""Entries of a seat's ``seat_passed`` row: a top set of size ``s`` (4 and more alike) and rank
``r`` at ``(min(s, 4) - 1) * 13 + r`` (52 entries), then :data:`PASS_OTHER`."""
PASS_OTHER = PASS_KEYS - 1
"""The ``seat_passed`` entry of a pass on a run or on a jokers-only set."""
JOKER_ROW = NUM_SUITS
"""``exact_plays``: the joker's row in a set of all four suits and the joker (no suit)."""
ALL_SUITS = 31
"""``exact_plays``: the suits of a set of all four suits and the joker (``lock``)."""


def _exact_sets() -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The slots of one rank's set block with ``exact_plays``: first the 15 non-empty sets of
    natural suits (suit bit ``1 << suit``) without the joker, then, with a joker, the 28 sets
    of one to three suits with the joker in one missing suit's row, then the four suits with
    the joker in :data:`JOKER_ROW` (44 in all)."""
    suits = list(range(1, 16))
    rows = [-1] * 15
    for m in range(1, 15):
        for u in range(NUM_SUITS):
            if not m >> u & 1:
                suits.append(m)
                rows.append(u)
    return (*suits, 15), (*rows, JOKER_ROW)


EXACT_SET_SUITS, EXACT_SET_JOKER = _exact_sets()
"""``exact_plays``: per slot of a rank's set block, the natural suits (a mask) and the joker's
row (-1: no joker; :data:`JOKER_ROW`: beside all four suits)."""
EXACT_SLOTS_PLAIN = 15
"""``exact_plays``: the slots of a rank's set block without jokers."""
EXACT_SLOTS_JOKER = len(EXACT_SET_SUITS)
"""``exact_plays``: the slots of a rank's set block with a joker (44)."""


class Phase(IntEnum):
    """What the player to act is doing."""

    EXCHANGE = 0
    PLAY = 1
    DONE = 2


PHASE_EXCHANGE = int(Phase.EXCHANGE)
PHASE_PLAY = int(Phase.PLAY)
PHASE_DONE = int(Phase.DONE)


class Kind(IntEnum):
    """Kinds of action, which are also the kinds of play on the pile (NONE = PASS, SET, JOKERS,
    RUN)."""

    PASS = 0
    SET = 1
    JOKERS = 2
    RUN = 3
    GIVE = 4
    ASK = 5
    """``president_asks``: the President names a card the Bum must give."""


class Scoring(IntEnum):
    """How a deal's places score (``RuleParam.SCORING``; the order of ``rules.SCORINGS``)."""

    PLACES = 0
    """P points for first place .. 1 for last."""
    PRESIDENT_VP = 1
    """2 for the President, 1 for the Vice-President (4+ players)."""
    TALLY = 2
    """1 per presidency."""

