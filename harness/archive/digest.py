"""What the archive's history and changes pages need of one entry, read once.

An entry never changes (its id is a hash of its files), so its digest is
computed once with the readers every command shares (harness/outputs/kinds.py)
and kept in a cache folder the site builder names (beside the site), keyed by
entry id and digest format: adding one entry to an archive of hundreds reads
one entry's files. The site builder keeps its other per-entry results there
too, with ``read_cached``/``write_cached``/``content_key`` (reports/archive.py:
the columns' model pieces, the changes of version pairs, history steps, page keys).

Digest of a run: per backend, every case's status by stable id and per-op
(passed, tested) counts; of a probe: its opSupportLimits as read and the
backend's own declared table (None where it declares none); of a
bench: each record's status, median and sample times; of a fuzz run: its
findings by id (stable for a root cause, harness/fuzz/findings.py).
"""
from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from webnn_harness.archive.store import Archive, ArchiveError, Entry
from webnn_harness.outputs.bench_records import read_bench_folder
from webnn_harness.outputs.kinds import DECLARED_SUFFIX, LIMITS_SUFFIX, read_fuzz_folder
from webnn_harness.files.reading import ReadError, read_json
from webnn_harness.verdict.record import Record
from webnn_harness.outputs.rerun_commands import strip_local_paths
from webnn_harness.outputs.run_folder import backend_groups, read_run_folder
from webnn_harness.files.writes import write_atomic

DIGEST_FORMAT = 4  # 2: the hash of the entry as its files describe it ("entry"), schema-checked when read; 3: a bench's digest holds its machine noise; 4: a probe's digest has its backend's declared table


def _text(message) -> str:
    """A message as the pages show it: no local path (the cache lies in the published site folder), and short."""
    return strip_local_paths(str(message or ""))[:200]


@dataclass(frozen=True)
class _BackendGroup:
    """One backend's records of a run, as the report's run groups carry them (the report passes its own
    reader, which remembers what it read for the columns)."""

    backend: Mapping[str, Any]
    records: list[Record]


def _backend_groups(folder: Path) -> list[_BackendGroup]:
    return [_BackendGroup(b, records) for b, records in backend_groups(read_run_folder(folder))]


def _run_digest(folder: Path, read_run) -> dict:
    backends = []
    for g in read_run(folder):
        ops: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for r in g.records:
            if r.status == "skipped":
                continue
            for op in dict.fromkeys(r.ops):
                ops[op][0] += r.status == "pass"
                ops[op][1] += 1
        b = g.backend
        backends.append({"name": str(b.get("name") or "?"), "version": str(b.get("version") or ""),
                         "device": str(b.get("device") or ""), "info": {"version": b.get("version")},
                         "cases": {r.id: [r.status, None if r.known_failure is None else _text(r.known_failure),
                                          _text(r.detail)] for r in g.records},
                         "ops": dict(ops)})
    return {"backends": backends}


@dataclass(frozen=True)
class CaseOutcome:
    """What ``run_diff.diff_backend`` reads of a record, as a run digest keeps it."""

    status: str
    known_failure: str | None
    detail: str


def case_outcomes(backend_digest: Mapping[str, Any]) -> dict[str, CaseOutcome]:
    return {cid: CaseOutcome(str(v[0]), v[1], str(v[2])) for cid, v in backend_digest["cases"].items()}


def _probe_digest(folder: Path) -> dict:
    """The measured limits and, where the backend declares its own (chromium's opSupportLimits()), those."""
    limits = next((read_json(p) for p in sorted(folder.glob(f"*{LIMITS_SUFFIX}"))), {})
    declared = next((read_json(p) for p in sorted(folder.glob(f"*-{DECLARED_SUFFIX}"))), None)
    return {"limits": limits if isinstance(limits, Mapping) else {},
            "declared": dict(declared) if isinstance(declared, Mapping) else None}


def _bench_digest(folder: Path) -> dict:
    from webnn_harness.bench.regressions import noise_cv

    out = []
    bench = read_bench_folder(folder)
    for _, raw in bench.records:
        backend = raw.get("backend") if isinstance(raw.get("backend"), Mapping) else {}
        latency = raw.get("latency") if isinstance(raw.get("latency"), Mapping) else {}
        times = latency.get("times") if isinstance(latency.get("times"), list) else []
        out.append({"benchmark": str(raw.get("benchmark")), "variant": str(raw.get("variant")),
                    "backend": str(backend.get("name") or "?"), "op": str(raw.get("op") or ""),
                    "kind": str(raw.get("kind") or ""), "status": str(raw.get("status")),
                    "message": _text(raw.get("message")),
                    "median": latency.get("median") if isinstance(latency.get("median"), (int, float)) else None,
                    "times": [t for t in times if isinstance(t, (int, float))]})
    return {"records": out, "noiseCv": noise_cv(bench.summary)}  # the machine noise the bench measured


def _fuzz_digest(folder: Path) -> dict:
    summary = read_fuzz_folder(folder).summary
    findings = {}
    for f in summary.get("findings") or () if isinstance(summary, Mapping) else ():
        if isinstance(f, Mapping) and isinstance(f.get("id"), str):
            findings[f["id"]] = {"status": str(f.get("status") or "fail"), "ops": [str(o) for o in f.get("ops") or ()],
                                 "cause": str(f.get("cause") or "backend"), "message": _text(f.get("message"))}
    return {"findings": findings}


DIGESTERS = {"probe": _probe_digest, "bench": _bench_digest, "fuzz": _fuzz_digest}


def read_cached(cache: Path | None, name: str, kind: str | None = None) -> Any:
    """The JSON document kept in ``cache`` under ``name`` (checked against the schema ``kind``), or None
    (none kept, damaged, or of the wrong shape: computed again). The cache lies in the site folder,
    which anyone may edit: it is read as any untrusted file is (harness/files/reading.py)."""
    path = None if cache is None else cache / name
    if path is None or path.is_symlink() or not path.is_file():
        return None
    try:
        return read_json(path, kind=kind)
    except ReadError:
        return None


def write_cached(cache: Path | None, name: str, doc: Any) -> None:
    """Keep ``doc`` in ``cache`` under ``name``, whole or not at all (two builds may share a site folder);
    ``cache`` was checked to be reached through no symbolic link (reports/sitefolder.py)."""
    if cache is None:
        return
    cache.mkdir(parents=True, exist_ok=True)
    write_atomic(cache / name, json.dumps(doc, separators=(",", ":")))  # dumps: json.dump never uses the C encoder


def prune_cached(cache: Path | None, prefix: str, keep: set[str]) -> None:
    """Remove the cache files named ``prefix...json`` that are not in ``keep``."""
    for path in cache.glob(f"{prefix}*.json") if cache is not None and cache.is_dir() and not cache.is_symlink() else ():
        if path.name not in keep:
            path.unlink(missing_ok=True)


def content_key(*parts: Any) -> str:
    """A cache file's name part for what a cached result depends on (entry ids, settings, formats);
    the harness version too, so that a release computing it differently never reads an older result."""
    from webnn_harness import __version__

    doc = json.dumps([__version__, *parts], separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(doc.encode()).hexdigest()[:24]


def entry_digest(archive: Archive, entry: Entry, cache: Path | None, read_run=None,
                 read: set[str] | None = None) -> dict:
    """The entry's digest, from ``cache`` when it holds one, else computed (and kept there).
    ``read_run``: a reader of (backend, records) groups, such as the report's that remembers what it read;
    by default the run folder's (harness/outputs/run_folder.py). ``read`` collects the ids of the
    entries whose files were read."""
    name = f"{entry.id}-{DIGEST_FORMAT}.json"
    doc = read_cached(cache, name, f"archive-digest#{entry.kind}")
    if isinstance(doc, dict) and doc.get("id") == entry.id:
        return doc
    folder = archive.entries_dir / entry.id
    if read is not None:
        read.add(entry.id)
    try:
        described = {"sha256": _description_hash(archive.description_from_files(entry))}
    except ArchiveError as exc:
        described = {"problem": _text(exc)}
    if entry.kind == "run":
        doc = {"id": entry.id, "entry": described, **_run_digest(folder, read_run or _backend_groups)}
    else:
        doc = {"id": entry.id, "entry": described, **DIGESTERS[entry.kind](folder)}
    write_cached(cache, name, doc)
    return doc


def _description_hash(described: Mapping[str, Any]) -> str:
    """What the digest keeps of an entry's description: its hash (a label may name a local folder, and the
    cache names none)."""
    return hashlib.sha256(json.dumps(described, sort_keys=True).encode("utf-8", "surrogatepass")).hexdigest()


def description_problem(entry: Entry, digest: Mapping[str, Any]) -> str:
    """"" when ``entry.json`` says of the entry what its files say, else why not: an edited backend or
    date would put the entry's records in another column than theirs."""
    described = digest.get("entry") or {}
    if described.get("sha256") == _description_hash(entry.described()):
        return ""
    return described.get("problem") or f"entry {entry.id}: its entry.json was edited: it does not describe its files"
