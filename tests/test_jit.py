"""The kernels' decorator (:mod:`president_env.core.jit`): a process that compiles a kernel says
so once on stderr; one that loads the kernels from the on-disk cache, or compiles a plain numba
function, says nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from president_env.core.jit import COMPILE_NOTICE

ROOT = Path(__file__).resolve().parent.parent

KERNELS = """
from numba import njit
from president_env.core.jit import kernel_decorator

kernel = kernel_decorator("test-jit-notice")


@kernel
def add(x):
    return x + 1


@kernel
def twice(x):
    return add(x) * 2


@njit
def plain(x):
    return x - 1
"""


def _run(folder: Path, code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": f"{folder}{os.pathsep}{ROOT}"}
    env.pop("NUMBA_CACHE_DIR", None)  # the cache beside the module, in folder
    return subprocess.run([sys.executable, "-c", code], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=120)


def test_a_process_that_compiles_kernels_says_so_once(tmp_path: Path) -> None:
    (tmp_path / "jit_notice_kernels.py").write_text(KERNELS)
    plain = _run(tmp_path, "import jit_notice_kernels as k; print(k.plain(3))")
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.split() == ["2"] and COMPILE_NOTICE not in plain.stderr

    calls = "import jit_notice_kernels as k; print(k.twice(1), k.add(2), k.twice(1.5))"
    first = _run(tmp_path, calls)  # three compiles (two kernels, two types of twice)
    assert first.returncode == 0, first.stderr
    assert first.stdout.split() == ["4", "3", "5.0"]
    assert first.stderr.count(COMPILE_NOTICE) == 1

    again = _run(tmp_path, calls)  # every kernel from the on-disk cache
    assert again.returncode == 0, again.stderr
    assert again.stdout == first.stdout and COMPILE_NOTICE not in again.stderr



def test_the_one_game_path_types_the_rule_vector_as_the_batched_calls() -> None:
    """The one-game calls (``OneGame``, the AEC env's path, and ``Engine.advance``) hand the
    kernels the rule vector read-only, as the batched calls do: a writable one is another numba
    type, and every kernel it reaches would compile a second copy on first use."""
    import numpy as np
    from numba import njit

    from president_env.core import Engine, OneGame
    from president_env.core._kernels._one import _rules_at, advance_at
    from president_env.core.rules import Rules

    eng = Engine(Rules.preset("standard"))
    game = OneGame(eng, eng.init([0]))
    assert game._spec is not None
    rp = njit(lambda spec: _rules_at(spec))(game._spec)
    assert not rp.flags.writeable and not eng._rp.flags.writeable
    np.testing.assert_array_equal(rp, eng._rp)

    st = eng.init([1])
    mask, obs = np.zeros(eng.num_actions, np.int8), np.zeros(eng.obs_size, np.float32)
    eng.advance(st, -1, mask, obs)
    assert advance_at.signatures
    assert all(not sig[0].mutable for sig in advance_at.signatures), advance_at.signatures
