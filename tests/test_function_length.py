"""No function of the harness, its backends or its report pages is longer than 80 lines
(the developers' guide: "functions under 80 lines"). Every file is read with ``ast``; a
function's length is from its ``def`` (decorators left out) to its last line, nested
functions counted in their parent too, so one cannot hide a long body inside another."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("harness", "backends", "reports")
LIMIT = 80


def long_functions(folder: Path, limit: int = LIMIT, root: Path = ROOT) -> list[str]:
    """``path:line name (N lines)`` for every function under ``folder`` longer than ``limit`` lines."""
    out = []
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > limit:
                    out.append(f"{path.relative_to(root)}:{node.lineno} {node.name} ({lines} lines)")
    return out


def test_no_function_is_longer_than_80_lines():
    found = [f for folder in FOLDERS for f in long_functions(ROOT / folder)]
    assert not found, "functions over 80 lines (split them):\n" + "\n".join(found)


def test_the_check_finds_a_long_function(tmp_path):
    # The check itself: a function of 81 lines is found, one of 80 is not.
    body = "\n".join(f"    x{i} = {i}" for i in range(79))
    (tmp_path / "long.py").write_text(f"def long():\n{body}\n    return 0\n")
    (tmp_path / "short.py").write_text(f"def short():\n{body}\n")
    assert [f.split(" ")[1] for f in long_functions(tmp_path, root=tmp_path)] == ["long"]
