"""What the Expert believes about the hidden hands: deals of the hidden cards, weighed by how
well a model of the other players (Hard) explains what they did in public.

Two beliefs, both over :func:`president_env.search.positions.sample_hands` (deals consistent with the
observation: the observer's hand, every seat's count, the cards played, the cards given in the
exchange):

* :func:`record_belief`, from the public record of the deal (every move so far, in order:
  :meth:`president_env.table.Table.record`): a Metropolis-Hastings chain per sample over the
  deals, each step swapping one card between two other seats and accepting by
  ``miss ** (change in misses)``, where the misses of a deal are the moves of the other seats
  that Hard, holding that deal's cards at that moment, would not have made (the deal is
  replayed from the start of play, :func:`president_env.search.positions.replay`); a deal under which
  a move is impossible (a card played that the deal holds elsewhere, a lower suit kept) counts
  10 misses per such fault;
* :func:`pass_belief`, from the observation alone (``Rules(observation="history")``): deals
  resampled by the passes each seat made in this deal (``seat_passed``: the size and rank of
  the pile it passed on) that Hard, holding that deal's cards now, would not have made.

``miss`` (the weight of one unexplained move) keeps every deal possible: the other players need
not play as Hard does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from president_env.core.cards import NUM_CARDS, NUM_NATURAL
from president_env.core.constants import PHASE_PLAY, Kind
from president_env.core.engine import Engine, State
from president_env.core.observe import ObservationLayout
from president_env.core.rules import Rules
from president_env.search.positions import (
    deal_start,
    from_observation,
    known_cards,
    replay,
    sample_hands,
)

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
CANDIDATES = 8
"""Deals drawn per sample by :func:`pass_belief`."""

Model = Any  # a Policy over the observations of ``engine``: HardAgent


def _misses(engine: Engine, model: Model, state: State, rows: np.ndarray, seats: np.ndarray,
            actions: np.ndarray, mask: np.ndarray, who: np.ndarray, out: np.ndarray) -> None:
    """Add to ``out[row, seat]`` the moves that ``model`` would not make, over the games
    ``rows`` where ``who[row, seat]`` (the seats whose cards changed) and the move was a choice
    (more than one legal action)."""
    pick = who[rows, seats] & (mask[rows].sum(axis=1) > 1)
    if not pick.any():
        return
    r, s = rows[pick], seats[pick]
    obs = engine.observe(state)  # the seat to act is the seat that moves
    chosen = model.act_batch(obs[r], mask[r])
    out[r, s] += chosen != actions[pick]


def record_misses(rules: Rules, engine: Engine, model: Model, obs: np.ndarray, hands: np.ndarray,
                  moves: np.ndarray, n_moves: np.ndarray, who: np.ndarray | None = None,
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Misses of every deal per seat ``[M, P]`` (row b: ``hands[b]`` with ``obs[b]`` and its
    record; seat 0's moves and the seats not in ``who [M, P]`` are not scored) and whether the
    deal is possible (every move legal, the hands reached are ``hands``)."""
    m, p = len(obs), rules.num_players
    first = np.where(n_moves > 0, moves[:, 0, 0], 0)
    start = deal_start(rules, obs, hands, first)
    miss = np.zeros((m, p))
    w = np.ones((m, p), np.bool_) if who is None else who.copy()
    w[:, 0] = False
    ok = replay(engine, start, moves, n_moves,
                lambda st, rows, seats, acts, mask: _misses(engine, model, st, rows, seats, acts,
                                                            mask, w, miss))
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


def _propose(hands: np.ndarray, free: np.ndarray, rng: np.random.Generator,
             miss: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each deal with one free card swapped between two other seats (the same deal where no
    two seats hold free cards), and the seats changed ``[M, P]``. Seats with more misses
    (``miss [M, P]``) are likelier to be picked (weight ``1 + TARGET * misses``)."""
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


def _pick(counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A card per row drawn in proportion to ``counts [M, 53]`` (0 for an empty row)."""
    cum = np.cumsum(counts, axis=1)
    u = rng.random(len(counts)) * cum[:, -1]
    return np.minimum((cum <= u[:, None]).sum(axis=1), NUM_CARDS - 1)


def record_belief(rules: Rules, engine: Engine, model: Model, obs: np.ndarray, moves: np.ndarray,
                  n_moves: np.ndarray, n: int, rng: np.random.Generator, steps: int = STEPS,
                  miss: float = MISS) -> np.ndarray:
    """``n`` deals per row ``[B, n, P, 53]`` from the record belief (module docstring)."""
    b, p = len(obs), rules.num_players
    o = np.repeat(obs, n, axis=0)
    mv, nm = np.repeat(moves, n, axis=0), np.repeat(n_moves, n)
    if not nm.any():
        return sample_hands(rules, obs, n, rng, 1.0)
    k = INIT
    hands = sample_hands(rules, obs, n * k, rng, 1.0).reshape(b * n * k, p, NUM_CARDS)
    miss_now, ok_now = record_misses(rules, engine, model, np.repeat(obs, n * k, axis=0), hands,
                                     np.repeat(moves, n * k, axis=0), np.repeat(n_moves, n * k))
    best = (np.arange(b * n) * k + np.argmin(_cost(miss_now, ok_now).reshape(b * n, k), axis=1))
    hands, miss_now, ok_now = hands[best], miss_now[best], ok_now[best]
    known = known_cards(rules, o, ObservationLayout(rules), True)
    free = _free(hands, known)
    for _ in range(steps):
        new, changed = _propose(hands, free, rng, miss_now)
        part, ok_new = record_misses(rules, engine, model, o, new, mv, nm, changed)
        miss_new = np.where(changed, part, miss_now)
        gain = _cost(miss_new, ok_new) - _cost(miss_now, ok_now)
        take = rng.random(len(o)) < np.power(miss, np.clip(gain, -60, 60))
        hands[take], miss_now[take], ok_now[take] = new[take], miss_new[take], ok_new[take]
        free = np.where(take[:, None, None], _free(hands, known), free)
    return hands.reshape(b, n, p, NUM_CARDS)


def pass_misses(rules: Rules, engine: Engine, model: Model, obs: np.ndarray, cand: State
                ) -> np.ndarray:
    """Per position of ``cand`` (row b seen in ``obs[b]``), the passes of the other seats
    (``seat_passed``: size and rank of a set) that ``model``, holding the position's cards now,
    would not make: it would play on that pile."""
    p = rules.num_players
    lay = ObservationLayout(rules)
    flags = lay.split(obs)["seat_passed"].reshape(len(obs), p, NUM_CARDS)[:, :, :NUM_NATURAL] > 0
    flags[:, 0] = False
    flags &= (cand.place < 0)[:, :, None]
    g, seat, key = np.nonzero(flags)
    if len(g) == 0:
        return np.zeros(len(obs))
    ev = cand.take(g)
    ev.phase[:] = PHASE_PLAY
    ev.current[:] = seat
    ev.pile_kind[:] = Kind.SET
    ev.pile_rank[:] = key % 13
    ev.pile_size[:] = key // 13 + 1
    ev.last_player[:] = (seat + p - 1) % p
    ev.passed[:] = False
    acts = model.act_batch(engine.observe(ev, seat), engine.legal_action_mask(ev))
    return np.bincount(g, weights=acts > 0, minlength=len(obs))


def pass_belief(rules: Rules, engine: Engine, model: Model, obs: np.ndarray, n: int,
                rng: np.random.Generator, miss: float = MISS) -> np.ndarray:
    """``n`` deals per row ``[B, n, P, 53]`` from the pass belief (module docstring): drawn
    among :data:`CANDIDATES` per sample by systematic resampling."""
    b, p = len(obs), rules.num_players
    c = n * CANDIDATES
    hands = sample_hands(rules, obs, c, rng, 1.0).reshape(b * c, p, NUM_CARDS)
    o = np.repeat(obs, c, axis=0)
    cand = from_observation(rules, o, hands)
    w = np.power(miss, pass_misses(rules, engine, model, o, cand)).reshape(b, c)
    cum = np.cumsum(w, axis=1)
    u = (rng.random((b, 1)) + np.arange(n)[None]) / n * cum[:, -1:]
    pick = np.minimum((cum[:, None, :] <= u[:, :, None]).sum(axis=2), c - 1)
    return hands.reshape(b, c, p, NUM_CARDS)[np.arange(b)[:, None], pick]


__all__ = ["MISS", "STEPS", "pass_belief", "pass_misses", "record_belief", "record_misses"]
