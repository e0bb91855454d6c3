"""Shared pytest configuration: which tests are ``slow``; the numba warm-up of CI.

``make test`` runs every test but the ``long`` ones, in parallel (pytest-xdist: ``-n 2 --dist
loadgroup``); ``make test-fast`` runs ``-m "not slow and not long"``, the developer's set;
``make test-long`` runs ``-m long`` only: the long statistical and load runs (the 1,000-game
record round trips, the 50-game web load test) and the other tables of sweeps that ``make test``
runs at fewer tables, each the long twin of a short seeded run of the same check that ``make
test`` keeps (``pytest.param(..., marks=pytest.mark.long)``). A test is slow when it is a long
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
share one process could be grouped with ``@pytest.mark.xdist_group(name)`` (``--dist
loadgroup``), but under pytest 9.2 that grouping silently does nothing (pytest-dev/pytest-xdist
#1386): a result several tests read is made once under a file lock in the run's shared temporary
folder instead (``tests/test_lookahead.py::recipe_run``). On a clean clone the cache is empty
and both workers would compile the same kernels at once (minutes of both CPUs): ``.ci/run``
first runs the two parts of :func:`warm_numba_cache` in two processes (``python
tests/conftest.py --warm engine`` and ``--warm agents``) beside the RLlib venv's install and
the lint.
"""

from __future__ import annotations

import ast
import fnmatch
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest

if TYPE_CHECKING:
    from president_env.core.rules import Rules

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


def warm_numba_cache(part: str = "all") -> None:
    """Compile the numba kernels once, in this one process, into numba's on-disk cache.

    On a clean clone every kernel is compiled on first use; the pytest-xdist workers would each
    compile the same kernels at the same time (minutes of both CPUs). ``.ci/run`` runs this
    first, beside the RLlib venv's install, so that the workers load the kernels from the cache.
    Its two parts compile mostly different kernels and may run at once, in two processes
    (``python tests/conftest.py --warm engine`` and ``... --warm agents``):

    * ``engine``: the one-game calls (:func:`_warm_one_game_paths`) and a few moves of every
      preset through the AEC env (the kernels of one game at a time: 82 s of one CPU here);
    * ``agents``: the batched engine's step and random play (:func:`_warm_batched_paths`), a
      few random-legal games of every preset at two table sizes (every check of
      ``check_engine``), a few deals between the rule-based agents and a deal with the expert
      (118 s). The batched calls were once in ``engine`` (140 s), which compiled them beside
      ``agents``, which compiles them too.

    What it misses is compiled where it is used.
    """
    from president_env import env as make_env
    from president_env.core.rules import PRESET_PLAYERS, PRESETS, Rules
    from president_env.testing import check_engine
    from train.eval.tournament import run_tournament

    if part in ("all", "engine"):
        _warm_one_game_paths(Rules.preset("standard"))
        for preset in PRESETS:
            game = make_env(preset=preset)
            game.reset(seed=0)
            for _ in game.agent_iter(max_iter=50):
                obs, _, done, cut, _ = game.last()
                game.step(None if done or cut else int(np.flatnonzero(obs["action_mask"])[0]))
    if part in ("all", "agents"):
        _warm_batched_paths(Rules.preset("standard"))
        for preset in PRESETS:
            lo, hi = PRESET_PLAYERS[preset]
            for players in sorted({max(lo, 4), min(hi, 6)}):
                rules = Rules.preset(preset, num_players=players)
                check_engine(rules, games=2, batch=2, singles=1)
                seats = {name: name for name in ("easy", "normal", "hard", "kit")}
                seats.update({f"hard{p}": "hard" for p in range(4, players)})
                run_tournament(seats, rules, num_deals=2, progress=False, ratings=False)
        run_tournament({name: name for name in ("expert", "hard", "normal", "easy")},
                       Rules.preset("standard", num_players=4), num_deals=1, progress=False,
                       ratings=False)


def _warm_one_game_paths(rules: Rules) -> None:
    """The engine's one-game calls, each by its first calls (the state's arrays one by one)
    and its later ones (their address vector): :meth:`Engine.advance`, :class:`OneGame` with
    its restart (the kernels' types do not depend on the rules: one preset compiles them for
    all)."""
    from president_env.core import Engine, OneGame

    eng = Engine(rules)
    st = eng.init([0])
    mask, obs = np.zeros(eng.num_actions, np.int8), np.zeros(eng.obs_size, np.float32)
    cur = eng.advance(st, -1, mask, obs)
    for _ in range(6):
        if cur >= 0:
            cur = eng.advance(st, int(np.flatnonzero(mask)[0]), mask, obs)
    game = OneGame(eng, eng.init([2]))
    game.step(int(np.flatnonzero(game.mask)[0]))
    game.restart(3)


def _warm_batched_paths(rules: Rules) -> None:
    """The batched engine's checked step and :meth:`Engine.play_random` (one preset compiles
    them for all, as above)."""
    from president_env.core import Engine

    eng = Engine(rules)
    checked = eng.init([1])
    for _ in range(6):
        legal = eng.legal_action_mask(checked)[0]
        eng.step_inplace(checked, [int(np.flatnonzero(legal)[0])])
    eng.play_random(eng.init(np.arange(4)), 300, np.random.default_rng(0))


if __name__ == "__main__":
    import sys

    args = sys.argv[1:]
    if not args or args[0] != "--warm" or len(args) > 2 or args[1:] not in (
            [], ["all"], ["engine"], ["agents"]):
        sys.exit("usage: python tests/conftest.py --warm [all|engine|agents]  (compile the numba "
                 "kernels once)")
    warm_numba_cache(args[1] if len(args) > 1 else "all")
