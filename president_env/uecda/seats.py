"""The seats of our UECda server: :class:`PlayerLink` (the server's end of one player's
connection, with bounded waits; a player that fails is dropped and passes from then on),
:class:`Incident` (what went wrong with a player), and the seat specs of the command line
(:func:`parse_seats`, :func:`make_chooser`).
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Callable
from dataclasses import dataclass

from president_env.uecda.client import Chooser, GreedyChooser, RandomChooser
from president_env.uecda.match import Raw, decode_raw
from president_env.uecda.protocol import NUM_PLAYERS, TABLE_BYTES

TCP = "tcp"
"""The seat spec of a TCP client."""


# ---------------------------------------------------------------------------------------------
# Players


@dataclass
class Incident:
    """Something that went wrong with a player: ``where`` (game and submission), ``what``."""

    player: int
    where: str
    what: str

    def __str__(self) -> str:
        return f"{self.where}: player {self.player}: {self.what}"


class PlayerLink:
    """The server's end of one player's connection. Messages are queued and sent together before
    the server next waits for an answer (the same bytes, in fewer segments). A failure drops
    the player: it is closed, later messages to it are skipped, its answers read as all-zero
    tables (a pass)."""

    def __init__(self, number: int, sock: socket.socket, timeout: float,
                 report: Callable[[int, str], None]) -> None:
        self.number = number
        self.sock = sock
        self.sock.settimeout(timeout)
        self.timeout = timeout
        self.name = f"player{number}"
        self.alive = True
        self.out = bytearray()
        self.report = report

    def queue(self, data: bytes) -> None:
        if self.alive:
            self.out += data

    def flush(self) -> None:
        if not self.alive or not self.out:
            return
        try:
            self.sock.sendall(self.out)
        except TimeoutError:
            self.drop(f"did not take our messages within {self.timeout} s")
        except OSError as e:
            self.drop(f"the connection broke while sending ({e})")
        self.out.clear()

    def recv_table(self, what: str) -> Raw | None:
        """The next 480 bytes as a table; ``None`` (and the player dropped) when they do not
        come within the timeout or the connection ends."""
        if not self.alive:
            return None
        buf = bytearray()
        try:
            while len(buf) < TABLE_BYTES:
                chunk = self.sock.recv(TABLE_BYTES - len(buf))
                if not chunk:
                    self.drop(f"closed the connection where its {what} was due "
                              f"({len(buf)} of {TABLE_BYTES} bytes came)")
                    return None
                buf += chunk
        except TimeoutError:
            self.drop(f"sent no {what} within {self.timeout} s ({len(buf)} of {TABLE_BYTES} "
                      "bytes came)")
            return None
        except OSError as e:
            self.drop(f"the connection broke waiting for its {what} ({e})")
            return None
        return decode_raw(bytes(buf))

    def drop(self, why: str) -> None:
        if self.alive:
            self.alive = False
            self.report(self.number, f"dropped: {why}; it passes from now on")
            self.close()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()


def make_chooser(spec: str, seed: int) -> Chooser:
    """An in-process chooser from a seat spec: ``random`` (seeded with ``seed``), ``random:S``
    (seed S) or ``greedy``."""
    kind, _, arg = spec.partition(":")
    if kind == "random" and (not arg or arg.isdigit()):
        return RandomChooser(int(arg) if arg else seed)
    if kind == "greedy" and not arg:
        return GreedyChooser()
    raise ValueError(f"seat {spec!r}: expected tcp, random, random:SEED or greedy")


def parse_seats(text: str) -> list[str]:
    """Five comma-separated seat specs (``tcp``, ``random``, ``random:SEED``, ``greedy``), in
    player order; each is checked."""
    seats = [s.strip() for s in text.split(",")]
    if len(seats) != NUM_PLAYERS:
        raise ValueError(f"--seats needs {NUM_PLAYERS} comma-separated seats (tcp, random, "
                         f"random:SEED, greedy); got {len(seats)}: {text!r}")
    for s in seats:
        if s != TCP:
            make_chooser(s, 0)
    return seats
