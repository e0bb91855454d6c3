"""The game record's document: its data types, the JSON it writes, and the names it shows.

A record is a :class:`GameRecord` (rules, seed, the given hands if any, the :class:`Step` list,
the :class:`Player` names and the :class:`GameResult`); :meth:`GameRecord.to_json` writes the
document described in ``docs/records.md``; reading it back is :mod:`president_env.records.parse`,
replaying it :mod:`president_env.records.replay`. Any problem is a :class:`RecordError`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from president_env.core.engine import Engine
from president_env.core.rules import PRESETS, Rules

FORMAT = "president-game"
"""The ``"format"`` field of every record."""
VERSION = 1
"""The version this module writes and reads."""
MAX_SEED = 2**64 - 1
LATER_OPTIONS = ("revolution_timing", "western_revolution", "bombs", "runs_mixed_suits",
                 "max_run_length", "president_asks", "observation", "runs_disjoint",
                 "run_revolution", "play_on_own", "jack_back",
                 "six_reverses", "stalemate_passes", "exact_plays",
                 "lock", "spade_three_beats_joker", "run_joker_ends", "lead_may_pass",
                 "first_lead_every_deal", "deal_from", "title_reset_every", "reseat_every")
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
        try:
            tmp.write_text(self.to_json(), encoding="utf-8")
            os.replace(tmp, p)
        except OSError:
            tmp.unlink(missing_ok=True)  # nothing half-written stays behind
            raise
        return p

def _written_options(rules: Rules) -> dict[str, Any]:
    """``rules.to_dict()`` less the :data:`LATER_OPTIONS` at ``Rules()``'s value that the preset
    (if any) does not set: read over the preset's (or ``Rules()``'s) values, the same rules."""
    preset, default = PRESETS.get(rules.preset_name or "", {}), Rules()
    return {k: v for k, v in rules.to_dict().items()
            if k not in LATER_OPTIONS or k in preset or v != getattr(default, k)}


@lru_cache(maxsize=64)
def action_names(rules: Rules) -> tuple[str, ...]:
    """The readable name of every action id under ``rules`` (``ActionLayout.names``)."""
    return tuple(engine_for(rules).layout.names())


@lru_cache(maxsize=64)
def engine_for(rules: Rules) -> Engine:
    """One shared :class:`Engine` per rules (engines hold no game state)."""
    return Engine(rules)

