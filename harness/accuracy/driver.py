"""``webnn-harness accuracy``: TOSA's dot-product compliance beside the WPT verdict.

For matmul, gemm, conv2d, convTranspose2d, reduceSum and reduceMean, in
float32 and float16, the cases of harness/accuracy/plans.py (TOSA's data sets
S0 to S5 at a few accumulation lengths) run on the backend through the run's
worker pool (same isolation, timeouts and backend options as ``run``). Each
worker judges a case the WPT way and applies the dot-product check
(harness/accuracy/compliance.py) to the same outputs. ``DIR/accuracy.jsonl``
gets one record per op x data type x data set x shape, written as each
completes; ``DIR/summary.json`` the header (backend, version, device,
settings, harness version, machine, date) and the counts.
"""
from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from webnn_harness import backends
from webnn_harness.backends.base import BackendError
from webnn_harness.accuracy import ACCURACY_FILE
from webnn_harness.accuracy.check import bound_kind
from webnn_harness.accuracy.datasets import DATA_SETS
from webnn_harness.accuracy.plans import DATA_TYPES, OPS, accuracy_case, plan
from webnn_harness.execution.pool import RunOptions, WorkerPool
from webnn_harness.verdict.record import Record
from webnn_harness.outputs.records import run_header
from webnn_harness.outputs.writing import Mode, OwnedFolder
from webnn_harness.files.writes import open_append, write_atomic


@dataclass(frozen=True)
class AccuracySettings:
    backend: str
    options: Mapping[str, str] = field(default_factory=dict)
    ops: tuple[str, ...] = ()  # empty: every op of plans.OPS
    data_types: tuple[str, ...] = DATA_TYPES
    data_sets: tuple[int, ...] = DATA_SETS
    timeout: float = 60.0  # per case, as run's --timeout
    workers: int = 1

    def to_json(self) -> dict:
        return {"backend": self.backend, "options": dict(self.options), "ops": list(self.ops or OPS),
                "dataTypes": list(self.data_types), "dataSets": list(self.data_sets), "timeout": self.timeout,
                "workers": self.workers}


def accuracy_record(record: Record, case) -> dict[str, Any]:
    """One line of accuracy.jsonl: the case's identity and sizes, the WPT
    verdict (status, budget, max error, slack) and the compliance check."""
    check = case.dot_product
    compliance = dict(record.compliance or {})  # DotProductCompliance.to_json(); none when nothing ran
    judged = record.to_json()
    return {
        "id": record.id, "op": case.graph.nodes[0].op, "dataType": case.graph.descs[case.graph.outputs[0]].data_type,
        "dataSet": f"S{check.data_set}", "shape": check.shape, "k": check.k, "ksb": check.ksb,
        "bound": bound_kind(case.graph.nodes[0].op),
        "operandShapes": {name: list(desc.shape) for name, desc in case.graph.descs.items()},
        "compliant": None, "failed": [], **{k: v for k, v in compliance.items() if k != "message"},
        "wpt": {"status": record.status, "metric": record.metric, "budget": record.budget,
                "maxError": judged["maxError"], "slack": judged["slack"]},
        "message": record.message or compliance.get("message", ""),
        "backend": record.backend,
    }


@dataclass
class AccuracyResult:
    records: list[dict]
    seconds: float
    summary_path: Path

    @property
    def counts(self) -> Counter:
        """compliant / non-compliant / not checked (the backend refused, crashed or timed out)."""
        return Counter(outcome(r) for r in self.records)

    @property
    def wpt_fails(self) -> int:
        """Cases WPT's budgets fail: the point of the check is which of them the error bound clears."""
        return sum(r["wpt"]["status"] == "fail" for r in self.records)

    @property
    def problems(self) -> list[dict]:
        """What the command exits 1 on: a case that does not comply, or one
        that was not checked for any reason but the backend refusing it."""
        return [r for r in self.records
                if r["compliant"] is False or (r["compliant"] is None and r["wpt"]["status"] not in NOT_PROBLEMS)]


NOT_PROBLEMS = ("unsupported", "skipped")


def outcome(line: Mapping[str, Any]) -> str:
    return {True: "compliant", False: "non-compliant"}.get(line["compliant"], "not checked")


def _write_summary(out: Path, info: Mapping, config: AccuracySettings, written: list[dict], planned: int,
                   seconds: float) -> Path:
    """Written when the run starts (``complete`` false) and again when it ends, as run's summary is."""
    doc = {**run_header(info), "kind": "accuracy", "settings": config.to_json(), "seconds": round(seconds, 3),
           "complete": len(written) == planned, "cases": planned, "counts": dict(Counter(outcome(r) for r in written))}
    return write_atomic(out / "summary.json", json.dumps(doc, indent=1, default=str) + "\n")


def accuracy(config: AccuracySettings, out: Path, on_record: Callable[[dict], None] | None = None,
             mode: Mode = "new") -> AccuracyResult:
    """Run every planned case of ``config`` and write ``out/accuracy.jsonl`` and ``out/summary.json``,
    the folder owned for the run (harness/outputs/writing.py: a folder holding an earlier accuracy is
    refused unless ``mode`` is "overwrite", any other output always)."""
    entries = plan(config.ops, config.data_types, config.data_sets)  # unknown ops: KeyError, before any work
    folder = OwnedFolder(Path(out), mode, kind="accuracy")
    folder.precheck()  # a usage mistake in --out, said before the backend starts
    try:
        backend = backends.create(config.backend, config.options)
    except ValueError as exc:  # an option the backend does not take (an external backend's own error)
        raise BackendError(str(exc)) from None
    info = backend.info().to_json()
    del backend
    with folder:
        return _accuracy(config, Path(out), entries, info, on_record)


def _accuracy(config: AccuracySettings, out: Path, entries, info: Mapping,
              on_record: Callable[[dict], None] | None) -> AccuracyResult:
    path = out / ACCURACY_FILE
    cases = {}
    for i, entry in enumerate(entries):
        case = accuracy_case(*entry, index=i)
        cases[case.id] = case
    pool = WorkerPool(config.backend, config.options, RunOptions(workers=config.workers, timeout=config.timeout), info)
    written: list[dict] = []
    started = time.monotonic()
    _write_summary(out, info, config, written, len(cases), 0.0)
    with open_append(path, truncate=True) as fh:
        def write(record: Record) -> None:
            line = accuracy_record(record, cases[record.id])
            fh.write(json.dumps(line, allow_nan=False, default=str) + "\n")
            fh.flush()
            written.append(line)
            if on_record:
                on_record(line)

        try:
            pool.run_cases(list(cases.values()), write)
        finally:
            pool.close()
            summary = _write_summary(out, info, config, written, len(cases), time.monotonic() - started)
    return AccuracyResult(written, time.monotonic() - started, summary)


__all__ = ["ACCURACY_FILE", "AccuracyResult", "AccuracySettings", "accuracy"]
