"""Pictures of a President table: ``render_mode="rgb_array"``, drawn with Pillow.

:func:`draw_table` is a pure function of ``(rules, state, game index)`` like
:func:`president_env.render.text.render_table`, and shows the same things as a ``H x W x 3`` uint8
array, :data:`WIDTH` (640) pixels wide:

* a header: players, preset, deal ``d`` of ``n``, phase, who is to act;
* one panel per seat (seat order, one row up to 4 players, two rows for 5-8): its title from
  the previous deal, score, cards left as card backs and a count, and a badge for the seat to
  act (gold frame), its place once out, a pass or the top play of the trick;
* the pile: its exact cards when the caller knows them (``pile_cards``, as the envs keep them),
  else cards of the known ranks with a ``?`` for the suit, the play's name and who made it, the
  rank order (a red ``REVOLUTION`` banner when reversed) and the seats that passed;
* the hand of ``seat`` (default: the seat to act) face up, overlapped to fit; with
  ``show_all`` every hand, one row per seat.

The further variants (``RULES.md`` section 12) add, each only with its option: a ``PENDING``
label (``next_trick``), the direction of play and the row of singles (``western_revolution``)
under the rank order; the asks of this deal, ``held`` or ``not held``, at the bottom right of the
pile and an ``ASKS n`` badge on the asking President (``president_asks``).

Only the hands of the seats shown face up are read: a picture for seat ``s`` is the same
whatever the other seats hold (only their card counts show). The height depends on the number
of players and ``show_all`` only (:func:`frame_size`), so the frames of a game make a video.
The same state gives the same pixels. Card faces are drawn here (suit symbols as shapes,
ranks in Pillow's built-in font, ``ImageFont.load_default(size=...)``): no files, nothing
downloaded. One frame takes a few milliseconds.
"""

from __future__ import annotations

from functools import cache, lru_cache

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw, ImageFont

from president_env.core.actions import ActionLayout, Kind
from president_env.core.cards import NUM_SUITS, RANK_NAMES
from president_env.core.constants import JOKER, NUM_CARDS
from president_env.core.engine import PHASE_DONE, PHASE_EXCHANGE, State
from president_env.core.rules import Rules
from president_env.render import words as view
from president_env.render.words import PHASE_NAMES, check_view, describe_pile, ordinal, title_name

WIDTH = 640
"""Width of every picture, in pixels."""

MARGIN = 8
HEADER_H = 30
PANEL_H = 78
PILE_H = 140
HAND_H = 114
ROW_H = 50
"""Height of one hand row with ``show_all``."""

Color = tuple[int, int, int]
FELT: Color = (24, 96, 62)
FELT_DARK: Color = (14, 62, 40)
FELT_LIGHT: Color = (32, 112, 74)
PANEL: Color = (246, 244, 236)
PANEL_PASSED: Color = (206, 208, 200)
INK: Color = (28, 28, 28)
GREY: Color = (110, 110, 110)
WHITE: Color = (255, 255, 255)
GOLD: Color = (250, 196, 40)
VIEW: Color = (90, 160, 250)
RED: Color = (200, 28, 40)
BLACK: Color = (20, 20, 20)
JOKER_INK: Color = (128, 40, 170)
BACK: Color = (40, 70, 160)
BACK_INNER: Color = (80, 115, 200)
BADGES: dict[str, Color] = {
    "TO ACT": GOLD,
    "PASSED": (150, 150, 150),
    "TOP PLAY": (90, 150, 230),
    "GIVES": (240, 140, 50),
}
PLACE_BADGE: Color = (70, 170, 90)

SUIT_INK: tuple[Color, ...] = (BLACK, RED, RED, BLACK)
"""Ink of clubs, diamonds, hearts, spades."""
SUPERSAMPLE = 4
"""Suit symbols are drawn this many times larger, then shrunk (smooth edges)."""


# ---------------------------------------------------------------------------- sizes
def _grid(num_players: int) -> tuple[int, int]:
    """(columns, rows) of the seat panels."""
    if num_players <= 4:
        return num_players, 1
    return (num_players + 1) // 2, 2


def frame_size(rules: Rules, show_all: bool = False) -> tuple[int, int]:
    """``(height, width)`` of the pictures of a table under ``rules``."""
    p = rules.num_players
    rows = _grid(p)[1]
    hands = p * ROW_H + 28 if show_all else HAND_H
    height = HEADER_H + MARGIN + rows * (PANEL_H + MARGIN) + PILE_H + hands + MARGIN
    return height, WIDTH


# ---------------------------------------------------------------------------- fonts, suits
@cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's built-in scalable font (no file) at ``size`` pixels."""
    return ImageFont.load_default(size=size)


def _suit_polygons(
    suit: int, s: float
) -> tuple[list[tuple[float, float, float]], list[list[tuple[float, float]]]]:
    """Circles ``(cx, cy, r)`` and polygons of one suit symbol in an ``s x s`` box."""
    c = s / 2
    stem = [(c, c + s * 0.05), (c - s * 0.2, s), (c + s * 0.2, s)]
    if suit == 1:  # diamond
        return [], [[(c, 0), (c + s * 0.4, c), (c, s), (c - s * 0.4, c)]]
    if suit == 2:  # heart
        r = s * 0.26
        return [(c - r, s * 0.3, r), (c + r, s * 0.3, r)], [
            [(c - 2 * r + s * 0.015, s * 0.38), (c + 2 * r - s * 0.015, s * 0.38), (c, s)]
        ]
    if suit == 3:  # spade
        r = s * 0.24
        return [(c - r, s * 0.58, r), (c + r, s * 0.58, r)], [
            [(c, 0), (c - 2 * r + s * 0.01, s * 0.52), (c + 2 * r - s * 0.01, s * 0.52)],
            stem,
        ]
    r = s * 0.22  # club
    return [(c, s * 0.24, r), (c - s * 0.26, s * 0.56, r), (c + s * 0.26, s * 0.56, r)], [stem]


@cache
def _suit_mask(suit: int, size: int) -> Image.Image:
    """An ``L`` mask of a suit symbol (``suit`` 0-3) or a joker star (-2), ``size`` pixels."""
    big = size * SUPERSAMPLE
    img = Image.new("L", (big, big), 0)
    d = ImageDraw.Draw(img)
    if suit == -2:
        c = big / 2
        angles = np.pi / 2 + np.arange(10) * np.pi / 5
        radii = np.where(np.arange(10) % 2 == 0, c, c * 0.42)
        d.polygon([(c + r * np.cos(a), c - r * np.sin(a)) for a, r in zip(angles, radii)], 255)
    else:
        circles, polygons = _suit_polygons(suit, big)
        for cx, cy, r in circles:
            d.ellipse([cx - r, cy - r, cx + r, cy + r], 255)
        for poly in polygons:
            d.polygon(poly, 255)
    return img.resize((size, size), Image.Resampling.LANCZOS)


@lru_cache(maxsize=4096)
def _text_sprite(text: str, size: int, anchor: str) -> tuple[Image.Image, int, int]:
    """``text`` rendered once as an ``L`` mask, with its offset from the anchor point."""
    font = _font(size)
    left, top, right, bottom = (int(v) for v in font.getbbox(text, anchor=anchor))
    mask = Image.new("L", (max(right - left, 1), max(bottom - top, 1)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, fill=255, font=font, anchor=anchor)
    return mask, left, top


@lru_cache(maxsize=512)
def _card_sprite(face: tuple[int, int], w: int, h: int) -> tuple[Image.Image, Image.Image]:
    """A card face (RGB) and its rounded outline (mask): ``face`` is ``(rank, suit)``, suit -1
    unknown, rank 13 the joker."""
    rank, suit = face
    card = Canvas((w, h), WHITE)
    shape = Image.new("L", (w, h), 0)
    radius = max(3, w // 10)
    ImageDraw.Draw(shape).rounded_rectangle([0, 0, w - 1, h - 1], radius=radius, fill=255)
    card.d.rounded_rectangle([0, 0, w - 1, h - 1], radius=radius, outline=(90, 90, 90))
    if rank == 13:
        ink, text = JOKER_INK, "JK"
    else:
        ink, text = (SUIT_INK[suit] if suit >= 0 else GREY), RANK_NAMES[rank]
    size = round(h * 0.24) - (1 if len(text) > 1 else 0)
    card.text((3, 2), text, size, ink)
    small = round(h * 0.17)
    if rank == 13:
        card.symbol(-2, 3, size + 5, small, JOKER_INK)
        card.symbol(-2, w // 2 - small, h // 2 - 2, 2 * small, JOKER_INK)
    elif suit >= 0:
        card.symbol(suit, 3, size + 5, small, ink)
        card.symbol(suit, w // 2 - small + 3, h // 2, 2 * small - 4, ink)
    else:
        card.text((w // 2 + 3, h // 2 + 8), "?", 2 * small, GREY, "mm")
    return card.img, shape


@cache
def _back_sprite() -> tuple[Image.Image, Image.Image]:
    """A small card back (RGB) and its outline (mask)."""
    w, h = 14, 20
    back = Image.new("RGB", (w, h), BACK)
    d = ImageDraw.Draw(back)
    d.rounded_rectangle([0, 0, w - 1, h - 1], radius=2, outline=WHITE)
    d.rectangle([3, 3, w - 4, h - 4], fill=BACK_INNER)
    shape = Image.new("L", (w, h), 0)
    ImageDraw.Draw(shape).rounded_rectangle([0, 0, w - 1, h - 1], radius=2, fill=255)
    return back, shape


class Canvas:
    """A Pillow image and its drawing context, with text, suit symbols and cards pasted from
    cached sprites (so a frame costs a few milliseconds)."""

    def __init__(self, size: tuple[int, int], background: Color) -> None:
        self.img = Image.new("RGB", size, background)
        self.d = ImageDraw.Draw(self.img)

    def text(
        self, xy: tuple[int, int], text: str, size: int, fill: Color, anchor: str = "la"
    ) -> None:
        """``text`` at ``xy`` (Pillow's ``anchor``) in the built-in font at ``size`` pixels."""
        mask, dx, dy = _text_sprite(text, size, anchor)
        x, y = xy[0] + dx, xy[1] + dy
        self.img.paste(fill, (x, y, x + mask.width, y + mask.height), mask)

    def text_width(self, text: str, size: int) -> int:
        return int(_font(size).getlength(text))

    def symbol(self, suit: int, x: int, y: int, size: int, ink: Color) -> None:
        """A suit symbol (0-3) or a joker star (-2) in a ``size`` square at ``(x, y)``."""
        self.img.paste(ink, (x, y, x + size, y + size), _suit_mask(suit, size))

    def card(self, face: tuple[int, int], x: int, y: int, w: int, h: int) -> None:
        sprite, shape = _card_sprite(face, w, h)
        self.img.paste(sprite, (x, y), shape)

    def card_row(
        self,
        faces: list[tuple[int, int]],
        x: int,
        y: int,
        room: int,
        size: tuple[int, int],
        center: bool = False,
    ) -> None:
        """Cards side by side, overlapped to fit ``room`` pixels (at most a card's width apart)."""
        w, h = size
        if not faces:
            return
        step = w + 4 if len(faces) == 1 else min(w + 4, (room - w) / (len(faces) - 1))
        if center:
            x += int((room - (w + step * (len(faces) - 1))) / 2)
        for i, face in enumerate(faces):
            self.card(face, int(x + i * step), y, w, h)

    def card_backs(self, n: int, x: int, y: int, room: int) -> None:
        """``n`` small card backs overlapped within ``room`` pixels."""
        sprite, shape = _back_sprite()
        step = min(7.0, (room - sprite.width) / max(n - 1, 1))
        for i in range(max(n, 0)):
            self.img.paste(sprite, (int(x + i * step), y), shape)

    def badge(self, right: int, y: int, text: str, fill: Color) -> None:
        """A rounded label ending at ``right``."""
        tw = self.text_width(text, 12)
        self.d.rounded_rectangle([right - tw - 12, y, right, y + 17], radius=8, fill=fill)
        self.text((right - 6, y + 9), text, 12, INK, "rm")


# ---------------------------------------------------------------------------- cards
def _card_list(counts: npt.ArrayLike) -> list[int]:
    """Card ids of a hand, lowest first, a card repeated as often as it is held."""
    c = np.asarray(counts)
    return [int(k) for k in np.repeat(np.arange(NUM_CARDS), np.maximum(c, 0))]


def _face_of(card: int) -> tuple[int, int]:
    return (13, -1) if card == JOKER else (card // NUM_SUITS, card % NUM_SUITS)


# ---------------------------------------------------------------------------- parts
def _seat_badge(
    rules: Rules, state: State, g: int, q: int, current: int
) -> tuple[str, Color] | None:
    """The one badge of seat ``q``: to act (or asks to make, ``president_asks``), cards to give,
    its place once out, passed, or top play."""
    place = int(state.place[g, q])
    gives = int(state.to_return[g, q]) if int(state.phase[g]) == PHASE_EXCHANGE else 0
    if q == current:
        asks = int(state.asks_left[g]) if rules.president_asks else 0
        if asks > 0:
            return f"ASKS {asks}", BADGES["GIVES"]
        return f"GIVES {gives}" if gives > 0 else "TO ACT", BADGES["TO ACT"]
    if gives > 0:
        return f"GIVES {gives}", BADGES["GIVES"]
    if place >= 0:
        over = int(state.phase[g]) == PHASE_DONE
        return ordinal(place) if over else f"OUT {ordinal(place)}", PLACE_BADGE
    if state.passed[g, q]:
        return "PASSED", BADGES["PASSED"]
    if int(state.last_player[g]) == q and state.pile_kind[g] != Kind.PASS:
        return "TOP PLAY", BADGES["TOP PLAY"]
    return None


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _seat_panel(
    c: Canvas, box: tuple[int, int, int, int], rules: Rules, state: State, g: int, q: int, view: int
) -> None:
    """Panel of seat ``q``: name, badge, title, score, cards left."""
    x0, y0, x1, y1 = box
    current = int(state.current[g])
    passed = bool(state.passed[g, q]) and q != current and state.place[g, q] < 0
    frame = GOLD if q == current else VIEW if q == view else None
    fill = PANEL_PASSED if passed else PANEL
    c.d.rounded_rectangle(box, radius=8, fill=fill, outline=frame, width=3 if frame else 1)
    c.text((x0 + 9, y0 + 6), f"Seat {q}", 15, INK)
    badge = _seat_badge(rules, state, g, q, current)
    if badge is not None:
        c.badge(x1 - 7, y0 + 6, *badge)
    title = int(state.title[g, q])
    name = title_name(title, rules.num_players) if title >= 0 else "no title"
    c.text((x0 + 9, y0 + 27), name, 12, INK if title >= 0 else GREY)
    c.text((x1 - 8, y0 + 27), _plural(int(state.scores[g, q]), "pt"), 12, INK, "ra")
    left = int(state.hands[g, q].sum())
    count = _plural(left, "card")
    c.card_backs(left, x0 + 9, y0 + 48, max(x1 - x0 - c.text_width(count, 12) - 26, 40))
    c.text((x1 - 8, y0 + 52), count, 12, INK, "ra")


def _header(c: Canvas, rules: Rules, state: State, g: int) -> None:
    c.d.rectangle([0, 0, WIDTH - 1, HEADER_H - 1], fill=FELT_DARK)
    preset = f" ({rules.preset_name})" if rules.preset_name else ""
    decks = "" if rules.num_decks == 1 else f", {rules.num_decks} decks"
    left = f"President{preset} - {rules.num_players} players{decks}"
    c.text((MARGIN, HEADER_H // 2), left, 15, WHITE, "lm")
    phase = int(state.phase[g])
    right = f"deal {int(state.deal[g]) + 1} of {rules.deals} - {PHASE_NAMES[phase]}"
    if phase != PHASE_DONE:
        right += f" - seat {int(state.current[g])} to act"
    c.text((WIDTH - MARGIN, HEADER_H // 2), right, 14, WHITE, "rm")


def _pile_faces(state: State, g: int, pile_cards: npt.ArrayLike | None) -> list[tuple[int, int]]:
    """Faces of the top play: its exact cards if given and consistent, else the known ranks."""
    kind, size = int(state.pile_kind[g]), int(state.pile_size[g])
    rank = int(state.pile_rank[g])
    if kind == Kind.PASS:
        return []
    if pile_cards is not None:
        cards = np.asarray(pile_cards)
        if cards.shape == (NUM_CARDS,) and int(cards.sum()) == size:
            return [_face_of(k) for k in _card_list(cards)]
    if kind == Kind.JOKERS:
        return [(13, -1)] * size
    if kind == Kind.RUN:
        return [(rank + i, -1) for i in range(size)]
    return [(rank, -1)] * size


def _pile_text(rules: Rules, state: State, g: int, layout: ActionLayout | None) -> str:
    phase = int(state.phase[g])
    if phase == PHASE_EXCHANGE:
        if rules.president_asks and state.asks_left[g] > 0:
            return f"Card exchange - seat {int(state.current[g])} asks for a card"
        return f"Card exchange - seat {int(state.current[g])} chooses cards to give"
    if int(state.pile_kind[g]) == Kind.PASS:
        if phase == PHASE_DONE:
            return "Game over"
        return f"Pile empty - seat {int(state.current[g])} leads"
    return describe_pile(rules, state, g, None, layout)


def _pile(
    c: Canvas,
    rules: Rules,
    state: State,
    g: int,
    y: int,
    pile_cards: npt.ArrayLike | None,
    layout: ActionLayout | None,
) -> None:
    """The pile area: cards, the play's name, the rank order and the passes."""
    faces = _pile_faces(state, g, pile_cards)
    if faces:
        c.card_row(faces, 150, y + 8, WIDTH - 300, (50, 72), center=True)
    else:
        box = [WIDTH // 2 - 25, y + 8, WIDTH // 2 + 25, y + 80]
        c.d.rounded_rectangle(box, radius=6, outline=FELT_LIGHT, width=2)
    c.text((WIDTH // 2, y + 100), _pile_text(rules, state, g, layout), 15, WHITE, "mm")
    c.text((MARGIN + 4, y + 8), "Pile", 14, WHITE)
    if state.revolution[g]:
        c.d.rounded_rectangle([MARGIN, y + 30, MARGIN + 124, y + 52], radius=6, fill=RED)
        c.text((MARGIN + 62, y + 41), "REVOLUTION", 14, WHITE, "mm")
        c.text((MARGIN + 4, y + 58), "order reversed:", 12, WHITE)
        c.text((MARGIN + 4, y + 73), "2 low ... 3 high", 12, WHITE)
    else:
        c.text((MARGIN + 4, y + 34), "usual order:", 12, WHITE)
        c.text((MARGIN + 4, y + 49), "3 low ... 2 high", 12, WHITE)
    _variants(c, rules, state, g, y)
    passed = [q for q in range(rules.num_players) if state.passed[g, q] and state.place[g, q] < 0]
    if passed and int(state.phase[g]) != PHASE_DONE:
        right = WIDTH - MARGIN - 4
        c.text((right, y + 8), "Passed:", 14, WHITE, "ra")
        for i in range(0, len(passed), 3):
            line = ", ".join(f"seat {q}" for q in passed[i : i + 3])
            c.text((right, y + 30 + 5 * i), line, 12, WHITE, "ra")


def _variants(c: Canvas, rules: Rules, state: State, g: int, y: int) -> None:
    """What the further variants make public, each only with its option: a pending revolution,
    the direction of play and the row of singles (left, under the rank order), the asks (right)."""
    x, line = MARGIN + 4, y + 90
    if rules.revolution_timing == "next_trick" and state.pending[g]:
        c.d.rounded_rectangle([MARGIN, line, MARGIN + 124, line + 16], radius=6, fill=RED)
        c.text((MARGIN + 62, line + 8), "PENDING: next trick", 12, WHITE, "mm")
        line += 19
    if rules.western_revolution:
        word = view.direction_word(state, g)
        step = "-1" if word == "right" else "+1"
        c.text((x, line), f"to the {word} (seat {step})", 12, GOLD if word == "right" else WHITE)
        row = view.row_text(rules, state, g)
        if row is not None:
            c.text((x, line + 15), f"row of singles: {row}", 12, WHITE)
    asks = view.asks_made(rules, state, g)
    lines = [("Asks:", WHITE)] if asks else []
    lines += [(f"{n} held", WHITE) if held else (f"{n} not held", PANEL_PASSED) for n, held in asks]
    for i, (text, ink) in enumerate(lines):
        c.text((WIDTH - MARGIN - 4, y + 90 + 15 * i), text, 12, ink, "ra")


def _winner(state: State, g: int) -> int:
    """The best seat: highest score, ties broken by the last deal's place (as ``standings``)."""
    key = -state.scores[g].astype(np.int64) * 16 + np.maximum(state.title[g], 0)
    return int(np.argmin(key))


def _hands(
    c: Canvas, rules: Rules, state: State, g: int, y: int, seat: int | None, show_all: bool
) -> None:
    """The hand of ``seat`` (default: the seat to act), or one row per seat with ``show_all``."""
    current = int(state.current[g])
    c.d.rectangle([0, y, WIDTH - 1, c.img.height - 1], fill=FELT_LIGHT)
    if show_all:
        c.text((MARGIN + 4, y + 6), "All hands", 14, WHITE)
        for q in range(rules.num_players):
            yq = y + 26 + q * ROW_H
            c.text((MARGIN + 4, yq + 20), f"Seat {q}", 13, GOLD if q == current else WHITE, "lm")
            faces = [_face_of(k) for k in _card_list(state.hands[g, q])]
            c.card_row(faces, 64, yq + 2, WIDTH - 64 - MARGIN, (33, 46))
        return
    shown = seat if seat is not None else current
    if shown < 0:
        winner = _winner(state, g)
        text = f"Game over - winner: seat {winner} ({_plural(int(state.scores[g, winner]), 'pt')})"
        c.text((WIDTH // 2, y + HAND_H // 2), text, 16, WHITE, "mm")
        return
    cards = _card_list(state.hands[g, shown])
    label = f"Hand of seat {shown} - {_plural(len(cards), 'card')}"
    c.text((MARGIN + 4, y + 6), label + (" - to act" if shown == current else ""), 14, WHITE)
    if not cards:
        c.text((MARGIN + 4, y + 40), "(no cards)", 14, WHITE)
    c.card_row([_face_of(k) for k in cards], MARGIN, y + 28, WIDTH - 2 * MARGIN, (50, 72))


# ---------------------------------------------------------------------------- the picture
def draw_table(
    rules: Rules,
    state: State,
    game: int = 0,
    *,
    seat: int | None = None,
    show_all: bool = False,
    pile_cards: npt.ArrayLike | None = None,
    layout: ActionLayout | None = None,
) -> npt.NDArray[np.uint8]:
    """The table of game ``game`` as an ``H x W x 3`` uint8 array (module docstring).

    ``seat``: whose hand is face up (default: the seat to act); ``show_all``: every hand;
    ``pile_cards``: the exact cards of the top play (53 counts), when known; ``layout``: the
    rules' action layout, if the caller has one (saves building it).
    """
    check_view(rules, state, game, seat)
    height, width = frame_size(rules, show_all)
    c = Canvas((width, height), FELT)
    _header(c, rules, state, game)
    cols, rows = _grid(rules.num_players)
    panel_w = (WIDTH - MARGIN * (cols + 1)) // cols
    view = seat if seat is not None else -1
    for q in range(rules.num_players):
        x = MARGIN + (q % cols) * (panel_w + MARGIN)
        y = HEADER_H + MARGIN + (q // cols) * (PANEL_H + MARGIN)
        _seat_panel(c, (x, y, x + panel_w, y + PANEL_H), rules, state, game, q, view)
    pile_y = HEADER_H + MARGIN + rows * (PANEL_H + MARGIN)
    _pile(c, rules, state, game, pile_y, pile_cards, layout)
    _hands(c, rules, state, game, pile_y + PILE_H, seat, show_all)
    return np.asarray(c.img, dtype=np.uint8)
