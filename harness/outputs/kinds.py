"""Every kind of output folder, one entry each (``KINDS``): the files it
writes, the file that tells the kind in a folder, the schema of each file, its
typed reader and its header (which backends, on what machine, when, by which
harness version).

Every command that meets an output folder decides its kind here:
``OwnedFolder`` (harness/outputs/writing.py) what it may replace, ``report``
(reports/model.py) which page family reads it, ``archive add``
(harness/archive/store.py) what it stores and with which header, ``diff``
and ``bench --baseline`` whether a folder is a bench (``holds``); ``merge``,
``diff`` and ``junit`` read runs with the run entry's reader. A new kind of
output is one entry.

Readers are the ones every command shares (harness/files/reading.py:
bounded, schema-checked, one-line ``ReadError``); the pages build their model
on top of them (reports/).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from webnn_harness.outputs.accuracy_records import AccuracyFolder, read_accuracy_folder
from webnn_harness.outputs.bench_records import (BENCH_RECORD_SCHEMA, BENCH_SUMMARY_SCHEMA, BenchFolder,
                                                 read_bench_folder)
from webnn_harness.outputs.limits_file import limits_problem
from webnn_harness.files.reading import ReadError, read_json
from webnn_harness.outputs.run_folder import (RUN_RECORD_SCHEMA, RUN_SUMMARY_SCHEMA, RunFolder,
                                              backend_groups, read_run_folder)
from webnn_harness.outputs.kind_files import (ACCURACY_FILE, ARCHIVE_MARKER, BENCH_FILE, FUZZ_CASES, FUZZ_DETAILS,  # noqa: F401 - the kinds' names
                                              KIND_FILES, PROBE_SUFFIX, RESULTS, SUMMARY, folder_kind_by_files)
from webnn_harness.outputs.writing import REPORT_MANIFEST

FUZZ_SUMMARY_SCHEMA = "fuzz-summary"  # harness/schema/<name>.schema.json; "#finding": one finding's details
LIMITS_SUFFIX = "-opSupportLimits.json"
# A backend's own declared table beside its probe (chromium: the context's opSupportLimits()); not
# *-opSupportLimits.json, which is read as a probe.
DECLARED_SUFFIX = "opSupportLimits.declared.json"
HEADER_SUFFIX = "-opSupportLimits.header.json"


@dataclass(frozen=True)
class OutputHeader:
    """Who made an output: its backends (each a mapping with name, version, device), the machine as
    recorded, the date (ISO 8601), its label and the harness version."""

    backends: tuple[Mapping[str, Any], ...]
    machine: Any
    date: str
    label: str
    harness_version: str


@dataclass(frozen=True)
class OutputKind:
    name: str  # a key of KIND_FILES (outputs/kind_files.py): the files it writes and its marker
    schemas: Mapping[str, str] = field(default_factory=dict)  # file -> harness/schema/<kind>.schema.json
    read: Callable[[Path], Any] | None = None  # folder -> what the kind's reader makes of it
    header: Callable[[Any], OutputHeader] | None = None  # what ``read`` returned -> its header
    archived: bool = False  # ``archive add`` keeps it

    @property
    def files(self) -> tuple[str, ...]:
        """What the kind writes in its folder (``--overwrite`` removes exactly these)."""
        return KIND_FILES[self.name].files

    @property
    def marker(self) -> str:
        """The file whose presence says a folder holds this kind ("" where no one file does)."""
        return KIND_FILES[self.name].marker


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


# --------------------------------------------------------------------------- run


def run_header(run: RunFolder) -> OutputHeader:
    s = run.summary
    return OutputHeader(tuple(backend for backend, _ in backend_groups(run)), s.get("machine"),
                        str(s.get("date") or ""), str(s.get("label") or ""), str(s.get("harnessVersion") or ""))


# --------------------------------------------------------------------------- bench


def bench_header(bench: BenchFolder) -> OutputHeader:
    head = _mapping(bench.summary.get("header"))
    backends = {json.dumps(_mapping(r.get("backend")), sort_keys=True, default=str): _mapping(r.get("backend"))
                for _, r in bench.records}
    return OutputHeader(tuple(backends.values()), head.get("machine"), str(head.get("date") or ""),
                        str(bench.summary.get("suite") or ""), str(head.get("harnessVersion") or ""))


# --------------------------------------------------------------------------- fuzz


@dataclass(frozen=True)
class FuzzFolder:
    path: Path
    summary: Mapping[str, Any]  # summary.json: the run header, "kind": "fuzz", the findings

    def finding_files(self) -> tuple[str, ...]:
        """Each finding's minimal case and details, as names relative to the folder."""
        return tuple(f"{sub}/{p.name}" for sub in (FUZZ_CASES, FUZZ_DETAILS)
                     for p in (sorted((self.path / sub).glob("*.json")) if (self.path / sub).is_dir() else ()))


def read_fuzz_folder(folder: Path) -> FuzzFolder:
    summary = read_json(Path(folder) / SUMMARY, FUZZ_SUMMARY_SCHEMA)
    return FuzzFolder(Path(folder), summary)


def fuzz_header(fuzz: FuzzFolder) -> OutputHeader:
    s = fuzz.summary
    settings = _mapping(s.get("settings"))
    return OutputHeader((_mapping(s.get("backend")),), s.get("machine"), str(s.get("date") or ""),
                        f"seed {settings['seed']}" if "seed" in settings else "", str(s.get("harnessVersion") or ""))


def is_fuzz_summary(path: Path) -> bool:
    """A fuzz run's summary.json (``"kind": "fuzz"``), never a run's: a run's summary has no ``kind`` and
    sits beside results.jsonl."""
    if path.name != SUMMARY or (path.parent / RESULTS).exists():
        return False
    try:
        doc = read_json(path)
    except ReadError:
        return False
    return isinstance(doc, dict) and doc.get("kind") == "fuzz"


# --------------------------------------------------------------------------- probe


@dataclass(frozen=True)
class ProbeFiles:
    """One probe's files as read (``{}`` for one not given): the spec-shaped limits, the evidence, and the
    header (the evidence's own, else the header file's)."""

    stem: str  # the files' common path without its suffix
    limits: Mapping[str, Any]
    evidence: Mapping[str, Any]
    header: Mapping[str, Any]

    @property
    def backend(self) -> Mapping[str, Any]:
        return _mapping(self.header.get("backend"))

    @property
    def backend_name(self) -> str:
        return str(self.backend.get("name") or Path(self.stem).name)


def read_probe_files(stem: str, limits_path: Path | None, header_path: Path | None,
                     probe_path: Path | None) -> ProbeFiles:
    limits = read_json(limits_path) if limits_path else {}
    probe = read_json(probe_path) if probe_path else {}
    header = read_json(header_path) if header_path else {}
    for path, doc in ((limits_path, limits), (probe_path, probe), (header_path, header)):
        if not isinstance(doc, Mapping):
            raise ReadError(f"{path}: expected a JSON object")
    if limits_path and (problem := limits_problem(limits)):
        raise ReadError(f"{limits_path}: not an opSupportLimits file: {problem}")
    return ProbeFiles(stem, limits, probe, probe["header"] if isinstance(probe.get("header"), Mapping) else header)


def probe_header(probe: ProbeFiles) -> OutputHeader:
    b = probe.backend
    return OutputHeader(({"name": probe.backend_name, "version": str(b.get("version", "")),
                          "device": str(b.get("device", ""))},), probe.header.get("machine"),
                        str(probe.header.get("date") or ""), Path(probe.stem).name,
                        str(probe.header.get("harnessVersion") or ""))


# --------------------------------------------------------------------------- accuracy


def accuracy_header(folder: AccuracyFolder) -> OutputHeader:
    s = folder.summary
    backends = {json.dumps(b, sort_keys=True, default=str): b for b, _ in folder.cases}
    return OutputHeader(tuple(backends.values()), s.get("machine"), str(s.get("date") or ""), folder.path.name,
                        str(s.get("harnessVersion") or ""))


# --------------------------------------------------------------------------- the registry


KINDS: dict[str, OutputKind] = {kind.name: kind for kind in (
    OutputKind("run", schemas={RESULTS: RUN_RECORD_SCHEMA, SUMMARY: RUN_SUMMARY_SCHEMA},
               read=read_run_folder, header=run_header, archived=True),
    OutputKind("bench", schemas={BENCH_FILE: BENCH_RECORD_SCHEMA, SUMMARY: BENCH_SUMMARY_SCHEMA},
               read=read_bench_folder, header=bench_header, archived=True),
    OutputKind("fuzz", schemas={SUMMARY: FUZZ_SUMMARY_SCHEMA}, read=read_fuzz_folder, header=fuzz_header, archived=True),
    # A folder may hold several backends' probes, so a probe is read by its files (read_probe_files), not by its folder.
    OutputKind("probe", header=probe_header, archived=True),
    # Each line checked field by field (no schema file).
    OutputKind("accuracy", read=read_accuracy_folder, header=accuracy_header),
    OutputKind("wpt-import"),
    # The archive's own folder: harness/archive/store.py reads it (it sits above this stage) and checks its
    # marker file itself, as it always has.
    OutputKind("archive"),
)}
assert set(KINDS) == set(KIND_FILES), "every kind of output has its files (outputs/kind_files.py) and its entry here"
ARCHIVED_KINDS = tuple(name for name, kind in KINDS.items() if kind.archived)


def holds(folder: str | Path, kind: str) -> bool:
    """Whether ``folder`` holds ``kind``'s marker file (a bench folder its bench.jsonl)."""
    return (Path(folder) / KINDS[kind].marker).is_file()


# --------------------------------------------------------------------------- the outputs under some paths


@dataclass
class FoundOutputs:
    """The outputs under some paths, by kind (``discover_outputs``): report and archive add read the same."""

    runs: list[Path] = field(default_factory=list)
    limits: dict[str, Path] = field(default_factory=dict)  # probe stem -> path
    headers: dict[str, Path] = field(default_factory=dict)
    probes: dict[str, Path] = field(default_factory=dict)
    benches: list[Path] = field(default_factory=list)
    fuzz: list[Path] = field(default_factory=list)
    accuracy: list[Path] = field(default_factory=list)

    @property
    def probe_stems(self) -> list[str]:
        return sorted(set(self.limits) | set(self.probes))

    def size(self) -> tuple[int, ...]:
        return tuple(map(len, (self.runs, self.limits, self.probes, self.benches, self.fuzz, self.accuracy)))

    def add_file(self, p: Path) -> bool:
        """Note ``p``'s output by the kind ``p`` says it is of; False for a file of none."""
        def once(folders: list[Path]) -> bool:
            if p.parent not in folders:
                folders.append(p.parent)
            return True

        for kind, folders in (("bench", self.benches), ("accuracy", self.accuracy)):
            marker = KINDS[kind].marker
            if p.name == marker or (p.name == SUMMARY and (p.parent / marker).exists()):
                return once(folders)
        if is_fuzz_summary(p):
            return once(self.fuzz)
        if p.name in (RESULTS, SUMMARY):
            if (p.parent / RESULTS).exists():
                once(self.runs)
            return True
        for suffix, stems in ((LIMITS_SUFFIX, self.limits), (HEADER_SUFFIX, self.headers), (PROBE_SUFFIX, self.probes)):
            if p.name.endswith(suffix):
                stems[str(p.parent / p.name[: -len(suffix)])] = p
                return True
        return False


def discover_outputs(inputs: Iterable[str | Path]) -> FoundOutputs:
    """Every output under the given paths (folders searched recursively), by kind; a ReadError for a path
    that is none, or a folder holding none."""
    found = FoundOutputs()
    for raw in inputs:
        p = Path(raw)
        if not p.exists():
            raise ReadError(f"{p}: no such file or folder")
        if p.is_file():
            if not found.add_file(p):
                raise ReadError(f"{p}: not a {RESULTS}, {BENCH_FILE}, {SUMMARY}, *{LIMITS_SUFFIX} or *{PROBE_SUFFIX} file")
            continue
        before = found.size()
        # A site an earlier report wrote here holds data/*-opSupportLimits.json
        # copies: read as probes, they made a ghost backend page (issue 28).
        sites = {m.parent for m in p.rglob(REPORT_MANIFEST)}
        for child in sorted(p.rglob("*")):
            if child.is_file() and not sites.intersection(child.parents):
                found.add_file(child)
        if found.size() == before:
            raise ReadError(f"{p}: no run results ({RESULTS}), bench results ({BENCH_FILE}), fuzz findings "
                            f"({SUMMARY} of fuzz), accuracy results ({ACCURACY_FILE}) or probe outputs "
                            f"(*{LIMITS_SUFFIX}, *{PROBE_SUFFIX}) in this folder")
    return found
