"""Play President against the rule-based agents in a terminal, or in a browser with ``--web``.

    python -m apps.play --preset standard --players 4 --seat 0 --opponents hard
    python -m apps.play --web            # the web app (apps.web) on http://127.0.0.1:8000

At your turn the program shows your hand, the pile and your legal plays, numbered; answer with
the number or the play's name (``pair of 9``, ``pass``). A bad answer gets a message and a new
prompt; ``quit`` (or the end of the input) stops the game. ``--opponents`` is one agent name
for every other seat or a comma list, one per other seat in seat order. ``--record game.json``
saves the game as a game record (``docs/records.md``), finished or not.

``--web`` serves the local web app instead (:mod:`apps.web`: play any preset and any mix of
agents, replay game records): ``--host`` (default 127.0.0.1), ``--port``, ``--records`` (record
files or folders of ``*.json`` to list for replay, comma-separated) and ``--save-dir`` (where
games are saved after every move and loaded again at start; none: games live in memory).
"""

from __future__ import annotations

import contextlib
import socket
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from agents import NAMED_AGENTS, load_agent
from president_env.cli import parse, rule_options
from president_env.core.cards import format_hand
from president_env.core.engine import PHASE_DONE, PHASE_EXCHANGE, Engine
from president_env.core.rules import Rules
from president_env.records import GameRecorder, Player
from president_env.render import describe_pile, title_name
from president_env.table import EXTERNAL, Policy, Table


def parse_choice(text: str, legal: Sequence[int], engine: Engine) -> int:
    """The action id chosen by ``text``: a number in the shown list or an action's name.

    Raises ValueError with a message for the player.
    """
    t = " ".join(text.strip().lower().split())
    if not t:
        raise ValueError("empty answer")
    if t.lstrip("-").isdigit():
        n = int(t)
        if not 1 <= n <= len(legal):
            raise ValueError(f"{n} is not in the list: choose a number from 1 to {len(legal)}")
        return legal[n - 1]
    for a in legal:
        if engine.layout.name(a).lower() == t:
            return a
    all_names = {engine.layout.name(a).lower() for a in range(engine.num_actions)}
    if t in all_names:
        raise ValueError(f"'{text.strip()}' is not legal now")
    raise ValueError(f"'{text.strip()}' is neither a number from the list nor a play's name")


def play(
    rules: Rules,
    seat: int,
    opponents: Sequence[Policy],
    seed: int = 0,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    record: str | Path | None = None,
) -> int:
    """Play one game with a human in ``seat``; return 0 when it ends, 1 if the player quits.

    The game is a :class:`~president_env.table.Table` of one game whose human seat is
    external; ``opponents`` (policies) play the other seats in seat order. With ``record`` (a
    path), the game is saved there as a game record when it ends or the player quits."""
    inp = stdin or sys.stdin
    out = stdout or sys.stdout
    engine = Engine(rules)
    p = rules.num_players
    others = [s for s in range(p) if s != seat]
    seat_policy = np.full(p, EXTERNAL, np.int64)
    seat_policy[others] = np.arange(len(others))
    table = Table(engine, engine.init([seed]), list(opponents), seat_policy)
    names = {s: f"seat {s} ({table.policy_name(i)})" for i, s in enumerate(others)}
    names[seat] = f"seat {seat} (you)"
    players = [Player("you", "human") if s == seat else Player(table.policy_name(int(k)))
               for s, k in enumerate(seat_policy)]
    recorder = GameRecorder(rules, table.state, players=players, meta={"source": "play"})

    def say(line: str = "") -> None:
        print(line, file=out, flush=True)

    def announce(moved: Any, seats: Any, actions: Any) -> None:
        recorder.add(int(seats[0]), int(actions[0]))
        say(f"{names[int(seats[0])]}: {engine.layout.name(int(actions[0]))}")
        if table.state.deal_over[0]:
            places = table.state.title[0]
            order_txt = ", ".join(
                f"{names[int(s)]} {title_name(int(places[s]), p)}" for s in np.argsort(places)
            )
            ended = int(table.state.deal[0]) - (table.state.phase[0] != PHASE_DONE)
            say(f"Deal {ended + 1} over: {order_txt}")

    say(f"President, {rules.num_players} players; you are seat {seat}. Type 'quit' to stop.")
    while True:
        table.play_until_external(announce)
        if int(table.state.phase[0]) == PHASE_DONE:
            break
        a = _ask(table, seat, names, inp, out)
        if a is None:
            say("\nGame stopped.")
            if record is not None:
                say(f"Game record (unfinished) saved to {recorder.record.save(record)}")
            return 1
        table.step_external([0], [a])
        announce(None, [seat], [a])
    state = table.state
    scores = ", ".join(f"{names[s]}: {int(v)}" for s, v in enumerate(state.scores[0]))
    standing = engine.standings(state)[0]
    say(f"Game over. Scores ({rules.scoring}): {scores}")
    say(f"You finished {int(standing[seat]) + 1} of {p}.")
    if record is not None:
        say(f"Game record saved to {recorder.finish(state).save(record)}")
    return 0


def _ask(table: Table, seat: int, names: dict[int, str], inp: TextIO, out: TextIO) -> int | None:
    """Show the human's view and read a legal play (None: the player quits)."""
    engine, state = table.engine, table.state

    def say(line: str = "") -> None:
        print(line, file=out, flush=True)

    legal = [int(x) for x in np.flatnonzero(engine.legal_action_mask(state)[0])]
    say()
    if int(state.phase[0]) == PHASE_EXCHANGE:
        say(f"Exchange: return {int(state.to_return[0, seat])} card(s) of your choice.")
    left = ", ".join(f"{names[s]}: {int(n)}" for s, n in enumerate(state.cards_left[0]))
    say(f"Cards left: {left}")
    order = "reversed (revolution)" if state.revolution[0] else "usual"
    say(f"Pile: {describe_pile(engine.rules, state, layout=engine.layout)}; order: {order}")
    say(f"Your hand: {format_hand(state.hands[0, seat])}")
    for i, act in enumerate(legal, 1):
        say(f"  {i:2d}) {engine.layout.name(act)}")
    while True:
        print("Your play: ", end="", file=out, flush=True)
        line = inp.readline()
        if not _isatty(inp):
            say(line.rstrip("\n"))  # echo piped input
        if not line or line.strip().lower() in ("quit", "q", "exit"):
            return None
        try:
            return parse_choice(line, legal, engine)
        except ValueError as e:
            say(f"Invalid choice: {e}. Enter a number from 1 to {len(legal)} or a play's name.")


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


@dataclass
class Args:
    """Play President against the rule-based agents in a terminal."""

    preset: str = "standard"
    """Preset of the rules."""
    players: int = 4
    """Players at the table."""
    seat: int = 0
    """Your seat, 0..players-1."""
    opponents: str = "hard"
    """One agent name for every other seat, or a comma list, one per other seat in seat order."""
    seed: int | None = None
    """Deal seed (none: a random one)."""
    extra: dict[str, Any] = rule_options()
    """Rule options overriding the preset."""
    record: str | None = None
    """Save the game as a game record (JSON, docs/records.md) at this path."""
    web: bool = False
    """Serve the web app (play and replay in a browser) instead of the terminal game."""
    host: str = "127.0.0.1"
    """With --web: the address to serve on (127.0.0.1: this machine only)."""
    port: int = 8000
    """With --web: the port to serve on."""
    records: tuple[str, ...] = ()
    """With --web: game records (files, or folders of *.json) listed for replay."""
    save_dir: Path | None = None
    """With --web: save every game here after every move, and load them again at start."""


PROG = "python -m apps.play"


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(Args, argv, prog=PROG)
    if args.web:
        return _serve(args)
    try:
        rules = Rules.preset(args.preset, num_players=args.players, **args.extra)
        if not 0 <= args.seat < rules.num_players:
            raise ValueError(f"--seat must be 0..{rules.num_players - 1}, got {args.seat}")
        names = [n.strip() for n in args.opponents.split(",") if n.strip()]
        if len(names) == 1:
            names *= rules.num_players - 1
        if len(names) != rules.num_players - 1:
            raise ValueError(
                f"--opponents needs one name or {rules.num_players - 1} names, got {len(names)}"
            )
        if args.seed is not None and args.seed < 0:
            raise ValueError(f"--seed must be a non-negative integer, got {args.seed}")
        seed = args.seed if args.seed is not None else int(np.random.default_rng().integers(2**31))
        if args.record is not None:
            check_record_path(Path(args.record))
        opponents = [load_agent(n, rules, seed + i + 1) for i, n in enumerate(names)]
    except ValueError as e:
        print(f"error: {e} (agents: {', '.join(sorted(NAMED_AGENTS))})", file=sys.stderr)
        return 2
    try:
        return play(rules, args.seat, opponents, seed=seed, record=args.record)
    except KeyboardInterrupt:
        print("\nGame stopped.")
        return 1


def check_record_path(path: Path) -> None:
    """A file a record can be written to (ValueError before the game, not after it)."""
    if path.is_dir():
        raise ValueError(f"--record {path}: a folder; give a file name (game.json)")
    if not path.parent.is_dir():
        raise ValueError(f"--record {path}: no folder {path.parent}")


def _serve_problem(args: Args) -> str:
    """What is wrong with the web app's options ("" if nothing): checked before serving."""
    if not 0 <= args.port <= 65535:
        return f"--port must be 0..65535, got {args.port}"
    missing = [r for r in args.records if not Path(r).exists()]
    if missing:
        return f"--records: no such file or folder: {', '.join(missing)}"
    if args.save_dir is not None and args.save_dir.exists() and not args.save_dir.is_dir():
        return f"--save-dir {args.save_dir}: a file, not a folder"
    try:  # bind once here: a bad --host or a busy --port is a usage error, not a traceback
        with socket.create_server((args.host, args.port)):
            pass
    except (OSError, UnicodeError, ValueError) as e:
        return f"cannot serve on --host {args.host} --port {args.port}: {e}"
    return ""


def _serve(args: Args) -> int:
    """Run the web app (the game options of the command line are chosen in the page)."""
    from apps.web import serve

    problem = _serve_problem(args)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    with contextlib.suppress(KeyboardInterrupt):
        serve(args.host, args.port, records=args.records, save_dir=args.save_dir)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
