"""Capability probing: what a backend actually does, in the shape of the
spec's ``MLContext.opSupportLimits()``.

    probe("onnxruntime", {}, Path("out/probe"))

writes ``<backend>-opSupportLimits.json`` (exactly MLOpSupportLimits, with
the header beside it in ``<backend>-opSupportLimits.header.json``) and
``<backend>-probe.json`` (the evidence: every combination tried with its
outcome, wrong results grouped by root cause (``wrongFindings``, see
``deviations``), layouts with their confidence intervals, option values,
data types beyond the spec, conformance gaps, timings, and with
``compare_file`` the diff against a declared table). ``<backend>-probe.jsonl`` receives one line per combination
as it completes, so an interrupted probe keeps what it has measured.

Every combination is a ``harness.cases.Case`` run through
an executor (``harness.executor``: the local worker pool, or Ray): a crash or hang is recorded for that
combination and the probe goes on.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from webnn_harness.outputs.limits_file import read_limits_file
from webnn_harness.outputs.writing import Mode, OwnedFolder
from webnn_harness.files.writes import open_append, safe_name, write_atomic
from webnn_harness import backends
from webnn_harness.backends.base import emulations
from webnn_harness.spec.builder import FieldError
from webnn_harness.spec.catalog import operators
from webnn_harness.spec.opspec import OPS, ops_where
from webnn_harness.spec.opspec.base import SpecError
from webnn_harness.outputs.jsontext import readable_json
import webnn_harness.probe.limits as limits_mod
import webnn_harness.probe.deviations as deviations
from webnn_harness.probe.beside import Beside
from webnn_harness.probe.declared import DECLARED_SUFFIX, backend_declared, write_declared
from webnn_harness.probe.plan import MAX_RANK, SWEEPS, Combo, combos_for, plan
from webnn_harness.probe.synth import key, output_member, to_case
from webnn_harness.verdict.record import Record
from webnn_harness.outputs.records import run_header
from webnn_harness.execution.executors import Executor, ExecutorFactory, LocalExecutors
from webnn_harness.execution.forkserver import prestart
from webnn_harness.execution.pool import RunOptions
from webnn_harness.loading.cases import Case

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


def outcome_of(record: Record, emulated_ops: Mapping[str, str], in_spec: bool = True) -> str:
    """A run record's status in probe terms. A backend failing to build a
    spec-valid graph it does not refuse ("build failed", backends/base.py
    BuildFailure) is an error, not "not supported"; a graph beyond the spec
    that fails to build is only rejected (a WebNN implementation refuses it
    before the backend sees it)."""
    status, message = record.status, record.message or ""
    if status == "error" and message.startswith("build failed"):
        return "error" if in_spec else "rejected"
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


# Operators whose graph-level sweeps give the graph's input, constant and
# output limits: identity first (it takes every data type and rank), then
# data movement any backend has, in the order of their traits' graph_sweep.
# The first one whose baseline works is used.
GRAPH_SWEEP_OPS = tuple(sorted(ops_where(lambda traits: traits.graph_sweep is not None),
                               key=lambda op: OPS[op].graph_sweep))


def graph_level_combos(op: str = "identity", max_rank: int = MAX_RANK, sweeps: tuple[str, ...] = SWEEPS) -> list[tuple[Combo, str]]:
    """Graphs of ``op`` whose operand is a graph input or a constant, swept
    over data types and ranks: the graph-level input, constant and output limits."""
    combos, _ = combos_for(op, max_rank, sweeps)
    picked = [c for c in combos if c.member == "input" and c.axis in ("dataType", "rank")]
    return [(c, role) for role in ("input", "constant") for c in picked]


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
        "id": ident, "op": combo.op, "role": role, "member": combo.member,
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
    retries: dict = field(default_factory=dict)  # retry case name -> (wrong case name, kept class)
    retry_outcomes: dict = field(default_factory=dict)  # wrong case name -> {kept class: outcome}
    outcomes: dict = field(default_factory=dict)  # case name -> outcome
    written: dict = field(default_factory=dict)  # case name -> its entries as written
    results: dict = field(default_factory=dict)  # case name -> its result fields

    def __post_init__(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open_append(self.path, truncate=True)

    def write(self, entry: dict) -> None:
        self.entries.append(entry)
        self._fh.write(json.dumps(entry, default=str) + "\n")
        self._fh.flush()

    def on_record(self, record: Record) -> None:
        outcome = outcome_of(record, self.emulated, all(e.get("inSpec", True) for e in self.by_case.get(record.case, [])))
        if record.case in self.retries:
            wrong_case, kept = self.retries[record.case]
            self.retry_outcomes.setdefault(wrong_case, {})[kept] = outcome
            return
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
        self.outcomes[record.case] = outcome
        self.results[record.case] = result
        for entry in self.by_case.get(record.case, []):
            self._write_result(record.case, entry)

    def _write_result(self, case: str, entry: dict) -> None:
        written = {**entry, **self.results[case]}
        self.written.setdefault(case, []).append(written)
        self.write(written)

    def share(self, case: str, entry: dict) -> None:
        """``entry`` makes the same call as ``case``: written now if that ran already."""
        self.by_case[case].append(entry)
        if case in self.results:
            self._write_result(case, entry)

    def close(self) -> None:
        self._fh.close()


@dataclass
class _Session:
    """The probe's cases, queued sweep by sweep on one worker pool."""

    collector: _Collector
    pool: Executor
    progress: Callable[[int], object] | None
    skipped: list = field(default_factory=list)
    not_built: list = field(default_factory=list)
    cases: dict = field(default_factory=dict)  # case name -> Case
    combos: dict = field(default_factory=dict)  # case name -> (Combo, role)
    by_key: dict = field(default_factory=dict)
    count: int = 0

    def queue(self, work: Sequence[tuple[Combo, str | None]]) -> list[Case]:
        """Cases for ``work``; a call already queued shares its outcome. Made whole before the pass
        runs: handed to the pool as they were made (streamed), they cost the probe 1.5-2.4 s more
        system CPU and wall (three interleaved pairs, shared machine) for no gain."""
        out = []
        for combo, role in work:
            k = key(combo) + (role or "")
            if k in self.by_key:  # the same call, reached by another sweep: it shares the outcome
                first = self.by_key[k]
                self.collector.share(first, _entry(combo, role, self.cases[first].graph))
                continue
            try:
                case = to_case(combo, self.count, role, name=f"#{self.count}")
            except (SpecError, FieldError, ValueError, KeyError, IndexError, TypeError) as exc:
                if not combo.in_spec:
                    # Beyond the spec's types the op's own create steps may refuse (no shape rule).
                    self.skipped.append({"op": combo.op, "member": combo.member, "axis": combo.axis,
                                         "value": combo.value, "reason": f"create steps refuse it: {exc}"})
                    continue
                self.not_built.append({"id": combo.id, "error": f"{type(exc).__name__}: {exc}"})
                continue
            self.count += 1
            self.by_key[k] = case.name
            self.collector.by_case[case.name] = [_entry(combo, role, case.graph)]
            self.cases[case.name] = case
            self.combos[case.name] = (combo, role)
            out.append(case)
        return out

    def retries(self, wrong_cases: Sequence[str], with_classes: bool = False) -> list:
        """Variants of the wrong cases with their special values replaced:
        the plain variant, or (``with_classes``) the per-class variants of
        those whose plain variant worked. Run in that order, a data type
        wrong on ordinary values costs one extra call, not one per class."""
        out = []
        for name in wrong_cases:
            done = self.collector.retry_outcomes.setdefault(name, {})
            plain = done.get(None)
            if with_classes and plain is None:
                continue
            keeps = deviations.retry_keeps(self.cases[name], plain, limits_mod.WORKING) if with_classes else \
                deviations.retry_keeps(self.cases[name])
            for keep in keeps:
                case = deviations.variant(self.cases[name], keep, self.count)
                self.count += 1
                self.collector.retries[case.name] = (name, keep)
                out.append(case)
        return out

    def run(self, cases: Sequence[Case]) -> None:
        def on_record(record: Record) -> None:
            self.collector.on_record(record)
            if self.progress and record.case not in self.collector.retries:
                self.progress(1)

        if cases:
            self.pool.run_cases(cases, on_record)

    def outcome(self, case_name: str) -> str | None:
        return self.collector.outcomes.get(case_name)


def rank_sweep_types(session: _Session, ops: Sequence[str]) -> dict[str, dict[str, str]]:
    """op -> the data types its rank sweeps run at: the baseline's when the
    baseline works, else those of the first in-spec data-type combination
    that worked (so sign's NaN deviation in float32 does not cost it ranks)."""
    working: dict[str, list[Combo]] = {}
    base_ok: set[str] = set()
    for name, (combo, role) in session.combos.items():
        if role is not None:
            continue
        outcome = session.outcome(name)
        if outcome not in limits_mod.WORKING:
            continue
        if combo.axis == "baseline":
            base_ok.add(combo.op)
        elif combo.axis == "dataType" and combo.in_spec:
            working.setdefault(combo.op, []).append(combo)
    out = {}
    for op in ops:
        if op in base_ok or op not in working:
            continue
        out[op] = dict(working[op][0].types)
    return out


def graph_sweep_op(session: _Session, ops: Sequence[str]) -> str | None:
    """The first of GRAPH_SWEEP_OPS whose baseline worked."""
    ok = {combo.op for name, (combo, role) in session.combos.items()
          if role is None and combo.axis == "baseline" and session.outcome(name) in limits_mod.WORKING}
    return next((op for op in GRAPH_SWEEP_OPS if op in ok and op in ops), None)


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
    mode: Mode = "new",
) -> ProbeResult:
    """Probe ``backend`` and write its opSupportLimits and evidence under ``out_dir``.

    Two passes on one worker pool: (1) baselines, data-type sweeps, options
    and identity's graph-level data types; (2) rank sweeps at a data type
    pass 1 found working, the graph-level sweeps on the first data-movement
    op that works (identity when the backend has it), and the special-value
    variants of every wrong combination (see ``deviations``; the per-class
    variants follow in a short third pass). ``executor`` runs the
    combinations (default: local worker processes). The layout timing and
    the byte-length search run beside the passes in a process of their own
    (``beside``): the search's first attempt during the passes, the timing
    after them; both are bounded in time and the header records the bounds. ``out_dir`` is owned for the
    probe (harness/outputs/writing.py): this backend's earlier probe files there are replaced only with
    ``mode="overwrite"``; other backends' probes beside them are kept."""
    options = dict(options or {})
    run = run or RunOptions(timeout=20.0, batch_size=64)
    started = time.perf_counter()
    prestart([backend])  # the fork server imports for the workers and ``beside`` while this process does too
    described = _Described.of(backend, options)
    out_dir = Path(out_dir)
    with OwnedFolder(out_dir, mode, kind="probe", files=described.files()):
        collector = _Collector(described.emulated, out_dir / f"{described.name}-probe.jsonl")
        op_names = list(ops) if ops else list(operators())
        pool = (executor or LocalExecutors())(backend, options, run, described.info)
        beside = Beside(backend, options, layout, max_bytes if byte_search else None) if layout or byte_search else None
        session = _Session(collector, pool, progress)
        t0 = time.perf_counter()
        try:
            wrong, graph_op = _run_passes(session, op_names, max_rank)
        except BaseException:
            if beside is not None:
                beside.close()
            raise
        finally:
            pool.close()
            collector.close()
        combos_seconds = time.perf_counter() - t0
        layout_evidence = bytes_evidence = None
        if beside is not None:
            beside.start_timing()  # the workers are gone: the machine is quiet
            layout_evidence, bytes_evidence = beside.finish()
        _classify_wrong(session, wrong)
        limits_members, analysis = limits_mod.derive(collector.entries, graph_op)
        op_support = _op_support(limits_members, layout_evidence, bytes_evidence)
        seconds = time.perf_counter() - started
        header = _header(described, collector.entries, layout_evidence, bytes_evidence, seconds)
        evidence = _evidence(header, collector.entries, session.skipped, session.not_built, analysis,
                             described.emulated, layout_evidence, bytes_evidence, combos_seconds, len(session.cases),
                             max_bytes, op_support, len(collector.retries))
        limits_path, evidence_path = _write_probe(out_dir, described, op_support, header, evidence, compare_file)
        return ProbeResult(op_support, evidence, limits_path, evidence_path, seconds)


@dataclass(frozen=True)
class _Described:
    """What the probe asks of the backend itself before any combination: its info, its emulations,
    its own declared table (None if it declares none), and the name its files take."""
    info: dict
    emulated: Mapping[str, str]
    declared: dict | None
    name: str

    @classmethod
    def of(cls, backend: str, options: Mapping[str, str]) -> "_Described":
        instance = backends.create(backend, options)
        info = instance.info().to_json()
        # The backend's own name makes the file names: one file name, never a path out of the folder.
        name = safe_name(info["name"] if ":" not in backend else backend.rsplit(":", 1)[0].rsplit(".", 1)[-1])
        return cls(info, emulations(instance), backend_declared(instance), name)

    def files(self) -> tuple[str, ...]:
        """The files a probe of this backend writes (and owns) in its folder."""
        return tuple(f"{self.name}-{suffix}" for suffix in ("probe.jsonl", "opSupportLimits.json",
                                                             "opSupportLimits.header.json", "probe.json")
                     + ((DECLARED_SUFFIX,) if self.declared is not None else ()))


def _run_passes(session: _Session, op_names: Sequence[str], max_rank: int) -> tuple[list[str], str | None]:
    """The probe's passes (``probe``'s docstring): the wrong cases' names, and the op whose
    graph-level sweeps ran (None: none worked)."""
    combos, skipped = plan(op_names, max_rank, sweeps=("types",))
    session.skipped += skipped
    work: list[tuple[Combo, str | None]] = [(c, None) for c in combos]
    if "identity" in op_names:
        work += graph_level_combos("identity", max_rank, sweeps=("types",))
    session.run(session.queue(work))

    wrong = sorted({n for n, (c, r) in session.combos.items() if session.outcome(n) == "wrong"},
                   key=lambda n: int(n[1:]))
    rank_types = rank_sweep_types(session, op_names)
    combos, skipped = plan(op_names, max_rank, sweeps=("ranks",), rank_types=rank_types)
    session.skipped += skipped
    work = [(c, None) for c in combos]
    graph_op = graph_sweep_op(session, op_names)
    if graph_op == "identity":
        work += graph_level_combos("identity", max_rank, sweeps=("ranks",))
    elif graph_op is not None:
        work += graph_level_combos(graph_op, max_rank)
    session.run(session.queue(work) + session.retries(wrong))
    # Pass 3: the per-class variants where the plain one worked, and the
    # plain variants of wrong results met in the rank sweeps (pass 4:
    # their per-class variants, usually none).
    late = sorted({n for n in session.combos if session.outcome(n) == "wrong"} - set(wrong), key=lambda n: int(n[1:]))
    session.run(session.retries(wrong, with_classes=True) + session.retries(late))
    session.run(session.retries(late, with_classes=True))
    return wrong + late, graph_op


def _classify_wrong(session: _Session, wrong: Sequence[str]) -> None:
    """Each wrong combination's entries get their deviation: what the special-value retries found."""
    collector = session.collector
    for case_name in wrong:
        finding = deviations.classify(deviations.present_classes(session.cases[case_name]),
                                      collector.retry_outcomes.get(case_name, {}), limits_mod.WORKING)
        for e in collector.written.get(case_name, []):
            e["deviation"] = finding


def _op_support(limits_members: dict, layout_evidence: Mapping | None, bytes_evidence: Mapping | None) -> dict:
    """The MLOpSupportLimits the probe found, in the spec's member order."""
    preferred = (layout_evidence or {}).get("preferred") or "nchw"
    max_len = (bytes_evidence or {}).get("maxTensorByteLength") or 0
    return {
        "preferredInputLayout": preferred,
        "maxTensorByteLength": int(max_len),
        "input": limits_members.pop("input"),
        "constant": limits_members.pop("constant"),
        "output": limits_members.pop("output"),
        **limits_members,
    }


def _header(described: _Described, entries: list[dict], layout_evidence: Mapping | None,
            bytes_evidence: Mapping | None, seconds: float) -> dict:
    info = described.info
    return {
        **run_header(info),
        "settings": info.get("settings", {}),
        "device": info.get("device"),
        "emulations": dict(described.emulated),
        "buildSettingsByOp": build_settings_by_op(entries, info.get("settings", {})),
        "timeBounds": time_bounds(layout_evidence, bytes_evidence),
        "seconds": round(seconds, 3),
    }


def _write_probe(out_dir: Path, described: _Described, op_support: dict, header: dict, evidence: dict,
                 compare_file: Path | None) -> tuple[Path, Path]:
    """The limits, their header, the backend's declared table and the evidence (with the comparison
    against ``compare_file``, else against the declared table): the limits' and the evidence's paths."""
    from webnn_harness.probe.declared import compare_declared

    name, declared = described.name, described.declared
    limits_path = out_dir / f"{name}-opSupportLimits.json"
    write_atomic(limits_path, readable_json(op_support) + "\n")
    write_atomic(out_dir / f"{name}-opSupportLimits.header.json", readable_json(header, default=str) + "\n")
    evidence_path = out_dir / f"{name}-probe.json"
    if declared is not None:
        declared_file = write_declared(declared, out_dir, name)
    compared = read_limits_file(compare_file) if compare_file is not None else None
    if compared is not None:
        evidence["compare"] = compare_declared(compared, evidence, Path(compare_file).name)
    elif declared is not None:  # without a file, the backend's own declaration is the one to compare
        evidence["compare"] = compare_declared(declared, evidence, declared_file.name)
    # The required set as the backend declares it (its own table, else the table compared with)
    if declared is not None:
        _declared_gaps(evidence, declared, declared_file.name)
    elif compared is not None:
        _declared_gaps(evidence, compared, Path(compare_file).name)
    write_atomic(evidence_path, readable_json(evidence, default=str) + "\n")
    return limits_path, evidence_path


class ProbeRequestError(ValueError):
    """A probe refused before it starts (its backend refusing its options): one line."""


@dataclass(frozen=True)
class ProbeRequest:
    """Everything one probe is asked to do (``webnn-harness probe``): ``probe``'s parameters as one value."""
    backend: str
    options: Mapping[str, str] = field(default_factory=dict)
    out_dir: Path = Path("out/probe")
    ops: Sequence[str] | None = None  # None: every operator
    max_bytes: int = DEFAULT_MAX_BYTES  # the maxTensorByteLength search's memory budget
    run: RunOptions | None = None  # workers, timeout, batch size (default: 20 s, batches of 64)
    layout: bool = True  # time the preferredInputLayout
    byte_search: bool = True  # search the maxTensorByteLength
    compare_file: str | Path | None = None  # a declared opSupportLimits file to diff against
    executor: ExecutorFactory | None = None
    mode: Mode = "new"


def check_probe_request(request: ProbeRequest) -> None:
    """What refuses a probe before any worker starts, so that it costs no whole probe: an unreadable
    ``compare_file`` (LimitsFileError), options the backend does not take (ProbeRequestError), a
    backend that is not installed (UnknownBackend) or cannot start (BackendError)."""
    if request.compare_file:
        read_limits_file(request.compare_file)
    prestart([request.backend])  # the fork server imports for the probe's processes while this one does too
    try:
        backends.create(request.backend, request.options)
    except (ValueError, TypeError) as exc:
        raise ProbeRequestError(f"{request.backend}: {exc}") from None


def probe_requested(request: ProbeRequest, progress: Callable[[int], object] | None = None) -> ProbeResult:
    """``probe`` as ``request`` asks, ``progress(n)`` told of every n combinations run."""
    return probe(request.backend, request.options, request.out_dir, ops=request.ops, max_bytes=request.max_bytes,
                 run=request.run, layout=request.layout, byte_search=request.byte_search, progress=progress,
                 compare_file=Path(request.compare_file) if request.compare_file else None,
                 executor=request.executor, mode=request.mode)


def time_bounds(layout_evidence: Mapping | None, bytes_evidence: Mapping | None) -> dict:
    """The time bounds of the measurements that ran, as their evidence states them."""
    out = {}
    if layout_evidence:
        out["layoutTimingSeconds"] = layout_evidence["method"]["rounds"]["budgetSeconds"]
    if bytes_evidence:
        out["byteSearchSeconds"] = bytes_evidence["method"]["timeBudgetSeconds"]
    return out


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


def _declared_gaps(evidence: dict, declared: Mapping[str, Any], source: str) -> None:
    """``declaredConformanceGaps``: the spec's required data types and ranks a
    declared opSupportLimits lacks (the shape of ``conformanceGaps``; an
    operator the declaration leaves out lacks all of them), and its source."""
    evidence["declaredConformanceGaps"] = limits_mod.conformance_gaps(declared, absent_ops=True)
    evidence["declaredConformanceGapsSource"] = source
    evidence["summary"]["declaredConformanceGaps"] = len(evidence["declaredConformanceGaps"])


def _evidence(header, entries, skipped, not_built, analysis, emulated, layout_evidence, bytes_evidence,
              combos_seconds, case_count, max_bytes, op_support, retry_count) -> dict:
    counts = {o: 0 for o in OUTCOMES}
    for e in entries:
        counts[e["outcome"]] = counts.get(e["outcome"], 0) + 1
    wrong = [{"id": e["id"], "inSpec": e["inSpec"], "maxError": e["maxError"], "metric": e["metric"],
              "budget": e["budget"], "example": e["example"], "message": e["message"],
              "deviation": e.get("deviation")}
             for e in entries if e["outcome"] == "wrong"]
    findings = deviations.group(entries)
    beyond = {}
    for op, members in analysis.items():
        for member, a in members.items():
            if a.get("beyondSpecDataTypes"):
                beyond.setdefault(op, {})[member] = a["beyondSpecDataTypes"]
    wrong_types = limits_mod.wrong_data_types(entries)
    for op, members in wrong_types.items():  # beside each member's working types, in the evidence
        for member, types in members.items():
            if member in analysis.get(op, {}):
                a = analysis[op][member]
                a["wrongDataTypes"] = types  # accepted but computed wrong: not conformance gaps (limits.data_type_status)
                a["conformanceGaps"] = [g for g in a.get("conformanceGaps", []) if g.get("dataType") not in types]
    gaps = limits_mod.conformance_gaps(op_support, wrong_types)
    wrong_ops = {f["op"] for f in findings if f["inSpec"]}
    ops = [op for op in analysis if op != "graph"]
    return {
        "header": header,
        "summary": {
            "combinations": len(entries),
            "uniqueCalls": case_count,
            "valueRetries": retry_count,  # special-value variants of wrong combinations
            "outcomes": counts,
            "operatorMembers": len(ops),
            "operators": limits_mod.operator_counts(op_support, wrong_ops, wrong_types),
            "operatorsWithNothingWorking": [op for op in ops if not any(a["workingDataTypes"] for a in analysis[op].values())],
            "conformanceGaps": len(gaps),
            "acceptedButWrong": len(wrong),
            "wrongFindings": len(findings),
            "valueDeviations": sum(f["cause"] == "special values" for f in findings),
            "combinationSeconds": round(combos_seconds, 3),
            "seconds": header["seconds"],
        },
        "conformanceGaps": gaps,
        "wrongFindings": findings,
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
