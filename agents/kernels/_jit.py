"""The one decorator of the agents' kernels: ``njit(nogil=True)`` with numba's on-disk cache,
keyed on every source the kernels are compiled from, and without reference counting.

**Cache.** numba keys its cache on the file that defines a function only, but a kernel's
compiled code also holds the helpers it calls from the other modules of :mod:`agents.kernels`
(inlined or linked) and what it reads from the engine: the constants, :class:`RuleParam`, the
shared :func:`~president_env.core._kernels.take_cards`. :data:`SOURCES_HASH` digests the files
of this package and the engine's own digest (:data:`president_env.core._kernels.SOURCES_HASH`,
which covers those), and every kernel's cache index key carries it, so that any such edit
compiles the kernels afresh instead of loading a stale copy.

**Reference counting.** numba counts references to arrays (atomic operations) wherever an
array is bound to a helper's argument and it cannot prove the count unneeded: in the loop over
actions that costs more than the decisions themselves. The agents' functions allocate nothing
but their scratch, once per call, so they are compiled without reference counting (numba's
``_nrt=False``; every array they see is owned by the caller for the whole call). The few that
allocate say so, ``@kernel(allocates=True)``, and only allocate and call: numba refuses to
compile an allocation in a function without it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from numba import njit
from numba.core.caching import FunctionCache

from president_env.core._kernels import SOURCES_HASH as CORE_SOURCES_HASH

F = TypeVar("F", bound=Callable[..., Any])


def _sources_hash() -> str:
    h = hashlib.sha256(CORE_SOURCES_HASH.encode())
    for path in sorted(Path(__file__).resolve().parent.glob("*.py")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


SOURCES_HASH = _sources_hash()
"""Digest of the agents' kernel modules and of the engine sources they read."""


class _SourcesCache(FunctionCache):  # type: ignore[misc]
    """numba's function cache, with :data:`SOURCES_HASH` in every index key."""

    def _index_key(self, sig: Any, codegen: Any) -> tuple[Any, ...]:
        return (*super()._index_key(sig, codegen), SOURCES_HASH)


def kernel(fn: F | None = None, *, inline: str = "never", allocates: bool = False) -> Any:
    """``@kernel`` / ``@kernel(inline="always")`` / ``@kernel(allocates=True)``: a cached, nogil
    numba function whose cache follows all the sources above; reference counting only with
    ``allocates`` (see the module docstring)."""

    def wrap(f: F) -> F:
        options: dict[str, Any] = {"nogil": True, "inline": inline, "_nrt": allocates}
        dispatcher = njit(**options)(f)
        dispatcher._cache = _SourcesCache(f)  # what cache=True does, with our key
        return dispatcher  # type: ignore[no-any-return]

    return wrap if fn is None else wrap(fn)
