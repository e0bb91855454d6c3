"""The game logs of the UECda standard server ``tndhms`` 0.29: :func:`read_log`.

With ``FLAG_LOGGER yes`` the server writes one log per match, ``logs/YYYYMMDDhhmmss.log``. A
header of ``%-----%KEY% value`` lines (``hostname``, ``TIME_START``, ``palyer_name`` (sic) with
the five names in connect order, every rule setting, ``RANDOM_SEED``) comes first; then seven
lines ``%NNNNN%tag% value`` per game, ``NNNNN`` counting the games from ``00000``; then the
footer, ``%-----%TIME_END% ...`` and ``%-----%TOTAL_POINT% p0 p1 p2 p3 p4``.

================  ===========================================================================
tag               value
================  ===========================================================================
``mibun``         the class of players 0..4 (0 daifugo .. 4 daihinmin); ``22222`` in a
                  class-reset game (the first, then one every ``FLASH_MIBUN_NUMBER`` games)
``seat``          the player in seats 0..4; play goes seat 0, 1, 2, ...
``palyer_cards``  the five hands of players 0..4 as dealt, before the exchange
``change_cards``  ``NULL``, or one ``<from><to><cards>EE`` per step: daihinmin to daifugo and
                  hinmin to fugo (the strongest cards, taken by the server), then the
                  daifugo's and the fugo's returns; the cards that moved
``play``          every submission in order, ``<player><cards>EE``, ``<player>EE`` a pass;
                  logged *before* the server checks it (see below)
``result``        the players from daifugo to daihinmin
``points``        the running totals of players 0..4 (+5, 4, 3, 2, 1 by place)
================  ===========================================================================

Cards
-----
A card is two characters: the row of the server's card table, ``S H D C`` (spades, hearts,
diamonds, clubs), and its column, ``3 4 5 6 7 8 9 T J Q K A 2``. Cards are listed in table
order (row, then column), not in the order played. The joker is ``J3`` in a hand (row 4,
column 1, where the server keeps it). In a play it stands at the cell it replaces, written
``K L M N`` for the S, H, D, C row, or ``J`` for row 4 (the fifth card of a five-card set), and
the column; ``x`` is a column beyond the ranks, below the 3 (joker-3-4) or above the 2. An
``x`` before the other cards of its row is below the 3, one after them above the 2; an ``x``
alone in its row (the lone joker, which the kit's client sends at either end of row S) has a
column the log does not show.

What :func:`read_log` gives
---------------------------
A :class:`UecdaLog` of :class:`UecdaGame`, each with :class:`UecdaMove` s. Every set of cards is
53 counts (int8, read-only) in the engine's card ids (:mod:`president_env.core.cards`: ``rank *
4 + suit``, ranks ``0`` = 3 .. ``12`` = 2, suits clubs, diamonds, hearts, spades, the joker
``52``). A move's ``joker_as`` holds, per joker, the ``(rank, suit)`` cell it stands in: rank
``0..12``, :data:`BELOW_THREE` or :data:`ABOVE_TWO` for an ``x``, ``None`` for an ``x`` whose
column the log does not show; suit ``0..3``, :data:`NO_SUIT` for row 4.

**Rejected submissions.** The server counts a submission it refuses (an illegal play, cards
not held) as a pass, but its log does not say which: a move here is what was *submitted*. The
server's ``-d`` trace tells them apart (``tests/data/uecda/README.md``).

**Bad input** raises :class:`UecdaLogError`, a ``ValueError`` naming the line (1-based) and
what is wrong with it. The reader checks the form of every line, not the rules of the game.
"""

from __future__ import annotations

import gzip
import os
import re
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from president_env.core.cards import card_id
from president_env.core.constants import JOKER, NUM_CARDS, NUM_SUITS

Counts = npt.NDArray[np.int8]
Cell = tuple[int | None, int]
"""Where a joker stands: ``(rank, suit)``."""

BELOW_THREE = -1
"""The rank of a joker written ``x`` before the other cards of its row (column 0, below the 3)."""
ABOVE_TWO = 13
"""The rank of a joker written ``x`` after the other cards of its row (column 14, above the 2)."""
NO_SUIT = -1
"""The suit of a joker in row 4 (``J``): the fifth card of a five-card set."""
NUM_PLAYERS = 5
GAME_TAGS = ("mibun", "seat", "palyer_cards", "change_cards", "play", "result", "points")
"""The lines of one game, in the order the server writes them."""
FOOTER = ("TIME_END", "TOTAL_POINT")
RESET_CLASSES = "22222"
PLACE_POINTS = (5, 4, 3, 2, 1)
"""Points for daifugo, fugo, heimin, hinmin, daihinmin."""

_ROWS = "SHDC"
_JOKER_ROWS = "KLMNJ"
_COLUMNS = "x3456789TJQKA2x"
_ROW_OF = {c: i for i, c in enumerate(_ROWS)} | {c: i for i, c in enumerate(_JOKER_ROWS)}
_COLUMN_OF = {c: i for i, c in enumerate(_COLUMNS[:-1])}
_LINE = re.compile(r"%(\d{5}|-----)%([^%]+)%(.*)")
_MOVE = re.compile(r"([0-9])(.*)EE")
_STEP = re.compile(r"([0-9])([0-9])(.*)EE")


class UecdaLogError(ValueError):
    """A log that cannot be read: ``line`` (1-based) is the line at fault (``None`` when the
    fault is the whole file's), ``reason`` the message without it."""

    def __init__(self, line: int | None, reason: str) -> None:
        self.line, self.reason = line, reason
        super().__init__(f"UECda log{'' if line is None else f' line {line}'}: {reason}")


@dataclass(frozen=True, eq=False)
class UecdaMove:
    """One submission: ``player`` sent ``cards`` (53 counts; ``None`` for a pass), the joker
    standing in the ``joker_as`` cells (empty without a joker)."""

    player: int
    cards: Counts | None
    joker_as: tuple[Cell, ...] = ()

    @property
    def is_pass(self) -> bool:
        return self.cards is None


@dataclass(frozen=True, eq=False)
class UecdaGame:
    """One game of a match.

    ``number`` counts from 0 as the log does (the server's own count is one more);
    ``classes[p]`` is player p's class for this game (0 daifugo .. 4 daihinmin), ``None`` in a
    class-reset game; ``seats[s]`` the player in seat s; ``hands[p]`` player p's hand before
    the exchange; ``exchange`` the ``(giver, receiver, cards)`` steps in log order (empty
    without an exchange); ``moves`` every submission; ``result`` the players from daifugo to
    daihinmin; ``points[p]`` player p's running total after this game."""

    number: int
    classes: tuple[int, ...] | None
    seats: tuple[int, ...]
    hands: tuple[Counts, ...]
    exchange: tuple[tuple[int, int, Counts], ...]
    moves: tuple[UecdaMove, ...]
    result: tuple[int, ...]
    points: tuple[int, ...]

    @property
    def reset(self) -> bool:
        """Whether this is a class-reset game (``mibun`` ``22222``: no classes, no exchange)."""
        return self.classes is None


@dataclass(frozen=True, eq=False)
class UecdaLog:
    """One match: ``settings`` is every header line (``KEY`` -> value, e.g. ``"RULE_SHIBARI"``
    -> ``"YES"``), ``players`` the five names (player 0 first), ``seed`` the ``RANDOM_SEED``,
    ``total_points`` the footer's ``TOTAL_POINT``."""

    settings: dict[str, str]
    players: tuple[str, ...]
    seed: int
    games: tuple[UecdaGame, ...]
    total_points: tuple[int, ...]


def cell_id(cell: tuple[int, int]) -> int:
    """The engine's card id of a natural card's cell of the server's tables (row S H D C,
    column 1..13 for the ranks 3..2)."""
    row, column = cell
    return card_id(column - 1, NUM_SUITS - 1 - row)


def read_log(path: str | os.PathLike[str]) -> UecdaLog:
    """Read a ``tndhms`` game log, plain or gzipped (told by its first bytes)."""
    data = Path(path).read_bytes()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as e:
            raise UecdaLogError(None, f"{os.fspath(path)!r} is not a whole gzip file: {e}") from None
    return parse_log(data.decode("utf-8", errors="replace"))


def parse_log(text: str) -> UecdaLog:
    """Read the text of a ``tndhms`` game log."""
    entries = _entries(text)
    pos, settings, lines = _header(entries)
    end = entries[pos - 1][0] if pos else entries[0][0]
    players = tuple(settings.get("palyer_name", "").split())
    if len(players) != NUM_PLAYERS:
        raise UecdaLogError(lines.get("palyer_name", end), "the header names "
                            f"{len(players)} players (palyer_name), not {NUM_PLAYERS}")
    seed_text = settings.get("RANDOM_SEED", "")
    if not seed_text.isdigit():
        raise UecdaLogError(lines.get("RANDOM_SEED", end),
                            f"RANDOM_SEED is {seed_text!r}, not a number")
    games: list[UecdaGame] = []
    cache: dict[str, UecdaMove] = {}
    while pos < len(entries) and entries[pos][1] is not None:
        games.append(_game(entries, pos, len(games), cache))
        pos += len(GAME_TAGS)
    total = _footer(entries, pos)
    return UecdaLog(settings, players, int(seed_text), tuple(games), total)


def parse_move(token: str) -> UecdaMove:
    """One submission of a ``play`` line, ``<player><cards>EE`` (``"0KKCKEE"``: player 0 plays
    the joker as the king of spades and the king of clubs)."""
    m = _MOVE.fullmatch(token)
    if m is None:
        raise ValueError(f"{token!r} is not <player><cards>EE")
    player = _player(m.group(1))
    if not m.group(2):
        return UecdaMove(player, None)
    cards, joker_as = _read_cards(m.group(2))
    return UecdaMove(player, cards, joker_as)


def format_move(move: UecdaMove) -> str:
    """The log's token of a submission (the inverse of :func:`parse_move`)."""
    if move.cards is None:
        return f"{move.player}EE"
    counts = np.asarray(move.cards)
    if counts.shape != (NUM_CARDS,) or int(counts[JOKER]) != len(move.joker_as):
        raise ValueError(f"a move's cards are {NUM_CARDS} counts with one joker per joker_as "
                         f"cell; got shape {counts.shape} and {len(move.joker_as)} cells")
    cells = [
        (NUM_SUITS - 1 - card % NUM_SUITS, card // NUM_SUITS + 1)
        for card in map(int, np.flatnonzero(counts[:JOKER])) for _ in range(int(counts[card]))
    ]
    text = {cell: _ROWS[cell[0]] + _COLUMNS[cell[1]] for cell in cells}
    for rank, suit in move.joker_as:
        row = 4 if suit == NO_SUIT else NUM_SUITS - 1 - suit
        column = 0 if rank is None else rank + 1
        if not 0 <= row <= 4 or not 0 <= column < len(_COLUMNS):
            raise ValueError(f"joker cell {(rank, suit)} is off the server's table")
        text[(row, column)] = _JOKER_ROWS[row] + _COLUMNS[column]
    return f"{move.player}{''.join(text[cell] for cell in sorted(text))}EE"


Entry = tuple[int, str | None, str, str]
"""A line: its number, the game number (``None`` in the header and footer), tag, value."""


def _entries(text: str) -> list[Entry]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    out: list[Entry] = []
    for no, line in enumerate(lines, 1):
        m = _LINE.fullmatch(line.rstrip("\r"))
        if m is None:
            raise UecdaLogError(no, f"not a log line %NNNNN%tag% value: {line[:60]!r}")
        number, tag, value = m.groups()
        out.append((no, None if number == "-----" else number, tag, value.strip()))
    if not out:
        raise UecdaLogError(None, "the log is empty")
    return out


def _header(entries: list[Entry]) -> tuple[int, dict[str, str], dict[str, int]]:
    """The header's settings and the line of each; the position of the first game line."""
    settings: dict[str, str] = {}
    lines: dict[str, int] = {}
    pos = 0
    while pos < len(entries) and entries[pos][1] is None and entries[pos][2] not in FOOTER:
        no, _, key, value = entries[pos]
        if key in settings:
            raise UecdaLogError(no, f"the header gives {key} twice (first on line {lines[key]})")
        settings[key], lines[key] = value, no
        pos += 1
    return pos, settings, lines


def _footer(entries: list[Entry], pos: int) -> tuple[int, ...]:
    """The footer's TOTAL_POINT; every line after the games must be the footer's, in order."""
    rest = entries[pos:]
    for i, (no, number, tag, _) in enumerate(rest):
        if number is not None:
            raise UecdaLogError(no, f"a game line after the footer began (line {rest[0][0]})")
        if i >= len(FOOTER) or tag != FOOTER[i]:
            expected = FOOTER[i] if i < len(FOOTER) else "the end of the log"
            raise UecdaLogError(no, f"expected {expected} in the footer, got {tag!r}")
    if len(rest) < len(FOOTER):
        last = entries[-1][0]
        raise UecdaLogError(last, f"the log ends without its {FOOTER[len(rest)]} footer line "
                            "(a match cut short?)")
    return _points(rest[1][0], rest[1][3])


def _game(entries: list[Entry], pos: int, number: int, cache: dict[str, UecdaMove]) -> UecdaGame:
    """Game ``number`` from its seven lines at ``entries[pos:]``."""
    expected = f"{number:05d}"
    values: list[tuple[int, str]] = []
    for j, tag in enumerate(GAME_TAGS):
        if pos + j >= len(entries):
            raise UecdaLogError(entries[-1][0], f"the log ends inside game {expected}: its "
                                f"{tag!r} line is missing")
        no, got, got_tag, value = entries[pos + j]
        if got is None:
            raise UecdaLogError(no, f"game {expected} is cut short: {got_tag} where its "
                                f"{tag!r} line should be")
        if got != expected:
            raise UecdaLogError(no, f"game {got} out of order: expected game {expected} "
                                "(games run 00000, 00001, ... each in seven lines)")
        if got_tag != tag:
            raise UecdaLogError(no, f"expected the {tag!r} line of game {expected}, got "
                                f"{got_tag!r}")
        values.append((no, value))
    (mi, mibun), (se, seat), (ha, hands), (ch, change), (pl, play), (re_, res), (po, pts) = values
    return UecdaGame(
        number=number,
        classes=None if mibun == RESET_CLASSES else _permutation(mi, mibun, "mibun"),
        seats=_permutation(se, seat, "seat"),
        hands=_hands(ha, hands),
        exchange=_exchange(ch, change),
        moves=_moves(pl, play, cache),
        result=_permutation(re_, res, "result"),
        points=_points(po, pts),
    )


def _permutation(no: int, text: str, tag: str) -> tuple[int, ...]:
    if len(text) != NUM_PLAYERS or sorted(text) != [str(p) for p in range(NUM_PLAYERS)]:
        raise UecdaLogError(no, f"{tag} is {text!r}, not the five players 0-4 in some order"
                            + (f" (or {RESET_CLASSES})" if tag == "mibun" else ""))
    return tuple(int(c) for c in text)


def _points(no: int, text: str) -> tuple[int, ...]:
    parts = text.split()
    if len(parts) != NUM_PLAYERS or not all(p.isdigit() for p in parts):
        raise UecdaLogError(no, f"points are {text!r}, not five whole numbers")
    return tuple(int(p) for p in parts)


def _player(char: str) -> int:
    if not char.isdigit() or int(char) >= NUM_PLAYERS:
        raise ValueError(f"player {char!r} is not 0-4")
    return int(char)


def _hands(no: int, text: str) -> tuple[Counts, ...]:
    parts = text.split()
    if len(parts) != NUM_PLAYERS:
        raise UecdaLogError(no, f"{len(parts)} hands, not {NUM_PLAYERS}")
    hands = []
    for p, part in enumerate(parts):
        try:
            cards, joker_as = _read_cards(part)
        except ValueError as e:
            raise UecdaLogError(no, f"the hand of player {p}: {e}") from None
        if joker_as not in ((), ((0, NO_SUIT),)):
            raise UecdaLogError(no, f"the hand of player {p} has a joker that is not J3")
        hands.append(cards)
    return tuple(hands)


def _exchange(no: int, text: str) -> tuple[tuple[int, int, Counts], ...]:
    if text == "NULL":
        return ()
    steps = []
    for k, token in enumerate(text.split()):
        m = _STEP.fullmatch(token)
        try:
            if m is None:
                raise ValueError("not <from><to><cards>EE")
            steps.append((_player(m.group(1)), _player(m.group(2)), _read_cards(m.group(3))[0]))
        except ValueError as e:
            raise UecdaLogError(no, f"change_cards step #{k} {token!r}: {e}") from None
    return tuple(steps)


def _moves(no: int, text: str, cache: dict[str, UecdaMove]) -> tuple[UecdaMove, ...]:
    """The submissions of a ``play`` line (a token seen before gives the same, immutable
    move)."""
    moves = []
    for k, token in enumerate(text.split()):
        move = cache.get(token)
        if move is None:
            try:
                move = cache[token] = parse_move(token)
            except ValueError as e:
                raise UecdaLogError(no, f"play token #{k} (from 0) {token!r}: {e}") from None
        moves.append(move)
    return tuple(moves)


def _read_cards(body: str) -> tuple[Counts, tuple[Cell, ...]]:
    """The 53 counts (read-only) and the joker cells of the cards ``body`` (pairs of
    characters in table order)."""
    if len(body) % 2:
        raise ValueError(f"cards {body!r} are an odd number of characters")
    pairs = [body[i:i + 2] for i in range(0, len(body), 2)]
    rows = [_ROW_OF.get(pair[0], -1) for pair in pairs]
    counts = np.zeros(NUM_CARDS, dtype=np.int8)
    joker_as: list[Cell] = []
    for i, pair in enumerate(pairs):
        row, column = rows[i], _COLUMN_OF.get(pair[1], -1)
        if row < 0 or column < 0:
            raise ValueError(f"unknown card {pair!r} (a row of SHDC, or KLMNJ for the joker, "
                             f"then a column of {_COLUMNS[1:-1]} or x)")
        if pair[0] in _ROWS:
            if column == 0:
                raise ValueError(f"{pair!r} is no card: only the joker stands beyond the ranks")
            counts[cell_id((row, column))] += 1
            continue
        counts[JOKER] += 1
        suit = NO_SUIT if row == 4 else NUM_SUITS - 1 - row
        joker_as.append((_beyond(rows, i) if column == 0 else column - 1, suit))
    counts.flags.writeable = False
    return counts, tuple(joker_as)


def _beyond(rows: list[int], i: int) -> int | None:
    """The rank of the joker ``x`` at position ``i``: after the other cards of its row it is
    above the 2, before them below the 3; alone in its row the log does not show which."""
    if rows[i] in rows[:i]:
        return ABOVE_TWO
    if rows[i] in rows[i + 1:]:
        return BELOW_THREE
    return None
