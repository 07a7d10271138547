"""The stage packages import one another in one direction only.

Every module of every stage package is read with ``ast`` (imports inside
functions count: a lazy import is still a dependency, it only runs later),
each import of ``webnn_harness.<stage>`` becomes an edge between stages, and a
cycle between two or more stages fails the test with the imports that make it.
"""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The stage a folder of the repository is, by the name it imports under (pyproject.toml's package-dir).
STAGES = {
    **{name: ROOT / "harness" / name for name in ("files", "spec", "loading", "verdict", "execution", "outputs", "probe",
                                                  "bench", "fuzz", "accuracy", "archive")},
    "reports": ROOT / "reports",
    "backends": ROOT / "backends",
}


def imported_modules(tree: ast.AST, package: str) -> list[str]:
    """Every module ``tree`` imports, absolute, wherever the import statement is."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the module's own package upwards
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            out.append(base)
            out += [f"{base}.{alias.name}" for alias in node.names]  # "from pkg import module"
    return out


def stage_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "webnn_harness" and parts[1] in STAGES else None


def stage_edges() -> dict[tuple[str, str], list[str]]:
    """(importing stage, imported stage) -> the files and modules that make the edge."""
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for stage, folder in STAGES.items():
        for path in sorted(folder.rglob("*.py")):
            package = ".".join(["webnn_harness", stage, *path.relative_to(folder).parent.parts])
            modules = imported_modules(ast.parse(path.read_text(encoding="utf-8")), package)
            for module in dict.fromkeys(m.rsplit(".", 1)[0] if m.rsplit(".", 1)[0] in modules else m
                                        for m in modules):  # "from a.b import c": a.b once, not also a.b.c
                target = stage_of(module)
                if target is not None and target != stage:
                    edges[(stage, target)].append(f"{path.relative_to(ROOT)} imports {module}")
    return edges


def cycles(edges) -> list[list[str]]:
    """The strongly connected groups of two or more stages (Tarjan's algorithm)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted({stage for edge in edges for stage in edge}):
        if node not in index:
            visit(node)
    return groups


def test_imports_inside_functions_and_relative_imports_are_edges():
    tree = ast.parse("def f():\n    from webnn_harness.reports import common\nfrom ..outputs import reading\n")
    modules = imported_modules(tree, "webnn_harness.archive")
    assert "webnn_harness.reports.common" in modules and "webnn_harness.outputs.reading" in modules


def test_a_cycle_is_found():
    assert cycles({("a", "b"): [], ("b", "c"): [], ("c", "a"): [], ("c", "d"): []}) == [["a", "b", "c"]]


def test_no_cycle_between_stage_packages():
    edges = stage_edges()
    found = cycles(edges)
    explained = [f"{' <-> '.join(group)}:\n  " + "\n  ".join(
        line for (a, b), lines in sorted(edges.items()) if a in group and b in group for line in lines)
        for group in found]
    assert not found, "import cycles between stage packages:\n" + "\n".join(explained)
