"""``president-uecda client``: play a match at a UECda standard server with a built-in chooser.

    president-uecda client --host 127.0.0.1 --port 42485 --agent greedy --name greedy

connects to the server (``tndhms``, protocol 20070), plays until it ends the match and prints
one line of JSON: our player number, the games, our plays and how many the server refused, and
our place in each game as seen (1 daifugo .. 5 daihinmin; 0 where a 20-pass stalemate left it
to the server's draw).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from president_env.cli import arg, fail, parse, positive, user_errors
from president_env.uecda.client import Chooser, GreedyChooser, RandomChooser, play_match
from president_env.uecda.moves import ServerRules
from president_env.uecda.protocol import MAX_NAME, hello_table


def _name(value: str) -> str | None:
    try:
        hello_table(value)
    except ValueError:
        return f"expected 1-{MAX_NAME} printable ASCII characters without spaces"
    return None


@dataclass
class ClientArgs:
    host: str = "127.0.0.1"
    """The server's address."""
    port: int = arg(42485, positive)
    """The server's port (tndhms's default 42485)."""
    agent: Literal["random", "greedy"] = "random"
    """The chooser: random (uniform over the legal submissions) or greedy (the weakest play)."""
    name: str = arg("", _name)
    """The name sent to the server (the server keeps 9 characters); default: the agent's."""
    seed: int = 0
    """The random chooser's seed."""
    lone_joker: Literal["one", "all"] = "one"
    """The random chooser: count a lone joker once, or in each of the 60 cells it may stand in."""
    timeout: float = arg(30.0, positive)
    """Seconds to wait for each message before giving up."""
    runs: bool = True
    """Whether runs are legal (off for a server with RULE_KAIDAN no)."""


def main(argv: Sequence[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] != "client":
        fail("usage: president-uecda client [--host H] [--port P] [--agent random|greedy] "
             "[--name NAME] (see president-uecda client --help)")
    args = parse(ClientArgs, argv[1:], prog="president-uecda client")
    chooser: Chooser = RandomChooser(args.seed, args.lone_joker) if args.agent == "random" \
        else GreedyChooser()
    with user_errors():
        result = play_match(args.host, args.port, args.name or args.agent, chooser,
                            rules=ServerRules(runs=args.runs), timeout=args.timeout)
    places = [order.index(result.player) + 1 if result.player in order else 0
              for order in result.finish_orders]
    print(json.dumps({"player": result.player, "games": result.games, "plays": result.plays,
                      "refused": result.refused, "places": places}))


if __name__ == "__main__":
    main()
