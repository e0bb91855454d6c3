"""Testing tools that ship with the environment: check an engine for any rules.

* :mod:`~president_env.testing.reference`: a plain, scalar implementation of one game
  (``ReferenceGame``), written again from the rule book for clarity rather than speed;
* :mod:`~president_env.testing.checks`: ``check_engine(rules, games=..., seed=...)``, the
  engine's invariants on random games plus the agreement with the reference, raising an
  ``AssertionError`` with a replay;
* :mod:`~president_env.testing.difftest`: the differential test, engine against reference step by
  step, and its command line (``python -m president_env.testing.difftest``);
* :mod:`~president_env.testing.compare` (one game against the reference, reports),
  :mod:`~president_env.testing.configs` (presets, random and pairwise rules, given deals),
  :mod:`~president_env.testing.doctables` (the docs' tables of options and presets).

>>> from president_env.core import Rules
>>> from president_env.testing import check_engine
>>> check_engine(Rules.preset("daifugo", num_players=5), games=8).games
8

Names are re-exported lazily, so ``python -m president_env.testing.difftest`` imports nothing
twice.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from president_env.testing.checks import EngineCheckError, check_engine, check_game
    from president_env.testing.difftest import Disagreement, replay
    from president_env.testing.reference import ReferenceGame

_EXPORTS = {
    "EngineCheckError": "president_env.testing.checks",
    "check_engine": "president_env.testing.checks",
    "check_game": "president_env.testing.checks",
    "Disagreement": "president_env.testing.difftest",
    "replay": "president_env.testing.difftest",
    "ReferenceGame": "president_env.testing.reference",
}

__all__ = [
    "Disagreement",
    "EngineCheckError",
    "ReferenceGame",
    "check_engine",
    "check_game",
    "replay",
]


def __getattr__(name: str) -> Any:  # PEP 562
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'president_env.testing' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
