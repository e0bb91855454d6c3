"""The UECda client (:mod:`president_env.uecda.client`) against a test server of our own.

The test server speaks protocol 20070 on 127.0.0.1 to one client, as the standard server would
(``docs/experiments/2026-12-04-uecda-server-rules.md`` §9, §11), and replays logged games
(``tests/data/uecda/default``) with :class:`~president_env.uecda.game.ServerGame`: deal table,
exchange, a hand table per turn, ack, field table, end signal. The client's chooser replays
that player's logged submissions; the server checks each table the client sends, and the test
checks what the client reconstructed (hand, field and flags, the history of the game, the
finishing orders, its refused plays) against the log. Then the same server sends garbage.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest

from president_env.uecda import read_log
from president_env.uecda.client import (
    GreedyChooser,
    RandomChooser,
    View,
    play_match,
)
from president_env.uecda.game import (
    ServerGame,
    hand_from_counts,
    hands_after_exchange,
    play_from_move,
)
from president_env.uecda.log import UecdaGame, UecdaLog
from president_env.uecda.moves import Public, ServerRules, legal_plays
from president_env.uecda.protocol import (
    ACCEPTED,
    CONTINUE,
    DEAL_MOVER,
    GAME_OVER,
    INT_BYTES,
    JOKER_HOME,
    MATCH_OVER,
    REFUSED,
    TABLE_BYTES,
    ConnectionClosed,
    Hand,
    Play,
    ProtocolError,
    TableState,
    as_table,
    decode_table,
    empty_table,
    encode_int,
    encode_table,
    read_hello,
)

DATA = Path(__file__).parent / "data" / "uecda"
ME = 2
GAMES = (0, 10, 707, 1)
"""A class-reset game; player 2 as daifugo with a refused run (default.rejected.txt: 00010 #3);
as fugo; as the one the server takes from or a heimin."""


@cache
def log() -> UecdaLog:
    return read_log(DATA / "default.log.gz")


def refused_in(game: int) -> set[int]:
    out = set()
    for line in (DATA / "default.rejected.txt").read_text().splitlines():
        g, index, _, _ = line.split()
        if int(g) == game:
            out.add(int(index[1:]))
    return out


def _recv(conn: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("the client closed the connection")
        buf += chunk
    return buf


def _moved(cards: object) -> Play:
    hand = hand_from_counts(cards)  # type: ignore[arg-type]
    return Play(tuple(hand.cards), JOKER_HOME if hand.joker else None)


class Expected:
    """What the server knows the client should have seen and sent."""

    def __init__(self) -> None:
        self.views: list[tuple[Hand, Public, tuple[tuple[int, Play | None], ...]]] = []
        self.gifts: list[Play] = []
        self.mismatches: list[str] = []


def serve_game(conn: socket.socket, game: UecdaGame, me: int, last: bool, expected: Expected
               ) -> None:
    """One logged game to the client, player ``me``, as the standard server sends it."""
    rules = ServerRules()
    klass = None if game.classes is None else game.classes[me]
    deal_hand = hand_from_counts(game.hands[me])
    for _, receiver, cards in game.exchange[:2]:  # the server takes the strongest
        if receiver == me:
            deal_hand = deal_hand.with_cards(_moved(cards))
    give = max(0, 2 - klass) if game.exchange and klass is not None else 0
    t = deal_hand.to_table()
    TableState(True, give, False, DEAL_MOVER, False, False, False, False,
               tuple(len(hand_from_counts(h)) for h in game.hands), game.classes,
               game.seats).write(t)
    conn.sendall(encode_table(t))
    if give:
        got = Play.from_table(decode_table(_recv(conn, TABLE_BYTES)))
        expected.gifts.append(got)
        step = game.exchange[2 if klass == 0 else 3]
        if got != _moved(step[2]):
            expected.mismatches.append(f"game {game.number}: gift {got}")
    g = ServerGame(hands_after_exchange(game), game.seats, rules)
    refused = refused_in(game.number)
    history: list[tuple[int, Play | None]] = []
    for k, move in enumerate(game.moves):
        mover, play = g.mover, play_from_move(move)
        assert mover == move.player
        t = g.hands[me].to_table()
        TableState(False, 0, mover == me, mover, g.public.field.is_pass, g.public.back,
                   g.public.revolution, g.public.locked, g.counts, game.classes,
                   game.seats).write(t)
        conn.sendall(encode_table(t))
        lead = g.public.field.is_pass
        if mover == me:
            expected.views.append((g.hands[me], g.public, tuple(history)))
            got = Play.from_table(decode_table(_recv(conn, TABLE_BYTES)))
            if got != play:
                expected.mismatches.append(f"game {game.number} #{k}: sent {got}, log {play}")
        turn = g.step(play)
        assert turn.accepted == (not play.is_pass and k not in refused)
        if mover == me:
            conn.sendall(encode_int(ACCEPTED if turn.accepted or play.is_pass and lead
                                    else REFUSED))
        history.append((mover, play if turn.accepted else None))
        t = [list(row) for row in turn.shown.field.to_table()]
        TableState(False, 0, False, mover, turn.shown.field.is_pass, turn.shown.back,
                   turn.shown.revolution, turn.shown.locked, g.counts, game.classes,
                   game.seats).write(t)
        conn.sendall(encode_table(t))
        end = (MATCH_OVER if last else GAME_OVER) if g.done else CONTINUE
        conn.sendall(encode_int(end))
        if g.done:
            assert k == len(game.moves) - 1
            return


def start_server(handler: Callable[[socket.socket], None]) -> tuple[int, threading.Thread,
                                                                    list[BaseException]]:
    """A one-client server on 127.0.0.1 (a free port) running ``handler`` in a thread."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    errors: list[BaseException] = []

    def run() -> None:
        try:
            conn, _ = listener.accept()
            with conn:
                conn.settimeout(10)
                handler(conn)
        except BaseException as e:  # reported by the test
            errors.append(e)
        finally:
            listener.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return port, thread, errors


def handshake(conn: socket.socket, me: int = ME) -> str:
    version, name = read_hello(decode_table(_recv(conn, TABLE_BYTES)))
    assert version == 20070
    conn.sendall(encode_int(me))
    return name


class LoggedChooser:
    """Sends player ``me``'s logged submissions and records what it was shown."""

    def __init__(self, games: list[UecdaGame], me: int) -> None:
        self.plays = iter([play_from_move(m) for g in games for m in g.moves if m.player == me])
        self.gifts = iter([_moved(g.exchange[2 if g.classes[me] == 0 else 3][2]) for g in games
                           if g.exchange and g.classes is not None and g.classes[me] < 2])
        self.views: list[View] = []
        self.gift_counts: list[int] = []

    def give(self, view: View, count: int) -> Play:
        self.gift_counts.append(count)
        return next(self.gifts)

    def play(self, view: View) -> Play:
        self.views.append(view)
        return next(self.plays)


def test_the_client_replays_logged_games_and_sees_what_the_server_saw() -> None:
    games = [log().games[n] for n in GAMES]
    expected = Expected()
    names: list[str] = []

    def handler(conn: socket.socket) -> None:
        names.append(handshake(conn))
        for i, game in enumerate(games):
            serve_game(conn, game, ME, i == len(games) - 1, expected)

    port, thread, errors = start_server(handler)
    chooser = LoggedChooser(games, ME)
    result = play_match("127.0.0.1", port, "logged", chooser, timeout=10)
    thread.join(10)
    assert not errors and not expected.mismatches and names == ["logged"]
    assert result.player == ME and result.games == len(GAMES)
    assert result.finish_orders == [g.result for g in games]
    mine = [(g.number, k) for g in games for k, m in enumerate(g.moves)
            if m.player == ME and not m.is_pass]
    assert result.plays == len(mine)
    assert result.refused == sum(k in refused_in(n) for n, k in mine) >= 1
    assert chooser.gift_counts == [2, 1] and len(expected.gifts) == 2  # daifugo, fugo
    assert len(chooser.views) == len(expected.views) > 20
    for view, (hand, public, history) in zip(chooser.views, expected.views, strict=True):
        assert (view.hand, view.public, view.history) == (hand, public, history)
        assert view.seats == games[view.game].seats
        assert view.classes == games[view.game].classes


def _view(hand: Hand, public: Public) -> View:
    return View(ME, 0, hand, public, (5, 5, 5, 5, 5), None, (0, 1, 2, 3, 4), ())


def test_greedy_plays_the_weakest_cards_keeping_the_joker() -> None:
    cells = lambda text: tuple(("SHDC".index(w[0]), "x3456789TJQKA2".index(w[1]))  # noqa: E731
                               for w in text.split())
    h = Hand(frozenset(cells("S3 H3 D9 C2")), True)
    assert str(GreedyChooser().play(_view(h, Public()))) == "S3 H3"  # the pair before S3
    assert str(GreedyChooser().play(_view(h, Public(revolution=True)))) == "C2"
    assert str(GreedyChooser().play(_view(h, Public(Play(cells("SA")))))) == "C2"
    only_joker = Public(Play(cells("D2")))
    assert GreedyChooser().play(_view(h, only_joker)).joker is not None
    assert GreedyChooser().play(_view(Hand(frozenset(cells("S3"))), only_joker)).is_pass
    assert GreedyChooser().give(_view(h, Public()), 2) == Play(cells("S3 H3"))


def test_random_chooser_is_uniform_over_legal_plays_and_repeats_with_its_seed() -> None:
    g = ServerGame(hands_after_exchange(log().games[3]), log().games[3].seats)
    view = _view(g.hands[g.mover], g.public)
    legal = legal_plays(view.hand, view.public, lone_joker="one")
    a = [RandomChooser(5).play(view) for _ in range(3)]
    chooser = RandomChooser(5)
    b = [chooser.play(view) for _ in range(400)]
    assert a == [b[0]] * 3 and set(b) == set(legal)  # all of them come up
    assert [RandomChooser(9).play(view) for _ in range(2)][0] != b[0] or len(legal) == 1


@pytest.mark.parametrize("script, message", [
    ("close", "closed the connection where the deal table was due"),
    ("silent", "no deal table from the server within 0.5 s"),
    ("bad cell", r"deal table: cell \[0\]\[5\] = 3"),
    ("no deal flag", r"no deal flag"),
    ("bad ack", "the ack is 7"),
    ("bad end", "end-of-game signal is 5"),
    ("short", "closed the connection where the hand table was due .100 of 480"),
    ("player 5", "player number 5"),
])
def test_garbage_from_the_server_is_a_clear_error(script: str, message: str) -> None:
    gate = threading.Event()

    def handler(conn: socket.socket) -> None:
        handshake(conn, 5 if script == "player 5" else ME)
        if script == "silent":
            gate.wait(5)
            return
        if script in ("close", "player 5"):
            return
        deal = empty_table()
        deal[0][5] = 3 if script == "bad cell" else 1
        dealt = script != "no deal flag"
        TableState(dealt, 0, False, DEAL_MOVER if dealt else 0, False, False, False, False,
                   (1, 1, 1, 1, 1), None, (0, 1, 2, 3, 4)).write(deal)
        conn.sendall(encode_table(deal))
        if script in ("bad cell", "no deal flag"):
            return
        if script == "short":
            conn.sendall(b"\x00" * 100)
            return
        turn = empty_table()
        turn[0][5] = 1
        TableState(False, 0, True, ME, True, False, False, False, (1, 1, 1, 1, 1), None,
                   (0, 1, 2, 3, 4)).write(turn)
        conn.sendall(encode_table(turn))
        _recv(conn, TABLE_BYTES)
        conn.sendall(encode_int(7 if script == "bad ack" else ACCEPTED))
        if script == "bad ack":  # the client stops there: more would race its close
            return
        conn.sendall(encode_table(as_table(turn)))
        conn.sendall(encode_int(5))

    port, thread, errors = start_server(handler)
    with pytest.raises(ProtocolError, match=message) as info:
        play_match("127.0.0.1", port, "x", GreedyChooser(), timeout=0.5)
    gate.set()
    thread.join(10)
    assert not errors
    if script in ("close", "short"):
        assert isinstance(info.value, ConnectionClosed)


def test_a_chooser_that_gives_cards_it_does_not_hold_is_stopped_before_sending() -> None:
    class Bad(GreedyChooser):
        def give(self, view: View, count: int) -> Play:
            return Play(((0, 13),) * 1)

    def handler(conn: socket.socket) -> None:
        handshake(conn)
        deal = empty_table()
        deal[0][1] = deal[1][1] = 1
        TableState(True, 2, False, DEAL_MOVER, False, False, False, False, (2, 1, 1, 1, 1),
                   (0, 1, 2, 3, 4), (0, 1, 2, 3, 4)).write(deal)
        conn.sendall(encode_table(deal))
        conn.settimeout(2)
        assert conn.recv(INT_BYTES) == b""  # nothing sent: the client closed

    port, thread, errors = start_server(handler)
    with pytest.raises(ValueError, match="must give 2 held card"):
        play_match("127.0.0.1", port, "x", Bad(), timeout=2)
    thread.join(10)
    assert not errors


def _one_turn_match(conn: socket.socket) -> None:
    """A match of one game in one turn: we hold the S3 and the 4 of hearts; play, end."""
    handshake(conn)
    seats = (0, 1, 2, 3, 4)
    deal = empty_table()
    deal[0][1] = deal[1][2] = 1
    TableState(True, 0, False, DEAL_MOVER, False, False, False, False, (1, 1, 2, 1, 1), None,
               seats).write(deal)
    conn.sendall(encode_table(deal))
    turn = [list(row) for row in deal]
    TableState(False, 0, True, ME, True, False, False, False, (1, 1, 2, 1, 1), None,
               seats).write(turn)
    conn.sendall(encode_table(turn))
    got = Play.from_table(decode_table(_recv(conn, TABLE_BYTES)))
    conn.sendall(encode_int(ACCEPTED))
    field = [list(row) for row in got.to_table()]
    TableState(False, 0, False, ME, False, False, False, False, (1, 1, 1, 1, 1), None,
               seats).write(field)
    conn.sendall(encode_table(field))
    conn.sendall(encode_int(MATCH_OVER))


def test_the_command_line_client_plays_and_prints_its_summary(
        capsys: pytest.CaptureFixture[str]) -> None:
    from president_env.uecda.cli import main

    port, thread, errors = start_server(_one_turn_match)
    main(["client", "--port", str(port), "--agent", "greedy", "--timeout", "5"])
    thread.join(10)
    assert not errors
    assert capsys.readouterr().out.strip() == (
        '{"player": 2, "games": 1, "plays": 1, "refused": 0, "places": [0]}')


@pytest.mark.parametrize("argv, message", [
    ([], "usage: president-uecda client"),
    (["play"], "usage: president-uecda client|server"),
    (["client", "--name", "two words"], "--name 'two words': expected 1-15 printable ASCII"),
    (["client", "--agent", "hardest"], "--agent hardest: seat 'hardest': expected random"),
    (["client", "--agent", "no/such.pt"], "no checkpoint file no/such.pt"),
    (["client", "--port", "0"], "--port 0: expected a number > 0"),
])
def test_the_command_line_refuses_bad_arguments(argv: list[str], message: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from president_env.uecda.cli import main

    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2 and message in capsys.readouterr().err
