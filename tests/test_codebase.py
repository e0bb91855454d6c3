"""The layout rules of the codebase: a pure core, no import circle, public names across packages,
registration in any import order, files and functions of readable size."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("president_env", "agents", "apps", "train", "benchmarks")
MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 80
CORE_MAY_IMPORT = {"numpy", "numba", "president_env"}


def _sources() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(p): p for p in _sources()}


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """Ids of the nodes under ``if TYPE_CHECKING:`` (imports for the type checker only)."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return skip


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    """Every import of a file, at any depth (``TYPE_CHECKING`` aside), as (module, names),
    relative imports resolved."""
    tree = ast.parse(path.read_text())
    skip = _type_checking_nodes(tree)
    mod = _module(path)
    package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    out: list[tuple[str, list[str]]] = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            out.append((base, [a.name for a in node.names]))
    return out


def _target(name: str) -> str | None:
    """The project module an import name loads (the longest prefix that is one)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def import_graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports (``from pkg import submodule`` counts the
    submodule)."""
    graph: dict[str, set[str]] = {}
    for mod, path in MODULES.items():
        edges: set[str] = set()
        for base, names in _imports(path):
            for name in names or [""]:
                full = f"{base}.{name}" if name else base
                target = full if full in MODULES else _target(base)
                if target and target != mod:
                    edges.add(target)
        graph[mod] = edges
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_cycle_finder_finds_a_circle() -> None:
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle() -> None:
    assert import_cycles(import_graph()) == []


def _unit(module: str) -> str:
    """The package an import belongs to: ``president_env.<subpackage>``, the root modules of
    ``president_env``, or a top-level package."""
    parts = module.split(".")
    if parts[0] == "president_env" and len(parts) > 1 and (ROOT / "president_env" / parts[1]).is_dir():
        return ".".join(parts[:2])
    return parts[0]


def test_no_private_name_across_packages() -> None:
    bad = []
    for mod, path in MODULES.items():
        for base, names in _imports(path):
            if base.split(".")[0] not in PACKAGES or _unit(base) == _unit(mod):
                continue
            private = [p for p in base.split(".") if p.startswith("_")]
            private += [n for n in names if n.startswith("_")]
            if private:
                bad.append(f"{mod} imports {base} {names}")
    assert bad == []


def test_core_imports_only_numpy_and_numba() -> None:
    bad = [
        f"{mod}: {base}"
        for mod, path in MODULES.items() if mod.startswith("president_env.core")
        for base, _ in _imports(path)
        if base.split(".")[0] not in CORE_MAY_IMPORT | set(sys.stdlib_module_names)
        or (base.startswith("president_env") and not base.startswith("president_env.core"))
    ]
    assert bad == []


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_core_plays_without_any_rl_library() -> None:
    code = (
        "import sys\n"
        "for m in ('gymnasium', 'pettingzoo', 'torch', 'PIL'): sys.modules[m] = None\n"
        "from president_env.core import Engine, Rules\n"
        "e = Engine(Rules.preset('daifugo')); s = e.init([1, 2])\n"
        "import numpy as np; p = e.play_random(s, 2000, np.random.default_rng(0), reset=False)\n"
        "assert s.terminated.all()\n"
        "print(sorted(m for m in ('gymnasium', 'pettingzoo', 'torch') if sys.modules.get(m)))"
    )
    assert _run(code) == "[]"


def test_package_root_reexports_lazily() -> None:
    code = (
        "import sys, president_env; assert 'pettingzoo' not in sys.modules; "
        "from president_env import env, Rules, VectorEnv, SingleAgentEnv; "
        "assert 'pettingzoo' in sys.modules; print(env.__module__, Rules.__module__)"
    )
    assert _run(code).split() == ["president_env.envs.aec", "president_env.core.rules"]


@pytest.mark.parametrize("first", ["president_env", "gymnasium"])
def test_gymnasium_id_in_any_import_order(first: str) -> None:
    second = "gymnasium" if first == "president_env" else "president_env"
    code = (
        f"import {first}, {second}\n"
        "gymnasium.register_envs(president_env)\n"
        "env = gymnasium.make('President-v0', preset='cardverse')\n"
        "obs, info = env.reset(seed=0); print(env.unwrapped.rules.preset_name)"
    )
    assert _run(code) == "cardverse"


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
