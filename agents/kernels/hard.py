"""Hard: card counting and a one-step look-ahead over the value of the hand that is left.

Counting: the natural cards of each rank still out (in the opponents' hands) are the pack less
the public ``played`` memory less the own hand; likewise the jokers. For every legal action:
the cards it takes (as the engine takes them), the order after it (a set of four or more
reverses it when revolution is on), the chance ``p`` that it holds the trick (``vset``: 1.0
exactly when no beating set can exist among the opponents still in the trick who hold enough
cards), and the value of the hand that remains (:func:`~agents.kernels.hard_value.hand_value`).

Score = hand value, + ``alpha * p`` when following (taking the lead from an opponent),
+ ``chain`` when the play surely holds and at most one group that can be beaten is left (the
hand then goes out by chaining sure plays, the beatable group last), - ``danger`` terms when
Hard is close to going out (``race`` groups or fewer) and an opponent down to one or two cards
could win the trick (playing) or already holds it (passing); - ``break`` for playing part of a
rank. Going out always wins. In the exchange: the card whose loss costs the hand least; with
``president_asks`` the ask of the best expected value (:func:`~agents.kernels.asks.hard_ask`).

Variants: a bomb holds for sure and any other play may be bombed (:mod:`~agents.kernels.
hard_odds`); the hand left is valued in the order after the trick (a pending revolution,
``next_trick``, applies then; with ``western_revolution`` the fourth single of a row revolts).
With ``play_on_own`` a play on its own top play (the others passed) takes no lead from anyone:
it is scored by the hand it leaves alone. With ``jack_back`` the chance to hold is judged in
the order in force (revolution XOR 11-back), turned again by a play holding a J; the hand left
in the order after the trick, when the 11-back ends. With ``stalemate_passes``, a pass that would
stall the deal (its places then drawn at random) is taken when Hard holds more cards than the
mean of the players still in, and avoided when it holds fewer. With ``lead_may_pass`` a pass
on an empty pile costs ``alpha``, the value of the lead it gives away. With ``lock``, when the
trick is locked or the play locks it (the suits of the play it follows, the observation's
``lock`` block), only opponents' sets and runs of those suits can beat it
(:func:`~agents.kernels.hard_odds.vset_locked`). With ``spade_three_beats_joker`` a lone joker
may be answered by the 3 of spades when Hard lacks it (:func:`~agents.kernels.hard_odds.
vjok_seen`).
"""

from __future__ import annotations

from agents.kernels._cache import kernel
from agents.kernels.asks import asking, hard_ask
from agents.kernels.hard_odds import clears, vjok_seen, vrun_locked, vset_locked
from agents.kernels.hard_value import (
    HardWeight,
    fill_tables,
    hand_value,
    new_tables,
    run_chance,
)
from agents.kernels.observation import new_seen, read
from agents.kernels.plays import hand_total, jack_turns, naturals, revolts, strength
from president_env.core import play_suits, take_cards
from president_env.core.constants import JOKER, NUM_CARDS, NUM_RANKS, PHASE_EXCHANGE, Kind
from president_env.core.rules import RuleParam


@kernel
def _exchange_gift(row, seen, tab, jout, rp, w, acts):  # type: ignore[no-untyped-def]
    """The card to give back whose loss costs the hand least (lower card on a tie)."""
    h2, nat2 = tab.h2, tab.nat2
    best = -1
    best_score = -1e18
    for a in range(row.shape[0]):
        if not row[a]:
            continue
        for i in range(NUM_CARDS):
            h2[i] = seen.hand[i]
        c = acts.card[a]
        h2[c] -= 1
        naturals(h2, nat2)
        val, losers = hand_value(h2, nat2, h2[JOKER], False, tab, seen.outn, jout, rp, w)
        score = val - 1e-4 * c
        if score > best_score:
            best_score = score
            best = a
    return best


@kernel(inline="always")
def _lock_after(a, turn, rp, acts):  # type: ignore[no-untyped-def]
    """``lock``: the suits the trick is locked to after play ``a`` (locked already, or locked by
    ``a``: the suits of the play it follows); 0 if it is not (a lone joker clears the lock)."""
    k = acts.kind[a]
    if rp[RuleParam.LOCK] == 0 or k == Kind.JOKERS:
        return 0
    suits = play_suits(k, acts.suit[a], acts.card[a])
    if turn.locked or (turn.pile_kind != 0 and suits == turn.lock_suits):
        return suits
    return 0


@kernel(inline="always")
def _holds(a, rev, lock, tab, seen, jout, rp, w, acts):  # type: ignore[no-untyped-def]
    """Chance that play ``a`` holds the trick against the opponents still in it (in a trick
    locked to the suits ``lock``, 0 if not)."""
    k = acts.kind[a]
    size = acts.size[a]
    if k == Kind.SET:
        return vset_locked(acts.rank[a], size, lock, rev, tab.ge_t, seen.hand, seen.outn, jout,
                           rp)
    if k == Kind.JOKERS:
        return vjok_seen(size, tab.ge_t, seen.hand, seen.outn, jout, rp)
    suit = acts.suit[a] if lock != 0 else -1
    return vrun_locked(acts.rank[a], size, suit, rev, tab.ge_t, seen.hand, seen.outn, jout, rp,
                       run_chance(rp, w))


@kernel(inline="always")
def _minus_danger(score, size, p, seen, rp, w):  # type: ignore[no-untyped-def]
    """``score`` less each danger term in turn (the terms are taken off one by one)."""
    final = rp[RuleParam.PASS_IS_FINAL] != 0
    for kk in range(1, rp[RuleParam.PLAYERS]):
        n = seen.left[kk]
        if 0 < n <= 2 and size <= n and not (final and seen.passed[kk]):
            f = 1.0 if size == n else 0.5
            score -= w[HardWeight.DANGER] * (1.0 - p) * f
    return score


@kernel(inline="always")
def _stall_score(total, seen, turn, rp, w):  # type: ignore[no-untyped-def]
    """``stalemate_passes``: when a pass would stall the deal (the players still in then take
    the places left at random), ``+chain`` if Hard holds more cards than the mean of those
    players (a random place is better than its own race), ``-chain`` if fewer; else 0."""
    stale = rp[RuleParam.STALEMATE_PASSES]
    if stale == 0 or turn.pass_run + 1 < stale:
        return 0.0
    held = 0
    players = 0
    for k in range(rp[RuleParam.PLAYERS]):
        if seen.left[k] > 0:
            held += seen.left[k]
            players += 1
    return w[HardWeight.CHAIN] if total * players > held else -w[HardWeight.CHAIN]


@kernel
def _play_score(a, seen, turn, racing, tab, rp, w, acts):  # type: ignore[no-untyped-def]
    """Score of play ``a`` (not a pass, not going out): the value of the hand left, the
    chance to hold the trick, the chain bonus, the break and danger costs."""
    hand, nat = seen.hand, seen.nat
    rev = turn.rev != turn.jack_back  # the order in force in this trick (jack_back)
    k = acts.kind[a]
    size = acts.size[a]
    take_cards(hand, k, acts.rank[a], size, acts.suit[a], acts.card[a], tab.rem)
    for c in range(NUM_CARDS):
        tab.h2[c] = hand[c] - tab.rem[c]
    naturals(tab.h2, tab.nat2)
    # the order for the rest of the deal: a pending change applies as the trick ends
    rev2 = turn.rev != turn.pending
    if revolts(k, acts.rank[a], size, turn.row_rank, turn.row_count, rp):
        rev2 = not rev2
    # a J (jack_back) turns the order the answer must beat it in
    p = _holds(a, rev != jack_turns(k, acts.rank[a], size, rp), _lock_after(a, turn, rp, acts),
               tab, seen, turn.jout, rp, w, acts)
    if k == Kind.SET and turn.pile_kind == Kind.JOKERS:  # the 3 of spades on a lone joker
        p = 1.0  # (spade_three_beats_joker: it clears the pile)
    val, losers = hand_value(
        tab.h2, tab.nat2, tab.h2[JOKER], rev2, tab, seen.outn, turn.jout, rp, w
    )
    score = val
    if turn.pile_kind != 0 and turn.last != 0:  # (play_on_own: its own play is no lead to take)
        score += w[HardWeight.ALPHA] * p  # taking the lead from an opponent
    if k == Kind.SET and nat[acts.rank[a]] > size and not clears(acts.rank[a], rev, rp):
        score -= w[HardWeight.BREAK]
    if p >= 1.0 and losers <= 1:
        score += w[HardWeight.CHAIN]
    if racing:
        score = _minus_danger(score, size, p, seen, rp, w)
    score -= 1e-6 * strength(k, acts.rank[a], size, rev)
    return score


@kernel
def _hard_play(b, row, seen, turn, tab, rp, w, acts, scores):  # type: ignore[no-untyped-def]
    """The best-scoring legal action of a play decision (going out at once when possible);
    every scored action's score into ``scores[b]`` when ``scores`` has rows."""
    hand, nat = seen.hand, seen.nat
    total = hand_total(hand)
    my_groups = hand[JOKER]
    for r in range(NUM_RANKS):
        if nat[r] > 0:
            my_groups += 1
    racing = my_groups <= w[HardWeight.RACE]
    # an opponent down to one or two cards who holds the trick now
    last = turn.last
    danger_last = racing and last >= 1 and 0 < seen.left[last] <= 2
    best = -1
    best_score = -1e18
    for a in range(row.shape[0]):
        if not row[a]:
            continue
        if acts.kind[a] == Kind.PASS:
            val, losers = hand_value(
                hand, nat, hand[JOKER], turn.rev != turn.pending, tab, seen.outn, turn.jout, rp, w
            )
            score = val + _stall_score(total, seen, turn, rp, w)
            if turn.pile_kind == 0:  # lead_may_pass: a pass gives the lead away
                score -= w[HardWeight.ALPHA]
            if danger_last:
                score -= w[HardWeight.DANGER_PASS]
        elif acts.size[a] == total:
            return a
        else:
            score = _play_score(a, seen, turn, racing, tab, rp, w, acts)
        if scores.shape[0] > 0:
            scores[b, a] = score
        if score > best_score:
            best_score = score
            best = a
    return best


@kernel
def _hard_rows(obs, mask, off, rp, acts, w, seen, tab, out, scores):  # type: ignore[no-untyped-def]
    for b in range(obs.shape[0]):
        turn = read(obs, b, off, rp, seen)
        row = mask[b]
        fill_tables(tab, seen, turn.rev, turn.jout, rp, w)
        if turn.phase == PHASE_EXCHANGE:
            if rp[RuleParam.PRESIDENT_ASKS] != 0 and asking(row, acts):
                out[b] = hard_ask(obs, b, off, row, seen, turn, tab, rp, w, acts)
            else:
                out[b] = _exchange_gift(row, seen, tab, turn.jout, rp, w, acts)
        else:
            out[b] = _hard_play(b, row, seen, turn, tab, rp, w, acts, scores)


@kernel(allocates=True)
def hard_kernel(obs, mask, off, rp, acts, w, out, scores):  # type: ignore[no-untyped-def]
    """Hard's choice for every row (see the module doc); ``scores [B, A]`` (or ``[0, A]`` to
    skip) receives every scored action's score (a play that goes out is taken unscored)."""
    seen = new_seen(rp[RuleParam.PLAYERS])
    _hard_rows(obs, mask, off, rp, acts, w, seen, new_tables(rp), out, scores)
