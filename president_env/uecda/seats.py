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
from pathlib import Path

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


BUILT_IN = ("random", "random:SEED", "greedy")
"""The seat specs of the client's own choosers."""


def check_seat(spec: str) -> None:
    """A ValueError unless ``spec`` names a chooser: ``random``, ``random:SEED``, ``greedy``, or
    an agent of ours (:func:`agents.load_agent`: ``hard``, ``expert``, ``normal``, ``easy``, a
    shipped policy, a checkpoint path that exists). A checkpoint is loaded only by
    :func:`make_chooser`."""
    kind, _, arg = spec.partition(":")
    if (kind == "random" and (not arg or arg.isdigit())) or spec == "greedy":
        return
    from agents import agent_names, base_spec, is_checkpoint_spec

    name = base_spec(spec)
    if is_checkpoint_spec(name):
        if not Path(name).is_file():
            raise ValueError(f"seat {spec!r}: no checkpoint file {name}")
        return
    if name.lower() not in agent_names():
        raise ValueError(f"seat {spec!r}: expected {', '.join(BUILT_IN)}, one of our agents "
                         f"({', '.join(agent_names())}) or a checkpoint path")


def make_chooser(spec: str, seed: int) -> Chooser:
    """An in-process chooser from a seat spec (:func:`check_seat`): ``random`` (seeded with
    ``seed``), ``random:S`` (seed S), ``greedy``, or an agent of ours in an
    :class:`~president_env.uecda.agent.AgentChooser` (seeded with ``seed``)."""
    check_seat(spec)
    kind, _, arg = spec.partition(":")
    if kind == "random":
        return RandomChooser(int(arg) if arg else seed)
    if spec == "greedy":
        return GreedyChooser()
    from president_env.uecda.agent import AgentChooser

    return AgentChooser(spec, seed)


def parse_seats(text: str) -> list[str]:
    """Five comma-separated seat specs (``tcp`` or a chooser's, :func:`check_seat`), in player
    order; each is checked."""
    seats = [s.strip() for s in text.split(",")]
    if len(seats) != NUM_PLAYERS:
        raise ValueError(f"--seats needs {NUM_PLAYERS} comma-separated seats (tcp, random, "
                         f"random:SEED, greedy, or an agent: hard, expert, ...); got "
                         f"{len(seats)}: {text!r}")
    for s in seats:
        if s != TCP:
            check_seat(s)
    return seats
