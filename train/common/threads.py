"""More than one core for the PPO trainers, without spin-waiting: ``--threads N`` (N > 1; 0 =
one per core).

torch's own intra-op threads (OpenMP) split every operation and meet at a barrier after it;
with another CPU-bound process on a core, a barrier waits for a descheduled thread, and the
update of this small network ran 5-17 times slower on 2 threads than on 1 (``OMP_WAIT_POLICY=
PASSIVE`` halved the loss, no more). So torch keeps one thread, always, and :class:`Shards`
splits the work itself, in coarse pieces that meet once per minibatch:

* the update: each minibatch is cut into ``N`` fixed slices of rows; each slice's loss
  (its share of the minibatch's mean) is differentiated on its own
  (``torch.autograd.grad``), and the gradients are added in slice order;
* acting: the batch of observations is cut into ``N`` slices of rows, each slice's forward
  runs on its own, the outputs are joined (the sampling stays one call on the whole batch).

The slices run either on ``N`` threads (the caller and ``N - 1`` pool threads, each with one
torch thread; waiting is on a lock, which sleeps) or one after another on the calling thread.
The numbers are the same either way: the slices are fixed by ``N`` and each operation runs
on one torch thread. A :class:`Choice` per kind of work (update, acting) keeps the faster way:
it starts on the threads, and now and then runs ``BLOCK`` calls the other way (blocks, not
single calls: a pool thread woken after sleeping runs first for a while, so its cost under
contention shows only once the threads compete for the CPU) and changes if their median time
per row beats the chosen way's last ``BLOCK`` calls (the threads by ``MARGIN``). It looks
after ``FIRST`` calls, and after twice as many each time the choice holds, up to ``LAST`` (so at most
``BLOCK / LAST``, about 1%, of the calls run the slower way once settled). A change is printed
on stderr (``--threads 2: update now on 1 thread (61 ms per 1000 rows on 2 threads, 38 ms
on 1)``). With the other core busy the work falls back to one thread; on a quiet machine it
keeps two.

Results: a seeded run repeats exactly for the same ``--threads`` value (on a machine with the
same core count for ``--threads 0``), however the choices fell. Different ``N`` give different
slices, so their runs differ in the last bits from the first update on; ``--threads 1`` is the
plain unsliced path, unchanged. On a GPU there are no slices (:func:`shards_for`: ``None``).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from agents.policy import PolicyNet
from president_env.extras import missing_extra

try:
    import torch
except ImportError:
    raise missing_extra("torch", "train", "train.common.threads") from None

T = TypeVar("T")
BLOCK = 6
"""Calls run the other way in one look at it (the first ``SETTLE`` of them not timed)."""
SETTLE = 2
"""Calls of a look not timed: a thread that slept gets the CPU first for a while (the
scheduler's credit to sleepers), so the first calls after a change flatter it."""
FIRST, LAST = 16, 512
"""Calls between looks the other way: ``FIRST`` at the start and after a change, then twice
as many after each look that keeps the choice, up to ``LAST``."""
MARGIN = 0.25
"""The threads must be this much faster (per row) than one thread to be chosen; one thread is
chosen as soon as it is faster at all. When the two ways are about equal (the other core busy)
one thread wins, with no switching back and forth on noise: each switch to the threads, and
each look at them, costs while the threads are the slower way. Measured with the other core
busy (``benchmarks/bench_train.py``, 16 updates): 0.05 both ways gave 0.88-0.96x of one thread
with up to 10 changes in a run; 0.10 gave 0.83-1.08x, the 0.83x run ending on the threads after
3 changes. On a quiet machine the threads' update took 0.53-0.65 of one thread's time (0.62-0.81
with ``--compile``), inside this margin."""


def resolve_threads(threads: int) -> int:
    """The thread count ``--threads`` asks for: ``threads``, or one per core for 0."""
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 0:
        raise ValueError(f"threads: expected an int >= 0 (0 = one per core), got {threads!r}")
    return threads or max(1, os.cpu_count() or 1)


def shards_for(threads: int, device: torch.device) -> Shards | None:
    """The :class:`Shards` of ``--threads threads`` on ``device``: ``None`` for one thread
    (the plain path) or a GPU; torch itself is set to one thread either way."""
    torch.set_num_threads(1)
    n = resolve_threads(threads)
    return Shards(n) if n > 1 and device.type == "cpu" else None


class Choice:
    """Whether one kind of work runs on its threads or serially (see the module docstring);
    ``log`` gets a line when the choice changes."""

    def __init__(self, name: str, threads: int, log: Callable[[str], None] | None = None) -> None:
        self.name, self.threads = name, threads
        self.parallel = True
        self.calls = 0
        self.switches = 0
        self.interval = FIRST
        self.next_look = FIRST
        self._log = log if log is not None else _stderr
        self._chosen: deque[float] = deque(maxlen=BLOCK)  # the chosen way's last calls
        self._other: list[float] = []

    def _looking(self) -> bool:
        return self.next_look <= self.calls < self.next_look + BLOCK

    def pick(self) -> bool:
        """Run the next call on the threads?"""
        return self.parallel != self._looking()

    def record(self, parallel: bool, seconds_per_row: float) -> None:
        """The time of the call just made with ``pick()``'s answer ``parallel``."""
        looking, i = self._looking(), self.calls - self.next_look
        self.calls += 1
        if not looking:
            self._chosen.append(seconds_per_row)
        elif i >= SETTLE:
            self._other.append(seconds_per_row)
        if looking and i == BLOCK - 1:
            self._decide()

    def _decide(self) -> None:
        other, chosen = statistics.median(self._other), statistics.median(self._chosen)
        self._other = []
        if other < (1 - (0.0 if self.parallel else MARGIN)) * chosen:
            self.parallel = not self.parallel
            self.switches += 1
            self.interval = FIRST
            self._chosen.clear()
            on, off = (other, chosen) if self.parallel else (chosen, other)
            where = f"{self.threads} threads" if self.parallel else "1 thread"
            self._log(f"--threads {self.threads}: {self.name} now on {where} "
                      f"({1e6 * on:.3g} ms per 1000 rows on {self.threads} threads, "
                      f"{1e6 * off:.3g} ms on 1)")
        else:
            self.interval = min(2 * self.interval, LAST)
        self.next_look = self.calls + self.interval


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class Shards:
    """``n`` fixed slices of the rows of each piece of work, run on ``n`` threads or one (see
    the module docstring). ``update`` and ``acting`` are the two kinds' :class:`Choice`."""

    def __init__(self, n: int, log: Callable[[str], None] | None = None) -> None:
        if n < 2:
            raise ValueError(f"Shards: expected n >= 2 slices, got {n}")
        self.n = n
        self._pool = ThreadPoolExecutor(n - 1, thread_name_prefix="train-shard",
                                        initializer=torch.set_num_threads, initargs=(1,))
        self.update = Choice("update", n, log)
        self.acting = Choice("acting", n, log)

    def slices(self, rows: int) -> list[slice]:
        """The ``n`` slices of ``rows`` rows (the first ``rows % n`` one row longer)."""
        size, extra = divmod(rows, self.n)
        bounds = [i * size + min(i, extra) for i in range(self.n + 1)]
        return [slice(bounds[i], bounds[i + 1]) for i in range(self.n)]

    def map(self, fn: Callable[[slice], T], rows: int, choice: Choice) -> list[T]:
        """``fn`` over the slices of ``rows`` rows, in slice order: on the threads or serially
        as ``choice`` picks, timed for it."""
        parts = self.slices(rows)
        parallel = choice.pick()
        t0 = time.perf_counter()
        if parallel:
            futures = [self._pool.submit(fn, s) for s in parts[1:]]
            out = [fn(parts[0]), *(f.result() for f in futures)]
        else:
            out = [fn(s) for s in parts]
        choice.record(parallel, (time.perf_counter() - t0) / max(rows, 1))
        return out

    def forward(
        self, net: PolicyNet, obs: torch.Tensor, mask: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """``net(obs, mask)`` computed slice by slice (``acting``'s choice), joined."""
        def part(s: slice) -> tuple[torch.Tensor, torch.Tensor]:
            with torch.no_grad():  # grad mode is per thread
                return net(obs[s], mask[s])

        parts = self.map(part, len(obs), self.acting)
        return torch.cat([p[0] for p in parts]), torch.cat([p[1] for p in parts])

    def close(self) -> None:
        """Stop the pool threads."""
        self._pool.shutdown(wait=True)


def add_in_order(parts: Sequence[Sequence[torch.Tensor]]) -> list[torch.Tensor]:
    """Element-wise sums of the slices' gradient lists, added in slice order."""
    total = [g.clone() for g in parts[0]]
    for part in parts[1:]:
        for acc, g in zip(total, part):
            acc.add_(g)
    return total
