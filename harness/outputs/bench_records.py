"""One bench result (one benchmark x variant x backend) and its JSON form,
exactly the bench output contract's field names."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from webnn_harness.files.reading import ReadError, read_json, read_lines
from webnn_harness.outputs.kind_files import BENCH_FILE  # noqa: F401 - the kind's file, named once

STATUSES = ("ok", "wrong", "unsupported", "error", "crash", "timeout")
BENCH_RECORD_SCHEMA, BENCH_SUMMARY_SCHEMA = "bench-record", "bench-summary"  # harness/schema/<name>.schema.json


@dataclass(frozen=True)
class BenchRecord:
    benchmark: str
    suite: str
    kind: str
    variant: str
    title: str
    status: str
    backend: Mapping[str, Any]
    op: str | None = None
    data_type: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    message: str | None = None
    build_seconds: float | None = None
    first_run_seconds: float | None = None
    latency: Mapping[str, Any] | None = None
    flops: int | None = None
    bytes: int | None = None
    transfer_bytes: int | None = None
    artifact: str | None = None
    artifacts: tuple[str, ...] = ()  # every file saved (a per-op variant saves one model per op)
    verification: Mapping[str, Any] | None = None
    published: Mapping[str, Any] | None = None
    # the 1-minute load average before and after timing: a busy machine
    # (load above its core count) explains a wide spread
    load_average: tuple[float, float] | None = None
    build_settings: Mapping[str, Any] | None = None  # chosen per build (ORT: the opset), see backends/base.py
    profile: Mapping[str, Any] | None = None  # bench --profile: node times (harness/bench/profile.py)

    def to_json(self) -> dict:
        return {
            "benchmark": self.benchmark, "suite": self.suite, "kind": self.kind, "variant": self.variant,
            "title": self.title, "op": self.op, "dataType": self.data_type, "params": dict(self.params),
            "status": self.status, "message": self.message, "backend": dict(self.backend),
            "buildSeconds": self.build_seconds, "firstRunSeconds": self.first_run_seconds,
            "latency": dict(self.latency) if self.latency is not None else None,
            "flops": self.flops, "bytes": self.bytes, "transferBytes": self.transfer_bytes,
            "artifact": self.artifact, "artifacts": list(self.artifacts),
            "verification": dict(self.verification) if self.verification is not None else None,
            "published": dict(self.published) if self.published is not None else None,
            "loadAverage": list(self.load_average) if self.load_average is not None else None,
            "buildSettings": dict(self.build_settings) if self.build_settings is not None else None,
            "profile": dict(self.profile) if self.profile is not None else None,
        }


@dataclass(frozen=True)
class BenchFolder:
    """A bench folder as read back (diff, bench --baseline, report)."""

    path: Path
    summary: Mapping[str, Any]  # {} for a bench that wrote none
    records: tuple[tuple[int, dict], ...]  # (line number in bench.jsonl, record)
    problems: tuple[str, ...]  # lines skipped, "FILE: line N: why"


def read_bench_folder(folder: str | Path, on_problem: Callable[[str], object] | None = None) -> BenchFolder:
    """Every record of ``folder``/bench.jsonl that reads (harness/schema/bench-record.schema.json), the rest
    skipped and given to ``on_problem``, as every command skips a bad line; a ReadError (a ValueError, one
    line) for a folder that is not a bench or whose summary.json cannot be read."""
    folder = Path(folder)
    path = folder / BENCH_FILE
    if not path.is_file():
        raise ReadError(f"{folder}: not a bench folder (no bench.jsonl)")
    read = read_lines(path, dict, kind=BENCH_RECORD_SCHEMA, numbered=True)
    if not read.items and read.problems:
        raise ReadError(read.problems[0])  # nothing of it is a bench record: not ours
    summary_path = folder / "summary.json"
    summary = read_json(summary_path, kind=BENCH_SUMMARY_SCHEMA) if summary_path.exists() else {}
    for problem in read.problems if on_problem else ():
        on_problem(problem)
    return BenchFolder(folder, summary, read.items, read.problems)
