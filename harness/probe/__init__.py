"""Capability probing: what a backend actually does, in the shape of the
spec's ``MLContext.opSupportLimits()``.

    probe("onnxruntime", {}, Path("out/probe"))

writes ``<backend>-opSupportLimits.json`` (exactly MLOpSupportLimits, with
the header beside it in ``<backend>-opSupportLimits.header.json``) and
``<backend>-probe.json`` (the evidence: every combination tried with its
outcome, layouts, option values, data types beyond the spec, conformance
gaps, timings). ``<backend>-probe.jsonl`` receives one line per combination
as it completes, so an interrupted probe keeps what it has measured.

Every combination is a ``harness.cases.Case`` run through
``harness.runner.WorkerPool``: a crash or hang is recorded for that
combination and the probe goes on.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from webnn_harness import backends
from webnn_harness.backends.base import emulations
from webnn_harness.builder import FieldError
from webnn_harness.catalog import operators
from webnn_harness.dtypes import DATA_TYPES
from webnn_harness.opspec.base import SpecError
from webnn_harness.probe import limits as limits_mod
from webnn_harness.probe.plan import MAX_RANK, Combo, dims, plan
from webnn_harness.probe.synth import key, output_member, to_case
from webnn_harness.results import Record, run_header
from webnn_harness.executor import ExecutorFactory, LocalExecutors
from webnn_harness.runner import RunOptions

DEFAULT_MAX_BYTES = 1 << 30
OUTCOMES = ("supported", "emulated", "rejected", "wrong", "unverified", "crash", "timeout", "error")


@dataclass
class ProbeResult:
    limits: dict  # MLOpSupportLimits
    evidence: dict
    limits_path: Path
    evidence_path: Path
    seconds: float

    @property
    def counts(self) -> dict:
        return self.evidence["summary"]["outcomes"]


def outcome_of(record: Record, emulated_ops: Mapping[str, str]) -> str:
    """A run record's status in probe terms."""
    status, message = record.status, record.message or ""
    if status == "pass":
        return "emulated" if any(op in emulated_ops for op in record.ops) else "supported"
    if status == "unsupported":
        return "rejected"
    if status == "fail":
        return "rejected" if message.startswith("compute raised") else "wrong"
    if status == "error":
        if message.startswith("build raised"):
            return "rejected"
        if message.startswith("reference cannot compute"):
            return "unverified"  # accepted, but nothing to check it against
        return "error"
    return status  # crash, timeout


def graph_level_combos(max_rank: int = MAX_RANK) -> list[tuple[Combo, str]]:
    """identity graphs whose operand is a graph input or a constant: the
    graph-level input, constant and output limits."""
    out = []
    for role in ("input", "constant"):
        for t in DATA_TYPES:
            out.append((Combo("identity", role, "dataType", t, {"input": dims(2)}, {"input": t}, {}, True), role))
        for r in range(max_rank + 1):
            out.append((Combo("identity", role, "rank", r, {"input": dims(r)}, {"input": "float32"}, {}, True), role))
    return out


def _entry(combo: Combo, role: str | None, graph) -> dict:
    op_or_graph = "graph" if role else combo.op
    ident = f"graph/{role}/{combo.axis}={combo.value}" if role else combo.id
    operands = {}
    for m, s in combo.shapes.items():
        t = combo.types[m]
        operands[m] = [{"dataType": t, "shape": list(x)} for x in s] if isinstance(s, list) else {"dataType": t, "shape": list(s)}
    outputs = None
    if graph is not None:
        outputs = [{"member": output_member(combo.op, i), "dataType": graph.descs[n].data_type,
                    "shape": list(graph.descs[n].shape)} for i, n in enumerate(graph.outputs)]
    return {
        "id": ident, "op": combo.op if not role else "identity", "role": role, "member": combo.member,
        "axis": combo.axis, "value": combo.value, "inSpec": combo.in_spec, "operands": operands,
        "outputs": outputs, "attributes": {k: v for k, v in combo.attributes.items()},
        "group": op_or_graph,
    }


@dataclass
class _Collector:
    emulated: Mapping[str, str]
    path: Path
    by_case: dict = field(default_factory=dict)  # case name -> [entry, ...]
    entries: list = field(default_factory=list)

    def __post_init__(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = self.path.open("w", encoding="utf-8")

    def write(self, entry: dict) -> None:
        self.entries.append(entry)
        self._fh.write(json.dumps(entry, default=str) + "\n")
        self._fh.flush()

    def on_record(self, record: Record) -> None:
        outcome = outcome_of(record, self.emulated)
        result = {
            "outcome": outcome, "message": record.message[:500],
            "metric": record.metric, "budget": record.budget,
            "maxError": record.max_error if record.max_error != float("inf") else "Infinity",
            "example": ({"index": list(record.worst_index) if record.worst_index is not None else None,
                         "expected": record.expected_value, "actual": record.actual_value}
                        if outcome == "wrong" else None),
            "seconds": round((record.build_seconds or 0) + (record.compute_seconds or 0), 5),
        }
        if record.build_settings:
            result["buildSettings"] = dict(record.build_settings)
        for entry in self.by_case.get(record.case, []):
            self.write({**entry, **result})

    def close(self) -> None:
        self._fh.close()


def probe(
    backend: str,
    options: Mapping[str, str] | None = None,
    out_dir: Path = Path("out/probe"),
    ops: Sequence[str] | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    run: RunOptions | None = None,
    layout: bool = True,
    byte_search: bool = True,
    max_rank: int = MAX_RANK,
    progress: Callable[[int], object] | None = None,
    compare_file: Path | None = None,
    executor: ExecutorFactory | None = None,
) -> ProbeResult:
    """Probe ``backend`` and write its opSupportLimits and evidence under ``out_dir``.
    ``executor`` runs the combinations (default: local worker processes)."""
    options = dict(options or {})
    run = run or RunOptions(timeout=20.0, batch_size=64)
    started = time.perf_counter()
    instance = backends.create(backend, options)
    info = instance.info().to_json()
    emulated = emulations(instance)
    del instance
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    name = info["name"] if ":" not in backend else backend.rsplit(":", 1)[0].rsplit(".", 1)[-1]
    collector = _Collector(emulated, out_dir / f"{name}-probe.jsonl")

    combos, skipped = plan(list(ops) if ops else None, max_rank)
    work: list[tuple[Combo, str | None]] = [(c, None) for c in combos]
    if not ops or "identity" in ops:
        work += graph_level_combos(max_rank)
    cases = []
    by_key: dict[str, str] = {}
    not_built: list[dict] = []
    for combo, role in work:
        k = key(combo) + (role or "")
        if k in by_key:  # same call already queued: share its outcome
            first = by_key[k]
            entry = _entry(combo, role, collector.by_case[first][0]["_graph"])
            collector.by_case[first].append({**entry, "_graph": None})
            continue
        try:
            case = to_case(combo, len(cases), role, name=f"#{len(cases)}")
        except (SpecError, FieldError, ValueError, KeyError, IndexError, TypeError) as exc:
            if not combo.in_spec:
                # Beyond the spec's types the op's own create steps may refuse (no shape rule).
                skipped.append({"op": combo.op, "member": combo.member, "axis": combo.axis, "value": combo.value,
                                "reason": f"create steps refuse it: {exc}"})
                continue
            not_built.append({"id": combo.id, "error": f"{type(exc).__name__}: {exc}"})
            continue
        by_key[k] = case.name
        collector.by_case[case.name] = [{**_entry(combo, role, case.graph), "_graph": case.graph}]
        cases.append(case)
    for entries in collector.by_case.values():
        for e in entries:
            e.pop("_graph", None)

    pool = (executor or LocalExecutors())(backend, options, run, info)
    t0 = time.perf_counter()
    try:
        def on_record(record: Record) -> None:
            collector.on_record(record)
            if progress:
                progress(1)

        pool.run_cases(cases, on_record)
    finally:
        pool.close()
        collector.close()
    combos_seconds = time.perf_counter() - t0

    limits_members, analysis = limits_mod.derive(collector.entries)
    layout_evidence = None
    if layout:
        from webnn_harness.probe.layout import measure_layouts

        layout_evidence = measure_layouts(backend, options)
    bytes_evidence = None
    if byte_search:
        from webnn_harness.probe.bytes import search_max_bytes

        bytes_evidence = search_max_bytes(backend, options, max_bytes)

    preferred = (layout_evidence or {}).get("preferred") or "nchw"
    max_len = (bytes_evidence or {}).get("maxTensorByteLength") or 0
    op_support = {
        "preferredInputLayout": preferred,
        "maxTensorByteLength": int(max_len),
        "input": limits_members.pop("input"),
        "constant": limits_members.pop("constant"),
        "output": limits_members.pop("output"),
        **limits_members,
    }
    seconds = time.perf_counter() - started
    header = {
        **run_header(info),
        "settings": info.get("settings", {}),
        "device": info.get("device"),
        "emulations": dict(emulated),
        "buildSettingsByOp": build_settings_by_op(collector.entries, info.get("settings", {})),
        "seconds": round(seconds, 3),
    }
    evidence = _evidence(header, collector.entries, skipped, not_built, analysis, emulated,
                         layout_evidence, bytes_evidence, combos_seconds, len(cases), max_bytes)
    limits_path = out_dir / f"{name}-opSupportLimits.json"
    limits_path.write_text(json.dumps(op_support, indent=1) + "\n")
    (out_dir / f"{name}-opSupportLimits.header.json").write_text(json.dumps(header, indent=1, default=str) + "\n")
    evidence_path = out_dir / f"{name}-probe.json"
    if compare_file is not None:
        from webnn_harness.probe.compare import compare_declared

        evidence["compare"] = compare_declared(json.loads(Path(compare_file).read_text()), evidence, str(compare_file))
    evidence_path.write_text(json.dumps(evidence, indent=1, default=str) + "\n")
    return ProbeResult(op_support, evidence, limits_path, evidence_path, seconds)


def build_settings_by_op(entries: list[dict], settings: Mapping[str, Any]) -> dict:
    """op -> setting -> the sorted values its builds used, for the ops whose
    builds did not all use the backend's own setting (ONNX Runtime: an op
    whose kernels exist only at an older opset than the one it loads)."""
    used: dict[str, dict[str, set]] = {}
    for e in entries:
        for k, v in (e.get("buildSettings") or {}).items():
            used.setdefault(e["group"], {}).setdefault(k, set()).add(v)
    return {op: {k: sorted(vs) for k, vs in per.items()}
            for op, per in sorted(used.items()) if any(vs != {settings.get(k)} for k, vs in per.items())}


def _option_values(entries: list[dict]) -> dict:
    """op -> option label -> outcome (layouts and option values the spec has no member for)."""
    out: dict[str, dict] = {}
    for e in entries:
        if e["axis"] == "option":
            out.setdefault(e["op"], {})[e["value"]] = e["outcome"]
    for e in entries:  # the baseline carries the default layout / option values
        if e["axis"] == "baseline" and e["op"] in out:
            out[e["op"]]["(defaults)"] = e["outcome"]
    return out


def _evidence(header, entries, skipped, not_built, analysis, emulated, layout_evidence, bytes_evidence,
              combos_seconds, case_count, max_bytes) -> dict:
    counts = {o: 0 for o in OUTCOMES}
    for e in entries:
        counts[e["outcome"]] = counts.get(e["outcome"], 0) + 1
    wrong = [{"id": e["id"], "inSpec": e["inSpec"], "maxError": e["maxError"], "metric": e["metric"],
              "budget": e["budget"], "example": e["example"], "message": e["message"]}
             for e in entries if e["outcome"] == "wrong"]
    beyond = {}
    for op, members in analysis.items():
        for member, a in members.items():
            if a.get("beyondSpecDataTypes"):
                beyond.setdefault(op, {})[member] = a["beyondSpecDataTypes"]
    gaps = limits_mod.conformance_gaps(analysis)
    ops = [op for op in analysis if op != "graph"]
    return {
        "header": header,
        "summary": {
            "combinations": len(entries),
            "uniqueCalls": case_count,
            "outcomes": counts,
            "operatorMembers": len(ops),
            "operatorsWithNothingWorking": [op for op in ops if not any(a["workingDataTypes"] for a in analysis[op].values())],
            "conformanceGaps": len(gaps),
            "acceptedButWrong": len(wrong),
            "combinationSeconds": round(combos_seconds, 3),
            "seconds": header["seconds"],
        },
        "conformanceGaps": gaps,
        "acceptedButWrong": wrong,
        "beyondSpecDataTypes": beyond,
        "optionValues": _option_values(entries),
        "preferredInputLayout": layout_evidence,
        "maxTensorByteLength": bytes_evidence,
        "maxBytesBudget": max_bytes,
        "emulations": dict(emulated),
        "analysis": analysis,
        "notTried": skipped,
        "harnessProblems": not_built,
        "combinations": entries,
    }


__all__ = ["DEFAULT_MAX_BYTES", "OUTCOMES", "ProbeResult", "outcome_of", "probe"]
