"""Command lines of the training scripts, made from their ``@dataclass Args``."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any, TypeVar

from president_env.core.rules import parse_rule_option

T = TypeVar("T")


def parse_bool(text: str) -> bool:
    t = text.strip().lower()
    if t in ("1", "true", "yes", "on"):
        return True
    if t in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def parse_args(cls: type[T], argv: list[str] | None, doc: str | None) -> T:
    """An instance of the dataclass ``cls`` from the command line: one ``--flag`` per field
    (help from the field's docstring when the class records it), booleans as true/false; a
    field ``extra: dict`` becomes repeatable ``--rule KEY=VALUE`` rule options."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawTextHelpFormatter)
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.name == "extra":
            ap.add_argument(
                "--rule", dest="extra", action="append", default=[], type=parse_rule_option,
                metavar="KEY=VALUE", help="override a rule option, e.g. --rule deals=3",
            )
            continue
        flag = "--" + f.name.replace("_", "-")
        default: Any = f.default
        kind = parse_bool if isinstance(default, bool) else type(default)
        ap.add_argument(flag, type=kind, default=default, help=f"(default: {default!r})")
    ns = vars(ap.parse_args(argv))
    if "extra" in ns:
        ns["extra"] = dict(ns["extra"])
    return cls(**ns)
