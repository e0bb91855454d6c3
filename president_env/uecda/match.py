"""The pieces of a ``tndhms`` 0.29 match that need no socket: :class:`MatchConfig` (what
``tndhms.cfg`` sets; :func:`read_cfg` reads one), its random numbers (:class:`MersenneReal`),
the seat change (:func:`reseat`), the deal (:func:`deal`), the exchange (:func:`strongest`,
:func:`read_return`), the server's view of a table (:data:`Raw`, the cells it counts and the
log's card letters) and the log (:class:`LogWriter`). :mod:`president_env.uecda.server` plays
the match with them; ``docs/experiments/2026-12-04-uecda-server-rules.md`` says what each
follows.
"""

from __future__ import annotations

import random
import socket
import struct
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from president_env.uecda.moves import CONTEST_RULES, ServerRules
from president_env.uecda.protocol import (
    COLUMNS,
    HIGH_COLUMN,
    JOKER,
    JOKER_HOME,
    JOKER_ROW,
    LOW_COLUMN,
    NUM_PLAYERS,
    RANKS,
    ROWS,
    Cell,
    Hand,
    Play,
)

MAX_GAMES = 15000
"""``tndhms`` keeps the points of at most about this many games."""
NUM_CARDS = 53
_TABLE = struct.Struct(f">{ROWS * COLUMNS}I")
_SUITS_LOG = "SHDCJKLMNJ"
"""The log's row letter: ``[row]`` for a card, ``[row + 5]`` for the joker."""

Raw = list[list[int]]
"""A table as the server holds it: 8 rows of 15 signed ints (a cell sent as 2**31 or more
reads as negative, and a negative cell is sent as 0, as in ``tndhms``)."""


# ---------------------------------------------------------------------------------------------
# Configuration


@dataclass(frozen=True)
class MatchConfig:
    """The match: what ``tndhms.cfg`` sets (``RULE_*``, ``GAME_NUMBER``, ``FLASH_MIBUN_NUMBER``)
    and the seed. The defaults are the contest's but for the number of games."""

    games: int = 100
    """``GAME_NUMBER``."""
    rules: ServerRules = CONTEST_RULES
    """``RULE_KAIDAN``, ``RULE_SHIBARI``, ``RULE_KAKUMEI``, ``RULE_8GIRI``, ``RULE_11BACK``,
    ``RULE_6REVERS``."""
    exchange: bool = True
    """``RULE_CHANGE``."""
    reseat: bool = True
    """``RULE_SEKIGAE``."""
    reseat_every: int = 3
    """``RULE_SEKIGAE_NUM``: the seats change in games 1, 1 + n, 1 + 2n, ... (never if 1)."""
    flash: int = 100
    """``FLASH_MIBUN_NUMBER``: the classes are reset in games 1, 1 + n, ..."""
    seed: int | None = None
    """``RANDOM_SEED`` (0 to 2**32 - 1); ``None``: the clock's seconds, as ``tndhms``."""

    def __post_init__(self) -> None:
        for name, value, low, high in (("games", self.games, 1, MAX_GAMES),
                                       ("reseat_every", self.reseat_every, 1, 10 ** 9),
                                       ("flash", self.flash, 1, 10 ** 9)):
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"{name} must be a whole number from {low} to {high}; "
                                 f"got {value!r}")
        if self.seed is not None and (isinstance(self.seed, bool) or not isinstance(
                self.seed, int) or not 0 <= self.seed < 2 ** 32):
            raise ValueError(f"seed must be a whole number from 0 to 2**32 - 1; got {self.seed!r}")

    def settings(self, port: int, seed: int) -> list[tuple[str, str]]:
        """The log header's setting lines, in ``tndhms``'s order."""
        yes = lambda flag: "YES" if flag else "NO"  # noqa: E731
        r = self.rules
        return [("WINDOW_TYPE", "CONSOLE"), ("GRAPH_WINDOW", "NO"), ("RAND_TYPE", "1"),
                ("RULE_KAKUMEI", yes(r.revolution)), ("RULE_SHIBARI", yes(r.lock)),
                ("RULE_KINSOKU", "NO"), ("RULE_KAIDAN", yes(r.runs)),
                ("RULE_CHANGE", yes(self.exchange)), ("RULE_5TOBI", "NO"),
                ("RULE_6REVERS", yes(r.six_reverses)), ("RULE_8GIRI", yes(r.eight_cut)),
                ("RULE_11BACK", yes(r.jack_back)), ("RULE_SEKIGAE", yes(self.reseat)),
                ("RULE_SEKIGAE_NUM", str(self.reseat_every)), ("GAME_NUMBER", str(self.games)),
                ("FLASH_MIBUN_NUMBER", str(self.flash)), ("GAME_PORT", str(port)),
                ("RANDOM_SEED", str(seed))]


_CFG_SWITCHES = {"RULE_KAIDAN": "runs", "RULE_SHIBARI": "lock", "RULE_KAKUMEI": "revolution",
                 "RULE_8GIRI": "eight_cut", "RULE_11BACK": "jack_back",
                 "RULE_6REVERS": "six_reverses"}
_CFG_NUMBERS = {"GAME_NUMBER": "games", "RULE_SEKIGAE_NUM": "reseat_every",
                "FLASH_MIBUN_NUMBER": "flash"}
_CFG_IGNORED = {"WINDOW_TYPE", "CONSOLE_TYPE", "GRAPH_WINDOW", "RULE_KINSOKU", "RULE_5TOBI",
                "FLAG_STATISTICS", "FLAG_HIDDEN_NAME", "FLAG_LOGGER", "PORT_NUMBER",
                "XPM_DIR_PATH", "PLAYER1_NAME", "PLAYER2_NAME", "PLAYER3_NAME", "PLAYER4_NAME",
                "PLAYER5_NAME"}


def read_cfg(text: str, base: MatchConfig = MatchConfig()) -> tuple[MatchConfig, int | None]:
    """A ``tndhms.cfg`` (``KEY value`` lines, ``#`` comments) over ``base``: the config and the
    ``PORT_NUMBER`` if it gives one. Settings without effect here (windows, flags, the no-op
    ``RULE_KINSOKU`` and ``RULE_5TOBI``) are ignored; ``RAND_TYPE`` must be ``MT``. An unknown
    key or a bad value raises a ``ValueError`` naming the line."""
    rules: dict[str, bool] = {}
    top: dict[str, object] = {}
    port = None
    for no, line in enumerate(text.splitlines(), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if len(words) != 2:
            raise ValueError(f"config line {no}: expected KEY VALUE, got {line.strip()!r}")
        key, value = words[0], words[1]
        if key in _CFG_SWITCHES or key in ("RULE_CHANGE", "RULE_SEKIGAE"):
            if value.lower() not in ("yes", "no"):
                raise ValueError(f"config line {no}: {key} is {value!r}, not yes or no")
            flag = value.lower() == "yes"
            if key in _CFG_SWITCHES:
                rules[_CFG_SWITCHES[key]] = flag
            else:
                top["exchange" if key == "RULE_CHANGE" else "reseat"] = flag
        elif key in _CFG_NUMBERS or key == "PORT_NUMBER":
            if not value.isdigit():
                raise ValueError(f"config line {no}: {key} is {value!r}, not a whole number")
            if key == "PORT_NUMBER":
                port = int(value)
            else:
                top[_CFG_NUMBERS[key]] = int(value)
        elif key == "RAND_TYPE":
            if value != "MT":
                raise ValueError(f"config line {no}: RAND_TYPE {value!r}: only MT is supported")
        elif key not in _CFG_IGNORED:
            raise ValueError(f"config line {no}: unknown setting {key!r}")
    config = replace(base, rules=replace(base.rules, **rules), **top)  # type: ignore[arg-type]
    return config, port


# ---------------------------------------------------------------------------------------------
# The random numbers, the deal and the exchange


class MersenneReal:
    """``tndhms``'s random numbers with ``RAND_TYPE MT``: MT19937 seeded by ``init_genrand``,
    each draw ``genrand_real1`` (in [0, 1], both ends included)."""

    def __init__(self, seed: int) -> None:
        state = [seed & 0xFFFFFFFF]
        for i in range(1, 624):
            prev = state[-1]
            state.append((1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF)
        self._mt = random.Random()
        self._mt.setstate((3, (*state, 624), None))

    def __call__(self) -> float:
        return self._mt.getrandbits(32) * (1.0 / 4294967295.0)

    def below(self, n: int) -> int:
        """``(int)(draw * n)``, kept below ``n`` (a draw of exactly 1 would overrun it)."""
        return min(int(self() * n), n - 1)


def reseat(rng: MersenneReal) -> tuple[int, ...]:
    """A new seat order: each player draws a number (again on a tie), the lowest sits first."""
    draws: list[float] = []
    for _ in range(NUM_PLAYERS):
        x = rng()
        while x in draws:
            x = rng()
        draws.append(x)
    return tuple(sorted(range(NUM_PLAYERS), key=lambda p: draws[p]))


def deal(rng: MersenneReal, initial: int, seats: Sequence[int]) -> list[Hand]:
    """The 53 cards dealt round the seats from the ``initial`` player's: card ``k`` (``k // 13``
    the row, ``k % 13 + 1`` the column; 52 the joker) drawn among those left."""
    left = list(range(NUM_CARDS))
    cards: list[set[Cell]] = [set() for _ in range(NUM_PLAYERS)]
    joker = [False] * NUM_PLAYERS
    first = list(seats).index(initial)
    for i in range(NUM_CARDS):
        k = left.pop(rng.below(NUM_CARDS - i))
        p = seats[(i + first) % NUM_PLAYERS]
        if k == NUM_CARDS - 1:
            joker[p] = True
        else:
            cards[p].add((k // 13, k % 13 + 1))
    return [Hand(frozenset(c), j) for c, j in zip(cards, joker, strict=True)]


def strongest(hand: Hand, count: int) -> Play:
    """The ``count`` strongest cards: the joker (at its home cell), then the 2 down to the 3,
    spades, hearts, diamonds, clubs within a rank (``tndhms``'s order for the exchange)."""
    chosen: list[Cell] = []
    joker = hand.joker and count > 0
    for column in range(HIGH_COLUMN, LOW_COLUMN - 1, -1):
        for row in range(JOKER_ROW):
            if len(chosen) + joker < count and (row, column) in hand.cards:
                chosen.append((row, column))
    return Play(tuple(chosen), JOKER_HOME if joker else None)


# ---------------------------------------------------------------------------------------------
# Tables


def empty_raw() -> Raw:
    return [[0] * COLUMNS for _ in range(ROWS)]


def encode_raw(table: Raw) -> bytes:
    return _TABLE.pack(*(v if v > 0 else 0 for row in table for v in row))


def decode_raw(data: bytes) -> Raw:
    flat = [v - 2 ** 32 if v >= 2 ** 31 else v for v in _TABLE.unpack(data)]
    return [flat[r * COLUMNS:(r + 1) * COLUMNS] for r in range(ROWS)]


def hand_table(hand: Hand) -> Raw:
    t = empty_raw()
    for r, c in hand.cards:
        t[r][c] = 1
    if hand.joker:
        t[JOKER_HOME[0]][JOKER_HOME[1]] = JOKER
    return t


def cells_of(table: Sequence[Sequence[int]]) -> list[tuple[int, int, int]]:
    """The non-zero cells of rows 0-4, in table order: ``(row, column, value)``."""
    return [(r, c, table[r][c]) for r in range(JOKER_ROW + 1) for c in range(COLUMNS)
            if table[r][c]]


def log_cards(cells: Sequence[tuple[int, int, int]]) -> str:
    """The log's cards for the cells (``tndhms``'s letters: a value of 2 is the joker)."""
    return "".join(_SUITS_LOG[r + 5 * (v == JOKER)] + RANKS[c] for r, c, v in cells)


def well_formed(cells: Sequence[tuple[int, int, int]]) -> bool:
    """The server's table test: 1s only in rows 0-3, columns 1-13; 2 at most once; nothing else."""
    jokers = 0
    for r, c, v in cells:
        if v == JOKER:
            jokers += 1
        elif v != 1 or r == JOKER_ROW or not LOW_COLUMN <= c <= HIGH_COLUMN:
            return False
    return jokers <= 1


def counted(cells: Sequence[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """The cells the server counts as cards (value 1 or 2)."""
    return [cell for cell in cells if cell[2] in (1, JOKER)]


def read_return(table: Raw, hand: Hand, count: int, strict: bool) -> Play | None:
    """The cards a daifugo (``strict``: the table must pass the table test) or fugo returns, or
    ``None`` if the server refuses the table: it must hold exactly ``count`` cards, all in
    ``hand`` (a 2 anywhere is the joker)."""
    cells = cells_of(table)
    cards = counted(cells)
    if len(cards) != count or strict and not well_formed(cells):
        return None
    natural = tuple((r, c) for r, c, v in cards if v == 1)
    joker = any(v == JOKER for _, _, v in cards)
    if not hand.cards.issuperset(natural) or joker and not hand.joker:
        return None
    return Play(natural, JOKER_HOME if joker else None)


@dataclass
class GameRecord:
    """What one game's log lines need, filled as the game goes."""

    classes: str = ""
    seats: str = ""
    hands: str = ""
    changes: list[str] = field(default_factory=list)
    plays: list[str] = field(default_factory=list)


class LogWriter:
    """The ``tndhms`` log, game by game (flushed after each)."""

    def __init__(self, path: Path | None, names: Sequence[str],
                 settings: Sequence[tuple[str, str]]) -> None:
        self.file = None
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        self.file = path.open("w", encoding="ascii", errors="replace", newline="\n")
        self.file.write(f"%-----%hostname% {socket.gethostname()}\n")
        self.file.write(f"%-----%TIME_START% {_now()}\n")
        self.file.write("%-----%palyer_name%" + "".join(f" {n}" for n in names) + "\n")
        self.file.writelines(f"%-----%{k}% {v}\n" for k, v in settings)
        self.file.flush()

    def game(self, number: int, g: GameRecord, mibun: Sequence[int], points: Sequence[int]) -> None:
        if self.file is None:
            return
        n = f"%{number:05d}%"
        changes = "".join(f" {c}" for c in g.changes) or "NULL"
        self.file.write(f"{n}mibun% {g.classes}\n{n}seat% {g.seats}\n"
                        f"{n}palyer_cards% {g.hands}\n{n}change_cards% {changes}\n"
                        f"{n}play% {''.join(f' {t}' for t in g.plays)}\n"
                        f"{n}result% {''.join(map(str, mibun))}\n"
                        f"{n}points% {' '.join(map(str, points))}\n")
        self.file.flush()

    def close(self, points: Sequence[int]) -> None:
        if self.file is None:
            return
        self.file.write(f"%-----%TIME_END% {_now()}\n")
        self.file.write(f"%-----%TOTAL_POINT% {' '.join(map(str, points))}\n")
        self.file.close()


def _now() -> str:
    return time.strftime("%Y/%m/%d %H:%M:%S", time.localtime())


def default_log_path(folder: str | Path = "logs") -> Path:
    """``folder/YYYYMMDDhhmmss.log`` as ``tndhms`` names it (``-1``, ``-2``, ... added when that
    file is there already)."""
    base = Path(folder) / time.strftime("%Y%m%d%H%M%S", time.localtime())
    path, n = base.with_suffix(".log"), 0
    while path.exists():
        n += 1
        path = Path(f"{base}-{n}.log")
    return path
