"""The views of the AEC env that do not change the game: its record, its state, its picture,
copies, and the text of its errors (:class:`AECViews`, a base of
:class:`president_env.envs.aec.raw_env`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from president_env.core import OneGame
from president_env.core.actions import ActionLayout
from president_env.core.constants import Kind
from president_env.core.engine import State
from president_env.core.rules import Rules
from president_env.envs._adapt import render_frame
from president_env.gate import ActionGate
from president_env.records import GameRecord, GameRecorder


class AECViews:
    """Read-only views of a :class:`~president_env.envs.aec.raw_env` (the attributes it sets)."""

    rules: Rules
    render_mode: str | None
    layout: ActionLayout
    gate: ActionGate
    metadata: dict[str, Any]
    _game: OneGame | None
    _recorder: GameRecorder | None
    _current: int
    _pile_cards: npt.NDArray[np.int8] | None

    @property
    def record(self) -> GameRecord | None:
        """The game record of the current game (``record=True``, else None): with its result
        once the game is over, else the steps so far (see ``docs/records.md``)."""
        rec = self._recorder
        return None if rec is None or self._game is None else rec.current(self._game.state)

    @property
    def game_state(self) -> State:
        """The engine state of the game (a batch of one); do not modify it. A ``reset()``
        without given hands or a record deals the next game into the same arrays: copy it
        (``.copy()``) to keep a game past the next reset."""
        if self._game is None:
            raise RuntimeError("call reset() first")
        return self._game.state

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        """The table as text (``"ansi"``), printed (``"human"``) or as a picture
        (``"rgb_array"``), with the hand of the agent to act."""
        return render_frame(
            "raw_env",
            self.render_mode,
            self.rules,
            None if self._game is None else self._game.state,
            pile_cards=self._pile_cards,
            layout=self.layout,
        )

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ copies
    def __getstate__(self) -> dict[str, Any]:
        """Everything, the game in play included (EzPickle's own state holds only the
        constructor's arguments, so that a copy would start without a game)."""
        return self.__dict__.copy()

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    # ------------------------------------------------------------------ helpers
    def _track_pile(self, a: int) -> None:
        """Remember the exact cards of the last play (for rendering only)."""
        assert self._game is not None
        kind = self.layout.kind[a]
        if kind in (Kind.SET, Kind.JOKERS, Kind.RUN):
            self._pile_cards = self.layout.cards_for(a, self._game.state.hands[0, self._current])

    def _current_mask(self) -> npt.NDArray[np.int8]:
        game = self._game
        return game.mask if game is not None and self._current >= 0 else np.zeros(0, np.int8)

    def _none_message(self, agent: str) -> str:
        return (
            f"step(None) is only for terminated agents, but {agent} is to act; legal actions: "
            f"{self.gate.legal_text(self._current_mask())}"
        )

    def __str__(self) -> str:
        return str(self.metadata["name"])
