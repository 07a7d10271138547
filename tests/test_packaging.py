"""One import namespace: everything installs under `webnn_harness`."""
from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _setuptools_table() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_package_folder_is_listed_under_the_namespace():
    table = _setuptools_table()
    listed = set(table["packages"])
    found = set()
    for name, folder in table["package-dir"].items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            found.add(".".join([name, *rel.parts]))
    # A subpackage folder not listed in pyproject would be left out of the wheel.
    assert found <= listed, f"not listed in pyproject [tool.setuptools] packages: {sorted(found - listed)}"
    assert all(p == "webnn_harness" or p.startswith("webnn_harness.") for p in listed)


def test_a_folder_named_backends_in_the_working_directory_does_not_shadow_ours(tmp_path):
    # A user's repository with its own generic top-level folders.
    for name in ("backends", "reports", "cases", "harness"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("raise ImportError('the user\\'s own package')\n")
    out = subprocess.run([sys.executable, "-m", "webnn_harness", "backends"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "reference" in out.stdout


def _modules() -> dict[str, Path]:
    """Every module of the namespace, by dotted name (a package by its __init__)."""
    table = _setuptools_table()
    modules = {}
    for name, folder in table["package-dir"].items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join([name, *parts])] = path
    return modules


def _module_level_imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The namespace's modules that ``name`` imports when it is imported (the
    statements of its body, conditional ones included; not those inside functions)."""
    import ast

    def resolve(target: str) -> str | None:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        return target or None

    found = set()
    tree = ast.parse(path.read_text())
    body = [n for n in ast.walk(tree) if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]
    top = {id(n) for stmt in tree.body for n in ast.walk(stmt)} - {
        id(n) for stmt in ast.walk(tree) if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
        for n in ast.walk(stmt) if n is not stmt}
    for node in body:
        if id(node) not in top:
            continue
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            targets = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                       for a in node.names]
        else:
            continue
        found |= {t for t in map(resolve, (t for t in targets if t.startswith("webnn_harness"))) if t and t != name}
    return found


def test_the_package_top_holds_its_entry_points_and_the_stages_their_own_folders():
    # harness/ itself: cli, __main__, the library API, the pytest plugin, progress and the two import
    # paths the backend protocol documents; every stage of the data flow is a subpackage.
    top = sorted(p.name for p in (ROOT / "harness").glob("*.py"))
    assert len(top) <= 12, top
    for stage in ("spec", "loading", "verdict", "execution", "outputs", "probe", "bench", "fuzz"):
        assert (ROOT / "harness" / stage / "__init__.py").is_file(), stage
    # No two modules with one name for different things (a newcomer guesses the file from the feature).
    names = [p.stem for p in (ROOT / "harness").rglob("*.py") if p.stem != "__init__"]
    # One role in several stages: a command's driver (probe, fuzz, bench), what runs in a worker process
    # (cases, benchmarks), running on a Ray cluster (cases, benchmarks).
    allowed = {"driver", "worker", "ray_cluster"}
    repeated = {n for n in names if names.count(n) > 1} - allowed - {"graph", "dtypes"}  # the protocol's two paths
    assert not repeated, repeated


def test_no_module_level_import_circles():
    modules = _modules()
    graph = {name: _module_level_imports(name, path, modules) for name, path in modules.items()}
    # Tarjan's strongly connected components; any of more than one module is a circle.
    index, low, stack, on_stack, circles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert not circles, circles
