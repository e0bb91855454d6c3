"""The agents kernels' ``@kernel`` decorator (:func:`president_env.core.jit.kernel_decorator`).

Its cache key digests the files of this package and the engine's own digest (which covers the
constants, :class:`RuleParam` and the shared :func:`~president_env.core.take_cards`). The
kernels are compiled without reference counting: numba counts references to arrays (atomic
operations) wherever an array is bound to a helper's argument, and in the loop over actions that
costs more than the decisions themselves. The agents' functions allocate nothing but their
scratch, once per call; the few that allocate say so, ``@kernel(allocates=True)``.
"""

from __future__ import annotations

from pathlib import Path

from president_env.core import KERNEL_SOURCES_HASH
from president_env.core.jit import kernel_decorator, sources_hash

SOURCES_HASH = sources_hash(sorted(Path(__file__).resolve().parent.glob("*.py")), KERNEL_SOURCES_HASH)
"""Digest of the agents' kernel modules and of the engine sources they read."""

kernel = kernel_decorator(SOURCES_HASH, refcounting=False)
