'''One command-line path for every entry point: a dataclass of arguments becomes the parser.

Each script declares its options as a dataclass whose fields carry their help as *attribute
docstrings* (the string right after the field, read from the class source), and calls
:func:`parse`::

    @dataclass
    class Args:
        checkpoint: str
        """Policy checkpoint to evaluate."""
        deals: int = 2000
        """Deals to play."""
        seating: Literal["rotate", "shuffle", "all"] = "shuffle"
        """How the replays of a deal seat the agents."""
        baselines: tuple[str, ...] = ("random", "hard")
        """Opponents, comma-separated."""
        progress: bool = True
        """Show a progress bar."""
        json: Path | None = None
        """Write the rows as JSON here."""
        extra: dict[str, Any] = rule_options()
        """Rule options overriding the preset."""

    args = parse(Args, argv)          # the module docstring is the description

========================  ==========================================================
field                     command line
========================  ==========================================================
no default                positional ``checkpoint``
``int``/``float``/``str``  ``--deals 500`` (``_`` in a name becomes ``-``)
``Path``                  ``--out runs/x``
``T | None = None``       ``--json out.json``; absent: None
``bool``                  ``--progress``, ``--no-progress``, ``--progress false``
``Literal[...]``          ``--seating all``, checked against the choices
``list[T]``/``tuple[T, ...]``  ``--baselines random,easy`` (comma-separated)
``rule_options()``        ``--rule KEY=VALUE``, repeatable (a dict of rule options)
========================  ==========================================================

``--help`` shows every field's docstring and its default. A field declared again in a subclass
(to change its default) keeps the docstring of the base class unless it gives its own. This
module imports neither numpy nor any RL library (``--rule`` values are parsed by
:func:`president_env.core.rules.parse_rule_option`, imported only when a dataclass asks for rule
options), so every entry point can use it.
'''

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import sys
import textwrap
import types
import typing
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar, get_args, get_origin, get_type_hints

T = TypeVar("T")

RULE_OPTIONS = "rule_options"
"""Metadata key of the field made by :func:`rule_options`."""
SCALARS: tuple[type, ...] = (int, float, str, Path)
"""Field types taken as one value."""
TRUE = ("1", "true", "yes", "on")
FALSE = ("0", "false", "no", "off")


def rule_options() -> Any:
    """A dataclass field (a dict, empty by default) filled by repeatable ``--rule KEY=VALUE``."""
    return dataclasses.field(default_factory=dict, metadata={RULE_OPTIONS: True})


def parse(
    cls: type[T],
    argv: Sequence[str] | None = None,
    doc: str | None = None,
    prog: str | None = None,
) -> T:
    """An instance of the dataclass ``cls`` from the command line (``sys.argv[1:]`` by default).

    ``doc`` (default: the docstring of the module that defines ``cls``) is the description in
    ``--help``; ``prog`` the program name shown there.
    """
    ns = vars(parser(cls, doc, prog).parse_args(argv))
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.metadata.get(RULE_OPTIONS):
            ns[f.name] = dict(ns[f.name])
    return cls(**ns)


def parser(cls: type, doc: str | None = None, prog: str | None = None) -> argparse.ArgumentParser:
    """The argparse parser of the dataclass ``cls`` (see the module docstring)."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass")
    if doc is None:
        doc = getattr(sys.modules.get(cls.__module__), "__doc__", None)
    ap = argparse.ArgumentParser(
        prog=prog, description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    docs = field_docs(cls)
    hints = get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if f.init:
            _add(ap, f, hints[f.name], docs.get(f.name, ""))
    return ap


def field_docs(cls: type) -> dict[str, str]:
    """The attribute docstrings of ``cls`` and its bases: ``{field: docstring}`` (a subclass's
    docstring wins; a field declared again without one keeps its base's)."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError, SyntaxError):  # built-in, or no source (e.g. a REPL)
            continue
        node = tree.body[0] if tree.body else None
        if not isinstance(node, ast.ClassDef):
            continue
        for stmt, after in zip(node.body, node.body[1:]):
            if (
                isinstance(stmt, ast.AnnAssign)
                and isinstance(stmt.target, ast.Name)
                and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
            ):
                docs[stmt.target.id] = inspect.cleandoc(after.value.value)
    return docs


def parse_bool(text: str) -> bool:
    """``true``/``false`` (also ``1``/``0``, ``yes``/``no``, ``on``/``off``) as a bool."""
    t = text.strip().lower()
    if t in TRUE:
        return True
    if t in FALSE:
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


# ---------------------------------------------------------------------------- fields
def _add(ap: argparse.ArgumentParser, f: dataclasses.Field[Any], tp: Any, doc: str) -> None:
    """Add the option (or positional argument) of field ``f`` of type ``tp``."""
    text = " ".join(doc.split()).replace("%", "%%")
    if f.metadata.get(RULE_OPTIONS):
        from president_env.core.rules import parse_rule_option

        ap.add_argument(
            "--rule", dest=f.name, action="append", default=[], type=parse_rule_option,
            metavar="KEY=VALUE", help=f"{text} Repeatable, e.g. --rule deals=3.".strip(),
        )
        return
    default = _default(f)
    tp, convert = _converter(f.name, tp)
    if default is dataclasses.MISSING:
        ap.add_argument(f.name, type=convert, help=text)
        return
    flag = "--" + f.name.replace("_", "-")
    shown = _shown(default)
    if tp is bool:
        no = "--no-" + f.name.replace("_", "-")
        ap.add_argument(
            flag, dest=f.name, nargs="?", const=True, default=default, type=parse_bool,
            metavar="true|false", help=f"{text} (default: {shown}; {no} sets false)".strip(),
        )
        ap.add_argument(no, dest=f.name, action="store_false", help=argparse.SUPPRESS)
        return
    choices = list(get_args(tp)) if get_origin(tp) is Literal else None
    ap.add_argument(
        flag, dest=f.name, type=convert, default=default, choices=choices,
        help=f"{text} (default: {shown})".strip(),
    )


def _default(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return dataclasses.MISSING


def _shown(default: Any) -> str:
    if isinstance(default, bool):
        return str(default).lower()
    if isinstance(default, (list, tuple)):
        return ",".join(str(x) for x in default) or "none"
    if default is None:
        return "none"
    return repr(default) if isinstance(default, str) else str(default)


def _converter(name: str, tp: Any) -> tuple[Any, Callable[[str], Any]]:
    """``(type without None, function from one command-line word to the value)``."""
    origin, args = get_origin(tp), get_args(tp)
    if origin in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        if len(rest) != 1:
            raise TypeError(f"field {name!r}: unsupported union {tp!r}")
        return _converter(name, rest[0])
    if tp is bool:
        return bool, parse_bool
    if origin is Literal:
        return tp, type(args[0])
    if origin in (list, tuple):
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            raise TypeError(f"field {name!r}: use tuple[T, ...] for a list, got {tp!r}")
        item = _converter(name, args[0])[1]
        return tp, _items(item, origin)
    if tp in SCALARS:
        return tp, tp
    raise TypeError(f"field {name!r}: unsupported type {tp!r} for the command line")


def _items(item: Callable[[str], Any], kind: type) -> Callable[[str], Any]:
    def convert(text: str) -> Any:
        return kind(item(x.strip()) for x in text.split(",") if x.strip())

    convert.__name__ = "comma-separated list"
    return convert
