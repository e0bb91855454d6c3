"""Helpers shared by the adapters (AEC env, vector env, single-agent wrapper).

Building Rules from keyword options, the checks of ``reset(seed=..., options=...)`` and the
seeds they give, the observation bounds for a Box space. Rewards live in
:mod:`president_env.rewards`, action checks in :mod:`president_env.gate`.

The AEC and single-agent envs render through :func:`render_frame` (one ``render()`` for both,
every mode of :data:`~president_env.render.view.RENDER_MODES`).

Every adapter checks its ``reset`` arguments here, before anything changes: a seed is an int
``>= 0`` (a numpy integer too) or None (a bool, a float or a string is a TypeError, a negative
int a ValueError); ``options`` is None or a dict whose keys the adapter knows (a misspelled key
is a ValueError naming the valid ones; the one key ``"options"``, which PettingZoo's
``api_test`` passes to check the signature, is ignored).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from president_env.core.actions import ActionLayout
from president_env.core.engine import State
from president_env.core.observe import ObservationLayout, history_bounds, longest_run, record_high
from president_env.core.rules import Rules
from president_env.render import RENDER_MODES, render_view
from president_env.rewards import place_points

IGNORED_OPTIONS = ("options",)
"""``reset`` option keys accepted and ignored by every adapter: PettingZoo's ``api_test`` checks
the signature of ``reset`` with ``options={"options": 1}``."""


def check_options(options: Any, valid: tuple[str, ...]) -> dict[str, Any]:
    """The ``options`` of a ``reset`` as a dict (None: empty); a TypeError if it is not a
    mapping, a ValueError naming the valid keys for a key outside ``valid`` (and
    :data:`IGNORED_OPTIONS`)."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise TypeError(f"options must be a dict or None, got {type(options).__name__}")
    unknown = [k for k in options if k not in valid and k not in IGNORED_OPTIONS]
    if unknown:
        known = ", ".join(repr(k) for k in valid) if valid else "none"
        raise ValueError(
            f"unknown reset option(s) {', '.join(repr(k) for k in unknown)}; valid options: "
            f"{known}"
        )
    return dict(options)


def make_rules(preset: str | None, rules: Rules | None, options: dict[str, Any]) -> Rules:
    """Rules from a preset name or a Rules object, with rule options as keywords.

    ``make_rules("cardverse", None, {"num_players": 5})``; ``make_rules(None, rules, {})``;
    ``make_rules(None, None, {"runs": True})`` (options over the defaults of ``Rules()``).
    """
    if rules is not None:
        if preset is not None:
            raise ValueError(
                f"give either preset={preset!r} or rules=..., not both (to change a preset, "
                "pass options as keywords: preset='cardverse', num_players=5)"
            )
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a president_env.Rules, got {type(rules).__name__}")
        return rules.replace(**options) if options else rules
    if preset is not None:
        if not isinstance(preset, str):
            raise TypeError(f"preset must be a preset name (str), got {preset!r}")
        return Rules.preset(preset, **options)
    return Rules.from_dict(options)


def observation_high(rules: Rules, layout: ObservationLayout) -> npt.NDArray[np.float32]:
    """Upper bound of every entry of the observation vector (the lower bound is 0)."""
    decks, jokers = rules.num_decks, rules.num_jokers
    max_score = max(place_points(rules)) * rules.deals
    bounds: dict[str, float] = {
        "hand": max(decks, jokers),
        "played": max(4 * decks, jokers),
        "pile_size": max(rules.max_set_size, longest_run(rules)),
        "cards_left": rules.num_cards,
        "score": max_score,
        "gave": max(decks, jokers, 2),
        "received": max(decks, jokers, 2),
        "to_return": 2,
        "asks_left": 2,  # (blocks of size 0 when their option is off)
        "asked": 2,  # the same card may be named twice
        "ask_held": 2,
        "pass_run": rules.stalemate_passes or 1,
    }
    bounds.update(history_bounds(rules))  # (size 0 under observation="standard")
    high = np.ones(layout.size, np.float32)
    for name, value in bounds.items():
        high[layout.slices[name]] = value
    high[layout.slices["record"]] = record_high(rules)  # (size 0 unless observation="record")
    return high


def copy_space(space: spaces.Dict) -> spaces.Dict:
    """An equal but distinct Dict of Box spaces (each agent seeds its own)."""
    return spaces.Dict({k: _copy_box(v) for k, v in space.spaces.items()})


def _copy_box(box: spaces.Space) -> spaces.Box:
    assert isinstance(box, spaces.Box)
    return spaces.Box(low=box.low, high=box.high, shape=box.shape, dtype=box.dtype)


# ---------------------------------------------------------------------- rendering
def check_render_mode(render_mode: Any) -> str | None:
    """``render_mode`` if it is None or one of :data:`RENDER_MODES`, else a ValueError."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(
            f"render_mode must be None or one of {', '.join(map(repr, RENDER_MODES))}, got "
            f"{render_mode!r}"
        )
    return render_mode  # type: ignore[no-any-return]


def render_frame(
    owner: str,
    render_mode: str | None,
    rules: Rules,
    state: State | None,
    *,
    seat: int | None = None,
    pile_cards: npt.ArrayLike | None = None,
    layout: ActionLayout | None = None,
    caption: str = "",
) -> str | npt.NDArray[np.uint8] | None:
    """What ``render()`` of an env (named ``owner`` in messages) returns in ``render_mode``.

    None (and Gymnasium's warning) without a render mode; ``"ansi"``: the text of the table,
    after the line ``caption`` when given; ``"human"``: that text printed; ``"rgb_array"``: the
    picture. ``seat`` is the hand shown (default: the player to act).
    """
    if render_mode is None:
        gymnasium.logger.warn(
            "You are calling render method without specifying any render mode: use "
            f"{owner}(render_mode=...) with one of {', '.join(map(repr, RENDER_MODES))}."
        )
        return None
    if state is None:
        raise RuntimeError("call reset() before render()")
    mode = "ansi" if render_mode == "human" else render_mode
    view = render_view(mode, rules, state, 0, seat=seat, pile_cards=pile_cards, layout=layout)
    if isinstance(view, str):
        view = f"{caption}\n{view}" if caption else view
        if render_mode == "human":
            print(view + "\n")
            return None
    return view
