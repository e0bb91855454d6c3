"""Recording a game as it is played: :class:`GameRecorder`, one game at a time.

::

    rec = GameRecorder(rules, state)           # the state of one new game, before any step
    rec.add(seat, action)                      # after every step (probs=top_probs(p) optional)
    record = rec.finish(state)                 # the game is over: places and scores filled in
    record.save("game.json")

Many games of a batched table are recorded by :class:`train.eval.recording.BatchRecorder`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from president_env.core.cards import format_hand
from president_env.core.constants import PHASE_DONE
from president_env.core.engine import State
from president_env.core.rules import Rules
from president_env.records.format import (
    GameRecord,
    Player,
    Probs,
    Step,
    engine_for,
)
from president_env.records.replay import finished_record


# ---------------------------------------------------------------------------- writer
class GameRecorder:
    """Records one game as it is played.

    ``state`` is the game (row ``row`` of a batch) before its first step, dealt from its seed
    (``Engine.init``) or from given hands (``Engine.init_from_hands``: the hands are kept in the
    record). After every step, :meth:`add` the seat and the action (:meth:`on_step` does it as a
    :class:`~president_env.table.Table` hook for a table of one game); :meth:`finish` at the end
    replays the steps to fill in the result, and checks it against the final state.
    """

    def __init__(
        self,
        rules: Rules,
        state: State,
        row: int = 0,
        players: Sequence[str | Player] | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a Rules, got {type(rules).__name__}")
        if state.num_players != rules.num_players:
            raise ValueError(
                f"the state has {state.num_players} players but the rules {rules.num_players}"
            )
        self.rules = rules
        self.seed = int(state.seed[row])
        self.hands = _given_hands(rules, self.seed, state.hands[row])
        self.players = _players(players, rules.num_players)
        self.meta = dict(meta or {})
        self.steps: list[Step] = []
        self._finished: GameRecord | None = None

    def add(self, seat: int, action: int, probs: Probs | None = None) -> None:
        """Seat ``seat`` took ``action`` (``probs``: top (action, probability) pairs, or None)."""
        if probs is not None:
            probs = tuple((int(a), float(p)) for a, p in probs)
        self.steps.append(Step(int(seat), int(action), probs))
        self._finished = None

    def on_step(
        self, moved: npt.NDArray[np.bool_], seats: npt.ArrayLike, actions: npt.ArrayLike
    ) -> None:
        """``Table.play_until_external`` hook for a table of one game."""
        if moved[0]:
            self.add(int(np.asarray(seats)[0]), int(np.asarray(actions)[0]))

    @property
    def record(self) -> GameRecord:
        """The game so far (``result`` None): for a game not played to its end."""
        return GameRecord(self.rules, self.seed, tuple(self.steps), self.hands, self.players,
                          None, dict(self.meta))

    def current(self, state: State, row: int = 0) -> GameRecord:
        """The record of the game in ``state`` (row ``row``) as it stands: with its result once
        the game is over (:meth:`finish`, computed once), else :attr:`record`."""
        if state.phase[row] != PHASE_DONE:
            return self.record
        if self._finished is None:
            self._finished = self.finish(state, row)
        return self._finished

    def finish(self, state: State | None = None, row: int = 0) -> GameRecord:
        """The record of the finished game. ``state`` (the final state, row ``row``), when
        given, must agree with the replay of the steps (else :class:`RecordError`)."""
        return finished_record(self.record, state, row)



def top_probs(probs: npt.ArrayLike, k: int = 3, digits: int = 4) -> Probs:
    """The ``k`` most probable actions of a probability vector ``[A]`` as (action, probability)
    pairs, highest first, rounded to ``digits`` (zero probabilities left out)."""
    p = np.asarray(probs, np.float64)
    if p.ndim != 1:
        raise ValueError(f"probs must be one vector [A], got shape {p.shape}")
    order = np.argsort(-p, kind="stable")[:k]
    return tuple((int(a), round(float(p[a]), digits)) for a in order if p[a] > 0)



def _given_hands(rules: Rules, seed: int, hands: npt.NDArray[np.int8]) -> tuple[str, ...] | None:
    """The hands as text when the seed does not deal them, else None."""
    dealt = engine_for(rules).init(np.array([seed], np.uint64)).hands[0]
    if np.array_equal(dealt, hands):
        return None
    return tuple(format_hand(h) for h in hands)


def _players(players: Sequence[str | Player] | None, n: int) -> tuple[Player, ...] | None:
    if players is None:
        return None
    out = tuple(p if isinstance(p, Player) else Player(str(p)) for p in players)
    if len(out) != n:
        raise ValueError(f"players must name the {n} seats, got {len(out)}")
    return out

