"""The one numba cache helper: ``njit(nogil=True)`` kernels whose on-disk cache follows every
source they are compiled from.

numba keys its on-disk cache on the file that defines a function only, but a kernel's compiled
code also holds what it calls or reads from other modules (helpers inlined or linked, constants,
``IntEnum`` members). An edit of any of them would otherwise leave a stale compiled copy on disk.
:func:`sources_hash` digests a list of files (and a parent digest), and every kernel made by
:func:`kernel_decorator` carries that digest in its cache index key, so any such edit compiles
the kernels afresh.

The engine's kernels (:mod:`president_env.core._kernels`) and the agents' (:mod:`agents.kernels`)
each make their decorator here from the digest of their own sources.

A process that compiles one of these kernels (not one loaded from the cache) says so once on
stderr (:data:`COMPILE_NOTICE`): on a clean cache the first game waits minutes for the compiler
(the README's quick start: 73 s on one core here, then 0.7 s), which should not look like a hang.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Literal, TypeVar

from numba import njit
from numba.core import event
from numba.core.caching import FunctionCache

F = TypeVar("F", bound=Callable[..., Any])


def sources_hash(paths: Iterable[Path], parent: str = "", extra: str = "") -> str:
    """A 16-hex-digit digest of ``parent``, each file's name and bytes in order, and ``extra``."""
    h = hashlib.sha256(parent.encode())
    for path in paths:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    h.update(extra.encode())
    return h.hexdigest()[:16]


class _SourcesCache(FunctionCache):  # type: ignore[misc]
    """numba's function cache, with a sources digest in every index key."""

    def __init__(self, py_func: Any, key: str) -> None:
        super().__init__(py_func)
        self._sources_key = key

    def _index_key(self, sig: Any, codegen: Any) -> tuple[Any, ...]:
        return (*super()._index_key(sig, codegen), self._sources_key)


COMPILE_NOTICE = ("president_env: compiling the numba kernels for this machine (on first use this "
                  "can take minutes; later runs load them from the on-disk cache)")
"""The line a process writes to stderr before it first compiles a kernel."""


class _CompileNotice(event.Listener):  # type: ignore[misc]
    """Writes :data:`COMPILE_NOTICE` at the first compile of a kernel of this module's
    decorator in the process (numba raises the event on a cache miss only)."""

    said = False

    def on_start(self, ev: event.Event) -> None:
        dispatcher = ev.data.get("dispatcher") if isinstance(ev.data, dict) else None
        if not self.said and isinstance(getattr(dispatcher, "_cache", None), _SourcesCache):
            self.said = True
            print(COMPILE_NOTICE, file=sys.stderr, flush=True)

    def on_end(self, ev: event.Event) -> None:
        pass


_NOTICE = _CompileNotice()
event.register("numba:compile", _NOTICE)


def kernel_decorator(key: str, *, refcounting: bool = True) -> Callable[..., Any]:
    """The ``@kernel`` decorator of one family of kernels whose sources digest to ``key``.

    ``@kernel`` / ``@kernel(inline="always")``: a cached, nogil numba function. With
    ``refcounting=False`` the kernels are compiled without numba's reference counting
    (``_nrt=False``: every array they see is owned by the caller for the whole call), except
    those marked ``@kernel(allocates=True)``, which numba requires for an allocation.
    """

    def kernel(
        fn: F | None = None,
        *,
        inline: Literal["never", "always"] = "never",
        allocates: bool = False,
    ) -> Any:
        def wrap(f: F) -> Any:
            options: dict[str, Any] = {"nogil": True, "inline": inline}
            if not refcounting:
                options["_nrt"] = allocates
            dispatcher: Any = njit(**options)(f)
            dispatcher._cache = _SourcesCache(f, key)  # what cache=True does, with our key
            return dispatcher

        return wrap if fn is None else wrap(fn)

    return kernel
