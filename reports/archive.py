"""An archive (harness/archive) -> the site model: every backend x version x
device a column, what changed between consecutive versions, per-op history.

- Columns: the newest archived output of each (kind, backend, version,
  device) feeds the capability matrix and the conformance summary (the
  same model ``report DIR...`` builds), ordered by backend name, then newest
  version first; each column says when it was last run, and is marked stale
  when that is more than ``stale_days`` before the site was built.
- Changes (``changes.html``): for consecutive versions of each backend on a
  device, cases newly failing and newly passing by stable id
  (``outputs/run_diff.diff_backend``), opSupportLimits entries gained and
  lost (the probed table, and the backend's own declared one where its
  probe wrote it: chromium's ``opSupportLimits()``), benchmarks significantly slower or faster (``bench/regressions``:
  the bench's own Mann-Whitney test and threshold) and fuzz findings new and
  gone (finding ids are stable for a root cause).
- The index leads with the backend of the most archived versions (a
  browser's releases): at its newest version, its cases passing, failing
  and refused per device and corpus, its declared opSupportLimits() against
  the probed table, and links to what changed since the version before.
- History (``history.html``, ``history/<op>.html``): per backend and device,
  the pass rate of each operator's cases and the median latency of each of
  its benchmarks over versions and dates, with the steps found by
  ``archive/steps.py`` (asv's method), not by eye.

A build is incremental: the site folder's cache (``.archive-cache``, read as untrusted input)
keeps what an entry gives, keyed by its id (an entry never changes), a format number and the
harness version, so adding one entry reads that entry's files only:

- each entry's digest (harness/archive/digest.py), for the changes and history;
- each column entry's model pieces (reports/archive_cache.py): a run's per-backend tallies and
  shown records, a probe's files as read; bench, fuzz and accuracy columns are read again;
- the changes of each pair of consecutive versions (``cached_version_changes``) and the steps of
  each history series (``StepsCache``);
- each page's key (reports/page_cache.py): a page whose inputs did not change is not drawn again.

What is always done again: every entry's files are hashed (``Archive.verify``: an entry changed
since it was archived is left out), the columns' model is assembled from its pieces, and every
page is written, since its footer says when the site was built. ``ArchiveModel.reuse`` says how
much was read and drawn.
"""
from __future__ import annotations

import dataclasses
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Mapping, Sequence

from webnn_harness.archive.digest import (
    DIGEST_FORMAT,
    case_outcomes,
    content_key,
    description_problem,
    entry_digest,
    prune_cached,
    read_cached,
    write_cached,
)
from webnn_harness.archive.steps import Step, detect_steps
from webnn_harness.bench.regressions import is_noisy
from webnn_harness.archive.store import Archive, ArchiveError, Entry, recorded_class, same_machine, text_class
from webnn_harness.loading.caseid import corpus_of
from webnn_harness.outputs.run_diff import CaseChange, diff_backend
from webnn_harness.reports.capability import ProbeBackend, _version_key
from webnn_harness.reports.archive_cache import PIECES_PREFIX, ColumnReaders
from webnn_harness.reports.common import BackendId, ReportInputError, reads_inputs, slug
from webnn_harness.reports.conformance import problem_rank, read_run
from webnn_harness.reports.model import SiteModel, build_model
from webnn_harness.spec.catalog import operators

STALE_DAYS = 30
LATENCY_STEP = 0.05  # a latency step smaller than this fraction is not shown: bench --threshold's default
# Bump when what version_changes or detect_steps computes changes: the site folder's cache of
# their results (per pair of versions, per series) is then computed again.
CHANGES_FORMAT = 4  # 2: bench changes judged against the machine noise; 3: the declared tables' entries gained and lost; 4: a change of machine said (machine_note)
CHANGES_PREFIX = "changes-"
STEPS_FORMAT = 2  # 2: no step at a noisy bench's point
NO_SCIPY = "benchmarks not compared: the significance test needs scipy (pip install 'webnn-harness[bench]')"

# (kind, backend name, version, device, machine class: "" for an entry archived before classes were
# recorded): one version's outputs on two machine classes are two columns (issue #47).
ColumnKey = tuple[str, str, str, str, str]
VersionKey = tuple[str, str, str, str]  # (kind, backend name, version, device): what changes and the lead compare
Line = tuple[str, str]  # (backend name, device): one backend's history


@dataclass(frozen=True)
class LastRun:
    date: str
    stale: bool
    runs: int  # archived outputs of this column


@dataclass(frozen=True)
class CorpusCounts:
    """One device's cases of one corpus (the first folder of a case id: wpt, wpt-extra, cases) in a run."""

    device: str
    corpus: str
    passed: int
    failed: int  # fail, error, crash, timeout
    refused: int  # unsupported: the backend said it lacks what the graph needs
    known: int = 0  # of the failed, those an expectation explains (a backend's known failure, a WPT case note)

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.refused


@dataclass(frozen=True)
class DeclaredVsProbed:
    """The newest probe's opSupportLimits entries (limits_entries), declared by the backend against probed working."""

    device: str
    both: int
    declared_only: int  # declared, not measured working
    probed_only: int  # measured working, not declared


@dataclass(frozen=True)
class BackendLead:
    """What the archive site's index leads with: the backend with the most archived versions (the
    browser, in an archive of its releases), at its newest version, and what changed since the one before."""

    name: str
    version: str
    previous_version: str
    cases: tuple[CorpusCounts, ...]
    declared: tuple[DeclaredVsProbed, ...]
    changes: tuple["VersionChanges", ...]  # from previous_version to version, one per device


@dataclass(frozen=True)
class ArchiveInfo:
    """What the shared pages show of the archive (``SiteModel.archive``)."""

    stale_days: int
    built: str
    entries: int
    last_run: Mapping[ColumnKey, LastRun]
    history_ops: frozenset[str] = frozenset()  # operators with a history page
    lead: BackendLead | None = None

    def column(self, kind: str, backend: BackendId) -> LastRun | None:
        return self.last_run.get((kind, backend.name, backend.version, backend.device, backend.machine))


@dataclass(frozen=True)
class BenchChange:
    benchmark: str
    variant: str
    verdict: str  # slower | faster | broken | fixed
    base_median: float | None
    new_median: float | None
    ratio: float | None
    p_value: float | None
    reason: str


@dataclass(frozen=True)
class FindingChange:
    id: str
    ops: tuple[str, ...]
    status: str
    message: str


@dataclass(frozen=True)
class VersionChanges:
    """One backend on one device from one version to the next."""

    name: str
    device: str
    base_version: str
    new_version: str
    base_date: str
    new_date: str
    machines: str = ""  # the machines the newest outputs of the two versions came from
    machine_note: str = ""  # the two versions' runs came from different machines (classes): said beside the cases
    runs_compared: bool = False
    newly_failing: tuple[CaseChange, ...] = ()
    newly_passing: tuple[CaseChange, ...] = ()
    other_cases: int = 0  # changed between two non-passing statuses, new or removed (not listed)
    probes_compared: bool = False
    limits_gained: tuple[str, ...] = ()
    limits_lost: tuple[str, ...] = ()
    declared_compared: bool = False  # both probes carry the backend's own declared table (opSupportLimits())
    declared_gained: tuple[str, ...] = ()
    declared_lost: tuple[str, ...] = ()
    bench_compared: bool = False
    bench_note: str = ""
    bench_noise: str = ""  # the machine noise the benches measured, where either is noisy
    slower: tuple[BenchChange, ...] = ()
    faster: tuple[BenchChange, ...] = ()
    fuzz_compared: bool = False
    findings_new: tuple[FindingChange, ...] = ()
    findings_gone: tuple[FindingChange, ...] = ()

    @property
    def anchor(self) -> str:
        return slug(f"{self.name}-{self.device}-{self.base_version}-{self.new_version}")

    @property
    def count(self) -> int:
        return (len(self.newly_failing) + len(self.newly_passing) + len(self.limits_gained) + len(self.limits_lost)
                + len(self.declared_gained) + len(self.declared_lost)
                + len(self.slower) + len(self.faster) + len(self.findings_new) + len(self.findings_gone))


@dataclass(frozen=True)
class Point:
    version: str
    date: str
    value: float | None
    detail: str  # "41/42 passed", "1.23 ms"
    step: Step | None = None  # the step that starts at this point
    noisy: bool = False  # timed on a machine whose own noise passes NOISY_CV: no step is called at it


@dataclass(frozen=True)
class Series:
    name: str
    device: str
    metric: str  # "pass rate" or "median latency: <benchmark> <variant>"
    unit: str  # "rate" | "seconds"
    points: tuple[Point, ...]
    steps: tuple[Step, ...]

    @property
    def anchor(self) -> str:
        return slug(f"{self.name}-{self.device}-{self.metric}")


@dataclass(frozen=True)
class Reuse:
    """How much of a build came from the site's cache: the entries whose files it read, the pages it drew."""

    entries_read: int
    entries: int
    pages_drawn: int = 0
    pages: int = 0

    @property
    def line(self) -> str:
        return f"entries read: {self.entries_read} of {self.entries}; pages drawn: {self.pages_drawn} of {self.pages}"


@dataclass(frozen=True)
class MachineDisagreement:
    """One backend version's newest runs on two machine classes (issue #47), and the cases whose status
    differs between them: as wpt.fyi keeps browsers apart, the changes page keeps machines apart."""

    name: str
    device: str
    version: str
    base_machine: str  # the entries' machine texts, with their class: "AMD EPYC, ... [AVX512_CORE_BF16]"
    new_machine: str
    cases: tuple[CaseChange, ...]  # ``base``: the status on base_machine, ``new``: on new_machine

    @property
    def anchor(self) -> str:
        return slug(f"machines-{self.name}-{self.device}-{self.version}-{self.base_machine}-{self.new_machine}")


@dataclass(frozen=True)
class ArchiveModel:
    site: SiteModel
    changes: tuple[VersionChanges, ...]
    history: Mapping[str, tuple[Series, ...]]  # op -> its series (ops with any)
    warnings: tuple[str, ...]
    reuse: Reuse | None = None  # build_archive_model's, with the pages once they are drawn
    machine_disagreements: tuple[MachineDisagreement, ...] = ()

    @property
    def steps(self) -> list[tuple[str, Series, Step]]:
        return [(op, s, st) for op, series in self.history.items() for s in series for st in s.steps]


# --------------------------------------------------------------------------- columns


def _when(date: str) -> datetime | None:
    try:
        d = datetime.fromisoformat(date.replace("Z", "+00:00"))
    except ValueError:
        return None
    return d if d.tzinfo else d.replace(tzinfo=timezone.utc)


def _labelled(backend, labels: Mapping[str, str]):
    """A column whose run is an archive entry, named by the run's label: the entry's folder name is
    its hash, which says nothing (conformance._run_label names a run by its folder otherwise)."""
    label = labels.get(backend.header.source)
    return dataclasses.replace(backend, header=dataclasses.replace(backend.header, label=label)) if label else backend


def _newest_first(items: Sequence[Any], key) -> list[Any]:
    """By backend name, then version (newest first), then date (newest first)."""
    ordered = sorted(items, key=lambda x: (_version_key(key(x)[1]), key(x)[2]), reverse=True)
    return sorted(ordered, key=lambda x: key(x)[0])


def last_runs(entries: Sequence[Entry], now: datetime, stale_days: int) -> dict[ColumnKey, tuple[LastRun, Entry]]:
    """Each column's newest entry (entries come oldest first). An entry archived before machine classes
    were recorded is no column of its own beside a newer one of that version that names its class:
    its runs count in the newer column of the same hardware (archive/store.same_machine)."""
    out: dict[ColumnKey, tuple[LastRun, Entry]] = {}
    for e in entries:
        for b in e.backends:
            key = (e.kind, b.name, b.version, b.device, text_class(e.machine))
            runs = out[key][0].runs + 1 if key in out else 1
            when = _when(e.date)
            stale = when is not None and now - when > timedelta(days=stale_days)
            out[key] = (LastRun(e.date, stale, runs), e)
    for key in [k for k in out if not k[4]]:
        (lr, e), classed = out[key], [k for k in out if k[:4] == key[:4] and k[4]]
        if classed and all(out[k][0].date >= lr.date for k in classed):
            del out[key]
            same = next((k for k in sorted(classed) if same_machine(out[k][1].machine, e.machine)), None)
            if same:
                out[same] = (dataclasses.replace(out[same][0], runs=out[same][0].runs + lr.runs), out[same][1])
    return out


def per_version(columns: Mapping[ColumnKey, tuple[LastRun, Entry]]) -> dict[VersionKey, tuple[LastRun, Entry]]:
    """The newest column of each (kind, backend, version, device) whatever its machine class: what the
    changes between versions and the index's lead compare (a change of machine is said there: machine_note)."""
    out: dict[VersionKey, tuple[LastRun, Entry]] = {}
    for (*version_key, _), (lr, e) in sorted(columns.items(), key=lambda kv: kv[1][0].date):
        out[tuple(version_key)] = (lr, e)  # type: ignore[index]
    return out


def pair_columns(columns: Mapping[ColumnKey, tuple[LastRun, Entry]], name: str, device: str, base: str,
                 new: str) -> dict[VersionKey, tuple[LastRun, Entry]]:
    """The columns the changes from ``base`` to ``new`` compare, per kind: of a machine class both versions
    were archived from (the class of the newest such ``new`` column), so that a change of machine is not
    read as one of version; where they share none, the newest of each (and machine_note says so)."""
    out: dict[VersionKey, tuple[LastRun, Entry]] = {}
    for kind in sorted({k[0] for k in columns if k[1] == name and k[3] == device}):
        by_class = [{k[4]: columns[k] for k in columns if k[:4] == (kind, name, v, device)} for v in (base, new)]
        common = set(by_class[0]) & set(by_class[1])
        shared = max(common, key=lambda c: by_class[1][c][0].date) if common else None
        for v, got in zip((base, new), by_class):
            if got:
                out[(kind, name, v, device)] = got[shared] if shared is not None else max(
                    got.values(), key=lambda c: c[0].date)
    return out


def _with_class(backend: BackendId, machine: str, several: bool, taken: set[str]) -> BackendId:
    """A column kept apart by its machine class: named by the class where its version has columns on
    several classes ("openvino 2026.4.1 · AVX2"), as it was where it has one."""
    if not several:
        return dataclasses.replace(backend, machine=machine)
    # The name BackendIds gave a second column of a version says which archive entry (a hash) it came from:
    # the class says more. Two columns of one class (other settings) are numbered, as BackendIds does.
    label = named = f"{backend.name} {backend.short_version} · {machine or 'machine class not recorded'}".strip()
    n = 2
    while label in taken:
        label, n = f"{named} ({n})", n + 1
    taken.add(label)
    return dataclasses.replace(backend, machine=machine, label=label)


def _kept_apart(columns: Sequence[Any]) -> list[Any]:
    """Conformance or probe columns, each with its machine class set, labelled by it where its version
    has columns on several classes."""
    classes: dict[tuple, set[str]] = defaultdict(set)
    for c in columns:
        classes[(c.backend.name, c.backend.version, c.backend.device)].add(c.backend.machine)
    taken = {c.backend.label for c in columns}
    return [_relabelled(c, _with_class(
        c.backend, c.backend.machine, len(classes[(c.backend.name, c.backend.version, c.backend.device)]) > 1, taken))
        for c in columns]


def _relabelled(column: Any, backend: BackendId) -> Any:
    """A conformance or probe column with its BackendId replaced wherever it holds one (its problems,
    its operators' cells), so that every page names the column alike."""
    def swap(x):
        return dataclasses.replace(x, backend=backend)

    if isinstance(column, ProbeBackend):
        return dataclasses.replace(column, backend=backend, ops={op: swap(c) for op, c in column.ops.items()})
    return dataclasses.replace(column, backend=backend, problems=tuple(map(swap, column.problems)),
                               tight_passes=tuple(map(swap, column.tight_passes)))


def _on_class(column: Any, machine: Any) -> Any:
    """A conformance or probe column with the machine class its output recorded (archive/store.recorded_class)."""
    return _relabelled(column, dataclasses.replace(column.backend, machine=recorded_class(machine)))


def _is_newest(info: ArchiveInfo, kind: str, backend: BackendId, date: str) -> bool:
    """Whether a column read from an entry is its column's newest (an entry of several backends may be
    the newest for one and not another); one of no column (its entry's backends named otherwise) is kept."""
    lr = info.column(kind, backend)
    if lr is not None:
        return lr.date == date
    return not any(k[:4] == (kind, backend.name, backend.version, backend.device) for k in info.last_run)


def _columns_model(archive: Archive, newest: Mapping[ColumnKey, tuple[LastRun, Entry]], info: ArchiveInfo,
                   readers: ColumnReaders) -> SiteModel:
    # The performance page shows the newest bench of each backend and device only: its charts
    # put every column side by side, and the history pages follow latencies across versions.
    newest_bench: dict[Line, tuple[tuple, Entry]] = {}
    for (kind, name, version, device, _), (lr, e) in newest.items():
        key = (_version_key(version), lr.date)
        if kind == "bench" and ((name, device) not in newest_bench or newest_bench[(name, device)][0] < key):
            newest_bench[(name, device)] = (key, e)
    chosen = [e for (kind, *_), (_, e) in newest.items() if kind != "bench"] + [e for _, e in newest_bench.values()]
    folders = sorted({archive.entries_dir / e.id for e in chosen})
    readers.read.update(e.id for e in chosen if e.kind not in ("run", "probe"))  # read from their folders
    model = build_model(folders, run_reader=readers.runs, probe_reader=readers.probe)
    # An entry of several backends may be the newest for one and not another: keep newest columns only.
    labels = {e.id: e.label for e in chosen}
    backends = [_labelled(b, labels) for b in (_on_class(b, b.header.machine) for b in model.conformance.backends)
                if _is_newest(info, "run", b.backend, b.header.date)]
    key = lambda b: (b.backend.name, b.backend.version, b.header.date)  # noqa: E731
    backends = _newest_first(_kept_apart(backends), key)
    # Every non-pass of the columns kept, as each now names its backend (its class, where a version has several).
    problems = tuple(sorted((p for b in backends for p in b.problems), key=problem_rank))
    conformance = dataclasses.replace(model.conformance, backends=tuple(backends), problems=problems)
    probes = _kept_apart([_on_class(p, p.header.get("machine")) for p in model.probes])
    probes = _newest_first(probes, lambda p: (p.backend.name, p.backend.version, str(p.header.get("date", ""))))
    return dataclasses.replace(model, conformance=conformance, probes=tuple(probes), archive=info,
                               inputs=tuple(f"archive entry {f.name}" for f in folders))


# --------------------------------------------------------------------------- changes


def limits_entries(limits: Mapping[str, Any]) -> set[str]:
    """An opSupportLimits file as a set of entries people read: "conv2d.input: float16",
    "conv2d.input: rank 3–5", "preferredInputLayout: nhwc"."""
    out = set()
    for name, value in limits.items():
        if name.startswith("$"):  # "$provenance": who declared it, not a limit
            continue
        if not isinstance(value, Mapping):
            out.add(f"{name}: {value}")
            continue
        members = {"": value} if "dataTypes" in value else value
        for member, lim in members.items():
            if not isinstance(lim, Mapping):
                continue
            where = f"{name}.{member}" if member else name
            out.update(f"{where}: {t}" for t in lim.get("dataTypes") or () if isinstance(t, str))
            r = lim.get("rankRange")
            # A member with no data type supports no rank: its rankRange is a placeholder, not a fact
            if isinstance(r, Mapping) and lim.get("dataTypes"):
                out.add(f"{where}: rank {r.get('min')}–{r.get('max')}")
    return out


def _backend_digest(digest: Mapping[str, Any], name: str, version: str, device: str) -> Mapping[str, Any] | None:
    return next((b for b in digest.get("backends", ())
                 if (b["name"], b["version"], b["device"]) == (name, version, device)), None)


def _bench_records(digest: Mapping[str, Any], name: str) -> dict[tuple[str, str, str], dict]:
    """A bench digest as ``bench/regressions.compare_records`` takes it."""
    out = {}
    for r in digest.get("records", ()):
        if r["backend"] != name or (r["status"] == "ok" and not r["times"]):
            continue
        out[(r["benchmark"], r["variant"], r["backend"])] = {
            "status": r["status"], "message": r["message"], "latency": {"median": r["median"], "times": r["times"]}}
    return out


def _bench_changes(base: Mapping[str, Any], new: Mapping[str, Any], name: str) -> tuple[list[BenchChange], str]:
    before, after = _bench_records(base, name), _bench_records(new, name)
    for key in set(before) & set(after):
        # compare_records calls a pair "same" when its medians are within the threshold, whatever
        # the U test says: skip the test (tens of ms each) for those.
        b, n = before[key]["latency"]["median"], after[key]["latency"]["median"]
        if before[key]["status"] == after[key]["status"] == "ok" and b and n and 1 / (1 + LATENCY_STEP) <= n / b <= 1 + LATENCY_STEP:
            del before[key], after[key]
    try:
        from webnn_harness.bench.regressions import compare_records
        changes = compare_records(before, after, threshold=LATENCY_STEP,
                                  noise=(base.get("noiseCv"), new.get("noiseCv")))
    except ImportError:
        return [], NO_SCIPY
    return [BenchChange(c.benchmark, c.variant, c.verdict, c.base_median, c.new_median, c.ratio, c.p_value, c.reason)
            for c in changes if c.verdict in ("slower", "faster", "broken", "fixed")], ""


def _noise_note(base: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """What the changes page says of two benches on a noisy machine: a change within the noise is none."""
    cvs = [base.get("noiseCv"), new.get("noiseCv")]
    if not any(is_noisy(cv) for cv in cvs):
        return ""
    shown = " and ".join("not measured" if cv is None else f"{cv:.0%}" for cv in cvs)
    return (f"noisy machine: the benches measured a machine noise of CV {shown} (before, now); "
            f"a change within {max(cv for cv in cvs if cv is not None):.0%} is not called one")


def _findings(digest: Mapping[str, Any], ids: set[str]) -> tuple[FindingChange, ...]:
    found = digest.get("findings", {})
    return tuple(FindingChange(i, tuple(found[i]["ops"]), found[i]["status"], found[i]["message"]) for i in sorted(ids))


def version_changes(name: str, device: str, base: str, new: str,
                    newest: Mapping[VersionKey, tuple[LastRun, Entry]], digest) -> VersionChanges:
    def pair(kind: str):
        b, n = newest.get((kind, name, base, device)), newest.get((kind, name, new, device))
        return (digest(b[1]), digest(n[1])) if b and n else None

    fields: dict[str, Any] = {}
    dates = [newest[k][0].date for k in newest if k[1:] == (name, new, device)]
    base_dates = [newest[k][0].date for k in newest if k[1:] == (name, base, device)]
    if runs := pair("run"):
        bd, nd = (_backend_digest(d, name, v, device) for d, v in zip(runs, (base, new)))
        diff = diff_backend(name, case_outcomes(bd), case_outcomes(nd), bd["info"], nd["info"])
        fields.update(runs_compared=True, newly_failing=diff.regressions, newly_passing=diff.fixes,
                      other_cases=len(diff.changed) + len(diff.new) + len(diff.removed))
    if probes := pair("probe"):
        before, after = (limits_entries(d["limits"]) for d in probes)
        fields.update(probes_compared=True, limits_gained=tuple(sorted(after - before)),
                      limits_lost=tuple(sorted(before - after)))
        if all(isinstance(d.get("declared"), Mapping) for d in probes):
            before, after = (limits_entries(d["declared"]) for d in probes)
            fields.update(declared_compared=True, declared_gained=tuple(sorted(after - before)),
                          declared_lost=tuple(sorted(before - after)))
    bench_entries = [newest.get(("bench", name, v, device)) for v in (base, new)]
    run_entries = [newest.get(("run", name, v, device)) for v in (base, new)]
    if runs and not same_machine(run_entries[0][1].machine, run_entries[1][1].machine):
        # Issue #47: a kernel's result can depend on the CPU's instruction set (OpenVINO's gelu on AVX-512).
        fields["machine_note"] = (f"the two versions ran on different machines ({run_entries[0][1].machine or '?'} "
                                  f"before, {run_entries[1][1].machine or '?'} now): a case may have changed with "
                                  f"the machine, not the version")
    if (benches := pair("bench")) and not same_machine(bench_entries[0][1].machine, bench_entries[1][1].machine):
        # As bench --baseline says of two Ray nodes: times of two machines are no regression.
        fields["bench_note"] = (f"benchmarks not compared: timed on different machines "
                                f"({bench_entries[0][1].machine or '?'} before, {bench_entries[1][1].machine or '?'} now)")
    elif benches:
        changes, note = _bench_changes(*benches, name)
        fields.update(bench_compared=not note, bench_note=note, bench_noise=_noise_note(*benches),
                      slower=tuple(c for c in changes if c.verdict in ("slower", "broken")),
                      faster=tuple(c for c in changes if c.verdict in ("faster", "fixed")))
    if fuzz := pair("fuzz"):
        before, after = (set(d["findings"]) for d in fuzz)
        fields.update(fuzz_compared=True, findings_new=_findings(fuzz[1], after - before),
                      findings_gone=_findings(fuzz[0], before - after))
    machines = sorted({newest[k][1].machine for k in newest if k[1] == name and k[2] in (base, new) and k[3] == device})
    return VersionChanges(name, device, base, new, max(base_dates, default=""), max(dates, default=""),
                          machines="; ".join(m for m in machines if m), **fields)


def machine_disagreements(entries: Sequence[Entry], digest) -> tuple[MachineDisagreement, ...]:
    """For each backend version run on several machine classes, the newest run of each class against
    the first class's: the cases whose status differs (entries archived before classes were recorded
    are not compared)."""
    newest: dict[tuple[str, str, str], dict[str, Entry]] = defaultdict(dict)
    for e in entries:  # oldest first: the last one kept per class is the newest
        if e.kind == "run" and text_class(e.machine):
            for b in e.backends:
                newest[(b.name, b.version, b.device)][text_class(e.machine)] = e
    out = []
    for (name, version, device), by_class in sorted(newest.items()):
        machines = [by_class[c] for c in sorted(by_class)]
        for other in machines[1:]:
            base, new = (_backend_digest(digest(e), name, version, device) for e in (machines[0], other))
            if base is None or new is None:
                continue
            diff = diff_backend(name, case_outcomes(base), case_outcomes(new), base["info"], new["info"])
            cases = (*diff.regressions, *diff.fixes, *diff.changed)
            if cases:
                out.append(MachineDisagreement(name, device, version, machines[0].machine, other.machine,
                                               tuple(sorted(cases, key=lambda c: c.id))))
    return tuple(out)


def _changes_from_json(doc: Mapping[str, Any]) -> VersionChanges:
    """A VersionChanges as ``dataclasses.asdict`` wrote it into the cache."""
    nested = {"newly_failing": CaseChange, "newly_passing": CaseChange, "slower": BenchChange,
              "faster": BenchChange, "findings_new": FindingChange, "findings_gone": FindingChange}
    fields = {k: tuple(nested[k](**{f: tuple(v) if isinstance(v, list) else v for f, v in x.items()}) for x in v)
              if k in nested else tuple(v) if isinstance(v, list) else v for k, v in doc.items()}
    return VersionChanges(**fields)


def cached_version_changes(name: str, device: str, base: str, new: str,
                           newest: Mapping[VersionKey, tuple[LastRun, Entry]], digest, cache: Path | None,
                           used: set[str]) -> VersionChanges:
    """``version_changes``, kept in ``cache`` by the ids of the entries it compares (an entry
    never changes): a build after one entry was added compares only the pairs it is in.
    ``used`` collects the cache files this build needs (the others are removed after it)."""
    ids = sorted((k[0], k[2], e.id) for k, (_, e) in newest.items() if k[1] == name and k[2] in (base, new) and k[3] == device)
    file = f"{CHANGES_PREFIX}{content_key(name, device, base, new, ids, CHANGES_FORMAT, DIGEST_FORMAT, LATENCY_STEP)}.json"
    used.add(file)
    doc = read_cached(cache, file)
    if isinstance(doc, dict):
        try:
            return _changes_from_json(doc)
        except (TypeError, ValueError, AttributeError):
            pass  # a damaged (or edited: the site folder is anyone's) cache file is computed again
    changes = version_changes(name, device, base, new, newest, digest)
    if changes.bench_note != NO_SCIPY:  # installing scipy later must compare them
        write_cached(cache, file, dataclasses.asdict(changes))
    return changes


# --------------------------------------------------------------------------- the index's lead


FAILED = ("fail", "error", "crash", "timeout")


def corpus_counts(device: str, cases: Mapping[str, Sequence[Any]]) -> list[CorpusCounts]:
    """A run digest's cases counted per corpus (a case id's first folder; skipped cases left out)."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for cid, (status, *rest) in cases.items():
        corpus = corpus_of(cid)
        slot = 0 if status == "pass" else 1 if status in FAILED else 2 if status == "unsupported" else None
        if slot is not None:
            counts[corpus][slot] += 1
        if slot == 1 and rest and rest[0]:  # the digest keeps a record's known-failure reason beside its status
            counts[corpus][3] += 1
    return [CorpusCounts(device, corpus, *c) for corpus, c in sorted(counts.items())]


def declared_vs_probed(device: str, digest: Mapping[str, Any]) -> DeclaredVsProbed | None:
    """A probe digest's declared table against its probed one, entry by entry; None without a declared table."""
    if not isinstance(digest.get("declared"), Mapping):
        return None
    declared, probed = limits_entries(digest["declared"]), limits_entries(digest["limits"])
    return DeclaredVsProbed(device, len(declared & probed), len(declared - probed), len(probed - declared))


def lead_backend(newest: Mapping[VersionKey, tuple[LastRun, Entry]]) -> str | None:
    """The backend with the most archived run versions (ties: by name); None with fewer than two."""
    versions: dict[str, set[str]] = defaultdict(set)
    for kind, name, version, _ in newest:
        if kind == "run":
            versions[name].add(version)
    ranked = sorted(versions.items(), key=lambda nv: (-len(nv[1]), nv[0]))
    return ranked[0][0] if ranked and len(ranked[0][1]) > 1 else None


def backend_lead(newest: Mapping[VersionKey, tuple[LastRun, Entry]], digest,
                 changes: Sequence[VersionChanges]) -> BackendLead | None:
    name = lead_backend(newest)
    if name is None:
        return None
    ordered = sorted({k[2] for k in newest if k[0] == "run" and k[1] == name}, key=_version_key)
    version, previous = ordered[-1], ordered[-2]
    cases, declared = [], []
    for (kind, n, v, device), (_, entry) in sorted(newest.items()):
        if (n, v) != (name, version):
            continue
        if kind == "run" and (bd := _backend_digest(digest(entry), name, version, device)) is not None:
            cases += corpus_counts(device, bd["cases"])
        elif kind == "probe" and (dv := declared_vs_probed(device, digest(entry))) is not None:
            declared.append(dv)
    since = tuple(c for c in changes if (c.name, c.base_version, c.new_version) == (name, previous, version))
    return BackendLead(name, version, previous, tuple(cases), tuple(declared), since)


# --------------------------------------------------------------------------- history


class StepsCache:
    """``detect_steps`` of each series, kept in the cache folder by the series' values: a build
    after one entry was added fits only the series that entry adds a point to. Only the
    series of this build are kept, so the file does not grow with every build."""

    def __init__(self, cache: Path | None):
        self.cache, self.file = cache, f"steps-{STEPS_FORMAT}.json"
        doc = read_cached(cache, self.file)
        self.kept: dict[str, Any] = doc if isinstance(doc, dict) else {}
        self.used: dict[str, list] = {}

    def __call__(self, values: Sequence[float], min_relative: float) -> tuple[Step, ...]:
        key = content_key(list(values), min_relative)
        found = self.used.get(key, self.kept.get(key))  # used: series of equal values in this build
        try:
            steps = tuple(Step(int(i), float(b), float(a)) for i, b, a in found) if isinstance(found, list) else None
        except (TypeError, ValueError):
            steps = None  # a damaged cache entry is computed again
        if steps is None:
            steps = detect_steps(values, min_relative=min_relative)
        self.used[key] = [[s.index, s.before, s.after] for s in steps]
        return steps

    def save(self) -> None:
        if self.used != self.kept:
            write_cached(self.cache, self.file, self.used)


def _series(name: str, device: str, metric: str, unit: str, points: list[Point], min_relative: float,
            steps_of=detect_steps) -> Series:
    values = [p.value for p in points]
    found = steps_of([v for v in values if v is not None], min_relative=min_relative)
    index = [i for i, v in enumerate(values) if v is not None]  # a step's index among the points with a value
    # A step into or out of a noisy bench's point is the machine's, not the backend's: not called.
    steps = tuple(s for s in found if not (points[index[s.index]].noisy or points[index[s.index - 1]].noisy))
    at = {index[s.index]: s for s in steps}
    return Series(name, device, metric, unit, tuple(dataclasses.replace(p, step=at.get(i)) for i, p in enumerate(points)),
                  steps)


def op_history(entries: Sequence[Entry], digest, steps_of=detect_steps) -> dict[str, list[Series]]:
    """Per op: pass-rate series from runs, median-latency series from benches, one per backend and device.
    ``steps_of``: ``detect_steps``, or a ``StepsCache``."""
    by_line: dict[tuple[str, Line], list[tuple[Entry, str]]] = defaultdict(list)
    for e in entries:
        if e.kind in ("run", "bench"):
            for b in e.backends:
                by_line[(e.kind, (b.name, b.device))].append((e, b.version))
    out: dict[str, list[Series]] = defaultdict(list)
    for (kind, (name, device)), items in sorted(by_line.items()):
        items.sort(key=lambda ev: (_version_key(ev[1]), ev[0].date))
        if kind == "run":
            rates: dict[str, list[Point]] = defaultdict(list)
            per_point = []
            for e, version in items:
                bd = _backend_digest(digest(e), name, version, device) or {"ops": {}}
                per_point.append((e, version, bd["ops"]))
            for op in sorted({op for *_, ops in per_point for op in ops}):
                for e, version, ops in per_point:
                    passed, tested = ops.get(op, (0, 0))
                    rates[op].append(Point(version, e.date, passed / tested if tested else None,
                                           f"{passed}/{tested} passed" if tested else "not tested"))
                out[op].append(_series(name, device, "pass rate", "rate", rates[op], 0.0, steps_of))
        else:
            medians: dict[tuple[str, str, str], list[Point]] = defaultdict(list)
            keys = set()
            digests = [(e, version, digest(e)) for e, version in items]
            for _, _, d in digests:
                keys |= {(r["op"], r["benchmark"], r["variant"]) for r in d["records"]
                         if r["backend"] == name and r["kind"] == "op" and r["op"]}
            for e, version, d in digests:
                got = {(r["op"], r["benchmark"], r["variant"]): r for r in d["records"] if r["backend"] == name}
                cv = d.get("noiseCv")
                noisy = is_noisy(cv)
                for key in keys:
                    r = got.get(key)
                    value = r["median"] if r and r["status"] == "ok" else None
                    detail = "" if value is not None else (r["status"] if r else "not run")
                    if noisy:
                        detail = f"{detail}; noisy machine (CV {cv:.0%})".lstrip("; ")
                    medians[key].append(Point(version, e.date, value, detail, noisy=noisy))
            for (op, benchmark, variant), points in sorted(medians.items()):
                out[op].append(_series(name, device, f"median latency: {benchmark} {variant}", "seconds", points,
                                       LATENCY_STEP, steps_of))
    return out


# --------------------------------------------------------------------------- the whole


@reads_inputs
def build_archive_model(path: str | Path, cache: Path | None = None, now: datetime | None = None,
                        stale_days: int = STALE_DAYS) -> ArchiveModel:
    """The site model of an archive; ``cache`` keeps entry digests between builds."""
    archive = Archive(path)
    try:
        entries, problems = archive.entries()
    except ArchiveError as exc:
        raise ReportInputError(str(exc)) from None
    if not entries:
        raise ReportInputError(f"{path}: the archive holds no readable entry"
                               + (f" ({problems[0]})" if problems else ""))
    runs_read: dict[Path, list] = {}

    def run_reader(folder: Path) -> list:
        """Each run folder read once, for the columns and for its digest."""
        if folder not in runs_read:
            runs_read[folder] = read_run(folder)
        return runs_read[folder]

    readers = ColumnReaders(archive.entries_dir, cache, run_reader)
    digests: dict[str, dict] = {}

    def digest(e: Entry) -> dict:
        if e.id not in digests:
            digests[e.id] = entry_digest(archive, e, cache, run_reader, readers.read)
        return digests[e.id]

    # An entry changed since it was archived (its files, or what its entry.json says of them) is left
    # out, with one line: the rest is built.
    checked = [(e, archive.verify(e)) for e in entries]
    checked = [(e, why or description_problem(e, digest(e))) for e, why in checked]
    problems = (*problems, *(why for _, why in checked if why))
    entries = tuple(e for e, why in checked if not why)
    if not entries:
        raise ReportInputError(f"{path}: no entry of the archive can be read ({problems[0]})")
    now = now or datetime.now(timezone.utc)
    columns = last_runs(entries, now, stale_days)
    info = ArchiveInfo(stale_days, now.isoformat(timespec="seconds"), len(entries),
                       {k: lr for k, (lr, _) in columns.items()})
    site = _columns_model(archive, columns, info, readers)
    newest = per_version(columns)
    prune_cached(cache, PIECES_PREFIX, readers.used)  # entries no longer a column's newest
    warnings = list(problems)

    versions: dict[Line, set[str]] = defaultdict(set)
    for kind, name, version, device in newest:
        versions[(name, device)].add(version)
    changes, used = [], set()
    for (name, device), vs in sorted(versions.items()):
        ordered = sorted(vs, key=_version_key)
        for base, new in zip(ordered, ordered[1:]):
            compared = pair_columns(columns, name, device, base, new)
            changes.append(cached_version_changes(name, device, base, new, compared, digest, cache, used))
    prune_cached(cache, CHANGES_PREFIX, used)  # pairs no longer consecutive: the cache does not grow with every build
    changes = _newest_first(changes, lambda c: (c.name, c.new_version, c.new_date))
    # An operator name read from a record becomes a page name only when the catalog knows it.
    steps_cache = StepsCache(cache)
    history = {op: series for op, series in op_history(entries, digest, steps_cache).items() if op in operators()}
    steps_cache.save()
    lead = backend_lead(newest, digest, changes)
    site = dataclasses.replace(site, archive=dataclasses.replace(info, history_ops=frozenset(history), lead=lead))
    return ArchiveModel(dataclasses.replace(site, warnings=tuple(dict.fromkeys([*site.warnings, *warnings]))),
                        tuple(changes), {op: tuple(s) for op, s in sorted(history.items())}, tuple(warnings),
                        Reuse(len(readers.read), len(entries)), machine_disagreements(entries, digest))


def spark(series: Series, width: int = 320, height: int = 48, pad: int = 4) -> dict[str, Any]:
    """Inline-SVG geometry of a series: the polyline through its points with a value, and a dot at each step."""
    known = [(i, p.value) for i, p in enumerate(series.points) if p.value is not None]
    if not known:
        return {"width": width, "height": height, "points": "", "steps": []}
    lo, hi = min(v for _, v in known), max(v for _, v in known)
    if series.unit == "rate":
        lo, hi = min(lo, 0.0), max(hi, 1.0)  # rates on their whole scale: a 1% dip looks like one
    span_x = max(len(series.points) - 1, 1)
    span_y = (hi - lo) or 1.0

    def xy(i: int, v: float) -> tuple[float, float]:
        return (round(pad + (width - 2 * pad) * i / span_x, 1), round(height - pad - (height - 2 * pad) * (v - lo) / span_y, 1))

    return {"width": width, "height": height, "points": " ".join(f"{x},{y}" for x, y in (xy(i, v) for i, v in known)),
            "steps": [xy(i, p.value) for i, p in enumerate(series.points) if p.step and p.value is not None]}
