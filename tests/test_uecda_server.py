"""Our UECda server (:mod:`president_env.uecda.server`) against the standard server's logs, our
client over TCP, clients that break, and the command line.

* **Byte for byte:** with the ``RANDOM_SEED`` of a committed ``tndhms`` match
  (``tests/data/uecda/``) and five in-process choosers that send what that match's players sent,
  our server must write the same log, line for line (but the host, the times and the number of
  games in the header): the same seats, deals, exchanges, refusals, stalemate draws, results and
  points.
* **Over TCP:** our clients in two seats and in-process choosers in three play a match on
  127.0.0.1; what each client saw matches the log, which :func:`~president_env.uecda.game.
  replay` replays with the refusals the server listed beside it.
* **Seeds** repeat a match; **broken clients** (one that stops mid-game, one that sends
  garbage, one that falls silent, one that returns bad cards) are dropped or refused, the match
  ends, and the events file says so; **bad input** is a clear error.
"""

from __future__ import annotations

import gzip
import random
import socket
import threading
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from president_env.uecda import read_log
from president_env.uecda.client import (
    Chooser,
    GreedyChooser,
    MatchResult,
    RandomChooser,
    View,
    play_match,
    run_session,
)
from president_env.uecda.game import (
    hand_from_counts,
    play_from_move,
    read_refused,
    replay,
)
from president_env.uecda.log import UecdaLog
from president_env.uecda.match import MatchConfig, MersenneReal, read_cfg, read_return, strongest
from president_env.uecda.moves import ServerRules
from president_env.uecda.protocol import (
    JOKER_HOME,
    TABLE_BYTES,
    Connection,
    Hand,
    Play,
    encode_table,
    hello_table,
)
from president_env.uecda.seats import TCP
from president_env.uecda.server import MatchSummary, ServerError, UecdaServer

DATA = Path(__file__).parent / "data" / "uecda"
VOLATILE = ("%-----%hostname%", "%-----%TIME_START%", "%-----%TIME_END%", "%-----%GAME_NUMBER%",
            "%-----%TOTAL_POINT%")
S, H, D, C = 0, 1, 2, 3


def cells(text: str) -> tuple[tuple[int, int], ...]:
    return tuple(("SHDC".index(w[0]), "x3456789TJQKA2".index(w[1])) for w in text.split())


@cache
def logged(config: str) -> UecdaLog:
    return read_log(DATA / f"{config}.log.gz")


def config_of(log: UecdaLog, games: int) -> MatchConfig:
    s = log.settings
    return MatchConfig(games=games, rules=ServerRules.from_settings(s),
                       exchange=s["RULE_CHANGE"] == "YES", reseat=s["RULE_SEKIGAE"] == "YES",
                       reseat_every=int(s["RULE_SEKIGAE_NUM"]),
                       flash=int(s["FLASH_MIBUN_NUMBER"]), seed=log.seed)


def moved(cards: object) -> Play:
    hand = hand_from_counts(cards)  # type: ignore[arg-type]
    return Play(tuple(hand.cards), JOKER_HOME if hand.joker else None)


class Logged:
    """Sends what player ``me`` sent in the first ``games`` games of ``log``."""

    def __init__(self, log: UecdaLog, me: int, games: int) -> None:
        played = log.games[:games]
        self.plays = iter([play_from_move(m) for g in played for m in g.moves if m.player == me])
        self.gifts = iter([moved(g.exchange[2 if g.classes[me] == 0 else 3][2]) for g in played
                           if g.exchange and g.classes is not None and g.classes[me] < 2])

    def give(self, view: View, count: int) -> Play:
        return next(self.gifts)

    def play(self, view: View) -> Play:
        return next(self.plays)


def lines(path: Path) -> list[str]:
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data.decode().splitlines()


def steady(text: list[str]) -> list[str]:
    return [line for line in text if not line.startswith(VOLATILE)]


def replay_match(config: str, games: int, tmp_path: Path) -> Path:
    log = logged(config)
    server = UecdaServer([Logged(log, p, games) for p in range(5)], config_of(log, games),
                         port=42485, log=tmp_path / "match.log", names=log.players)
    summary = server.run()
    assert summary.incidents == [] and summary.games == games
    return tmp_path / "match.log"


# (config, games): a refused run in game 10; stalemates (games 6, 16, ...); class resets every
# 10 games; 6-reverse; fixed seats.
@pytest.mark.parametrize("config, games", [("default", 25), ("no_kaidan", 20), ("flash10", 22),
                                           ("6revers", 12), ("no_sekigae", 12)])
def test_a_logged_match_is_played_again_byte_for_byte(config: str, games: int,
                                                      tmp_path: Path) -> None:
    path = replay_match(config, games, tmp_path)
    ours, theirs = lines(path), lines(DATA / f"{config}.log.gz")
    assert steady(ours) == steady(theirs)[:len(steady(ours))]
    assert len(ours) == 21 + 7 * games + 2
    assert ours[-1] == f"%-----%TOTAL_POINT% {' '.join(map(str, logged(config).games[games - 1].points))}"
    refused = {(g, k) for g, k in read_refused(DATA / f"{config}.rejected.txt") if g < games}
    assert read_refused(tmp_path / "match.rejected.txt") == refused
    if config == "no_kaidan":
        assert replay(read_log(path), refused).stalemates >= 2
    assert (tmp_path / "match.events.txt").read_text() == ""


@pytest.mark.long
@pytest.mark.parametrize("config", ["default", "11back", "no_shibari", "6revers", "no_kakumei",
                                    "no_8giri", "no_kaidan", "no_change", "no_sekigae",
                                    "flash10"])
def test_every_logged_match_is_played_again_byte_for_byte(config: str, tmp_path: Path) -> None:
    path = replay_match(config, 1000, tmp_path)
    assert steady(lines(path)) == steady(lines(DATA / f"{config}.log.gz"))
    assert read_refused(tmp_path / "match.rejected.txt") == read_refused(
        DATA / f"{config}.rejected.txt")


# --------------------------------------------------------------------------- over TCP


def serve_in_thread(server: UecdaServer) -> tuple[threading.Thread, list[object]]:
    """The server's run in a thread; ``out`` gets the summary (or the exception)."""
    out: list[object] = []

    def run() -> None:
        try:
            out.append(server.run())
        except BaseException as e:  # reported by the test
            out.append(e)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


def summary_of(out: list[object]) -> MatchSummary:
    assert len(out) == 1 and isinstance(out[0], MatchSummary), out
    return out[0]


def client_in_thread(target: object, *args: object) -> tuple[threading.Thread, list[object]]:
    out: list[object] = []

    def run() -> None:
        try:
            out.append(target(*args))  # type: ignore[operator]
        except BaseException as e:  # reported by the test
            out.append(e)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


def check_log(path: Path, games: int) -> UecdaLog:
    """The log reads, replays with the refusals beside it, and its points add up."""
    log = read_log(path)
    assert len(log.games) == games
    replay(log, read_refused(path.with_suffix(".rejected.txt")))
    totals = [0] * 5
    for game in log.games:
        for place, p in enumerate(game.result):
            totals[p] += 5 - place
        assert game.points == tuple(totals)
        sizes = [int(h.sum()) for h in game.hands]
        first = sorted(range(5), key=lambda p: -sizes[p])[:3]  # who got 11
        if game.number and not game.reset:  # dealt from the daifugo's seat
            s = game.seats.index(log.games[game.number - 1].result[0])
            assert sorted(first) == sorted(game.seats[(s + i) % 5] for i in range(3))
        assert sorted(sizes) == [10, 10, 11, 11, 11]
        assert np.sum(game.hands, axis=0).tolist() == [1] * 53
    assert log.total_points == tuple(totals)
    return log


def test_our_clients_and_in_process_seats_play_a_match_over_tcp(tmp_path: Path) -> None:
    games = 12  # class reset in game 1, exchanges, seats changed in games 1, 4, 7, 10
    seats: list[Chooser | str] = [TCP, RandomChooser(3), TCP, GreedyChooser(), RandomChooser(4)]
    server = UecdaServer(seats, MatchConfig(games=games, seed=11), port=0,
                         log=tmp_path / "m.log", connect_timeout=10, answer_timeout=10)
    assert server.port > 0 and server.listener is not None
    assert server.listener.getsockname()[0] == "127.0.0.1"  # not every interface
    thread, result = serve_in_thread(server)
    clients = [client_in_thread(play_match, "127.0.0.1", server.port, name, chooser)
               for name, chooser in (("tcprandom", RandomChooser(9)), ("tcpgreedy", GreedyChooser()))]
    for t, _ in clients:
        t.join(60)
    thread.join(60)
    summary = summary_of(result)
    log = check_log(tmp_path / "m.log", games)
    seen: dict[str, MatchResult] = {}
    for _, out in clients:
        assert isinstance(out[0], MatchResult), out[0]
        seen[summary.names[out[0].player]] = out[0]
    assert sorted(seen) == ["tcpgreedy", "tcprandom"]
    assert {seen[n].player for n in seen} == {0, 2}
    assert summary.names[1] == "random" and summary.names[3] == "greedy"
    assert log.players == summary.names
    assert sum(summary.refused) == 0 and summary.incidents == []
    for name, r in seen.items():
        assert r.games == games and r.refused == 0 and r.plays > 20, name
        assert summary.submissions[r.player] == r.plays
        assert r.finish_orders == [g.result for g in log.games]
    assert [g.reset for g in log.games] == [True] + [False] * (games - 1)
    assert all(len(g.exchange) == 4 for g in log.games[1:])
    assert len({g.seats for g in log.games}) > 1
    assert all(g.seats == log.games[3 * (g.number // 3)].seats for g in log.games)


def in_process_match(seed: int, games: int, tmp_path: Path, name: str,
                     rules: ServerRules) -> list[str]:
    seats: list[Chooser] = [RandomChooser(1), GreedyChooser(), RandomChooser(2), RandomChooser(3),
             GreedyChooser()]
    UecdaServer(seats, MatchConfig(games=games, seed=seed, rules=rules, flash=4),
                log=tmp_path / name).run()
    return lines(tmp_path / name)


def test_a_seed_repeats_the_match_exactly(tmp_path: Path) -> None:
    rules = ServerRules(jack_back=True, six_reverses=True)
    a = in_process_match(5, 9, tmp_path, "a.log", rules)
    b = in_process_match(5, 9, tmp_path, "b.log", rules)
    c = in_process_match(6, 9, tmp_path, "c.log", rules)
    assert steady(a) == steady(b) and len(a) == 21 + 7 * 9 + 2
    assert [x for x in steady(a) if "palyer_cards" in x] != [
        x for x in steady(c) if "palyer_cards" in x]
    log = check_log(tmp_path / "a.log", 9)
    assert [g.reset for g in log.games] == [True, False, False, False] * 2 + [True]
    assert log.settings["RULE_11BACK"] == "YES" and log.settings["RANDOM_SEED"] == "5"


# --------------------------------------------------------------------------- broken clients


class Mangling(Connection):
    """A client's connection whose tables after the hello go through ``mangle``."""

    mangle: Callable[[bytes], bytes] | None = None
    sent = 0

    def send_table(self, table: Iterable[Iterable[int]]) -> None:
        data = encode_table(table)
        if self.sent and self.mangle is not None:
            data = self.mangle(data)
        self.sent += 1
        self.sock.sendall(data)


def mangled_client(port: int, name: str, chooser: Chooser,
                   mangle: Callable[[bytes], bytes]) -> MatchResult:
    conn = Mangling(socket.create_connection(("127.0.0.1", port), timeout=10), 10)
    conn.mangle = mangle
    try:
        return run_session(conn, name, chooser)
    finally:
        conn.close()


class StopsAfter(GreedyChooser):
    """Plays greedily, then raises (the client closes its connection) at its ``n``-th turn."""

    def __init__(self, n: int) -> None:
        self.n = n

    def play(self, view: View) -> Play:
        self.n -= 1
        if self.n < 0:
            raise RuntimeError("the client stops here")
        return super().play(view)


def run_with(tmp_path: Path, client: object, *args: object, games: int = 6,
             timeout: float = 10) -> tuple[MatchSummary, list[object], UecdaLog, str]:
    server = UecdaServer([GreedyChooser(), TCP, RandomChooser(1), GreedyChooser(),
                          RandomChooser(2)], MatchConfig(games=games, seed=3), port=0,
                         log=tmp_path / "m.log", connect_timeout=10, answer_timeout=timeout)
    thread, result = serve_in_thread(server)
    cthread, out = client_in_thread(client, server.port, *args)
    thread.join(120)
    cthread.join(30)
    summary = summary_of(result)
    assert summary.games == games
    log = check_log(tmp_path / "m.log", games)
    return summary, out, log, (tmp_path / "m.events.txt").read_text()


def test_a_client_that_disconnects_mid_game_passes_from_then_on(tmp_path: Path) -> None:
    summary, out, log, events = run_with(
        tmp_path, lambda port: play_match("127.0.0.1", port, "quitter", StopsAfter(30)))
    assert isinstance(out[0], RuntimeError)
    (line,) = events.splitlines()
    assert "player 1: dropped: closed the connection where its submission was due" in line
    game, turn = (int(x) for x in line.split(":")[0].removeprefix("game ").split(" #"))
    assert game < 5  # mid-match: games after it are played
    mine = [(g.number, k, m) for g in log.games for k, m in enumerate(g.moves) if m.player == 1]
    before = [m for g, k, m in mine if (g, k) < (game, turn)]
    assert len(before) == 30
    assert all(m.is_pass for g, k, m in mine if (g, k) >= (game, turn))
    assert summary.submissions[1] == sum(not m.is_pass for m in before) > 10
    assert summary.refused[1] == 0


def test_a_client_that_sends_garbage_is_refused_and_the_match_goes_on(tmp_path: Path) -> None:
    junk = iter(range(10 ** 6))
    rng = random.Random(8)

    def mangle(data: bytes) -> bytes:
        n = next(junk)
        if n % 3 == 0:  # cells far beyond 0-2 (none 1 or 2): not a table, and no card in it
            return rng.randbytes(TABLE_BYTES)
        if n % 3 == 1:  # a well-formed table: S3, H5 and the joker at [0][0], not a play
            return encode_table(Play(cells("S3 H5"), (S, 0)).to_table())
        return data

    summary, out, log, events = run_with(tmp_path, mangled_client, "garbage", GreedyChooser(),
                                         mangle)
    assert isinstance(out[0], MatchResult) and out[0].games == 6
    assert "dropped" not in events
    unreadable = events.count("player 1: sent a table the server cannot read")
    assert unreadable >= 10
    odd = [m for g in log.games for m in g.moves if m.player == 1 and m.joker_as]
    assert len(odd) >= 10  # the S3 H5 joker table, logged as sent
    refused = (tmp_path / "m.rejected.txt").read_text().splitlines()
    assert len(refused) == len(odd) and all(" 1KxS3H5EE " in r for r in refused)
    assert summary.refused[1] == len(refused)  # the unreadable tables held no 1 or 2: passes
    assert "a pass" in events


def test_a_client_that_falls_silent_is_dropped_after_the_timeout(tmp_path: Path) -> None:
    def silent(port: int) -> None:  # reads everything, answers nothing
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(encode_table(hello_table("silent")))
            while sock.recv(1 << 16):
                pass

    summary, _, log, events = run_with(tmp_path, silent, games=3, timeout=0.3)
    (line,) = events.splitlines()  # the in-process players outwait the server's waits
    assert "player 1: dropped: sent no" in line
    assert "within 0.3 s" in events
    assert all(m.is_pass for g in log.games for m in g.moves if m.player == 1)
    assert summary.names[1] == "silent"


def test_bad_returns_give_the_strongest_cards(tmp_path: Path) -> None:
    state = {"gift": False}

    class Marking(GreedyChooser):
        def give(self, view: View, count: int) -> Play:
            state["gift"] = True
            return super().give(view, count)

    def mangle(data: bytes) -> bytes:
        if state.pop("gift", False):
            return encode_table(Play(cells("S3 H3 D3")).to_table())  # 3 cards, maybe not held
        return data

    summary, out, log, events = run_with(tmp_path, mangled_client, "giver", Marking(), mangle,
                                         games=30)
    gifts = 0
    for game in log.games:
        if not game.exchange or game.classes is None or game.classes[1] > 1:
            continue
        gifts += 1
        klass = game.classes[1]
        hands = [hand_from_counts(h) for h in game.hands]
        for giver, receiver, cards in game.exchange[:2]:
            hands[giver] = hands[giver].without(moved(cards))
            hands[receiver] = hands[receiver].with_cards(moved(cards))
        step = game.exchange[2 + klass]
        assert step[0] == 1 and moved(step[2]) == strongest(hands[1], 2 - klass)
    assert gifts >= 2
    assert events.count("player 1: returned ") == gifts
    assert "its strongest go" in events


# --------------------------------------------------------------------------- pieces


def test_the_random_numbers_are_mt19937_from_init_genrand() -> None:
    rng = MersenneReal(5489)  # the reference generator's default seed
    assert [rng._mt.getrandbits(32) for _ in range(3)] == [3499211612, 581869302, 3890346734]
    assert MersenneReal(1)() == MersenneReal(1)() != MersenneReal(2)()


def test_strongest_takes_the_joker_then_the_highest_spades_first() -> None:
    hand = Hand(frozenset(cells("S3 H2 C2 DA SK")), True)
    assert strongest(hand, 2) == Play(cells("H2"), JOKER_HOME)
    assert strongest(hand, 1) == Play((), JOKER_HOME)
    assert strongest(Hand(frozenset(cells("S3 H2 C2 DA SK"))), 2) == Play(cells("H2 C2"))
    assert strongest(Hand(frozenset(cells("C2 SA HA"))), 2) == Play(cells("C2 SA"))


def table_of(text: str, joker: tuple[int, int] | None = None, **extra: int) -> list[list[int]]:
    t = [list(row) for row in Play(cells(text), joker).to_table()]
    for key, value in extra.items():
        r, c = (int(x) for x in key[1:].split("_"))
        t[r][c] = value
    return t


def test_a_return_must_be_exactly_that_many_held_cards() -> None:
    hand = Hand(frozenset(cells("S3 H4 D5 C6")), True)
    assert read_return(table_of("S3 H4"), hand, 2, strict=True) == Play(cells("S3 H4"))
    assert read_return(table_of("S3", (S, 7)), hand, 2, strict=True) == Play(cells("S3"),
                                                                              JOKER_HOME)
    assert read_return(table_of("S3"), hand, 2, strict=True) is None  # one card, not two
    assert read_return(table_of("S3 H4 D5"), hand, 2, strict=True) is None
    assert read_return(table_of("S3 HA"), hand, 2, strict=True) is None  # HA not held
    assert read_return(table_of("S3", (S, 7)), Hand(hand.cards), 2, strict=True) is None
    junk = table_of("S3 H4", x3_7=9)
    assert read_return(junk, hand, 2, strict=True) is None  # the daifugo's table is tested
    assert read_return(table_of("D5", x3_7=9), hand, 1, strict=False) == Play(cells("D5"))
    assert read_return(table_of("D5", x5_3=7), hand, 1, strict=True) == Play(cells("D5"))
    assert read_return(table_of("D5", x0_0=1), hand, 2, strict=False) is None  # [0][0] held?


def test_a_config_file_reads_as_tndhms_reads_it() -> None:
    text = ("# comment\nWINDOW_TYPE\tconsole\nRULE_11BACK yes\nRULE_KAIDAN\tno\n"
            "RULE_CHANGE no\nRULE_SEKIGAE_NUM 4\nGAME_NUMBER 7  # seven\nPORT_NUMBER 5000\n"
            "RAND_TYPE MT\nFLASH_MIBUN_NUMBER 10\n")
    config, port = read_cfg(text)
    assert port == 5000
    assert config == MatchConfig(games=7, rules=ServerRules(jack_back=True, runs=False),
                                 exchange=False, reseat_every=4, flash=10)
    for bad, message in (("RULE_11BACK maybe", "line 1: RULE_11BACK is 'maybe'"),
                         ("RAND_TYPE ISO_NORMAL", "only MT"), ("GAME_NUMBER x", "not a whole"),
                         ("COLOUR blue", "unknown setting 'COLOUR'"), ("GAME_NUMBER 0", "games"),
                         ("RULE_8GIRI", "expected KEY VALUE")):
        with pytest.raises(ValueError, match=message):
            read_cfg(bad)


def test_no_client_is_a_clear_error_and_a_wrong_protocol_is_refused() -> None:
    server = UecdaServer([TCP] * 5, MatchConfig(games=1), port=0, connect_timeout=0.3)
    with pytest.raises(ServerError, match=r"player 0 \(tcp\): no client connected within 0.3 s"):
        server.run()
    server = UecdaServer([TCP, *[GreedyChooser()] * 4], MatchConfig(games=1), port=0,
                         connect_timeout=1, answer_timeout=1)
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        t = [list(row) for row in hello_table("old")]
        t[0][0] = 20140
        sock.sendall(encode_table(t))
        with pytest.raises(ServerError, match="no client connected"):
            server.run()
    assert "refused a client of protocol 20140" in str(server.incidents[0])
    with pytest.raises(ValueError, match="a match has 5 seats"):
        UecdaServer([TCP] * 4)
    with pytest.raises(ValueError, match="games must be a whole number from 1"):
        MatchConfig(games=0)
    with pytest.raises(ValueError, match="seed must be"):
        MatchConfig(seed=-1)


# --------------------------------------------------------------------------- the command line


def test_the_command_line_server_plays_and_prints_its_summary(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from president_env.uecda.cli import main

    cfg = tmp_path / "tndhms.cfg"
    cfg.write_text("RULE_6REVERS yes\nGAME_NUMBER 2\nRULE_SEKIGAE no\n")
    main(["server", "--seats", "random,greedy,random:5,greedy,random", "--seed", "4",
          "--config", str(cfg), "--rules", "no_shibari", "--log", str(tmp_path / "x.log")])
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["games"] == 2 and out["seed"] == 4 and out["incidents"] == []
    assert out["names"] == ["random", "greedy", "random", "greedy", "random"]
    assert "listening on 127.0.0.1:42485, 2 games, seed 4" in captured.err
    log = check_log(tmp_path / "x.log", 2)
    assert (log.settings["RULE_6REVERS"], log.settings["RULE_SHIBARI"],
            log.settings["RULE_SEKIGAE"]) == ("YES", "NO", "NO")
    assert list(log.total_points) == out["points"]


@pytest.mark.parametrize("argv, message", [
    (["server", "--seats", "tcp,tcp"], "--seats needs 5 comma-separated seats"),
    (["server", "--seats", "tcp,hardest,tcp,tcp,tcp"], "seat 'hardest': expected random"),
    (["server", "--seats", "tcp,random:x,tcp,tcp,tcp"], "seat 'random:x'"),
    (["server", "--rules", "12back"], "unknown '12back'; expected some of 11back, 6revers"),
    (["server", "--port", "70000"], "expected a port 0-65535"),
    (["server", "--games", "0"], "--games 0: expected a number > 0"),
    (["server", "--seed", "-1"], "expected 0 to 2**32 - 1"),
    (["server", "--config", "/no/such.cfg"], "no such file"),
    (["server", "--games", "20000", "--seats", "random,random,random,random,random"],
     "games must be a whole number from 1 to 15000"),
    (["serve"], "usage: president-uecda client|server"),
])
def test_the_server_command_line_refuses_bad_arguments(
        argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    from president_env.uecda.cli import main

    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2 and message in capsys.readouterr().err


def test_a_bad_config_file_is_a_clear_error(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    from president_env.uecda.cli import main

    cfg = tmp_path / "bad.cfg"
    cfg.write_text("GAME_NUMBER 3\nRULE_SHIBARI perhaps\n")
    with pytest.raises(SystemExit) as info:
        main(["server", "--config", str(cfg)])
    assert info.value.code == 2
    assert "config line 2: RULE_SHIBARI is 'perhaps', not yes or no" in capsys.readouterr().err
