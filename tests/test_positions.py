"""Positions built from one player's view (:mod:`president_env.search.positions`).

* Round trip: at thousands of real positions of every preset (3-8 players, with the exchange of
  later deals), the position rebuilt from the acting player's observation and the true hands
  (in the observer's frame) gives back the same observation and the same legal actions, and so
  does one rebuilt from sampled hidden hands (the observation never shows them); with the
  record observation too, every preset.
* Sampled hands fit what the observer knows: its own hand, every seat's count, the pack less
  the cards played, the cards it gave in the exchange; seeded samples repeat.
* Played on, a position rebuilt with the true hands plays exactly as the real game.
* Bad input gets a clear error.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from agents import HardAgent
from president_env.core.cards import NUM_CARDS
from president_env.core.engine import Engine, State
from president_env.core.rules import PRESET_PLAYERS, PRESETS, Rules
from president_env.search import positions as P


def _tables() -> list[Any]:
    """Every preset at its smallest, 4-player and largest table, two deals (so exchanges
    happen), and the President's asks with two decks. Each preset's largest table (its
    smallest for every other preset: the record tables below take the other end) and the asks
    run in ``make test``; the others are ``long`` (``make test-long``)."""
    out: list[Any] = []
    for i, name in enumerate(PRESETS):
        lo, hi = PRESET_PLAYERS[name]
        for players in sorted({lo, 4 if lo <= 4 <= hi else lo, hi}):
            rules = Rules.preset(name, num_players=players, deals=2)
            short = players == (lo if i % 2 else hi)
            out.append(rules if short else pytest.param(rules, marks=pytest.mark.long))
    out.append(Rules(num_players=5, deals=3, decks=2, jokers=2, president_asks=True))  # asks
    return out


TABLES = _tables()
RECORD_TABLES = [Rules.preset(name, num_players=PRESET_PLAYERS[name][1] if i % 2 else
                              PRESET_PLAYERS[name][0], deals=2, observation="record")
                 for i, name in enumerate(PRESETS)]
"""Every preset with the record observation, at its smallest or largest table."""


def hard_walk(rules: Rules, games: int, seed: int = 0) -> Iterator[tuple[Engine, State]]:
    """The states of ``games`` games played by Hard (every seat), before every step."""
    engine = Engine(rules)
    hard = HardAgent(rules)
    state = engine.init(np.arange(games, dtype=np.uint64) + 100 * seed)
    for _ in range(2000):
        if state.terminated.all():
            return
        yield engine, state
        engine.step_inplace(state, hard.act_batch(engine.observe(state),
                                                  engine.legal_action_mask(state)))


def frame_hands(state: State, rows: np.ndarray) -> np.ndarray:
    """The true hands of ``rows`` in the frame of the player to act (seat k: k-th to its left
    round the table, ``State.seat_of``)."""
    p = state.num_players
    seat_of = state.seat_of[rows].astype(np.int64)
    here = seat_of[np.arange(len(rows)), state.current[rows].astype(np.int64)]
    players = np.take_along_axis(np.argsort(seat_of, axis=1), (here[:, None] + np.arange(p)) % p,
                                 axis=1)  # the player in each seat of the frame
    return state.hands[rows[:, None], players]


def frame_seats(state: State, rows: np.ndarray, players: np.ndarray) -> np.ndarray:
    """Players ``[R, L]`` (-1: none) of ``rows`` as seats of the frame of the player to act."""
    p = state.num_players
    seat_of = state.seat_of[rows].astype(np.int64)
    here = seat_of[np.arange(len(rows)), state.current[rows].astype(np.int64)]
    seats = (np.take_along_axis(seat_of, np.maximum(players, 0), axis=1) - here[:, None]) % p
    return np.where(players >= 0, seats, -1)


@pytest.mark.parametrize("rules", TABLES + RECORD_TABLES,
                         ids=lambda r: f"{r.preset_name}-{r.num_players}p-{r.observation}")
def test_round_trip_true_and_sampled_hands(rules: Rules) -> None:
    rng = np.random.default_rng(0)
    checked = 0
    for engine, state in hard_walk(rules, 24):
        rows = np.flatnonzero(~state.terminated)
        obs = engine.observe(state)[rows]
        mask = engine.legal_action_mask(state)[rows]
        seat0 = np.zeros(len(rows), np.int64)
        sampled = P.sample_hands(rules, obs, 1, rng)[:, 0]
        for hands in (frame_hands(state, rows), sampled):
            pos = P.from_observation(rules, obs, hands)
            np.testing.assert_array_equal(engine.observe(pos, seat0), obs)
            np.testing.assert_array_equal(engine.legal_action_mask(pos), mask)
        checked += len(rows)
    assert checked > 500


def test_position_plays_on_as_the_real_game() -> None:
    rules = Rules.preset("daifugo", deals=1)
    engine, hard = Engine(rules), HardAgent(rules)
    state = engine.init(np.arange(64, dtype=np.uint64))
    for _ in range(9):  # a few moves into the deal
        engine.step_inplace(state, hard.act_batch(engine.observe(state), engine.legal_action_mask(state)))
    rows = np.flatnonzero(~state.terminated)
    me = state.current[rows].astype(np.int64)
    pos = P.from_observation(rules, engine.observe(state)[rows], frame_hands(state, rows))
    real = state.take(rows)
    p = rules.num_players
    for _ in range(200):
        if real.terminated.all():
            break
        a = hard.act_batch(engine.observe(real), engine.legal_action_mask(real))
        np.testing.assert_array_equal(hard.act_batch(engine.observe(pos), engine.legal_action_mask(pos)), a)
        engine.step_inplace(real, a)
        engine.step_inplace(pos, a)
        live = ~real.terminated
        np.testing.assert_array_equal(pos.current[live], (real.current[live] - me[live]) % p)
    assert real.terminated.all()
    n = np.arange(len(rows))
    np.testing.assert_array_equal(
        pos.title, np.stack([real.title[n, (me + k) % p] for k in range(p)], axis=1)
    )


@pytest.mark.parametrize("rules", [Rules.preset("standard", deals=3),
                                   Rules.preset("daifugo", num_players=6, deals=3),
                                   Rules.preset("revolution", num_players=8, deals=2)],
                         ids=["standard", "daifugo6", "revolution8"])
def test_samples_fit_what_the_observer_knows(rules: Rules) -> None:
    rng = np.random.default_rng(1)
    pack = P.pack_counts(rules)
    lay = Engine(rules).obs_layout
    for engine, state in hard_walk(rules, 16, seed=1):
        rows = np.flatnonzero(~state.terminated)
        obs = engine.observe(state)[rows]
        blocks = lay.split(obs)
        hands = P.sample_hands(rules, obs, 4, rng).astype(np.int64)
        assert (hands >= 0).all()
        np.testing.assert_array_equal(hands[:, :, 0], np.broadcast_to(
            blocks["hand"][:, None], hands[:, :, 0].shape))
        np.testing.assert_array_equal(hands.sum(axis=3), np.broadcast_to(
            blocks["cards_left"][:, None], hands.sum(axis=3).shape))
        held = hands.sum(axis=2)  # every seat's cards, with the cards played: the pack per rank
        per_rank = held[..., :52].reshape(*held.shape[:2], 13, 4).sum(axis=3)
        np.testing.assert_array_equal(per_rank + blocks["played"][:, None, :13], np.broadcast_to(
            pack[:52].reshape(13, 4).sum(axis=1), per_rank.shape))
        assert (held <= pack).all()
        known = P.known_cards(rules, obs, lay, False)
        assert (hands >= known[:, None]).all()


def test_known_gifts_are_placed() -> None:
    rules = Rules.preset("standard", deals=2)
    engine, hard = Engine(rules), HardAgent(rules)
    state = engine.init(np.arange(40, dtype=np.uint64))
    while (state.deal == 0).any():
        engine.step_inplace(state, hard.act_batch(engine.observe(state), engine.legal_action_mask(state)))
    obs = engine.observe(state, np.zeros(40, np.int64))  # seat 0, after the exchange
    lay = engine.obs_layout
    known = P.known_cards(rules, obs, lay, False)
    assert known.sum() > 0
    hands = P.sample_hands(rules, obs, 8, np.random.default_rng(2))
    assert (hands >= known[:, None]).all()


def test_seeded_samples_repeat_and_differ() -> None:
    rules = Rules.preset("standard")
    engine = Engine(rules)
    obs = engine.observe(engine.init(np.arange(8)))
    a = P.sample_hands(rules, obs, 16, np.random.default_rng(5))
    b = P.sample_hands(rules, obs, 16, np.random.default_rng(5))
    c = P.sample_hands(rules, obs, 16, np.random.default_rng(6))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    assert len({a[0, i].tobytes() for i in range(16)}) == 16


def test_positions_rows_are_sample_major() -> None:
    rules = Rules.preset("standard")
    engine = Engine(rules)
    obs = engine.observe(engine.init(np.arange(3)))
    pos = P.positions(rules, obs, 5, np.random.default_rng(0))
    assert pos.batch_size == 15
    np.testing.assert_array_equal(engine.observe(pos, np.zeros(15, np.int64)), np.repeat(obs, 5, 0))


def test_bad_input() -> None:
    rules = Rules.preset("standard")
    engine = Engine(rules)
    state = engine.init(np.arange(2))
    obs = engine.observe(state)
    hands = frame_hands(state, np.arange(2))
    with pytest.raises(ValueError, match=r"observations must have shape \[B, "):
        P.from_observation(rules, obs[:, :-1], hands)
    with pytest.raises(ValueError, match="hands must have shape"):
        P.from_observation(rules, obs, hands[:, :3])
    other = hands.copy()
    other[:, [0, 1]] = other[:, [1, 0]]
    with pytest.raises(ValueError, match="not the observer's hand"):
        P.from_observation(rules, obs, other)
    short = hands.copy()
    short[0, 2, np.flatnonzero(short[0, 2])[0]] = 0
    with pytest.raises(ValueError, match=r"hands\[0, 2\] holds 12 cards"):
        P.from_observation(rules, obs, short)
    with pytest.raises(ValueError, match="n must be a positive integer"):
        P.sample_hands(rules, obs, 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="pass_weight"):
        P.sample_hands(rules, obs, 1, np.random.default_rng(0), pass_weight=2.0)
    assert hands.shape[2] == NUM_CARDS


def _record_walk(rules: Rules, games: int) -> Iterator[tuple[Engine, State, np.ndarray, np.ndarray]]:
    """Hard games with their public record (absolute seats), before every step."""
    engine, hard = Engine(rules), HardAgent(rules)
    state = engine.init(np.arange(games, dtype=np.uint64))
    moves = np.full((games, 600, 2), -1, np.int64)
    n = np.zeros(games, np.int64)
    for _ in range(3000):
        if state.terminated.all():
            return
        yield engine, state, moves, n
        a = hard.act_batch(engine.observe(state), engine.legal_action_mask(state))
        play = (state.phase == 1) & ~state.terminated
        moves[play, n[play]] = np.stack([state.current[play], a[play]], axis=1)
        n[play] += 1
        engine.step_inplace(state, a)
        n[state.deal_over] = 0


@pytest.mark.parametrize("rules", TABLES, ids=lambda r: f"{r.preset_name}-{r.num_players}p")
def test_from_record_rebuilds_the_position(rules: Rules) -> None:
    """The deal's start rebuilt from the hands now plus the cards each seat played, then the
    public record replayed: the real position (observation and legal actions), consistent."""
    rules = rules.replace(observation="history")
    checked = 0
    for engine, state, moves, n in _record_walk(rules, 12):
        rows = np.flatnonzero(~state.terminated & (state.phase == 1))
        if len(rows) == 0:
            continue
        rel = moves[rows].copy()
        rel[..., 0] = frame_seats(state, rows, rel[..., 0])
        obs = engine.observe(state)[rows]
        pos, ok = P.from_record(rules, obs, frame_hands(state, rows), rel, n[rows], engine)
        assert ok.all()
        np.testing.assert_array_equal(engine.observe(pos, np.zeros(len(rows), np.int64)), obs)
        np.testing.assert_array_equal(engine.legal_action_mask(pos),
                                      engine.legal_action_mask(state)[rows])
        checked += len(rows)
    assert checked > 200


def test_from_record_flags_impossible_hands() -> None:
    """Hands that could not have made the record (a card played that another seat holds now)
    are reported inconsistent."""
    rules = Rules.preset("standard", observation="history")
    p = rules.num_players
    engine, state, moves, n = next(w for w in _record_walk(rules, 8) if w[3].min() >= 12)
    rows = np.arange(8)
    me = state.current.astype(np.int64)
    rel = moves.copy()
    rel[..., 0] = np.where(rel[..., 0] >= 0, (rel[..., 0] - me[:, None]) % p, -1)
    hands = frame_hands(state, rows)
    swapped = hands.copy()
    swapped[:, [1, 2]] = swapped[:, [2, 1]]  # seats 1 and 2 hold each other's cards
    same = (hands[:, 1].sum(axis=1) == hands[:, 2].sum(axis=1))
    obs = engine.observe(state)
    _, ok_true = P.from_record(rules, obs, hands, rel, n, engine)
    assert ok_true.all()
    _, ok = P.from_record(rules, obs[same], swapped[same], rel[same], n[same], engine)
    assert not ok.all()
    with pytest.raises(ValueError, match="needs the history observation"):
        P.deal_start(Rules.preset("standard"), Engine(Rules.preset("standard")).observe(
            Engine(Rules.preset("standard")).init([0])), frame_hands(
            Engine(Rules.preset("standard")).init([0]), np.arange(1)), [0])
    with pytest.raises(ValueError, match="a record is moves"):
        P.from_record(rules, obs, hands, rel[:, :, :1], n, engine)
