"""Accuracy folders (written by ``webnn-harness accuracy``) -> the accuracy page model.

The folder is read by harness/outputs/accuracy_records.py (as every output kind is read in
harness/outputs): a bad line becomes one warning naming the folder, line and field while the other lines
are shown.
"""
from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from webnn_harness.outputs.accuracy_records import AccuracyCase, read_accuracy_folder
from webnn_harness.reports.common import BackendId, BackendIds, format_error

@dataclass(frozen=True)
class AccuracyCell:
    """One op x data type of one backend: how many of its cases comply."""

    op: str
    data_type: str
    cases: int
    compliant: int
    non_compliant: int
    not_checked: int
    wpt_failures: int  # cases WPT's per-element budget fails
    worst_use: float | None  # the largest share of a compliance limit any case used


@dataclass(frozen=True)
class AccuracyRun:
    backend: BackendId
    backend_info: Mapping[str, Any]
    harness_version: str
    date: str
    machine: Mapping[str, Any]
    source: str  # the folder's name only: pages are published
    complete: bool
    cells: tuple[AccuracyCell, ...]
    cases: tuple[AccuracyCase, ...]

    @property
    def non_compliant(self) -> tuple[AccuracyCase, ...]:
        return tuple(c for c in self.cases if c.compliant is False)


@dataclass(frozen=True)
class AccuracyModel:
    runs: tuple[AccuracyRun, ...]
    warnings: tuple[str, ...] = ()


def accuracy_cells(cases: Sequence[AccuracyCase]) -> tuple[AccuracyCell, ...]:
    grouped: dict[tuple[str, str], list[AccuracyCase]] = defaultdict(list)
    for c in cases:
        grouped[(c.op, c.data_type)].append(c)
    cells = []
    for (op, dt), group in grouped.items():
        uses = [c.use for c in group if c.use is not None]
        cells.append(AccuracyCell(op, dt, len(group), sum(c.compliant is True for c in group),
                                  sum(c.compliant is False for c in group), sum(c.compliant is None for c in group),
                                  sum(c.wpt_status == "fail" for c in group), max(uses) if uses else None))
    return tuple(cells)


def build_accuracy(folders: Sequence[Path], ids: BackendIds | None = None) -> AccuracyModel:
    ids = ids or BackendIds()
    runs, warnings = [], []
    for folder in folders:
        read = read_accuracy_folder(folder)
        summary, cases = read.summary, read.cases
        warnings.extend(read.warnings)
        by_backend: dict[str, tuple[Mapping[str, Any], list[AccuracyCase]]] = {}
        for backend, case in cases:
            key = json.dumps(backend, sort_keys=True, default=str)
            by_backend.setdefault(key, (backend, []))[1].append(case)
        for key, (backend, group) in by_backend.items():
            settings = json.dumps(backend.get("settings", {}), sort_keys=True, default=str)
            bid = ids.get(str(backend.get("name", "?")), str(backend.get("version", "")), str(backend.get("device", "")),
                          settings, folder.name)
            runs.append(AccuracyRun(
                backend=bid, backend_info=backend, harness_version=str(summary.get("harnessVersion", "")),
                date=str(summary.get("date", "")),
                machine=summary.get("machine") if isinstance(summary.get("machine"), dict) else {},
                source=folder.name, complete=summary.get("complete") is True,
                cells=accuracy_cells(group), cases=tuple(group)))
    return AccuracyModel(tuple(runs), tuple(warnings))


def format_use(value: float | None) -> str:
    return "" if value is None else format_error(value)
