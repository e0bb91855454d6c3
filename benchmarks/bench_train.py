"""Trainer throughput: ``train.selfplay_ppo`` and ``train.ppo_pool`` by torch threads, with and
without ``--compile``, on a quiet machine and with a CPU-bound process on another core.

Each figure is one short training run in a fresh process (``--threads`` and ``torch.compile``
are per process), timed after a warm-up update that is left out (numba kernels loaded, the
compiled graphs built: their time is reported apart as ``first update s``). ``steps/s`` counts
environment steps as the trainer does (self-play: every decision; pool: the learner's);
``update ms`` is the mean time of one ``ppo_update`` (the epochs of minibatch steps), the rest
of an update's time is acting in the games. "busy" runs ``python -c "while True: pass"`` beside
the trainer for the whole figure. ``ran on`` says, for more than one thread, where the update
and the acting forward ran at the end (``train.common.threads`` times its threads against one
thread and keeps the faster: "2/1" = the update on 2 threads, acting on 1) and how many times
the choice changed; ``load`` is the 1-minute load average as the figure starts. ``--rounds`` repeats the whole table, so that figures to compare alternate
(on a shared machine, compare figures of one round, not of different rounds).

    python benchmarks/bench_train.py [--updates 4] [--num-envs 256] [--rollout 64]
        [--trainers selfplay_ppo,ppo_pool] [--threads 1,2] [--compile both] [--busy both]
        [--rounds 1]

``--one '<json>'`` runs one figure in this process and prints it as JSON (what the table's
rows do in their subprocesses).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from president_env.cli import parse  # noqa: E402

BUSY = "while True: pass"


@dataclass
class Args:
    updates: int = 4
    """Timed updates per figure (after one warm-up update)."""
    num_envs: int = 256
    """Games played at once (the trainers' default)."""
    rollout: int = 64
    """Steps per game between updates (the trainers' default)."""
    minibatches: int = 8
    """Minibatches per epoch (the trainers' default)."""
    trainers: tuple[str, ...] = ("selfplay_ppo", "ppo_pool")
    """Trainers, comma-separated."""
    threads: tuple[int, ...] = (1, 2)
    """torch thread counts, comma-separated."""
    compile: str = "both"
    """"no", "yes" or "both": with --compile."""
    busy: str = "both"
    """"no", "yes" or "both": with a CPU-bound process beside the trainer."""
    rounds: int = 1
    """Times the whole table is measured."""
    one: str = ""
    """Run one figure (JSON of its settings) and print it as JSON."""


def run_one(spec: dict[str, Any]) -> dict[str, Any]:
    """One figure in this process: ``spec`` = trainer, threads, compile, num_envs, rollout,
    minibatches, updates. Returns steps/s, update ms and the first update's seconds."""
    import importlib

    mod: Any = importlib.import_module(f"train.{spec['trainer']}")
    times: list[float] = []
    marks: list[float] = []
    inner = mod.ppo_update

    def timed_update(*a: Any, **k: Any) -> Any:
        t0 = time.perf_counter()
        out = inner(*a, **k)
        times.append(time.perf_counter() - t0)
        marks.append(time.perf_counter())
        return out

    mod.ppo_update = timed_update
    per_update = spec["num_envs"] * spec["rollout"]
    n = spec["updates"] + 1
    with TemporaryDirectory() as out:
        argv = ["--num-envs", str(spec["num_envs"]), "--rollout", str(spec["rollout"]),
                "--minibatches", str(spec["minibatches"]), "--total-steps", str(per_update * n),
                "--threads", str(spec["threads"]), "--no-progress", "--no-tensorboard",
                "--out", out, "--device", "cpu", "--checkpoint-every", str(10**6)]
        if spec["trainer"] == "selfplay_ppo":
            argv += ["--eval-every", "0", "--eval-deals", "1", "--snapshot-every", "0"]
        if spec["compile"]:
            argv.append("--compile")
        start = time.perf_counter()
        mod.train(parse(mod.Args, argv))
    mod.ppo_update = inner
    timed = marks[-1] - marks[0]
    return {
        "steps_per_s": per_update * (len(marks) - 1) / timed,
        "update_ms": 1000 * sum(times[1:]) / max(len(times) - 1, 1),
        "first_update_s": marks[0] - start,
    }


def figure(spec: dict[str, Any], busy: bool) -> dict[str, Any]:
    """``run_one(spec)`` in a fresh process, with a busy-looping process beside it if ``busy``."""
    hog = subprocess.Popen([sys.executable, "-c", BUSY]) if busy else None
    try:
        out = subprocess.run(
            [sys.executable, __file__, "--one", json.dumps(spec)],
            capture_output=True, text=True, cwd=ROOT, check=False,
        )
    finally:
        if hog is not None:
            hog.kill()
            hog.wait()
    if out.returncode != 0:
        raise RuntimeError(f"figure {spec} failed:\n{out.stderr[-2000:]}")
    row: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    row["ran_on"] = ran_on(out.stderr, spec["threads"])
    return row


def ran_on(stderr: str, threads: int) -> str:
    """"update/acting" threads at the end of a run (from the choices' lines on its stderr, see
    ``train.common.threads``), and the number of changes: "2/1, 1 change"; "-" for 1 thread."""
    if threads == 1:
        return "-"
    lines = [ln for ln in stderr.splitlines() if " now on " in ln]
    n = str(threads or os.cpu_count() or 1)
    last = {"update": n, "acting": n}  # both start on their threads
    for ln in lines:
        kind = "update" if ": update now on" in ln else "acting"
        last[kind] = "1" if ln.split(" now on ")[1].startswith("1 thread") else n
    return f"{last['update']}/{last['acting']}, {len(lines)} change{'s' * (len(lines) != 1)}"


def _choices(value: str) -> list[bool]:
    return {"no": [False], "yes": [True], "both": [False, True]}[value]


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    args = parse(Args, argv)
    if args.one:
        print(json.dumps(run_one(json.loads(args.one))))
        return []
    rows: list[dict[str, Any]] = []
    print(f"{'trainer':14s} {'threads':>7s} {'compile':>7s} {'machine':>7s} {'steps/s':>10s} "
          f"{'update ms':>10s} {'first update s':>15s} {'load':>5s}  ran on", flush=True)
    for _ in range(args.rounds):
        for trainer in args.trainers:
            for busy in _choices(args.busy):
                for comp in _choices(args.compile):
                    for threads in args.threads:
                        spec = {"trainer": trainer, "threads": threads, "compile": comp,
                                "num_envs": args.num_envs, "rollout": args.rollout,
                                "minibatches": args.minibatches, "updates": args.updates}
                        load = os.getloadavg()[0]
                        r = {**spec, "busy": busy, "load": load, **figure(spec, busy)}
                        rows.append(r)
                        print(f"{trainer:14s} {threads:>7d} {'yes' if comp else 'no':>7s} "
                              f"{'busy' if busy else 'quiet':>7s} {r['steps_per_s']:>10,.0f} "
                              f"{r['update_ms']:>10,.0f} {r['first_update_s']:>15.1f} "
                              f"{load:>5.1f}  {r['ran_on']}", flush=True)
    return rows


if __name__ == "__main__":
    main()
