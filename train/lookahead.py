"""Lookahead distillation: a network regresses the value of every legal action as a one-step
lookahead that sees all the hands would measure it, and plays from its own observation.

    python -m train.lookahead --decisions 2400000 --workers 2 --epochs 4 --rounds 3 \
        --dagger 700000 --pi-rounds 2 --pi-decisions 800000 --eval-deals 1000 --out runs/lookahead

1. **collect** (``labels.npz``, ``labels_<i>.npz`` with ``workers``): games at once of
   ``observation="history"``. The opponents (Hard, or ``opponents``: agents drawn per seat for
   each game, ``self`` being the behaviour) play every seat, or ``behaviour`` (a checkpoint)
   plays one seat per game (rotating with each new game) and the opponents the others. At every
   decision with more than one legal action of a labelled seat (every seat without a behaviour,
   else the behaviour's seat), each legal action is played in a copy of the *true* engine state
   and the deal is played on by the same players (or ``rollout``, a checkpoint, in the labelled
   seat; :func:`agents.expert.rollout_places`; with deterministic players one rollout is
   exact): the acting seat's place (0 = first) after each action is that action's label. Kept:
   the history observation, the mask, the action taken and the places. A file of the same
   rules, behaviour, rollout and opponents is extended up to its share of ``decisions`` (a
   stopped run resumes).
2. **fit**: the policy head regresses the places negated and centred on their mean over the
   legal actions (squared error on the legal actions), the value head the negated place of the
   best action. The greedy policy plays the action of the best predicted place. Writes
   ``policy.pt`` (a checkpoint for ``PolicyAgent``, ``train.evaluate`` and ``--init``) and
   ``metrics.csv`` (per epoch: the losses, and on the training and held-out decisions the
   *regret*: the mean place the greedy choice loses against the best label, next to the regret
   of the action the behaviour took).
3. **rounds** (DAgger): each further round copies the last policy to ``round_<k>/behaviour.pt``,
   collects ``dagger`` decisions with it in the labelled seat (its own positions: the ones it
   will meet) and fits again on every collection so far, from the last policy.
4. **policy-iteration rounds** (``pi_rounds``): each copies the last policy to
   ``pi_<k>/behaviour.pt``, collects ``pi_decisions`` with it in the labelled seat *and*
   playing on for that seat in the rollouts (its own action values), and fits from the last
   policy on those labels only.
5. **ensemble** (``ensemble``): the policies of the last stages averaged into one
   (``ensemble/policy.pt``, :mod:`train.ensemble`): their errors partly cancel.
6. **lineages** (``lineages``): the whole recipe run that many times from other seeds
   (``lineage_<i>/``, each its own labels), the last ``ensemble`` stages of every run averaged
   into ``ensemble/policy.pt``: fits of other labels cancel more of their errors than the
   stages of one run do.
7. **union** (``union``): that many fits on the policy-iteration labels of every run at once,
   each from one run's last policy (``union_<i>/``), averaged into ``ensemble/policy.pt``.

Every fit after the first starts from the last policy (``round_lr``, ``round_epochs``) and
writes its folder's ``policy.pt``; ``OUT/policy.pt`` is the last one. ``rounds.csv`` and
``rounds.png`` give each stage's labels, seconds, held-out regret and, with ``eval_deals``, its
mean place against three Hard (duplicate deals, seed 12345 as ``train.evaluate``): the whole
recipe is one command (the README; ``agents/pretrained/standard_4p_lookahead.pt`` came from the
same stages run one by one, ``docs/agents_results.md``). Repeated with ``--resume`` (the same
arguments, ``OUT/args.json``), it goes on with a stopped run: the stages of ``rounds.csv`` are
kept and the rest made, the first one's collection going on from its saved labels.

Why it plays well: a network that sees only its observation ``o`` and regresses these labels
learns their mean over the hands consistent with ``o``, weighted by how often those hands occur
against these opponents: the determinized Monte-Carlo value of :class:`agents.ExpertAgent`,
with the true belief instead of a sampled one, learnt once instead of searched at every
decision. The hidden hands reach the labels only, never the network's input (as in the oracle
guiding of Suphx); the policy decides from its observation alone. With ``rollout`` set to a
policy, the labels are that policy's own action values: one step of policy iteration from it.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import multiprocessing
import shutil
import signal
import sys
import threading
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from agents import load_agent
from agents.expert import SeatMix, rollout_places
from agents.policy import save_policy
from agents.rule_based import HardAgent
from president_env.cli import (
    arg,
    fraction,
    non_negative,
    output_dir,
    parse,
    positive,
    user_errors,
)
from president_env.core.constants import PHASE_DONE
from president_env.core.engine import Engine, State
from president_env.core.rules import Rules
from president_env.table import policy_obs_size
from train.common.args import HistoryFitArgs
from train.common.labels import DATA, Labels, read_labels, regret, steady_heap
from train.common.pool import split_weight
from train.common.stages import Stages

SAVE_EVERY = 50_000
"""New labelled decisions between saves of the collection."""
SELF = "self"
"""In ``--opponents``: the behaviour (Hard when it is Hard)."""


@dataclass
class Args(HistoryFitArgs):
    behaviour: str = "hard"
    """Who plays the labelled seat: ``hard`` (none: the opponents play every seat, all
    labelled) or a checkpoint (one seat per game, the only one labelled; the opponents play the
    others)."""
    rollout: str = "hard"
    """Who plays the labelled seat in the rollouts after the action labelled (the other seats
    are its opponents): ``hard``, or a checkpoint (its labels are its own values: a step of
    policy iteration from it)."""
    opponents: str = "hard"
    """Who plays the other seats, in the games and in their rollouts: agents with weights, as
    ``train.ppo_pool --opponents`` (``"hard:0.5,self:0.5"``, ``self`` being the behaviour),
    drawn per seat for each new game."""
    decisions: int = arg(100_000, positive)
    """Labelled decisions (more than one legal action) to collect in all."""
    games: int = arg(256, positive)
    """Games played at once during the collection."""
    max_seconds: float = arg(0.0, non_negative)
    """End the collection after this many seconds (0 = no limit)."""
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
    round_lr: float = arg(5e-4, positive)
    """Learning rate of the fits after the first (each starts from the last policy)."""
    round_epochs: int = arg(4, positive)
    """Epochs of the fits after the first."""
    ensemble: int = arg(1, positive)
    """After the last stage, average the policies of the last ``ensemble`` stages into one
    (``OUT/ensemble/policy.pt``, :mod:`train.ensemble`), recorded as the stage ``E`` (its regret
    on the last fit's held-out labels); 1: none."""
    union: int = arg(0, non_negative)
    """After the last stage, fit this many networks on the union of the policy-iteration
    labels of every run (``OUT/union_<i>/``, the stage ``U<i>``), the ``i``-th from the last
    policy of run ``i`` (cycling), then average them into ``OUT/ensemble/policy.pt`` (the stage
    ``E``; with ``--ensemble 1``): fits of several times the labels, whose own errors cancel in
    the average (``docs/agents_results.md``). 0: none."""
    league: int = arg(0, non_negative)
    """With ``union``: decisions of a last league round, played and rolled out by the union
    average against ``league_opponents`` (``OUT/league/``); each union fit is refitted from
    itself on those labels only (``OUT/league_<i>/``, stages ``G<i>``), and these averaged
    (with the union fits if ``league_weight`` < 1) into ``OUT/league/policy.pt`` (stage
    ``F``; the last round's folder with ``league_rounds``): values against other tables than
    Hard's (the Expert's, the policy's own), for part of the lead over Hard
    (``docs/agents_results.md``). 0: none."""
    league_rounds: int = arg(1, positive)
    """With ``league``: league rounds in all; each after the first is played and rolled out by
    the last round's refits averaged (``OUT/league<k>/``), whose every refit is refitted again
    on its labels (``OUT/league<k>_<i>/``, stages ``G<k>.<i>``); ``league_weight`` mixes the
    last round's refits with the union fits."""
    league_opponents: str = "hard:1,self:1"
    """The other seats of the league round, as ``opponents`` (``self``: the union average)."""
    league_weight: float = arg(1.0, fraction)
    """Share of the league fits in the final average, above 0: 1, the league fits alone
    (ahead of the Expert), or less, the union fits sharing the rest (closer to them against
    Hard)."""
    lineages: int = arg(1, positive)
    """Whole runs of these stages, each from its own seed and labels (``OUT/lineage_<i>/``),
    then the last ``ensemble`` stages of every run averaged into ``OUT/ensemble/policy.pt``
    (the stage ``E``): fits of other labels cancel more of each other's errors than the
    stages of one run do (``docs/agents_results.md``)."""
    resume: bool = False
    """Go on with a stopped run of the same arguments in ``out``: every stage that its
    ``rounds.csv`` (and each lineage's) records with its ``policy.pt`` in place is kept, not
    made again, up to the first that is not (its collection goes on from its saved labels);
    the wall clock goes on from the last stage kept. Refused when ``OUT/args.json`` records
    other arguments."""
    eval_deals: int = arg(0, non_negative)
    """After each fit, its policy against three Hard over this many duplicate deals (0 = not
    measured), in ``rounds.csv`` and ``rounds.png``."""
    workers: int = arg(1, positive)
    """Collections run side by side, one process each (their own deals; ``labels_<i>.npz``
    when more than one), all fitted together."""
    lr: float = arg(1e-3, positive)
    """Adam learning rate of the fit (annealed linearly to a tenth)."""
    epochs: int = arg(6, positive)
    batch: int = arg(512, positive)
    holdout: float = arg(0.05, fraction)
    """Share of the decisions (the last collected) held out to measure the regret."""
    out: str = arg("runs/lookahead", output_dir)
    """Run folder: labels.npz, policy.pt, metrics.csv."""

    def agents(self) -> tuple[str, ...]:
        tables = [self.opponents] + ([self.league_opponents] if self.league else [])
        names = [split_weight(item)[0] for t in tables for item in t.split(",")]
        return (self.behaviour, self.rollout, *(n for n in names if n != SELF))

    def check(self) -> None:
        super().check()
        for flag, table in (("opponents", self.opponents), ("league-opponents",
                                                             self.league_opponents)):
            if sum(split_weight(item)[1] for item in table.split(",")) <= 0:
                raise ValueError(f"--{flag} {table}: the weights sum to 0")
        stages = 1 if self.fit_only else self.rounds + self.pi_rounds
        if self.lineages > 1 and self.fit_only:
            raise ValueError("--lineages: a fit on its own (--fit-only) has one lineage")
        if self.ensemble > stages:
            raise ValueError(f"--ensemble {self.ensemble}: the run has {stages} stage(s)")
        if self.union and (self.fit_only or not self.pi_rounds or self.ensemble > 1):
            raise ValueError("--union fits on the labels of the policy-iteration rounds "
                             "(--pi-rounds, not --fit-only) and is averaged alone (--ensemble 1)")
        if self.resume and self.fit_only:
            raise ValueError("--resume goes on with the stages of a run; --fit-only has none")
        if self.league_rounds > 1 and not self.league:
            raise ValueError(f"--league-rounds {self.league_rounds}: the rounds need --league")
        if self.league and not (self.union and self.league_weight > 0):
            raise ValueError("--league refits the union fits (--union), weighted above 0 "
                             "(--league-weight)")


def label_places(eng: Engine, hard: HardAgent | SeatMix, st: State, rows: np.ndarray,
                 mask: np.ndarray, own: Any = None) -> np.ndarray:
    """``[len(rows), A]`` int8: the place of the seat to act in game ``rows[i]`` after each
    legal action of ``mask[i]``, Hard playing every seat after it (or the agents of a
    :class:`SeatMix` of the games ``rows``), or ``own`` that seat (-1 where illegal)."""
    row_of, act_of = np.nonzero(mask)
    games = st.take(rows[row_of])
    seat = games.current.astype(np.int64)
    eng.step_inplace(games, act_of, check=False)
    out = np.full(mask.shape, -1, np.int8)
    players = hard.take(row_of) if isinstance(hard, SeatMix) else hard
    out[row_of, act_of] = rollout_places(eng, players, games, seat, own)
    return out


def opponent_pool(args: Args, rules: Rules, me: Any) -> tuple[list[Any], np.ndarray]:
    """The agents of ``args.opponents`` (``self``: ``me``) and their probabilities."""
    agents, weights = [], []
    for i, item in enumerate(args.opponents.split(",")):
        name, w = split_weight(item)
        agents.append(me if name == SELF else load_agent(name, rules, args.seed + 1 + i))
        weights.append(w)
    return agents, np.asarray(weights) / sum(weights)


def part_paths(args: Args) -> list[Path]:
    """The labels files of the run's collections."""
    out = Path(args.out)
    if args.workers == 1:
        return [out / DATA]
    return [out / f"labels_{i}.npz" for i in range(args.workers)]


def collect_part(args: Args, part: int) -> int:
    """Collection ``part`` of ``args.workers`` (its share of ``decisions``, its own deals), in
    its own process when there are several: the number of labels in its file."""
    threads = torch.get_num_threads()
    # one torch thread: the batches are small, and a pool of threads spins (tens of times
    # slower) while another process holds the other core
    torch.set_num_threads(1)
    try:
        rules = args.rules()
        data = Labels(rules, args.behaviour, part_paths(args)[part], args.rollout,
                      args.opponents)
        collect(args, rules, data, -(-args.decisions // args.workers), part)
    finally:
        torch.set_num_threads(threads)
    return len(data)


def collect(args: Args, rules: Rules, data: Labels, decisions: int, part: int = 0) -> None:
    """Play and label until ``data`` holds ``decisions`` (see the module docstring); saves
    ``data`` every ``SAVE_EVERY`` decisions and at the end."""
    start = len(data)
    if start >= decisions:
        return
    eng, hard = Engine(rules, threads=1), HardAgent(rules)
    rng = np.random.default_rng([args.seed, part, start])  # a resumed run draws new deals
    agent = None if args.behaviour == "hard" else load_agent(args.behaviour, rules, args.seed)
    width = policy_obs_size(agent, rules) if agent is not None else None
    own = None if args.rollout == "hard" else load_agent(args.rollout, rules, args.seed)
    b, p = args.games, rules.num_players
    seat = np.arange(b) % p
    st = eng.init(rng.integers(0, 2**62, b))
    pool, weight = opponent_pool(args, rules, hard if agent is None else agent)
    mix = SeatMix(pool, np.zeros((b, p), np.int64), rules)
    if len(pool) > 1:  # one agent: the deals of a run without opponents (no draws)
        mix.assign[:] = rng.choice(len(pool), (b, p), p=weight)
    mask = np.empty((b, eng.num_actions), np.bool_)
    obs = np.empty((b, eng.obs_size), np.float32)
    done = np.zeros(b, np.bool_)
    t0, saved = time.perf_counter(), start
    bar = tqdm(total=decisions, initial=start, desc=f"label {part}", position=part,
               disable=not args.progress)
    while len(data) < decisions:
        if args.max_seconds and time.perf_counter() - t0 > args.max_seconds:
            break
        eng.next_views(st, mask, obs, done, rng.integers(0, 2**62, b))
        seat = np.where(done, (seat + 1) % p, seat)
        if len(pool) > 1 and done.any():
            mix.assign[done] = rng.choice(len(pool), (int(done.sum()), p), p=weight)
        act = mix.act(np.arange(b), st.current.astype(np.int64), obs, mask)
        mine = np.ones(b, np.bool_) if agent is None else st.current == seat
        if agent is not None and mine.any():
            view = obs[mine] if width is None else obs[mine, :width]
            act[mine] = agent.act_batch(view, mask[mine])
        rows = np.flatnonzero(mine & (mask.sum(axis=1) > 1))
        if len(rows):
            data.add(obs=obs[rows].astype(np.float16), mask=mask[rows].copy(),
                     act=act[rows].astype(np.int8),
                     place=label_places(eng, mix.take(rows), st, rows, mask[rows], own))
            bar.update(len(rows))
        if len(data) - saved >= SAVE_EVERY:
            data.save()
            saved = len(data)
        eng.step_inplace(st, act, check=False)
        done = st.phase == PHASE_DONE
    bar.close()
    data.save()


def targets(place: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The policy head's targets (negated places centred over the legal actions, 0 where
    illegal) and the value head's (the negated best place)."""
    q = -place.float()
    mean = torch.where(mask, q, 0).sum(1, keepdim=True) / mask.sum(1, keepdim=True)
    best = torch.where(mask, q, -1e9).max(1).values
    return torch.where(mask, q - mean, 0), best


def fit(args: Args, rules: Rules, d: dict[str, np.ndarray], out: Path) -> dict[str, float]:
    """Train the network on ``d`` (see the module docstring); the last epoch's metrics."""
    steady_heap()
    net = args.network(rules)
    obs, mask = torch.from_numpy(d["obs"]), torch.from_numpy(d["mask"])
    place, act = torch.from_numpy(d["place"]), torch.from_numpy(d["act"]).long()
    n_train = int(round(len(act) * (1 - args.holdout)))
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    steps = args.epochs * -(-n_train // args.batch)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda i: 1 - 0.9 * min(i / steps, 1))
    rows: list[dict[str, float]] = [{"epoch": 0, "loss": float("nan"), "value_loss": float("nan"),
                                     **regret(net, obs, mask, place, act, n_train)}]
    for epoch in tqdm(range(1, args.epochs + 1), desc="fit", disable=not args.progress):
        net.train()
        tot = [0.0, 0.0]
        perm = torch.randperm(n_train)
        for i in range(0, n_train, args.batch):
            j = perm[i : i + args.batch]
            m = mask[j]
            target, best = targets(place[j], m)
            logits, v = net(obs[j].float(), m)
            loss = (torch.where(m, logits - target, 0) ** 2).sum() / m.sum()
            vloss = ((v - best) ** 2).mean()
            opt.zero_grad()
            (loss + args.vf_coef * vloss).backward()
            opt.step()
            sched.step()
            tot[0] += loss.item() * len(j)
            tot[1] += vloss.item() * len(j)
        rows.append({"epoch": epoch, "loss": tot[0] / n_train, "value_loss": tot[1] / n_train,
                     **regret(net, obs, mask, place, act, n_train)})
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "metrics.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    save_policy(out / "policy.pt", net, rules, meta={
        "trainer": "train.lookahead", "behaviour": args.behaviour, "decisions": len(act),
        **{k: float(v) for k, v in rows[-1].items()}})
    return {**rows[-1], "decisions": float(len(act))}


def collect_all(args: Args) -> list[Path]:
    """The collection of ``args`` (its workers side by side): the files it wrote."""
    if args.workers == 1:
        collect_part(args, 0)
        return [p for p in part_paths(args) if p.is_file()]
    # SIGTERM ends this process through SystemExit, so the pool's exit ends the workers too
    # (killed without it, the parent would leave them collecting)
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _exit_on_term) if main else None
    try:
        with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
            pool.starmap(collect_part, [(args, i) for i in range(args.workers)])
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)
    return [p for p in part_paths(args) if p.is_file()]


def _exit_on_term(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


def fit_files(args: Args, rules: Rules, files: list[Path]) -> dict[str, float]:
    """Fit on the labels of ``files`` (any behaviour, same rules) into ``args.out``."""
    t0 = time.perf_counter()
    with user_errors():
        d = read_labels(rules, files, f"no labels to fit in {args.out} nor in --also")
    last = fit(args, rules, d, Path(args.out))
    print(f"{int(last['decisions'])} decisions, fit in {time.perf_counter() - t0:.0f} s: regret "
          f"{last['train_regret']:.3f} training, {last['heldout_regret']:.3f} held out (the "
          f"behaviour's {last['heldout_behaviour_regret']:.3f}); {args.out}/policy.pt",
          file=sys.stderr)
    return last


def next_round(args: Args, sub: Path, policy: Path | None = None, **changes: Any) -> Args:
    """The arguments of a round in ``sub``: the last policy (``policy``, else
    ``OUT/policy.pt``; kept as ``behaviour.pt``, so a resumed round keeps the policy it
    collected with) plays the labelled seat."""
    sub.mkdir(parents=True, exist_ok=True)
    behaviour = sub / "behaviour.pt"
    if not behaviour.is_file():
        shutil.copyfile(policy or Path(args.out) / "policy.pt", behaviour)
    return dataclasses.replace(args, out=str(sub), behaviour=str(behaviour), **changes)


def main(argv: list[str] | None = None) -> dict[str, float]:
    args = parse(Args, argv, prog="python -m train.lookahead")
    with user_errors():
        rules = args.rules()
    if args.fit_only:
        check_files(args, rules)
        return fit_files(args, rules, [p for p in part_paths(args) if p.is_file()]
                         + [Path(a) for a in args.also])
    # the stages over several runs build on this module's (imported here, not at the top)
    from train.lookahead_lineages import average_stages, run_lineages

    with user_errors():
        record_args(args)
    if args.lineages > 1 or args.union:
        return run_lineages(args, rules)
    stages, files, last = run(args, rules)
    if args.ensemble > 1:
        members = [Path(r["folder"]) / "policy.pt" for r in stages.rows[-args.ensemble:]]
        last = average_stages(args, rules, stages, members, files)
    return last


UNRECORDED = ("resume", "progress", "threads", "max_seconds")
"""Arguments that a resumed run may change (``OUT/args.json`` leaves them out)."""


def record_args(args: Args) -> None:
    """Write the run's arguments to ``OUT/args.json``; with ``resume``, first a ValueError
    naming the arguments that differ from those recorded there."""
    path = Path(args.out) / "args.json"
    now = {k: v for k, v in json.loads(json.dumps(dataclasses.asdict(args))).items()
           if k not in UNRECORDED}
    if args.resume and path.is_file():
        was = json.loads(path.read_text())
        diff = sorted(k for k in now.keys() | was.keys() if now.get(k) != was.get(k))
        if diff:
            raise ValueError(f"--resume: {args.out} holds a run of other arguments ("
                             + ", ".join(f"{k}: {was.get(k)!r} there, {now.get(k)!r} now"
                                         for k in diff) + ")")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(now, indent=1) + "\n")


def check_files(args: Args, rules: Rules) -> None:
    """Exit with a clear error when a labels file of the run holds other rules or behaviour."""
    with user_errors():
        for path in part_paths(args):
            Labels(rules, args.behaviour, path, args.rollout, args.opponents)


def run(args: Args, rules: Rules) -> tuple[Stages, list[Path], dict[str, float]]:
    """The stages of one run (first collection and fit, DAgger and policy-iteration rounds):
    their record, the labels files of the last fit and its last metrics."""
    check_files(args, rules)
    out = Path(args.out)
    stages = Stages(out, rules, args.eval_deals, args.progress, args.resume)
    files = collect_all(args) + [Path(a) for a in args.also]
    last = stages.stage("R0", out, stages.lap(), partial(fit_files, args, rules, files))
    plan = [("D", k, args.dagger) for k in range(1, args.rounds)]
    plan += [("PI", k, args.pi_decisions) for k in range(1, args.pi_rounds + 1)]
    for kind, k, decisions in plan:
        sub = out / (f"round_{k}" if kind == "D" else f"pi_{k}")
        step = next_round(args, sub, decisions=decisions, seed=args.seed + len(stages.rows))
        if kind == "PI":
            step = dataclasses.replace(step, rollout=step.behaviour)
        new = collect_all(step)
        files = files + new if kind == "D" else new
        fit_args = dataclasses.replace(step, init=step.behaviour, lr=args.round_lr,
                                       epochs=args.round_epochs)
        last = stages.stage(f"{kind}{k}", sub, stages.lap(),
                            partial(fit_files, fit_args, rules, files))
        shutil.copyfile(sub / "policy.pt", out / "policy.pt")
    return stages, files, last


if __name__ == "__main__":
    main()
