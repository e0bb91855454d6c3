"""What the kernels are handed, built and checked in Python: the action tables of a layout
(:class:`PlayTables`, :class:`MaskTables`), seeds as uint64, and dealt hands as int8 counts;
:func:`deal_hands` (re-exported by :mod:`president_env.core.engine`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from president_env.core._kernels._deal import deal_into
from president_env.core._kernels._types import MaskTables, PlayTables
from president_env.core.actions import ActionLayout
from president_env.core.cards import NUM_CARDS, card_name, count_cards
from president_env.core.rules import Rules


def deal_hands(rules: Rules, seed: int, deal_no: int, dealer: int) -> npt.NDArray[np.int8]:
    """The hands ``[P, 53]`` of deal ``deal_no`` of a game seeded ``seed``, dealt by ``dealer``
    (player p in seat p: with ``reseat_every`` row s is the hand of the player in seat s, and
    ``dealer`` a seat)."""
    out = np.zeros((rules.num_players, NUM_CARDS), np.int8)
    in_order = np.arange(rules.num_players, dtype=np.int8)
    deal_into(np.uint64(seed), deal_no, dealer, rules.num_players, rules.num_decks,
              rules.num_jokers, in_order, out)
    return out


def play_tables(layout: ActionLayout) -> PlayTables:
    """What each action id plays, as the kernels read it."""
    return PlayTables(
        *(t.astype(np.int64) for t in (layout.kind, layout.rank, layout.size, layout.suit,
                                       layout.card))
    )


def mask_tables(layout: ActionLayout) -> MaskTables:
    """Where the blocks of action ids start, and the runs, as the kernels read them."""
    runs = np.array(layout.runs, dtype=np.int64).reshape(-1, 3)
    return MaskTables(
        run_suit=runs[:, 0].copy(),
        run_bottom=runs[:, 1].copy(),
        run_len=runs[:, 2].copy(),
        run_joker=np.array(layout.run_jokers, dtype=np.int64),
        set_base=layout.set_base,
        joker_base=layout.joker_base,
        run_base=layout.run_base,
        give_base=layout.give_base,
        num_give=layout.ask_base - layout.give_base,
        ask_base=layout.ask_base,
        num_ask=layout.num_ask,
    )


def as_seeds(seeds: npt.ArrayLike, batch: int | None = None) -> npt.NDArray[np.uint64]:
    s = np.asarray(seeds)
    if s.ndim == 0:
        s = np.full(batch or 1, s) if batch else s[None]
    if s.ndim != 1 or (batch is not None and len(s) != batch):
        raise ValueError(f"seeds must be one integer per game, got shape {s.shape}")
    if not np.issubdtype(s.dtype, np.integer):
        raise TypeError(f"seeds must be integers, got dtype {s.dtype}")
    if np.issubdtype(s.dtype, np.signedinteger) and (s < 0).any():
        raise ValueError("seeds must be non-negative")
    return s.astype(np.uint64)


def parse_hands(rules: Rules, hands: Any) -> npt.NDArray[np.int8]:
    """``hands`` (counts or text, see :meth:`Engine.init_from_hands`) as int8 [B, P, 53],
    checked: shape, integer counts, no more copies of a card than the pack holds, no empty hand."""
    p = rules.num_players
    if isinstance(hands, (list, tuple)) and hands and isinstance(hands[0], str):
        hands = [hands]
    if (
        isinstance(hands, (list, tuple))
        and hands
        and isinstance(hands[0], (list, tuple))
        and hands[0]
        and isinstance(hands[0][0], str)
    ):
        games = []
        for g in hands:
            if len(g) != p:
                raise ValueError(f"expected {p} hands (one per seat), got {len(g)}")
            games.append(np.stack([count_cards(t) for t in g]))  # int64: no wrap
        hands = np.stack(games)
    h = np.asarray(hands)
    if h.ndim == 2:
        h = h[None]
    if h.ndim != 3 or h.shape[1:] != (p, NUM_CARDS):
        raise ValueError(f"hands must have shape [B, {p}, {NUM_CARDS}], got {h.shape}")
    if not np.issubdtype(h.dtype, np.integer):
        raise ValueError(f"hands must be integer counts, got dtype {h.dtype}")
    if (h < 0).any():
        raise ValueError("hands hold negative counts")
    limit = np.full(NUM_CARDS, rules.num_decks)
    limit[-1] = rules.num_jokers
    # checked before the int8 cast (a count of 256 would wrap to 0 and the card vanish):
    # one hand first (no overflow in the sum after it), then the players together
    most = h.max(axis=1)
    total = most if (most > limit).any() else h.astype(np.int64).sum(axis=1)
    if (total > limit).any():
        b, c = np.argwhere(total > limit)[0]
        raise ValueError(
            f"game {b}: card {card_name(int(c))} (id {c}) is dealt {total[b, c]} times, but "
            f"the pack holds {limit[c]} (decks={rules.num_decks}, "
            f"jokers={rules.num_jokers})"
        )
    if (h.sum(axis=2) == 0).any():
        raise ValueError("every player must start with at least one card")
    return h.astype(np.int8)
