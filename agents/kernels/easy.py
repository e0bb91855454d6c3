"""Easy: the lowest legal play in the order in effect (RULES.md section 9, "Easy").

With ``bombs`` a bomb (a set of ``bombs`` cards or more) that answers an opponent's play
comes after every other play: Easy does not spend one on a trick it can follow. With
``president_asks`` it names the highest card of the pack it does not hold. With ``jack_back``
the order in effect is the order in force in the trick (revolution XOR 11-back, the
observation's ``jack_back`` block).
"""

from __future__ import annotations

import numpy as np

from agents.kernels._cache import kernel
from agents.kernels.observation import new_seen, read
from agents.kernels.plays import jokers_used, strength
from president_env.core.constants import NUM_CARDS, Kind
from president_env.core.rules import RuleParam

_NEVER = np.int64(1) << 60
_PASS_SCORE = np.int64(1) << 50
_BOMB_LAST = np.int64(1) << 40


@kernel(inline="always")
def _easy_score(k, r, n, u, c, rev, nat, hand):  # type: ignore[no-untyped-def]
    """Lower is preferred: a gift by card id; a play by strength, then fewer jokers, then more
    cards; a pass last; an ask by the cards held, then the highest card."""
    if k >= Kind.GIVE:  # the exchange: a gift, or an ask
        if k == Kind.GIVE:
            return np.int64(c)
        return np.int64(hand[c]) * 100 + NUM_CARDS - 1 - c
    if k == Kind.PASS:
        return _PASS_SCORE
    st = strength(k, r, n, rev)
    j = jokers_used(k, r, n, u, c, nat, hand)
    return np.int64(st) * 10000 + j * 100 + (99 - n)


@kernel(inline="always")
def _easy_best(mask, b, acts, rev, seen, bomb_min):  # type: ignore[no-untyped-def]
    """The legal action of the lowest score; plays of ``bomb_min`` cards or more (not runs:
    bombs) after every other play (``bomb_min`` 0: no bombs to put last)."""
    kind, rank, size, suit, card = acts
    best = -1
    best_score = _NEVER
    for a in range(mask.shape[1]):
        if not mask[b, a]:
            continue
        score = _easy_score(kind[a], rank[a], size[a], suit[a], card[a], rev, seen.nat, seen.hand)
        if bomb_min != 0 and size[a] >= bomb_min and kind[a] != Kind.RUN:
            score += _BOMB_LAST
        if score < best_score:
            best_score = score
            best = a
    return best


@kernel
def _easy_rows(obs, mask, off, rp, acts, seen, out):  # type: ignore[no-untyped-def]
    bombs = rp[RuleParam.BOMBS]
    for b in range(obs.shape[0]):
        turn = read(obs, b, off, rp, seen)
        rev = turn.rev != turn.jack_back  # the order in force (jack_back: until the trick ends)
        if bombs != 0 and turn.pile_kind != 0:  # following: bombs last
            out[b] = _easy_best(mask, b, acts, rev, seen, bombs)
        else:
            out[b] = _easy_best(mask, b, acts, rev, seen, 0)


@kernel(allocates=True)
def easy_kernel(obs, mask, off, rp, acts, out):  # type: ignore[no-untyped-def]
    """The lowest legal play in the order in effect; fewer jokers, then more cards, break ties;
    pass only when nothing else is legal. In the exchange, the lowest card (usual order)."""
    _easy_rows(obs, mask, off, rp, acts, new_seen(rp[RuleParam.PLAYERS]), out)
