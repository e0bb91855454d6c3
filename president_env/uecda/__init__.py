"""The UECda computer Daifugo contest: its standard server's logs, rules and protocol; a client.

* :mod:`~president_env.uecda.log`: :func:`read_log` (a ``tndhms`` 0.29 log, plain or gzipped)
  into a :class:`UecdaLog` of :class:`UecdaGame` and :class:`UecdaMove`, with the cards in the
  engine's card ids; :func:`parse_move` and :func:`format_move` for one submission.
* :mod:`~president_env.uecda.protocol`: the server's protocol 20070 (the 8x15 card table,
  :class:`~president_env.uecda.protocol.Play`, the message sequence, a bounded connection).
* :mod:`~president_env.uecda.moves`: every legal submission (``legal_plays``), the server's
  rules in plain Python; :mod:`~president_env.uecda.game`: its game flow, turn by turn.
* :mod:`~president_env.uecda.client`: a client with pluggable choosers (``random``,
  ``greedy``); ``president-uecda client`` (:mod:`~president_env.uecda.cli`) runs it.
* :mod:`~president_env.uecda.server`: a server of our own that plays the standard server's
  match, protocol and log byte for byte (TCP clients and in-process choosers at five seats;
  :mod:`~president_env.uecda.match` its deal, exchange, random numbers and log,
  :mod:`~president_env.uecda.seats` its connections); ``president-uecda server`` runs it.
* :mod:`~president_env.uecda.agent`: :class:`~president_env.uecda.agent.AgentChooser`, any of
  our agents (``hard``, ``expert``, a checkpoint, ...) as a chooser, deciding in the engine's
  ``uecda`` position rebuilt from the client's view (``--agent`` and the server's seat specs).

The server's rules and protocol, read from its source, are in
``docs/experiments/2026-12-04-uecda-server-rules.md``. The package imports only numpy and the
card constants of :mod:`president_env.core`; the submodules above are imported by name.
"""

from president_env.uecda.log import (
    UecdaGame,
    UecdaLog,
    UecdaLogError,
    UecdaMove,
    format_move,
    parse_log,
    parse_move,
    read_log,
)

__all__ = [
    "UecdaGame",
    "UecdaLog",
    "UecdaLogError",
    "UecdaMove",
    "format_move",
    "parse_log",
    "parse_move",
    "read_log",
]
