"""Both cores: a batched kernel run over chunks of games on several threads.

Every batched kernel takes a range of games ``lo, hi`` and is compiled ``nogil``, so Python
threads run chunks of one batch truly in parallel. Games are independent and each one's random
draws come from its own stream, so the result is bit for bit the same for any number of
threads or chunks.

Why Python threads on ``nogil`` kernels rather than numba's ``parallel=True``: numba's threading
layer is one per process and chosen once. Here there is no TBB; the OpenMP layer spins while it
waits (with another CPU-bound process on the other core, a two-thread kernel then runs several
times slower than one thread, and ``OMP_WAIT_POLICY`` cannot be set reliably once torch has
loaded its own ``libgomp``); the ``workqueue`` layer waits passively but aborts the process when
two threads launch parallel kernels at once. A thread pool whose workers block on a queue waits
passively, is safe from any number of calling threads, and costs ~10-20 us per call, which
the chunk size keeps under a few percent (measured in benchmarks/bench.py, ``--contention``).

Threads: :func:`default_threads` (the ``PRESIDENT_THREADS`` environment variable, else the
CPUs this process may run on, at most :data:`MAX_DEFAULT_THREADS`); a batch uses
``min(threads, B // MIN_CHUNK)`` threads, so small batches (and ``B = 1``) stay on the calling
thread. Chunks are handed out as threads become free (``CHUNKS_PER_THREAD`` each), so a thread
slowed down by another process takes fewer of them.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

MIN_CHUNK = 512
"""Fewest games per thread: below it a thread costs more than it saves."""
CHUNKS_PER_THREAD = 2
"""Chunks per thread of a parallel call (handed out as threads become free)."""
MAX_DEFAULT_THREADS = 8
"""The default uses at most this many threads (the kernels are bound by per-core work)."""
ENV_VAR = "PRESIDENT_THREADS"

_lock = threading.Lock()
_executor: ThreadPoolExecutor | None = None
_workers = 0
_pid = 0  # the process that made the pool (a forked child makes its own: threads do not fork)


def check_threads(threads: Any) -> int:
    """``threads`` as a positive int (None: :func:`default_threads`); a clear error otherwise."""
    if threads is None:
        return default_threads()
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be a positive integer or None, got {threads!r}")
    return threads


def default_threads() -> int:
    """``PRESIDENT_THREADS`` if set, else the CPUs this process may use (at most
    :data:`MAX_DEFAULT_THREADS`)."""
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        if not env.isdigit() or int(env) < 1:
            raise ValueError(f"{ENV_VAR} must be a positive integer, got {env!r}")
        return int(env)
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, MAX_DEFAULT_THREADS))


def _pool(workers: int) -> ThreadPoolExecutor:
    """The process's worker threads (at least ``workers``; grown when asked for more)."""
    global _executor, _workers, _pid
    with _lock:
        forked = _pid != os.getpid()
        if _executor is None or _workers < workers or forked:
            old = _executor
            _executor = ThreadPoolExecutor(workers, thread_name_prefix="president-engine")
            _workers, _pid = workers, os.getpid()
            if old is not None and not forked:
                old.shutdown(wait=False)
        return _executor


def chunks(n: int, threads: int) -> list[tuple[int, int]]:
    """The ranges ``(lo, hi)`` that a batch of ``n`` games is run in with ``threads`` threads."""
    k = max(1, min(threads, n // MIN_CHUNK))
    if k == 1:
        return [(0, n)]
    parts = k * CHUNKS_PER_THREAD
    bounds = [n * i // parts for i in range(parts + 1)]
    return list(zip(bounds[:-1], bounds[1:]))


def run(fn: Callable[..., Any], args: tuple[Any, ...], n: int, threads: int) -> None:
    """``fn(*args, lo, hi)`` over the chunks of ``n`` games, on up to ``threads`` threads (the
    calling one included)."""
    parts = chunks(n, threads)
    if len(parts) == 1:
        fn(*args, 0, n)
        return
    todo = iter(parts)  # shared: each thread takes the next chunk when it is free

    def work() -> None:
        for lo, hi in todo:
            fn(*args, lo, hi)

    helpers = min(threads, len(parts)) - 1
    pool = _pool(helpers)
    futures: list[Future[None]] = [pool.submit(work) for _ in range(helpers)]
    try:
        work()
    finally:
        for f in futures:
            f.result()
