"""The one gate every action passes: type, range and legality, with one error message.

Every adapter (AEC env, vector env, single-agent env, learner env) and every seat of a
:class:`~president_env.table.Table` (rule-based agents and checkpoints included) checks its
actions here, so an illegal action reads the same everywhere::

    action 17 (pair of 6) is illegal for player_2; legal actions: 0 (pass), 29 (pair of 9), ...

A check that fails raises before anything changes: ``TypeError`` for an action of the wrong
type (a float, a bool, a string, an array that is not 0-d), ``ValueError`` for an id out of
range or an illegal one. With ``illegal_action="penalty"`` an illegal (but well-typed, in
range) single action is reported instead (:meth:`ActionGate.check` returns ``None``), and the
adapter applies PettingZoo's terminate-with-penalty behaviour.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from president_env.core.actions import ActionLayout

ILLEGAL_ACTIONS = ("raise", "penalty")
ILLEGAL_REWARD = -1.0
"""Reward of the agent whose illegal action ends the game under ``illegal_action="penalty"``."""
SHOWN_LEGAL = 30
"""At most this many legal actions are listed in a message."""

IntArray = npt.NDArray[np.int64]


def as_action(action: Any, num_actions: int) -> int:
    """``action`` as a Python int in ``0..num_actions-1``, else a TypeError or ValueError.

    Accepts Python ints (and int subclasses such as IntEnum members), numpy integer scalars and
    0-d integer arrays; rejects bools, floats, strings, None and arrays of any other shape.
    """
    if type(action) is int:
        a = action
    elif isinstance(action, (bool, np.bool_)):
        raise TypeError(f"an action is an integer id, got the bool {action!r}")
    elif isinstance(action, (int, np.integer)):
        a = int(action)
    elif isinstance(action, np.ndarray):
        if action.shape != () or not np.issubdtype(action.dtype, np.integer):
            raise TypeError(
                "an action is one integer id (an int, a numpy integer or a 0-d integer "
                f"array), got an array of shape {action.shape} and dtype {action.dtype}"
            )
        a = int(action)
    else:
        raise TypeError(f"an action is an integer id, got {type(action).__name__} {action!r}")
    if not 0 <= a < num_actions:
        raise ValueError(f"action {a} is out of range 0..{num_actions - 1}")
    return a


class ActionGate:
    """Checks actions against the legal-action masks of one :class:`ActionLayout`."""

    def __init__(self, layout: ActionLayout, illegal_action: str = "raise") -> None:
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(
                f"illegal_action must be 'raise' or 'penalty', got {illegal_action!r}"
            )
        self.layout = layout
        self.num_actions = layout.num_actions
        self.illegal_action = illegal_action

    # ------------------------------------------------------------------ one action
    def check(self, action: Any, mask: npt.NDArray[Any], who: str) -> int | None:
        """``action`` as an int if it is legal under ``mask`` (the row of the player to act).

        Raises TypeError / ValueError for a bad type or range; for an illegal id, raises
        ValueError (``"raise"``) or returns None (``"penalty"``).
        """
        if type(action) is int and 0 <= action < self.num_actions:
            a = action
        else:
            a = as_action(action, self.num_actions)
        if mask[a]:
            return a
        if self.illegal_action == "penalty":
            return None
        raise ValueError(self.illegal_message(a, mask, who))

    # ------------------------------------------------------------------ batches
    def check_batch(
        self,
        actions: npt.ArrayLike,
        mask: npt.NDArray[np.bool_],
        rows: npt.NDArray[np.bool_] | None = None,
        who: str = "player {seat}",
        seats: npt.ArrayLike | None = None,
        games: npt.ArrayLike | None = None,
    ) -> IntArray:
        """``actions [n]`` as int64 after checking every row selected by ``rows`` (all rows by
        default) against ``mask [n, A]``; other rows may hold anything (they become -1).

        ``who`` names the actor in a message, with ``{seat}`` replaced by ``seats[row]``;
        ``games`` numbers the rows in the message (default: their index). Always raises.
        """
        a = np.asarray(actions)
        n = mask.shape[0]
        if a.shape != (n,):
            raise ValueError(f"actions must have shape ({n},), one per game, got {a.shape}")
        if a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
            by = "" if "{seat}" in who and (seats is None or n == 0) else (
                who.format(seat=int(np.asarray(seats)[0])) if seats is not None else who) + ": "
            raise TypeError(f"{by}actions must be integer ids (a float is not truncated), got "
                            f"dtype {a.dtype}")
        sel = np.ones(n, np.bool_) if rows is None else rows
        bad_range = sel & ((a < 0) | (a >= self.num_actions))  # in a's own dtype (uint64 too)
        if bad_range.any():
            b = int(np.flatnonzero(bad_range)[0])
            raise ValueError(
                f"{self._game(games, b)}action {a[b].item()} is out of range "
                f"0..{self.num_actions - 1}"
            )
        a = np.where(sel, a, -1).astype(np.int64, copy=False)
        ok = mask[np.arange(n), np.maximum(a, 0)] | ~sel
        if not ok.all():
            b = int(np.flatnonzero(~ok)[0])
            actor = who if seats is None else who.format(seat=int(np.asarray(seats)[b]))
            raise ValueError(
                self._game(games, b) + self.illegal_message(int(a[b]), mask[b], actor)
            )
        return a

    # ------------------------------------------------------------------ messages
    def illegal_message(self, action: int, mask: npt.NDArray[Any], who: str) -> str:
        """``"action 17 (pair of 6) is illegal for <who>; legal actions: 0 (pass), ..."``."""
        return (
            f"action {action} ({self.layout.name(action)}) is illegal for {who}; "
            f"legal actions: {self.legal_text(mask)}"
        )

    def legal_text(self, mask: npt.NDArray[Any]) -> str:
        """The legal actions of one mask row as ``"0 (pass), 29 (pair of 9), ..."``."""
        legal = [f"{i} ({self.layout.name(int(i))})" for i in np.flatnonzero(mask)]
        if not legal:
            return "none (the game is over)"
        more = f", ... ({len(legal)} in all)" if len(legal) > SHOWN_LEGAL else ""
        return ", ".join(legal[:SHOWN_LEGAL]) + more

    @staticmethod
    def _game(games: npt.ArrayLike | None, b: int) -> str:
        g = b if games is None else int(np.asarray(games)[b])
        return f"game {g}: "
