"""Run and bench folders -> the models page's model (plain frozen data, no HTML).

A model here is a case whose graph calls at least ``MIN_MODEL_NODES``
operators: the models ``import-onnx`` writes, WPT's subgraph files, any
multi-op case. Single-op cases are the conformance page's and the capability
matrix's; a site with none of these has no models page.

Each model x backend cell joins, by the case's stable id (corpus + path +
name): the run record (``webnn-harness run --cases DIR``: whether it runs,
the refusal's message and the op and operand it names, the error against the
float64 reference with its budget) and the bench record (``webnn-harness bench
--cases DIR``: build, first dispatch and steady-state median of the whole
graph; where there is no run record, the bench's own verification stands in
for it). The op coverage table counts how often the models call each op (from
the bench records' operator counts; a model with only run records counts each
op it uses once) and, per backend, how much of that use it runs.
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from webnn_harness.bench.case_benchmarks import KIND as CASE_KIND
from webnn_harness.loading.caseid import corpus_of, split_case_id
from webnn_harness.outputs.bench_records import read_bench_folder
from webnn_harness.verdict.record import Record, read_json_float
from webnn_harness.outputs.rerun_commands import strip_local_paths
from webnn_harness.reports.common import ReportInputError
from webnn_harness.reports.performance import threads_and_precision, machine_label

MIN_MODEL_NODES = 2  # a graph of one op is a conformance case, not a model
# What a bench record's status says where no run record does (the bench verifies before it times).
BENCH_AS_RUN = {"ok": "pass", "wrong": "fail", "unsupported": "unsupported", "error": "error", "crash": "crash",
                "timeout": "timeout"}
RUNS = ("pass", "fail")  # the backend built and computed the graph (a fail runs, with wrong numbers)
FAILS = ("error", "crash", "timeout")
# An op's state on a backend, the first that a model calling it shows: one model running it is enough to say it runs.
SUPPORT = ("runs", "refused", "fails")


@dataclass(frozen=True)
class ModelColumn:
    """One backend build (name and version) as the run and bench records name it."""

    key: str
    name: str
    version: str
    device: str
    threads: str
    precision: str
    sources: tuple[str, ...]  # "run FOLDER, DATE" / "bench DATE on MACHINE, harness VERSION"


@dataclass(frozen=True)
class Refusal:
    op: str  # "" when the message names no op of the model
    operand: str
    data_type: str


@dataclass(frozen=True)
class ModelCell:
    status: str  # pass | fail | unsupported | error | crash | timeout ("" untested)
    judged_by: str  # "run" or "bench": whose verdict the status is
    message: str
    refusal: Refusal | None
    metric: str
    max_error: float | None
    budget: float | None
    latency: Mapping[str, float]  # variant -> steady-state median seconds (verified runs only)
    iqr: float | None  # of the whole-graph variant
    build_seconds: float | None
    first_run_seconds: float | None
    bench_problem: str  # why the bench has no figure (its status and message), "" when it has one

    @property
    def runs(self) -> bool:
        return self.status in RUNS

    @property
    def nhwc_ratio(self) -> float | None:
        """The graph rewritten nhwc over the graph as given (bench --cases' two variants): under 1, nhwc is faster."""
        graph, nhwc = self.latency.get("graph"), self.latency.get("nhwc")
        return nhwc / graph if graph and nhwc else None


@dataclass(frozen=True)
class ModelRow:
    id: str
    file: str
    name: str
    corpus: str
    imported: bool  # written by import-onnx (the case file's "model")
    nodes: int | None  # operators the graph calls; None: only the run's distinct ops are known
    operators: Mapping[str, int]  # op -> calls (or 1 per distinct op without a bench record)
    cells: tuple[ModelCell | None, ...]  # in ModelsModel.columns order


@dataclass(frozen=True)
class OpUse:
    op: str
    calls: int  # over every model
    models: int  # models calling it
    share: float  # calls / every call
    support: tuple[str, ...]  # per column: runs | refused (a refusal names it) | fails (a model calling it errs) | untested


@dataclass(frozen=True)
class ModelsModel:
    columns: tuple[ModelColumn, ...]
    rows: tuple[ModelRow, ...]
    ops: tuple[OpUse, ...]  # most called first
    coverage: tuple[float | None, ...]  # per column: share of every call whose op the backend runs
    counted_by_presence: int  # models whose ops are counted once each (no bench record)
    problems: tuple[str, ...]

    @property
    def has_models(self) -> bool:
        return bool(self.rows)


# --------------------------------------------------------------------------- refusals


def refusal(message: str, ops: Iterable[str]) -> Refusal:
    """The op of the model a refusal's message names first (the longest at
    one place: convTranspose2d before conv2d), the operand of that op it names
    (the spec's member names: input, filter, bias, ...), and the data type it names."""
    from webnn_harness.spec.catalog import operators
    from webnn_harness.spec.dtypes import DATA_TYPES

    spec = operators()
    found = []
    for op in ops:
        m = re.search(rf"(?<![A-Za-z0-9]){re.escape(op)}(?![A-Za-z0-9])", message, re.IGNORECASE)
        if m:
            found.append((m.start(), -len(op), op))
    op = min(found)[2] if found else ""
    operand = ""
    if op in spec:
        for member in spec[op].input_members:
            # a one-letter member (matmul's a, b) counts only quoted: "a" is an English word too
            pattern = rf"['\"]{member}['\"]" if len(member) == 1 else rf"(?<![A-Za-z0-9]){re.escape(member)}(?![A-Za-z0-9])"
            if re.search(pattern, message):
                operand = member
                break
    data_type = next((dt for dt in sorted(DATA_TYPES, key=len, reverse=True)
                      if re.search(rf"(?<![A-Za-z0-9]){dt}(?![A-Za-z0-9])", message)), "")
    return Refusal(op, operand, data_type)


# --------------------------------------------------------------------------- reading


@dataclass
class _Facts:
    """What the records say of one model, gathered before the rows are made."""

    operators: dict[str, int] | None = None
    distinct_ops: tuple[str, ...] = ()
    imported: bool = False


def _column_key(backend: Mapping[str, Any]) -> str:
    return f"{backend.get('name', '?')} {backend.get('version', '')}".strip()


class _Columns:
    def __init__(self) -> None:
        self.info: dict[str, dict[str, Any]] = {}

    def add(self, backend: Mapping[str, Any], raw: Mapping[str, Any], source: str) -> str:
        key = _column_key(backend)
        threads, precision = threads_and_precision(raw)
        entry = self.info.setdefault(key, {"name": str(backend.get("name", "?")), "version": str(backend.get("version", "")),
                                           "device": str(backend.get("device", "")), "threads": threads,
                                           "precision": precision, "sources": []})
        entry["threads"] = entry["threads"] or threads
        entry["precision"] = entry["precision"] or precision
        if source not in entry["sources"]:
            entry["sources"].append(source)
        return key

    def columns(self) -> tuple[ModelColumn, ...]:
        return tuple(ModelColumn(key=k, name=v["name"], version=v["version"], device=strip_local_paths(v["device"]),
                                 threads=v["threads"], precision=v["precision"], sources=tuple(v["sources"]))
                     for k, v in sorted(self.info.items()))


def _read_runs(runs: Sequence[Path], columns: _Columns, facts: dict[str, _Facts], problems: list[str]):
    """(case id, column key) -> the run record (the last run given wins)."""
    from webnn_harness.outputs.run_folder import backend_groups, read_run_folder

    found: dict[tuple[str, str], Record] = {}
    for run_dir in runs:
        try:
            run = read_run_folder(run_dir)
        except ValueError as exc:
            raise ReportInputError(str(exc)) from None
        problems.extend(run.problems)
        source = f"run {run_dir.name}, {str(run.summary.get('date') or '')[:16].replace('T', ' ')}".rstrip(", ")
        for backend, records in backend_groups(run):
            key = None
            for r in records:
                if len(r.ops) < MIN_MODEL_NODES and r.id not in facts:
                    continue
                key = key or columns.add(backend, {"backend": backend}, source)
                facts.setdefault(r.id, _Facts()).distinct_ops = tuple(r.ops)
                found[(r.id, key)] = r
    return found


def _read_benches(benches: Sequence[Path], columns: _Columns, facts: dict[str, _Facts], problems: list[str]):
    """(case id, column key) -> {variant: bench record} of ``bench --cases``."""
    found: dict[tuple[str, str], dict[str, Mapping[str, Any]]] = defaultdict(dict)
    for folder in benches:
        bench = read_bench_folder(folder, problems.append)
        header = bench.summary.get("header") if isinstance(bench.summary.get("header"), Mapping) else {}
        machine = header.get("machine") if isinstance(header.get("machine"), Mapping) else {}
        source = (f"bench {str(header.get('date') or '')[:16].replace('T', ' ')} on {machine_label(machine)}, "
                  f"harness {header.get('harnessVersion') or '?'}")
        for _, raw in bench.records:
            params = raw.get("params") if isinstance(raw.get("params"), Mapping) else {}
            counts = _operator_counts(params.get("operators"))
            if raw.get("kind") != CASE_KIND or counts is None or sum(counts.values()) < MIN_MODEL_NODES:
                continue
            key = columns.add(raw["backend"], raw, strip_local_paths(source))
            fact = facts.setdefault(raw["benchmark"], _Facts())
            fact.operators, fact.imported = counts, fact.imported or isinstance(params.get("model"), Mapping)
            found[(raw["benchmark"], key)][raw["variant"]] = raw
    return found


def _operator_counts(raw: Any) -> dict[str, int] | None:
    if not isinstance(raw, Mapping):
        return None
    counts = {str(op): n for op, n in raw.items() if isinstance(n, int) and not isinstance(n, bool) and n > 0}
    return counts or None


# --------------------------------------------------------------------------- cells


def _cell(record: Record | None, benched: Mapping[str, Mapping[str, Any]], ops: Sequence[str]) -> ModelCell | None:
    if record is None and not benched:
        return None
    whole = benched.get("graph") or next(iter(benched.values()), None)
    latency = {v: float(r["latency"]["median"]) for v, r in benched.items()
               if r.get("status") == "ok" and isinstance(r.get("latency"), Mapping) and read_json_float(r["latency"].get("median"))}
    if record is not None:
        status, judged_by, message = record.status, "run", strip_local_paths(record.message)
        metric, max_error, budget = record.metric or "", record.max_error, record.budget
    else:
        verification = whole.get("verification") if isinstance(whole.get("verification"), Mapping) else {}
        status, judged_by = BENCH_AS_RUN.get(str(whole.get("status")), "error"), "bench"
        message = strip_local_paths(str(whole.get("message") or ""))
        metric, max_error, budget = (str(verification.get("metric") or ""), read_json_float(verification.get("maxError")),
                                     read_json_float(verification.get("budget")))
    bench_problem = ""
    if whole is not None and whole.get("status") != "ok":
        bench_problem = strip_local_paths(f"{whole.get('status')}: {whole.get('message') or ''}".rstrip(": "))
    whole_latency = whole.get("latency") if whole is not None and isinstance(whole.get("latency"), Mapping) else {}
    return ModelCell(
        status=status, judged_by=judged_by, message=message,
        refusal=refusal(message, ops) if status == "unsupported" else None,
        metric=metric, max_error=max_error, budget=budget, latency=latency,
        iqr=read_json_float(whole_latency.get("iqr")) if "graph" in latency else None,
        build_seconds=read_json_float(whole.get("buildSeconds")) if whole else None,
        first_run_seconds=read_json_float(whole.get("firstRunSeconds")) if whole else None,
        bench_problem=bench_problem)


# --------------------------------------------------------------------------- the model


def _op_uses(rows: Sequence[ModelRow], columns: Sequence[ModelColumn]) -> tuple[tuple[OpUse, ...], tuple[float | None, ...]]:
    calls, models = Counter(), Counter()
    support: dict[str, list[set[str]]] = defaultdict(lambda: [set() for _ in columns])
    for row in rows:
        for op, n in row.operators.items():
            calls[op] += n
            models[op] += 1
            for i, cell in enumerate(row.cells):
                if cell is None:
                    continue
                if cell.runs:
                    support[op][i].add("runs")
                elif cell.refusal is not None and cell.refusal.op == op:
                    support[op][i].add("refused")
                elif cell.status in FAILS:  # the backend errs on the model: it does not run this op there
                    support[op][i].add("fails")
    total = sum(calls.values())
    uses = tuple(OpUse(op, n, models[op], n / total if total else 0.0,
                       tuple(next((state for state in SUPPORT if state in s), "untested") for s in support[op]))
                 for op, n in sorted(calls.items(), key=lambda item: (-item[1], item[0])))
    coverage = []
    for i in range(len(columns)):
        tried = [u for u in uses if u.support[i] != "untested"]
        coverage.append(sum(u.calls for u in tried if u.support[i] == "runs") / sum(u.calls for u in tried)
                        if tried else None)
    return uses, tuple(coverage)


def build_models(runs: Sequence[Path], benches: Sequence[Path]) -> ModelsModel:
    """The models page's model from run folders and bench folders (either may be empty)."""
    columns, facts, problems = _Columns(), {}, []
    benched = _read_benches(benches, columns, facts, problems)  # first: a bench names models of one distinct op too
    ran = _read_runs(runs, columns, facts, problems)
    cols = columns.columns()
    rows = []
    for cid, fact in facts.items():
        operators = fact.operators or {op: 1 for op in fact.distinct_ops}
        file, name = split_case_id(cid)
        cells = tuple(_cell(ran.get((cid, c.key)), benched.get((cid, c.key), {}), list(operators)) for c in cols)
        rows.append(ModelRow(id=cid, file=file, name=name, corpus=corpus_of(cid), imported=fact.imported,
                             nodes=sum(fact.operators.values()) if fact.operators else None,
                             operators=operators, cells=cells))
    rows.sort(key=lambda r: (not r.imported, r.id))
    uses, coverage = _op_uses(rows, cols)
    return ModelsModel(columns=cols, rows=tuple(rows), ops=uses, coverage=coverage,
                       counted_by_presence=sum(1 for r in rows if r.nodes is None),
                       problems=tuple(dict.fromkeys(problems)))
