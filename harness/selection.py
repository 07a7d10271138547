"""Which cases a run takes: --op, --filter, --id, --shard; and no false green.

A selection that holds no case is a mistake (a misspelt operator, a filter
that matches nothing, an empty folder, more shards than cases), never a
passing run: it is a ``SelectionError`` saying which step emptied it.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence, TypeVar

from webnn_harness.caseid import split_case_id
from webnn_harness.cases import Case, CaseError, find_case_files, load_cases

T = TypeVar("T", Case, CaseError)


class SelectionError(ValueError):
    """A selection that is malformed or holds nothing: one line, exit code 2."""


def check_ops(ops: Iterable[str] | None) -> None:
    """Every --op names a catalog operator; otherwise say which, and the likely spelling."""
    from webnn_harness.catalog import operators

    known = list(operators())
    by_lower = {k.lower(): k for k in known}
    for op in ops or ():
        if op in known:
            continue
        guess = by_lower.get(op.lower().replace("_", "")) or next(
            iter(difflib.get_close_matches(op, known, n=1, cutoff=0.6)), None)
        hint = f" (did you mean {guess}?)" if guess else " (webnn-harness ops lists them)"
        raise SelectionError(f"--op {op}: no such operator{hint}")


def compile_filter(pattern: str | None) -> re.Pattern | None:
    if pattern is None:
        return None
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise SelectionError(f"--filter {pattern!r}: not a regular expression: {exc}") from None


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` of ``count`` (1-based, as written: ``--shard 2/4``)."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> "Shard":
        m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text or "")
        if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
            raise SelectionError(f"--shard {text!r}: expected I/N with 1 <= I <= N, e.g. 2/4")
        return cls(int(m.group(1)), int(m.group(2)))

    def take(self, items: Sequence[T]) -> list[T]:
        """Every count-th item in stable-id order, starting at index-1: the
        shards are disjoint, cover everything, differ in size by at most one,
        and do not depend on where the corpus is or the order files are found."""
        ordered = sorted(items, key=lambda c: (c.id, c.index))
        return [c for k, c in enumerate(ordered) if k % self.count == self.index - 1]

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def _id_selected(item: Case | CaseError, ids: Sequence[str]) -> bool:
    for wanted in ids:
        file_id, name = split_case_id(wanted)
        if item.file == file_id and (not name or item.name == name):
            return True
    return False


def select_cases(
    case_paths: Sequence[str | Path],
    ops: Iterable[str] | None = None,
    name_filter: str | None = None,
    ids: Sequence[str] = (),
    shard: Shard | None = None,
) -> list[Case | CaseError]:
    """The cases (and the cases that failed to load) a run takes, in load order."""
    ops = list(ops or ())
    check_ops(ops)
    compile_filter(name_filter)
    loaded = load_cases(case_paths, ops, name_filter, {split_case_id(i)[0] for i in ids} if ids else None)
    if ids:
        loaded = [c for c in loaded if _id_selected(c, ids)]
    if loaded and shard:
        taken = {id(c) for c in shard.take(loaded)}
        if not taken:
            raise SelectionError(f"--shard {shard} selects nothing: the selection has only {len(loaded)} "
                                 f"case{'s' if len(loaded) != 1 else ''}")
        loaded = [c for c in loaded if id(c) in taken]
    if not loaded:
        raise SelectionError(_why_empty(case_paths, ops, name_filter, ids))
    return loaded


def _why_empty(case_paths, ops, name_filter, ids) -> str:
    where = ", ".join(map(str, case_paths))
    files = find_case_files(case_paths)
    if not files:
        return f"no cases selected: no case files under {where}"
    steps = []
    if ops:
        steps.append("--op " + " --op ".join(ops))
    if name_filter is not None:
        steps.append(f"--filter {name_filter!r}")
    if ids:
        steps.append("--id " + " --id ".join(repr(i) for i in ids))
    if not steps:
        return f"no cases selected: the case files under {where} hold no cases"
    return f"no cases selected: no case under {where} matches {' and '.join(steps)}"
