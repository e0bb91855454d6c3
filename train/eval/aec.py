"""An agent's strength measured through the public PettingZoo env, as a user's loop would.

Each deal is played once with the agent in every seat (deal ``d`` is ``env.reset(seed=seed +
d)``, so every seat gets the same cards once), the other seats taken by the opponents; every
decision is ``agent.act(observation, action_mask)`` from ``env.last()`` (a policy made for a
smaller observation reads its prefix, :func:`president_env.table.policy_obs_size`). The mean
place and its 95% interval are over the deals (the four games of a deal averaged first:
:mod:`train.eval.stats`). ``--jobs`` splits the deals between processes (the results do not
depend on it: each game's agents are seeded from ``(seed, deal, seat)``).

    python -m train.eval.aec --agent expert --opponents hard --deals 400 --jobs 2

writes the mean to ``--out`` (a CSV row per run, ``docs/data/aec_strength.csv``) and every
game's place to ``--places`` (``docs/data/aec_places.csv``), from which the mean is recomputed
by the tests.
"""

from __future__ import annotations

import argparse
import csv
import multiprocessing as mp
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from president_env.core.rules import Rules

PLACES_FIELDS = ["agent", "opponents", "preset", "seed", "deal", "seat", "place"]
SUMMARY_FIELDS = ["agent", "opponents", "preset", "players", "observation", "deals", "seed",
                  "mean_place", "mean_place_lo", "mean_place_hi", "seconds"]


def _seed(*parts: int) -> int:
    return int(np.random.SeedSequence(list(parts)).generate_state(1)[0])


def play_game(rules: Rules, agent: str, opponents: str, seat: int, reset_seed: int,
              seed: int) -> int:
    """The place (1 = first) of ``agent`` in ``seat`` of the game ``reset(seed=reset_seed)``."""
    from agents import load_agent
    from president_env import env as make_env
    from president_env.table import policy_obs_size

    e = make_env(rules=rules)
    e.reset(seed=reset_seed)
    p = rules.num_players
    players = {q: load_agent(agent if q == seat else opponents, rules,
                             seed=_seed(seed, reset_seed, seat, q)) for q in range(p)}
    widths = {q: policy_obs_size(a, rules) for q, a in players.items()}
    place = -1
    for name in e.agent_iter():
        obs, _r, term, trunc, info = e.last()
        q = int(name.split("_")[1])
        if term or trunc:
            if q == seat:
                place = int(info["standing"]) + 1
            e.step(None)
            continue
        view = obs["observation"] if widths[q] is None else obs["observation"][: widths[q]]
        e.step(int(players[q].act(view, obs["action_mask"])))
    if place < 1:
        raise RuntimeError(f"the game of reset seed {reset_seed} ended without a place for seat {seat}")
    return place


def _run_deal(args: tuple[Rules, str, str, int, int]) -> list[tuple[int, int, int]]:
    """(deal, seat, place) of the games of deal ``d``, the agent in every seat."""
    rules, agent, opponents, seed, d = args
    return [(d, seat, play_game(rules, agent, opponents, seat, seed + d, seed))
            for seat in range(rules.num_players)]


def measure(rules: Rules, agent: str, opponents: str, deals: int, seed: int = 0, jobs: int = 1,
            progress: bool = True) -> list[tuple[int, int, int]]:
    """Every game's (deal, seat, place), deals ``0..deals-1``, ``jobs`` processes."""
    work = [(rules, agent, opponents, seed, d) for d in range(deals)]
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=deals * rules.num_players, desc=f"{agent} vs {opponents}", unit="game",
                   file=sys.stderr)
    out: list[tuple[int, int, int]] = []
    with mp.get_context("spawn").Pool(jobs) if jobs > 1 else _Serial() as pool:
        for games in pool.imap_unordered(_run_deal, work):
            out += games
            if bar is not None:
                bar.update(len(games))
    if bar is not None:
        bar.close()
    return sorted(out)


class _Serial:
    """A pool of this process (``--jobs 1``)."""

    def __enter__(self) -> _Serial:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def imap_unordered(self, fn: Any, items: list[Any]) -> Any:
        return map(fn, items)


def summary(games: list[tuple[int, int, int]]) -> tuple[float, float, float]:
    """Mean place and its 95% interval over the deals (per-deal means first)."""
    from train.eval.stats import mean_ci

    deal, _, place = np.asarray(games, np.float64).T
    _, index = np.unique(deal, return_inverse=True)
    per_deal = np.bincount(index, weights=place) / np.bincount(index)
    return mean_ci(per_deal)


def append_csv(path: Path, header: list[str], rows: list[list[Any]]) -> None:
    """Append ``rows`` to the CSV ``path``, writing ``header`` first into a new file."""
    new = not path.exists()
    with path.open("a", newline="") as f:
        w = csv.writer(f)
        if new:
            w.writerow(header)
        w.writerows(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agent", default="expert", help="the agent measured (an agent spec)")
    ap.add_argument("--opponents", default="hard", help="the agent of every other seat")
    ap.add_argument("--preset", default="standard")
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--observation", default="record", choices=["standard", "history", "record"])
    ap.add_argument("--deals", type=int, default=400)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", type=Path, default=None, help="append the summary row to this CSV")
    ap.add_argument("--places", type=Path, default=None, help="append every game's place here")
    a = ap.parse_args(argv)
    if a.deals < 1 or a.jobs < 1:
        ap.error("--deals and --jobs must be at least 1")
    options: dict[str, Any] = {"observation": a.observation}
    if a.players is not None:
        options["num_players"] = a.players
    rules = Rules.preset(a.preset, **options)
    t0 = time.perf_counter()
    games = measure(rules, a.agent, a.opponents, a.deals, a.seed, a.jobs)
    seconds = time.perf_counter() - t0
    mean, lo, hi = summary(games)
    print(f"{a.agent} vs {a.opponents}*{rules.num_players - 1} through the AEC env, {a.deals} "
          f"deals x {rules.num_players} seats: mean place {mean:.3f} [{lo:.3f}, {hi:.3f}] "
          f"({seconds:.0f} s)")
    if a.places is not None:
        append_csv(a.places, PLACES_FIELDS,
                   [[a.agent, a.opponents, a.preset, a.seed, d, s, pl] for d, s, pl in games])
    if a.out is not None:
        append_csv(a.out, SUMMARY_FIELDS,
                   [[a.agent, a.opponents, a.preset, rules.num_players, a.observation, a.deals,
                     a.seed, f"{mean:.3f}", f"{lo:.3f}", f"{hi:.3f}", f"{seconds:.0f}"]])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
