"""Results and probe files -> the site model (plain frozen data, no HTML).

The pages are built by family: `common` (identity, formatting, re-run
commands), `conformance` (run results), `capability` (probe outputs); this
module finds the inputs and assembles the site.

The renderer only formats what is here; every count, rate, gap and re-run
command is decided in this module so it can be tested without templates.

Inputs:
- run directories (``results.jsonl`` and, normally, ``summary.json``) written
  by ``webnn-harness run``; one run may hold several backends;
- bench folders (``bench.jsonl`` and ``summary.json``) written by
  ``webnn-harness bench``, for the performance page (``performance``);
- fuzz folders (``summary.json`` with ``"kind": "fuzz"``, ``findings/``)
  written by ``webnn-harness fuzz``, for the findings page (``findings``);
- probe outputs: ``<backend>-opSupportLimits.json`` (MLOpSupportLimits as the
  spec shapes it, see the spec's "MLOpSupportLimits dictionary") and
  ``<backend>-probe.json`` (the evidence behind it: header, layout timings,
  per-combination outcomes).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from webnn_harness.spec.catalog import operators
from webnn_harness.reports.capability import (
    ProbeBackend,
    _version_key,
    build_probe_backend,
    version_changes,
)
from webnn_harness.reports.common import (
    HEADER_SUFFIX,
    LIMITS_SUFFIX,
    PROBE_SUFFIX,
    BackendIds,
    ReportInputError,
)
from webnn_harness.reports.accuracy import AccuracyModel, build_accuracy, is_accuracy_file
from webnn_harness.reports.conformance import Conformance, build_conformance, read_run
from webnn_harness.reports.findings import FindingsModel, build_findings, is_fuzz_summary
from webnn_harness.reports.performance import BENCH_FILE, PerformanceModel, SpeedTier, build_performance, tiers_by_probe
from webnn_harness.reports.sitefolder import MANIFEST as SITE_MANIFEST

# --------------------------------------------------------------------------- the whole site


@dataclass(frozen=True)
class SiteModel:
    conformance: Conformance
    probes: tuple[ProbeBackend, ...]
    limits_payloads: Mapping[str, Any]  # download file name -> the limits JSON as read
    ops: tuple[str, ...]
    harness_version: str
    inputs: tuple[str, ...]

    changed: frozenset[tuple[str, str]] = frozenset()  # (probe slug, op) that differ from the previous version
    warnings: tuple[str, ...] = ()  # inputs read in part (unreadable lines), for the CLI to print
    performance: PerformanceModel | None = None  # from bench folders
    speed_tiers: Mapping[tuple[str, str], tuple[SpeedTier, ...]] = field(default_factory=dict)  # (probe slug, op)
    findings: FindingsModel | None = None  # from fuzz folders
    accuracy: AccuracyModel | None = None  # from accuracy folders
    archive: Any = None  # reports/archive.ArchiveInfo: the site was built from an archive (report --archive)

    @property
    def has_accuracy(self) -> bool:
        return self.accuracy is not None and bool(self.accuracy.runs)

    @property
    def has_findings(self) -> bool:
        return self.findings is not None and bool(self.findings.runs)

    @property
    def has_bench(self) -> bool:
        return self.performance is not None and self.performance.has_bench

    @property
    def has_probes(self) -> bool:
        return bool(self.probes)

    @property
    def has_runs(self) -> bool:
        return bool(self.conformance.backends)


@dataclass
class _Found:
    runs: list[Path] = field(default_factory=list)
    limits: dict[str, Path] = field(default_factory=dict)  # stem -> path
    headers: dict[str, Path] = field(default_factory=dict)
    probes: dict[str, Path] = field(default_factory=dict)
    benches: list[Path] = field(default_factory=list)
    fuzz: list[Path] = field(default_factory=list)
    accuracy: list[Path] = field(default_factory=list)


def discover(inputs: Iterable[str | Path]) -> _Found:
    """Run directories and probe files under the given paths (searched recursively)."""
    found = _Found()

    def add_file(p: Path) -> bool:
        if p.name == BENCH_FILE or (p.name == "summary.json" and (p.parent / BENCH_FILE).exists()):
            if p.parent not in found.benches:
                found.benches.append(p.parent)
            return True
        if is_accuracy_file(p):
            if p.parent not in found.accuracy:
                found.accuracy.append(p.parent)
            return True
        if is_fuzz_summary(p):
            if p.parent not in found.fuzz:
                found.fuzz.append(p.parent)
            return True
        if p.name == "results.jsonl" or p.name == "summary.json":
            if p.parent not in found.runs and (p.parent / "results.jsonl").exists():
                found.runs.append(p.parent)
            return True
        if p.name.endswith(LIMITS_SUFFIX):
            found.limits[str(p.parent / p.name[: -len(LIMITS_SUFFIX)])] = p
            return True
        if p.name.endswith(HEADER_SUFFIX):
            found.headers[str(p.parent / p.name[: -len(HEADER_SUFFIX)])] = p
            return True
        if p.name.endswith(PROBE_SUFFIX):
            found.probes[str(p.parent / p.name[: -len(PROBE_SUFFIX)])] = p
            return True
        return False

    for raw in inputs:
        p = Path(raw)
        if not p.exists():
            raise ReportInputError(f"{p}: no such file or folder")
        if p.is_file():
            if not add_file(p):
                raise ReportInputError(f"{p}: not a results.jsonl, {BENCH_FILE}, summary.json, "
                                       f"*{LIMITS_SUFFIX} or *{PROBE_SUFFIX} file")
            continue
        before = (len(found.runs), len(found.limits), len(found.probes), len(found.benches), len(found.fuzz), len(found.accuracy))
        # A site an earlier report wrote here holds data/*-opSupportLimits.json
        # copies: read as probes, they made a ghost backend page (issue 28).
        sites = {m.parent for m in p.rglob(SITE_MANIFEST)}
        for child in sorted(p.rglob("*")):
            if child.is_file() and not sites.intersection(child.parents):
                add_file(child)
        if (len(found.runs), len(found.limits), len(found.probes), len(found.benches), len(found.fuzz), len(found.accuracy)) == before:
            raise ReportInputError(f"{p}: no run results (results.jsonl), bench results ({BENCH_FILE}), fuzz "
                                   f"findings (summary.json of fuzz), accuracy results (accuracy.jsonl) or probe outputs (*{LIMITS_SUFFIX}, "
                                   f"*{PROBE_SUFFIX}) in this folder")
    return found


def build_model(inputs: Sequence[str | Path], run_reader=read_run) -> SiteModel:
    """``run_reader``: ``conformance.read_run`` or one that remembers what it read (report --archive)."""
    from webnn_harness import __version__

    found = discover(inputs)
    groups = [g for run_dir in found.runs for g in run_reader(run_dir)]
    conformance = build_conformance(groups, BackendIds())
    probes = []
    payloads: dict[str, Any] = {}
    probe_ids = BackendIds()  # probe pages and run anchors are separate name spaces
    for stem in sorted(set(found.limits) | set(found.probes)):
        pb, limits = build_probe_backend(stem, found.limits.get(stem), found.headers.get(stem),
                                         found.probes.get(stem), probe_ids)
        probes.append(pb)
        if pb.limits_download:
            payloads[pb.limits_download] = limits
    # Several versions of one backend side by side: group columns by name, versions in order.
    probes.sort(key=lambda p: (p.backend.name, _version_key(p.backend.version), p.backend.slug))
    performance = build_performance(found.benches) if found.benches else None
    findings = build_findings(found.fuzz) if found.fuzz else None
    accuracy = build_accuracy(found.accuracy) if found.accuracy else None
    return SiteModel(
        conformance=conformance, probes=tuple(probes), limits_payloads=payloads, ops=tuple(operators()),
        harness_version=__version__, inputs=tuple(str(i) for i in inputs), changed=version_changes(probes),
        warnings=tuple(dict.fromkeys([*(p for g in groups for p in g.problems), *(findings.warnings if findings else ()),
                                      *(accuracy.warnings if accuracy else ()),
                                      *(performance.problems if performance else ())])),
        performance=performance,
        speed_tiers=tiers_by_probe(performance.speed_tiers, probes) if performance else {},
        findings=findings,
        accuracy=accuracy,
    )
