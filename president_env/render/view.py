"""One entry for every render mode of the adapters: :func:`render_view`."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from president_env.core.actions import ActionLayout
from president_env.core.engine import State
from president_env.core.rules import Rules
from president_env.render.text import render_table

RENDER_MODES: tuple[str, ...] = ("human", "ansi", "rgb_array")


def render_view(
    mode: str,
    rules: Rules,
    state: State,
    game: int = 0,
    *,
    seat: int | None = None,
    show_all: bool = False,
    pile_cards: npt.ArrayLike | None = None,
    layout: ActionLayout | None = None,
) -> str | np.ndarray | None:
    """The table in render mode ``mode``, as the adapters' ``render()`` returns it.

    ``"ansi"``: the text of :func:`render_table`; ``"human"``: that text printed (plus a blank
    line), returning ``None``; ``"rgb_array"``: an ``H x W x 3`` uint8 picture from
    :func:`president_env.render.picture.draw_table` (Pillow is imported only then).
    """
    if mode not in RENDER_MODES:
        raise ValueError(f"render mode must be one of {RENDER_MODES}, got {mode!r}")
    if mode == "rgb_array":
        from president_env.render.picture import (
            draw_table,  # Pillow only when a picture is asked for
        )

        return draw_table(
            rules, state, game, seat=seat, show_all=show_all, pile_cards=pile_cards, layout=layout
        )
    text = render_table(rules, state, game, seat, show_all, pile_cards, layout)
    if mode == "human":
        print(text + "\n")
        return None
    return text
