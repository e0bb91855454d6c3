"""The docs' tables of options and presets match :class:`~president_env.core.rules.Rules`.

``docs/rules.md`` (options and presets) and ``README.md`` (presets) hold tables rendered from the
rules' field metadata by :mod:`president_env.testing.doctables`. A failure prints the diff; fix it
with ``make docs`` (``python -m president_env.testing.doctables --write``).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from president_env.core.rules import OPTIONS, PRESETS, Rules
from president_env.testing import doctables
from president_env.testing.doctables import FILES, differences, options_table, presets_table, render

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("rel", sorted(FILES))
def test_the_tables_in_the_docs_match_the_rules(rel: str) -> None:
    diffs = [d for d in differences(ROOT) if d.startswith((f"--- {rel} ", f"{rel}:"))]
    assert not diffs, (
        f"the tables in {rel} differ from Rules; run `make docs` to rewrite them:\n"
        + "\n".join(diffs)
    )


def test_the_options_table_has_every_option_and_its_default() -> None:
    table = options_table()
    for f in dataclasses.fields(Rules):
        row = next(line for line in table.splitlines() if line.startswith(f"| `{f.name}` |"))
        assert OPTIONS[f.name].doc in row
    assert table.count("\n") == 2 + len(OPTIONS)


def test_the_presets_table_has_every_preset_and_what_it_sets() -> None:
    table = presets_table()
    header = table.splitlines()[0]
    for name, options in PRESETS.items():
        assert f"| `{name}` |" in table
        for option in options:
            assert f" {option} |" in header


def test_a_stale_table_is_reported_with_a_diff(tmp_path: Path) -> None:
    for rel in FILES:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(render((ROOT / rel).read_text(), FILES[rel]))
    assert differences(tmp_path) == []
    stale = (
        (tmp_path / "README.md")
        .read_text()
        .replace("| `daifugo` | 000+001 | 3-8 |", "| `daifugo` | 000+001 | 3-7 |")
    )
    (tmp_path / "README.md").write_text(stale)
    (diff,) = differences(tmp_path)
    assert "-| `daifugo` | 000+001 | 3-7 |" in diff and "+| `daifugo` | 000+001 | 3-8 |" in diff
    assert doctables.write(tmp_path) == ["README.md"]
    assert differences(tmp_path) == []
    (tmp_path / "README.md").write_text("no markers")
    assert differences(tmp_path) == ["README.md: no '<!-- generated: presets ... -->' block"]


NEW_OPTIONS = ("revolution_timing", "western_revolution", "bombs", "runs_mixed_suits",
               "max_run_length", "president_asks")
"""The further variants of RULES.md section 12."""


def test_the_presets_table_shows_the_new_options_a_preset_sets() -> None:
    lines = presets_table().splitlines()
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    row = next(line for line in lines if line.startswith("| `daifugo_full` |"))
    cells = dict(zip(header, (c.strip() for c in row.strip("|").split("|"))))
    assert cells["revolution_timing"] == "next_trick" and cells["bombs"] == "5"
    plain = next(line for line in lines if line.startswith("| `daifugo` |"))
    plain_cells = dict(zip(header, (c.strip() for c in plain.strip("|").split("|"))))
    assert plain_cells["revolution_timing"] == "immediate" and plain_cells["bombs"] == "-"


def test_the_rules_page_describes_every_further_variant_and_the_full_preset() -> None:
    text = (ROOT / "docs" / "rules.md").read_text()
    assert "Not implemented" not in text
    variants = text[text.index("## Further variants"):]
    for name in NEW_OPTIONS:
        assert f"**`{name}" in variants, f"no paragraph on {name}"
    preset = variants[variants.index("### The `daifugo_full` preset"):]
    for name, verdict in zip(NEW_OPTIONS, ("in", "out", "in", "out", "out", "out")):
        line = next(ln for ln in preset.splitlines() if ln.startswith(f"* `{name}"))
        assert f"**{verdict}**" in line, line
        assert (verdict == "in") == (name in PRESETS["daifugo_full"])
