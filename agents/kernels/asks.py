"""The President's asks (``president_asks``): which card to name, for Normal and Hard.

While the President has asks left its mask holds only ask actions, one per card of the pack
(:attr:`~president_env.core.actions.ActionLayout.ask_base` ``+ card``). If the Bum holds the
card named, a copy comes; if not, the Bum's best card comes instead. The public ``asked`` and
``ask_held`` blocks of the observation tell which asks of this exchange found nothing
(:func:`~agents.kernels.observation.known_absent`): such a card is not asked again.

* :func:`normal_ask`: the best card of the pack (a joker, then the highest card id) that the
  President does not hold every copy of and that the Bum is not known to lack.
* :func:`hard_ask`: the card of the highest expected hand value: ``p * V(hand + card) +
  (1 - p) * V(hand + best)``, where ``p`` is the chance that the Bum holds the card (copies
  out times the Bum's share of the cards out) and ``best`` the best card out that the Bum is
  not known to lack (what an unheld ask brings, at best). So Hard names the top card out,
  unless another card is worth more to its hand (the fourth of a rank, say) and likely enough.

Neither ever names a card it holds every copy of, unless nothing else is legal.
"""

from __future__ import annotations

from agents.kernels._cache import kernel
from agents.kernels.hard_value import hand_value
from agents.kernels.observation import bum_seat, known_absent
from agents.kernels.plays import copies, naturals
from president_env.core.constants import JOKER, NUM_CARDS, NUM_RANKS, Kind
from president_env.core.rules import RuleParam


@kernel(inline="always")
def asking(row, acts):  # type: ignore[no-untyped-def]
    """Whether the legal actions of this row are asks (the President's asks in the exchange)."""
    for a in range(row.shape[0]):
        if row[a]:
            return acts.kind[a] == Kind.ASK
    return False


@kernel(inline="always")
def _first_legal(row):  # type: ignore[no-untyped-def]
    for a in range(row.shape[0]):
        if row[a]:
            return a
    return -1


@kernel(inline="always")
def _worth_asking(obs, b, off, c, hand, rp):  # type: ignore[no-untyped-def]
    """A copy of ``c`` may still be out with the Bum: not all held, not known absent."""
    return hand[c] < copies(c, rp) and not known_absent(obs, b, off, c)


@kernel
def normal_ask(obs, b, off, row, hand, rp, acts):  # type: ignore[no-untyped-def]
    """The best card worth asking (joker first, then the highest card id)."""
    choice = -1
    best_c = -1
    for a in range(row.shape[0]):
        if row[a] and acts.kind[a] == Kind.ASK:
            c = acts.card[a]
            if c > best_c and _worth_asking(obs, b, off, c, hand, rp):
                best_c = c
                choice = a
    return choice if choice >= 0 else _first_legal(row)


@kernel
def _top_out(obs, b, off, hand, outn, jout, rp):  # type: ignore[no-untyped-def]
    """The best card out that the Bum is not known to lack (-1 if none): a joker, else the
    highest rank out, its highest suit not held in full."""
    if jout > 0 and not known_absent(obs, b, off, JOKER):
        return JOKER
    for kk in range(NUM_RANKS):
        r = NUM_RANKS - 1 - kk
        if outn[r] == 0:
            continue
        for uu in range(4):
            c = 4 * r + 3 - uu
            if _worth_asking(obs, b, off, c, hand, rp):
                return c
    return -1


@kernel
def _value_with(c, hand, tab, outn, jout, rev, rp, w):  # type: ignore[no-untyped-def]
    """Hard's value of ``hand`` plus card ``c`` (``hand`` alone if ``c`` is -1)."""
    h2, nat2 = tab.h2, tab.nat2
    for i in range(NUM_CARDS):
        h2[i] = hand[i]
    if c >= 0:
        h2[c] += 1
    naturals(h2, nat2)
    val, losers = hand_value(h2, nat2, h2[JOKER], rev, tab, outn, jout, rp, w)
    return val


@kernel
def hard_ask(obs, b, off, row, seen, turn, tab, rp, w, acts):  # type: ignore[no-untyped-def]
    """The ask of the highest expected hand value (module doc)."""
    hand = seen.hand
    bum = bum_seat(obs, b, off, rp[RuleParam.PLAYERS])
    unseen = 0
    for k in range(1, rp[RuleParam.PLAYERS]):
        unseen += seen.left[k]
    n_bum = seen.left[bum] if bum > 0 else 0
    fallback = _top_out(obs, b, off, hand, seen.outn, turn.jout, rp)
    v_fall = _value_with(fallback, hand, tab, seen.outn, turn.jout, turn.rev, rp, w)
    choice = -1
    best_score = -1e18
    for a in range(row.shape[0]):
        if not row[a] or acts.kind[a] != Kind.ASK:
            continue
        c = acts.card[a]
        if not _worth_asking(obs, b, off, c, hand, rp):
            continue
        p = 0.0
        if unseen > 0:
            p = (copies(c, rp) - hand[c]) * n_bum / float(unseen)
        if p > 1.0:
            p = 1.0
        v_c = _value_with(c, hand, tab, seen.outn, turn.jout, turn.rev, rp, w)
        score = p * v_c + (1.0 - p) * v_fall + 1e-6 * c  # the higher card on a tie
        if score > best_score:
            best_score = score
            choice = a
    return choice if choice >= 0 else _first_legal(row)
