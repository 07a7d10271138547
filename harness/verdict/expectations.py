"""Expectations: data files listing a backend's genuine deviations, each with a reason.

A listed non-pass keeps its real status but is marked known (the entry's
reason) and does not count against the exit code. Our own backends ship one
as ``backends/<name>/known_failures.json``; any backend, ours or a vendor's,
can be given more with ``run --expectations FILE``. The format (JSON Schema:
``harness/schema/expectations.schema.json``) is a list of entries::

    {"file": "relu.json",            optional: a case file id or a tail of it
     "case": "exact case name",      or "match": "regex searched in the name"
     "reason": "why",
     "options": {"ep": "..."},       optional: only under these backend options
                                     ("!V": any but V; [null, "V"]: not given or V)
     "versions": ">=1.32",           optional: only for these backend versions
     "cpu": {"has": ["avx512f"]},    optional: only on these machines (below)
     "evidence": "what was seen",    optional: the observation behind the reason
     "status": ["fail"],             optional: only records of these statuses,
     "message": "regex",             whose message this searches,
     "actual": 0}                    and whose worst element is this value

``cpu`` scopes an entry by the machine (issue #47: a kernel's result can
depend on the instruction set it was compiled for): ``has`` and ``lacks``
list /proc/cpuinfo features (harness/cpu.py TRACKED) that the backend's
kernels can use, all present and all absent: the CPU's features less those
above an ISA cap the backend honours (BackendFacts ``isa_cap_variable``:
OpenVINO's oneDNN reads ``ONEDNN_MAX_CPU_ISA``; LiteRT's XNNPACK ignores
it); ``hardware`` lists features the CPU itself has, whatever the cap (a
kernel that crashes only when capped below what the CPU has:
``{"hardware": ["avx512f"], "lacks": ["avx512f"]}``). An entry whose
``cpu`` does not hold on the run's machine is not in force: neither applied
nor stale.

``status``, ``message`` and ``actual`` pin an entry to the one failure it
explains: another failure of the same case is not marked known by it.

Besides the backend's own file every backend gets WPT's case notes
(``harness/spec/data/wpt_case_notes.json``): WPT cases that disagree with the
spec at the commit our tables follow (an older rule, or an expected value the
spec's algorithm does not give). Their reasons begin with ``CASE_NOTE``, so a
page and ``tools/wpt_accounting.py`` tell them from a backend's deviations.

After a run each entry has an outcome, reported exactly:

- ``applied``: it matched a case that did not pass;
- ``stale``: it matched cases, they ran, and every one passed (the failure is gone);
- ``unmatched``: it matched no case of the run (a typo, a renamed case, or
  cases outside the run's selection), or only failures other than the one
  its ``status``, ``message`` or ``actual`` names.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version

from webnn_harness.cpu import TRACKED, MachineFacts
from webnn_harness.loading.caseid import id_matches_file
from webnn_harness.files import reading
from webnn_harness.verdict.record import Record

OUTCOMES = ("applied", "stale", "unmatched")
ENTRY_KEYS = ("file", "case", "match", "reason", "options", "versions", "cpu", "evidence", "status", "message",
              "actual")
CPU_KEYS = ("has", "lacks", "hardware")
CASE_NOTES = "wpt_case_notes.json"
CASE_NOTE = "WPT case vs spec: "  # the reason's start of every case note (the file's entries carry it)


class ExpectationsError(ValueError):
    """An expectations file that cannot be used: one line naming file, entry and field."""


@dataclass(frozen=True)
class CpuView:
    """A run's machine as an entry's ``cpu`` is matched against: the features the backend's kernels can use
    (the CPU's, less those above the ISA cap it honours) and the CPU's own."""

    kernel: frozenset[str]
    hardware: frozenset[str]

    @classmethod
    def of(cls, machine: MachineFacts, cap_variable: str | None) -> "CpuView":
        return cls(machine.kernel_features(cap_variable), machine.features)


def cpu_view(isa_cap_variable: str | None, machine: MachineFacts | None = None) -> CpuView:
    """The view of ``machine`` (this one, with the environment in force, by default) for a backend whose
    kernels honour ``isa_cap_variable`` (its facts say which: backends.known_failures passes it)."""
    return CpuView.of(machine or MachineFacts.here(), isa_cap_variable)


def cpu_holds(scope: Mapping[str, Sequence[str]], cpu: CpuView | None) -> bool:
    """Whether an entry's ``cpu`` holds on ``cpu`` (an unknown machine: no scoped entry holds)."""
    if not scope:
        return True
    if cpu is None:
        return False
    return (set(scope.get("has", ())) <= cpu.kernel and not set(scope.get("lacks", ())) & cpu.kernel
            and set(scope.get("hardware", ())) <= cpu.hardware)


@dataclass(frozen=True)
class Expectation:
    reason: str
    file: str | None = None
    case: str | None = None
    match: str | None = None
    options: Mapping[str, str | list[str | None]] = field(default_factory=dict)
    versions: str | None = None
    cpu: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # {has, lacks, hardware}: CPU features
    evidence: str | None = None
    status: tuple[str, ...] = ()  # () any non-pass
    message: str | None = None  # a regex searched in the record's message
    actual: Any = None  # the record's value at its worst element (None: any)
    source: str = ""  # the file it came from, as the user named it (or the backend's bundled file)
    index: int = 0  # its position there

    def applies_to(self, version: str, options: Mapping[str, str], cpu: CpuView | None = None) -> bool:
        """Whether the entry is in force for a backend at ``version`` made with ``options`` on a
        machine seen as ``cpu`` (None: unknown, where an entry scoped by ``cpu`` is not in force)."""
        if not all(_option_matches(options.get(k), v) for k, v in self.options.items()):
            return False
        if not cpu_holds(self.cpu, cpu):
            return False
        if self.versions is None:
            return True
        release = release_version(version)
        return release is not None and SpecifierSet(self.versions).contains(release, prereleases=True)

    def matches(self, file_id: str, name: str) -> bool:
        if self.file is not None and not id_matches_file(self.file, file_id):
            return False
        if self.case is not None:
            return name == self.case
        return _pattern(self.match).search(name) is not None

    def explains(self, record: Record) -> bool:
        """Whether the record's non-pass is the failure this entry names (its status, message and value)."""
        return ((not self.status or record.status in self.status)
                and (self.message is None or _pattern(self.message).search(record.message or "") is not None)
                and (self.actual is None or record.actual_value == self.actual))

    def to_json(self) -> dict:
        out: dict[str, Any] = {}
        for key in ENTRY_KEYS:
            value = getattr(self, key)
            if value or key == "actual" and value is not None:  # an entry's actual may be 0 or false
                out[key] = ({k: list(v) for k, v in value.items()} if key == "cpu" else dict(value) if key == "options"
                            else list(value) if key == "status" else value)
        return out

    def describe(self) -> str:
        what = f'"{self.case}"' if self.case is not None else f"/{self.match}/"
        return f"{self.source}[{self.index}]: {self.file + ': ' if self.file else ''}{what}"


@lru_cache(maxsize=None)
def _pattern(regex: str) -> re.Pattern:
    return re.compile(regex)


_RELEASE = re.compile(r"^\s*v?(\d+(?:\.\d+)*)")


def release_version(version: str) -> Version | None:
    """The leading release numbers of a backend's version string: OpenVINO
    reports "2026.4.1-22982-e213a147257-releases/2026/4", not a PEP 440 version."""
    m = _RELEASE.match(str(version))
    return Version(m.group(1)) if m else None


def schema() -> dict:
    return reading.schema("expectations")


def parse_expectations(doc: Any, source: str) -> tuple[Expectation, ...]:
    """Entries from a parsed expectations document; ExpectationsError names the first problem."""
    try:
        reading.check(doc, "expectations", source, one_of='needs exactly one of "case" and "match"')
    except reading.ReadError as exc:
        raise ExpectationsError(str(exc)) from None
    entries = []
    for i, raw in enumerate(doc):
        for key in ("match", "message"):
            if key in raw:
                try:
                    _pattern(raw[key])
                except re.error as exc:
                    raise ExpectationsError(f"{source}: [{i}].{key}: not a regular expression: {exc}") from None
        if "versions" in raw:
            try:
                SpecifierSet(raw["versions"])
            except InvalidSpecifier:
                raise ExpectationsError(f"{source}: [{i}].versions: not a version specifier set such as "
                                        f"\">=1.32\": {raw['versions']!r}") from None
        unknown = sorted(f for key in CPU_KEYS for f in (raw.get("cpu") or {}).get(key, ()) if f not in TRACKED)
        if unknown:
            raise ExpectationsError(f"{source}: [{i}].cpu: not a CPU feature this harness records "
                                    f"(harness/cpu.py TRACKED, /proc/cpuinfo's names): {', '.join(unknown)}")
        entries.append(Expectation(
            reason=raw["reason"], file=raw.get("file"), case=raw.get("case"), match=raw.get("match"),
            options=dict(raw.get("options") or {}), versions=raw.get("versions"),
            cpu={k: tuple(v) for k, v in (raw.get("cpu") or {}).items()}, evidence=raw.get("evidence"),
            status=tuple(raw.get("status") or ()), message=raw.get("message"), actual=raw.get("actual"),
            source=source, index=i,
        ))
    return tuple(entries)


def read_expectations(path: str | Path) -> tuple[Expectation, ...]:
    path = Path(path)
    try:
        doc = reading.read_json(path)  # bounded in size and nesting; the schema is parse_expectations'
    except reading.ReadError as exc:
        raise ExpectationsError(str(exc)) from None
    return parse_expectations(doc, str(path))


def bundled_expectations(backend: str) -> tuple[Expectation, ...]:
    """``backends/<name>/known_failures.json`` of one of our backends; none for others."""
    try:
        text = resources.files(f"webnn_harness.backends.{backend}").joinpath("known_failures.json").read_text()
    except (ModuleNotFoundError, FileNotFoundError, TypeError, ValueError):
        return ()
    return parse_expectations(json.loads(text), bundled_source(backend))


def case_notes() -> tuple[Expectation, ...]:
    """WPT's cases that disagree with the spec, as expectations every backend gets (module docstring)."""
    text = resources.files("webnn_harness.spec").joinpath("data", CASE_NOTES).read_text()
    return parse_expectations(json.loads(text), CASE_NOTES)


def bundled_source(backend: str) -> str:
    """The ``source`` an entry of one of our backends' shipped known-failures files carries. Those
    files list cases of every corpus we run (WPT's among them): that a run of one corpus matches
    some of them to no case says nothing about the run, so the console leaves them out."""
    return f"{backend}/known_failures.json"


def _option_matches(given: str | None, wanted: str | Sequence[str | None]) -> bool:
    """An entry's option value: exactly that value; "!VALUE": any other
    value or the option not given (the backend's default, e.g. LiteRT's
    ``{"delegate": "!none"}`` for XNNPACK, its default path); or a list of
    values, None standing for the option not given (ONNX Runtime's CPU
    provider, named or by default: ``{"ep": [null, "CPUExecutionProvider"]}``)."""
    if not isinstance(wanted, str):
        return given in wanted
    if wanted.startswith("!"):
        return given != wanted[1:]
    return given == wanted


@dataclass
class ExpectationSet:
    """The entries in force for one backend in one run, and what became of each."""

    entries: tuple[Expectation, ...]
    _seen: set[int] = field(default_factory=set)  # matched a record: its case ran
    _used: set[int] = field(default_factory=set)  # matched a non-pass
    # _candidates' index: entries by their file's last component (None: no file)
    _by_file: dict[str | None, list[int]] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def for_backend(cls, backend: str, version: str, options: Mapping[str, str],
                    files: Iterable[str | Path] = (), bundled: bool = True,
                    machine: MachineFacts | None = None, isa_cap_variable: str | None = None) -> "ExpectationSet":
        """The entries in force for ``backend`` at ``version`` with ``options`` on ``machine`` (this
        one, with the environment in force, by default: its workers inherit it), whose kernels honour
        ``isa_cap_variable`` (backends.known_failures: from the backend's facts)."""
        entries = [*(bundled_expectations(backend) if bundled else ()), *(case_notes() if bundled else ()),
                   *(e for f in files for e in read_expectations(f))]
        cpu = cpu_view(isa_cap_variable, machine) if any(e.cpu for e in entries) else None
        return cls(tuple(e for e in entries if e.applies_to(version, options, cpu)))

    def find(self, file_id: str, name: str) -> Expectation | None:
        """The first entry naming this case (no bookkeeping: for a single lookup)."""
        return next((e for e in self.entries if e.matches(file_id, name)), None)

    def _candidates(self, file_id: str) -> list[int]:
        """The entries that can name a case of ``file_id``, in order: those
        naming its file by its last component, and those naming no file.
        (Asking every entry of every record was 57,000 calls per run.)"""
        if self._by_file is None:
            self._by_file = {}
            for i, e in enumerate(self.entries):
                self._by_file.setdefault(e.file.rsplit("/", 1)[-1] if e.file is not None else None, []).append(i)
        named = self._by_file.get(file_id.rsplit("/", 1)[-1], [])
        anywhere = self._by_file.get(None, [])
        return sorted(named + anywhere) if named and anywhere else named or anywhere

    def apply(self, record: Record) -> Record:
        """The record, marked known when an entry names it and it did not pass."""
        hits = [i for i in self._candidates(record.file) if self.entries[i].matches(record.file, record.case)]
        if record.status == "pass":
            self._seen.update(hits)
            return record
        explained = [i for i in hits if self.entries[i].explains(record)]
        self._seen.update(explained)  # another failure than the one an entry names: neither stale nor applied
        if not explained:
            return record
        self._used.update(explained)
        return record.with_(known_failure=self.entries[explained[0]].reason)

    def outcome(self, i: int) -> str:
        if i in self._used:
            return "applied"
        return "stale" if i in self._seen else "unmatched"

    def stale(self) -> list[Expectation]:
        return [e for i, e in enumerate(self.entries) if self.outcome(i) == "stale"]

    def unmatched(self) -> list[Expectation]:
        return [e for i, e in enumerate(self.entries) if self.outcome(i) == "unmatched"]

    def report(self) -> list[dict]:
        """Every entry in force with its outcome and source, for summary.json."""
        return [{**e.to_json(), "source": e.source, "index": e.index, "outcome": self.outcome(i)}
                for i, e in enumerate(self.entries)]


def merge_reports(reports: Sequence[Sequence[Mapping]]) -> list[dict]:
    """One report from the reports of several shards of a run: an entry is
    applied if it was in any shard, stale if its cases ran somewhere and
    passed everywhere they ran, unmatched if no shard had its cases."""
    merged: dict[tuple, dict] = {}
    rank = {o: n for n, o in enumerate(("unmatched", "stale", "applied"))}
    for report in reports:
        for entry in report:
            key = (entry.get("source"), entry.get("index"))
            have = merged.get(key)
            if have is None or rank[entry["outcome"]] > rank[have["outcome"]]:
                merged[key] = dict(entry)
    return list(merged.values())  # in the entries' order, which every shard shares
