"""Cards, ranks and suits: constants, parsing and printing.

Encoding used everywhere in the package
---------------------------------------
A card is an integer ``0..52``:

* natural cards are ``rank * 4 + suit``, with ranks in the usual order
  ``0 = "3", 1 = "4", ..., 11 = "A", 12 = "2"`` and suits
  ``0 = clubs < 1 = diamonds < 2 = hearts < 3 = spades``;
* ``52`` is the joker (all jokers are alike).

So a higher card id is a better card in the usual order, with the higher suit
first between equal ranks: exactly the order of the card exchange. A hand is a
vector of ``NUM_CARDS = 53`` counts (counts reach 2 with two decks, and the joker
count reaches the number of jokers in play).

Text form: ``"3c 10h Qs 2d JK"`` (rank ``3 4 5 6 7 8 9 10 J Q K A 2``, suit
``c d h s``, joker ``JK``); parsing accepts any case and ``T`` for ten.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np
import numpy.typing as npt

from president_env.core.constants import JOKER, NUM_CARDS, NUM_NATURAL, NUM_RANKS, NUM_SUITS

RANK_NAMES = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
SUIT_NAMES = ("c", "d", "h", "s")
SUIT_WORDS = ("clubs", "diamonds", "hearts", "spades")


class Rank(IntEnum):
    """Ranks in the usual order, lowest first."""

    THREE = 0
    FOUR = 1
    FIVE = 2
    SIX = 3
    SEVEN = 4
    EIGHT = 5
    NINE = 6
    TEN = 7
    JACK = 8
    QUEEN = 9
    KING = 10
    ACE = 11
    TWO = 12


class Suit(IntEnum):
    """Suits, lowest first (the order only matters for the exchange and runs)."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3


THREE_OF_CLUBS = Rank.THREE * 4 + Suit.CLUBS
THREE_OF_DIAMONDS = Rank.THREE * 4 + Suit.DIAMONDS

_RANK_BY_TEXT = {name.upper(): i for i, name in enumerate(RANK_NAMES)}
_RANK_BY_TEXT["T"] = Rank.TEN
_SUIT_BY_TEXT = {name.upper(): i for i, name in enumerate(SUIT_NAMES)}


def card_id(rank: int, suit: int) -> int:
    """The id of the natural card of ``rank`` and ``suit``."""
    return int(rank) * NUM_SUITS + int(suit)


def card_rank(card: int) -> int:
    """Rank of a natural card (``0..12``); ``13`` for the joker."""
    return int(card) // NUM_SUITS


def card_suit(card: int) -> int:
    """Suit of a natural card; ``-1`` for the joker."""
    return -1 if card == JOKER else int(card) % NUM_SUITS


def parse_card(text: str) -> int:
    """Parse one card such as ``"10h"``, ``"Qs"``, ``"jk"`` into its id."""
    t = text.strip().upper()
    if t in ("JK", "JOKER", "*"):
        return JOKER
    if len(t) < 2 or t[:-1] not in _RANK_BY_TEXT or t[-1] not in _SUIT_BY_TEXT:
        raise ValueError(
            f"cannot parse card {text!r}: expected a rank (3-10, J, Q, K, A, 2) and a suit "
            f"(c, d, h, s), e.g. '10h' or 'Qs', or 'JK' for a joker"
        )
    return card_id(_RANK_BY_TEXT[t[:-1]], _SUIT_BY_TEXT[t[-1]])


MAX_COUNT = int(np.iinfo(np.int8).max)
"""Most copies of one card a hand can hold (counts are int8; a pack holds far fewer)."""


def count_cards(text: str) -> npt.NDArray[np.int64]:
    """The 53 counts (int64, never wrapping) of ``"3c 3d 10h 2s JK"`` (spaces or commas)."""
    ids = [parse_card(token) for token in text.replace(",", " ").split()]
    return np.bincount(np.asarray(ids, dtype=np.int64), minlength=NUM_CARDS)


def parse_hand(text: str) -> npt.NDArray[np.int8]:
    """Parse ``"3c 3d 10h 2s JK"`` (spaces or commas between cards) into 53 counts (int8).

    A ValueError names a card given more than :data:`MAX_COUNT` times (its int8 count would
    wrap round and the card vanish)."""
    counts = count_cards(text)
    if counts.max() > MAX_COUNT:
        c = int(counts.argmax())
        raise ValueError(
            f"card {card_name(c)} is given {counts[c]} times in one hand; a hand holds at most "
            f"{MAX_COUNT} copies of a card (and a pack far fewer)"
        )
    return counts.astype(np.int8)


def card_name(card: int) -> str:
    """Text form of one card id (``"10h"``, ``"JK"``)."""
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card id {card} is out of range 0..{NUM_CARDS - 1}")
    if card == JOKER:
        return "JK"
    return RANK_NAMES[card // NUM_SUITS] + SUIT_NAMES[card % NUM_SUITS]


def format_hand(counts: npt.ArrayLike) -> str:
    """Text form of a vector of 53 counts, lowest card first."""
    c = np.asarray(counts)
    if c.shape != (NUM_CARDS,):
        raise ValueError(f"a hand is {NUM_CARDS} counts, got shape {c.shape}")
    return " ".join(card_name(i) for i in range(NUM_CARDS) for _ in range(int(c[i])))


def rank_counts(counts: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Natural cards per rank (13 values) of one or more hands (last axis 53)."""
    c = np.asarray(counts)
    return c[..., :NUM_NATURAL].reshape(*c.shape[:-1], NUM_RANKS, NUM_SUITS).sum(axis=-1)
