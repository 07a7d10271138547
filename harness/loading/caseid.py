"""Stable case identities: the corpus, the path inside it, and the case name.

A case's id does not depend on where the corpus lives or how the harness is
installed, so CI history, expectations, diffs and JUnit class names survive a
moved checkout, and published pages carry no local paths:

    wpt/relu.json::relu float32 4D tensor        (``--cases ../shared/wpt``)
    cases/elementwise/relu.json::relu int8 ...   (the bundled corpus, however installed)

The corpus is named by the folder given to ``--cases`` (for a single file, by
the folder it sits in); the bundled corpus is always ``cases``, the name of its
folder in the repository, whether it is installed in site-packages as
``webnn_harness/corpus`` or used from a checkout.
"""
from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

BUNDLED_CORPUS = "cases"
SEPARATOR = "::"


def case_id(file_id: str, name: str) -> str:
    return f"{file_id}{SEPARATOR}{name}"


def split_case_id(cid: str) -> tuple[str, str]:
    """(file id, case name); the name is empty for an id that names a whole file."""
    file_id, _, name = cid.partition(SEPARATOR)
    return file_id, name


def corpus_of(cid: str) -> str:
    """A case id's corpus: the first folder of its file id (wpt, wpt-extra, cases); "" for a file given alone."""
    file_id = split_case_id(cid)[0]
    return file_id.split("/", 1)[0] if "/" in file_id else ""


def _is_within(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
        return True
    except ValueError:
        return False


def corpus_root(given: Path, bundled: Path) -> tuple[str, Path]:
    """(corpus name, root folder) for a path given to ``--cases``."""
    resolved, bundled = given.resolve(), bundled.resolve()
    if _is_within(resolved, bundled):
        return BUNDLED_CORPUS, bundled
    root = resolved if resolved.is_dir() else resolved.parent
    return root.name or "corpus", root


def file_id(path: Path, corpus: str, root: Path) -> str:
    """``corpus/relative/path.json`` for a case file under ``root``; a symbolic link that loops is named
    where it was found (reading it then fails alone, as a case error, and the cases beside it run)."""
    try:
        return f"{corpus}/{path.resolve().relative_to(root).as_posix()}"
    except (RuntimeError, OSError):  # RuntimeError: pathlib's "Symlink loop" (Python < 3.13)
        try:
            return f"{corpus}/{path.absolute().relative_to(root).as_posix()}"
        except ValueError:
            return f"{corpus}/{path.name}"


# Records written before ids existed hold the path as given or installed
# (".venv/lib/python3.11/site-packages/cases/elementwise/relu.json",
# "/work/shared/wpt/abs.json"). Reading them, the id is recovered: from the last
# "cases" (or an installed "webnn_harness/corpus") folder on, else the file and
# the folder it sits in, which is how a flat corpus such as WPT is named.
_BUNDLED_TAIL = re.compile(r"(?:^|/)(?:cases|webnn_harness/corpus)/(?P<rest>(?:(?!cases/).)*)$")


def legacy_file_id(path: str) -> str:
    posix = PurePosixPath(path.replace("\\", "/")).as_posix()
    m = _BUNDLED_TAIL.search(posix)
    if m and "/" in m.group("rest"):  # the bundled corpus is one folder per family
        return f"{BUNDLED_CORPUS}/{m.group('rest')}"
    parts = PurePosixPath(posix).parts
    return "/".join(parts[-2:]) if len(parts) >= 2 else posix


def id_matches_file(pattern: str, fid: str) -> bool:
    """An expectation's ``file`` names a file id or a tail of it on folder
    boundaries: "wpt/relu.json", "relu.json" and "elementwise/relu.json" all
    name their files, "elu.json" does not name relu.json."""
    return fid == pattern or fid.endswith("/" + pattern)
