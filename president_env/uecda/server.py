"""A UECda server of our own: the standard server ``tndhms`` 0.29's match, protocol and log.

:class:`UecdaServer` seats five players and plays a match of ``games`` games as the contest's
standard server does (``docs/experiments/2026-12-04-uecda-server-rules.md``; no code of it is
here): a seat is either **a TCP client** (``"tcp"``: the server waits for a client to connect,
as ``tndhms`` does; a program written for ``tndhms`` needs no change) or **an in-process
chooser** (any :class:`~president_env.uecda.client.Chooser`: ``give`` and ``play`` over a
:class:`~president_env.uecda.client.View`; :func:`~president_env.uecda.seats.make_chooser`
builds ``random`` and ``greedy``). An in-process chooser plays through our client
(:func:`~president_env.uecda.client.run_session`) on a socket pair, in a thread: it sees
exactly the bytes a TCP client sees. The rules of play are behind one narrow interface,
:class:`~president_env.uecda.game.ServerGame` (``step(play)`` and the state it shows), which
the engine's ``uecda`` preset can take over.

What the server does, in ``tndhms``'s order
-------------------------------------------
* **Players** are numbered 0-4 by seat spec; the TCP seats are filled in the order their
  clients connect. Each client sends its hello table (protocol 20070 and its name) and gets
  its number. Only protocol 20070 is spoken: a client that sends another version is closed,
  and the server waits for another one.
* **Per game** (``g`` from 1): the seats are reshuffled when ``g % reseat_every == 1`` (with
  ``reseat``); in a class-reset game (``(g - 1) % flash == 0``) a random player is the
  *initial person*, otherwise the daifugo; the 53 cards are dealt round the seats from the
  initial person's (11/11/11/10/10). In an exchange game (``g % flash != 1``, with
  ``exchange``) the server takes the daihinmin's 2 and the hinmin's 1 strongest cards (the
  joker, then 2 down to 3, spades to clubs in a rank) for the daifugo and the fugo; every player
  gets its deal table (the hinmin and daihinmin still see the cards taken); the daifugo returns
  2 cards, then the fugo 1; a return that is not exactly that many held cards gives the
  returner's strongest instead. The holder of the 3 of diamonds leads; then the turns of
  :class:`~president_env.uecda.game.ServerGame` (the rules of
  :mod:`~president_env.uecda.moves`): hand tables to all, the mover's submission, its ack (9
  accepted, or a pass on an empty field; 8 otherwise: a refused play is a pass), the field
  table to all, the end signal (0, 1 game over, 2 match over). After 20 passes or refusals in a
  row the players left are ranked at random. Places score 5/4/3/2/1.
* **The random numbers** are ``tndhms``'s with ``RAND_TYPE MT``: MT19937 seeded by
  ``init_genrand(seed)``, each draw ``genrand_real1``, drawn in the same order (seats, initial
  person, the 53 cards, the stalemate ranking). So a seed makes a match repeat exactly, and the
  ``RANDOM_SEED`` of a ``tndhms`` log deals the same cards here.
* **Rows 5-7 of the tables** are ``tndhms``'s: it builds them in the buffer it reads the
  submissions into, so a field table echoes the row 7 of the accepted play and row 5's cells
  8-14 of the latest submission; during a game the class cells ``[6][5..9]`` are filled from the
  finishing order so far (cells left over keep what the latest submission held there).

What the server does that ``tndhms`` does not
---------------------------------------------
* It listens on ``127.0.0.1`` unless told otherwise, and bounds every wait: a TCP seat's client
  must connect within ``connect_timeout`` seconds (else :class:`ServerError`), each answer (the
  hello, a return, a submission) must come within ``answer_timeout``, and each send must go out
  within it. A client that breaks the connection, is too slow, or whose socket fails is
  dropped: from then on it passes, and in the exchange its strongest cards are given for it;
  the match goes on (``tndhms`` would wait forever, or die of a broken pipe).
* A submission that breaks the server's own table test (a cell not 0, 1 or 2; a card in row 4
  or column 0/14; two jokers) is refused as a pass and logged as the pass ``<p>EE`` (``tndhms``
  would log its cells, in tokens no log reader can read; it also accepts the 3 of spades with
  garbage beside it on a lone joker, and the joker sent in the 3 of spades' cell by its holder,
  which are refused here). A fugo's return with garbage beside its one card is logged as the
  card that moved.
* Beside the log ``X.log`` it writes ``X.rejected.txt`` (each refused submission, ``GAME
  #INDEX TOKEN err=1``, as ``tests/data/uecda/`` lists those of ``tndhms``'s logs: what
  :func:`president_env.uecda.game.replay` needs) and ``X.events.txt`` (what went wrong with a
  client: dropped, garbage, a refused return, a bad hello; empty when nothing did).

Not here: protocols 2006 and 20140, ``RAND_TYPE ISO_NORMAL``, the windows, ``debug.dat``.
"""


from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from president_env.uecda.client import Chooser, run_session
from president_env.uecda.game import ServerGame
from president_env.uecda.log import PLACE_POINTS
from president_env.uecda.match import (
    GameRecord,
    LogWriter,
    MatchConfig,
    MersenneReal,
    cells_of,
    counted,
    deal,
    empty_raw,
    encode_raw,
    hand_table,
    log_cards,
    read_return,
    reseat,
    strongest,
    well_formed,
)
from president_env.uecda.protocol import (
    ACCEPTED,
    CONTINUE,
    DEAL_MOVER,
    GAME_OVER,
    JOKER,
    MATCH_OVER,
    NUM_PLAYERS,
    PROTOCOL_VERSION,
    REFUSED,
    Connection,
    Hand,
    Play,
)
from president_env.uecda.seats import TCP, Incident, PlayerLink

DEFAULT_PORT = 42485
GIVE = (2, 1)
"""Cards the daifugo and the fugo give back."""
_INT = struct.Struct(">I")


class ServerError(OSError):
    """The match cannot be played (a seat's client never came, the port is taken, ...)."""


# ---------------------------------------------------------------------------------------------
# The match


@dataclass
class MatchSummary:
    """What the server saw of the match."""

    names: tuple[str, ...]
    games: int
    points: tuple[int, ...]
    """Each player's total."""
    submissions: tuple[int, ...]
    """Each player's submissions other than passes."""
    refused: tuple[int, ...]
    """Of those, refused (a pass)."""
    incidents: list[Incident]
    log: Path | None
    seed: int
    seconds: float
    stalemates: int = 0


class UecdaServer:
    """A match at five seats (see the module docstring). ``seats[p]`` is player p: ``"tcp"`` or
    a :class:`~president_env.uecda.client.Chooser`. ``port`` 0 picks a free port (read
    :attr:`port`); the socket listens from construction on. ``log`` is the log's path (its
    sidecars beside it), ``None`` for no log. :meth:`run` plays the match."""

    def __init__(self, seats: Sequence[Chooser | str], config: MatchConfig | None = None, *,
                 host: str = "127.0.0.1", port: int = DEFAULT_PORT,
                 log: str | Path | None = None, connect_timeout: float = 60.0,
                 answer_timeout: float = 30.0, names: Sequence[str | None] | None = None) -> None:
        if len(seats) != NUM_PLAYERS:
            raise ValueError(f"a match has {NUM_PLAYERS} seats; got {len(seats)}")
        for s in seats:
            if isinstance(s, str) and s != TCP:
                raise ValueError(f"a seat is 'tcp' or a chooser; got {s!r}")
        for name, t in (("connect_timeout", connect_timeout), ("answer_timeout", answer_timeout)):
            if not t > 0:
                raise ValueError(f"{name} must be positive seconds; got {t}")
        if not 0 <= port < 65536:
            raise ValueError(f"port must be 0-65535; got {port}")
        self.seats = list(seats)
        self.config = config = config or MatchConfig()
        self.seed = int(time.time()) & 0xFFFFFFFF if config.seed is None else config.seed
        self.connect_timeout = connect_timeout
        self.answer_timeout = answer_timeout
        self.names = list(names) if names else [None] * NUM_PLAYERS
        self.log_path = None if log is None else Path(log)
        self.incidents: list[Incident] = []
        self.where = "before the match"
        self.listener: socket.socket | None = None
        self.port = port
        if any(s == TCP for s in seats):
            try:
                self.listener = socket.create_server((host, port))
            except OSError as e:
                raise ServerError(f"cannot listen on {host}:{port}: {e}") from None
            self.port = self.listener.getsockname()[1]
        self.players: list[PlayerLink] = []
        self.threads: list[threading.Thread] = []

    # ----------------------------------------------------------------------------- set-up
    def _report(self, player: int, what: str) -> None:
        self.incidents.append(Incident(player, self.where, what))

    def _connect(self) -> None:
        deadline = time.monotonic() + self.connect_timeout
        for p, seat in enumerate(self.seats):
            while True:
                sock = self._tcp_client(p, deadline) if seat == TCP else self._in_process(
                    p, seat)  # type: ignore[arg-type]
                player = PlayerLink(p, sock, self.answer_timeout, self._report)
                if self._hello(player, seat == TCP):
                    break
                if seat != TCP:
                    raise ServerError(f"player {p}: the in-process client sent no hello")
            self.players.append(player)
        if self.listener is not None:
            self.listener.close()

    def _tcp_client(self, p: int, deadline: float) -> socket.socket:
        assert self.listener is not None
        left = deadline - time.monotonic()
        if left <= 0:
            raise ServerError(f"player {p} (tcp): no client connected within "
                              f"{self.connect_timeout} s")
        self.listener.settimeout(left)
        try:
            sock, _ = self.listener.accept()
        except TimeoutError:
            raise ServerError(f"player {p} (tcp): no client connected within "
                              f"{self.connect_timeout} s") from None
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock

    def _in_process(self, p: int, chooser: Chooser) -> socket.socket:
        ours, theirs = socket.socketpair()
        name = self.names[p] or type(chooser).__name__.replace("Chooser", "").lower()
        # Between two messages the server may wait out one client and a send to each: the
        # in-process client must outwait that, or one silent TCP client would stop them all.
        conn = Connection(theirs, (2 + 2 * NUM_PLAYERS) * self.answer_timeout + 60)

        def client() -> None:
            try:
                run_session(conn, name[:9], chooser, self.config.rules)
            except Exception as e:  # noqa: BLE001 -- reported; the server drops the seat
                self._report(p, f"the in-process client stopped: {type(e).__name__}: {e}")
            finally:
                conn.close()

        thread = threading.Thread(target=client, name=f"uecda-player{p}", daemon=True)
        thread.start()
        self.threads.append(thread)
        return ours

    def _hello(self, player: PlayerLink, tcp: bool) -> bool:
        """Read the hello, keep the name, send the player number; False (closed) if the client
        does not speak protocol 20070."""
        table = player.recv_table("hello table")
        if table is None:
            return False
        if table[0][0] != PROTOCOL_VERSION:
            self._report(player.number, f"refused a client of protocol {table[0][0]} (only "
                         f"{PROTOCOL_VERSION} is spoken)")
            player.close()
            return False
        chars = []
        for v in table[1][:9]:
            if v == 0:
                break
            chars.append(chr(v) if 33 <= v < 127 else "_")
        player.name = "".join(chars) or player.name
        self.hello = table
        player.queue(_INT.pack(player.number))
        player.flush()
        return player.alive

    # ----------------------------------------------------------------------------- the match
    def run(self) -> MatchSummary:
        """Connect the players and play the match; the summary."""
        start = time.monotonic()
        try:
            self._connect()
            return self._match(start)
        finally:
            for player in self.players:
                player.close()
            if self.listener is not None:
                self.listener.close()
            for thread in self.threads:
                thread.join(self.answer_timeout)

    def _match(self, start: float) -> MatchSummary:
        cfg = self.config
        rng = MersenneReal(self.seed)
        names = tuple(p.name for p in self.players)
        log = LogWriter(self.log_path, names, cfg.settings(self.port, self.seed))
        self.work = self.hello  # tndhms reads every table into one buffer
        self.mibun = list(range(NUM_PLAYERS))
        seats = tuple(range(NUM_PLAYERS))
        points = [0] * NUM_PLAYERS
        self.submitted = [0] * NUM_PLAYERS
        self.refused = [0] * NUM_PLAYERS
        self.rejected_lines: list[str] = []
        stalemates = 0
        try:
            for g in range(1, cfg.games + 1):
                self.where = f"game {g - 1:05d}"
                if cfg.reseat and g % cfg.reseat_every == 1:
                    seats = reseat(rng)
                reset = (g - 1) % cfg.flash == 0
                swap = cfg.exchange and g % cfg.flash != 1
                initial = rng.below(NUM_PLAYERS) if reset else self.mibun[0]
                hands = deal(rng, initial, seats)
                record = GameRecord(seats="".join(map(str, seats)),
                               hands="".join(log_cards(cells_of(hand_table(h))) + " " for h in hands))
                hands = self._deal_and_exchange(hands, seats, reset, swap, record)
                stalemates += self._play(g, hands, seats, reset, rng, record)
                for place, p in enumerate(self.mibun):
                    points[p] += PLACE_POINTS[place]
                log.game(g - 1, record, self.mibun, points)
        finally:
            log.close(points)
            self._sidecars()
        return MatchSummary(names, cfg.games, tuple(points), tuple(self.submitted),
                            tuple(self.refused), self.incidents, self.log_path, self.seed,
                            time.monotonic() - start, stalemates)

    def _state(self, mover: int, empty: bool = False, back: bool = False, rev: bool = False,
               lock: bool = False, counts: Sequence[int] = (), reset: bool = False,
               seats: Sequence[int] = ()) -> None:
        """Rows 5-6 into the buffer, as ``tndhms`` writes them (the cells it does not write keep
        what the buffer held)."""
        w = self.work
        w[5][0:8] = [0, 0, 0, mover, int(empty), int(back), int(rev), int(lock)]
        w[6][0:5] = list(counts)
        if reset:
            w[6][5:10] = [0] * NUM_PLAYERS
        else:
            for klass, p in enumerate(self.mibun):
                w[6][5 + p] = klass
        w[6][10:15] = list(seats)

    def _deal_and_exchange(self, hands: list[Hand], seats: tuple[int, ...], reset: bool,
                           swap: bool, record: GameRecord) -> list[Hand]:
        m = self.mibun
        self._state(DEAL_MOVER, counts=[len(h) for h in hands], reset=reset, seats=seats)
        record.classes = "22222" if not any(self.work[6][5:10]) else "".join(
            str(v) for v in self.work[6][5:10])
        seen = list(hands)  # the hinmin's and daihinmin's deal tables: before the exchange
        if swap:
            for k in (2, 1):
                taken = strongest(hands[m[2 + k]], k)
                hands[m[2 + k]] = hands[m[2 + k]].without(taken)
                hands[m[2 - k]] = hands[m[2 - k]].with_cards(taken)
                record.changes.append(f"{m[2 + k]}{m[2 - k]}{log_cards(cells_of(taken.to_table()))}EE")
        for klass, p in enumerate(m):
            t = hand_table(hands[p] if klass < 3 else seen[p])
            t[5], t[6] = list(self.work[5]), list(self.work[6])
            t[5][0], t[5][1] = 1, (2 - klass) if swap else 0
            self.players[p].queue(encode_raw(t))
        if swap:
            for klass, receiver in ((0, m[4]), (1, m[3])):
                giver, count = m[klass], GIVE[klass]
                self._flush()
                table = self.players[giver].recv_table("return of cards")
                if table is None:
                    table = empty_raw()
                self.work = table
                gift = read_return(table, hands[giver], count, strict=klass == 0)
                cells = cells_of(table)
                if gift is None:
                    if self.players[giver].alive:
                        self._report(giver, f"returned {log_cards(cells) or 'nothing'}, not "
                                     f"{count} card(s) it holds: its strongest go")
                    gift = strongest(hands[giver], count)
                    cells = cells_of(gift.to_table())
                elif not well_formed(cells):
                    self._report(giver, f"returned {log_cards(cells)}: only "
                                 f"{log_cards(counted(cells))} counts")
                    cells = counted(cells)
                hands[giver] = hands[giver].without(gift)
                hands[receiver] = hands[receiver].with_cards(gift)
                record.changes.append(f"{giver}{receiver}{log_cards(cells)}EE")
        return hands

    def _flush(self) -> None:
        for player in self.players:
            player.flush()

    def _play(self, g: int, hands: list[Hand], seats: tuple[int, ...], reset: bool,
              rng: MersenneReal, record: GameRecord) -> bool:
        """One game's turns; whether it ended in a stalemate."""
        game = ServerGame(hands, seats, self.config.rules)
        self.work = empty_raw()
        stage = empty_raw()
        last_game = g == self.config.games
        index = 0
        while True:
            mover, before = game.mover, game.public
            self._state(mover, before.field.is_pass, before.back, before.revolution,
                        before.locked, game.counts, reset, seats)
            for p, player in enumerate(self.players):
                t = hand_table(game.hands[p])
                t[5], t[6] = list(self.work[5]), list(self.work[6])
                t[5][2] = int(p == mover)
                player.queue(encode_raw(t))
            self._flush()
            self.where = f"game {g - 1:05d} #{index}"
            table = self.players[mover].recv_table("submission")
            self.work = table = empty_raw() if table is None else table
            cells = cells_of(table)
            if well_formed(cells):
                play = Play(tuple((r, c) for r, c, v in cells if v == 1),
                            next(((r, c) for r, c, v in cells if v == JOKER), None))
                token = log_cards(cells)
                cards = not play.is_pass
            else:
                play = Play()
                token = ""
                cards = bool(counted(cells))
                self._report(mover, f"sent a table the server cannot read ({log_cards(cells)}): "
                             + ("refused" if cards else "a pass"))
            turn = game.step(play)
            if cards:
                self.submitted[mover] += 1
                if not turn.accepted:
                    self.refused[mover] += 1
                    self.rejected_lines.append(f"{g - 1:05d} #{index} {mover}{token}EE err=1")
            record.plays.append(f"{mover}{token}EE")
            index += 1
            ack = ACCEPTED if turn.accepted or not cards and before.field.is_pass else REFUSED
            self.players[mover].queue(_INT.pack(ack))
            if turn.accepted:
                stage = [list(row) for row in table]
                if not game.hands[mover]:
                    self.mibun[sum(not h for h in game.hands) - 1] = mover
            shown = turn.shown
            self._state(mover, shown.field.is_pass, shown.back, shown.revolution, shown.locked,
                        game.counts, reset, seats)
            stage[5], stage[6] = list(self.work[5]), list(self.work[6])
            if game.stalemate:
                self._rank_at_random(game, rng)
            end = CONTINUE if not game.done else MATCH_OVER if last_game else GAME_OVER
            data = encode_raw(stage) + _INT.pack(end)
            for player in self.players:
                player.queue(data)
            if turn.trick_over:
                stage = empty_raw()
            if game.done:
                self._flush()
                out = [p for p in range(NUM_PLAYERS) if p not in self.mibun[:4]]
                self.mibun[4] = out[0]
                return game.stalemate

    def _rank_at_random(self, game: ServerGame, rng: MersenneReal) -> None:
        """The 20-pass rule: the players still in, ranked by draws as ``tndhms`` does."""
        out = [not h for h in game.hands]
        goals = sum(out)
        while goals <= 3:
            j = min(int(rng() * (NUM_PLAYERS - goals) + 1), NUM_PLAYERS - goals)
            k = [p for p in range(NUM_PLAYERS) if not out[p]][j - 1]
            out[k] = True
            self.mibun[goals] = k
            goals += 1

    def _sidecars(self) -> None:
        if self.log_path is None:
            return
        stem = self.log_path.with_suffix("")
        Path(f"{stem}.rejected.txt").write_text("".join(f"{line}\n"
                                                        for line in self.rejected_lines))
        Path(f"{stem}.events.txt").write_text("".join(f"{i}\n" for i in self.incidents))
