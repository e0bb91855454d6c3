"""Shared pytest configuration: which tests are ``slow``.

``make test`` runs every test, in parallel (pytest-xdist: ``-n 2 --dist loadgroup``);
``make test-fast`` runs ``-m "not slow"``, the developer's set. A test is slow when it is a long
smoke run: a training script, a notebook or a command line run as a subprocess, a training run
in-process, or a long differential test.

The slow tests of other files are marked HERE, not in their files, so that the list is one place
and the files' owners need not change them: :data:`SLOW` holds patterns of node ids
(``fnmatch``, ``file::test`` without the parameters' brackets matching every parameter).
A file may also mark its own tests with ``@pytest.mark.slow`` (``tests/test_differential.py``
marks its random and pairwise option mixes). A pattern that matches no test function of its
file (say, after a rename) is reported as a warning, so the fast set does not silently grow.

Measured once, one process, warm numba cache (``--durations``): the training smoke runs take
4-8 s each, the notebooks 2-6 s, the command-line smoke runs 1.5 s, the in-process MaskablePPO
run 3.4 s; the random option mixes of the differential test about 1-2 s each.

Parallel runs and the numba cache: every worker loads the compiled kernels from numba's on-disk
cache (``cache=True``); numba writes each cache file to a temporary name and renames it, so two
workers compiling the same kernel at once both succeed and the last rename wins. Tests that must
share one process can be grouped with ``@pytest.mark.xdist_group(name)`` (``--dist loadgroup``).
"""

from __future__ import annotations

import ast
import fnmatch
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

SLOW: tuple[str, ...] = (
    "tests/test_train.py::test_*_smoke",  # ppo_pool, maskable_ppo, demo: subprocess training
    "tests/test_selfplay.py::test_selfplay_ppo_smoke",  # subprocess training
    "tests/test_notebooks.py::test_notebook_runs",  # every notebook, top to bottom
    "tests/test_tournament.py::test_*_cli_smoke*",  # tournament and play CLIs as subprocesses
    "tests/test_env.py::test_maskable_ppo_learns_without_wrapper",  # a short training run
)
"""Node ids (patterns) of the slow tests in files whose owners do not mark them themselves."""


def _is_slow(nodeid: str) -> bool:
    base = nodeid.split("[", 1)[0]  # every parameter of a test
    return any(fnmatch.fnmatchcase(base, pattern) for pattern in SLOW)


def _stale_patterns() -> list[str]:
    """Patterns that name no test function in their file."""
    stale = []
    for pattern in SLOW:
        rel, _, name = pattern.partition("::")
        path = ROOT / rel
        functions = []
        if path.exists():
            tree = ast.parse(path.read_text())
            functions = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
        if not fnmatch.filter(functions, name):
            stale.append(pattern)
    return stale


def pytest_configure(config: pytest.Config) -> None:
    stale = _stale_patterns()
    if stale:
        config.issue_config_time_warning(
            pytest.PytestConfigWarning(
                f"tests/conftest.py SLOW names no test: {stale} (renamed or removed?)"
            ),
            stacklevel=2,
        )


@pytest.hookimpl(tryfirst=True)  # before `-m "not slow"` deselects
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _is_slow(item.nodeid):
            item.add_marker(pytest.mark.slow)
