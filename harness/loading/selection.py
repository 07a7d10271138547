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
from typing import Iterable, Iterator, Sequence, TypeVar

from webnn_harness.loading.caseid import split_case_id
from webnn_harness.loading.cases import Case, CaseError, PendingCase, find_case_files, iter_entries, loaded

T = TypeVar("T", Case, CaseError, PendingCase)


class SelectionError(ValueError):
    """A selection that is malformed or holds nothing: one line, exit code 2."""


def check_ops(ops: Iterable[str] | None) -> None:
    """Every --op names a catalog operator; otherwise say which, and the likely spelling."""
    from webnn_harness.spec.catalog import operators

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


def _id_selected(item: Case | CaseError | PendingCase, ids: Sequence[str]) -> bool:
    for wanted in ids:
        file_id, name = split_case_id(wanted)
        if item.file == file_id and (not name or item.name == name):
            return True
    return False


class Selection:
    """The cases (and the cases that failed to load) a run takes, in load
    order, loaded a case at a time as the run asks for them (``load_next``,
    or iterating), so that workers compute the first batches while later
    files are still read (harness/api.py). Whether the selection is empty is
    known only once loading ends: ``first`` and ``finish`` raise the
    SelectionError then. A shard takes every count-th case in stable-id
    order, so the first ``load_next`` reads every file; but a case is loaded
    only when its shard or the filters need it (``iter_entries``)."""

    def __init__(
        self,
        case_paths: Sequence[str | Path],
        ops: Iterable[str] | None = None,
        name_filter: str | None = None,
        ids: Sequence[str] = (),
        shard: Shard | None = None,
        max_case_bytes: int | None = None,
    ):
        self.case_paths, self.ops, self.name_filter, self.ids, self.shard = \
            case_paths, list(ops or ()), name_filter, ids, shard
        check_ops(self.ops)
        compile_filter(name_filter)
        self.items: list[Case | CaseError] = []  # loaded so far
        self._sharded = False
        self._pending: Iterator[Case | CaseError | PendingCase] | None = iter_entries(
            case_paths, self.ops, name_filter, {split_case_id(i)[0] for i in ids} if ids else None, max_case_bytes)

    @property
    def finished(self) -> bool:
        return self._pending is None

    def load_next(self) -> bool:
        """Load until one more case is selected, or to the end: False once nothing is left to load."""
        if self._pending is None:
            return False
        if self.shard and not self._sharded:
            self._pending = iter(self._take_shard(list(self._pending)))
            self._sharded = True
        for item in self._pending:
            if not self.ids or _id_selected(item, self.ids):
                self.items.append(loaded(item))
                return True
        self._pending = None
        return False

    def _take_shard(self, entries: list[Case | CaseError | PendingCase]) -> list[Case | CaseError | PendingCase]:
        """This shard's entries, in load order, still unloaded where they were."""
        shard = self.shard
        if self.ids:
            entries = [c for c in entries if _id_selected(c, self.ids)]
        taken = {id(c) for c in shard.take(entries)}
        if entries and not taken:
            raise SelectionError(f"--shard {shard} selects nothing: the selection has only {len(entries)} "
                                 f"case{'s' if len(entries) != 1 else ''}")
        return [c for c in entries if id(c) in taken]

    def first(self) -> None:
        """Load until the selection holds a case; a SelectionError saying why when it never will."""
        while not self.items and self.load_next():
            pass
        if not self.items:
            raise SelectionError(_why_empty(self.case_paths, self.ops, self.name_filter, self.ids))

    def finish(self) -> list[Case | CaseError]:
        """Everything selected, loaded (a SelectionError when that is nothing)."""
        while self.load_next():
            pass
        self.first()
        return self.items

    def __iter__(self) -> Iterator[Case | CaseError]:
        """Every item, loading the rest as it is reached."""
        i = 0
        while True:
            if i < len(self.items):
                yield self.items[i]
                i += 1
            elif not self.load_next():
                return


@dataclass(frozen=True)
class CaseFilter:
    """What a run takes of its corpora: ``--op``, ``--filter``, ``--id``,
    ``--shard`` and the size limit (``--max-case-bytes``; None: the default)."""
    ops: tuple[str, ...] | None = None
    name_filter: str | None = None
    ids: tuple[str, ...] = ()
    shard: Shard | None = None
    max_case_bytes: int | None = None

    def selection(self, case_paths: Sequence[str | Path]) -> "Selection":
        return Selection(case_paths, self.ops, self.name_filter, self.ids, self.shard, self.max_case_bytes)


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
