"""The UECda computer Daifugo contest: reading its standard server's game logs.

* :mod:`~president_env.uecda.log`: :func:`read_log` (a ``tndhms`` 0.29 log, plain or gzipped)
  into a :class:`UecdaLog` of :class:`UecdaGame` and :class:`UecdaMove`, with the cards in the
  engine's card ids; :func:`parse_move` and :func:`format_move` for one submission.

The server's rules and protocol, read from its source, are in
``docs/experiments/2026-12-04-uecda-server-rules.md``. Nothing here plays a game: it imports
only numpy and the card constants of :mod:`president_env.core`.
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
