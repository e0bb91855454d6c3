"""Lookahead distillation, the whole recipe in one command: a network regresses the value of every
legal action as a one-step lookahead that sees all the hands would measure it, and plays from its
own observation (the history one).

    python -m train.lookahead --decisions 2400000 --workers 2 --epochs 4 --rounds 3 \\
        --dagger 700000 --pi-rounds 2 --pi-decisions 800000 --eval-deals 1000 --lineages 3 \\
        --union 3 --league 450000 --league-rounds 2 --league-weight 0.3333333 --out runs/full

The stages, each a collection of labels (``train.lookahead.collect``) and a fit on them
(``train.lookahead.fit``), recorded in ``OUT/rounds.csv`` and ``OUT/rounds.png`` (labels,
seconds, held-out regret and, with ``--eval-deals``, the mean place against three Hard):

* ``R0``: ``decisions`` labels of Hard's games, a fit from scratch (or ``--init``); with
  ``--start``, none: the rounds below go on from that policy;
* ``D<k>`` (``--rounds``, DAgger): the last policy plays the labelled seat; a fit from it on
  every label so far;
* ``PI<k>`` (``--pi-rounds``, policy iteration): the last policy plays the labelled seat and
  plays on for it in the rollouts; a fit from it on those labels only;
* with ``--union``: these stages run ``--lineages`` times from other seeds
  (``OUT/lineage_<i>/``, stages ``L<i>.<stage>``), then ``U<i>``: fits from each run's last
  policy on the policy-iteration labels of every run, and ``E`` their average;
* with ``--league``: the average plays and rolls out the labelled seat at a table of Hard and
  of itself, each union fit is refitted from itself on those labels only (``G<i>``), and the
  refits are averaged (``F``, mixed with the union fits by ``--league-weight``); each further
  ``--league-rounds`` round does the same from the last round's refits (``G<k>.<i>``, ``F<k>``).

Member rounds go on from a policy that is such an average (``--start``), member by member:

    python -m train.lookahead --start agents/pretrained/lookahead.pt --members 3 \\
        --member-rounds 2 --member-decisions 1000000 --workers 2 --eval-deals 1000 \\
        --out runs/members

* ``M<k>.<i>`` (``--member-rounds``): the start policy is split into its members (its
  checkpoint records how many and their weights) and the first ``--members`` of them play on;
  in each round every member plays its own labelled seat and plays on for it against three
  Hard, or at the table ``--member-opponents`` (one for every round, or one per round
  separated by ``;``; ``--member-decisions`` labels each,
  ``OUT/members<k>/pi_<i>/``), then each is refitted from itself on every member's labels of
  the round (``OUT/members<k>/fit_<i>/``); ``M``: every generation of the members averaged,
  equally or at ``--member-weights`` (``OUT/average/policy.pt``, the output).
* ``A<k>``, ``T<k>.<i>`` (``--member-teach``): after each round but the last, the generations
  so far averaged and each refit taught that average at the round's positions: the taught
  members play the next round.

* ``S`` (``--distill``): ``--start`` refitted on the outputs of the average ``M`` at the last
  round's positions, or the last ``--distill-rounds`` rounds' (``OUT/distilled/policy.pt``, the
  output): the average's play in a network of the start's width.
* ``S2`` (``--distill-positions``): that network plays against three Hard (positions only,
  ``OUT/distilled/play/``) and is refitted on the average's outputs at its own positions and
  the rounds' (``OUT/distilled2/policy.pt``, the output).

A distillation on its own: ``--fit-only --init NET --teacher AVG --also LABELS...`` fits
``NET`` to ``AVG``'s outputs at the positions of the labels.

``OUT/policy.pt`` is the last fit of a run; the recipe's output is the last stage's
``policy.pt`` (``OUT/league2/policy.pt`` for the command above). Stopped, the same command with
``--resume`` keeps every stage that ``rounds.csv`` records and goes on from the first that it
does not (its collection from its saved labels).
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.policy import load_policy
from president_env.cli import arg, fraction, input_file, non_negative, output_dir, positive
from president_env.core.engine import Engine
from train.common.args import HistoryFitArgs
from train.lookahead.collect import HARD, Collection, check_opponents, label_paths
from train.lookahead.fit import Fit
from train.lookahead.record import recorded_rows

UNRECORDED = ("resume", "progress", "threads")
"""Arguments that a resumed run may change (``OUT/args.json`` leaves them out)."""
RETIRED = {"behaviour": HARD, "rollout": HARD, "opponents": HARD, "ensemble": 1,
           "league_opponents": "hard:1,self:1", "max_seconds": 0.0}
"""Options of earlier versions, with the value the recipe gives them: a run they recorded at
that value resumes."""
LATE = {"member_weights": "M", "distill": "S", "distill_rounds": "S", "distill_epochs": "S",
        "distill_lr": "S", "distill_positions": "S2"}
"""Arguments that only the stages from this one on read: a resumed run may change them while
its ``rounds.csv`` does not record that stage (the average's weights chosen once the rounds
are made)."""


@dataclass
class Args(HistoryFitArgs):
    decisions: int = arg(100_000, positive)
    """Labelled decisions (more than one legal action) of the first collection, from Hard's
    games."""
    games: int = arg(256, positive)
    """Games played at once in each collection."""
    workers: int = arg(1, positive)
    """Collections run side by side, one process each (their own deals; ``labels_<i>.npz``
    when more than one), all fitted together."""
    rounds: int = arg(1, positive)
    """Rounds in all: after the first fit, each more round (DAgger) collects ``dagger``
    decisions with the last policy playing the labelled seat (in ``round_<k>/``) and fits again
    on every collection so far."""
    dagger: int = arg(600_000, positive)
    """Labelled decisions per DAgger round."""
    pi_rounds: int = arg(0, non_negative)
    """Policy-iteration rounds after the DAgger rounds: the last policy plays the labelled seat
    and plays on for it in the rollouts (in ``pi_<k>/``); each fits on its own labels only."""
    pi_decisions: int = arg(800_000, positive)
    """Labelled decisions per policy-iteration round."""
    start: str = arg("", input_file)
    """Start from this policy instead of the first collection and fit (no stage ``R0``): the
    DAgger and policy-iteration rounds go on from it (copied to ``OUT/policy.pt``), e.g. one
    more policy-iteration round from a shipped checkpoint (``--start
    agents/pretrained/lookahead.pt --pi-rounds 1``)."""
    lr: float = arg(1e-3, positive)
    """Adam learning rate of the first fit (annealed linearly to a tenth)."""
    epochs: int = arg(6, positive)
    """Epochs of the first fit."""
    round_lr: float = arg(5e-4, positive)
    """Learning rate of the fits after the first (each starts from the last policy)."""
    round_epochs: int = arg(4, positive)
    """Epochs of the fits after the first."""
    batch: int = arg(512, positive)
    holdout: float = arg(0.05, fraction)
    """Share of the decisions (the last collected) held out to measure the regret."""
    lineages: int = arg(1, positive)
    """With ``union``: whole runs of the stages above, each from its own seed (1,000 apart) and
    labels (``OUT/lineage_<i>/``)."""
    union: int = arg(0, non_negative)
    """After the runs, fit this many networks on the union of the policy-iteration labels of
    every run (``OUT/union_<i>/``, the stage ``U<i>``), the ``i``-th from the last policy of
    run ``i`` (cycling), then average them into ``OUT/ensemble/policy.pt`` (the stage ``E``).
    0: none."""
    league: int = arg(0, non_negative)
    """With ``union``: decisions of a league round, played and rolled out by the union average
    against Hard or itself in each other seat (``OUT/league/``); each union fit is refitted
    from itself on those labels only (``OUT/league_<i>/``, stages ``G<i>``), and these averaged
    (with the union fits if ``league_weight`` < 1) into ``OUT/league/policy.pt`` (stage ``F``).
    0: none."""
    league_rounds: int = arg(1, positive)
    """With ``league``: league rounds in all; each after the first is played and rolled out by
    the last round's refits averaged (``OUT/league<k>/``, stage ``F<k-1>``), whose every refit
    is refitted again on its labels (``OUT/league<k>_<i>/``, stages ``G<k>.<i>``); the last
    round's average is the stage ``F``."""
    league_weight: float = arg(1.0, fraction)
    """Share of the last league refits in the final average, above 0: 1, the refits alone, or
    less, the union fits sharing the rest."""
    member_rounds: int = arg(0, non_negative)
    """With ``start``, an average of networks of one width: rounds of policy iteration member
    by member (the module's docstring), instead of the rounds above. 0: none."""
    members: int = arg(0, non_negative)
    """With ``member_rounds``: the first this many members of ``start`` play the rounds (the
    union fits of the recipe are its first ``--union`` members)."""
    member_decisions: int = arg(1_000_000, positive)
    """Labelled decisions of each member in each member round."""
    member_opponents: str = HARD
    """The other seats of a member round's games, drawn per seat and game, who play on in the
    rollouts: ``hard``, or agents with weights as ``train.ppo_pool --opponents``
    (``"hard:2,normal:1,self:1"``, ``self`` being the member); one table for every round, or
    one per round separated by ``;`` (``"hard;hard:2,normal:1,self:1"``: the first round at
    Hard's table, the second at the mixed one). Each table's labels teach its own opponents
    (``docs/experiments/2026-12-06-member-policy-iteration.md``)."""
    member_weights: str = ""
    """With ``member_rounds``: the weight of each generation's members in the average ``M``,
    one a generation separated by ``,``, the start's members first and then each round's refits
    (``"4,1,1"`` for two rounds: the start's members count four times as much as either
    round's refits); a generation of weight 0 is left out. Empty: every member alike."""
    member_teach: int = arg(0, non_negative)
    """With ``member_rounds``: after each round but the last, every generation so far is
    averaged (at ``member_weights``; stage ``A<k>``, ``OUT/members<k>/average/``) and each of
    the round's refits is taught it, refitted from itself on the average's outputs at the
    round's positions for this many epochs at ``round_lr`` (stages ``T<k>.<i>``,
    ``OUT/members<k>/taught_<i>/``); the taught members play the next round, the refits stay
    the generation that the average ``M`` weighs. 0: none (the refits play on)."""
    distill: bool = False
    """With ``member_rounds``: after the average (stage ``M``), ``start`` is refitted on the
    average's outputs at the positions of the last round's labels, or of the last
    ``distill_rounds`` rounds' (stage ``S``, ``OUT/distilled/policy.pt``): a network of
    ``start``'s width that plays like the average."""
    distill_rounds: int = arg(1, positive)
    """With ``distill``: the distillation fits at the positions of the last this many member
    rounds (all of them: every table of a ``member_opponents`` schedule)."""
    distill_positions: int = arg(0, non_negative)
    """With ``distill``: then the distilled network plays the labelled seat against three Hard
    for this many decisions, positions only (no rollouts, ``OUT/distilled/play/``), and is
    refitted from itself for one epoch at ``distill_lr`` on the average's outputs at those
    positions and at the rounds' (stage ``S2``, ``OUT/distilled2/policy.pt``, the output): a
    student errs most where its own play leads. 0: none."""
    distill_epochs: int = arg(2, positive)
    """Epochs of the distillation (``--distill``)."""
    distill_lr: float = arg(2e-4, positive)
    """Learning rate of the distillation (``--distill``), annealed linearly to a tenth."""
    teacher: str = arg("", input_file)
    """With ``fit_only``: the fit regresses this checkpoint's outputs (an average's: its
    policy logits and value) at the positions of the labels instead of their places: a
    distillation into ``--init``."""
    eval_deals: int = arg(0, non_negative)
    """After each fit, its policy against three Hard over this many duplicate deals (0 = not
    measured), in ``rounds.csv`` and ``rounds.png``."""
    resume: bool = False
    """Go on with a stopped run of the same arguments in ``out``: every stage that its
    ``rounds.csv`` (and each lineage's) records with its ``policy.pt`` in place is kept, not
    made again, up to the first that is not (its collection goes on from its saved labels);
    the wall clock goes on from the last stage kept. Refused when ``OUT/args.json`` records
    other arguments, except those of stages not made yet (the average's weights, the
    distillation's options)."""
    out: str = arg("runs/lookahead", output_dir)
    """Run folder: labels, policy.pt, metrics.csv, rounds.csv, args.json."""

    def check(self) -> None:
        super().check()
        if self.fit_only and (self.resume or self.lineages > 1 or self.union):
            raise ValueError("--fit-only fits once on the labels there: no --resume, "
                             "--lineages or --union")
        if self.start and (self.fit_only or self.init or self.union or self.also):
            raise ValueError("--start replaces the first collection and fit: no --fit-only, "
                             "--init, --also or --union")
        self.check_member_rounds()
        if self.teacher and not self.fit_only:
            raise ValueError("--teacher is a fit's target: with --fit-only (and --init)")
        if self.teacher:
            net = load_policy(self.teacher, self.rules())[0]
            eng = Engine(self.rules())
            if (net.obs_size, net.num_actions) != (eng.obs_size, eng.num_actions):
                raise ValueError(f"--teacher {self.teacher} reads {net.obs_size} inputs and "
                                 f"{net.num_actions} actions; these rules give {eng.obs_size} "
                                 f"and {eng.num_actions}")
        if self.start and self.rounds == 1 and not self.pi_rounds and not self.member_rounds:
            raise ValueError("--start goes on with rounds from the policy: --rounds 2 or more, "
                             "--pi-rounds or --member-rounds")
        if self.lineages > 1 and not self.union:
            raise ValueError(f"--lineages {self.lineages}: the runs are for the union fits "
                             "(--union)")
        if self.union and not self.pi_rounds:
            raise ValueError("--union fits on the labels of the policy-iteration rounds "
                             "(--pi-rounds)")
        if self.league_rounds > 1 and not self.league:
            raise ValueError(f"--league-rounds {self.league_rounds}: the rounds need --league")
        if self.league and not (self.union and self.league_weight > 0):
            raise ValueError("--league refits the union fits (--union), weighted above 0 "
                             "(--league-weight)")

    def check_member_rounds(self) -> None:
        """A ValueError for member-round options that do not go together."""
        if self.member_rounds and not (self.start and self.members):
            raise ValueError("--member-rounds splits the policy --start into its members: "
                             "--start and --members")
        if self.member_rounds and (self.rounds > 1 or self.pi_rounds):
            raise ValueError("--member-rounds replaces the rounds after --start: no --rounds, "
                             "--pi-rounds")
        if self.members and not self.member_rounds:
            raise ValueError(f"--members {self.members}: the members play --member-rounds")
        if self.member_opponents != HARD and not self.member_rounds:
            raise ValueError(f"--member-opponents {self.member_opponents}: the table of the "
                             "--member-rounds")
        if self.member_rounds:
            tables = self.member_tables()
            if len(tables) > 1 and len(tables) != self.member_rounds:
                raise ValueError(f"--member-opponents {self.member_opponents}: {len(tables)} "
                                 f"tables for {self.member_rounds} --member-rounds (one table "
                                 "for every round, or one per round)")
            for table in tables:
                check_opponents(table, self.rules())
        if self.member_weights and not self.member_rounds:
            raise ValueError(f"--member-weights {self.member_weights}: the generations of the "
                             "--member-rounds")
        if self.member_rounds:
            weights = self.generation_weights()
            if self.member_teach and weights and not sum(weights[:2]) > 0:
                raise ValueError(f"--member-teach {self.member_teach}: the first round's "
                                 f"average needs a weight above 0 for the start's members or "
                                 f"round 1's (--member-weights {self.member_weights})")
        if self.member_teach and not self.member_rounds:
            raise ValueError(f"--member-teach {self.member_teach}: the members of the "
                             "--member-rounds are taught")
        if self.distill_positions and not self.distill:
            raise ValueError(f"--distill-positions {self.distill_positions}: the student of "
                             "--distill plays them")
        if self.distill and not self.member_rounds:
            raise ValueError("--distill teaches --start the average of the --member-rounds")
        if self.distill_rounds > 1 and not self.distill:
            raise ValueError(f"--distill-rounds {self.distill_rounds}: the positions of --distill")
        if self.distill and self.distill_rounds > self.member_rounds:
            raise ValueError(f"--distill-rounds {self.distill_rounds}: there are "
                             f"{self.member_rounds} --member-rounds")

    def generation_weights(self) -> list[float] | None:
        """The weights of ``member_weights``, one a generation (the start's members first);
        None for every member alike. A ValueError for a count other than the rounds and one, a
        weight that is no number or below 0, or none above 0."""
        if not self.member_weights:
            return None
        what = f"--member-weights {self.member_weights}"
        try:
            weights = [float(w) for w in self.member_weights.split(",")]
        except ValueError:
            raise ValueError(f"{what}: weights are numbers, one a generation") from None
        if len(weights) != self.member_rounds + 1:
            raise ValueError(f"{what}: {len(weights)} weights for {self.member_rounds + 1} "
                             "generations (the start's members and each round's refits)")
        if not all(math.isfinite(w) and w >= 0 for w in weights) or not sum(weights) > 0:
            raise ValueError(f"{what}: finite weights of 0 or more, one above 0")
        return weights

    def member_tables(self) -> list[str]:
        """The tables of ``member_opponents``: one for every round, or one per round."""
        return self.member_opponents.split(";")

    def member_table(self, k: int) -> str:
        """The table of member round ``k`` (from 1)."""
        tables = self.member_tables()
        return tables[k - 1] if len(tables) > 1 else tables[0]

    def collection(self, out: Path, decisions: int, seed: int, **who: str) -> Collection:
        """A collection of this run into ``out`` (``who``: its behaviour, rollout,
        opponents)."""
        return Collection(self.rules(), out, decisions, seed, workers=self.workers,
                          games=self.games, progress=self.progress, **who)

    def first_fit(self) -> Fit:
        """The fit of ``R0`` (and of ``--fit-only``) into ``out``."""
        return Fit(Path(self.out), self.init, self.hidden, self.lr, self.epochs, self.batch,
                   self.holdout, self.vf_coef, self.seed, self.threads, self.progress,
                   teacher=self.teacher)

    def refit(self, out: Path, start: Path, seed: int, behaviour: Path | str = HARD) -> Fit:
        """A fit after the first into ``out``: from ``start``, ``round_lr``, ``round_epochs``."""
        return dataclasses.replace(self.first_fit(), out=out, start=str(start), seed=seed,
                                   lr=self.round_lr, epochs=self.round_epochs,
                                   behaviour=str(behaviour), teacher="")

    def label_files(self, folder: str | Path) -> list[Path]:
        """The labels files of this run's collection in ``folder`` (one per worker)."""
        return label_paths(Path(folder), self.workers)


def recorded(args: Args) -> dict[str, Any]:
    """The arguments that ``OUT/args.json`` records, as JSON reads them back."""
    return {k: v for k, v in json.loads(json.dumps(dataclasses.asdict(args))).items()
            if k not in UNRECORDED}


def first_reader(args: Args, option: str) -> str:
    """The first stage that reads the :data:`LATE` ``option`` in a run of ``args``."""
    return "A1" if option == "member_weights" and args.member_teach else LATE[option]


def record_args(args: Args) -> None:
    """Write the run's arguments to ``OUT/args.json``; with ``resume``, first a ValueError
    naming the arguments that differ from those recorded there (but for the :data:`LATE` ones
    whose stage ``OUT/rounds.csv`` does not record)."""
    path = Path(args.out) / "args.json"
    now = recorded(args)
    if args.resume and path.is_file():
        was: dict[str, Any] = json.loads(path.read_text())
        was = {k: v for k, v in was.items() if k in now or k not in RETIRED or RETIRED[k] != v}
        # an option added since the run was recorded: the run had it at its default
        was = {**{k: v for k, v in recorded(Args()).items() if k not in was}, **was}
        made = recorded_rows(Path(args.out))
        diff = sorted(k for k in now.keys() | was.keys() if now.get(k) != was.get(k)
                      and not (k in LATE and first_reader(args, k) not in made))
        if diff:
            raise ValueError(f"--resume: {args.out} holds a run of other arguments ("
                             + ", ".join(f"{k}: {was.get(k)!r} there, {now.get(k)!r} now"
                                         for k in diff) + ")")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(now, indent=1) + "\n")
