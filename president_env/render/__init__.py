"""Views of a President table: text (:mod:`~president_env.render.text`), pictures
(:mod:`~president_env.render.picture`, drawn with Pillow), the words both use
(:mod:`~president_env.render.words`) and :func:`~president_env.render.view.render_view`, the one
entry for every render mode of the adapters. Pure functions of ``(rules, state, game index)``:
nothing here changes a state, and nothing in the engine depends on this package.
Pillow is imported only when a picture is drawn (:mod:`~president_env.render.picture`)."""

from president_env.render.text import render_table
from president_env.render.view import RENDER_MODES, render_view
from president_env.render.words import describe_pile, render_hand, title_name

__all__ = [
    "RENDER_MODES", "describe_pile", "render_hand", "render_table",
    "render_view", "title_name",
]
