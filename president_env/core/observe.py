"""Per-player observation: one flat float32 vector per game, never revealing hidden cards.

Layout (``P`` players; "seat k" below is the k-th seat to the observer's left round the table,
seat 0 = the observer itself; with ``reseat_every`` the seats of ``State.seat_of``). :class:`ObservationLayout` gives every block as a named slice and
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
``direction``        1 or 0       1 while play goes to the right (``western_revolution``,
                                  ``six_reverses``)
``row``              14 or 0      ``western_revolution``: one-hot rank of the row of single
                                  cards in this trick (13), then how many in a row / 4
``asks_left``        1 or 0       ``president_asks``: asks the President still has to make
``asked``            53 or 0      ``president_asks``: per card id, asks naming it in this
                                  deal's exchange
``ask_held``         53 or 0      ``president_asks``: per card id, asks naming it that the Bum
                                  held (so that card went to the President)
``jack_back``        1 or 0       ``jack_back``: 1 while a J has reversed the order until the
                                  trick ends (the order in force: ``revolution`` XOR this)
``pass_run``         1 or 0       ``stalemate_passes``: passes in a row this deal, across
                                  tricks (that many end the deal)
``lock``             6 or 0       ``lock``: the suits of the top play (5: clubs, diamonds,
                                  hearts, spades, the joker beside all four), then 1 while
                                  the trick is locked to them
``seat_played``      P * 53 or 0  ``observation="history"``: per seat k (rows of 53), the cards
                                  it played this deal, per card id
``seat_passed``      P * 53 or 0  ``observation="history"``: per seat k (rows of 53), 1 at
                                  ``(min(size, 4) - 1) * 13 + rank`` if it passed this deal on
                                  a top set of that size and rank, at 52 if on a run or a
                                  jokers-only set
``recent``           8 * (P + 18) ``observation="history"``: the last 8 moves of the play phase
                     or 0         this deal, most recent first, P + 18 each: seat k one-hot (P),
                                  kind one-hot (4: pass, set, jokers-only set, run), rank
                                  one-hot (13: of a set, bottom of a run; none for a pass or
                                  jokers alone), cards / 8 (1); all zero for no move
``record``           1 + 2 * L    ``observation="record"``: the whole play of this deal, L =
                     or 0         ``Rules.record_length`` (``num_cards * P + P``, the most
                                  moves a deal can make): the number of moves so far, then
                                  per move, most recent first, seat k + 1 and action id + 1
                                  (:class:`~president_env.core.actions.ActionLayout`); zeros
                                  past the first move of the deal
===================  ===========  ============================================================

The six blocks from ``pending`` to ``ask_held`` belong to the further variants (``RULES.md``
section 12), ``jack_back``, ``pass_run`` and ``lock`` to rules of the UECda server: each has
size 0 unless its option is on, so the observation of rules without them is unchanged. The last
four, the history of the deal, have size 0 unless
``observation="history"`` (the first three) or ``"record"`` (all four): they come after every
other block, so the standard observation is the prefix ``obs[:standard size]`` of the history
one, and the history one the prefix of the record one (what
:class:`~president_env.table.Table` hands a policy made for a smaller observation). They show
the engine's ``seat_played``, ``seat_passed`` and ``recent`` fields
(:class:`~president_env.core.engine.State`); the gives and asks of the exchange are not moves
there (the observer's own exchange is in ``gave`` and ``received``). The ``record`` block makes
the observation a complete information state: the observer's hand, the exchange as it saw it
and every public move of the deal in order, from which
:func:`president_env.positions.from_observation` rebuilds the position.

Everything above is public or the observer's own: hands of other players appear only as
counts of cards left (the history blocks hold only plays and passes made in public). (With ``president_asks``, the card the Bum gave for an ask it could not
answer is seen only in the President's ``received`` and the Bum's ``gave``.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

from president_env.core.actions import action_layout
from president_env.core.cards import NUM_CARDS, NUM_RANKS
from president_env.core.constants import HISTORY_LEN, PASS_KEYS
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
    JACK_BACK = 26
    PASS_RUN = 27
    LOCK = 28
    SEAT_PLAYED = 29
    SEAT_PASSED = 30
    RECENT = 31
    RECORD = 32


ROW_SIZE = NUM_RANKS + 1
LOCK_SIZE = 6
"""``lock``: five suit bits of the top play, then the locked flag."""
"""The ``row`` block: one-hot rank of the row of singles, then its count / 4."""
MOVE_KINDS = 4
"""Kinds of a move of the ``recent`` block: pass, set, jokers-only set, run (``Kind`` 0..3)."""
MOVE_SIZE = MOVE_KINDS + NUM_RANKS + 1
"""A move of the ``recent`` block after its seat one-hot: kind, rank, cards / 8."""
MOVE_SIZE_SCALE = 8.0
"""The cards of a move of the ``recent`` block are divided by this."""


def move_width(num_players: int) -> int:
    """Entries per move of the ``recent`` block: seat one-hot, then :data:`MOVE_SIZE`."""
    return num_players + MOVE_SIZE


def _block_sizes(rules: Rules) -> dict[ObsBlock, int]:
    p = rules.num_players
    western = rules.western_revolution
    asks = rules.president_asks
    history = rules.keeps_history
    record = rules.observation == "record"
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
        ObsBlock.DIRECTION: int(western or rules.six_reverses),
        ObsBlock.ROW: ROW_SIZE if western else 0,
        ObsBlock.ASKS_LEFT: int(asks),
        ObsBlock.ASKED: NUM_CARDS if asks else 0,
        ObsBlock.ASK_HELD: NUM_CARDS if asks else 0,
        ObsBlock.JACK_BACK: int(rules.jack_back),
        ObsBlock.PASS_RUN: int(rules.stalemate_passes is not None),
        ObsBlock.LOCK: LOCK_SIZE if rules.lock else 0,
        ObsBlock.SEAT_PLAYED: p * NUM_CARDS if history else 0,
        ObsBlock.SEAT_PASSED: p * PASS_KEYS if history else 0,
        ObsBlock.RECENT: HISTORY_LEN * move_width(p) if history else 0,
        ObsBlock.RECORD: 1 + 2 * rules.record_length if record else 0,
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


def longest_run(rules: Rules) -> int:
    """The most cards a run may hold (13; 14 with ``run_joker_ends``: the joker beyond an end),
    whether runs are on or not."""
    ends = int(rules.run_joker_ends and rules.num_jokers > 0)
    return min(rules.max_run_length or NUM_RANKS + ends, NUM_RANKS + ends)


def history_bounds(rules: Rules) -> dict[str, float]:
    """The largest entry of each history block under ``rules`` (blocks of size 0 included), for
    the adapters' observation spaces: a seat plays at most ``num_decks`` copies of a natural
    card and every joker; flags and one-hots are 1; a move's cards / 8 reach the largest set
    or the longest run over 8."""
    biggest = max(rules.max_set_size, longest_run(rules) if rules.runs else 0)
    return {
        "seat_played": float(max(rules.num_decks, rules.num_jokers, 1)),
        "seat_passed": 1.0,
        "recent": max(1.0, biggest / MOVE_SIZE_SCALE),
    }


def record_high(rules: Rules) -> np.ndarray:
    """The largest value of each entry of the ``record`` block (size 0 unless
    ``observation="record"``): the number of moves reaches ``record_length``, a seat + 1 the
    number of players, an action id + 1 the number of actions."""
    if rules.observation != "record":
        return np.zeros(0, np.float32)
    high = np.empty(1 + 2 * rules.record_length, np.float32)
    high[0] = rules.record_length
    high[1::2] = rules.num_players
    high[2::2] = action_layout(rules).num_actions
    return high
