"""The wire protocol 20070 of the UECda standard server ``tndhms`` 0.29: tables, plays, messages.

Written from our reading of the server (``docs/experiments/2026-12-04-uecda-server-rules.md``
§0 and §11); no code of the server is here.

The card table
--------------
Every message but the small ints is a table of 8 rows x 15 columns of unsigned 32-bit ints,
sent row-major in network byte order (480 bytes). The server sends a negative value as 0.

=========  =====================================================================================
cells      meaning
=========  =====================================================================================
rows 0-3   the suits spades, hearts, diamonds, clubs (:data:`SUITS`); columns 1..13 the ranks
           3 4 5 6 7 8 9 T J Q K A 2; value 1 a card, 2 the joker standing in that cell
           (columns 0 and 14, below the 3 and above the 2, hold the joker only)
row 4      the joker: ``[4][1] = 2`` in a hand; in a play only as the fifth card of a 5-card set
``[5][0]`` 1 in the deal message (start of a game), else 0
``[5][1]`` cards to give back in the exchange: 2 the daifugo, 1 the fugo, else 0
``[5][2]`` 1 in the hand table of the player to move
``[5][3]`` the player to move (6 in the deal message); in a field table, who just moved
``[5][4]`` 1 when the field is empty (a new trick)
``[5][5]`` 11-back, ``[5][6]`` revolution, ``[5][7]`` lock
``[6][p]`` cards left to player p (0..4)
``[6][5+p]`` the class of player p (0 daifugo .. 4 daihinmin; all 0 in a class-reset game);
           only the deal table's are sure (during a game the server mixes in who went out)
``[6][10+s]`` the player in seat s
row 7      unused (a field table echoes the row 7 its mover sent)
=========  =====================================================================================

The message sequence
--------------------
1. The client sends a table with ``[0][0] = 20070`` and its name in ``[1][0..]``, one
   character a cell (the server keeps 9); the server answers one int, the player number 0-4
   (the order the five connected in).
2. Per game: the **deal table** (``[5][0] = 1``: the hand, for the hinmin and daihinmin still
   holding the cards the server takes from them). If ``[5][1] > 0`` (the daifugo, then the
   fugo, in a game with an exchange) the client sends a table of exactly that many of its
   cards; no answer comes.
3. Per turn: a **hand table** to all five; the mover (``[5][2] = 1``) sends its **submission**
   (its cards as 1, the joker as 2 in the cell it stands in, a pass all zeros) and gets an
   int **ack**, 9 accepted, 8 refused (a refused play counts as a pass; a pass on a field that
   is not empty is answered 8 too); then a **field table** to all five (the last accepted play
   exactly as submitted, with rows 5-6 after the move; after a pass it is unchanged); then an
   int to all five, :data:`CONTINUE` 0, :data:`GAME_OVER` 1, :data:`MATCH_OVER` 2.
4. After the match the server closes the connections.

What is here: :func:`encode_table` / :func:`decode_table`, :func:`encode_int` /
:func:`decode_int`, :func:`hello_table`; :class:`Play` (a submission or the field, exactly as in
the table) and :class:`Hand`; :class:`TableState` (rows 5-6); :class:`Connection`, one client's
end of the socket with bounded waits. Bad input raises :class:`ProtocolError`, a ``ValueError``
that says which message and what is wrong.
"""

from __future__ import annotations

import socket
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

PROTOCOL_VERSION = 20070
ROWS, COLUMNS = 8, 15
TABLE_BYTES = ROWS * COLUMNS * 4
INT_BYTES = 4
NUM_PLAYERS = 5
SUITS = "SHDC"
"""Rows 0-3: spades, hearts, diamonds, clubs."""
RANKS = "x3456789TJQKA2x"
"""The name of each column (``x``: the joker beyond the ranks)."""
JOKER_ROW = 4
JOKER_HOME = (JOKER_ROW, 1)
"""Where a hand holds the joker."""
CARD, JOKER = 1, 2
"""Cell values."""
LOW_COLUMN, HIGH_COLUMN = 1, 13
"""The columns of the 3 and of the 2."""
DEAL_MOVER = 6
"""``[5][3]`` of the deal table."""
ACCEPTED, REFUSED = 9, 8
CONTINUE, GAME_OVER, MATCH_OVER = 0, 1, 2
MAX_NAME = 15
"""The most name characters a client sends (the kit's client; the server keeps 9)."""
_FORMAT = struct.Struct(f">{ROWS * COLUMNS}I")
_INT = struct.Struct(">I")

Table = tuple[tuple[int, ...], ...]
Cell = tuple[int, int]
"""(row, column)."""


class ProtocolError(ValueError):
    """A message that breaks protocol 20070, or a table that is not what it should be."""


class ConnectionClosed(ProtocolError):
    """The server closed the connection (mid-message, or where a message was due)."""


# ---------------------------------------------------------------------------------------------
# The codec


def empty_table() -> list[list[int]]:
    return [[0] * COLUMNS for _ in range(ROWS)]


def as_table(rows: Iterable[Iterable[int]], what: str = "table") -> Table:
    """A table (8 tuples of 15 ints) from any 8x15 nested sequence of whole numbers in
    0..2**32-1 (the protocol's unsigned cells)."""
    out = tuple(tuple(row) for row in rows)
    if len(out) != ROWS or any(len(row) != COLUMNS for row in out):
        shape = [len(row) for row in out]
        raise ProtocolError(f"a {what} is {ROWS} rows of {COLUMNS} cells; got row lengths {shape}")
    for r, row in enumerate(out):
        for c, v in enumerate(row):
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 2 ** 32:
                raise ProtocolError(f"{what} cell [{r}][{c}] = {v!r} is not an unsigned 32-bit int")
    return out


def encode_table(table: Iterable[Iterable[int]]) -> bytes:
    """The 480 bytes of a table (row-major, big-endian uint32)."""
    return _FORMAT.pack(*(v for row in as_table(table) for v in row))


def decode_table(data: bytes, what: str = "table") -> Table:
    """The table in 480 bytes."""
    if len(data) != TABLE_BYTES:
        raise ProtocolError(f"a {what} is {TABLE_BYTES} bytes; got {len(data)}")
    flat = _FORMAT.unpack(data)
    return tuple(flat[r * COLUMNS:(r + 1) * COLUMNS] for r in range(ROWS))


def encode_int(value: int) -> bytes:
    if not 0 <= value < 2 ** 32:
        raise ProtocolError(f"an int message is an unsigned 32-bit int; got {value}")
    return _INT.pack(value)


def decode_int(data: bytes) -> int:
    if len(data) != INT_BYTES:
        raise ProtocolError(f"an int message is {INT_BYTES} bytes; got {len(data)}")
    return int(_INT.unpack(data)[0])


def hello_table(name: str) -> Table:
    """The first table a client sends: the protocol version and its name."""
    if not 1 <= len(name) <= MAX_NAME or not all(33 <= ord(ch) < 127 for ch in name):
        raise ProtocolError(f"a player name is 1-{MAX_NAME} printable ASCII characters without "
                            f"spaces (the server keeps 9); got {name!r}")
    t = empty_table()
    t[0][0] = PROTOCOL_VERSION
    t[1][:len(name)] = [ord(ch) for ch in name]
    return as_table(t)


def read_hello(table: Table) -> tuple[int, str]:
    """The protocol version and the name in a client's first table (the server's side)."""
    name = "".join(chr(v) for v in table[1][:9] if 0 < v < 127)
    return table[0][0], name


# ---------------------------------------------------------------------------------------------
# Cards


def cell_name(cell: Cell, joker: bool = False) -> str:
    """A cell as the server's log writes it: ``S3``, ``HT``; the joker ``K..N`` (rows S..C),
    ``J`` (row 4), with ``x`` for columns 0 and 14."""
    row, column = cell
    return ("KLMNJ"[row] if joker else SUITS[row]) + RANKS[column]


@dataclass(frozen=True)
class Play:
    """The cards of a submission or of the field, exactly as in the table: ``cards`` the
    cells of natural cards (row 0-3, column 1-13), ``joker`` the cell the joker stands in, or
    ``None``. ``Play()`` is a pass (or an empty field)."""

    cards: tuple[Cell, ...] = ()
    joker: Cell | None = None

    def __post_init__(self) -> None:
        cells = tuple(sorted(set(self.cards)))
        if len(cells) != len(self.cards):
            raise ProtocolError(f"a play names a card twice: {self.cards}")
        for r, c in cells:
            if not (0 <= r < JOKER_ROW and LOW_COLUMN <= c <= HIGH_COLUMN):
                raise ProtocolError(f"({r}, {c}) is no card cell (rows 0-3, columns 1-13)")
        if self.joker is not None:
            r, c = self.joker
            if not (0 <= r <= JOKER_ROW and 0 <= c < COLUMNS) or self.joker in cells:
                raise ProtocolError(f"the joker cannot stand in ({r}, {c}) of this play")
        object.__setattr__(self, "cards", cells)

    @property
    def is_pass(self) -> bool:
        return not self.cards and self.joker is None

    def sort_key(self) -> tuple[tuple[Cell, ...], Cell]:
        """Table order: by the natural cards' cells, then the joker's (none first)."""
        return self.cards, self.joker or (-1, -1)

    def __len__(self) -> int:
        return len(self.cards) + (self.joker is not None)

    def __str__(self) -> str:
        if self.is_pass:
            return "pass"
        names = {cell: cell_name(cell) for cell in self.cards}
        if self.joker is not None:
            names[self.joker] = cell_name(self.joker, joker=True)
        return " ".join(names[cell] for cell in sorted(names))

    def to_table(self) -> Table:
        t = empty_table()
        for r, c in self.cards:
            t[r][c] = CARD
        if self.joker is not None:
            t[self.joker[0]][self.joker[1]] = JOKER
        return as_table(t)

    @classmethod
    def from_table(cls, table: Sequence[Sequence[int]], what: str = "play") -> Play:
        """The cards of rows 0-4. Raises unless the server's own validity test passes: cells
        0, 1 or 2; a 1 only in rows 0-3, columns 1-13; at most one 2."""
        cards: list[Cell] = []
        jokers: list[Cell] = []
        for r in range(JOKER_ROW + 1):
            for c in range(COLUMNS):
                v = table[r][c]
                if v == CARD:
                    if r == JOKER_ROW or not LOW_COLUMN <= c <= HIGH_COLUMN:
                        raise ProtocolError(f"{what}: a card (1) in [{r}][{c}], where only the "
                                            "joker may stand")
                    cards.append((r, c))
                elif v == JOKER:
                    jokers.append((r, c))
                elif v != 0:
                    raise ProtocolError(f"{what}: cell [{r}][{c}] = {v}, not 0, 1 or 2")
        if len(jokers) > 1:
            raise ProtocolError(f"{what}: {len(jokers)} jokers (2) at {jokers}; there is one")
        return cls(tuple(cards), jokers[0] if jokers else None)


@dataclass(frozen=True)
class Hand:
    """A player's cards: the natural cards' cells and whether the joker is held."""

    cards: frozenset[Cell]
    joker: bool = False

    def __len__(self) -> int:
        return len(self.cards) + self.joker

    def holds(self, play: Play) -> bool:
        """Whether the hand holds the cards of ``play`` (the joker may stand anywhere)."""
        return self.cards.issuperset(play.cards) and (play.joker is None or self.joker)

    def without(self, play: Play) -> Hand:
        return Hand(self.cards.difference(play.cards), self.joker and play.joker is None)

    def with_cards(self, play: Play) -> Hand:
        return Hand(self.cards.union(play.cards), self.joker or play.joker is not None)

    def to_table(self) -> list[list[int]]:
        t = empty_table()
        for r, c in self.cards:
            t[r][c] = CARD
        if self.joker:
            t[JOKER_HOME[0]][JOKER_HOME[1]] = JOKER
        return t

    @classmethod
    def from_table(cls, table: Sequence[Sequence[int]], what: str = "hand table") -> Hand:
        """Rows 0-4 of a hand: 1s in rows 0-3, columns 1-13, the joker only as ``[4][1] = 2``."""
        cards = set()
        for r in range(JOKER_ROW + 1):
            for c in range(COLUMNS):
                v = table[r][c]
                if v == 0 or (r, c) == JOKER_HOME and v == JOKER:
                    continue
                if v != CARD or r == JOKER_ROW or not LOW_COLUMN <= c <= HIGH_COLUMN:
                    raise ProtocolError(f"{what}: cell [{r}][{c}] = {v}; a hand has 1s in rows "
                                        "0-3, columns 1-13, and the joker only as [4][1] = 2")
                cards.add((r, c))
        return cls(frozenset(cards), table[JOKER_HOME[0]][JOKER_HOME[1]] == JOKER)


# ---------------------------------------------------------------------------------------------
# Rows 5-6


@dataclass(frozen=True)
class TableState:
    """Rows 5-6 of a table sent by the server (see the module docstring)."""

    deal: bool
    give: int
    my_turn: bool
    mover: int
    field_empty: bool
    back: bool
    revolution: bool
    locked: bool
    counts: tuple[int, ...]
    classes: tuple[int, ...] | None
    """``None`` in a class-reset game (the five cells all 0). Read it from the deal table:
    during a game the server fills these cells from its finishing order so far, so they mix
    this game's places with last game's classes (a permutation only in the deal), and a cell
    it leaves keeps what the last submission held there (``None`` when that is out of range)."""
    seats: tuple[int, ...]

    @classmethod
    def from_table(cls, table: Table, what: str = "table") -> TableState:
        s, q = table[5], table[6]
        for c, name in enumerate(("deal", "", "my_turn", "", "field_empty", "11-back",
                                  "revolution", "lock")):
            if name and s[c] not in (0, 1):
                raise ProtocolError(f"{what}: the {name} flag [5][{c}] is {s[c]}, not 0 or 1")
        if s[1] > 2:
            raise ProtocolError(f"{what}: cards to give back [5][1] = {s[1]}, not 0-2")
        if s[3] >= NUM_PLAYERS and not (s[0] and s[3] == DEAL_MOVER):
            raise ProtocolError(f"{what}: the player to move [5][3] = {s[3]}, not 0-4"
                                + (f" (or {DEAL_MOVER} in a deal)" if s[0] else ""))
        counts = q[0:5]
        if any(n > 53 for n in counts):
            raise ProtocolError(f"{what}: cards left [6][0..4] = {counts}, more than 53")
        classes = q[5:10]
        in_range = all(c < NUM_PLAYERS for c in classes)
        if s[0] and not (in_range and (not any(classes) or sorted(classes) == list(range(
                NUM_PLAYERS)))):
            raise ProtocolError(f"{what}: classes [6][5..9] = {classes}, neither a permutation "
                                "of 0-4 nor all 0")
        if not in_range:  # during a game the server leaves in cells of the last submission
            classes = (0,) * NUM_PLAYERS
        seats = q[10:15]
        if sorted(seats) != list(range(NUM_PLAYERS)):
            raise ProtocolError(f"{what}: seats [6][10..14] = {seats}, not a permutation of 0-4")
        return cls(bool(s[0]), s[1], bool(s[2]), s[3], bool(s[4]), bool(s[5]), bool(s[6]),
                   bool(s[7]), tuple(counts), tuple(classes) if any(classes) else None,
                   tuple(seats))

    def write(self, t: list[list[int]]) -> None:
        """Fill rows 5-6 of ``t`` (the server's side)."""
        t[5][:8] = [int(self.deal), self.give, int(self.my_turn), self.mover,
                    int(self.field_empty), int(self.back), int(self.revolution),
                    int(self.locked)]
        t[6][0:5] = list(self.counts)
        t[6][5:10] = list(self.classes or (0,) * NUM_PLAYERS)
        t[6][10:15] = list(self.seats)


# ---------------------------------------------------------------------------------------------
# The socket


class Connection:
    """A client's end of a connection to the server: whole messages, each wait bounded by
    ``timeout`` seconds (a ``ProtocolError`` says what did not come)."""

    def __init__(self, sock: socket.socket, timeout: float = 30.0) -> None:
        if not timeout > 0:
            raise ValueError(f"timeout must be positive seconds; got {timeout}")
        self.sock = sock
        self.sock.settimeout(timeout)
        self.timeout = timeout

    @classmethod
    def open(cls, host: str, port: int, timeout: float = 30.0) -> Connection:
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as e:
            raise ConnectionClosed(f"cannot connect to {host}:{port}: {e}") from None
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return cls(sock, timeout)

    def close(self) -> None:
        self.sock.close()

    def _recv(self, n: int, what: str) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            try:
                chunk = self.sock.recv(n - len(buf))
            except TimeoutError:
                raise ProtocolError(f"no {what} from the server within {self.timeout} s "
                                    f"({len(buf)} of {n} bytes came)") from None
            except OSError as e:
                raise ConnectionClosed(f"the connection broke waiting for the {what}: "
                                       f"{e}") from None
            if not chunk:
                raise ConnectionClosed(f"the server closed the connection where the {what} "
                                       f"was due ({len(buf)} of {n} bytes came)")
            buf += chunk
        return bytes(buf)

    def recv_table(self, what: str) -> Table:
        return decode_table(self._recv(TABLE_BYTES, what), what)

    def recv_int(self, what: str) -> int:
        return decode_int(self._recv(INT_BYTES, what))

    def send_table(self, table: Iterable[Iterable[int]]) -> None:
        """One table in one ``sendall`` (the server reads each message with a single read)."""
        data = encode_table(table)
        try:
            self.sock.sendall(data)
        except OSError as e:
            raise ConnectionClosed(f"cannot send to the server: {e}") from None

    def handshake(self, name: str) -> int:
        """Send the version and name; the player number the server gives back."""
        self.send_table(hello_table(name))
        player = self.recv_int("player number")
        if not 0 <= player < NUM_PLAYERS:
            raise ProtocolError(f"the server gave player number {player}, not 0-4")
        return player
