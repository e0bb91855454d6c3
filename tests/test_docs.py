"""The docs' generated tables match their sources, and the results' data is well formed.

``docs/rules.md`` (options and presets), ``README.md`` (presets and results) and
``docs/results.md`` (results) hold tables rendered by :mod:`president_env.testing.doctables` from
the rules' field metadata and from ``docs/data/``. A failure prints the diff; fix it with ``make
docs`` (``python -m president_env.testing.doctables --write``). No test reads a figure from the
prose: a figure lives in ``docs/data/`` and reaches the docs through a generated table.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from president_env.core.rules import OPTIONS, PRESETS, Rules
from president_env.testing import doctables
from president_env.testing.datachecks import data_problems
from president_env.testing.doctables import (
    DATA,
    FILES,
    TABLES,
    differences,
    options_table,
    presets_summary_table,
    presets_table,
    render,
)

ROOT = Path(__file__).resolve().parent.parent


README_MAX_LINES = 400
"""The README is a manual: at most this many lines (results and logs live under docs/)."""


@pytest.mark.parametrize("rel", sorted(FILES))
def test_the_tables_in_the_docs_match_their_sources(rel: str) -> None:
    diffs = [d for d in differences(ROOT) if d.startswith((f"--- {rel} ", f"{rel}:"))]
    assert not diffs, (
        f"the tables in {rel} differ from Rules or docs/data; run `make docs` to rewrite them:\n"
        + "\n".join(diffs)
    )


def test_every_table_is_shown_somewhere() -> None:
    shown = {name for names in FILES.values() for name in names}
    assert shown == set(TABLES)


def test_the_readme_is_a_manual_of_at_most_400_lines() -> None:
    lines = (ROOT / "README.md").read_text().count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines (at most {README_MAX_LINES})"


def _docs() -> list[Path]:
    return [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").rglob("*.md"))]


@pytest.mark.parametrize("path", _docs(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_of_the_docs_exists(path: Path) -> None:
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        assert (path.parent / target.split("#")[0]).exists(), f"{path.name}: no {target}"


def test_the_results_data_is_well_formed() -> None:
    problems = data_problems(ROOT / DATA)
    assert not problems, "\n".join(problems)


def test_the_strength_through_the_env_is_the_mean_of_its_games() -> None:
    """``aec_strength.csv``: each run's mean and interval recomputed from its games
    (``aec_places.csv``) by the measuring script's own summary."""
    from train.eval.aec import summary

    with (ROOT / DATA / "aec_places.csv").open(newline="") as f:
        games = list(csv.DictReader(f))
    with (ROOT / DATA / "aec_strength.csv").open(newline="") as f:
        runs = list(csv.DictReader(f))
    assert runs
    for r in runs:
        mine = [(int(g["deal"]), int(g["seat"]), int(g["place"])) for g in games
                if (g["agent"], g["opponents"], g["preset"], g["seed"])
                == (r["agent"], r["opponents"], r["preset"], r["seed"])]
        got = summary(mine)
        want = tuple(float(r[k]) for k in ("mean_place", "mean_place_lo", "mean_place_hi"))
        assert np.allclose(got, want, atol=6e-4), (r["agent"], r["opponents"], got, want)


def _copy_docs(tmp_path: Path) -> None:
    """The docs and their data, as they are, into ``tmp_path``."""
    for rel in FILES:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text((ROOT / rel).read_text())
    shutil.copytree(ROOT / DATA, tmp_path / DATA, dirs_exist_ok=True)


def _edit_csv(path: Path, match: dict[str, str], **changes: str) -> None:
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    fields = list(rows[0])
    for r in rows:
        if all(r[k] == v for k, v in match.items()):
            r.update(changes)
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


def test_a_figure_edited_in_the_prose_or_the_data_is_caught(tmp_path: Path) -> None:
    _copy_docs(tmp_path)
    assert differences(tmp_path) == []
    readme = tmp_path / "README.md"
    readme.write_text(readme.read_text().replace("1.903 [1.896, 1.910]", "1.899 [1.896, 1.910]"))
    (diff,) = differences(tmp_path)
    assert "+| Hard | 1.903 [1.896, 1.910] |" in diff
    assert doctables.write(tmp_path) == ["README.md"]
    _edit_csv(tmp_path / DATA / "ladder.csv", {"preset": "standard", "agent": "hard"},
              mean_place="1.904")
    stale = differences(tmp_path)
    assert {d.splitlines()[0].split()[1] for d in stale} == {"README.md", "docs/results.md"}
    assert sorted(doctables.write(tmp_path)) == ["README.md", "docs/results.md"]
    assert "| Hard | 1.904 [1.896, 1.910] |" in readme.read_text()


@pytest.mark.parametrize("file, match, changes, says", [
    ("ladder.csv", {"preset": "cardverse", "agent": "easy"}, {"mean_place_lo": "2.230"},
     "ladder.csv line 8: mean_place 2.213 is not inside [2.23, 2.221]"),
    ("ladder.csv", {"preset": "daifugo", "agent": "random"}, {"agent": "randy"},
     "ladder.csv: no row for ('daifugo', 'random')"),
    ("expert.csv", {"preset": "standard", "seat": "expert"}, {"mean_place": "2.2"},
     "expert.csv line 2: mean_place 2.2 is not inside [2.077, 2.126]"),
    ("shipped_policies.csv", {"policy": "policy", "opponents": "expert"}, {"policy": "lookahead"},
     "shipped_policies.csv: no row for ('policy', 'expert')"),
    ("shipped_policies.csv", {"policy": "ppo", "opponents": "easy"}, {"mean_place": "2.003"},
     "the ppo row vs 3 x easy is not ppo_eval.json's"),
    ("expert.csv", {"preset": "daifugo", "seat": "hard"}, {"expert_budget": "-"},
     "expert.csv line 11: expert_budget '-' is not SAMPLESxSTEPS"),
    ("aec_strength.csv", {"agent": "policy", "opponents": "hard"}, {"expert_budget": "64x12"},
     "aec_strength.csv line 2: expert_budget '64x12' is not '-' (no Expert in this row)"),
    ("probe.csv", {"target": "ppo"}, {"mean_place_hi": "2.5"},
     "probe.csv line 5: mean_place 2.645 is not inside [2.621, 2.5]"),
    ("uecda_strength.csv", {"agent": "sample#2", "opponents": "1 hard+3 sample"},
     {"mean_rank": "3.100"}, "the mean ranks of the hard match sum to 14.713, not 15"),
    ("uecda_strength.csv", {"agent": "expert"}, {"ci_high": "1.630"},
     "uecda_strength.csv line 7: mean_rank 1.633 is not inside [1.57, 1.63]"),
    ("uecda_strength.csv", {"agent": "sample#3", "opponents": "1 expert+3 sample"},
     {"agent": "sample#5"}, "the expert match is not expert, sample#1, sample#2, sample#3, sample#4"),
    ("uecda_strength.csv", {"agent": "hard", "opponents": "1 runs/uecda_lookahead/policy.pt+3 sample"},
     {"opponents": "4 sample"}, "the hard+runs/uecda_lookahead/policy.pt match is not hard,"),
    ("uecda_strength.csv", {"agent": "sample#2", "opponents": "1 hard+1 runs/uecda_lookahead/policy.pt+2 sample"},
     {"mean_rank": "3.300"}, "the hard+runs/uecda_lookahead/policy.pt match sum to 15.039, not 15"),
    ("uecda_strength.csv", {"agent": "expert"}, {"expert_budget": "-"},
     "uecda_strength.csv line 7: expert_budget '-' is not SAMPLESxSTEPS"),
    ("uecda_strength.csv", {"agent": "hard"}, {"ci_low": "2.1"},
     "uecda_strength.csv line 2: mean_rank 2.097 is not inside [2.1, 2.178]"),
    ("uecda_strength.csv", {"agent": "expert"}, {"agent": "runs/nowhere/policy.pt"},
     "uecda_strength.csv line 7: agent 'runs/nowhere/policy.pt' is no sample#k"),
    ("uecda_strength.csv", {"agent": "sample#4", "opponents": "1 hard+3 sample"},
     {"agent": "sample#5"}, "uecda_strength.csv line 6: agent 'sample#5' is no sample#k"),
])
def test_malformed_data_is_reported(tmp_path: Path, file: str, match: dict[str, str],
                                    changes: dict[str, str], says: str) -> None:
    data = tmp_path / "data"
    shutil.copytree(ROOT / DATA, data)
    assert data_problems(data) == []
    _edit_csv(data / file, match, **changes)
    assert any(says in p for p in data_problems(data)), data_problems(data)


def test_a_benchmark_ratio_of_a_figure_that_does_not_exist_is_reported(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(ROOT / DATA, data)
    bench = json.loads((data / "benchmarks.json").read_text())
    bench["rows"] = [r for r in bench["rows"] if r["id"] != "rlcard"]
    del bench["date"]
    (data / "benchmarks.json").write_text(json.dumps(bench))
    problems = data_problems(data)
    assert "benchmarks.json: no 'date'" in problems
    assert any("B = 1 / RLCard" in p and "names no figures" in p for p in problems), problems


def test_the_shipped_policies_in_the_data_are_the_shipped_names() -> None:
    from agents.pretrained import DEFAULT, PRETRAINED

    with (ROOT / DATA / "shipped_policies.csv").open(newline="") as f:
        names = {r["policy"] for r in csv.DictReader(f)}
    assert names <= set(PRETRAINED) and DEFAULT in names


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


def test_the_readme_presets_table_names_what_differs_from_the_defaults() -> None:
    rows = {line.split("|")[1].strip(): line.split("|")[4]
            for line in presets_summary_table().splitlines()[2:]}
    assert set(rows) == {f"`{name}`" for name in PRESETS}
    assert rows["`standard`"].strip() == "`scoring=president_vp`"  # its other options: defaults
    assert "no `top_rank_clears`" in rows["`uecda`"] and "`run_revolution=5`" in rows["`uecda`"]
    assert "`jokers=2`" in rows["`daifugo`"] and "jokers" not in rows["`revolution`"]


def test_a_stale_table_is_reported_with_a_diff(tmp_path: Path) -> None:
    _copy_docs(tmp_path)
    for rel in FILES:
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
    assert differences(tmp_path) == [
        "README.md: no '<!-- generated: presets_summary ... -->' block"]


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
