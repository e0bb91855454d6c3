"""The generated tables of the docs: options and presets from ``Rules``, results from ``docs/data``.

``docs/rules.md``, ``README.md`` and ``docs/results.md`` hold tables rendered here: the options
and the presets from the rules' field metadata (:data:`~president_env.core.rules.OPTIONS`), and
every result (the rule-based ladder, the Expert, the shipped policies, the exploitability probe,
the benchmark) from the files of ``docs/data/``. Each table sits between two markers in the
markdown (invisible once rendered)::

    <!-- generated: presets (python -m president_env.testing.doctables --write) -->
    | preset | source | players | ... |
    <!-- end generated: presets -->

A figure is changed in its data file, never in the prose: ``tests/test_docs.py`` fails with a diff
when a table differs from what its data makes, and when the data is not well formed
(:func:`president_env.testing.datachecks.data_problems`); ``make docs`` (``python -m president_env.testing.doctables --write``)
rewrites the tables.
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
from president_env.testing.datachecks import (
    BENCH_SUMMARY,
    DATA,
    EXPERT_SEATS,
    LADDER_AGENTS,
    LADDER_PRESETS,
    ROOT,
    Row,
    data_problems,
    figure_ratio,
    read_benchmarks,
    read_csv,
    uecda_matches,
    uecda_table_of,
)


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


def _short(name: str, value: Any) -> str:
    """An option as the README's presets table writes it: ``lock`` for a switch on,
    ``no revolution`` for one off, ``jokers=2`` otherwise."""
    if isinstance(value, bool):
        return f"`{name}`" if value else f"no `{name}`"
    return f"`{name}={'-' if value is None else value}`"


def presets_summary_table() -> str:
    """The README's table of the presets: source, player range, and each option a preset sets
    to other than its default (the full table of every option a preset sets is in
    docs/rules.md)."""
    defaults = Rules()
    rows = ["| preset | source | players | differs from the defaults |", "|---|---|---|---|"]
    for preset, (lo, hi) in PRESET_PLAYERS.items():
        rules = Rules.preset(preset)
        changed = [_short(n, getattr(rules, n)) for n in PRESETS[preset]
                   if n != "num_players" and getattr(rules, n) != getattr(defaults, n)]
        players = f"{lo}-{hi}" if lo != hi else str(lo)
        rows.append(f"| `{preset}` | {PRESET_SOURCES[preset]} | {players} | "
                    f"{', '.join(changed) or '-'} |")
    return "\n".join(rows) + "\n"


def _ci(row: Row, key: str = "mean_place", digits: int = 3) -> str:
    """``mean [lo, hi]`` of ``key`` in ``row``."""
    m, lo, hi = (float(row[k]) for k in (key, f"{key}_lo", f"{key}_hi"))
    return f"{m:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def _num(value: str, digits: int) -> str:
    return f"{float(value):.{digits}f}" if value else "-"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------- results: the tables
def ladder_table(data: Path) -> str:
    """Mean place and 95% interval of each rule-based agent (rows) in each preset (columns)."""
    rows = read_csv(data, "ladder.csv")
    cell = {(r["preset"], r["agent"]): _ci(r) for r in rows}
    body = [[a.capitalize(), *(cell[(p, a)] for p in LADDER_PRESETS)] for a in LADDER_AGENTS]
    return _table(["agent", *LADDER_PRESETS], body)


def ladder_full_table(data: Path) -> str:
    """Every figure of the ladder: place, first and last shares, points and rating, per preset."""
    body = [
        [f"`{r['preset']}`", r["agent"].capitalize(), _ci(r), _ci(r, "first_pct", 1),
         _ci(r, "last_pct", 1), _ci(r, "points"), f"{r['rating_mu']} ({r['rating_sigma']})"]
        for r in read_csv(data, "ladder.csv")
    ]
    header = ["preset", "agent", "mean place (95% CI)", "first %", "last %", "points / deal",
              "rating mu (sigma)"]
    return _table(header, body)


def _expert_rows(data: Path) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = {}
    for r in read_csv(data, "expert.csv"):
        out.setdefault(r["preset"], []).append(r)
    return out


def expert_table(data: Path) -> str:
    """The Expert against three Hard per preset, beside the best Hard seat, and through the
    PettingZoo env where measured."""
    aec = {r["preset"]: r for r in read_csv(data, "aec_strength.csv")
           if (r["agent"], r["opponents"]) == ("expert", "hard")}
    body = []
    for preset, rows in _expert_rows(data).items():
        expert = next(r for r in rows if r["seat"] == "expert")
        best = min((r for r in rows if r["seat"] != "expert"), key=lambda r: float(r["mean_place"]))
        env = aec.get(preset)
        through = "-" if env is None else (
            f"{_ci(env)} ({int(env['deals']):,} deals, {_budget(env)})")
        body.append([preset, f"{int(expert['deals']):,}", f"**{_ci(expert)}** ({_budget(expert)})",
                     _ci(best), through])
    return _table(["preset", "deals", "Expert (its budget)", "best Hard seat",
                   "Expert, AEC env loop"], body)


def _budget(r: Row) -> str:
    """The Expert's budget of a row: "64 x 12" (sampled deals x belief steps)."""
    return r["expert_budget"].replace("x", " x ")


def aec_table(data: Path) -> str:
    """Agents measured through the PettingZoo env (``train.eval.aec``)."""
    body = [[f"`{r['agent']}`", f"3 x {r['opponents'].capitalize()}", f"`{r['preset']}`",
             f"{int(r['deals']):,}", r["seed"], _ci(r), f"{int(r['seconds']):,}",
             _budget(r)] for r in read_csv(data, "aec_strength.csv")]
    return _table(["agent", "vs", "preset", "deals", "seed", "mean place, 95% CI", "seconds",
                   "Expert's budget (deals x steps)"], body)


def expert_full_table(data: Path) -> str:
    """The Expert against three Hard per preset, every seat."""
    body = []
    for preset, rows in _expert_rows(data).items():
        seat = {r["seat"]: r for r in rows}
        first = rows[0]
        cells = [f"**{_ci(seat['expert'])}**", *(_ci(seat[s]) for s in EXPERT_SEATS[1:])]
        seeds = ("seeds " if "-" in first["seeds"] else "seed ") + first["seeds"]
        body.append([f"`{preset}`", f"{int(first['deals']):,} ({seeds})", *cells])
    return _table(["preset", "deals", *EXPERT_SEATS], body)


def _shipped_row(r: Row, seeds: bool) -> list[str]:
    vs = f"3 x {r['opponents'].capitalize()}"
    if r["expert_budget"] != "-":
        vs += f" ({_budget(r)})"
    cells = [f"`{r['policy']}`", vs, f"{int(r['deals']):,}"]
    if seeds:
        cells.append(r["seeds"])
    return cells + [_ci(r), _num(r["first_pct"], 1), _num(r["last_pct"], 1),
                    _num(r["points"], 3)]


def _shipped(data: Path, seeds: bool) -> str:
    rows = read_csv(data, "shipped_policies.csv")
    if not seeds:  # the first row of each policy and opponents; the others are other deals
        first: dict[tuple[str, str], Row] = {}
        for r in rows:
            first.setdefault((r["policy"], r["opponents"]), r)
        rows = list(first.values())
    header = ["policy", "vs", "deals", *(["seeds"] if seeds else []),
              "mean place, 95% CI (fair share 2.5)", "first %", "last %", "points / deal"]
    return _table(header, [_shipped_row(r, seeds) for r in rows])


def shipped_table(data: Path) -> str:
    """The shipped policies against three of each opponent (the first deals rated for each)."""
    return _shipped(data, seeds=False)


def shipped_full_table(data: Path) -> str:
    """The shipped policies against three of each opponent, every set of deals rated."""
    return _shipped(data, seeds=True)


def probe_table(data: Path) -> str:
    """A fresh learner's mean place against three of each shipped policy, per learner seed."""
    body = [[f"`{r['target']}`", r["learner_seed"], f"{int(r['learner_steps']):,}",
             f"{int(r['deals']):,}", _ci(r)] for r in read_csv(data, "probe.csv")]
    header = ["target", "learner seed", "learner steps", "deals",
              "learner's mean place against three of it"]
    return _table(header, body)


def _figure(value: int | None) -> str:
    return "" if value is None else f"{value:,}"


def _benchmarks(data: Path, ids: Sequence[str] | None) -> str:
    bench = read_benchmarks(data)
    said = (f"One run of `{bench['command']}` ({bench['statistic']}), {bench['date']}, "
            f"{bench['machine']}; {bench['software']}; peers: {bench['peers']}.\n\n")
    rows = [r for r in bench["rows"] if ids is None or r["id"] in ids]
    body = [[r["figure"], _figure(r["threads_1"]), _figure(r["threads_2"])] for r in rows]
    return said + _table(["figure (steps/s)", "1 thread", "2 threads"], body)


def benchmarks_table(data: Path) -> str:
    """The benchmark's figures (steps per second) of its one run, with the run's metadata."""
    return _benchmarks(data, None)


def benchmarks_summary_table(data: Path) -> str:
    """The figures of :data:`BENCH_SUMMARY` from the benchmark's run, with its metadata."""
    return _benchmarks(data, BENCH_SUMMARY)


def benchmark_ratios_table(data: Path) -> str:
    """Ratios of figures of the same run (the benchmark's targets beside them)."""
    bench = read_benchmarks(data)
    figures = {r["id"]: r for r in bench["rows"]}
    body = [[r["ratio"], figure_ratio(figures, r["threads_1"]), figure_ratio(figures, r["threads_2"]),
             r["target"]] for r in bench["ratios"]]
    return _table(["ratio (same run)", "1 thread", "2 threads", "target"], body)


def uecda_table(data: Path) -> str:
    """Our agents at the UECda standard server, against the kit's sample clients and each
    other: a row per agent of ours, the sample clients of its match summed up."""
    body = []
    for match in uecda_matches(read_csv(data, "uecda_strength.csv")):
        samples = [r for r in match if r["agent"].startswith("sample#")]
        ranks = sorted(float(r["mean_rank"]) for r in samples)
        for ours in match[: len(match) - len(samples)]:
            table = uecda_table_of(match, ours)
            body.append([f"`{ours['agent']}`", ", ".join(f"{n} {a}" for a, n in table.items()),
                         f"{int(ours['games']):,}",
                         f"**{float(ours['mean_rank']):.3f}** [{float(ours['ci_low']):.3f}, "
                         f"{float(ours['ci_high']):.3f}]", ours["refused"],
                         f"{ranks[0]:.3f}-{ranks[-1]:.3f}",
                         f"{sum(int(r['refused']) for r in samples)}", ours["server"],
                         _budget(ours)])
    return _table(["our agent", "at the table with", "games", "mean rank, 95% CI", "refused plays",
                   "samples' mean ranks", "samples' refused", "server", "Expert's budget"], body)


TABLES: dict[str, Callable[[Path], str]] = {
    "options": lambda data: options_table(),
    "presets": lambda data: presets_table(),
    "presets_summary": lambda data: presets_summary_table(),
    "ladder": ladder_table,
    "ladder_full": ladder_full_table,
    "expert": expert_table,
    "expert_full": expert_full_table,
    "shipped": shipped_table,
    "aec": aec_table,
    "shipped_full": shipped_full_table,
    "probe": probe_table,
    "benchmarks": benchmarks_table,
    "benchmarks_summary": benchmarks_summary_table,
    "benchmark_ratios": benchmark_ratios_table,
    "uecda": uecda_table,
}
"""The generated tables, by marker name; each is made from the data folder (``docs/data``)."""

FILES: dict[str, tuple[str, ...]] = {
    "docs/rules.md": ("options", "presets"),
    "README.md": ("presets_summary", "ladder", "expert", "shipped", "benchmarks_summary"),
    "docs/results.md": ("ladder_full", "expert_full", "aec", "shipped_full", "probe",
                        "uecda", "benchmarks", "benchmark_ratios"),
}
"""The tables each file (relative to the project root) must hold."""


def _block(name: str) -> re.Pattern[str]:
    return re.compile(
        rf"(<!-- generated: {name}\b[^\n]*-->\n)(.*?)(<!-- end generated: {name} -->)", re.S
    )


def render(text: str, names: Sequence[str], data: Path = ROOT / DATA) -> str:
    """``text`` with the tables ``names`` rendered again between their markers, from ``data``.

    Raises ValueError if a table's markers are missing."""
    for name in names:
        match = _block(name).search(text)
        if match is None:
            raise ValueError(f"no '<!-- generated: {name} ... -->' block")
        text = text[: match.start(2)] + TABLES[name](data) + text[match.end(2) :]
    return text


def differences(root: Path = ROOT) -> list[str]:
    """A unified diff per file whose tables differ from ``Rules`` and ``root``'s data (empty
    when all agree)."""
    out = []
    for rel, names in FILES.items():
        text = (root / rel).read_text()
        try:
            want = render(text, names, root / DATA)
        except ValueError as err:
            out.append(f"{rel}: {err}")
            continue
        if want != text:
            diff = difflib.unified_diff(
                text.splitlines(keepends=True),
                want.splitlines(keepends=True),
                fromfile=f"{rel} (now)",
                tofile=f"{rel} (from Rules and {DATA})",
            )
            out.append("".join(diff))
    return out


def write(root: Path = ROOT) -> list[str]:
    """Rewrite every table that differs; the files changed."""
    changed = []
    for rel, names in FILES.items():
        path = root / rel
        text = path.read_text()
        want = render(text, names, root / DATA)
        if want != text:
            path.write_text(want)
            changed.append(rel)
    return changed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m president_env.testing.doctables",
        description="Check (or --write) the generated tables of the docs (options and presets "
        "from Rules, results from docs/data) and check the data.",
    )
    parser.add_argument("--write", action="store_true", help="rewrite the tables that differ")
    args = parser.parse_args(argv)
    problems = data_problems()
    if problems:
        print("\n".join(problems))
        return 1
    if args.write:
        print("rewrote: " + (", ".join(write()) or "nothing"))
        return 0
    diffs = differences()
    print("\n".join(diffs) if diffs else "the tables agree with Rules and docs/data")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
