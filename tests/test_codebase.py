"""The layout rules of the codebase: a pure core, files and functions of readable size."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("president_env", "agents", "train", "benchmarks")
MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 80


def _sources() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def test_core_imports_no_rl_library() -> None:
    code = (
        "import sys, president_env.core; "
        "bad = [m for m in ('pettingzoo', 'gymnasium', 'torch') if m in sys.modules]; "
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"president_env.core loads {out.stdout.strip()}"


def test_package_root_reexports_lazily() -> None:
    code = (
        "import sys, president_env; assert 'pettingzoo' not in sys.modules; "
        "from president_env import env, Rules, VectorEnv, SingleAgentEnv; "
        "assert 'pettingzoo' in sys.modules; print(env.__module__, Rules.__module__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["president_env.aec", "president_env.core.rules"]


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_file_and_function_sizes(path: Path) -> None:
    text = path.read_text()
    n = text.count("\n")
    assert n <= MAX_FILE_LINES, f"{n} lines (at most {MAX_FILE_LINES})"
    long = [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(ast.parse(text))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines: {', '.join(long)}"
