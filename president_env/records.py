"""Game records: one game of President as a JSON document that replays exactly through the engine.

The format is documented, with an example, in ``docs/records.md``. In short, a record holds the
rules (every option, and the preset name), the engine seed of the game's deals and, when the
first deal was given rather than dealt from the seed, the starting hands; every action in order
with the seat that took it (and, optionally, the policy's top action probabilities); the
players' names; and the result: each deal's places, the final scores and standings.

Writing (:class:`GameRecorder`, one game at a time)::

    rec = GameRecorder(rules, state)           # the state of one new game, before any step
    rec.add(seat, action)                      # after every step (probs=top_probs(p) optional)
    record = rec.finish(state)                 # the game is over: places and scores filled in
    record.save("game.json")

Reading (:meth:`GameRecord.load`, :meth:`GameRecord.from_json`) checks the document and, by
default, replays it through the engine: a record that does not replay (wrong rules, an illegal
action at step k, a seat acting out of turn, a truncated file, a different version, a result
that the replay does not reach) raises :class:`RecordError`, a ``ValueError`` whose ``step``
(or ``field``) says where. :func:`replay` yields a :class:`ReplayFrame` (the engine state after
the step, the seat, the action, its name and cards) for every step; :func:`check` replays and
compares the result. Many games of a batched table are recorded by
:class:`train.eval.recording.BatchRecorder`.

Nothing here imports an RL library: only :mod:`president_env.core`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from president_env.core._fastpath import OneGame
from president_env.core.cards import format_hand
from president_env.core.constants import PHASE_DONE
from president_env.core.engine import Engine, State
from president_env.core.rules import PRESETS, Rules

__all__ = [
    "FORMAT", "VERSION", "GameRecord", "GameRecorder", "GameResult", "action_names", "Player",
    "Probs", "RecordError", "ReplayFrame", "Step", "check", "engine_for", "finished_record",
    "replay", "start_state", "top_probs",
]

FORMAT = "president-game"
"""The ``"format"`` field of every record."""
VERSION = 1
"""The version this module writes and reads."""
MAX_SEED = 2**64 - 1
LATER_OPTIONS = ("revolution_timing", "western_revolution", "bombs", "runs_mixed_suits",
                 "max_run_length", "president_asks", "observation")
"""Options added after the format's first release (``RULES.md`` section 12): written only when
they differ from their default (or the preset sets them), so that the record of a game without
them is the one earlier writers wrote, and earlier readers read it."""

Probs = tuple[tuple[int, float], ...]


class RecordError(ValueError):
    """A game record that cannot be read or does not replay.

    ``step`` is the index of the step at fault (0-based), ``field`` the top-level field at
    fault, ``reason`` the message without the location.
    """

    def __init__(self, reason: str, step: int | None = None, field: str | None = None) -> None:
        self.reason, self.step, self.field = reason, step, field
        where = f"step {step}: " if step is not None else f"{field}: " if field else ""
        super().__init__(f"game record: {where}{reason}")


@dataclass(frozen=True)
class Step:
    """One action: ``seat`` took ``action``; ``probs``: the policy's top (action, probability)
    pairs, highest first, when it gave them."""

    seat: int
    action: int
    probs: Probs | None = None


@dataclass(frozen=True)
class Player:
    """Who sat in a seat: a name (``"hard"``, ``"you"``) and a kind (``"agent"``, ``"human"``,
    ``"checkpoint"``, ``"random"``, free text)."""

    name: str
    kind: str = "agent"


@dataclass(frozen=True)
class GameResult:
    """How the game ended, per seat: ``places[d][s]`` the place (0 = first) of seat ``s`` in deal
    ``d``; ``scores[s]`` the final score under ``rules.scoring``; ``standings[s]`` the final
    ranking (0 = winner; :meth:`Engine.standings`)."""

    places: tuple[tuple[int, ...], ...]
    scores: tuple[int, ...]
    standings: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "places": [list(p) for p in self.places],
            "scores": list(self.scores),
            "standings": list(self.standings),
        }


@dataclass(frozen=True)
class GameRecord:
    """One game (the JSON fields are described in ``docs/records.md``).

    ``seed`` is the engine seed (``Engine.init([seed])``; deal ``d`` is dealt from
    ``(seed, d)``); ``hands`` (one text per seat) is the first deal when it was given
    (``Engine.init_from_hands``), else None. ``result`` is None for a game not played to its end.
    """

    rules: Rules
    seed: int
    steps: tuple[Step, ...]
    hands: tuple[str, ...] | None = None
    players: tuple[Player, ...] | None = None
    result: GameResult | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    version: int = VERSION

    @property
    def num_players(self) -> int:
        return self.rules.num_players

    @property
    def finished(self) -> bool:
        return self.result is not None

    def player_names(self) -> list[str]:
        """A name per seat (``"seat k"`` where the record names no player)."""
        if self.players is None:
            return [f"seat {s}" for s in range(self.num_players)]
        return [p.name for p in self.players]

    # ------------------------------------------------------------------ writing
    def to_dict(self) -> dict[str, Any]:
        """The JSON document as Python objects (the seed as a decimal string)."""
        names = action_names(self.rules)
        options = _written_options(self.rules)
        preset = options.pop("preset_name")
        steps = []
        for s in self.steps:
            d: dict[str, Any] = {"seat": s.seat, "action": s.action, "name": names[s.action]}
            if s.probs is not None:
                d["probs"] = [[a, p] for a, p in s.probs]
            steps.append(d)
        players = None if self.players is None else [
            {"name": p.name, "kind": p.kind} for p in self.players
        ]
        return {
            "format": FORMAT, "version": self.version, "preset": preset, "rules": options,
            "seed": str(self.seed), "hands": None if self.hands is None else list(self.hands),
            "players": players, "steps": steps,
            "result": None if self.result is None else self.result.to_dict(),
            "meta": dict(self.meta),
        }

    def to_json(self) -> str:
        """The record as JSON text: one line per step, the other fields one per line."""
        d = self.to_dict()
        steps = d.pop("steps")
        lines = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in d.items()]
        body = ",\n".join(f"    {json.dumps(s)}" for s in steps)
        lines.append('  "steps": [' + (f"\n{body}\n  ]" if steps else "]"))
        return "{\n" + ",\n".join(lines) + "\n}\n"

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the record to ``path`` (atomically: a temporary file renamed); returns it."""
        p = Path(path)
        tmp = p.with_name(p.name + ".tmp")
        tmp.write_text(self.to_json(), encoding="utf-8")
        os.replace(tmp, p)
        return p

    # ------------------------------------------------------------------ reading
    @classmethod
    def from_dict(cls, doc: Any, verify: bool = True) -> GameRecord:
        """A record from the parsed JSON document; with ``verify``, replayed and its result
        compared (:func:`check`). Raises :class:`RecordError`."""
        from president_env._record_parse import parse_record

        record = parse_record(doc)
        if verify:
            check(record)
        return record

    @classmethod
    def from_json(cls, text: str | bytes, verify: bool = True) -> GameRecord:
        """A record from JSON text (see :meth:`from_dict`)."""
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as e:
            raise RecordError(
                f"not valid JSON ({e.msg} at line {e.lineno}, column {e.colno}); is the file "
                "truncated?"
            ) from None
        except UnicodeDecodeError as e:
            raise RecordError(f"not UTF-8 text ({e.reason})") from None
        return cls.from_dict(doc, verify)

    @classmethod
    def load(cls, path: str | os.PathLike[str], verify: bool = True) -> GameRecord:
        """Read a record file (see :meth:`from_dict`)."""
        p = Path(path)
        try:
            data = p.read_bytes()
        except OSError as e:
            raise RecordError(f"cannot read {p}: {e.strerror or e}") from None
        return cls.from_json(data, verify)


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


def _written_options(rules: Rules) -> dict[str, Any]:
    """``rules.to_dict()`` less the :data:`LATER_OPTIONS` at ``Rules()``'s value that the preset
    (if any) does not set: read over the preset's (or ``Rules()``'s) values, the same rules."""
    preset, default = PRESETS.get(rules.preset_name or "", {}), Rules()
    return {k: v for k, v in rules.to_dict().items()
            if k not in LATER_OPTIONS or k in preset or v != getattr(default, k)}


def top_probs(probs: npt.ArrayLike, k: int = 3, digits: int = 4) -> Probs:
    """The ``k`` most probable actions of a probability vector ``[A]`` as (action, probability)
    pairs, highest first, rounded to ``digits`` (zero probabilities left out)."""
    p = np.asarray(probs, np.float64)
    if p.ndim != 1:
        raise ValueError(f"probs must be one vector [A], got shape {p.shape}")
    order = np.argsort(-p, kind="stable")[:k]
    return tuple((int(a), round(float(p[a]), digits)) for a in order if p[a] > 0)


@lru_cache(maxsize=64)
def action_names(rules: Rules) -> tuple[str, ...]:
    """The readable name of every action id under ``rules`` (``ActionLayout.names``)."""
    return tuple(engine_for(rules).layout.names())


@lru_cache(maxsize=64)
def engine_for(rules: Rules) -> Engine:
    """One shared :class:`Engine` per rules (engines hold no game state)."""
    return Engine(rules)


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
