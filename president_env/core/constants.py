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

