"""Text rendering of a President table, a trick and a hand.

Pure functions of ``(rules, state, game index)``: nothing here changes a state, and nothing in
the engine depends on this module. The adapters (:mod:`president_env.envs.aec`,
:mod:`president_env.envs.single_agent`, :mod:`president_env.envs.vector`) render through
:func:`render_view`, one entry for every mode in :data:`RENDER_MODES`: ``"ansi"`` (the text of
:func:`render_table`), ``"human"`` (that text printed) and ``"rgb_array"`` (a picture from
:func:`president_env.render.picture.draw_table`; Pillow is imported only when a picture is asked for).

Example (``render_table(rules, state)`` of a 4-player game)::

    President v0 - 4 players, preset revolution - deal 1 of 1 - play
    Pile: pair of 9 (9c 9h), played by seat 2; usual order
      seat  title           cards  place  score  this trick
    > 0     -                  11  -          0  to act
      1     -                   0  1st        0  out
      2     -                   9  -          0  last play
      3     -                  12  -          0  passed
    Hand of seat 0: 3c 4d 5d 6h 9s 10c Jd Qd Kh Ah 2c

The engine's state keeps the kind, rank and size of the top play but not its suits, so the
pile shows the exact cards only when the caller passes them (``pile_cards``, as the AEC env
does); otherwise it shows the play's name.

The further variants (``RULES.md`` section 12) add what they make public, and only when their
option is on (so the text of other rules is unchanged): a pending revolution
(``revolution_timing="next_trick"``) and the direction of play (``western_revolution``) on the
pile's line, the row of single cards of one rank (``western_revolution``) and the President's
asks with whether the Bum held each card (``president_asks``) on lines of their own, for
example::

    Pile: single 9, played by seat 1; usual order, revolution pending, play to the left
    Row of singles: 9 x 2 (a revolution at 4)
    Asks of the President: 2s (held), 3h (not held)

(A card not held: the Bum gave its best card instead, which only the two of them see.)
"""

from __future__ import annotations

import numpy.typing as npt

from president_env.core.actions import ActionLayout, Kind
from president_env.core.engine import PHASE_DONE, PHASE_EXCHANGE, State
from president_env.core.rules import Rules
from president_env.render.words import (
    PHASE_NAMES,
    asks_line,
    check_view,
    describe_pile,
    order_words,
    ordinal,
    render_hand,
    row_text,
    title_name,
)


def render_table(
    rules: Rules,
    state: State,
    game: int = 0,
    seat: int | None = None,
    show_all: bool = False,
    pile_cards: npt.ArrayLike | None = None,
    layout: ActionLayout | None = None,
) -> str:
    """The table of game ``game`` as text.

    Shows the deal and phase, the pile (with its exact cards if ``pile_cards`` is given), the
    rank order, one line per seat (title from the previous deal, cards left, place in this
    deal, score, whether the seat passed, made the top play or is to act, cards it still has to
    return in the exchange), and the hand of ``seat`` (default: the player to act), or every
    hand with ``show_all``.
    """
    check_view(rules, state, game, seat)
    p = rules.num_players
    phase = int(state.phase[game])
    current = int(state.current[game])
    preset = f", preset {rules.preset_name}" if rules.preset_name else ""
    lines = [
        f"President v0 - {p} players{preset} - deal {int(state.deal[game]) + 1} of "
        f"{rules.deals} - {PHASE_NAMES[phase]}"
    ]
    order = ", ".join(order_words(rules, state, game))
    lines.append(f"Pile: {describe_pile(rules, state, game, pile_cards, layout)}; {order}")
    row = row_text(rules, state, game)
    if row is not None:
        lines.append(f"Row of singles: {row} (a revolution at 4)")
    asks = asks_line(rules, state, game)
    if asks is not None:
        lines.append(asks)
    lines.append("  seat  title           cards  place  score  this trick")
    left = state.hands[game].sum(axis=-1)
    for q in range(p):
        status = []
        if q == current:
            status.append("to act")
        if state.passed[game, q]:
            status.append("passed")
        if int(state.last_player[game]) == q and state.pile_kind[game] != Kind.PASS:
            status.append("last play")
        if state.place[game, q] >= 0 and phase != PHASE_DONE:
            status.append("out")
        if phase == PHASE_EXCHANGE and state.to_return[game, q] > 0:
            status.append(f"returns {int(state.to_return[game, q])}")
        if q == current and rules.president_asks and state.asks_left[game] > 0:
            status.append(f"asks {int(state.asks_left[game])}")
        place = int(state.place[game, q])
        lines.append(
            f"{'>' if q == current else ' '} {q:<5} {title_name(int(state.title[game, q]), p):<15}"
            f" {int(left[q]):>5}  {ordinal(place) if place >= 0 else '-':<5}"
            f" {int(state.scores[game, q]):>5}  {', '.join(status)}".rstrip()
        )
    if phase == PHASE_DONE:
        lines.append("Game over. Scores: " + ", ".join(
            f"seat {q}: {int(state.scores[game, q])}" for q in range(p)
        ))
    shown = range(p) if show_all else [seat if seat is not None else current]
    for q in shown:
        if q >= 0:
            lines.append(f"Hand of seat {q}: {render_hand(state.hands[game, q])}")
    return "\n".join(lines)
