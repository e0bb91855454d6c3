"""Easy: the lowest legal play in the order in effect (RULES.md section 9, "Easy")."""

from __future__ import annotations

import numpy as np

from agents.kernels._jit import kernel
from agents.kernels.observation import new_seen, read
from agents.kernels.plays import jokers_used, strength
from president_env.core.constants import Kind
from president_env.core.rules import RuleParam

_NEVER = np.int64(1) << 60
_PASS_SCORE = np.int64(1) << 50


@kernel(inline="always")
def _easy_score(k, r, n, u, c, rev, nat, hand):  # type: ignore[no-untyped-def]
    """Lower is preferred: a gift by card id; a play by strength, then fewer jokers, then more
    cards; a pass last."""
    if k == Kind.GIVE:
        return np.int64(c)
    if k == Kind.PASS:
        return _PASS_SCORE
    st = strength(k, r, n, rev)
    j = jokers_used(k, r, n, u, nat, hand)
    return np.int64(st) * 10000 + j * 100 + (99 - n)


@kernel
def _easy_rows(obs, mask, off, rp, acts, seen, out):  # type: ignore[no-untyped-def]
    kind, rank, size, suit, card = acts
    for b in range(obs.shape[0]):
        turn = read(obs, b, off, rp, seen)
        best = -1
        best_score = _NEVER
        for a in range(mask.shape[1]):
            if not mask[b, a]:
                continue
            score = _easy_score(
                kind[a], rank[a], size[a], suit[a], card[a], turn.rev, seen.nat, seen.hand
            )
            if score < best_score:
                best_score = score
                best = a
        out[b] = best


@kernel(allocates=True)
def easy_kernel(obs, mask, off, rp, acts, out):  # type: ignore[no-untyped-def]
    """The lowest legal play in the order in effect; fewer jokers, then more cards, break ties;
    pass only when nothing else is legal. In the exchange, the lowest card (usual order)."""
    _easy_rows(obs, mask, off, rp, acts, new_seen(rp[RuleParam.PLAYERS]), out)
