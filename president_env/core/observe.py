"""Per-player observation: one flat float32 vector per game, never revealing hidden cards.

Layout (``P`` players; "seat k" below is the k-th seat to the observer's left, seat 0 = the
observer itself). :class:`ObservationLayout` gives every block as a named slice.

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
===================  ===========  ============================================================

Everything above is public or the observer's own: hands of other players appear only as
counts of cards left.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numba import njit

from president_env.core.cards import NUM_CARDS, NUM_RANKS
from president_env.core.rules import Rules


@dataclass(frozen=True)
class ObservationLayout:
    """Named slices of the observation vector for one Rules."""

    rules: Rules
    size: int = field(init=False)
    slices: dict[str, slice] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        p = self.rules.num_players
        blocks = [
            ("hand", NUM_CARDS),
            ("played", NUM_RANKS + 1),
            ("pile_kind", 4),
            ("pile_size", 1),
            ("pile_rank", NUM_RANKS),
            ("revolution", 1),
            ("leading", 1),
            ("phase", 3),
            ("to_act", 1),
            ("cards_left", p),
            ("passed", p),
            ("last_player", p),
            ("current", p),
            ("place", p * p),
            ("title", p * p),
            ("score", p),
            ("gave", NUM_CARDS),
            ("received", NUM_CARDS),
            ("to_return", 1),
            ("deal", 1),
        ]
        slices: dict[str, slice] = {}
        start = 0
        for name, n in blocks:
            slices[name] = slice(start, start + n)
            start += n
        object.__setattr__(self, "slices", slices)
        object.__setattr__(self, "size", start)

    def offsets(self) -> np.ndarray:
        """Start of every block, in the order of the table (for the kernel)."""
        return np.array([s.start for s in self.slices.values()], dtype=np.int64)

    def split(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """The blocks of one or more observations (last axis), as views."""
        return {name: obs[..., s] for name, s in self.slices.items()}


@njit(cache=True, nogil=True)
def observe_kernel(rp, off, st, players, deals, out):  # type: ignore[no-untyped-def]
    (hands, phase, current, pile_kind, pile_rank, pile_size, last_player, passed, revolution,
     place, n_finished, title, scores, deal, played, gave, received, to_return, rewards,
     deal_over, seed, dealer) = st
    n_players = rp[0]
    out[:, :] = 0.0
    for b in range(out.shape[0]):
        me = players[b]
        o = out[b]
        for c in range(53):
            o[off[0] + c] = hands[b, me, c]
        for r in range(14):
            o[off[1] + r] = played[b, r]
        o[off[2] + pile_kind[b]] = 1.0
        o[off[3]] = pile_size[b]
        if pile_rank[b] >= 0:
            o[off[4] + pile_rank[b]] = 1.0
        o[off[5]] = 1.0 if revolution[b] else 0.0
        to_act = current[b] == me
        o[off[6]] = 1.0 if (to_act and pile_kind[b] == 0 and phase[b] == 1) else 0.0
        o[off[7] + phase[b]] = 1.0
        o[off[8]] = 1.0 if to_act else 0.0
        for k in range(n_players):
            q = (me + k) % n_players
            left = 0
            for c in range(53):
                left += hands[b, q, c]
            o[off[9] + k] = left
            o[off[10] + k] = 1.0 if passed[b, q] else 0.0
            o[off[11] + k] = 1.0 if last_player[b] == q else 0.0
            o[off[12] + k] = 1.0 if current[b] == q else 0.0
            if place[b, q] >= 0:
                o[off[13] + k * n_players + place[b, q]] = 1.0
            if title[b, q] >= 0:
                o[off[14] + k * n_players + title[b, q]] = 1.0
            o[off[15] + k] = scores[b, q]
        for c in range(53):
            o[off[16] + c] = gave[b, me, c]
            o[off[17] + c] = received[b, me, c]
        o[off[18]] = to_return[b, me]
        o[off[19]] = deal[b] / deals
