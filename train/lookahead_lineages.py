"""The stages of ``train.lookahead`` over several runs: lineages (``--lineages``), the union
fits on their policy-iteration labels (``--union``), the league round after them
(``--league``) and the averages (``--ensemble``), each recorded in ``OUT/rounds.csv``."""

from __future__ import annotations

import dataclasses
import shutil
import time
from pathlib import Path

from president_env.cli import user_errors
from president_env.core.rules import Rules
from train.common.labels import read_labels, regret_on
from train.common.stages import Stages
from train.ensemble import merge
from train.lookahead import Args, collect_all, fit, part_paths, run

LINEAGE_SEEDS = 1000
"""Seeds between two lineages (``--lineages``): each run's stages take the seeds after its own."""


def run_lineages(args: Args, rules: Rules) -> dict[str, float]:
    """``args.lineages`` whole runs (``OUT/lineage_<i>``, seed ``seed + LINEAGE_SEEDS * i``),
    then the last ``ensemble`` stages of each (or the ``union`` fits on their policy-iteration
    labels: :func:`union_fits`) averaged into ``OUT/ensemble/policy.pt``, then the ``league``
    round (:func:`league_round`). Every stage is copied to ``OUT/rounds.csv`` as
    ``L<i>.<stage>`` (its wall clock from the start), and the average is rated on the labels
    of the last run's last fit only (every run's could be several times the memory of one
    fit)."""
    top = Stages(Path(args.out), rules, args.eval_deals, args.progress)
    members: list[Path] = []
    files: list[Path] = []
    pi_files: list[Path] = []
    for i in range(args.lineages):
        start = time.perf_counter() - top.t0
        one = dataclasses.replace(args, out=str(Path(args.out) / f"lineage_{i}"), lineages=1,
                                  seed=args.seed + LINEAGE_SEEDS * i)
        stages, last_files, _ = run(one, rules)
        top.rows += [{**r, "stage": f"L{i}.{r['stage']}",
                      "elapsed_s": round(start + r["elapsed_s"], 1)} for r in stages.rows]
        members += [Path(r["folder"]) / "policy.pt" for r in stages.rows[-args.ensemble:]]
        files = last_files
        pi_files += [p for r in stages.rows if r["stage"].startswith("PI")
                     for p in part_paths(dataclasses.replace(one, out=r["folder"]))]
    top.lap()
    if args.union:  # rated, as the lineages' average, on the last run's last labels only
        members = union_fits(args, rules, top, [p for p in pi_files if p.is_file()])
    last = average_stages(args, rules, top, members, files)
    if args.league:
        last = league_round(args, rules, top, members)
    return last


def union_fits(args: Args, rules: Rules, stages: Stages, files: list[Path]) -> list[Path]:
    """``args.union`` fits on the labels ``files`` (read once), the ``i``-th from the last
    policy of run ``i`` (cycling) and seeded ``seed + i``, in ``OUT/union_<i>/``, recorded as
    the stages ``U<i>``: their policies."""
    with user_errors():
        d = read_labels(rules, files)
    out = []
    for i in range(args.union):
        folder = Path(args.out) / f"union_{i}"
        last = Path(args.out) / f"lineage_{i % args.lineages}" / "policy.pt"
        one = dataclasses.replace(args, out=str(folder), init=str(last),
                                  lr=args.round_lr, epochs=args.round_epochs, seed=args.seed + i)
        stages.add(f"U{i}", folder, 0.0, fit(one, rules, d, folder))
        out.append(folder / "policy.pt")
    return out


def league_round(args: Args, rules: Rules, stages: Stages,
                 members: list[Path]) -> dict[str, float]:
    """``args.league`` decisions in ``OUT/league/``: the average ``OUT/ensemble/policy.pt``
    (kept as ``league/behaviour.pt``) plays the labelled seat and plays on for it against
    ``league_opponents`` (seeds after every lineage's); each of ``members`` refitted from itself
    on those labels only (``OUT/league_<i>/``, stages ``G<i>``); then ``members`` and the
    refits averaged, weighted ``1 - league_weight`` and ``league_weight`` in all (at 1, the
    refits alone), into ``OUT/league/policy.pt`` (stage ``F``, rated on the league labels): its
    metrics."""
    sub = Path(args.out) / "league"
    sub.mkdir(parents=True, exist_ok=True)
    behaviour = sub / "behaviour.pt"
    if not behaviour.is_file():  # a resumed round keeps the policy it collected with
        shutil.copyfile(Path(args.out) / "ensemble" / "policy.pt", behaviour)
    step = dataclasses.replace(args, out=str(sub), behaviour=str(behaviour),
                               rollout=str(behaviour), opponents=args.league_opponents,
                               decisions=args.league,
                               seed=args.seed + LINEAGE_SEEDS * args.lineages)
    files = collect_all(step)
    took = stages.lap()
    with user_errors():
        d = read_labels(rules, files)
    refits = []
    for i, member in enumerate(members):
        folder = Path(args.out) / f"league_{i}"
        one = dataclasses.replace(step, out=str(folder), init=str(member), lr=args.round_lr,
                                  epochs=args.round_epochs, seed=step.seed + i)
        stages.add(f"G{i}", folder, took if i == 0 else 0.0, fit(one, rules, d, folder))
        refits.append(folder / "policy.pt")
    k, w = len(members), args.league_weight
    kept = [(str(m), x) for m, x in zip(members + refits, [(1 - w) / k] * k + [w / k] * k,
                                        strict=True) if x > 0]  # weight 1: the refits alone
    net = merge([m for m, _ in kept], str(sub / "policy.pt"), [x for _, x in kept])
    last = regret_on(net, rules, files, args.holdout)
    stages.add("F", sub, 0.0, last)
    return last


def average_stages(args: Args, rules: Rules, stages: Stages, members: list[Path],
                   files: list[Path]) -> dict[str, float]:
    """Average the policies ``members`` into ``OUT/ensemble/policy.pt`` and record it as the
    stage ``E`` (no collection; its seconds are the merge and the regret), with its regret on
    the labels ``files`` (those of the last fit)."""
    folder = Path(args.out) / "ensemble"
    net = merge([str(m) for m in members], str(folder / "policy.pt"))
    last = regret_on(net, rules, files, args.holdout)
    stages.add("E", folder, 0.0, last)
    return last
