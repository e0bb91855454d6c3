"""The stages of ``train.lookahead`` over several runs: lineages (``--lineages``), the union
fits on their policy-iteration labels (``--union``), the league rounds after them
(``--league``, ``--league-rounds``) and the averages (``--ensemble``), each recorded in
``OUT/rounds.csv``."""

from __future__ import annotations

import dataclasses
import time
from functools import partial
from pathlib import Path

import numpy as np

from president_env.cli import user_errors
from president_env.core.rules import Rules
from train.common.labels import read_labels, regret_on
from train.common.stages import Stages
from train.ensemble import merge
from train.lookahead import Args, collect_all, fit, next_round, part_paths, run

LINEAGE_SEEDS = 1000
"""Seeds between two lineages (``--lineages``): each run's stages take the seeds after its own."""


def run_lineages(args: Args, rules: Rules) -> dict[str, float]:
    """``args.lineages`` whole runs (``OUT/lineage_<i>``, seed ``seed + LINEAGE_SEEDS * i``),
    then the last ``ensemble`` stages of each (or the ``union`` fits on their policy-iteration
    labels: :func:`union_fits`) averaged into ``OUT/ensemble/policy.pt``, then the ``league``
    rounds (:func:`league_round`). Every stage is copied to ``OUT/rounds.csv`` as
    ``L<i>.<stage>`` (its wall clock from the start), and the average is rated on the labels
    of the last run's last fit only (every run's could be several times the memory of one
    fit)."""
    top = Stages(Path(args.out), rules, args.eval_deals, args.progress, args.resume)
    members: list[Path] = []
    files: list[Path] = []
    pi_files: list[Path] = []
    for i in range(args.lineages):
        start = time.perf_counter() - top.t0
        one = dataclasses.replace(args, out=str(Path(args.out) / f"lineage_{i}"), lineages=1,
                                  seed=args.seed + LINEAGE_SEEDS * i)
        stages, last_files, _ = run(one, rules)
        if stages.made:  # the stages after a lineage made again are made again
            top.recorded = {}
        top.rows += [{**r, "stage": f"L{i}.{r['stage']}",
                      "elapsed_s": round(start + float(r["elapsed_s"]), 1)}
                     for r in stages.rows]
        top.sync(top.rows[-1]["elapsed_s"])
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
    """``args.union`` fits on the labels ``files``, the ``i``-th from the last policy of run
    ``i`` (cycling), in ``OUT/union_<i>/``, recorded as the stages ``U<i>``: their policies."""
    out = Path(args.out)
    starts = [out / f"lineage_{i % args.lineages}" / "policy.pt" for i in range(args.union)]
    return fit_each(args, rules, stages, files, starts,
                    [out / f"union_{i}" for i in range(args.union)], "U")


def league_round(args: Args, rules: Rules, stages: Stages,
                 members: list[Path]) -> dict[str, float]:
    """``args.league_rounds`` league rounds of ``args.league`` decisions each. The first, in
    ``OUT/league/``: the average ``OUT/ensemble/policy.pt`` (kept as ``league/behaviour.pt``)
    plays the labelled seat and plays on for it against ``league_opponents`` (seeds after every
    lineage's), and each of ``members`` is refitted from itself on those labels only
    (``OUT/league_<i>/``, stages ``G<i>``). Each further round ``k`` does the same in
    ``OUT/league<k>/`` with the last round's refits averaged (``OUT/league<k-1>/policy.pt``,
    stage ``F<k-1>``) playing, each refit refitted again (``OUT/league<k>_<i>/``, stages
    ``G<k>.<i>``). The last round's refits are averaged (with ``members`` if ``league_weight``
    < 1, weighted ``1 - league_weight`` and ``league_weight`` in all) into its
    ``policy.pt`` (stage ``F``, rated on its labels): its metrics."""
    out = Path(args.out)
    behaviour, refits = out / "ensemble" / "policy.pt", members  # round 1 refits the members
    for k in range(1, args.league_rounds + 1):
        name = "league" if k == 1 else f"league{k}"
        sub = out / name
        step = next_round(args, sub, behaviour, opponents=args.league_opponents,
                          decisions=args.league,
                          seed=args.seed + LINEAGE_SEEDS * (args.lineages + k - 1))
        step = dataclasses.replace(step, rollout=step.behaviour)
        files = collect_all(step)
        refits = fit_each(step, rules, stages, files, refits,
                          [out / f"{name}_{i}" for i in range(len(members))],
                          "G" if k == 1 else f"G{k}.", stages.lap())
        if k < args.league_rounds:
            average_stages(args, rules, stages, refits, files, sub, f"F{k}")
            behaviour = sub / "policy.pt"
    w = args.league_weight
    if w < 1:
        return average_stages(args, rules, stages, members + refits, files, sub, "F",
                              [1 - w] * len(members) + [w] * len(refits))
    return average_stages(args, rules, stages, refits, files, sub, "F")


def fit_each(args: Args, rules: Rules, stages: Stages, files: list[Path], starts: list[Path],
             folders: list[Path], stage: str, collect_s: float = 0.0) -> list[Path]:
    """One fit on the labels ``files`` (read once) from each of ``starts`` into the matching
    ``folders`` (``round_lr``, ``round_epochs``, the ``i``-th seeded ``args.seed + i``),
    recorded as the stages ``<stage><i>`` (the first with the collection's ``collect_s``):
    their policies."""
    labels: list[dict[str, np.ndarray]] = []  # read once, when a fit is made

    def fit_one(one: Args, folder: Path) -> dict[str, float]:
        if not labels:
            with user_errors():
                labels.append(read_labels(rules, files))
        return fit(one, rules, labels[0], folder)

    for i, (start, folder) in enumerate(zip(starts, folders, strict=True)):
        one = dataclasses.replace(args, out=str(folder), init=str(start), lr=args.round_lr,
                                  epochs=args.round_epochs, seed=args.seed + i)
        stages.stage(f"{stage}{i}", folder, collect_s if i == 0 else 0.0,
                     partial(fit_one, one, folder))
    return [f / "policy.pt" for f in folders]


def average_stages(args: Args, rules: Rules, stages: Stages, members: list[Path],
                   files: list[Path], folder: Path | None = None, stage: str = "E",
                   weights: list[float] | None = None) -> dict[str, float]:
    """Average the policies ``members`` (weighted by ``weights`` if given) into
    ``folder/policy.pt`` (``OUT/ensemble/``) and record it as the stage ``stage`` (no
    collection; its seconds are the merge and the regret), with its regret on the labels
    ``files`` (those of the last fit)."""
    folder = folder or Path(args.out) / "ensemble"

    def average() -> dict[str, float]:
        net = merge([str(m) for m in members], str(folder / "policy.pt"), weights)
        return regret_on(net, rules, files, args.holdout)

    return stages.stage(stage, folder, 0.0, average)
