"""Record the games of a batched table and keep some of them as game records.

A :class:`BatchRecorder` follows a :class:`~president_env.table.Table` through its ``on_step``
hook: it appends the seat and the action of every game that moved to per-row numpy buffers
(a few array operations per step, no Python loop over games), and when a game ends it decides,
from the final state, whether to keep it. Only kept games become
:class:`~president_env.records.GameRecord` objects (:meth:`BatchRecorder.records`), each
replayed through the engine to fill in its places and check its scores.

Which games are kept (``select``, :func:`parse_selection`):

* ``"first"``: the first ``keep`` games to finish (then the recorder stops recording);
* ``"worst:NAME"``: the ``keep`` games in which the agent named ``NAME`` finished lowest
  (its final standing, then its score; the earlier game first among equals);
* ``"best:NAME"``: the same, finishing highest.

The table's games must be dealt from their seeds (``Engine.init`` / ``reset_where``, as in
tournaments) and the recorder created before their first step. A hook that re-deals finished
games (a tournament's refill) must call :meth:`BatchRecorder.on_step` first::

    rec = BatchRecorder(table, keep=10, select="worst:policy")
    def hook(moved, seats, actions):
        rec.on_step(moved, seats, actions)     # reads the games that just ended
        plan.refill(table, moved, bar)         # then deals new ones into their rows
    table.play_until_external(hook)
    paths = rec.save("results/records")

With no recorder the table runs as before: recording costs nothing when it is off.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from president_env.core.constants import PHASE_DONE
from president_env.records import GameRecord, Player, Step, finished_record
from president_env.table import Table

RowMeta = Callable[[int], Mapping[str, Any]]
"""``meta(row)``: extra fields for the record of the game that just ended in ``row``."""
SELECTIONS = ("first", "worst", "best")


@dataclass(frozen=True)
class Selection:
    """Which games to keep: ``how`` is ``"first"``, ``"worst"`` or ``"best"``; ``agent`` names
    the agent whose place ranks the games (``worst``/``best``)."""

    how: str = "first"
    agent: str | None = None


def parse_selection(text: str | Selection) -> Selection:
    """``"first"``, ``"worst:NAME"`` or ``"best:NAME"`` as a :class:`Selection`."""
    if isinstance(text, Selection):
        return text
    how, _, agent = str(text).partition(":")
    how = how.strip().lower()
    if how not in SELECTIONS or (how == "first") != (not agent.strip()):
        raise ValueError(
            f"a selection is 'first', 'worst:NAME' or 'best:NAME' (NAME: an agent at the table), "
            f"got {text!r}"
        )
    return Selection(how, agent.strip() or None)


@dataclass
class _Game:
    """A finished game waiting to become a record."""

    order: int
    seed: int
    seats: npt.NDArray[np.int8]
    actions: npt.NDArray[np.int16]
    players: tuple[Player, ...]
    meta: dict[str, Any]
    scores: npt.NDArray[np.int32]
    title: npt.NDArray[np.int8]


class BatchRecorder:
    """Records the games of ``table`` and keeps ``keep`` of them (module docstring).

    ``meta(row)`` adds fields to the record of the game ending in ``row`` (say, the deal and
    replay of a tournament); ``source`` is written as ``meta["source"]``.
    """

    def __init__(
        self,
        table: Table,
        keep: int,
        select: str | Selection = "first",
        meta: RowMeta | None = None,
        source: str = "table",
    ) -> None:
        if isinstance(keep, bool) or not isinstance(keep, int) or keep < 0:
            raise ValueError(f"keep must be a non-negative integer, got {keep!r}")
        self.table = table
        self.keep = keep
        self.selection = parse_selection(select)
        self.meta = meta
        self.source = source
        self.rules = table.engine.rules
        self._check_agent()
        b = table.batch_size
        self.length = np.zeros(b, np.int64)
        self._seats = np.zeros((b, 256), np.int8)
        self._actions = np.zeros((b, 256), np.int16)
        self.finished = 0
        """Games that ended since the recorder started."""
        self._kept: list[tuple[tuple[int, int], _Game]] = []  # heap: the worst kept on top
        self._rows = np.arange(b)

    @property
    def active(self) -> bool:
        """False once ``first`` has its games (later steps are not recorded)."""
        return self.keep > 0 and not (
            self.selection.how == "first" and len(self._kept) >= self.keep
        )

    def _check_agent(self) -> None:
        agent = self.selection.agent
        names = [self.table.policy_name(k) for k in range(len(self.table.policies))]
        if agent is not None and agent not in names:
            raise ValueError(f"no agent named {agent!r} at the table; agents: {names}")

    # ------------------------------------------------------------------ the hook
    def on_step(
        self, moved: npt.NDArray[np.bool_], seats: npt.ArrayLike, actions: npt.ArrayLike
    ) -> None:
        """``Table.play_until_external`` hook: record the step of every game that moved, and
        keep or drop the games that ended."""
        if not self.active:
            return
        rows = np.flatnonzero(moved)
        if len(rows) == 0:
            return
        n = self.length[rows]
        if int(n.max()) >= self._seats.shape[1]:
            self._grow()
        self._seats[rows, n] = np.asarray(seats)[rows]
        self._actions[rows, n] = np.asarray(actions)[rows]
        self.length[rows] = n + 1
        over = rows[self.table.state.phase[rows] == PHASE_DONE]
        if len(over):
            self._end(over)

    def _grow(self) -> None:
        width = 2 * self._seats.shape[1]
        for name in ("_seats", "_actions"):
            old = getattr(self, name)
            new = np.zeros((old.shape[0], width), old.dtype)
            new[:, : old.shape[1]] = old
            setattr(self, name, new)

    def _end(self, over: npt.NDArray[np.int64]) -> None:
        """Games that ended in rows ``over``: keep the ones the selection wants."""
        keys = self._keys(over)
        for i, row in enumerate(over):
            order = self.finished
            self.finished += 1
            key = (int(keys[i]), -order)  # larger: more wanted; the earlier game wins a tie
            if len(self._kept) < self.keep:
                heapq.heappush(self._kept, (key, self._game(int(row), order)))
            elif self.selection.how != "first" and key > self._kept[0][0]:
                heapq.heapreplace(self._kept, (key, self._game(int(row), order)))
            self.length[row] = 0

    def _keys(self, over: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """How much each ended game is wanted (larger: more)."""
        if self.selection.how == "first":
            return np.zeros(len(over), np.int64)
        state, table = self.table.state, self.table
        names = [table.policy_name(k) for k in range(len(table.policies))]
        target = names.index(str(self.selection.agent))
        sp = table.seat_policy[over]  # [G, P]
        has = (sp == target).any(axis=1)
        seat = np.argmax(sp == target, axis=1)
        scores = state.scores[over].astype(np.int64)
        standing = _standing(scores, state.title[over], seat)
        score = scores[np.arange(len(over)), seat]
        worse = standing * (1 << 32) - score  # higher standing (worse place), then lower score
        key = worse if self.selection.how == "worst" else -worse
        return np.where(has, key, np.iinfo(np.int64).min // 2)

    def _game(self, row: int, order: int) -> _Game:
        table, n = self.table, int(self.length[row])
        st = table.state
        players = tuple(
            Player(table.policy_name(int(k)), "agent") for k in table.seat_policy[row]
        )
        meta = {"source": self.source, **(dict(self.meta(row)) if self.meta else {})}
        return _Game(
            order, int(st.seed[row]), self._seats[row, :n].copy(), self._actions[row, :n].copy(),
            players, meta, st.scores[row].copy(), st.title[row].copy(),
        )

    # ------------------------------------------------------------------ results
    def records(self) -> list[GameRecord]:
        """The kept games as records: for ``first`` in the order they ended, else the most
        wanted first (``worst``: the worst for the agent first). Each is replayed and checked
        against the final state of its game."""
        games = sorted(self._kept, key=lambda kg: (-kg[0][0], kg[1].order))
        return [self._record(g) for _, g in games]

    def _record(self, g: _Game) -> GameRecord:
        steps = tuple(Step(int(s), int(a)) for s, a in zip(g.seats, g.actions))
        rec = GameRecord(self.rules, g.seed, steps, None, g.players, None, g.meta)
        done = finished_record(rec)
        res = done.result
        assert res is not None
        if list(res.scores) != g.scores.tolist() or list(res.places[-1]) != g.title.tolist():
            raise RuntimeError(
                f"recorded game {g.order} replays to scores {list(res.scores)}, but it ended "
                f"with {g.scores.tolist()}: was the recorder created before the games began?"
            )
        return done

    def save(self, out_dir: str | Path, prefix: str = "game") -> list[Path]:
        """Write the kept records (:func:`save_records`); returns the paths."""
        return save_records(self.records(), out_dir, prefix)


def _standing(
    scores: npt.NDArray[np.int64], title: npt.NDArray[np.int8], seat: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]:
    """The final standing (0 = winner) of ``seat[g]`` in each game ``g``, as
    :meth:`Engine.standings <president_env.core.engine.Engine.standings>` ranks: by score, then
    by the last deal's place, then by seat."""
    key = -scores * 16 + np.maximum(title, 0)
    mine = key[np.arange(len(seat)), seat][:, None]
    seats = np.arange(key.shape[1])[None, :]
    better = (key < mine) | ((key == mine) & (seats < seat[:, None]))
    return np.asarray(better.sum(axis=1), np.int64)


def save_records(
    records: Sequence[GameRecord], out_dir: str | Path, prefix: str = "game"
) -> list[Path]:
    """Write ``records`` as ``out_dir/{prefix}_{i:04d}.json`` (``i``: the index in
    ``records``), creating the folder; returns the paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return [r.save(out / f"{prefix}_{i:04d}.json") for i, r in enumerate(records)]
