"""The stages of the recipe (:mod:`train.lookahead.args` describes them): one run's rounds
(:func:`run`), several runs and the fits on the union of their labels (:func:`run_lineages`),
the league rounds after them (:func:`league_rounds`) and the averages, or the member rounds
from an average (:func:`member_rounds`), each recorded in
``OUT/rounds.csv`` (:class:`~train.lookahead.record.Stages`). :func:`recipe` runs those that
the arguments ask for; :func:`stage_names` lists them.
"""

from __future__ import annotations

import dataclasses
import shutil
import time
from functools import partial
from pathlib import Path

import numpy as np

from agents.policy import load_policy, save_policy, split_average
from president_env.cli import user_errors
from president_env.core.rules import Rules
from train.lookahead.args import Args
from train.lookahead.collect import HARD, UNPLAYED, collect_all
from train.lookahead.fit import Fit, average, fit, fit_files
from train.lookahead.labels import read_labels, regret_on
from train.lookahead.record import Stages

LINEAGE_SEEDS = 1000
"""Seeds between two lineages: each run's stages take the seeds after its own."""
LEAGUE_TABLE = "hard:1,self:1"
"""The other seats of a league round: Hard or the policy itself, drawn per seat and game."""


def recipe(args: Args, rules: Rules) -> dict[str, float]:
    """Every stage that ``args`` asks for: the last one's metrics."""
    if args.union:
        return run_lineages(args, rules)
    if args.member_rounds:
        return member_rounds(args, rules)
    return run(args, rules)[2]


def stage_names(args: Args) -> list[str]:
    """The stages that a run of ``args`` records in ``OUT/rounds.csv``, in order."""
    if args.member_rounds:
        names = []
        for k in range(1, args.member_rounds + 1):
            names += [f"M{k}.{i}" for i in range(args.members)]
            if args.member_teach and k < args.member_rounds:
                names += [f"A{k}", *(f"T{k}.{i}" for i in range(args.members))]
        return names + ["M"] + (["S"] if args.distill else []) + (
            ["S2"] if args.distill_positions else [])
    one = [*([] if args.start else ["R0"]), *(f"D{k}" for k in range(1, args.rounds)),
           *(f"PI{k}" for k in range(1, args.pi_rounds + 1))]
    if not args.union:
        return one
    names = [f"L{i}.{s}" for i in range(args.lineages) for s in one]
    names += [*(f"U{i}" for i in range(args.union)), "E"]
    for k in range(1, (args.league_rounds if args.league else 0) + 1):
        names += [f"G{i}" if k == 1 else f"G{k}.{i}" for i in range(args.union)]
        names.append("F" if k == args.league_rounds else f"F{k}")
    return names


def check_width(args: Args, hidden: int, what: str) -> None:
    """A ValueError unless ``what`` (a policy the rounds refit) is ``args.hidden`` wide: checked
    before anything is collected."""
    if hidden != args.hidden:
        raise ValueError(f"{what} has {hidden} hidden units: pass --hidden {hidden}")


def keep_behaviour(sub: Path, policy: Path) -> Path:
    """``sub/behaviour.pt``, a copy of ``policy`` made once: the policy that plays a round's
    labelled seat (a resumed round keeps the policy it collected with)."""
    sub.mkdir(parents=True, exist_ok=True)
    behaviour = sub / "behaviour.pt"
    if not behaviour.is_file():
        shutil.copyfile(policy, behaviour)
    return behaviour


def run(args: Args, rules: Rules) -> tuple[Stages, list[Path], dict[str, float]]:
    """The stages of one run in ``args.out`` (first collection and fit, or the policy
    ``args.start``; DAgger and policy-iteration rounds): their record, the labels files of the
    last fit and its last metrics."""
    out = Path(args.out)
    if args.start:
        with user_errors():
            check_width(args, load_policy(args.start, rules)[0].hidden, f"--start {args.start}")
        stages = Stages(out, rules, args.eval_deals, args.progress, args.resume)
        shutil.copyfile(args.start, out / "policy.pt")
        files: list[Path] = []
        last: dict[str, float] = {}
    else:
        first = args.collection(out, args.decisions, args.seed)
        with user_errors():
            first.check()
        stages = Stages(out, rules, args.eval_deals, args.progress, args.resume)
        files = collect_all(first) + [Path(a) for a in args.also]
        last = stages.stage("R0", out, stages.lap(), partial(fit_files, args.first_fit(),
                                                             rules, files))
    plan = [("D", k, args.dagger) for k in range(1, args.rounds)]
    plan += [("PI", k, args.pi_decisions) for k in range(1, args.pi_rounds + 1)]
    for kind, k, decisions in plan:
        sub = out / (f"round_{k}" if kind == "D" else f"pi_{k}")
        seed = args.seed + len(stages.rows)
        behaviour = str(keep_behaviour(sub, out / "policy.pt"))
        new = collect_all(args.collection(sub, decisions, seed, behaviour=behaviour,
                                          rollout=behaviour if kind == "PI" else "hard"))
        files = files + new if kind == "D" else new
        refit = args.refit(sub, Path(behaviour), seed, behaviour)
        last = stages.stage(f"{kind}{k}", sub, stages.lap(), partial(fit_files, refit, rules,
                                                                     files))
        shutil.copyfile(sub / "policy.pt", out / "policy.pt")
    return stages, files, last


def run_lineages(args: Args, rules: Rules) -> dict[str, float]:
    """``args.lineages`` whole runs (``OUT/lineage_<i>``, seed ``seed + LINEAGE_SEEDS * i``),
    then the ``union`` fits on their policy-iteration labels (:func:`union_fits`) averaged into
    ``OUT/ensemble/policy.pt``, then the ``league`` rounds (:func:`league_rounds`). Every stage
    is copied to ``OUT/rounds.csv`` as ``L<i>.<stage>`` (its wall clock from the start), and
    the average is rated on the labels of the last run's last fit only (every run's could be
    several times the memory of one fit)."""
    top = Stages(Path(args.out), rules, args.eval_deals, args.progress, args.resume)
    files: list[Path] = []
    pi_files: list[Path] = []
    for i in range(args.lineages):
        start = time.perf_counter() - top.t0
        one = dataclasses.replace(args, out=str(Path(args.out) / f"lineage_{i}"), lineages=1,
                                  seed=args.seed + LINEAGE_SEEDS * i)
        stages, files, _ = run(one, rules)
        if stages.made:  # the stages after a lineage made again are made again
            top.recorded = {}
        top.rows += [{**r, "stage": f"L{i}.{r['stage']}",
                      "elapsed_s": round(start + float(r["elapsed_s"]), 1)}
                     for r in stages.rows]
        top.sync(top.rows[-1]["elapsed_s"])
        pi_files += [p for r in stages.rows if r["stage"].startswith("PI")
                     for p in args.label_files(r["folder"])]
    top.lap()
    members = union_fits(args, rules, top, [p for p in pi_files if p.is_file()])
    last = average_stages(args, rules, top, members, files)
    if args.league:
        last = league_rounds(args, rules, top, members)
    return last


def union_fits(args: Args, rules: Rules, stages: Stages, files: list[Path]) -> list[Path]:
    """``args.union`` fits on the labels ``files``, the ``i``-th from the last policy of run
    ``i`` (cycling), in ``OUT/union_<i>/``, recorded as the stages ``U<i>``: their policies."""
    out = Path(args.out)
    fits = [args.refit(out / f"union_{i}", out / f"lineage_{i % args.lineages}" / "policy.pt",
                       args.seed + i) for i in range(args.union)]
    return fit_each(rules, stages, files, fits, "U")


def league_rounds(args: Args, rules: Rules, stages: Stages,
                  members: list[Path]) -> dict[str, float]:
    """``args.league_rounds`` league rounds of ``args.league`` decisions each. The first, in
    ``OUT/league/``: the average ``OUT/ensemble/policy.pt`` (kept as ``league/behaviour.pt``)
    plays the labelled seat and plays on for it at ``LEAGUE_TABLE`` (seeds after every
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
        seed = args.seed + LINEAGE_SEEDS * (args.lineages + k - 1)
        played = str(keep_behaviour(sub, behaviour))
        files = collect_all(args.collection(sub, args.league, seed, behaviour=played,
                                            rollout=played, opponents=LEAGUE_TABLE))
        fits = [args.refit(out / f"{name}_{i}", start, seed + i, played)
                for i, start in enumerate(refits)]
        refits = fit_each(rules, stages, files, fits, "G" if k == 1 else f"G{k}.", stages.lap())
        if k < args.league_rounds:
            average_stages(args, rules, stages, refits, files, sub, f"F{k}")
            behaviour = sub / "policy.pt"
    w = args.league_weight
    if w < 1:
        return average_stages(args, rules, stages, members + refits, files, sub, "F",
                              [1 - w] * len(members) + [w] * len(refits))
    return average_stages(args, rules, stages, refits, files, sub, "F")


def member_rounds(args: Args, rules: Rules) -> dict[str, float]:
    """``args.member_rounds`` rounds from the first ``args.members`` members of ``args.start``
    (an average: :func:`agents.policy.split_average`, by the count and weights its checkpoint
    records), written to ``OUT/members0/member_<i>.pt``. Round ``k`` (seeds ``seed + 1000 k +
    i``): member ``i`` of the last generation plays the labelled seat and plays on for it
    against round ``k``'s table of ``args.member_opponents`` (``OUT/members<k>/pi_<i>/``),
    then each member is refitted from itself on every member's labels of the round
    (``OUT/members<k>/fit_<i>/``, stages ``M<k>.<i>``); with ``args.member_teach`` the refits
    are taught the average of the generations so far before they play on (:func:`teach`).
    Every generation is averaged, equally or at ``args.member_weights``, into
    ``OUT/average/policy.pt`` (stage ``M``, rated on the last round's labels); with
    ``args.distill``, ``args.start`` is refitted on the average's outputs at the positions of
    the last ``args.distill_rounds`` rounds' labels (``OUT/distilled/``, stage ``S``), and with
    ``args.distill_positions`` again at its own play's positions too (:func:`own_play`): the
    last stage's metrics."""
    out = Path(args.out)
    with user_errors():
        net, _, meta = load_policy(args.start, rules)
        count = len(meta.get("members") or [None])
        members = split_average(net, count, meta.get("weights"))
        if args.members > count:
            raise ValueError(f"--members {args.members}: {args.start} averages {count}")
        check_width(args, members[0].hidden, f"the members of --start {args.start}")
    stages = Stages(out, rules, args.eval_deals, args.progress, args.resume)
    generation: list[Path] = []
    for i, net_i in enumerate(members[:args.members]):
        path = out / "members0" / f"member_{i}.pt"
        if not path.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            save_policy(path, net_i, rules, {"split_from": args.start, "member": i})
        generation.append(path)
    every: list[list[Path]] = [list(generation)]  # each generation's members
    files: list[Path] = []
    rounds: list[list[Path]] = []  # each round's labels
    for k in range(1, args.member_rounds + 1):
        sub, seed = out / f"members{k}", args.seed + LINEAGE_SEEDS * k
        played = [keep_behaviour(sub / f"pi_{i}", member) for i, member in enumerate(generation)]
        files = [f for i, p in enumerate(played)
                 for f in collect_all(args.collection(sub / f"pi_{i}", args.member_decisions,
                                                      seed + i, behaviour=str(p), rollout=str(p),
                                                      opponents=args.member_table(k)))]
        # each refit starts from the copy that collected (a resumed round: the same policy)
        fits = [args.refit(sub / f"fit_{i}", p, seed + i, p) for i, p in enumerate(played)]
        generation = fit_each(rules, stages, files, fits, f"M{k}.", stages.lap())
        every.append(generation)
        rounds.append(files)
        if args.member_teach and k < args.member_rounds:
            generation = teach(args, rules, stages, every, files, sub, k)
    last = average_generations(args, rules, stages, every, files, out / "average", "M")
    if not args.distill:
        return last
    first, n = args.member_rounds - args.distill_rounds + 1, args.member_rounds
    job = dataclasses.replace(args.first_fit(), out=out / "distilled", start=args.start,
                              hidden=net.hidden, lr=args.distill_lr, epochs=args.distill_epochs,
                              teacher=str(out / "average" / "policy.pt"),
                              behaviour=f"the members of round {n}" if first == n
                              else f"the members of rounds {first}-{n}")
    taught = [f for files_k in rounds[first - 1:] for f in files_k]
    last = stages.stage("S", job.out, 0.0, partial(fit_files, job, rules, taught))
    return own_play(args, rules, stages, job, taught) if args.distill_positions else last


def average_generations(args: Args, rules: Rules, stages: Stages, every: list[list[Path]],
                        files: list[Path], folder: Path, stage: str) -> dict[str, float]:
    """The generations ``every`` averaged, equally or at their ``args.member_weights`` (a
    generation of weight 0 left out), into ``folder/policy.pt``, recorded as ``stage``."""
    weights = (args.generation_weights() or [])[:len(every)] or None
    kept = [(p, w) for g, w in zip(every, weights or [1.0] * len(every)) if w > 0 for p in g]
    return average_stages(args, rules, stages, [p for p, _ in kept], files, folder, stage,
                          [w for _, w in kept] if weights else None)


def teach(args: Args, rules: Rules, stages: Stages, every: list[list[Path]], files: list[Path],
          sub: Path, k: int) -> list[Path]:
    """After member round ``k`` (its folder ``sub``, its labels ``files``): the generations
    ``every`` averaged into ``sub/average/policy.pt`` (stage ``A<k>``), and each of the round's
    refits (the last generation) refitted from itself on that average's outputs at the round's
    positions, ``args.member_teach`` epochs at ``args.round_lr`` (``sub/taught_<i>/``, stages
    ``T<k>.<i>``): the taught members."""
    average_generations(args, rules, stages, every, files, sub / "average", f"A{k}")
    seed = args.seed + LINEAGE_SEEDS * k
    fits = [dataclasses.replace(args.refit(sub / f"taught_{i}", p, seed + i,
                                           f"the members of round {k}"),
                                teacher=str(sub / "average" / "policy.pt"),
                                epochs=args.member_teach)
            for i, p in enumerate(every[-1])]
    return fit_each(rules, stages, files, fits, f"T{k}.")


def own_play(args: Args, rules: Rules, stages: Stages, job: Fit,
             taught: list[Path]) -> dict[str, float]:
    """The student of the distillation ``job`` (``job.out/policy.pt``, kept as
    ``play/behaviour.pt``) plays the labelled seat against three Hard for
    ``args.distill_positions`` decisions, positions only (``job.out/play/``, seeds after every
    round's), and is refitted from itself for one epoch on its teacher's outputs at those
    positions and at ``taught``'s (``OUT/distilled2/``, stage ``S2``): its metrics."""
    play = job.out / "play"
    student = keep_behaviour(play, job.out / "policy.pt")
    seed = args.seed + LINEAGE_SEEDS * (args.member_rounds + 1)
    own = collect_all(args.collection(play, args.distill_positions, seed,
                                      behaviour=str(student), rollout=UNPLAYED, opponents=HARD))
    again = dataclasses.replace(job, out=Path(args.out) / "distilled2", start=str(student),
                                epochs=1, behaviour=f"its own play and {job.behaviour}")
    # the positions first: the held-out rows (the last) are the rounds', which have labels
    return stages.stage("S2", again.out, stages.lap(), partial(fit_files, again, rules,
                                                               own + taught))


def fit_each(rules: Rules, stages: Stages, files: list[Path], fits: list[Fit], stage: str,
             collect_s: float = 0.0) -> list[Path]:
    """The fits ``fits`` on the labels ``files`` (read once, when a fit is made), recorded as
    the stages ``<stage><i>`` (the first with the collection's ``collect_s``): their
    policies."""
    labels: list[dict[str, np.ndarray]] = []

    def fit_one(job: Fit) -> dict[str, float]:
        if not labels:
            with user_errors():
                labels.append(read_labels(rules, files))
        return fit(job, rules, labels[0])

    for i, job in enumerate(fits):
        stages.stage(f"{stage}{i}", job.out, collect_s if i == 0 else 0.0, partial(fit_one, job))
    return [job.out / "policy.pt" for job in fits]


def average_stages(args: Args, rules: Rules, stages: Stages, members: list[Path],
                   files: list[Path], folder: Path | None = None, stage: str = "E",
                   weights: list[float] | None = None) -> dict[str, float]:
    """Average the policies ``members`` (weighted by ``weights`` if given) into
    ``folder/policy.pt`` (``OUT/ensemble/``) and record it as the stage ``stage`` (no
    collection; its seconds are the merge and the regret), with its regret on the labels
    ``files`` (those of the last fit)."""
    folder = folder or Path(args.out) / "ensemble"

    def make() -> dict[str, float]:
        net = average(members, folder / "policy.pt", rules, weights)
        return regret_on(net, rules, files, args.holdout)

    return stages.stage(stage, folder, 0.0, make)
