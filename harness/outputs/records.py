"""Result records and summaries: data in, JSON out.

``results.jsonl`` gets one record per case x backend, written and flushed as
each completes, so an interrupted run keeps everything already done.
``summary.json`` holds per-backend counts and the run's header.
"""
from __future__ import annotations

import datetime as _dt
import json
import platform
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from webnn_harness import __version__
from webnn_harness.verdict.record import STATUSES, Record
from webnn_harness.files.writes import open_append, write_atomic

def run_header(backend_info: Mapping[str, Any] | None = None) -> dict:
    # The CPU model and usable cores as the bench records them (bench/machine.py), so that a run,
    # a probe and a bench of one machine describe it alike (archive/store.machine_text); its CPU
    # features and the settings in force that change kernels (ONEDNN_MAX_CPU_ISA, ...), since the
    # machine is part of the configuration (issue #47).
    from webnn_harness.cpu import MachineFacts, cpu_model, usable_cores

    return {
        "harness": "webnn-harness",
        "harnessVersion": __version__,
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": {
            "platform": platform.platform(),
            "machine": platform.machine(),
            "processor": platform.processor() or platform.machine(),
            "python": platform.python_version(),
            "cpu": cpu_model(),
            "cores": usable_cores(),
            **MachineFacts.here().to_json(),
        },
        **({"backend": dict(backend_info)} if backend_info else {}),
    }


@dataclass
class BackendTally:
    backend: Mapping[str, Any]
    counts: Counter = field(default_factory=Counter)
    required: Counter = field(default_factory=Counter)
    optional: Counter = field(default_factory=Counter)
    known_failures: int = 0
    counting_against: int = 0
    seconds: float = 0.0
    # of ``seconds``, those the run's own process spent loading cases while
    # this backend's workers ran (the first backend of a streamed run)
    loading_seconds: float = 0.0

    def add(self, record: Record) -> None:
        self.counts[record.status] += 1
        (self.required if record.required else self.optional)[record.status] += 1
        self.known_failures += record.known_failure_seen
        self.counting_against += record.counts_against

    def to_json(self) -> dict:
        return {
            "backend": dict(self.backend),
            "total": sum(self.counts.values()),
            "counts": {s: self.counts.get(s, 0) for s in STATUSES},
            "required": {s: self.required.get(s, 0) for s in STATUSES},
            "optional": {s: self.optional.get(s, 0) for s in STATUSES},
            "knownFailures": self.known_failures,
            "requiredProblems": self.counting_against,
            "seconds": round(self.seconds, 3),
            "loadingSeconds": round(self.loading_seconds, 3),
        }


class ResultWriter:
    """Appends records to results.jsonl as they come (flushed line by line)."""

    def __init__(self, out_dir: Path, append: bool = False):
        out_dir.mkdir(parents=True, exist_ok=True)
        self.path = out_dir / "results.jsonl"
        self._fh = open_append(self.path, truncate=not append)  # never through a symbolic link

    def write(self, record: Record) -> None:
        self._fh.write(json.dumps(record.to_json(), allow_nan=False, default=str) + "\n")
        self._fh.flush()

    def close(self) -> None:
        self._fh.close()


def write_summary(out_dir: Path, tallies: Iterable[BackendTally], extra: Mapping[str, Any]) -> Path:
    path = out_dir / "summary.json"
    doc = {**run_header(), "backends": [t.to_json() for t in tallies], **extra}
    return write_atomic(path, json.dumps(doc, indent=2, default=str) + "\n")
