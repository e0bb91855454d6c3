"""Differential test: the fast batched engine against the plain reference, step by step.

Random legal games are played in the engine (:class:`president_env.core.engine.Engine`, a batch of
games at once) and, game by game, in :class:`president_env.testing.reference.ReferenceGame`. Before
every step the engine's legal-action mask must equal the reference's legal actions; a random
legal action is then taken in both, and the whole public state must agree afterwards: phase,
player to act, hands, pile (kind, rank, size, last player), passes, revolution, places, titles,
scores, deal number, dealer, cards played, the exchange (cards given, received, still to
return), the variants' state, the deal's public history (``seat_played``, ``seat_passed``,
``recent``) and the deal's rewards from :mod:`president_env.rewards` (see
:mod:`president_env.testing.compare`).

Command line (a progress line every few seconds; exit status 1 at the first disagreement,
which is printed with a reproduction)::

    python -m president_env.testing.difftest --games 100000 [--preset NAME] [--players N] [--seed S]
                    [--batch B] [--jobs J] [--mix | --pairwise | --variants] [--given-hands F]
                    [--keep-going]

Without ``--preset`` the configurations cycle through every preset at every player count and,
every third batch, a random mix of options (``--mix``: random mixes only; ``--pairwise``: a set
of rules where every pair of values of any two options appears, see
:mod:`president_env.testing.configs`; ``--variants``: the six options of ``RULES.md`` section
12 forced into every combination of their test values, at every player count 3-8 with one and
with two decks, the other options random, see :func:`variant_rules`). A disagreement is
reported with the rules, the game's seed, its given hands (if any) and its action sequence;
:func:`replay` plays such a game again in both implementations and raises at the first
difference.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import multiprocessing
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from president_env.cli import parse, parser
from president_env.core.actions import ActionLayout
from president_env.core.engine import Engine, State
from president_env.core.rules import OPTIONS, PRESET_PLAYERS, PRESETS, Rules
from president_env.testing.compare import (
    Disagreement,
    HandsText,
    as_hands,
    batch_rewards,
    mask_problem,
    reproduction,
    state_differences,
)
from president_env.testing.configs import (
    ENABLING,
    drop_unmet,
    pairwise_rules,
    preset_rules,
    random_hands,
    random_rules,
)
from president_env.testing.reference import ReferenceGame

__all__ = [
    "Disagreement",
    "Tally",
    "choose_action",
    "engine_for",
    "main",
    "pairwise_rules",
    "play_batch",
    "preset_rules",
    "random_hands",
    "random_rules",
    "replay",
    "state_differences",
    "variant_rules",
]

VARIANTS = (
    "revolution_timing",
    "western_revolution",
    "bombs",
    "runs_mixed_suits",
    "max_run_length",
    "president_asks",
)
"""The further variants of ``RULES.md`` section 12."""

VARIANT_COMBINATIONS: list[dict[str, Any]] = [
    dict(zip(VARIANTS, values))
    for values in itertools.product(
        *(list(dict.fromkeys(OPTIONS[name].test_values())) for name in VARIANTS)
    )
]
"""Every combination of the distinct test values of the variants (2 x 2 x 4 x 2 x 4 x 2), in
a fixed shuffled order (so that a short run already mixes them all)."""
random.Random("variants").shuffle(VARIANT_COMBINATIONS)

TABLES = [(players, decks) for players in range(3, 9) for decks in (1, 2)]
"""Player counts and decks of the ``--variants`` runs."""


@dataclass
class Tally:
    """What was compared."""

    games: int = 0
    steps: int = 0
    deals: int = 0

    def add(self, other: Tally) -> None:
        self.games += other.games
        self.steps += other.steps
        self.deals += other.deals


def variant_rules(number: int, rng: random.Random, players: int | None = None) -> Rules:
    """The rules of batch ``number`` of a ``--variants`` run.

    Combination ``number % 256`` of :data:`VARIANT_COMBINATIONS`, at the table (players,
    decks) ``(number // 256 + number) % 12`` of :data:`TABLES` (so batches 0..3071 hold every
    combination at every table; ``players`` fixes the count), the other options drawn by
    :func:`random_rules` from ``rng`` (at most 3 deals), and the option each variant that is
    not at its default refines turned on (:data:`~president_env.testing.configs.ENABLING`;
    ``president_asks`` with at least 2 deals)."""
    combination = VARIANT_COMBINATIONS[number % len(VARIANT_COMBINATIONS)]
    count, decks = TABLES[(number // len(VARIANT_COMBINATIONS) + number) % len(TABLES)]
    values = random_rules(rng, count if players is None else players, max_deals=3).to_dict()
    values.update(decks=decks, **combination)
    for name, value in combination.items():
        requirement = OPTIONS[name].requires
        if requirement is not None and value != Rules.__dataclass_fields__[name].default:
            for key, needed in ENABLING[requirement].items():
                values[key] = max(values[key], needed) if key == "deals" else needed
    return Rules(**drop_unmet(values))  # (exact_plays drawn at random needs one deck)


# ---------------------------------------------------------------------------- playing
@functools.lru_cache(maxsize=256)
def engine_for(rules: Rules) -> Engine:
    return Engine(rules)


def choose_action(layout: ActionLayout, legal: Sequence[int], rng: random.Random) -> int:
    """A random legal action, drawn so that rare plays come up often enough to be tested.

    A third of the time uniformly over the actions; a third over the kinds (pass, set,
    jokers-only set, run, give), then over the actions of that kind; a third over the
    (kind, size) pairs, then over their actions (so runs, jokers and sets of four, which
    start revolutions, are played far more often than by a uniform draw).
    """
    how = rng.randrange(3)
    if how == 0:
        return legal[rng.randrange(len(legal))]
    groups: dict[tuple[int, int], list[int]] = {}
    for action in legal:
        kind = int(layout.kind[action])
        key = (kind, int(layout.size[action])) if how == 2 else (kind, 0)
        groups.setdefault(key, []).append(action)
    keys = sorted(groups)
    group = groups[keys[rng.randrange(len(keys))]]
    return group[rng.randrange(len(group))]


def play_batch(
    rules: Rules,
    seeds: Sequence[int],
    rng: random.Random,
    hands: Sequence[npt.NDArray[np.int8]] | None = None,
    illegal_checks: float = 0.0,
) -> Tally:
    """Play ``len(seeds)`` random games in the engine (one batch) and in the reference.

    ``hands``: the first deal of each game (else the seeded deal). ``illegal_checks``: the
    probability, per step of each game, of also checking that a random illegal action is
    refused by both. Raises :class:`Disagreement` at the first difference.
    """
    engine = engine_for(rules)
    layout = engine.layout
    batch = len(seeds)
    if hands is None:
        state = engine.init(np.array(seeds, np.uint64))
        refs = [ReferenceGame(rules, seed=s) for s in seeds]
    else:
        state = engine.init_from_hands(np.stack(hands), seed=np.array(seeds, np.uint64))
        refs = [ReferenceGame(rules, hands=h, seed=s) for h, s in zip(hands, seeds)]
    history: list[list[int]] = [[] for _ in range(batch)]
    tally = Tally()

    def fail(b: int, problem: str) -> None:
        given = None if hands is None else hands[b]
        raise Disagreement(reproduction(rules, seeds[b], history[b], given, problem))

    def check(b: int, rewards: npt.NDArray[np.float32]) -> None:
        diffs = state_differences(state, b, refs[b], rewards)
        if diffs:
            fail(b, "state differs:\n  " + "\n  ".join(diffs))

    live = [True] * batch
    rewards = batch_rewards(rules, state)
    for b in range(batch):
        check(b, rewards)
    actions = np.zeros(batch, np.int64)
    while any(live):
        mask = engine.legal_action_mask(state)
        for b in range(batch):
            if not live[b]:
                continue
            ref_legal = refs[b].legal_actions()
            engine_legal = np.flatnonzero(mask[b]).tolist()
            if engine_legal != ref_legal:
                fail(b, mask_problem(layout, engine_legal, ref_legal))
            if illegal_checks and rng.random() < illegal_checks:
                _check_illegal(
                    engine, state, b, refs[b], ref_legal, rng, functools.partial(fail, b)
                )
            actions[b] = choose_action(layout, ref_legal, rng)
        state = engine.step(state, actions)
        rewards = batch_rewards(rules, state)
        for b in range(batch):
            if not live[b]:
                continue
            refs[b].step(int(actions[b]))
            history[b].append(int(actions[b]))
            tally.steps += 1
            check(b, rewards)
            if refs[b].deal_over:
                tally.deals += 1
            if refs[b].phase == "done":
                live[b] = False
                tally.games += 1
    return tally


def _check_illegal(
    engine: Engine,
    state: State,
    b: int,
    ref: ReferenceGame,
    legal: list[int],
    rng: random.Random,
    fail: Callable[[str], None],
) -> None:
    """A random illegal action is refused by both (and changes neither)."""
    illegal = sorted(set(range(engine.num_actions)) - set(legal))
    if not illegal:
        return
    action = illegal[rng.randrange(len(illegal))]
    name = engine.layout.name(action)
    one = state.take(np.array([b]))
    try:
        engine.step(one, np.array([action]))
    except ValueError:
        pass
    else:
        fail(f"the engine accepted the illegal action {action} ({name})")
    try:
        ref.step(action)
    except ValueError:
        pass
    else:
        fail(f"the reference accepted the illegal action {action} ({name})")
    if state_differences(one, 0, ref):
        fail(f"refusing the illegal action {action} ({name}) changed a state")


def replay(
    rules: Rules,
    seed: int,
    actions: Sequence[int],
    hands: npt.ArrayLike | HandsText | None = None,
) -> None:
    """Play one game's actions in both implementations; raise at the first difference."""
    engine = engine_for(rules)
    given = as_hands(hands)
    if given is None:
        state = engine.init(np.array([seed], np.uint64))
        ref = ReferenceGame(rules, seed=seed)
    else:
        state = engine.init_from_hands(given[None], seed=np.array([seed], np.uint64))
        ref = ReferenceGame(rules, hands=given, seed=seed)
    done: list[int] = []

    def fail(problem: str) -> None:
        raise Disagreement(reproduction(rules, seed, done, given, problem))

    diffs = state_differences(state, 0, ref)
    if diffs:
        fail("state differs:\n  " + "\n  ".join(diffs))
    for action in actions:
        ref_legal = ref.legal_actions()
        engine_legal = np.flatnonzero(engine.legal_action_mask(state)[0]).tolist()
        if engine_legal != ref_legal:
            fail(mask_problem(engine.layout, engine_legal, ref_legal))
        state = engine.step(state, np.array([action]))
        ref.step(action)
        done.append(int(action))
        diffs = state_differences(state, 0, ref)
        if diffs:
            fail("state differs:\n  " + "\n  ".join(diffs))


# ---------------------------------------------------------------------------- command line
def _describe(rules: Rules) -> str:
    name = rules.preset_name
    if name is not None and rules == Rules.preset(name, num_players=rules.num_players):
        return f"{name} P={rules.num_players}"
    defaults = Rules(num_players=rules.num_players)
    changed = {
        k: v for k, v in rules.to_dict().items() if k != "num_players" and v != getattr(defaults, k)
    }
    return f"mix P={rules.num_players} {changed}"


@dataclass(frozen=True)
class BatchJob:
    """One batch of games to compare (everything needed to play it again)."""

    rules: Rules
    seeds: list[int]
    hands: list[npt.NDArray[np.int8]] | None
    action_seed: int
    illegal_checks: float


def run_job(job: BatchJob) -> tuple[BatchJob, Tally, str | None]:
    """Play one batch; return what was compared and the disagreement found, if any."""
    rng = random.Random(job.action_seed)
    try:
        tally = play_batch(job.rules, job.seeds, rng, job.hands, job.illegal_checks)
    except Disagreement as err:
        return job, Tally(games=len(job.seeds)), f"DISAGREEMENT ({_describe(job.rules)}):\n{err}"
    return job, tally, None


def make_jobs(
    games: int,
    batch: int,
    seed: int,
    presets: list[Rules],
    mix_every: int,
    players: int | None = None,
    given_hands: float = 0.1,
    illegal_checks: float = 0.01,
    variants: bool = False,
) -> Iterator[BatchJob]:
    """The batches of a run, drawn from ``seed`` alone.

    Batch ``i`` uses ``presets[i % len(presets)]``, except every ``mix_every``-th batch (or
    every batch, without presets), which uses a random mix of options; with ``variants`` batch
    ``i`` uses :func:`variant_rules` ``(i, ...)``.
    """
    master = random.Random(seed)
    left, number = games, 0
    while left > 0:
        mix = not presets or (mix_every > 0 and number % mix_every == mix_every - 1)
        if variants:
            rules = variant_rules(number, master, players)
        elif mix:
            rules = random_rules(master, players)
        else:
            rules = presets[number % len(presets)]
        size = min(batch, left)
        seeds = [master.randrange(2**62) for _ in range(size)]
        hands = None
        if master.random() < given_hands:
            hands = [random_hands(rules, master) for _ in range(size)]
        yield BatchJob(rules, seeds, hands, master.randrange(2**62), illegal_checks)
        left -= size
        number += 1


@dataclass
class Args:
    """Compare the fast engine with the plain reference on random games."""

    games: int = 10_000
    """Games to compare."""
    preset: str | None = None
    """Only this preset."""
    players: int | None = None
    """Only this player count (3..8)."""
    seed: int = 0
    """Master seed."""
    batch: int = 32
    """Engine batch size."""
    mix: bool = False
    """Only random mixes of options."""
    pairwise: bool = False
    """Cycle through rules where every pair of values of any two options appears."""
    variants: bool = False
    """Force the six options of RULES.md section 12 into every combination (players 3-8, one and
    two decks, other options random)."""
    given_hands: float = 0.1
    """Fraction of batches whose first deal is a random partial deal (init_from_hands)."""
    illegal_checks: float = 0.01
    """Probability per step of also checking that a random illegal action is refused."""
    jobs: int = 1
    """Worker processes."""
    keep_going: bool = False
    """Report disagreements and go on."""
    every: float = 5.0
    """Seconds between progress lines."""


PROG = "python -m president_env.testing.difftest"


def _configurations(parser: argparse.ArgumentParser, args: Args) -> list[Rules]:
    """The rules that batches cycle through (empty: random mixes only); exits on bad arguments."""
    if args.preset is not None and args.preset not in PRESETS:
        parser.error(f"--preset must be one of {sorted(PRESETS)}, got {args.preset!r}")
    if args.games < 1 or args.batch < 1 or args.jobs < 1:
        parser.error("--games, --batch and --jobs must be positive")
    if sum(map(bool, (args.mix, args.preset, args.pairwise, args.variants))) > 1:
        parser.error("--mix, --preset, --pairwise and --variants exclude each other")
    if args.players is not None and not 3 <= args.players <= 8:
        parser.error("--players must be from 3 to 8")
    if args.preset and args.players is not None:
        lo, hi = PRESET_PLAYERS[args.preset]
        if not lo <= args.players <= hi:
            parser.error(f"preset {args.preset} is for {lo}-{hi} players")
    if args.mix or args.variants:
        return []
    if args.pairwise:
        return pairwise_rules(args.players, seed=args.seed)
    presets = preset_rules(args.preset, args.players)
    if not presets:
        parser.error("no preset allows that player count")
    return presets


def _report(results: Iterator[tuple[BatchJob, Tally, str | None]], args: Args) -> int:
    """Print progress and every disagreement; the number of disagreements."""
    total = Tally()
    failures = 0
    start = last_line = time.monotonic()
    for job, tally, problem in results:
        total.add(tally)
        if problem is not None:
            failures += 1
            print(f"\n{problem}\n", flush=True)
            if not args.keep_going:
                break
        now = time.monotonic()
        if now - last_line >= args.every or total.games >= args.games:
            last_line = now
            elapsed = now - start
            print(
                f"[{elapsed:7.1f}s] games {total.games:,}/{args.games:,}  "
                f"deals {total.deals:,}  steps {total.steps:,}  "
                f"({total.games / elapsed:,.0f} games/s, {total.steps / elapsed:,.0f} steps/s)"
                f"  disagreements {failures}  last: {_describe(job.rules)}",
                flush=True,
            )
    print(
        f"{'stopped' if failures and not args.keep_going else 'done'}: {total.games:,} games, "
        f"{total.deals:,} deals, {total.steps:,} steps compared, {failures} disagreement(s)"
    )
    return failures


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(Args, argv, prog=PROG)
    configurations = _configurations(parser(Args, prog=PROG), args)
    jobs = make_jobs(
        args.games,
        args.batch,
        args.seed,
        configurations,
        mix_every=0 if args.preset or args.pairwise else 3,
        players=args.players,
        given_hands=args.given_hands,
        illegal_checks=args.illegal_checks,
        variants=args.variants,
    )
    pool = multiprocessing.get_context("spawn").Pool(args.jobs) if args.jobs > 1 else None
    results = pool.imap_unordered(run_job, jobs) if pool else map(run_job, jobs)
    try:
        failures = _report(results, args)
    finally:
        if pool is not None:
            pool.terminate()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
