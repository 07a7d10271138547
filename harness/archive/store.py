"""The archive: a plain folder of immutable entries, one per archived output.

    ARCHIVE/
      .webnn-harness-archive.json     {"kind": "webnn-harness archive", "format": 1}
      entries/<id>/entry.json         what the entry is (kind, backends, machine, date, label, files)
      entries/<id>/<files>            the output's files, byte for byte

Why a folder and not a database: a vendor keeps the archive in git or a CI
artifact store, where whole immutable files diff, merge and deduplicate
well and a binary SQLite file does neither; the queries the site needs
(every entry, grouped by backend and ordered by version and date) read each
``entry.json`` once, which for hundreds of entries takes milliseconds, and
what is slow (reading the records) is cached per entry by the site builder
(``archive/digest.py``), keyed by the entry id, which never changes.

An entry's id is a hash of its kind and its files' names and contents, so
adding the same folder again adds nothing, and a name read from a file never
becomes a path: entry folders are named by the hash, the files keep the
names they had in the folder given (checked to be one plain component).

Every folder added is untrusted: each kind is read with its reader in
harness/outputs/kinds.py, the one the report uses too (schema, bounded size),
symbolic links are refused, and a folder that is not an output fails alone
with one line.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Mapping

import filelock

from webnn_harness.cpu import machine_class
from webnn_harness.outputs.bench_records import BENCH_FILE, BENCH_RECORD_SCHEMA, read_bench_folder
from webnn_harness.outputs.kinds import (ARCHIVE_MARKER, ARCHIVED_KINDS, DECLARED_SUFFIX, KINDS, OutputHeader, bench_header,
                                         discover_outputs, fuzz_header, probe_header, read_fuzz_folder,
                                         read_probe_files, run_header)
from webnn_harness.files.reading import check, loads, where
from webnn_harness.outputs.run_folder import read_run_folder
from webnn_harness.files.writes import OutputFolderError, describe_write_error, linked_part, unlinked, write_atomic

ENTRIES = "entries"
ENTRY_FILE = "entry.json"
LOCK = ".webnn-harness-archive.lock"
ARCHIVE_KIND, ENTRY_KIND, FORMAT = "webnn-harness archive", "webnn-harness archive entry", 1
MAX_FILE_BYTES = 512 << 20  # a results.jsonl of the whole corpus is about 2 MB
MAX_ENTRY_FILES = 5000  # a fuzz folder's findings
MAX_ENTRY_JSON_BYTES = 1 << 20
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_.+-]{1,200}")
_ENTRY_ID = re.compile(r"[0-9a-f]{20}")


class ArchiveError(ValueError):
    """An archive or a folder that cannot be used as asked: one line, exit code 2."""


@dataclass(frozen=True)
class BackendRef:
    name: str
    version: str
    device: str

    def to_json(self) -> dict:
        return {"name": self.name, "version": self.version, "device": self.device}


@dataclass(frozen=True)
class Entry:
    """One archived output, as ``entry.json`` describes it."""

    id: str
    kind: str  # run | probe | bench | fuzz
    backends: tuple[BackendRef, ...]
    machine: str
    date: str  # when the output was made (ISO 8601, from its own header)
    label: str
    harness_version: str
    files: tuple[tuple[str, str], ...]  # (name relative to the entry, sha256)
    added: str = ""  # when it was archived

    def to_json(self) -> dict:
        return {"kind": ENTRY_KIND, "format": FORMAT, "id": self.id, "entryKind": self.kind,
                "backends": [b.to_json() for b in self.backends], "machine": self.machine, "date": self.date,
                "label": self.label, "harnessVersion": self.harness_version, "added": self.added,
                "files": dict(self.files)}

    @classmethod
    def from_json(cls, doc: Any) -> "Entry":
        """Raises ValueError naming the field that is wrong."""
        if not isinstance(doc, Mapping) or doc.get("kind") != ENTRY_KIND:
            raise ValueError("not a webnn-harness archive entry")
        if doc.get("format") != FORMAT:
            raise ValueError(f"format {doc.get('format')!r}; this harness reads format {FORMAT}")
        for key in ("id", "entryKind", "machine", "date", "label", "harnessVersion"):
            if not isinstance(doc.get(key), str):
                raise ValueError(f"{key}: expected a string")
        if not _ENTRY_ID.fullmatch(doc["id"]) or doc["entryKind"] not in ARCHIVED_KINDS:
            raise ValueError("id or entryKind: not one this harness writes")
        backends, files = doc.get("backends"), doc.get("files")
        if not isinstance(backends, list) or not all(
                isinstance(b, Mapping) and all(isinstance(b.get(k), str) for k in ("name", "version", "device"))
                for b in backends):
            raise ValueError("backends: expected a list of {name, version, device}")
        if not isinstance(files, Mapping) or not all(isinstance(k, str) and _safe_relative(k) and isinstance(v, str)
                                                       for k, v in files.items()):
            raise ValueError("files: expected {relative name: sha256} inside the entry")
        return cls(doc["id"], doc["entryKind"], tuple(BackendRef(b["name"], b["version"], b["device"]) for b in backends),
                   doc["machine"], doc["date"], doc["label"], doc["harnessVersion"],
                   tuple(sorted(files.items())), str(doc.get("added") or ""))

    def described(self) -> dict:
        """What the entry says of itself beyond its id and files (checked against its files: ``description``)."""
        return {"entryKind": self.kind, "backends": [b.to_json() for b in self.backends], "machine": self.machine,
                "date": self.date, "label": self.label, "harnessVersion": self.harness_version}

    @property
    def backend_text(self) -> str:
        return ", ".join(f"{b.name} {b.version} ({b.device})" if b.device else f"{b.name} {b.version}"
                         for b in self.backends)


def _safe_relative(rel: str) -> bool:
    parts = rel.split("/")
    return 1 <= len(parts) <= 2 and all(_PLAIN_NAME.fullmatch(p) and p not in (".", "..") for p in parts)


# --------------------------------------------------------------------------- what a folder holds


@dataclass(frozen=True)
class Candidate:
    """An output found in a folder given to ``archive add``, read and checked, not yet stored."""

    kind: str
    source: Path
    files: tuple[tuple[str, Path], ...]  # (name inside the entry, file to copy)
    backends: tuple[BackendRef, ...]
    machine: str
    date: str
    label: str
    harness_version: str
    warnings: tuple[str, ...] = ()


def machine_text(machine: Any) -> str:
    """A machine in a few words (CPU, cores, platform), whichever the output recorded: its hardware,
    as bench/regressions compares machines, not its host name, which a bench records and a run
    does not (one machine was listed twice, issue 42)."""
    if not isinstance(machine, Mapping):
        return str(machine or "")[:200]
    cores = f"{machine['cores']} cores" if machine.get("cores") else ""
    parts = (machine.get("cpu") or machine.get("processor"), cores, machine.get("platform"))
    text = ", ".join(str(p) for p in parts if p)[:200]
    # Its machine class, where the output recorded the CPU's features (issue #47): the ISA class and
    # any cap in force, so that an AVX-512 run and an AVX2 one (or one capped to AVX2) are two machines.
    cls = recorded_class(machine)
    return f"{text} [{cls}]" if cls else text


def recorded_class(machine: Any) -> str:
    """A header's machine class as its archive entry keeps it ("" for an output written before
    features were recorded): what an archived column is kept apart by."""
    return machine_class(machine) if isinstance(machine, Mapping) and "cpuFeatures" in machine else ""


def machine_hardware(text: str) -> str:
    """A machine_text without its class: what an entry archived before classes were recorded says."""
    return text.split(" [", 1)[0]


def text_class(text: str) -> str:
    """The class a machine_text ends with, "" for an entry archived before classes were recorded."""
    return text.rsplit(" [", 1)[1].rstrip("]") if machine_hardware(text) != text else ""


def same_machine(a: str, b: str) -> bool:
    """Whether two entries' machine texts name one machine: equal, or equal in their hardware where one
    of them was archived before machine classes were recorded (so an upgrade splits no history)."""
    if a == b:
        return True
    return (" [" not in a or " [" not in b) and machine_hardware(a) == machine_hardware(b)


def _ref(backend: Any) -> BackendRef:
    b = backend if isinstance(backend, Mapping) else {}
    return BackendRef(str(b.get("name") or "?"), str(b.get("version") or ""), str(b.get("device") or ""))


def _check_file(path: Path) -> Path:
    if path.is_symlink():
        raise ArchiveError(f"{path}: a symbolic link; the archive stores only plain files")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise ArchiveError(f"{path}: {size} bytes, more than the {MAX_FILE_BYTES} an archived file may have")
    return path


def _stored_files(folder: Path, names: Iterable[str]) -> list[tuple[str, Path]]:
    """The files of ``names`` that ``folder`` holds, checked, in that order."""
    return [(name, _check_file(folder / name)) for name in names if (folder / name).is_file()]


def _candidate(kind: str, source: Path, files: Iterable[tuple[str, Path]], header: OutputHeader,
               warnings: Iterable[str] = ()) -> Candidate:
    return Candidate(kind, source, tuple(files), tuple(dict.fromkeys(_ref(b) for b in header.backends)),
                     machine_text(header.machine), header.date, header.label, header.harness_version,
                     tuple(dict.fromkeys(warnings)))


def description(c: Candidate) -> dict:
    """What an entry made of ``c`` says of itself (``Entry.described``), as its files say it."""
    return {"entryKind": c.kind, "backends": [b.to_json() for b in c.backends], "machine": c.machine,
            "date": c.date, "label": c.label[:200], "harnessVersion": c.harness_version}


def _run_candidate(folder: Path) -> Candidate:
    run = read_run_folder(folder)  # every line checked, unreadable ones named
    return _candidate("run", folder, _stored_files(folder, KINDS["run"].files), run_header(run), run.problems)


def _declared_beside(stem: str) -> Path | None:
    """The backend's own declared table the probe wrote beside its files (``<stem>-opSupportLimits.declared.json``)."""
    path = Path(f"{stem}-{DECLARED_SUFFIX}")
    return path if path.is_file() else None


def _probe_candidate(stem: str, limits: Path | None, header: Path | None, probe: Path | None) -> Candidate:
    present = [p for p in (limits, header, probe, _declared_beside(stem)) if p is not None]
    for p in present:
        _check_file(p)
        if not _PLAIN_NAME.fullmatch(p.name):
            raise ArchiveError(f"{p}: a file name the archive does not store (letters, digits, . _ + - only)")
    files = read_probe_files(stem, limits, header, probe)
    return _candidate("probe", present[0].parent, ((p.name, p) for p in present), probe_header(files))


def _bench_candidate(folder: Path) -> Candidate:
    bench = read_bench_folder(folder)
    for number, record in bench.records:  # what the performance page refuses, refused before it is archived
        if record.get("profile") is not None:
            check(record["profile"], f"{BENCH_RECORD_SCHEMA}#profile", f"{where(folder / BENCH_FILE, number)}: profile")
    return _candidate("bench", folder, _stored_files(folder, KINDS["bench"].files), bench_header(bench))


def _fuzz_candidate(folder: Path) -> Candidate:
    fuzz = read_fuzz_folder(folder)
    files = _stored_files(folder, KINDS["fuzz"].files)
    files += [(name, _check_file(folder / name)) for name in fuzz.finding_files()
              if _PLAIN_NAME.fullmatch(name.rsplit("/", 1)[-1])]
    if len(files) > MAX_ENTRY_FILES:
        raise ArchiveError(f"{folder}: {len(files)} files, more than the {MAX_ENTRY_FILES} an entry may hold")
    return _candidate("fuzz", folder, files, fuzz_header(fuzz))


def _check_unlinked(root: Path, c: Candidate) -> Candidate:
    """``c``, when none of its files is reached through a symbolic link below the folder the user named
    (a fuzz folder's ``findings`` linking elsewhere would copy outside files into the archive)."""
    for _, path in c.files:
        link = linked_part(root, path)
        if link is not None:
            raise ArchiveError(f"{link}: a symbolic link; the archive stores only plain files inside the folder given")
    return c


def candidates(folder: str | Path) -> list[Candidate]:
    """Every run, probe, bench and fuzz output under ``folder`` (the report's
    discovery), each read and checked; the first that is not readable stops it."""
    root = Path(folder)
    try:
        found = discover_outputs([folder])
        out = [_run_candidate(p) for p in found.runs]
        out += [_probe_candidate(stem, found.limits.get(stem), found.headers.get(stem), found.probes.get(stem))
                for stem in found.probe_stems]
        out += [_bench_candidate(p) for p in found.benches]
        out += [_fuzz_candidate(p) for p in found.fuzz]
        out = [_check_unlinked(root if root.is_dir() else root.parent, c) for c in out]
    except ArchiveError:
        raise
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        raise ArchiveError(str(exc).splitlines()[0][:400] if str(exc) else f"{folder}: unreadable") from None
    except OSError as exc:
        raise ArchiveError(f"{folder}: cannot read: {exc.strerror or exc}") from None
    return out


# --------------------------------------------------------------------------- the archive folder


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def entry_id(kind: str, hashes: Iterable[tuple[str, str]]) -> str:
    """Content identity: the same files of the same kind are the same entry wherever they come from."""
    doc = json.dumps([kind, sorted(hashes)], separators=(",", ":"))
    return hashlib.sha256(doc.encode()).hexdigest()[:20]


@dataclass
class AddResult:
    added: list[Entry] = field(default_factory=list)
    present: list[Entry] = field(default_factory=list)  # already archived: nothing added
    warnings: list[str] = field(default_factory=list)


class Archive:
    """An archive folder. ``Archive(path).add([...])`` creates it when it does not exist."""

    def __init__(self, path: str | Path):
        self.path = Path(path)

    @property
    def entries_dir(self) -> Path:
        return self.path / ENTRIES

    def check(self, create: bool = False) -> None:
        try:
            self._check(create)
        except OutputFolderError as exc:
            raise ArchiveError(str(exc)) from None
        except OSError as exc:  # a name too long, a parent that is a file: nothing was written
            raise ArchiveError(describe_write_error(exc, self.path)) from None

    def _check(self, create: bool) -> None:
        marker = self.path / ARCHIVE_MARKER
        unlinked(self.path, self.entries_dir / "entry")  # entries written, read and published are inside
        if marker.is_symlink():
            raise ArchiveError(f"{marker}: a symbolic link; not an archive webnn-harness made")
        if self.path.exists() and not self.path.is_dir():
            raise ArchiveError(f"{self.path}: exists and is not a folder")
        if marker.is_file():
            try:
                doc = loads(marker.read_bytes()[:MAX_ENTRY_JSON_BYTES], str(marker))
            except (OSError, ValueError) as exc:
                raise ArchiveError(f"{marker}: cannot read: {exc}") from None
            if not isinstance(doc, Mapping) or doc.get("kind") != ARCHIVE_KIND or doc.get("format") != FORMAT:
                raise ArchiveError(f"{marker}: not a format-{FORMAT} webnn-harness archive")
            return
        if not create:
            raise ArchiveError(f"{self.path}: not a webnn-harness archive (no {ARCHIVE_MARKER}); "
                               "`webnn-harness archive add` makes one")
        if self.path.is_dir() and any(self.path.iterdir()):
            raise ArchiveError(f"{self.path}: folder is not empty and is no archive; choose a new or empty folder")
        try:
            self.entries_dir.mkdir(parents=True, exist_ok=True)
            write_atomic(marker, json.dumps({"kind": ARCHIVE_KIND, "format": FORMAT}) + "\n")
        except OSError as exc:
            raise ArchiveError(f"{self.path}: cannot create the archive: {exc.strerror or exc}") from None

    def add(self, folders: Iterable[str | Path]) -> AddResult:
        """Archive every output under each folder; all are read and checked before anything is written."""
        found = [c for f in folders for c in candidates(f)]
        if not found:
            raise ArchiveError("no run, probe, bench or fuzz output in the folders given")
        self.check(create=True)
        result = AddResult()
        try:
            lock = filelock.FileLock(str(self.path / LOCK), timeout=60)
            with lock:
                for c in found:
                    entry, new = self._store(c)
                    (result.added if new else result.present).append(entry)
                    result.warnings += [f"{c.source.name}: {w}" for w in c.warnings]
        except filelock.Timeout:
            raise ArchiveError(f"{self.path}: another `archive add` holds {LOCK}; try again") from None
        except OSError as exc:
            raise ArchiveError(f"{self.path}: cannot write: {exc.strerror or exc}") from None
        return result

    def _store(self, c: Candidate) -> tuple[Entry, bool]:
        hashes = tuple((name, _sha256(path)) for name, path in c.files)
        eid = entry_id(c.kind, hashes)
        final = self.entries_dir / eid
        if final.is_symlink():
            raise ArchiveError(f"{final}: a symbolic link where an entry belongs; remove it")
        if (final / ENTRY_FILE).is_file():
            return self.read_entry(final), False
        entry = Entry(eid, c.kind, c.backends, c.machine, c.date, c.label[:200], c.harness_version, tuple(sorted(hashes)),
                      datetime.now(timezone.utc).isoformat(timespec="seconds"))
        self.entries_dir.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{eid}-", dir=self.entries_dir))
        try:
            for name, path in c.files:
                (staging / name).parent.mkdir(exist_ok=True)
                shutil.copyfile(path, staging / name)
            (staging / ENTRY_FILE).write_text(json.dumps(entry.to_json(), indent=1) + "\n", encoding="utf-8")
            os.replace(staging, final)  # whole or not at all
        finally:
            if staging.exists():
                shutil.rmtree(staging)
        return entry, True

    def read_entry(self, folder: Path) -> Entry:
        path = folder / ENTRY_FILE
        try:
            if path.stat().st_size > MAX_ENTRY_JSON_BYTES:
                raise ValueError(f"more than {MAX_ENTRY_JSON_BYTES} bytes")
            entry = Entry.from_json(loads(path.read_bytes(), str(path)))
        except (OSError, ValueError, RecursionError) as exc:
            raise ArchiveError(f"{path}: {exc}"[:400]) from None
        if entry.id != folder.name:
            raise ArchiveError(f"{path}: id {entry.id} is not the folder's name")
        return entry

    def entries(self) -> tuple[tuple[Entry, ...], tuple[str, ...]]:
        """(every readable entry, oldest first; one line per entry that is not)."""
        self.check()
        entries, problems = [], []
        for folder in sorted(self.entries_dir.iterdir()) if self.entries_dir.is_dir() else ():
            if not _ENTRY_ID.fullmatch(folder.name) or not folder.is_dir() or folder.is_symlink():
                continue  # staging folders of an add in progress, files a person left here
            try:
                entries.append(self.read_entry(folder))
            except ArchiveError as exc:
                problems.append(str(exc))
        entries.sort(key=lambda e: (e.date, e.id))
        return tuple(entries), tuple(problems)

    def verify(self, entry: Entry) -> str:
        """"" when the entry's folder holds exactly its files with their hashes (what was read and
        checked when it was added), else why not: the site reads no entry changed since."""
        folder = self.entries_dir / entry.id
        if entry_id(entry.kind, entry.files) != entry.id:
            return f"{folder / ENTRY_FILE}: edited: its kind or files are not those its id was made of"
        listed = dict(entry.files)
        present = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if not p.is_dir()} - {ENTRY_FILE}
        if present != set(listed):
            extra, missing = sorted(present - set(listed)), sorted(set(listed) - present)
            return f"{folder}: {'holds files it did not archive: ' + ', '.join(extra[:3]) if extra else ''}" \
                   f"{'; ' if extra and missing else ''}{'lacks ' + ', '.join(missing[:3]) if missing else ''}"
        for name, digest in listed.items():
            path = folder / name
            if path.is_symlink() or _sha256(path) != digest:
                return f"{path}: changed since it was archived (its hash is not the one in {ENTRY_FILE})"
        return ""

    def description_from_files(self, entry: Entry) -> dict:
        """What ``entry``'s files say of it (``description``, read as ``archive add`` read them); an
        ArchiveError when they are not one output of its kind."""
        found = candidates(self.entries_dir / entry.id)
        if len(found) != 1 or found[0].kind != entry.kind:
            raise ArchiveError(f"{self.entries_dir / entry.id}: its files are not one {entry.kind} output")
        return description(found[0])

    def file(self, entry: Entry, name: str) -> Path:
        """The path of one of an entry's files (its name checked when the entry was read)."""
        return self.entries_dir / entry.id / name
