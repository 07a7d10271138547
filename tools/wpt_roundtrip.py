"""An import-wpt output against a corpus of the same files, case by case: names, graphs, expected
values. Prints one line per file, then one per case that differs, with the first path where it does.

    python tools/wpt_roundtrip.py IMPORT_DIR CORPUS_DIR [CORPUS_DIR ...]

A file is matched by name, or by its snake_case name (servo's scatterND.https.any.js is
our scatter_nd.json). Numbers compare as float64 (WPT's literals and the corpus's are the same doubles); a case the
import has and the corpus lacks, or the other way round, is said by name.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path


def first_difference(a, b, path: str = "") -> str | None:
    """The first path where ``a`` and ``b`` differ, with both values; None where they are equal."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{path}/{key}: only in {'import' if key in a else 'corpus'}"
            found = first_difference(a[key], b[key], f"{path}/{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items in the import, {len(b)} in the corpus"
        for i, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{path}/{i}")
            if found:
                return found
        return None
    same = (a == b and type(a) is type(b)) or (
        isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool)
        and not isinstance(b, bool) and float(a) == float(b))
    return None if same else f"{path}: import {json.dumps(a)}, corpus {json.dumps(b)}"


def snake_case(name: str) -> str:
    """servo's scatterND.json as our corpora name it: scatter_nd.json."""
    return re.sub(r"(?<=[a-z0-9])([A-Z]+)", lambda m: "_" + m.group(1).lower(), name)


def compare_file(imported: dict, corpus: dict) -> list[str]:
    lines = []
    mine = {t["name"]: t for t in imported["tests"]}
    theirs = {t["name"]: t for t in corpus["tests"]}
    for name in mine.keys() - theirs.keys():
        lines.append(f"  only in the import: {name}")
    for name in theirs.keys() - mine.keys():
        lines.append(f"  only in the corpus: {name}")
    for name in mine.keys() & theirs.keys():
        found = first_difference(mine[name]["graph"], theirs[name]["graph"], "graph")
        if found:
            lines.append(f"  {name}: {found}")
    return sorted(lines)


def main(argv: list[str]) -> int:
    import_dir, corpora = Path(argv[0]), [Path(p) for p in argv[1:]]
    for path in sorted(import_dir.glob("*.json")):
        if path.name == "INDEX.json" or path.name.startswith("."):
            continue
        matches = [c / name for c in corpora for name in (path.name, snake_case(path.name)) if (c / name).is_file()]
        imported = json.loads(path.read_text())
        if not matches:
            print(f"{path.name}: {len(imported['tests'])} cases; not in the corpora")
            continue
        corpus = json.loads(matches[0].read_text())
        lines = compare_file(imported, corpus)
        print(f"{path.name}: {len(imported['tests'])} cases imported, {len(corpus['tests'])} in {matches[0]}; "
              f"{'equal' if not lines else f'{len(lines)} differences'}")
        print(f"  tolerance: import {imported.get('toleranceFunctions')}; corpus fileTolerance "
              f"{corpus.get('fileTolerance')}")
        for line in lines:
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
