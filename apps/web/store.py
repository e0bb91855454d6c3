"""The games of a running server: a dict by random id, each saved as JSON after every move.

:class:`GameStore` keeps every game in memory under a random id (each browser tab starts its
own) and, with a ``save_dir``, writes ``<id>.json`` (:meth:`WebGame.record`: a game record)
after every change, through a temporary file and a rename, so a file is always whole. A new
store on the same folder loads every saved game again (a file that does not replay is skipped
with a warning), so a server restart loses nothing that was saved.

Each game has its own lock: requests for different games run side by side, two requests for
one game one after the other.
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agents import agent_names, load_agent
from apps.web.session import AgentResolver, GameSpec, WebError, WebGame
from president_env.core.rules import Rules
from president_env.records import load_record
from president_env.table import Policy, as_policy

log = logging.getLogger(__name__)

GAME_ID = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
MAX_GAMES = 10_000
"""Games kept in memory at most (the oldest finished ones go first; their files stay)."""


def agent_choices() -> dict[str, str]:
    """What a seat may hold, by name: the rule-based agents weakest first, the Expert, then the
    shipped policies (``policy``, the strongest, and ``ppo``; a policy plays only the rules it
    was trained for). Each maps to its :func:`agents.load_agent` spec. Only these load: a
    client cannot name a file."""
    return {name: name for name in agent_names()}


def resolve_agent(name: str, rules: Rules, seed: int) -> Policy:
    """The policy for a seat named ``name`` (one of :func:`agent_choices`); any failure (an
    unknown name, a checkpoint for other rules) is a 400 that says why."""
    choices = agent_choices()
    spec = choices.get(name.strip().lower())
    if spec is None:
        raise WebError(400, f"unknown agent {name!r}; agents are {list(choices)}")
    try:
        return as_policy(load_agent(spec, rules, seed))
    except (ValueError, TypeError, OSError) as e:
        raise WebError(400, f"seat agent {name!r}: {e}") from None


class GameStore:
    """Games by id, saved under ``save_dir`` (None: memory only); see the module docstring."""

    def __init__(self, save_dir: str | Path | None = None,
                 resolve: AgentResolver = resolve_agent) -> None:
        self.save_dir = Path(save_dir) if save_dir is not None else None
        self.resolve = resolve
        self.games: dict[str, WebGame] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()
        self.skipped: list[str] = []
        """Saved files that could not be loaded (name: reason)."""
        if self.save_dir is not None:
            self.save_dir.mkdir(parents=True, exist_ok=True)
            self._load_all()

    # ------------------------------------------------------------------ games
    def create(self, spec: GameSpec) -> tuple[WebGame, list[dict[str, Any]]]:
        """A new game (the agents play until the human's first turn) and its first events."""
        game = WebGame(secrets.token_urlsafe(12), spec, self.resolve)
        events = game.start()
        with self._lock:
            self._evict()
            self.games[game.id] = game
            self._locks[game.id] = threading.Lock()
        self.save(game)
        return game, events

    @contextmanager
    def open(self, game_id: str) -> Iterator[WebGame]:
        """The game ``game_id``, locked while the caller uses it (a 404 for an unknown id);
        saved again when the caller is done."""
        if not isinstance(game_id, str) or not GAME_ID.match(game_id):
            raise WebError(400, f"malformed game id {game_id!r}")
        with self._lock:
            game, lock = self.games.get(game_id), self._locks.get(game_id)
        if game is None or lock is None:
            raise WebError(404, f"no game {game_id!r} (finished long ago, or a stale id): "
                                "start a new game")
        with lock:
            ply = game.ply
            try:
                yield game
            finally:
                if game.ply != ply:
                    self.save(game)

    def _evict(self) -> None:
        if len(self.games) < MAX_GAMES:
            return
        done = [k for k, g in self.games.items() if g.over] or list(self.games)
        for k in done[: max(1, len(done) // 10)]:
            self.games.pop(k, None)
            self._locks.pop(k, None)

    # ------------------------------------------------------------------ files
    def save(self, game: WebGame) -> None:
        """Write ``<id>.json``, the game's record, whole (a temporary file, then a rename)."""
        if self.save_dir is None:
            return
        path = self.save_dir / f"{game.id}.json"
        tmp = path.with_suffix(f".tmp{threading.get_ident()}")
        tmp.write_text(game.record().to_json())
        os.replace(tmp, path)

    def _load_all(self) -> None:
        assert self.save_dir is not None
        for path in sorted(self.save_dir.glob("*.json")):
            try:
                game = self.load_file(path)
            except (ValueError, KeyError, TypeError, OverflowError, RecursionError, OSError,
                    WebError) as e:  # a file is data: whatever is wrong with it, skip it
                self.skipped.append(f"{path.name}: {e}")
                log.warning("skipping saved game %s: %s", path, e)
                continue
            self.games[game.id] = game
            self._locks[game.id] = threading.Lock()

    def load_file(self, path: Path) -> WebGame:
        """A saved game (its record, checked by replaying it), replayed to where it was."""
        game = WebGame.from_record(load_record(path), self.resolve)
        if not GAME_ID.match(game.id) or path.stem != game.id:
            raise ValueError(f"bad game id {game.id!r} in {path.name}")
        return game
