"""The tables of options and presets in the docs, rendered from :class:`~president_env.core.rules.Rules`.

``docs/rules.md`` and ``README.md`` hold tables that :func:`options_table` and
:func:`presets_table` render from the rules' field metadata (:data:`~president_env.core.rules.OPTIONS`)
and the presets. Each one sits between two markers in the markdown (invisible once rendered)::

    <!-- generated: presets (python -m president_env.testing.doctables --write) -->
    | preset | source | players | ... |
    <!-- end generated: presets -->

``tests/test_docs.py`` fails with a diff when a table differs from ``Rules``; ``make docs`` (that
is, ``python -m president_env.testing.doctables --write``) rewrites them.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from president_env.core.rules import (
    OPTIONS,
    PRESET_PLAYERS,
    PRESET_SOURCES,
    PRESETS,
    Option,
    Rules,
)

ROOT = Path(__file__).resolve().parents[2]


def _md_value(value: Any) -> str:
    return f'`"{value}"`' if isinstance(value, str) else f"`{value}`"


def _md_allowed(opt: Option) -> str:
    if len(opt.choices) >= 2 and opt.choices[0] is True and opt.choices[1] is False:
        parts = ["bool", *(_md_value(c) for c in opt.choices[2:])]
    else:
        parts = [_md_value(c) for c in opt.choices]
    if opt.low is not None:
        parts.append(f"{opt.low}..{opt.high}" if opt.high is not None else f"int >= {opt.low}")
    return ", ".join(parts)


def _md_cell(value: Any) -> str:
    if value is None:
        return "-"
    return ("yes" if value else "no") if isinstance(value, bool) else str(value)


def options_table() -> str:
    """The markdown table of every option: name, allowed values, default, meaning."""
    rows = ["| option | values | default | meaning |", "|---|---|---|---|"]
    for f in dataclasses.fields(Rules):
        opt = OPTIONS[f.name]
        rows.append(f"| `{f.name}` | {_md_allowed(opt)} | {_md_value(f.default)} | {opt.doc} |")
    return "\n".join(rows) + "\n"


def presets_table() -> str:
    """The markdown table of the presets: source, player range and every option a preset sets."""
    names = [n for n in OPTIONS if any(n in opts for opts in PRESETS.values())]
    rows = [
        "| preset | source | players | " + " | ".join(names) + " |",
        "|---" * (3 + len(names)) + "|",
    ]
    for preset, (lo, hi) in PRESET_PLAYERS.items():
        rules = Rules.preset(preset)
        cells = [_md_cell(getattr(rules, n)) for n in names]
        rows.append(
            f"| `{preset}` | {PRESET_SOURCES[preset]} | {lo}-{hi} | " + " | ".join(cells) + " |"
        )
    return "\n".join(rows) + "\n"


TABLES: dict[str, Callable[[], str]] = {"options": options_table, "presets": presets_table}
"""The generated tables, by marker name."""

FILES: dict[str, tuple[str, ...]] = {
    "docs/rules.md": ("options", "presets"),
    "README.md": ("presets",),
}
"""The tables each file (relative to the project root) must hold."""


def _block(name: str) -> re.Pattern[str]:
    return re.compile(
        rf"(<!-- generated: {name}\b[^\n]*-->\n)(.*?)(<!-- end generated: {name} -->)", re.S
    )


def render(text: str, names: Sequence[str]) -> str:
    """``text`` with the tables ``names`` rendered again between their markers.

    Raises ValueError if a table's markers are missing."""
    for name in names:
        match = _block(name).search(text)
        if match is None:
            raise ValueError(f"no '<!-- generated: {name} ... -->' block")
        text = text[: match.start(2)] + TABLES[name]() + text[match.end(2) :]
    return text


def differences(root: Path = ROOT) -> list[str]:
    """A unified diff per file whose tables differ from ``Rules`` (empty when all agree)."""
    out = []
    for rel, names in FILES.items():
        text = (root / rel).read_text()
        try:
            want = render(text, names)
        except ValueError as err:
            out.append(f"{rel}: {err}")
            continue
        if want != text:
            diff = difflib.unified_diff(
                text.splitlines(keepends=True),
                want.splitlines(keepends=True),
                fromfile=f"{rel} (now)",
                tofile=f"{rel} (from Rules)",
            )
            out.append("".join(diff))
    return out


def write(root: Path = ROOT) -> list[str]:
    """Rewrite every table that differs; the files changed."""
    changed = []
    for rel, names in FILES.items():
        path = root / rel
        text = path.read_text()
        want = render(text, names)
        if want != text:
            path.write_text(want)
            changed.append(rel)
    return changed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m president_env.testing.doctables",
        description="Check (or --write) the options and presets tables of the docs.",
    )
    parser.add_argument("--write", action="store_true", help="rewrite the tables that differ")
    args = parser.parse_args(argv)
    if args.write:
        print("rewrote: " + (", ".join(write()) or "nothing"))
        return 0
    diffs = differences()
    print("\n".join(diffs) if diffs else "the tables agree with Rules")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
