"""The engine kernels' ``@kernel`` decorator (:func:`president_env.core.jit.kernel_decorator`),
its cache keyed on the kernel modules, the constants, the observation blocks and
:class:`~president_env.core.rules.RuleParam`."""

from __future__ import annotations

from pathlib import Path

from president_env.core.jit import kernel_decorator, sources_hash
from president_env.core.rules import RuleParam

_CORE = Path(__file__).resolve().parent.parent

SOURCES_HASH = sources_hash(
    [*sorted((_CORE / "_kernels").glob("*.py")), _CORE / "constants.py", _CORE / "observe.py"],
    extra=repr(sorted((m.name, int(m)) for m in RuleParam)),
)
"""Digest of the kernel modules, the constants, the observation blocks and :class:`RuleParam`."""

kernel = kernel_decorator(SOURCES_HASH)
