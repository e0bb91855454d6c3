"""What the Expert believes about the hidden hands: deals of the hidden cards, weighed by how
well a model of the other players (Hard) explains what they did in public.

:func:`record_belief` draws over :func:`president_env.search.positions.sample_hands` (deals
consistent with the observation: the observer's hand, every seat's count, the cards played, the
cards given in the exchange), from the public record of the deal (every move so far, in order:
the ``record`` block of ``Rules(observation="record")``,
:func:`president_env.search.positions.record_moves`): a Metropolis-Hastings chain per sample
over the deals, each step swapping one card between two other seats and accepting by
  ``miss ** (change in misses)``, where the misses of a deal are the moves of the other seats
  that Hard, holding that deal's cards at that moment, would not have made (the deal is
replayed from the start of play, :func:`president_env.search.positions.replay`); a deal under
which a move is impossible (a card played that the deal holds elsewhere, a lower suit kept)
counts 10 misses per such fault.

``miss`` (the weight of one unexplained move) keeps every deal possible: the other players need
not play as Hard does.

With ``aim``, the swaps are aimed: every unexplained move names cards (:func:`_named`: the
ranks of the model's play and of the move made, in the run's suit for a run, the joker where
one is in it), whose place in the deal decided the model's choice; a seat of the swap that holds
free cards its unexplained moves name gives one of those instead of any free card. At 12 steps
and a table of Kit agents (``model="kit"``), aimed chains leave 0.5 unexplained moves per deal
22 moves in and 1.3 at 40, against 2.0 and 3.2 for blind ones
(``docs/experiments/2026-12-05-aimed-belief.md``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from president_env.core.cards import NUM_CARDS
from president_env.core.constants import JOKER, NUM_RANKS, NUM_SUITS, Kind
from president_env.core.engine import Engine, State
from president_env.core.observe import ObservationLayout
from president_env.core.rules import Rules
from president_env.search.positions import (
    deal_start,
    known_cards,
    replay,
    sample_hands,
)
from president_env.seeding import Random, RowStreams

MISS = 0.15
"""Weight of a deal per move of another seat that the model (Hard) would not have made."""
FAULT = 10
"""Misses counted for a move that a deal makes impossible."""
STEPS = 24
"""Metropolis-Hastings steps per sample (:func:`record_belief`)."""
TARGET = 2.0
"""How much likelier a seat is picked for a swap per miss it has (:func:`_propose`)."""
INIT = 4
"""Deals drawn per chain to start it from the one that explains the record best."""

Model = Any  # a Policy over the observations of ``engine``: HardAgent


_NAMED: dict[Rules, np.ndarray] = {}


def _named(engine: Engine) -> np.ndarray:
    """The cards each action names ``[A, 53]``, the cards whose place decides whether a player
    makes it: every card of a set's rank, a run's ranks in its suit, the joker of a play that
    holds it, the card given or asked for."""
    layout = engine.layout
    if layout.rules in _NAMED:
        return _NAMED[layout.rules]
    out = np.zeros((engine.num_actions, NUM_CARDS), np.bool_)
    for a in range(engine.num_actions):
        k, r, n, su = (int(layout.kind[a]), int(layout.rank[a]), int(layout.size[a]),
                       int(layout.suit[a]))
        if k == Kind.SET:
            out[a, r * NUM_SUITS : (r + 1) * NUM_SUITS] = True
        elif k == Kind.RUN:  # a joker may stand above the 2: no card there
            out[a, [(r + i) * NUM_SUITS + u for i in range(n) for u in range(NUM_SUITS)
                    if r + i < NUM_RANKS and su in (-1, u)]] = True
        elif k in (Kind.GIVE, Kind.ASK):
            out[a, int(layout.card[a])] = True
        if k == Kind.JOKERS or (k in (Kind.SET, Kind.RUN) and layout.rules.exact_plays
                                and int(layout.card[a]) >= 0):
            out[a, JOKER] = True
    _NAMED[layout.rules] = out
    return out


def _misses(engine: Engine, model: Model, state: State, rows: np.ndarray, seats: np.ndarray,
            actions: np.ndarray, mask: np.ndarray, who: np.ndarray, out: np.ndarray,
            aim: np.ndarray | None = None) -> None:
    """Add to ``out[row, seat]`` the moves that ``model`` would not make, over the games
    ``rows`` where ``who[row, seat]`` (the seats whose cards changed) and the move was a choice
    (more than one legal action); and to ``aim[row, seat]`` the cards those moves name (the
    model's play and the one made)."""
    pick = who[rows, seats] & (mask[rows].sum(axis=1) > 1)
    if not pick.any():
        return
    r, s = rows[pick], seats[pick]
    obs = engine.observe(state)  # the seat to act is the seat that moves
    chosen = model.act_batch(obs[r], mask[r])
    wrong = chosen != actions[pick]
    out[r, s] += wrong
    if aim is not None and wrong.any():
        named, w = _named(engine), np.flatnonzero(wrong)
        aim[r[w], s[w]] |= named[chosen[w]] | named[actions[pick][w]]


def record_misses(rules: Rules, engine: Engine, model: Model, obs: np.ndarray, hands: np.ndarray,
                  moves: np.ndarray, n_moves: np.ndarray, who: np.ndarray | None = None,
                  aim: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Misses of every deal per seat ``[M, P]`` (row b: ``hands[b]`` with ``obs[b]`` and its
    record; seat 0's moves and the seats not in ``who [M, P]`` are not scored) and whether the
    deal is possible (every move legal, the hands reached are ``hands``). ``aim [M, P, 53]``,
    when given, gains the cards the misses name (:func:`_misses`)."""
    m, p = len(obs), rules.num_players
    first = np.where(n_moves > 0, moves[:, 0, 0], 0)
    start = deal_start(rules, obs, hands, first)
    miss = np.zeros((m, p))
    w = np.ones((m, p), np.bool_) if who is None else who.copy()
    w[:, 0] = False
    ok = replay(engine, start, moves, n_moves,
                lambda st, rows, seats, acts, mask: _misses(engine, model, st, rows, seats, acts,
                                                            mask, w, miss, aim))
    ok &= (start.hands == hands).all(axis=(1, 2))
    return miss, ok


def _cost(miss: np.ndarray, ok: np.ndarray) -> np.ndarray:
    return miss.sum(axis=1) + FAULT * ~ok


def _free(hands: np.ndarray, known: np.ndarray) -> np.ndarray:
    """Cards of each deal that may move between the other seats ``[M, P, 53]``: not the
    observer's, not the ``known`` ones (:func:`president_env.search.positions.known_cards`)."""
    free = hands.astype(np.int64) - known
    free[:, 0] = 0
    return free


def _propose(hands: np.ndarray, free: np.ndarray, rng: Random,
             miss: np.ndarray | None = None, aim: np.ndarray | None = None,
             ) -> tuple[np.ndarray, np.ndarray]:
    """Each deal with one free card swapped between two other seats (the same deal where no
    two seats hold free cards), and the seats changed ``[M, P]``. Seats with more misses
    (``miss [M, P]``) are likelier to be picked (weight ``1 + TARGET * misses``). With ``aim
    [M, P, 53]`` (the cards each seat's misses name, :func:`_misses`), a seat that holds free
    cards of its ``aim`` gives one of those."""
    m, p, _ = hands.shape
    holds = free.sum(axis=2)  # [M, P]
    weight = 1.0 if miss is None else 1.0 + TARGET * miss
    key = np.where(holds > 0, rng.random((m, p)) ** (1.0 / weight), -1.0)
    order = np.argsort(-key, axis=1)
    s1, s2 = order[:, 0], order[:, 1]
    rows = np.arange(m)
    can = (key[rows, s1] >= 0) & (key[rows, s2] >= 0)
    out = hands.copy()
    c1 = _pick(free[rows, s1], rng)
    c2 = _pick(free[rows, s2], rng)
    if aim is not None:
        aimed = free[rows, s1] * aim[rows, s1]
        c1 = np.where(aimed.sum(axis=1) > 0, _pick(aimed, rng), c1)
        aimed = free[rows, s2] * aim[rows, s2]
        c2 = np.where(aimed.sum(axis=1) > 0, _pick(aimed, rng), c2)
    r = rows[can]
    a, b, x, y = s1[can], s2[can], c1[can], c2[can]
    np.add.at(out, (r, a, x), -1)
    np.add.at(out, (r, a, y), 1)
    np.add.at(out, (r, b, y), -1)
    np.add.at(out, (r, b, x), 1)
    changed = np.zeros((m, p), np.bool_)
    changed[r, a] = True
    changed[r, b] = True
    return out, changed


def _pick(counts: np.ndarray, rng: Random) -> np.ndarray:
    """A card per row drawn in proportion to ``counts [M, 53]`` (0 for an empty row)."""
    cum = np.cumsum(counts, axis=1)
    u = rng.random(len(counts)) * cum[:, -1]
    return np.minimum((cum <= u[:, None]).sum(axis=1), NUM_CARDS - 1)


def record_belief(rules: Rules, engine: Engine, model: Model, obs: np.ndarray, moves: np.ndarray,
                  n_moves: np.ndarray, n: int, rng: Random, steps: int = STEPS,
                  miss: float = MISS, aim: bool = False) -> np.ndarray:
    """``n`` deals per row ``[B, n, P, 53]`` from the record belief (module docstring); a row
    without a move yet gets deals drawn uniformly. ``rng``: a Generator, or a
    :class:`~president_env.seeding.RowStreams` of the ``B`` rows (each row's deals then depend
    on its own stream only). ``aim``: aimed swaps (module docstring)."""
    b, p = len(obs), rules.num_players
    fresh = np.asarray(n_moves) == 0
    if fresh.all():
        return sample_hands(rules, obs, n, rng, 1.0)
    if fresh.any():  # per row: the rows with a record, and the others
        out = np.empty((b, n, p, NUM_CARDS), np.int8)
        for sel in (fresh, ~fresh):
            sub = rng.rows(sel) if isinstance(rng, RowStreams) else rng
            out[sel] = record_belief(rules, engine, model, obs[sel], moves[sel], n_moves[sel], n,
                                     sub, steps, miss, aim)
        return out
    o = np.repeat(obs, n, axis=0)
    mv, nm = np.repeat(moves, n, axis=0), np.repeat(n_moves, n)
    k = INIT
    hands = sample_hands(rules, obs, n * k, rng, 1.0).reshape(b * n * k, p, NUM_CARDS)
    aim_now = np.zeros(hands.shape, np.bool_) if aim else None
    miss_now, ok_now = record_misses(rules, engine, model, np.repeat(obs, n * k, axis=0), hands,
                                     np.repeat(moves, n * k, axis=0), np.repeat(n_moves, n * k),
                                     aim=aim_now)
    best = (np.arange(b * n) * k + np.argmin(_cost(miss_now, ok_now).reshape(b * n, k), axis=1))
    hands, miss_now, ok_now = hands[best], miss_now[best], ok_now[best]
    if aim_now is not None:
        aim_now = aim_now[best]
    known = known_cards(rules, o, ObservationLayout(rules), True)
    free = _free(hands, known)
    for _ in range(steps):
        new, changed = _propose(hands, free, rng, miss_now, aim_now)
        aim_part = None if aim_now is None else np.zeros(hands.shape, np.bool_)
        part, ok_new = record_misses(rules, engine, model, o, new, mv, nm, changed, aim_part)
        miss_new = np.where(changed, part, miss_now)
        gain = _cost(miss_new, ok_new) - _cost(miss_now, ok_now)
        take = rng.random(len(o)) < np.power(miss, np.clip(gain, -60, 60))
        hands[take], miss_now[take], ok_now[take] = new[take], miss_new[take], ok_new[take]
        if aim_now is not None:
            aim_new = np.where(changed[:, :, None], aim_part, aim_now)
            aim_now[take] = aim_new[take]
        free = np.where(take[:, None, None], _free(hands, known), free)
    return hands.reshape(b, n, p, NUM_CARDS)


__all__ = ["MISS", "STEPS", "record_belief", "record_misses"]
