"""The words every view of a table uses: titles, places, the pile, the order in effect, the
variants' public lines, and the check of a view's arguments (shared by the text of
:mod:`president_env.render.text` and the picture of :mod:`president_env.render.picture`)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from president_env.core.actions import ActionLayout, Kind, action_layout
from president_env.core.cards import (
    NUM_CARDS,
    NUM_NATURAL,
    NUM_RANKS,
    NUM_SUITS,
    RANK_NAMES,
    SUIT_WORDS,
    card_name,
    format_hand,
)
from president_env.core.engine import State
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
    lay = layout if layout is not None else action_layout(rules)
    kind = int(state.pile_kind[game])
    if kind == Kind.PASS:
        return "empty"
    rank, size = int(state.pile_rank[game]), int(state.pile_size[game])
    if kind == Kind.SET:
        what = lay.name(lay.set_action(rank, size)).split(" (")[0]  # (exact_plays: no cards)
    elif kind == Kind.JOKERS:
        what = lay.name(lay.jokers_action(size))
    else:
        what = "run " + "-".join(RANK_NAMES[r] if 0 <= r < NUM_RANKS else "JK"
                                 for r in range(rank, rank + size))  # (JK: run_joker_ends)
    if pile_cards is not None:
        cards = np.asarray(pile_cards)
        if cards.shape == (NUM_CARDS,) and int(cards.sum()) == size:
            natural = np.flatnonzero(cards[:NUM_NATURAL])
            if kind == Kind.RUN and len(natural) and not rules.runs_mixed_suits:
                what += f" of {SUIT_WORDS[int(natural[0]) % NUM_SUITS]}"
            what += f" ({format_hand(cards)})"
    return f"{what}, played by seat {int(state.last_player[game])}"


def order_words(rules: Rules, state: State, game: int = 0) -> list[str]:
    """The rank order, then (with their options) a pending revolution, an 11-back and the
    direction of play: ``["usual order", "revolution pending", "play to the left"]``."""
    words = ["REVOLUTION (order reversed)" if state.revolution[game] else "usual order"]
    if rules.revolution_timing == "next_trick" and state.pending[game]:
        words.append("revolution pending")
    if rules.jack_back and state.jack_back[game]:
        words.append("11-back (order reversed until the trick ends)")
    if rules.western_revolution or rules.six_reverses:
        words.append(f"play to the {direction_word(state, game, rules.western_revolution)}")
    return words


def direction_word(state: State, game: int = 0, western: bool = True) -> str:
    """``"right"`` while play goes to the right (``western`` (``western_revolution``) and a
    revolution in effect, the other way round while ``six_reversed``), else ``"left"``."""
    right = bool(western and state.revolution[game]) != bool(state.six_reversed[game])
    return "right" if right else "left"


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
