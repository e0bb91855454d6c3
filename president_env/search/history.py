"""The deal's history in an observation, read back: the fields of the history blocks
(``observation="history"``) and the moves of the ``record`` block (``"record"``), for
:func:`president_env.search.positions.from_observation` and the Expert's belief."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import numpy.typing as npt

from president_env.core.actions import action_layout
from president_env.core.cards import NUM_CARDS, NUM_RANKS
from president_env.core.observe import ObservationLayout
from president_env.core.rules import Rules
from president_env.search.observation import _checked_obs, _one_hot

__all__ = ["history_fields", "record_moves"]

IntArray = npt.NDArray[np.int64]


def history_fields(rules: Rules, o: np.ndarray, lay: ObservationLayout) -> dict[str, np.ndarray]:
    """``seat_played``, ``seat_passed`` and ``recent`` from the history blocks (with
    ``"record"``, ``recent`` is the record block itself: every move, most recent first)."""
    p, b = rules.num_players, len(o)
    k = lay.split(o)
    f = {
        "seat_played": np.rint(k["seat_played"].reshape(b, p, NUM_CARDS)),
        "seat_passed": np.rint(k["seat_passed"].reshape(b, p, NUM_CARDS)),
    }
    if rules.observation == "record":  # every move, exactly (the run's suit included)
        f["recent"] = _record_block(rules, o, lay)[0]
        return f
    moves = k["recent"].reshape(b, -1, p + 18)
    recent = np.full((b, moves.shape[1], 2), -1, np.int64)
    seat = _one_hot(moves[:, :, :p])
    kind = _one_hot(moves[:, :, p : p + 4])
    rank = _one_hot(moves[:, :, p + 4 : p + 4 + NUM_RANKS])
    size = np.rint(moves[:, :, p + 4 + NUM_RANKS] * 8).astype(np.int64)
    table = _action_lookup(rules)
    ok = seat >= 0
    recent[..., 0] = np.where(ok, seat, -1)
    ids = table[np.clip(kind, 0, 3), np.clip(rank, -1, NUM_RANKS - 1) + 1, np.clip(size, 0, 63)]
    recent[..., 1] = np.where(ok, ids, -1)
    f["recent"] = recent
    return f


def _record_block(rules: Rules, o: np.ndarray, lay: ObservationLayout) -> tuple[IntArray, IntArray]:
    """The record block as moves, most recent first, ``[B, L, 2]`` (-1 past the moves made),
    and the number of moves ``[B]``; a ValueError for entries out of range."""
    block = np.rint(lay.split(o)["record"]).astype(np.int64)
    n = block[:, 0]
    length = rules.record_length
    if ((n < 0) | (n > length)).any():
        raise ValueError(f"the record block's number of moves must be in 0..{length}")
    newest = block[:, 1:].reshape(len(o), length, 2) - 1  # 0 (no move) becomes -1
    made = np.arange(length)[None] < n[:, None]
    top = np.array([rules.num_players, action_layout(rules).num_actions])
    bad = np.where(made[..., None], (newest < 0) | (newest >= top), newest != -1).any(axis=(1, 2))
    if bad.any():
        raise ValueError(
            f"obs[{int(np.flatnonzero(bad)[0])}]: the record block holds a seat or an action out "
            f"of range (seats 1..{top[0]}, actions 1..{top[1]} for the moves made, 0 after)")
    return newest, n


def record_moves(rules: Rules, obs: npt.ArrayLike) -> tuple[IntArray, IntArray]:
    """The deal's play so far from the ``record`` block of ``obs [B, O]``
    (``Rules(observation="record")``), in order: ``moves`` int64 ``[B, L, 2]`` (the seat in the
    observer's frame, seat k the k-th to its left; the action id), ``L = rules.record_length``,
    -1 past the ``n_moves[b]`` moves made (the record :func:`replay` plays)."""
    o, lay = _checked_obs(rules, obs)
    if rules.observation != "record":
        raise ValueError("record_moves needs the record observation: Rules(observation='record')")
    newest, n = _record_block(rules, o, lay)
    t = np.arange(rules.record_length)
    index = np.clip(n[:, None] - 1 - t[None], 0, None)  # move t of the deal is entry n - 1 - t
    moves = np.take_along_axis(newest, index[..., None], axis=1)
    return np.where((t[None] < n[:, None])[..., None], moves, -1), n


@lru_cache(maxsize=64)
def _action_lookup(rules: Rules) -> IntArray:
    """``[kind 4, rank+1 14, size 64]`` -> an action id that the observation shows so (the
    first such id: a run's suit is not in the ``recent`` block); read-only, one per rules."""
    act = action_layout(rules)
    table = np.zeros((4, NUM_RANKS + 1, 64), np.int64)
    for a in range(act.num_actions - 1, -1, -1):
        kind, rank, size = int(act.kind[a]), int(act.rank[a]), int(act.size[a])
        if kind <= 3:
            table[kind, rank + 1, min(size, 63)] = a
    table.setflags(write=False)
    return table
