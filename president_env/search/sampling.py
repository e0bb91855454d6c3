"""The compiled part of :func:`president_env.search.positions.sample_hands`: deals of the hidden cards,
one per (position, sample), from the counts the observation allows.

For every sample: the cards known to be in a seat are put there; the other hidden cards (with
only per-rank counts of the cards played: a random choice of the unseen suits of every rank) are
dealt one by one in random order, each to a seat with room for it in proportion to that room
(which is uniform dealing), never to a seat that cannot hold it while another can
(``forbidden``). With ``tries > 1`` that is done ``tries`` times and one deal is drawn with
weight ``weight ** (passes it contradicts)`` (:func:`contradictions`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from president_env.core import KERNEL_SOURCES_HASH
from president_env.core.cards import NUM_CARDS, NUM_NATURAL, NUM_RANKS
from president_env.core.constants import NUM_SUITS
from president_env.core.jit import kernel_decorator, sources_hash

kernel = kernel_decorator(sources_hash([Path(__file__)], KERNEL_SOURCES_HASH))

MAX_POOL = 512
"""More hidden cards than any pack holds (2 decks and jokers: 108)."""


@kernel
def _rand(state: np.ndarray) -> float:  # pragma: no cover - compiled
    """xorshift64* step on ``state[0]``: a float in [0, 1)."""
    x = state[0]
    x ^= x >> 12
    x ^= (x << 25) & 0x7FFFFFFFFFFFFFFF
    x ^= x >> 27
    state[0] = x & 0x7FFFFFFFFFFFFFFF
    return float((x * 2685821657736338717) & 0x7FFFFFFFFFFFFFFF) / 9.223372036854775808e18


@kernel
def _strongest(hand: np.ndarray, rev: bool, out: np.ndarray) -> None:  # pragma: no cover
    """``out[s]``: the strongest rank (in the order in effect) of which ``hand`` makes a set of
    ``s`` (1..4) cards, jokers counted; -1 none."""
    jokers = hand[NUM_NATURAL]
    out[:] = -1
    for r in range(NUM_RANKS):
        cnt = jokers
        for s in range(NUM_SUITS):
            cnt += hand[r * NUM_SUITS + s]
        if cnt == jokers:
            continue
        strength = NUM_RANKS - 1 - r if rev else r
        for s in range(1, min(cnt, 4) + 1):
            out[s] = max(out[s], strength)


@kernel
def contradictions(hand: np.ndarray, passes: np.ndarray, rev: bool, equal: bool) -> int:  # pragma: no cover
    """Passes of one seat (``passes`` [53]: flag ``(size - 1) * 13 + rank``) that its ``hand``
    contradicts: it holds a set of that size or more that beats that rank."""
    best = np.empty(5, np.int64)
    _strongest(hand, rev, best)
    v = 0
    for idx in range(NUM_NATURAL):
        if passes[idx] == 0:
            continue
        r = idx % NUM_RANKS
        strength = NUM_RANKS - 1 - r if rev else r
        top = -1
        for s in range(idx // NUM_RANKS + 1, 5):
            top = max(top, best[s])
        if top > strength or (equal and top == strength):
            v += 1
    return v


@kernel
def _free_units(unseen, known, b, c):  # type: ignore[no-untyped-def]  # pragma: no cover
    free = unseen[b, c]
    for k in range(known.shape[1]):
        free -= known[b, k, c]
    return free


@kernel
def _pool(unseen, rank_unseen, exact, known, b, rs, pool):  # type: ignore[no-untyped-def]  # pragma: no cover
    """The hidden cards not known to be somewhere, shuffled, into ``pool``; returns how many."""
    m = 0
    for c in range(NUM_CARDS):
        if exact or c == NUM_NATURAL:
            for _ in range(_free_units(unseen, known, b, c)):
                pool[m] = c
                m += 1
    if not exact:  # which natural cards are unseen: rank_unseen[r] of the free ones of rank r
        for r in range(NUM_RANKS):
            m0 = m
            take = rank_unseen[b, r]
            for s in range(NUM_SUITS):
                c = r * NUM_SUITS + s
                for k in range(known.shape[1]):
                    take -= known[b, k, c]
                for _ in range(_free_units(unseen, known, b, c)):
                    pool[m] = c
                    m += 1
            for j in range(m0, m):  # a random subset of size `take` in front
                q = j + int(_rand(rs) * (m - j))
                pool[j], pool[q] = pool[q], pool[j]
            m = m0 + max(take, 0)
    for j in range(m - 1, 0, -1):
        q = int(_rand(rs) * (j + 1))
        pool[j], pool[q] = pool[q], pool[j]
    return m


@kernel
def _deal(pool, m, room, forbidden_b, rs, cand):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Deal ``pool[:m]`` into ``cand`` [P, 53] (seats 1..P-1), each card to a seat with room in
    proportion to it, avoiding the seats that cannot hold it when another can."""
    p = cand.shape[0]
    for j in range(m):
        c = pool[j]
        total = 0
        for k in range(1, p):
            if not forbidden_b[k, c]:
                total += room[k]
        strict = total > 0
        if not strict:
            for k in range(1, p):
                total += room[k]
        u = int(_rand(rs) * total)
        for k in range(1, p):
            if room[k] > 0 and not (strict and forbidden_b[k, c]):
                if u < room[k]:
                    cand[k, c] += 1
                    room[k] -= 1
                    break
                u -= room[k]


@kernel
def _weighted(weights, n, rs):  # type: ignore[no-untyped-def]  # pragma: no cover
    """An index in 0..n-1 drawn in proportion to ``weights[:n]``."""
    total = 0.0
    for t in range(n):
        total += weights[t]
    u = _rand(rs) * total
    for t in range(n):
        u -= weights[t]
        if u < 0:
            return t
    return n - 1


@kernel
def sample_kernel(unseen, rank_unseen, exact, known, need, forbidden, passes, rev, equal,  # type: ignore[no-untyped-def]
                  weight, tries, seeds, out):  # pragma: no cover - compiled
    """``out[b, i, k]`` (k >= 1): sample ``i`` of position ``b`` (see the module docstring);
    ``seeds [B, n]`` start each sample's stream."""
    n_pos, n, p = out.shape[0], out.shape[1], out.shape[2]
    pool = np.empty(MAX_POOL, np.int64)
    room = np.zeros(p, np.int64)
    cand = np.zeros((max(tries, 1), p, NUM_CARDS), np.int8)
    w = np.ones(max(tries, 1))
    rs = np.zeros(1, np.uint64)
    for b in range(n_pos):
        for i in range(n):
            rs[0] = np.uint64(seeds[b, i])
            for t in range(tries):
                cand[t] = known[b]
                m = _pool(unseen, rank_unseen, exact, known, b, rs, pool)
                room[:] = need[b]
                _deal(pool, m, room, forbidden[b], rs, cand[t])
                if tries > 1:
                    v = 0
                    for k in range(1, p):
                        v += contradictions(cand[t, k], passes[b, k], rev[b], equal)
                    w[t] = weight ** v
            pick = _weighted(w, tries, rs) if tries > 1 else 0
            for k in range(1, p):
                out[b, i, k] = cand[pick, k]
