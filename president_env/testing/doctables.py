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
(:func:`data_problems`); ``make docs`` (``python -m president_env.testing.doctables --write``)
rewrites the tables.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import difflib
import json
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

DATA = Path("docs") / "data"
"""The folder of the results, relative to the project root."""


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


# ---------------------------------------------------------------------- results: the data
LADDER_PRESETS = ("standard", "cardverse", "daifugo", "daifugo_full")
"""The presets of the rule-based ladder (``docs/data/ladder.csv``), in the tables' order."""
LADDER_AGENTS = ("hard", "normal", "easy", "random")
"""The agents of the ladder, strongest first."""
EXPERT_PRESETS = ("standard", "cardverse", "daifugo")
"""The presets of the Expert against three Hard (``docs/data/expert.csv``)."""
EXPERT_SEATS = ("expert", "hard", "hard#2", "hard#3")
"""The seats of those tables: the Expert, then the Hard seats in the order after it."""
SHIPPED_OPPONENTS = {"policy": ("hard", "expert"), "ppo": LADDER_AGENTS}
"""The opponents each shipped policy is rated against (``docs/data/shipped_policies.csv``)."""
AEC_RUNS = (("expert", "hard"), ("policy", "hard"), ("policy", "expert"))
"""The (agent, opponents) measured through the PettingZoo env, 4-player ``standard``
(``docs/data/aec_strength.csv``, every game in ``aec_places.csv``: ``train.eval.aec``)."""

Row = dict[str, str]


def read_csv(data: Path, name: str) -> list[Row]:
    """The rows of ``data/name`` as dictionaries of strings."""
    with (data / name).open(newline="") as f:
        return list(csv.DictReader(f))


def read_benchmarks(data: Path) -> dict[str, Any]:
    """``data/benchmarks.json``: the run's metadata, ``rows`` of figures and ``ratios``."""
    out: dict[str, Any] = json.loads((data / "benchmarks.json").read_text())
    return out


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


BENCH_SUMMARY = ("standard_fused", "standard_calls", "standard_b1",
                 "aec_standard", "vector_standard", "openspiel")
"""The benchmark's rows that the README shows (``docs/results.md`` shows them all)."""


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


def _ratio(figures: dict[str, dict[str, Any]], spec: str) -> str:
    """``"a@1/b@1"``: the figure of row ``a`` at 1 thread over row ``b``'s, as ``28.3x``."""
    if not spec:
        return ""
    num, den = (part.split("@") for part in spec.split("/"))
    value = figures[num[0]][f"threads_{num[1]}"] / figures[den[0]][f"threads_{den[1]}"]
    return f"{value:.1f}x" if value >= 10 else f"{value:.2f}x"


def benchmark_ratios_table(data: Path) -> str:
    """Ratios of figures of the same run (the benchmark's targets beside them)."""
    bench = read_benchmarks(data)
    figures = {r["id"]: r for r in bench["rows"]}
    body = [[r["ratio"], _ratio(figures, r["threads_1"]), _ratio(figures, r["threads_2"]),
             r["target"]] for r in bench["ratios"]]
    return _table(["ratio (same run)", "1 thread", "2 threads", "target"], body)


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
}
"""The generated tables, by marker name; each is made from the data folder (``docs/data``)."""

FILES: dict[str, tuple[str, ...]] = {
    "docs/rules.md": ("options", "presets"),
    "README.md": ("presets_summary", "ladder", "expert", "shipped", "benchmarks_summary"),
    "docs/results.md": ("ladder_full", "expert_full", "aec", "shipped_full", "probe",
                        "benchmarks", "benchmark_ratios"),
}
"""The tables each file (relative to the project root) must hold."""


# ---------------------------------------------------------------------- results: checks
def _interval_problems(name: str, rows: list[Row], keys: Sequence[str]) -> list[str]:
    out = []
    for line, r in enumerate(rows, start=2):
        for key in keys:
            if not r.get(key):
                continue
            m, lo, hi = (float(r[k]) for k in (key, f"{key}_lo", f"{key}_hi"))
            if not lo <= m <= hi:
                out.append(f"{name} line {line}: {key} {m} is not inside [{lo}, {hi}]")
    return out


def _missing(name: str, have: set[tuple[str, str]], want: set[tuple[str, str]]) -> list[str]:
    return [f"{name}: no row for {k}" for k in sorted(want - have)] + [
        f"{name}: unexpected row {k}" for k in sorted(have - want)
    ]


def _ppo_eval_problems(data: Path, rows: list[Row]) -> list[str]:
    """The ``ppo`` rows must be the evaluator's own output, ``data/ppo_eval.json``."""
    out = []
    ppo = {r["opponents"]: r for r in rows if r["policy"] == "ppo"}
    for e in json.loads((data / "ppo_eval.json").read_text()):
        r = ppo.get(e["opponents"].removeprefix("3 x "))
        pairs = [("mean_place", e["mean_place"]), ("mean_place_lo", e["mean_place_lo"]),
                 ("mean_place_hi", e["mean_place_hi"]), ("first_pct", 100 * e["first_rate"]),
                 ("last_pct", 100 * e["last_rate"]), ("points", e["points"])]
        if r is None or int(r["deals"]) != e["deals"] or any(
            abs(float(r[k]) - v) > 1e-9 for k, v in pairs
        ):
            out.append(f"shipped_policies.csv: the ppo row vs {e['opponents']} is not ppo_eval.json's")
    return out


def _benchmark_problems(data: Path) -> list[str]:
    bench = read_benchmarks(data)
    out = [f"benchmarks.json: no {k!r}" for k in ("command", "date", "machine", "software",
                                                  "peers", "rows", "ratios") if k not in bench]
    figures = {r["id"]: r for r in bench.get("rows", [])}
    out += [f"benchmarks.json: no row {i!r} (BENCH_SUMMARY)" for i in BENCH_SUMMARY
            if i not in figures]
    for r in figures.values():
        if not (isinstance(r["threads_1"], int) and r["threads_1"] > 0):
            out.append(f"benchmarks.json: {r['id']} has no 1-thread figure")
    for r in bench.get("ratios", []):
        for col in ("threads_1", "threads_2"):
            try:
                _ratio(figures, r[col])
            except (KeyError, TypeError, ValueError):
                out.append(f"benchmarks.json: ratio {r['ratio']!r} ({col}) names no figures")
    return out


def data_problems(data: Path = ROOT / DATA) -> list[str]:
    """What is wrong with the results' data: a mean outside its interval, a row missing or
    unexpected, the PPO rows not the evaluator's output, a ratio of figures that do not exist.
    Empty when the data is well formed."""
    ladder = read_csv(data, "ladder.csv")
    expert = read_csv(data, "expert.csv")
    shipped = read_csv(data, "shipped_policies.csv")
    probe = read_csv(data, "probe.csv")
    out = _interval_problems("ladder.csv", ladder, ("mean_place", "first_pct", "last_pct", "points"))
    out += _interval_problems("expert.csv", expert, ("mean_place",))
    out += _interval_problems("shipped_policies.csv", shipped, ("mean_place",))
    out += _interval_problems("probe.csv", probe, ("mean_place",))
    out += _missing("ladder.csv", {(r["preset"], r["agent"]) for r in ladder},
                    {(p, a) for p in LADDER_PRESETS for a in LADDER_AGENTS})
    out += _missing("expert.csv", {(r["preset"], r["seat"]) for r in expert},
                    {(p, s) for p in EXPERT_PRESETS for s in EXPERT_SEATS})
    out += _missing("shipped_policies.csv", {(r["policy"], r["opponents"]) for r in shipped},
                    {(p, o) for p, opps in SHIPPED_OPPONENTS.items() for o in opps})
    out += _missing("probe.csv", {(r["target"], "") for r in probe},
                    {(p, "") for p in SHIPPED_OPPONENTS})
    out += _aec_problems(data)
    out += _budget_problems("expert.csv", expert, lambda r: True)
    out += _budget_problems("shipped_policies.csv", shipped, lambda r: r["opponents"] == "expert")
    out += _budget_problems("aec_strength.csv", read_csv(data, "aec_strength.csv"),
                            lambda r: "expert" in (r["agent"], r["opponents"]))
    return out + _ppo_eval_problems(data, shipped) + _benchmark_problems(data)


def _budget_problems(name: str, rows: list[Row], has_expert: Callable[[Row], bool]) -> list[str]:
    """Each row with an Expert names its budget (``64x12``: sampled deals x belief steps); the
    others have ``-``."""
    out = []
    for i, r in enumerate(rows, start=2):
        budget = r.get("expert_budget")
        ok = (re.fullmatch(r"[1-9][0-9]*x[1-9][0-9]*", budget or "") is not None
              if has_expert(r) else budget == "-")
        if not ok:
            out.append(f"{name} line {i}: expert_budget {budget!r} is not "
                       + ("SAMPLESxSTEPS" if has_expert(r) else "'-' (no Expert in this row)"))
    return out


def _aec_problems(data: Path) -> list[str]:
    """Every run of ``aec_strength.csv`` has its mean inside its interval, and is every deal
    of ``aec_places.csv`` with the agent in every seat (the mean itself is recomputed from the
    games by ``tests/test_docs.py``)."""
    rows = read_csv(data, "aec_strength.csv")
    out = _interval_problems("aec_strength.csv", rows, ("mean_place",))
    out += _missing("aec_strength.csv", {(r["agent"], r["opponents"]) for r in rows},
                    set(AEC_RUNS))
    games: dict[tuple[str, ...], dict[int, int]] = {}
    for g in read_csv(data, "aec_places.csv"):
        key = (g["agent"], g["opponents"], g["preset"], g["seed"])
        deals = games.setdefault(key, {})
        deals[int(g["deal"])] = deals.get(int(g["deal"]), 0) + 1
    for r in rows:
        deals = games.get((r["agent"], r["opponents"], r["preset"], r["seed"]), {})
        if sorted(deals) != list(range(int(r["deals"]))) or set(deals.values()) != {int(r["players"])}:
            out.append(f"aec_strength.csv: {r['agent']} vs {r['opponents']}: the games of "
                       f"aec_places.csv are not deals 0..{int(r['deals']) - 1} x "
                       f"{r['players']} seats")
    return out




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
