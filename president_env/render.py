"""Text rendering of a President table, a trick and a hand.

Pure functions of ``(rules, state, game index)``: nothing here changes a state, and nothing in
the engine depends on this module. The adapters (:mod:`president_env.aec`,
:mod:`president_env.single_agent`, :mod:`president_env.vector`) render through
:func:`render_view`, one entry for every mode in :data:`RENDER_MODES`: ``"ansi"`` (the text of
:func:`render_table`), ``"human"`` (that text printed) and ``"rgb_array"`` (a picture from
:func:`president_env.draw.draw_table`; Pillow is imported only when a picture is asked for).

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

import numpy as np
import numpy.typing as npt

from president_env.core.actions import ActionLayout, Kind
from president_env.core.cards import (
    NUM_CARDS,
    NUM_NATURAL,
    NUM_SUITS,
    RANK_NAMES,
    SUIT_WORDS,
    card_name,
    format_hand,
)
from president_env.core.engine import PHASE_DONE, PHASE_EXCHANGE, State
from president_env.core.rules import Rules

PHASE_NAMES = ("exchange", "play", "game over")


def title_name(place: int, num_players: int) -> str:
    """Title earned by finishing in ``place`` (0 = first) among ``num_players``; "-" if none."""
    if place < 0:
        return "-"
    if place == 0:
        return "President"
    if place == num_players - 1:
        return "Bum"
    if num_players >= 4 and place == 1:
        return "Vice-President"
    if num_players >= 4 and place == num_players - 2:
        return "Vice-Bum"
    return "Neutral"


def ordinal(place: int) -> str:
    """``0 -> "1st"``, ``1 -> "2nd"``, ... (places are 0-based in the state)."""
    n = place + 1
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def render_hand(counts: npt.ArrayLike) -> str:
    """A hand (53 counts) as text, lowest card first, or ``"(no cards)"``."""
    text = format_hand(counts)
    return text if text else "(no cards)"


def describe_pile(
    rules: Rules,
    state: State,
    game: int = 0,
    pile_cards: npt.ArrayLike | None = None,
    layout: ActionLayout | None = None,
) -> str:
    """The top play of game ``game`` in words: ``"pair of 9 (9c 9h), played by seat 2"``."""
    lay = layout if layout is not None else ActionLayout(rules)
    kind = int(state.pile_kind[game])
    if kind == Kind.PASS:
        return "empty"
    rank, size = int(state.pile_rank[game]), int(state.pile_size[game])
    if kind == Kind.SET:
        what = lay.name(lay.set_action(rank, size))
    elif kind == Kind.JOKERS:
        what = lay.name(lay.jokers_action(size))
    else:
        what = f"run {'-'.join(RANK_NAMES[rank:rank + size])}"
    if pile_cards is not None:
        cards = np.asarray(pile_cards)
        if cards.shape == (NUM_CARDS,) and int(cards.sum()) == size:
            natural = np.flatnonzero(cards[:NUM_NATURAL])
            if kind == Kind.RUN and len(natural) and not rules.runs_mixed_suits:
                what += f" of {SUIT_WORDS[int(natural[0]) % NUM_SUITS]}"
            what += f" ({format_hand(cards)})"
    return f"{what}, played by seat {int(state.last_player[game])}"


def order_words(rules: Rules, state: State, game: int = 0) -> list[str]:
    """The rank order, then (with their options) a pending revolution and the direction of
    play: ``["usual order", "revolution pending", "play to the left"]``."""
    words = ["REVOLUTION (order reversed)" if state.revolution[game] else "usual order"]
    if rules.revolution_timing == "next_trick" and state.pending[game]:
        words.append("revolution pending")
    if rules.western_revolution:
        words.append(f"play to the {direction_word(state, game)}")
    return words


def direction_word(state: State, game: int = 0) -> str:
    """``"right"`` while play goes to the right (``western_revolution`` and a revolution in
    effect), else ``"left"``."""
    return "right" if state.revolution[game] else "left"


def row_text(rules: Rules, state: State, game: int = 0) -> str | None:
    """The row of single cards of one rank in this trick (``western_revolution``), as
    ``"9 x 2"``; None without the option or a row."""
    rank = int(state.row_rank[game]) if rules.western_revolution else -1
    if rank < 0:
        return None
    return f"{RANK_NAMES[rank]} x {int(state.row_count[game])}"


def asks_made(rules: Rules, state: State, game: int = 0) -> list[tuple[str, bool]]:
    """The President's asks of this deal's exchange (``president_asks``): the card named and
    whether the Bum held it, in order; empty without the option."""
    if not rules.president_asks:
        return []
    return [
        (card_name(int(c)), bool(h == 1))
        for c, h in zip(state.asked[game], state.ask_held[game])
        if c >= 0
    ]


def asks_line(rules: Rules, state: State, game: int = 0) -> str | None:
    """``"Asks of the President: 2s (held), 3h (not held); 1 left"`` (a card not held: the Bum
    gave its best card instead), or None when no ask is made or to make in this deal (or
    without ``president_asks``)."""
    made = asks_made(rules, state, game)
    left = int(state.asks_left[game]) if rules.president_asks else 0
    if not made and left <= 0:
        return None
    parts = [f"{name} ({'held' if held else 'not held'})" for name, held in made]
    text = "Asks of the President: " + (", ".join(parts) if parts else "none yet")
    return text + (f"; {left} left" if left > 0 else "")


def check_view(rules: Rules, state: State, game: int, seat: int | None) -> None:
    """A ValueError unless ``state`` holds games of ``rules``' players, ``game`` is one of its
    games and ``seat`` (if given) one of its seats: the check of every view of a table."""
    p = rules.num_players
    if state.num_players != p:
        raise ValueError(
            f"the state is of {state.num_players}-player games but the rules are for {p} players"
        )
    if not 0 <= game < state.batch_size:
        raise ValueError(f"game {game} is out of range 0..{state.batch_size - 1}")
    if seat is not None and not 0 <= seat < p:
        raise ValueError(f"seat {seat} is out of range 0..{p - 1}")


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
    :func:`president_env.draw.draw_table` (Pillow is imported only then).
    """
    if mode not in RENDER_MODES:
        raise ValueError(f"render mode must be one of {RENDER_MODES}, got {mode!r}")
    if mode == "rgb_array":
        from president_env.draw import draw_table

        return draw_table(
            rules, state, game, seat=seat, show_all=show_all, pile_cards=pile_cards, layout=layout
        )
    text = render_table(rules, state, game, seat, show_all, pile_cards, layout)
    if mode == "human":
        print(text + "\n")
        return None
    return text
