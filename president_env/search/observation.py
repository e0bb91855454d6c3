"""Reading an observation for search, checked: the pack, the cards a player cannot see, and
the checks that refuse an observation no game could show (NaN or infinite values, a one-hot
block with two ones or none, negative or fractional counts, more cards than the pack).

:mod:`president_env.search.positions` builds its positions on these.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from president_env.core.cards import NUM_CARDS, NUM_NATURAL, NUM_RANKS
from president_env.core.constants import NUM_SUITS
from president_env.core.observe import ObservationLayout
from president_env.core.rules import Rules

IntArray = npt.NDArray[np.int64]


def pack_counts(rules: Rules) -> IntArray:
    """Copies of every card id in the pack ``[53]``."""
    pack = np.full(NUM_CARDS, rules.num_decks, np.int64)
    pack[NUM_NATURAL] = rules.num_jokers
    return pack


def _one_hot(block: np.ndarray) -> IntArray:
    """Index of the 1 of every one-hot row (last axis), -1 for an all-zero row."""
    idx = np.argmax(block, axis=-1).astype(np.int64)
    return np.where(block.max(axis=-1) > 0, idx, -1)


def _checked_obs(rules: Rules, obs: npt.ArrayLike) -> tuple[np.ndarray, ObservationLayout]:
    layout = ObservationLayout(rules)
    o = np.asarray(obs, dtype=np.float32)
    if o.ndim == 1:
        o = o[None]
    if o.ndim != 2 or o.shape[1] != layout.size:
        raise ValueError(f"observations must have shape [B, {layout.size}], got {o.shape}")
    _check_observation(rules, o, layout)
    return o, layout


_ONE_HOT = {"phase": 1, "pile_kind": 0, "pile_rank": 0, "last_player": 0, "current": 0,
            "place": 0, "title": 0}
"""One-hot blocks of an observation and the least number of 1s a row (a seat's row for
``place`` and ``title``) holds; at most one."""
_COUNTS = ("hand", "played", "pile_size", "cards_left", "gave", "received", "to_return",
           "seat_played", "seat_passed", "record")
"""Blocks of non-negative whole counts."""


def _check_observation(rules: Rules, o: np.ndarray, lay: ObservationLayout) -> None:
    """A ValueError naming the row and block of the first observation that no game can show:
    a NaN or infinite value, a one-hot block with two 1s (two phases at once) or a value other
    than 0 and 1, a negative or fractional count, more cards of a rank or card seen (in the
    hand and played) than the pack holds."""
    bad = ~np.isfinite(o).all(axis=1)
    if bad.any():
        raise ValueError(f"obs[{int(np.flatnonzero(bad)[0])}] holds NaN or infinite values")
    k = lay.split(o)
    p = rules.num_players
    for name, least in _ONE_HOT.items():
        block = k[name].reshape(len(o), -1, p) if name in ("place", "title") else k[name][:, None]
        if block.shape[-1] == 0:
            continue
        binary = ((block == 0) | (block == 1)).all(axis=(1, 2))
        hot = block.sum(axis=2)
        wrong = ~binary | (hot > 1).any(axis=1) | (hot < least).any(axis=1)
        if wrong.any():
            r = int(np.flatnonzero(wrong)[0])
            what = "values other than 0 and 1" if not binary[r] else (
                f"{int(hot[r].max())} 1s in one row" if (hot[r] > 1).any() else "no 1")
            raise ValueError(f"obs[{r}]: the one-hot block {name!r} holds {what} (one "
                             f"{'exactly' if least else 'at most'})")
    for name in _COUNTS:
        block = k[name]
        if not block.shape[1]:
            continue
        wrong = ((block < 0) | (np.abs(block - np.rint(block)) > 1e-3)).any(axis=1)
        if wrong.any():
            r = int(np.flatnonzero(wrong)[0])
            raise ValueError(f"obs[{r}]: block {name!r} holds a negative or fractional count")
    pack = pack_counts(rules)
    hand = np.rint(k["hand"]).astype(np.int64)
    if "seat_played" in k and k["seat_played"].shape[1]:
        seen = hand + np.rint(k["seat_played"]).reshape(len(o), p, NUM_CARDS).sum(axis=1)
        over = (seen > pack[None]).any(axis=1)
    else:
        seen = _per_rank(hand) + np.rint(k["played"]).astype(np.int64)
        over = (seen > _per_rank(pack[None])).any(axis=1)
    if over.any():
        r = int(np.flatnonzero(over)[0])
        raise ValueError(f"obs[{r}]: its hand and the cards played hold more cards than the pack")


def _per_rank(cards: np.ndarray) -> IntArray:
    """Counts per card id ``[..., 53]`` as counts per rank ``[..., 14]`` (the jokers last)."""
    c = np.asarray(cards, np.int64)
    natural = c[..., :NUM_NATURAL].reshape(*c.shape[:-1], NUM_RANKS, NUM_SUITS).sum(axis=-1)
    return np.concatenate([natural, c[..., NUM_NATURAL:]], axis=-1)


def _history(rules: Rules) -> bool:
    """Whether ``rules`` keep the deal's history (``observation`` "history" or "record")."""
    return bool(getattr(rules, "keeps_history", False))


def unseen_cards(rules: Rules, obs: npt.ArrayLike) -> tuple[IntArray, bool]:
    """Cards the observer cannot see ``[B, 53]``: in the pack, not in its hand, not played. With
    the history observation the cards played are known per card id (``exact`` True); with the
    standard one only per rank, and the counts are per rank: the natural cards of rank r not in
    the hand, of which ``unseen_ranks`` are unseen (``exact`` False; see :func:`sample_hands`)."""
    o, lay = _checked_obs(rules, obs)
    blocks = lay.split(o)
    out = pack_counts(rules)[None] - blocks["hand"].astype(np.int64)
    exact = _history(rules) and "seat_played" in blocks
    if exact:
        p = rules.num_players
        out -= blocks["seat_played"].reshape(len(o), p, NUM_CARDS).sum(axis=1).astype(np.int64)
    else:
        out[:, NUM_NATURAL] -= blocks["played"][:, NUM_RANKS].astype(np.int64)
    return out, exact
