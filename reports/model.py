"""Results and probe files -> the site model (plain frozen data, no HTML).

The pages are built by family: `common` (identity, formatting, re-run
commands), `conformance` (run results), `capability` (probe outputs); this
module assembles the site from the inputs harness/outputs/kinds.py finds.

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
from typing import Any, Mapping, Sequence

from webnn_harness.spec.catalog import operators
from webnn_harness.reports.capability import (
    ProbeBackend,
    _version_key,
    build_probe_backend,
    version_changes,
    machine_disagreements,
)
from webnn_harness.outputs.kinds import discover_outputs, read_probe_files
from webnn_harness.reports.common import BackendIds, reads_inputs
from webnn_harness.reports.accuracy import AccuracyModel, build_accuracy
from webnn_harness.reports.conformance import Conformance, build_conformance, read_run_pieces
from webnn_harness.reports.findings import FindingsModel, build_findings
from webnn_harness.reports.models import ModelsModel, build_models
from webnn_harness.reports.performance import PerformanceModel, SpeedTier, build_performance, tiers_by_probe

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
    # (probe slug, op) -> the machine classes where the same backend version's probe says otherwise (issue #47)
    machines_disagree: Mapping[tuple[str, str], str] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()  # inputs read in part (unreadable lines), for the CLI to print
    performance: PerformanceModel | None = None  # from bench folders
    speed_tiers: Mapping[tuple[str, str], tuple[SpeedTier, ...]] = field(default_factory=dict)  # (probe slug, op)
    findings: FindingsModel | None = None  # from fuzz folders
    accuracy: AccuracyModel | None = None  # from accuracy folders
    archive: Any = None  # reports/archive.ArchiveInfo: the site was built from an archive (report --archive)
    models: ModelsModel | None = None  # multi-op cases from run and bench --cases folders (reports/models.py)

    @property
    def has_models(self) -> bool:
        return self.models is not None and self.models.has_models

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


@reads_inputs
def build_model(inputs: Sequence[str | Path], run_reader=read_run_pieces, probe_reader=read_probe_files) -> SiteModel:
    """``run_reader`` (a run folder -> its RunPieces) and ``probe_reader`` (a probe's files -> ProbeFiles):
    those of conformance and outputs/kinds, or ones that keep what they read (report --archive)."""
    from webnn_harness import __version__

    found = discover_outputs(inputs)
    groups = [g for run_dir in found.runs for g in run_reader(run_dir)]
    conformance = build_conformance(groups, BackendIds())
    probes = []
    payloads: dict[str, Any] = {}
    probe_ids = BackendIds()  # probe pages and run anchors are separate name spaces
    for stem in found.probe_stems:
        limits_path = found.limits.get(stem)
        files = probe_reader(stem, limits_path, found.headers.get(stem), found.probes.get(stem))
        pb, limits = build_probe_backend(files, limits_path.name if limits_path else "", probe_ids)  # no local paths
        probes.append(pb)
        if pb.limits_download:
            payloads[pb.limits_download] = limits
    # Several versions of one backend side by side: group columns by name, versions in order.
    probes.sort(key=lambda p: (p.backend.name, _version_key(p.backend.version), p.backend.slug))
    performance = build_performance(found.benches) if found.benches else None
    findings = build_findings(found.fuzz) if found.fuzz else None
    accuracy = build_accuracy(found.accuracy) if found.accuracy else None
    models = build_models(found.runs, found.benches) if found.runs or found.benches else None
    return SiteModel(
        conformance=conformance, probes=tuple(probes), limits_payloads=payloads, ops=tuple(operators()),
        harness_version=__version__, inputs=tuple(str(i) for i in inputs), changed=version_changes(probes),
        machines_disagree=machine_disagreements(probes),
        warnings=tuple(dict.fromkeys([*(p for g in groups for p in g.problems), *(findings.warnings if findings else ()),
                                      *(accuracy.warnings if accuracy else ()),
                                      *(performance.problems if performance else ()),
                                      *(models.problems if models else ())])),
        performance=performance,
        speed_tiers=tiers_by_probe(performance.speed_tiers, probes) if performance else {},
        findings=findings,
        accuracy=accuracy,
        models=models,
    )
