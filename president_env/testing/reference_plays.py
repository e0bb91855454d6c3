"""What one hand can play, for :class:`president_env.testing.reference.ReferenceGame`.

Plain functions over a hand (53 card counts, plain Python ints), written from ``RULES.md``
sections 2, 3, 5 and 12 for a reader to check, not for speed:

* :func:`sets_in_hand`: every set of one rank (natural cards, with jokers for the missing ones,
  at least one natural card) and every jokers-only set;
* :func:`runs_in_hand`: every run (``runs``): three or more consecutive ranks 3..A,2, no
  wrap-around, of one suit (or, with ``runs_mixed_suits``, one card per rank in any suits), a
  joker for every place not held, at least one natural card, at most ``max_run_length`` cards;
* :func:`mixed_run_cards`: the cards a mixed-suit run takes (for each rank the natural card of
  the lowest suit held, a joker for every rank not held), chosen here again rather than read
  from :meth:`~president_env.core.actions.ActionLayout.cards_for`, so the engine's choice is
  checked too;
* :func:`is_bomb`: ``bombs`` (section 12): a set or a jokers-only set of at least ``bombs``
  cards;
* with ``exact_plays`` (the UECda server's plays, which name their cards):
  :func:`exact_sets_in_hand` and :func:`exact_runs_in_hand`.

A play is ``(action id, kind, rank or run bottom, size)``; the ids come from
:class:`~president_env.core.actions.ActionLayout` (looked up by what the play is, so a run
that the layout lacks, or has too many of, shows up as a disagreement).
"""

from __future__ import annotations

import functools
import itertools

from president_env.core.actions import ActionLayout, Kind
from president_env.core.cards import JOKER, NUM_CARDS, NUM_RANKS, NUM_SUITS
from president_env.core.constants import JOKER_ROW, MIN_RUN
from president_env.core.rules import Rules

Hand = list[int]
"""53 counts, one per card id."""

Play = tuple[int, Kind, int, int]
"""(action id, kind, rank of a set or bottom rank of a run (-1 for jokers alone), size)."""

ANY_SUIT = -1
"""The suit of a mixed-suit run in :attr:`ActionLayout.runs`."""


def naturals_of_rank(hand: Hand, rank: int) -> int:
    """Natural cards of ``rank`` held (all suits, both decks)."""
    return sum(hand[rank * NUM_SUITS : (rank + 1) * NUM_SUITS])


def sets_in_hand(layout: ActionLayout, hand: Hand) -> list[Play]:
    """Every set of one rank and every jokers-only set that ``hand`` can make."""
    jokers = hand[JOKER]
    plays: list[Play] = []
    if layout.rules.exact_plays:
        plays = exact_sets_in_hand(layout, hand)
    for rank in range(NUM_RANKS * (not layout.rules.exact_plays)):
        naturals = naturals_of_rank(hand, rank)
        if naturals == 0:  # a set holds at least one natural card
            continue
        for size in range(1, min(naturals + jokers, layout.max_set) + 1):
            plays.append((layout.set_action(rank, size), Kind.SET, rank, size))
    for size in range(1, jokers + 1):
        plays.append((layout.jokers_action(size), Kind.JOKERS, -1, size))
    return plays


def exact_sets_in_hand(layout: ActionLayout, hand: Hand) -> list[Play]:
    """``exact_plays``: every set of one rank the hand can name: any non-empty choice of the
    suits it holds of the rank, alone or with the joker (if held) in the row of a suit the set
    lacks, or beside all four suits (the fifth row). Ids looked up by what the set is."""
    ids = _exact_set_ids(layout.rules)
    plays: list[Play] = []
    for rank in range(NUM_RANKS):
        held = [s for s in range(NUM_SUITS) if hand[rank * NUM_SUITS + s] > 0]
        for n in range(1, len(held) + 1):
            for suits in itertools.combinations(held, n):
                mask = sum(1 << s for s in suits)
                rows = [-1]
                if hand[JOKER] > 0:
                    rows += [s for s in range(NUM_SUITS) if s not in suits] or [JOKER_ROW]
                for row in rows:
                    size = n + (row >= 0)
                    plays.append((ids[rank, mask, row], Kind.SET, rank, size))
    return plays


@functools.lru_cache(maxsize=64)
def _exact_set_ids(rules: Rules) -> dict[tuple[int, int, int], int]:
    """``exact_plays``: the id of every set of the layout by (rank, suits mask, joker row)."""
    lay = ActionLayout(rules)
    return {(int(lay.rank[a]), int(lay.suit[a]), int(lay.card[a])): a
            for a in range(lay.num_actions) if lay.kind[a] == Kind.SET}


def exact_runs_in_hand(rules: Rules, ids: dict[tuple[int, ...], int],
                       hand: Hand) -> list[Play]:
    """``exact_plays``: every run of one suit the hand can name: three or more places in a
    row, each a natural card of the suit held or the joker (at most one, held; it may stand
    in for a card held); with ``run_joker_ends`` the joker may also stand below the 3 or above
    the 2. ``ids``: :func:`run_ids` (by suit, bottom, length, joker offset)."""
    if not rules.runs:
        return []
    ends = rules.run_joker_ends
    lowest, highest = (-1, NUM_RANKS) if ends else (0, NUM_RANKS - 1)
    longest = highest - lowest + 1 if rules.max_run_length is None else rules.max_run_length
    plays: list[Play] = []
    for suit in range(NUM_SUITS):
        for bottom in range(lowest, highest + 1):
            for length in range(MIN_RUN, longest + 1):
                places = range(bottom, bottom + length)
                if places[-1] > highest:
                    break
                for joker in [-1, *range(length)] if hand[JOKER] > 0 else [-1]:
                    if all(i == joker or (0 <= r < NUM_RANKS and hand[r * NUM_SUITS + suit] > 0)
                           for i, r in enumerate(places)):
                        plays.append((ids[suit, bottom, length, joker], Kind.RUN, bottom, length))
    return plays


def run_ids(layout: ActionLayout) -> dict[tuple[int, ...], int]:
    """Action id of every run of the layout, by (suit or -1, bottom, length), and with
    ``exact_plays`` by (suit, bottom, length, joker offset or -1)."""
    if layout.rules.exact_plays:
        return {(*run, joker): layout.run_base + i
                for i, (run, joker) in enumerate(zip(layout.runs, layout.run_jokers))}
    return {run: layout.run_base + i for i, run in enumerate(layout.runs)}


def runs_in_hand(rules: Rules, ids: dict[tuple[int, ...], int], hand: Hand) -> list[Play]:
    """Every run that ``hand`` can make under ``rules`` (``ids``: :func:`run_ids`)."""
    if rules.exact_plays:
        return exact_runs_in_hand(rules, ids, hand)
    if not rules.runs:
        return []
    longest = NUM_RANKS if rules.max_run_length is None else min(rules.max_run_length, NUM_RANKS)
    suits = [ANY_SUIT] if rules.runs_mixed_suits else list(range(NUM_SUITS))
    plays: list[Play] = []
    for suit in suits:
        held = [_holds(hand, rank, suit) for rank in range(NUM_RANKS)]  # 1 or 0 per rank
        for length in range(MIN_RUN, longest + 1):
            for bottom in range(NUM_RANKS - length + 1):
                places_held = sum(held[bottom : bottom + length])
                if places_held >= 1 and length - places_held <= hand[JOKER]:
                    plays.append((ids[suit, bottom, length], Kind.RUN, bottom, length))
    return plays


def _holds(hand: Hand, rank: int, suit: int) -> int:
    """1 if ``hand`` holds a natural card of ``rank`` in ``suit`` (any suit for -1), else 0."""
    if suit == ANY_SUIT:
        return 1 if naturals_of_rank(hand, rank) > 0 else 0
    return 1 if hand[rank * NUM_SUITS + suit] > 0 else 0


def mixed_run_cards(hand: Hand, bottom: int, length: int) -> Hand:
    """The cards of the mixed-suit run ``bottom..bottom+length-1``: for each rank the natural
    card of the lowest suit held, a joker for each rank not held."""
    cards = [0] * NUM_CARDS
    for rank in range(bottom, bottom + length):
        held = [rank * NUM_SUITS + s for s in range(NUM_SUITS) if hand[rank * NUM_SUITS + s] > 0]
        if held:
            cards[held[0]] += 1
        else:
            cards[JOKER] += 1
    if cards[JOKER] == length or cards[JOKER] > hand[JOKER]:
        raise ValueError(f"the hand cannot make the run of {length} from rank {bottom}")
    return cards


def is_bomb(rules: Rules, kind: Kind, size: int) -> bool:
    """Whether a play is a bomb: a set (jokers-only too) of at least ``rules.bombs`` cards."""
    return rules.bombs is not None and kind in (Kind.SET, Kind.JOKERS) and size >= rules.bombs
