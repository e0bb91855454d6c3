"""The results' data (``docs/data/``): its files, the names the generated tables of
:mod:`president_env.testing.doctables` expect, and its checks: :func:`data_problems` lists
what is wrong (a mean outside its interval, a row missing, the PPO rows not the evaluator's
output, an Expert's budget not named, a ratio of figures that do not exist); ``tests/test_docs.py``
and ``make docs`` run it."""

from __future__ import annotations

import csv
import json
import re
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

DATA = Path("docs") / "data"
"""The folder of the results, relative to the project root."""

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

UECDA_SAMPLE = re.compile(r"sample#[1-4]")
"""A seat of the UECda kit's sample client in ``uecda_strength.csv`` (player 1-4)."""
EXPERIMENTS = ROOT / "docs" / "experiments"
"""The experiment notes, where a command that trains an unshipped checkpoint is documented."""

Row = dict[str, str]


def read_csv(data: Path, name: str) -> list[Row]:
    """The rows of ``data/name`` as dictionaries of strings."""
    with (data / name).open(newline="") as f:
        return list(csv.DictReader(f))


def read_benchmarks(data: Path) -> dict[str, Any]:
    """``data/benchmarks.json``: the run's metadata, ``rows`` of figures and ``ratios``."""
    out: dict[str, Any] = json.loads((data / "benchmarks.json").read_text())
    return out


BENCH_SUMMARY = ("standard_fused", "standard_calls", "standard_b1",
                 "aec_standard", "vector_standard", "openspiel")
"""The benchmark's rows that the README shows (``docs/results.md`` shows them all)."""


def figure_ratio(figures: dict[str, dict[str, Any]], spec: str) -> str:
    """``"a@1/b@1"``: the figure of row ``a`` at 1 thread over row ``b``'s, as ``28.3x``."""
    if not spec:
        return ""
    num, den = (part.split("@") for part in spec.split("/"))
    value = figures[num[0]][f"threads_{num[1]}"] / figures[den[0]][f"threads_{den[1]}"]
    return f"{value:.1f}x" if value >= 10 else f"{value:.2f}x"


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
                figure_ratio(figures, r[col])
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
    out += _uecda_problems(read_csv(data, "uecda_strength.csv"))
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


def uecda_matches(rows: list[Row]) -> list[list[Row]]:
    """The matches of ``uecda_strength.csv``: each is the rows of our agents (one or more) and
    then the rows of the sample clients at the same table."""
    out: list[list[Row]] = []
    for r in rows:
        sample = r["agent"].startswith("sample#")
        if out and (sample or not out[-1][-1]["agent"].startswith("sample#")):
            out[-1].append(r)
        else:
            out.append([r])
    return out


def uecda_table_of(match: list[Row], row: Row) -> Counter[str]:
    """The other four seats of ``row``'s table in ``match``: agent (``sample`` for every sample
    client) -> seats."""
    seats = Counter("sample" if r["agent"].startswith("sample#") else r["agent"] for r in match)
    seats["sample" if row["agent"].startswith("sample#") else row["agent"]] -= 1
    return +seats


def _uecda_opponents(text: str) -> Counter[str] | None:
    """``"1 hard+3 sample"`` -> its Counter; None if it is not such a list."""
    out: Counter[str] = Counter()
    for part in text.split("+"):
        m = re.fullmatch(r"([1-4]) (\S+)", part)
        if m is None:
            return None
        out[m.group(2)] += int(m.group(1))
    return out


def _uecda_problems(rows: list[Row], notes: Path = EXPERIMENTS) -> list[str]:
    """Each match of ``uecda_strength.csv`` is five players over the same games: our agents,
    then sample clients ``sample#1``, ``sample#2``, ..., each row's ``opponents`` the other
    four (``"1 hard+3 sample"``), every mean inside its interval, the five mean ranks summing to
    15 (the places 1 to 5 of every game), and its Expert's budget named. Each agent is one a
    user can seat again: a sample client, an agent ``agents.load_agent`` resolves by name, or a
    checkpoint that is not shipped, named by the path that a command in the experiment notes
    (``notes``) writes: under its ``--out``."""
    from agents import agent_names

    name = "uecda_strength.csv"
    outs = {m for f in sorted(notes.glob("*.md"))
            for m in re.findall(r"python -m train\.\S+ [^`]*?--out (\S+)", f.read_text())}
    out = []
    for line, r in enumerate(rows, start=2):
        m, lo, hi = (float(r[k]) for k in ("mean_rank", "ci_low", "ci_high"))
        if not 1 <= lo <= m <= hi <= 5:
            out.append(f"{name} line {line}: mean_rank {m} is not inside [{lo}, {hi}] within 1..5")
        agent = r["agent"]
        named = UECDA_SAMPLE.fullmatch(agent) or agent in agent_names()
        trained = agent.endswith(".pt") and any(agent.startswith(o.rstrip("/") + "/")
                                                for o in outs)
        if not (named or trained):
            out.append(f"{name} line {line}: agent {agent!r} is no sample#k, no agent name and "
                       f"no checkpoint under the --out of a training command in {notes.name}/")
    for match in uecda_matches(rows):
        ours = [r["agent"] for r in match if not r["agent"].startswith("sample#")]
        want = ours + [f"sample#{i}" for i in range(1, 6 - len(ours))]
        if [r["agent"] for r in match] != want or any(
                _uecda_opponents(r["opponents"]) != uecda_table_of(match, r) for r in match):
            out.append(f"{name}: the {'+'.join(ours)} match is not {', '.join(want)}, each "
                       "row's opponents the other four")
            continue
        if len({r["games"] for r in match}) != 1 or len({r["expert_budget"] for r in match}) != 1:
            out.append(f"{name}: the rows of the {'+'.join(ours)} match differ in games or budget")
        total = sum(float(r["mean_rank"]) for r in match)
        if abs(total - 15) > 0.0026:  # five means rounded to 3 decimals
            out.append(f"{name}: the mean ranks of the {'+'.join(ours)} match sum to "
                       f"{total:.3f}, not 15")
    return out + _budget_problems(name, rows, lambda r: "expert" in r["agent"] + r["opponents"])
