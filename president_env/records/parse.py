"""Reading a game record: :func:`load_record` (a file), :func:`record_from_json` (text),
:func:`record_from_dict` (the parsed document).

Every field is checked, with a :class:`RecordError` naming the field or step at fault
(:func:`parse_record`), and by default the record is replayed through the engine and its result
compared (:func:`president_env.records.replay.check`). The format: ``docs/records.md``."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from president_env.core.rules import Rules
from president_env.records.format import (
    FORMAT,
    MAX_SEED,
    VERSION,
    GameRecord,
    GameResult,
    Player,
    Probs,
    RecordError,
    Step,
    action_names,
)
from president_env.records.replay import check

TOP_KEYS = ("format", "version", "preset", "rules", "seed", "hands", "players", "steps",
            "result", "meta")
REQUIRED = ("format", "version", "rules", "seed", "steps")
_STEP_KEYS = frozenset({"seat", "action", "name", "probs"})
_SEED_DIGITS = len(str(MAX_SEED))
_MAX_DEPTH = 64
"""Deepest nesting of a record's JSON (a record needs 4; ``meta`` may nest a little more)."""


def _depth(doc: Any, limit: int = _MAX_DEPTH) -> int:
    """How deeply ``doc`` nests (lists and objects), counted up to ``limit + 1``, without
    recursion."""
    deepest, todo = 0, [(doc, 1)]
    while todo:
        x, d = todo.pop()
        if isinstance(x, (list, dict)):
            deepest = max(deepest, d)
            if deepest > limit:
                break
            todo.extend((v, d + 1) for v in (x.values() if isinstance(x, dict) else x))
    return deepest


def parse_record(doc: Any) -> GameRecord:
    """A :class:`GameRecord` from a parsed JSON document, every field checked (no replay)."""
    if not isinstance(doc, dict):
        raise RecordError(f"a record is a JSON object, got {type(doc).__name__}")
    for name in REQUIRED:
        if name not in doc:
            raise RecordError("missing (is this a President game record?)", field=name)
    unknown = sorted(set(doc) - set(TOP_KEYS))
    if unknown:
        raise RecordError(f"unknown fields {unknown}; a record has {list(TOP_KEYS)}")
    if doc["format"] != FORMAT:
        raise RecordError(f"expected {FORMAT!r}, got {_show(doc['format'])}", field="format")
    version = doc["version"]
    if not _is_int(version) or version != VERSION:
        newer = " (written by a newer president-env?)" if _is_int(version) and version > VERSION \
            else ""
        raise RecordError(f"this reader reads version {VERSION}, got {_show(version)}{newer}",
                          field="version")
    rules = _parse_rules(doc.get("preset"), doc["rules"])
    n = rules.num_players
    names = action_names(rules)
    return GameRecord(
        rules=rules,
        seed=_parse_seed(doc["seed"]),
        steps=tuple(_parse_step(k, s, names) for k, s in enumerate(_list(doc["steps"], "steps"))),
        hands=_parse_hands(doc.get("hands"), n),
        players=_parse_players(doc.get("players"), n),
        result=_parse_result(doc.get("result"), n),
        meta=_parse_meta(doc.get("meta")),
        version=version,
    )


def _parse_rules(preset: Any, options: Any) -> Rules:
    if not isinstance(options, dict):
        raise RecordError(f"an object of rule options, got {_show(options)}", field="rules")
    if preset is not None and not isinstance(preset, str):
        raise RecordError(f"a preset name or null, got {_show(preset)}", field="preset")
    if "preset_name" in options:
        raise RecordError("the preset goes in the top-level field 'preset'", field="rules")
    try:
        return Rules.preset(preset, **options) if preset is not None else Rules(**options)
    except (TypeError, ValueError) as e:
        raise RecordError(str(e), field="rules") from None


def _parse_seed(seed: Any) -> int:
    value = seed
    if isinstance(seed, str) and 0 < len(seed) <= _SEED_DIGITS and seed.isascii() \
            and seed.isdigit():  # not "²" (a digit to str.isdigit, not to int)
        value = int(seed)
    if not _is_int(value) or not 0 <= value <= MAX_SEED:
        raise RecordError(f"an integer 0..2**64-1 (as a decimal string), got {_show(seed)}",
                          field="seed")
    return int(value)


def _parse_step(k: int, s: Any, names: Sequence[str]) -> Step:
    if not (isinstance(s, dict) and s.keys() <= _STEP_KEYS and "seat" in s and "action" in s):
        raise RecordError(_step_problem(s), step=k)
    seat, a, name = s["seat"], s["action"], s.get("name")
    if type(seat) is not int or type(a) is not int:  # not bool, not float
        raise RecordError(f"seat and action are integers, got {_show(seat)}, {_show(a)}", step=k)
    if name is not None and (not isinstance(name, str) or 0 <= a < len(names) and names[a] != name):
        raise RecordError(
            f"action {a} is {names[a]!r} under the record's rules, but the record names it "
            f"{_show(name)} (other rules?)" if isinstance(name, str)
            else f"name is a string, got {_show(name)}",
            step=k,
        )
    probs = s.get("probs")
    return Step(seat, a, None if probs is None else _parse_probs(k, probs))


def _step_problem(s: Any) -> str:
    if not isinstance(s, dict):
        return f"a step is an object {{seat, action}}, got {_show(s)}"
    missing = [f for f in ("seat", "action") if f not in s]
    return (f"a step has seat, action, name, probs; missing {missing}, unknown "
            f"{sorted(set(s) - _STEP_KEYS)}")


def _parse_probs(k: int, probs: Any) -> Probs | None:
    if probs is None:
        return None
    ok = isinstance(probs, list) and all(
        isinstance(p, list) and len(p) == 2 and _is_int(p[0])
        and isinstance(p[1], (int, float)) and not isinstance(p[1], bool) and 0 <= p[1] <= 1
        for p in probs
    )
    if not ok:
        raise RecordError(f"probs is a list of [action, probability] pairs, got {_show(probs)}",
                          step=k)
    return tuple((int(a), float(p)) for a, p in probs)


def _parse_hands(hands: Any, n: int) -> tuple[str, ...] | None:
    if hands is None:
        return None
    if not isinstance(hands, list) or len(hands) != n or not all(isinstance(h, str) for h in hands):
        raise RecordError(f"one text per seat ({n}) or null, got {_show(hands)}", field="hands")
    return tuple(hands)


def _parse_players(players: Any, n: int) -> tuple[Player, ...] | None:
    if players is None:
        return None
    ok = isinstance(players, list) and len(players) == n and all(
        isinstance(p, dict) and set(p) <= {"name", "kind"} and isinstance(p.get("name"), str)
        and isinstance(p.get("kind", ""), str) for p in players
    )
    if not ok:
        raise RecordError(
            f"one {{name, kind}} object per seat ({n}) or null, got {_show(players)}",
            field="players",
        )
    return tuple(Player(p["name"], p.get("kind", "agent")) for p in players)


def _parse_result(result: Any, n: int) -> GameResult | None:
    if result is None:
        return None

    def seats(x: Any) -> bool:
        return isinstance(x, list) and len(x) == n and all(_is_int(v) for v in x)

    ok = (
        isinstance(result, dict) and set(result) == {"places", "scores", "standings"}
        and isinstance(result["places"], list) and all(seats(p) for p in result["places"])
        and seats(result["scores"]) and seats(result["standings"])
    )
    if not ok:
        raise RecordError(
            f"an object {{places: [[{n} ints] per deal], scores: [{n} ints], standings: "
            f"[{n} ints]}} or null, got {_show(result)}", field="result",
        )
    return GameResult(tuple(tuple(p) for p in result["places"]), tuple(result["scores"]),
                      tuple(result["standings"]))


def _parse_meta(meta: Any) -> dict[str, Any]:
    if meta is None:
        return {}
    if not isinstance(meta, dict):
        raise RecordError(f"an object, got {_show(meta)}", field="meta")
    return meta


def _list(x: Any, name: str) -> list[Any]:
    if not isinstance(x, list):
        raise RecordError(f"a list, got {type(x).__name__}", field=name)
    return x


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _show(x: Any, limit: int = 80) -> str:
    """``repr(x)`` for a message, at most ``limit`` characters: a huge integer or a deeply
    nested value (which ``repr`` refuses) is described, not shown."""
    if _is_int(x) and abs(x).bit_length() > 256:
        return f"an integer of about {int(abs(x).bit_length() * 0.30103)} digits"
    try:
        text = repr(x)
    except (ValueError, RecursionError):
        return f"a {type(x).__name__} too large or deeply nested to show"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def record_from_dict(doc: Any, verify: bool = True) -> GameRecord:
    """A record from the parsed JSON document; with ``verify``, replayed and its result
    compared (:func:`~president_env.records.replay.check`). Raises :class:`RecordError`."""
    if _depth(doc) > _MAX_DEPTH:
        raise RecordError(f"nested more deeply than a record can be ({_MAX_DEPTH} levels at most)")
    record = parse_record(doc)
    if verify:
        check(record)
    return record


def record_from_json(text: str | bytes, verify: bool = True) -> GameRecord:
    """A record from JSON text (see :func:`record_from_dict`)."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise RecordError(
            f"not valid JSON ({e.msg} at line {e.lineno}, column {e.colno}); is the file "
            "truncated?"
        ) from None
    except UnicodeDecodeError as e:
        raise RecordError(f"not UTF-8 text ({e.reason})") from None
    except RecursionError:
        raise RecordError(f"JSON nested more deeply than a record can be ({_MAX_DEPTH} levels "
                          f"at most)") from None
    except ValueError:  # an integer of more digits than Python converts (4300)
        raise RecordError("not a readable record (it holds an integer of thousands of digits)") \
            from None
    return record_from_dict(doc, verify)


def load_record(path: str | os.PathLike[str], verify: bool = True) -> GameRecord:
    """Read a record file (see :func:`record_from_dict`)."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise RecordError(f"cannot read {p}: {e.strerror or e}") from None
    return record_from_json(data, verify)
