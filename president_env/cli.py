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
:func:`president_env.core.options.parse_rule_option`, imported only when a dataclass asks for rule
options), so every entry point can use it.

Checks and errors
-----------------
Values are checked when the command line is read, before any work starts. A field made by
:func:`arg` carries checks (functions of the value that return what is wrong, or None):

    deals: int = arg(2000, positive)
    """Deals to play."""
    checkpoint: Path = arg(REQUIRED, input_file)
    """Policy checkpoint."""
    json: Path | None = arg(None, output_file)
    """Write the rows as JSON here."""

:func:`positive`, :func:`non_negative`, :func:`fraction` (numbers, finite), :func:`input_file`
(an existing file), :func:`output_file` and :func:`output_dir` (a path that can be written:
no file in the way of its folders, the nearest existing folder writable; missing folders are
made when the output is written, never at parse time). A field declared again in a subclass
without checks keeps those of its base class. ``None`` and ``""`` (not given) are never checked. A dataclass may also
define ``check(self)``, raising ValueError for what involves several fields or needs the rules
(an unknown preset, agent or checkpoint). :func:`check_args` runs both (the trainers call it
for arguments built in code); :func:`parse` turns any failure, and any bad word on the command
line, into one line ``error: <what>`` on stderr and exit code 2, with no traceback.
:func:`fail` and :func:`user_errors` do the same for errors found later, while setting up.
'''

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import math
import os
import sys
import textwrap
import types
import typing
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal, NoReturn, TypeVar, get_args, get_origin, get_type_hints

T = TypeVar("T")

RULE_OPTIONS = "rule_options"
"""Metadata key of the field made by :func:`rule_options`."""
CHECKS = "checks"
"""Metadata key of the checks of a field made by :func:`arg`."""
REQUIRED: Any = dataclasses.MISSING
"""``arg(REQUIRED, ...)``: a field without a default (a positional argument)."""
Check = Callable[[Any], "str | None"]
"""What is wrong with a value (``"must be > 0"``), or None when it is fine."""
USER_ERRORS: tuple[type[Exception], ...] = (ValueError, TypeError, OSError)
"""Errors that :func:`user_errors` reports as one line."""
SCALARS: tuple[type, ...] = (int, float, str, Path)
"""Field types taken as one value."""
TRUE = ("1", "true", "yes", "on")
FALSE = ("0", "false", "no", "off")


def rule_options() -> Any:
    """A dataclass field (a dict, empty by default) filled by repeatable ``--rule KEY=VALUE``."""
    return dataclasses.field(default_factory=dict, metadata={RULE_OPTIONS: True})


def arg(default: Any = REQUIRED, *checks: Check, default_factory: Any = dataclasses.MISSING) -> Any:
    """A dataclass field whose value must pass ``checks`` (see the module docstring)."""
    if default_factory is not dataclasses.MISSING:
        return dataclasses.field(default_factory=default_factory, metadata={CHECKS: checks})
    return dataclasses.field(default=default, metadata={CHECKS: checks})


def parse(
    cls: type[T],
    argv: Sequence[str] | None = None,
    doc: str | None = None,
    prog: str | None = None,
) -> T:
    """An instance of the dataclass ``cls`` from the command line (``sys.argv[1:]`` by default),
    checked (:func:`check_args`); a bad value exits with one line ``error: ...`` and code 2.

    ``doc`` (default: the docstring of the module that defines ``cls``) is the description in
    ``--help``; ``prog`` the program name shown there.
    """
    ap = parser(cls, doc, prog)
    ns = vars(ap.parse_args(argv))
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.metadata.get(RULE_OPTIONS):
            ns[f.name] = dict(ns[f.name])
    try:
        obj = cls(**ns)
        check_args(obj)
    except USER_ERRORS as e:
        ap.error(str(e))
    return obj


def check_args(args: Any) -> None:
    """Run the field checks of the dataclass instance ``args``, then its ``check()`` method if
    it has one; a ValueError naming the option, the value given and what is wrong with it."""
    for name, (flag, checks) in field_checks(type(args)).items():
        value = getattr(args, name)
        if value is None or value == "":  # not given
            continue
        for check in checks:
            problem = check(value)
            if problem:
                raise ValueError(f"{flag} {_got(value)}: {problem}")
    hook = getattr(args, "check", None)
    if callable(hook):
        hook()


def field_checks(cls: type) -> dict[str, tuple[str, tuple[Check, ...]]]:
    """``{field: (its option or argument name, its checks)}`` of the dataclass ``cls`` and its
    bases (a field declared again without checks keeps its base's)."""
    out: dict[str, tuple[str, tuple[Check, ...]]] = {}
    for klass in reversed(cls.__mro__):
        if not dataclasses.is_dataclass(klass):
            continue
        for f in dataclasses.fields(klass):
            checks = f.metadata.get(CHECKS)
            if checks:
                has_default = _default(f) is not dataclasses.MISSING
                flag = "--" + f.name.replace("_", "-") if has_default else f.name
                out[f.name] = (flag, tuple(checks))
    return {k: out[k] for k in (f.name for f in dataclasses.fields(cls)) if k in out}


def fail(message: str) -> NoReturn:
    """Print ``error: <message>`` (one line) on stderr and exit with code 2."""
    print(f"error: {' '.join(str(message).split())}", file=sys.stderr)
    raise SystemExit(2)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn a ValueError, TypeError or OSError raised inside into :func:`fail` (for the set-up
    of a command: rules, agents, checkpoints)."""
    try:
        yield
    except USER_ERRORS as e:
        fail(str(e))


# ---------------------------------------------------------------------------- checks
def positive(value: Any) -> str | None:
    """A finite number above 0."""
    return None if _finite(value) and value > 0 else "expected a number > 0"


def non_negative(value: Any) -> str | None:
    """A finite number, 0 or more."""
    return None if _finite(value) and value >= 0 else "expected a number >= 0"


def fraction(value: Any) -> str | None:
    """A number from 0 to 1."""
    return None if _finite(value) and 0 <= value <= 1 else "expected a number from 0 to 1"


def input_file(value: Any) -> str | None:
    """An existing file."""
    p = Path(value)
    if p.is_file():
        return None
    return "is a folder, expected a file" if p.is_dir() else "no such file"


def output_file(value: Any) -> str | None:
    """A file that can be written (its missing folders are made when it is written)."""
    p = Path(value)
    if p.is_dir():
        return "is a folder, expected a file name"
    return _creatable(p.absolute().parent)


def output_dir(value: Any) -> str | None:
    """A folder that can be written into (made, with its parents, when the output is written)."""
    return _creatable(Path(value).absolute())


def _creatable(folder: Path) -> str | None:
    """None when ``folder`` is, or can be made, a writable folder."""
    for p in (folder, *folder.parents):
        if p.exists():
            if not p.is_dir():
                return f"cannot be made: {p} is a file, not a folder"
            if not os.access(p, os.W_OK | os.X_OK):
                return f"cannot be written: folder {p} is not writable"
            return None
    return None


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _got(value: Any) -> str:
    return repr(value) if isinstance(value, str) and (not value or " " in value) else str(value)


class _Parser(argparse.ArgumentParser):
    """argparse, with an error as one line ``error: ...`` (and exit code 2), no usage block."""

    def error(self, message: str) -> NoReturn:
        fail(f"{message} (see --help)")


def parser(cls: type, doc: str | None = None, prog: str | None = None) -> argparse.ArgumentParser:
    """The argparse parser of the dataclass ``cls`` (see the module docstring)."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass")
    if doc is None:
        doc = getattr(sys.modules.get(cls.__module__), "__doc__", None)
    ap = _Parser(prog=prog, description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
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
        from president_env.core.options import parse_rule_option

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
