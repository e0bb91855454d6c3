"""Per-player observation: one flat float32 vector per game, never revealing hidden cards.

Layout (``P`` players; "seat k" below is the k-th seat to the observer's left, seat 0 = the
observer itself). :class:`ObservationLayout` gives every block as a named slice and
:class:`ObsBlock` its index among the blocks, for compiled code; the engine's kernel that
writes observations is :mod:`president_env.core._kernels._observe`.

===================  ===========  ============================================================
name                 size         content
===================  ===========  ============================================================
``hand``             53           own cards: count per card id (rank * 4 + suit, 52 = joker)
``played``           14           cards played so far this deal: per rank (3..2), then jokers
``pile_kind``        4            one-hot: empty, set, jokers-only set, run
``pile_size``        1            cards in the top play
``pile_rank``        13           one-hot rank of the top set, or bottom rank of the top run
``revolution``       1            1 while the rank order is reversed
``leading``          1            1 if the observer is to act on an empty pile
``phase``            3            one-hot: exchange, play, game over
``to_act``           1            1 if the observer is the player to act
``cards_left``       P            cards held, seat k
``passed``           P            1 if seat k has passed in this trick
``last_player``      P            1 if seat k made the top play
``current``          P            1 if seat k is to act
``place``            P * P        one-hot finishing place in this deal (row per seat k)
``title``            P * P        one-hot place in the previous deal (all zero in the first)
``score``            P            cumulative score, seat k
``gave``             53           cards the observer gave in this deal's exchange
``received``         53           cards the observer received in this deal's exchange
``to_return``        1            cards the observer still has to return in the exchange
``deal``             1            index of the current deal divided by the number of deals
``pending``          1 or 0       1 while a revolution is pending (``revolution_timing=
                                  "next_trick"``: it takes effect as the trick ends)
``direction``        1 or 0       1 while play goes to the right (``western_revolution``)
``row``              14 or 0      ``western_revolution``: one-hot rank of the row of single
                                  cards in this trick (13), then how many in a row / 4
``asks_left``        1 or 0       ``president_asks``: asks the President still has to make
``asked``            53 or 0      ``president_asks``: per card id, asks naming it in this
                                  deal's exchange
``ask_held``         53 or 0      ``president_asks``: per card id, asks naming it that the Bum
                                  held (so that card went to the President)
===================  ===========  ============================================================

The last six blocks belong to the further variants (``RULES.md`` section 12): each has size 0
unless its option is on, so the observation of rules without them is unchanged.

Everything above is public or the observer's own: hands of other players appear only as
counts of cards left. (With ``president_asks``, the card the Bum gave for an ask it could not
answer is seen only in the President's ``received`` and the Bum's ``gave``.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

from president_env.core.cards import NUM_CARDS, NUM_RANKS
from president_env.core.rules import Rules


class ObsBlock(IntEnum):
    """The blocks of the observation in order (the layout's name is the lower-case member name);
    compiled code finds block ``k`` at ``offsets[k]`` (:meth:`ObservationLayout.offsets`)."""

    HAND = 0
    PLAYED = 1
    PILE_KIND = 2
    PILE_SIZE = 3
    PILE_RANK = 4
    REVOLUTION = 5
    LEADING = 6
    PHASE = 7
    TO_ACT = 8
    CARDS_LEFT = 9
    PASSED = 10
    LAST_PLAYER = 11
    CURRENT = 12
    PLACE = 13
    TITLE = 14
    SCORE = 15
    GAVE = 16
    RECEIVED = 17
    TO_RETURN = 18
    DEAL = 19
    PENDING = 20
    DIRECTION = 21
    ROW = 22
    ASKS_LEFT = 23
    ASKED = 24
    ASK_HELD = 25


ROW_SIZE = NUM_RANKS + 1
"""The ``row`` block: one-hot rank of the row of singles, then its count / 4."""


def _block_sizes(rules: Rules) -> dict[ObsBlock, int]:
    p = rules.num_players
    western = rules.western_revolution
    asks = rules.president_asks
    return {
        ObsBlock.HAND: NUM_CARDS,
        ObsBlock.PLAYED: NUM_RANKS + 1,
        ObsBlock.PILE_KIND: 4,
        ObsBlock.PILE_SIZE: 1,
        ObsBlock.PILE_RANK: NUM_RANKS,
        ObsBlock.REVOLUTION: 1,
        ObsBlock.LEADING: 1,
        ObsBlock.PHASE: 3,
        ObsBlock.TO_ACT: 1,
        ObsBlock.CARDS_LEFT: p,
        ObsBlock.PASSED: p,
        ObsBlock.LAST_PLAYER: p,
        ObsBlock.CURRENT: p,
        ObsBlock.PLACE: p * p,
        ObsBlock.TITLE: p * p,
        ObsBlock.SCORE: p,
        ObsBlock.GAVE: NUM_CARDS,
        ObsBlock.RECEIVED: NUM_CARDS,
        ObsBlock.TO_RETURN: 1,
        ObsBlock.DEAL: 1,
        ObsBlock.PENDING: int(rules.revolution_timing == "next_trick"),
        ObsBlock.DIRECTION: int(western),
        ObsBlock.ROW: ROW_SIZE if western else 0,
        ObsBlock.ASKS_LEFT: int(asks),
        ObsBlock.ASKED: NUM_CARDS if asks else 0,
        ObsBlock.ASK_HELD: NUM_CARDS if asks else 0,
    }


@dataclass(frozen=True)
class ObservationLayout:
    """Named slices of the observation vector for one Rules."""

    rules: Rules
    size: int = field(init=False)
    slices: dict[str, slice] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        slices: dict[str, slice] = {}
        start = 0
        for block, n in _block_sizes(self.rules).items():
            slices[block.name.lower()] = slice(start, start + n)
            start += n
        object.__setattr__(self, "slices", slices)
        object.__setattr__(self, "size", start)

    def offsets(self) -> np.ndarray:
        """Start of every block, indexed by :class:`ObsBlock` (for compiled code)."""
        return np.array([s.start for s in self.slices.values()], dtype=np.int64)

    def split(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """The blocks of one or more observations (last axis), as views."""
        return {name: obs[..., s] for name, s in self.slices.items()}
