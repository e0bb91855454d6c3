"""``president-uecda client`` and ``president-uecda server``: UECda matches (protocol 20070).

    president-uecda client --host 127.0.0.1 --port 42485 --agent greedy --name greedy

connects to a server (the standard ``tndhms`` or ours), plays until it ends the match and
prints one line of JSON: our player number, the games, our plays and how many the server
refused, and our place in each game as seen (1 daifugo .. 5 daihinmin; 0 where a 20-pass
stalemate left it to the server's draw).

    president-uecda server --port 42485 --games 1000 --seats tcp,tcp,random,greedy,tcp --seed 7

plays a match at our server (:mod:`president_env.uecda.server`): ``tcp`` seats wait for clients
(in the order they connect), the others play in-process. It writes the ``tndhms`` log (default
``logs/YYYYMMDDhhmmss.log``, with ``.rejected.txt`` and ``.events.txt`` beside it) and prints
one line of JSON: the names, points, submissions and refusals per player, what went wrong with
a client, the seed, the seconds.

    president-uecda replay tests/data/uecda/default.log.gz [--records DIR] [--games N]

replays each game of the logs through the engine's ``uecda`` preset
(:mod:`president_env.uecda.replay`) and prints, per log and in all, the games and how many
replayed identically (with the first mismatches); ``--records`` writes the game record of each
game replayed identically.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from president_env.cli import arg, fail, input_file, output_file, parse, positive, user_errors
from president_env.uecda.client import Chooser, RandomChooser, play_match
from president_env.uecda.moves import ServerRules
from president_env.uecda.protocol import MAX_NAME, hello_table
from president_env.uecda.seats import check_seat, make_chooser, parse_seats


def _name(value: str) -> str | None:
    try:
        hello_table(value)
    except ValueError:
        return f"expected 1-{MAX_NAME} printable ASCII characters without spaces"
    return None


def _error_of(check: Callable[[str], object], value: str) -> str | None:
    """The message of the ValueError ``check(value)`` raises, or None."""
    try:
        check(value)
    except ValueError as e:
        return str(e)
    return None


def _agent(value: str) -> str | None:
    return _error_of(check_seat, value)


@dataclass
class ClientArgs:
    host: str = "127.0.0.1"
    """The server's address."""
    port: int = arg(42485, positive)
    """The server's port (tndhms's default 42485)."""
    agent: str = arg("random", _agent)
    """The chooser: random (uniform over the legal submissions), greedy (the weakest play), or
    one of our agents (hard, expert, normal, easy, a shipped policy or a checkpoint path)."""
    name: str = arg("", _name)
    """The name sent to the server (the server keeps 9 characters); default: the agent's."""
    seed: int = 0
    """The random chooser's (or our agent's) seed."""
    lone_joker: Literal["one", "all"] = "one"
    """The random chooser: count a lone joker once, or in each of the 60 cells it may stand in."""
    timeout: float = arg(30.0, positive)
    """Seconds to wait for each message before giving up."""
    runs: bool = True
    """Whether runs are legal (off for a server with RULE_KAIDAN no)."""


RULE_SWITCHES = {
    "11back": ("jack_back", True), "6revers": ("six_reverses", True),
    "no_kakumei": ("revolution", False), "no_shibari": ("lock", False),
    "no_kaidan": ("runs", False), "no_8giri": ("eight_cut", False),
}
"""``--rules`` words that switch a rule of play (the names of the configs in
``tests/data/uecda``)."""
MATCH_SWITCHES = {"no_change": "exchange", "no_sekigae": "reseat"}


def _rules(value: tuple[str, ...]) -> str | None:
    bad = [w for w in value if w not in RULE_SWITCHES and w not in MATCH_SWITCHES]
    if bad:
        return f"unknown {bad[0]!r}; expected some of {', '.join([*RULE_SWITCHES, *MATCH_SWITCHES])}"
    return None


def _seats(value: str) -> str | None:
    return _error_of(parse_seats, value)


def _port(value: int | None) -> str | None:
    return None if value is None or 0 <= value < 65536 else "expected a port 0-65535"


def _seed(value: int | None) -> str | None:
    return None if value is None or 0 <= value < 2 ** 32 else "expected 0 to 2**32 - 1"


@dataclass
class ServerArgs:
    seats: str = arg("tcp,tcp,tcp,tcp,tcp", _seats)
    """Players 0-4, comma-separated: tcp (a client that connects; in connect order), random,
    random:SEED, greedy, or one of our agents (hard, expert, normal, easy, a shipped policy or
    a checkpoint path; in-process)."""
    host: str = "127.0.0.1"
    """The address to listen on (0.0.0.0 for every interface)."""
    port: int | None = arg(None, _port)
    """The port (default: the config's PORT_NUMBER, else 42485; 0 picks a free one)."""
    games: int | None = arg(None, positive)
    """Games in the match (default: the config's GAME_NUMBER, else 100)."""
    seed: int | None = arg(None, _seed)
    """RANDOM_SEED: the same seed and the same players repeat the match (default: the clock)."""
    config: Path | None = arg(None, input_file)
    """A tndhms.cfg to read the rules and numbers from (flags below override it)."""
    rules: tuple[str, ...] = arg((), _rules)
    """Rule switches, comma-separated: 11back, 6revers, no_kakumei, no_shibari, no_kaidan,
    no_8giri, no_change, no_sekigae."""
    flash: int | None = arg(None, positive)
    """FLASH_MIBUN_NUMBER: classes are reset every this many games (default 100)."""
    reseat_every: int | None = arg(None, positive)
    """RULE_SEKIGAE_NUM: seats change every this many games (default 3)."""
    log: Path | None = arg(None, output_file)
    """The log file (default logs/YYYYMMDDhhmmss.log)."""
    connect_timeout: float = arg(60.0, positive)
    """Seconds to wait for all tcp clients to connect."""
    answer_timeout: float = arg(30.0, positive)
    """Seconds to wait for each answer of a client (and to send to it) before dropping it."""


def _serve(args: ServerArgs) -> None:
    from president_env.uecda.match import MatchConfig, default_log_path, read_cfg
    from president_env.uecda.seats import TCP
    from president_env.uecda.server import DEFAULT_PORT, UecdaServer

    with user_errors():
        config, cfg_port = MatchConfig(), None
        if args.config is not None:
            config, cfg_port = read_cfg(args.config.read_text(errors="replace"))
        rules = dict(RULE_SWITCHES[w] for w in args.rules if w in RULE_SWITCHES)
        top: dict[str, object] = {MATCH_SWITCHES[w]: False for w in args.rules
                                  if w in MATCH_SWITCHES}
        for name in ("games", "flash", "reseat_every", "seed"):
            if getattr(args, name) is not None:
                top[name] = getattr(args, name)
        config = replace(config, rules=replace(config.rules, **rules), **top)  # type: ignore[arg-type]
        port = args.port if args.port is not None else cfg_port or DEFAULT_PORT
        if config.seed is None:
            config = replace(config, seed=int(time.time()) & 0xFFFFFFFF)
        seed = config.seed
        assert seed is not None
        seats = [s if s == TCP else make_chooser(s, seed + p)
                 for p, s in enumerate(parse_seats(args.seats))]
        server = UecdaServer(seats, config, host=args.host, port=port,
                             log=args.log or default_log_path(),
                             connect_timeout=args.connect_timeout,
                             answer_timeout=args.answer_timeout)
        print(f"president-uecda server: listening on {args.host}:{server.port}, "
              f"{config.games} games, seed {server.seed}", file=sys.stderr, flush=True)
        summary = server.run()
    print(json.dumps({
        "names": summary.names, "games": summary.games, "points": summary.points,
        "submissions": summary.submissions, "refused": summary.refused,
        "stalemates": summary.stalemates, "incidents": [str(i) for i in summary.incidents],
        "log": str(summary.log), "seed": summary.seed, "seconds": round(summary.seconds, 2),
    }))


def _replay(argv: Sequence[str]) -> None:
    import argparse

    from president_env.uecda.replay import replay_file, summary

    parser = argparse.ArgumentParser(
        prog="president-uecda replay",
        description="Replay each game of tndhms logs through the engine (the uecda preset); "
        "print the games and how many replayed identically, per log.")
    parser.add_argument("logs", nargs="+", metavar="LOG", help="a tndhms log (.log or .log.gz), "
                        "its refused submissions in LOG's .rejected.txt beside it")
    parser.add_argument("--records", metavar="DIR", help="write the game record of each game "
                        "replayed identically into DIR")
    parser.add_argument("--games", type=int, help="only the first GAMES games of each log")
    args = parser.parse_args(argv)
    for p in args.logs:
        if input_file(p) is not None:
            fail(f"{p}: {input_file(p)}")
    total = same = 0
    with user_errors():
        for p in args.logs:
            result = replay_file(p, args.games, args.records)
            total += result.games
            same += result.identical
            print(summary(result, p))
            for m in result.mismatches[:5]:
                print(f"  {m}")
    print(f"{total} games, {same} replayed identically")


def main(argv: Sequence[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "server":
        _serve(parse(ServerArgs, argv[1:], prog="president-uecda server"))
        return
    if argv and argv[0] == "replay":
        _replay(argv[1:])
        return
    if not argv or argv[0] != "client":
        fail("usage: president-uecda client|server|replay ... (see president-uecda client "
             "--help, president-uecda server --help, president-uecda replay --help)")
    args = parse(ClientArgs, argv[1:], prog="president-uecda client")
    with user_errors():
        chooser: Chooser = RandomChooser(args.seed, args.lone_joker) if args.agent == "random" \
            else make_chooser(args.agent, args.seed)
        name = args.name or (args.agent if _name(args.agent) is None else "agent")
        result = play_match(args.host, args.port, name, chooser,
                            rules=ServerRules(runs=args.runs), timeout=args.timeout)
    places = [order.index(result.player) + 1 if result.player in order else 0
              for order in result.finish_orders]
    print(json.dumps({"player": result.player, "games": result.games, "plays": result.plays,
                      "refused": result.refused, "places": places}))


if __name__ == "__main__":
    main()
