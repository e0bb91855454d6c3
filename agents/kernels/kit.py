"""Kit: the play of the UECda development kit's sample client, as its plays show it.

The contest's standard server ships with a sample client (``tndhm_devkit_c``, no open licence:
not in this repository); its moves are in every committed server log (``tests/data/uecda``).
This kernel plays as those logs show it (``tests/test_kit.py`` measures the agreement, move by
move, on the logs), in the order in effect (revolution XOR 11-back):

* Leading: its longest run (a joker may fill it), the weakest of that length; else its largest
  set, all the natural cards of a rank and its joker, the weakest of that size; else its
  weakest single; the lone joker last.
* Following a single: its weakest card that is in no set (a rank held twice or more) and no
  natural run of three or more; else the lone joker; else it passes.
* Following a set of ``n``: a rank of which it holds exactly ``n`` natural cards of the suits
  allowed (the lock), the weakest; else ``n - 1`` and the joker; else it passes (it breaks no
  bigger set).
* Following a run of ``n``: a natural run of ``n`` that ends where its cards in a row end (of
  8-9-10-J it plays 9-10-J on a run of three), the weakest; else a run with the joker; else
  it passes. A lone joker on the pile: it passes.
* A set's joker stands in the first row the set lacks, spades, hearts, diamonds, clubs (the
  server's order); in the exchange it gives its lowest cards (the lowest card id).

Any legal action the rules above do not name comes after them all, the weakest first.
"""

from __future__ import annotations

import numpy as np

from agents.kernels._cache import kernel
from agents.kernels.easy import _easy_score
from agents.kernels.observation import new_seen, read
from agents.kernels.plays import jokers_used, strength
from president_env.core.constants import JOKER, NUM_NATURAL, NUM_RANKS, Kind
from president_env.core.rules import RuleParam

_CAT = np.int64(1) << 48
"""One step of the preference categories (a category's score is below the next one's)."""
_OTHER = 9 * _CAT
"""Legal actions the rules above do not name."""


@kernel(inline="always")
def _mark_runs(hand, inrun):  # type: ignore[no-untyped-def]
    """``inrun[c]``: card ``c`` is in a natural run of three or more of its suit."""
    for c in range(NUM_NATURAL):
        inrun[c] = 0
    for s in range(4):
        r = 0
        while r < NUM_RANKS:
            e = r
            while e < NUM_RANKS and hand[4 * e + s] > 0:
                e += 1
            if e - r >= 3:
                for q in range(r, e):
                    inrun[4 * q + s] = 1
            r = e + 1 if e == r else e


@kernel(inline="always")
def _single_suit(hand, r, u):  # type: ignore[no-untyped-def]
    """The suit of the natural single of rank ``r`` (``u``: its suit mask with ``exact_plays``;
    else the lowest suit held)."""
    s = 0
    if u > 0:
        while s < 3 and (u >> s) & 1 == 0:
            s += 1
        return s
    while s < 3 and hand[4 * r + s] == 0:
        s += 1
    return s


@kernel(inline="always")
def _allowed(hand, r, suits):  # type: ignore[no-untyped-def]
    """Natural cards of rank ``r`` held in the suits of the mask ``suits``."""
    n = 0
    for s in range(4):
        if (suits >> s) & 1:
            n += hand[4 * r + s]
    return n


@kernel(inline="always")
def _category(turn, k, r, n, u, j, hj, nat, hand, inrun):  # type: ignore[no-untyped-def]
    """The sample client's preference category of a play (0 first; 9: not one it makes)."""
    pk = turn.pile_kind
    if pk == 0:  # leading
        if k == Kind.RUN:
            return 0
        if k == Kind.SET and n >= 2 and j == hj and n - j == nat[r]:
            return 1
        if k == Kind.SET and n == 1 and j == 0:
            return 2
        if k == Kind.JOKERS and n == 1:
            return 3
        return 9
    if pk == Kind.RUN:
        if k != Kind.RUN:
            return 9
        if j > 0:
            return 2
        top = r + n
        ends = top >= NUM_RANKS or (hand[4 * top + u] == 0 if u >= 0 else nat[top] == 0)
        return 0 if ends else 1
    if turn.pile_size == 1:
        if k == Kind.SET and n == 1 and j == 0:
            s = _single_suit(hand, r, u)
            return 0 if nat[r] == 1 and inrun[4 * r + s] == 0 else 9
        return 1 if k == Kind.JOKERS and n == 1 else 9
    if k != Kind.SET:
        return 9
    suits = (turn.lock_suits & 15) if turn.locked else 15
    if j == 0 and _allowed(hand, r, suits) == n:
        return 0
    return 1 if j == 1 and _allowed(hand, r, suits) + 1 == n else 9


@kernel(inline="always")
def _kit_score(turn, k, r, n, u, c, rev, hj, nat, hand, inrun, tries_run):  # type: ignore[no-untyped-def]
    """Lower is preferred (see the module docstring)."""
    if k == Kind.PASS and turn.pile_kind == 0:
        return 0 if tries_run else _OTHER + 2 * _CAT
    if k >= Kind.GIVE:
        return _OTHER + _CAT + _easy_score(k, r, n, u, c, rev, nat, hand)
    if k == Kind.PASS:
        return 0 if turn.pile_kind == Kind.JOKERS else 8 * _CAT
    st = strength(k, r, n, rev)
    j = jokers_used(k, r, n, u, c, nat, hand)
    cat = _category(turn, k, r, n, u, j, hj, nat, hand, inrun)
    if turn.jack_back and turn.pile_kind != 0:
        cat = 9  # 11-back: it looks for a stronger play in the revolution's order only: none
    if cat == 9:
        return _OTHER + st * 100 + j
    score = cat * _CAT + st * 100 + j * 10
    if turn.pile_kind == 0:  # leading: the longest run, the largest set first
        score -= n * 10000
    if k == Kind.SET and c >= 0:  # exact_plays: the joker in the first row missing
        score += 4 - c
    return score


@kernel
def _kit_rows(obs, mask, off, rp, acts, seen, inrun, out):  # type: ignore[no-untyped-def]
    kind, rank, size, suit, card = acts
    for b in range(obs.shape[0]):
        turn = read(obs, b, off, rp, seen)
        hand, nat = seen.hand, seen.nat
        rev = turn.rev  # it does not know 11-back
        _mark_runs(hand, inrun)
        tries_run = False  # runs off: it leads its run all the same, refused: a pass
        if rp[RuleParam.RUNS] == 0 and turn.pile_kind == 0:
            for c in range(NUM_NATURAL):
                tries_run |= inrun[c] > 0
        hj = hand[JOKER]
        best = -1
        best_score = np.int64(1) << 62
        for a in range(mask.shape[1]):
            if mask[b, a]:
                score = _kit_score(turn, kind[a], rank[a], size[a], suit[a], card[a], rev, hj,
                                   nat, hand, inrun, tries_run)
                if score < best_score:
                    best_score = score
                    best = a
        out[b] = best


@kernel(allocates=True)
def kit_kernel(obs, mask, off, rp, acts, out):  # type: ignore[no-untyped-def]
    """The UECda kit's sample client's play of every row (the module docstring)."""
    _kit_rows(obs, mask, off, rp, acts, new_seen(rp[RuleParam.PLAYERS]),
              np.zeros(NUM_NATURAL, np.int64), out)
