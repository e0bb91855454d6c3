"""Replays for the web app: a game record turned into frames the page steps through.

A record (:mod:`president_env.records`) is read and checked by the records module; this module
replays it through the engine and makes one *frame* per action: who acted and what (name and
exact cards), every hand face up, the pile, each seat's public facts and, for a seat whose
record holds them, the top actions with their probabilities. Frame 0 is the deal.

:class:`ReplayLibrary` lists the records the server was started with (``--records``: files or
folders of ``*.json``) by name and opens them; an upload goes through the same checks. Only
finished games replay: the frames show every hand face up.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from apps.web.session import PHASES, WebError, card_list
from president_env.core.cards import parse_hand
from president_env.core.constants import Kind
from president_env.core.engine import Engine, State
from president_env.records import (
    GameRecord,
    Probs,
    RecordError,
    engine_for,
    load_record,
    record_from_dict,
    replay,
    start_state,
)
from president_env.render import title_name

TOP_ACTIONS = 5
"""Actions shown per decision of a policy seat (most probable first)."""
MAX_RECORDS = 1000
"""Records listed from ``--records`` at most."""


def _frame(engine: Engine, st: State, pile: list[int], said: dict[int, str]) -> dict[str, Any]:
    p = engine.num_players
    left = st.hands[0].sum(axis=-1)
    seats = [{
        "seat": s,
        "title": title_name(int(st.title[0, s]), p),
        "left": int(left[s]),
        "place": int(st.place[0, s]),
        "score": int(st.scores[0, s]),
        "passed": bool(st.passed[0, s]),
        "said": said.get(s, ""),
        "hand": card_list(st.hands[0, s]),
    } for s in range(p)]
    return {
        "phase": PHASES[int(st.phase[0])],
        "deal": int(st.deal[0]),
        "current": int(st.current[0]),
        "revolution": bool(st.revolution[0]),
        "pile": ({"cards": pile, "by": int(st.last_player[0])}
                 if int(st.pile_kind[0]) != Kind.PASS else None),
        "seats": seats,
    }


def _top(engine: Engine, probs: Probs | None) -> list[dict[str, Any]]:
    """The most probable actions of one decision, from a record's (action, probability) pairs."""
    pairs = sorted(probs or (), key=lambda t: -t[1])[:TOP_ACTIONS]
    return [{"name": engine.layout.name(a), "p": round(q, 4)} for a, q in pairs]


def frames(record: GameRecord) -> list[dict[str, Any]]:
    """One frame per step of ``record``, frame 0 the deal (the records module replays it and
    raises :class:`~president_env.records.RecordError` at a step that does not replay)."""
    engine = engine_for(record.rules)
    pile: list[int] = []
    said: dict[int, str] = {}
    out = [_frame(engine, start_state(record), pile, said)]
    for f in replay(record):
        kind = int(engine.layout.kind[f.action])
        cards = card_list(parse_hand(f.cards))
        if kind in (Kind.SET, Kind.JOKERS, Kind.RUN):
            said = {} if not pile else said
            pile = cards
        said[f.seat] = f.name
        st = f.state
        if int(st.pile_kind[0]) == Kind.PASS:
            pile = []
        frame = _frame(engine, st, pile, said)
        frame["move"] = {"step": f.index, "seat": f.seat, "name": f.name, "cards": cards,
                         "top": _top(engine, f.probs)}
        if st.deal_over[0]:
            frame["deal_over"] = {"places": [int(t) for t in st.title[0]],
                                  "scores": [int(x) for x in st.scores[0]]}
            said, pile = {}, []
        out.append(frame)
    return out


class ReplayLibrary:
    """The records a server lists (module docstring): finished games only, each under a name
    of its own (``game.json``; ``recB/game.json`` when another folder has one too). A file that
    is not a finished game (a saved game still being played: the viewer would show its hands)
    is not listed; ``skipped`` says why for each."""

    def __init__(self, paths: Sequence[str | Path] = ()) -> None:
        self.files: dict[str, Path] = {}
        self.skipped: list[str] = []
        for p in map(Path, paths):
            found = sorted(p.glob("*.json")) if p.is_dir() else [p]
            for f in found[:MAX_RECORDS]:
                reason = _unfinished(f)
                if reason:
                    self.skipped.append(f"{f.name}: {reason}")
                    continue
                self.files[self._name(f)] = f

    def _name(self, f: Path) -> str:
        name, k = f.name, 1
        while name in self.files:
            name = f"{f.parent.name}/{f.name}" + (f" ({k})" if k > 1 else "")
            k += 1
        return name

    def names(self) -> list[str]:
        return list(self.files)

    def open(self, name: str) -> dict[str, Any]:
        path = self.files.get(name)
        if path is None:
            raise WebError(404, f"no record {name!r}; records: {self.names()}")
        try:
            record = load_record(path, verify=False)
        except RecordError as e:
            raise WebError(400, f"record {name!r} cannot be read: {e}") from None
        return self._frames(record, name)

    def replay(self, data: Any, source: str) -> dict[str, Any]:
        """The frames of a record given as parsed JSON, or a 400 that says why it does not
        replay (the records module's message: the field or the step at fault)."""
        try:
            record = record_from_dict(data, verify=False)
        except RecordError as e:
            raise WebError(400, f"{source} does not replay: {e}") from None
        return self._frames(record, source)

    def _frames(self, record: GameRecord, source: str) -> dict[str, Any]:
        try:
            out = frames(record)
        except RecordError as e:
            raise WebError(400, f"{source} does not replay: {e}") from None
        if out[-1]["phase"] != "over":
            raise WebError(400, f"{source} is a game still being played (not over after its "
                                f"{len(record.steps)} steps): the viewer shows every hand, so "
                                "it replays finished games only")
        result = record.result.to_dict() if record.result is not None else None
        return {"source": source, "rules": record.rules.to_dict(), "players":
                record.player_names(), "result": result, "frames": out}


def _unfinished(path: Path) -> str:
    """Why ``path`` is not listed ("" when it is): unreadable, or no result (not over)."""
    try:
        record = load_record(path, verify=False)
    except RecordError as e:
        return str(e)
    return "" if record.result is not None else "a game still being played (no result)"
