"""The one decorator of every engine kernel: ``njit(cache=True, nogil=True)`` with a cache key
that follows every source the kernels are compiled from.

numba keys its on-disk cache on the file that defines a function only, but a kernel's compiled
code also holds what it calls or reads from other modules: the helpers of the other kernel
modules (inlined or linked), the constants of :mod:`president_env.core.constants`, the
observation blocks of :mod:`president_env.core.observe` and the members of
:class:`~president_env.core.rules.RuleParam`. An edit of any of them would otherwise leave a
stale compiled copy on disk. :data:`SOURCES_HASH` digests them all, and every kernel's cache
index key carries it, so any such edit compiles the kernels afresh.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypeVar

from numba import njit
from numba.core.caching import FunctionCache

from president_env.core.rules import RuleParam

F = TypeVar("F", bound=Callable[..., Any])

_CORE = Path(__file__).resolve().parent.parent


def _sources_hash() -> str:
    h = hashlib.sha256()
    files = sorted((_CORE / "_kernels").glob("*.py"))
    for path in [*files, _CORE / "constants.py", _CORE / "observe.py"]:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    h.update(repr(sorted((m.name, int(m)) for m in RuleParam)).encode())
    return h.hexdigest()[:16]


SOURCES_HASH = _sources_hash()
"""Digest of the kernel modules, the constants, the observation blocks and :class:`RuleParam`."""


class _SourcesCache(FunctionCache):  # type: ignore[misc]
    """numba's function cache, with :data:`SOURCES_HASH` in every index key."""

    def _index_key(self, sig: Any, codegen: Any) -> tuple[Any, ...]:
        return (*super()._index_key(sig, codegen), SOURCES_HASH)


def kernel(fn: F | None = None, *, inline: Literal["never", "always"] = "never") -> Any:
    """``@kernel`` / ``@kernel(inline="always")``: a cached, nogil numba function whose cache
    follows all the engine's kernel sources (see the module docstring)."""

    def wrap(f: F) -> Any:
        options: dict[str, Any] = {"nogil": True, "inline": inline}
        dispatcher: Any = njit(**options)(f)
        dispatcher._cache = _SourcesCache(f)  # what cache=True does, with our key
        return dispatcher

    return wrap if fn is None else wrap(fn)
