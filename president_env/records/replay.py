"""Replaying a game record through the engine, step by step, each step checked.

:func:`replay` yields a :class:`ReplayFrame` (the engine state after the step, the seat, the
action, its name and cards) for every step; :func:`check` replays and compares the result;
:func:`finished_record` fills in the result of a record played to its end. A record that does not
replay (wrong rules, an illegal action at step k, a seat acting out of turn, a result the replay
does not reach) raises :class:`~president_env.records.format.RecordError` saying where.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from president_env.core import OneGame
from president_env.core.cards import format_hand
from president_env.core.constants import PHASE_DONE
from president_env.core.engine import State
from president_env.records.format import (
    GameRecord,
    GameResult,
    Probs,
    RecordError,
    engine_for,
)


# ---------------------------------------------------------------------------- replay
@dataclass(frozen=True)
class ReplayFrame:
    """The game after step ``index``: ``seat`` took ``action`` (``name``; ``cards`` the cards
    it played or gave, as text, "" for a pass) and ``state`` (a batch of one, owned by the
    frame) followed. ``state.deal_over[0]`` tells that the step ended a deal
    (``state.title[0]`` its places); ``game_over`` that it ended the game."""

    index: int
    seat: int
    action: int
    name: str
    cards: str
    probs: Probs | None
    state: State

    @property
    def game_over(self) -> bool:
        return bool(self.state.phase[0] == PHASE_DONE)


def start_state(record: GameRecord) -> State:
    """The game of ``record`` before its first step (a batch of one)."""
    eng = engine_for(record.rules)
    seed = np.array([record.seed], np.uint64)
    if record.hands is None:
        return eng.init(seed)
    try:
        return eng.init_from_hands([list(record.hands)], seed=seed)
    except ValueError as e:
        raise RecordError(str(e), field="hands") from None


def replay(record: GameRecord) -> Iterator[ReplayFrame]:
    """A :class:`ReplayFrame` after every step; raises :class:`RecordError` at the first step
    that does not replay, or after the last frame if the result does not match."""
    r = _Replayer(record)
    layout = r.engine.layout
    for k, s in enumerate(record.steps):
        hand = r.state.hands[0, s.seat].copy() if 0 <= s.seat < record.num_players else None
        r.play(k)
        cards = "" if hand is None else format_hand(layout.cards_for(s.action, hand))
        yield ReplayFrame(k, s.seat, s.action, layout.name(s.action), cards, s.probs,
                          r.state.copy())
    r.verify_end()


def check(record: GameRecord) -> State:
    """Replay ``record`` and compare its result; the final state, or :class:`RecordError`."""
    r = _Replayer(record)
    for k in range(len(record.steps)):
        r.play(k)
    r.verify_end()
    return r.state


class _Replayer:
    """Plays a record's steps one by one, checking each (one compiled call per step)."""

    def __init__(self, record: GameRecord) -> None:
        self.record = record
        self.engine = engine_for(record.rules)
        self.state = start_state(record)
        self.game = OneGame(self.engine, self.state)
        self.places: list[tuple[int, ...]] = []

    def run(self) -> tuple[State, list[tuple[int, ...]]]:
        for k in range(len(self.record.steps)):
            self.play(k)
        return self.state, self.places

    def play(self, k: int) -> None:
        s, game, layout = self.record.steps[k], self.game, self.engine.layout
        n = len(self.record.steps)
        if game.current < 0:
            raise RecordError(f"the game ended after step {k - 1}, but the record has {n} steps",
                              step=k)
        if s.seat != game.current:
            raise RecordError(
                f"seat {s.seat} acts, but seat {game.current} is to act (other rules or deal?)",
                step=k,
            )
        if not 0 <= s.action < self.engine.num_actions:
            raise RecordError(
                f"action {s.action} is out of range 0..{self.engine.num_actions - 1} under "
                "these rules", step=k,
            )
        if not game.mask[s.action]:
            legal = [f"{a} ({layout.name(int(a))})" for a in np.flatnonzero(game.mask)]
            raise RecordError(
                f"action {s.action} ({layout.name(s.action)}) is illegal for seat {s.seat}; "
                f"legal actions: {', '.join(legal[:20])}" + (" ..." if len(legal) > 20 else ""),
                step=k,
            )
        if s.probs is not None:
            bad = [a for a, _ in s.probs if not 0 <= a < self.engine.num_actions]
            if bad:
                raise RecordError(f"probs name actions out of range: {bad}", step=k)
        game.step(s.action)
        if self.state.deal_over[0]:
            self.places.append(tuple(int(x) for x in self.state.title[0]))

    def verify_end(self) -> None:
        """The replay reached the record's result (if it has one)."""
        res, st = self.record.result, self.state
        n = len(self.record.steps)
        if res is None:
            return
        if st.phase[0] != PHASE_DONE:
            raise RecordError(
                f"the record ends after {n} steps but the game is not over (truncated record?)",
                field="steps",
            )
        standings = tuple(int(x) for x in self.engine.standings(st)[0])
        got = GameResult(tuple(self.places), tuple(int(x) for x in st.scores[0]), standings)
        for name in ("places", "scores", "standings"):
            if getattr(got, name) != getattr(res, name):
                raise RecordError(
                    f"the replay gives {name} {_show(getattr(got, name))}, the record says "
                    f"{_show(getattr(res, name))}",
                    field="result",
                )


def _show(value: Any) -> str:
    return json.dumps(value)


def finished_record(record: GameRecord, state: State | None = None, row: int = 0) -> GameRecord:
    """``record`` with its result, from replaying its steps (the game must be over); checked
    against ``state`` (row ``row``) when given."""
    final, places = _Replayer(record).run()
    if final.phase[0] != PHASE_DONE:
        raise RecordError(f"the game is not over after its {len(record.steps)} steps")
    if state is not None and not (
        np.array_equal(state.scores[row], final.scores[0])
        and np.array_equal(state.title[row], final.title[0])
        and state.phase[row] == PHASE_DONE
    ):
        raise RecordError(
            f"the steps replay to scores {final.scores[0].tolist()} and places "
            f"{final.title[0].tolist()}, but the game ended with {state.scores[row].tolist()} and "
            f"{state.title[row].tolist()} (a step missing, or other rules or deal?)"
        )
    eng = engine_for(record.rules)
    result = GameResult(
        tuple(places), tuple(int(x) for x in final.scores[0]),
        tuple(int(x) for x in eng.standings(final)[0]),
    )
    return GameRecord(record.rules, record.seed, record.steps, record.hands, record.players,
                      result, record.meta, record.version)

