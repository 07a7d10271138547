"""Fuzz folders (written by ``webnn-harness fuzz``) -> the findings page model.

A fuzz folder holds ``summary.json`` (the run header, ``"kind": "fuzz"``,
graphs tried per op and data type, the findings), ``findings/<id>.json`` (each
finding's minimal graph as a case file of our schema) and
``findings-details/<id>.json`` (what was seen: message, worst element, seed,
hits, known failures, the cause: backend or precision, the case's name). A run folder's summary.json
has no ``kind`` and sits beside ``results.jsonl``; that is how the two are
told apart (harness/outputs/kinds.py ``is_fuzz_summary``).

Everything the page shows is decided here; the template only formats it.
Pages are published and their commands run as printed from the folder the
report was made in: the re-run command names ``<folder>/findings`` with the
fuzz folder as it was given (outputs/rerun_commands.shown_path: an absolute
path outside that folder is cut to its last component, and the command says so).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

# FUZZ_CASES: also the corpus name that `run --cases DIR/findings` gives these case files
from webnn_harness.outputs.kinds import FUZZ_CASES, FUZZ_DETAILS, FUZZ_SUMMARY_SCHEMA, read_fuzz_folder
from webnn_harness.files.reading import ReadError, read_json
from webnn_harness.reports.common import (BackendId, BackendIds, format_error, format_value, rerun_command,
                                          shown_path, with_shortened_note)

SHOWN_VALUES = 16  # input values listed per operand; a minimal case rarely has more


@dataclass(frozen=True)
class WorstElement:
    output: str
    index: str  # "[1, 2]", "[]" for a scalar
    expected: str
    actual: str
    error: str
    budget: str  # "34 ULP", "" where none was given


@dataclass(frozen=True)
class FuzzFinding:
    id: str  # stable for a root cause (harness/fuzz/findings.py finding_id)
    anchor: str  # unique within the findings page
    status: str
    ops: tuple[str, ...]
    data_types: tuple[str, ...]
    value_kind: str
    message: str
    worst: WorstElement | None
    hits: int
    required: bool
    known: tuple[str, ...]  # reasons of the backend's known failures that agree with it; empty: new
    related: tuple[str, ...]  # expectations on the same op and data type about another kind of value
    cause: str  # "backend", "precision" (harness/fuzz/precision.py) or "stale" (fuzz/reclassify.py)
    cause_note: str  # one line saying why, for precision and stale findings
    case: str  # the minimal case's name
    graph: tuple[str, ...]  # one line per call: "sigmoid(input_0) -> output_0"
    inputs: tuple[str, ...]  # one line per input: "input_0: float32[2, 3] = [0, ..., -5]"
    elements: int
    nodes: int
    command: str  # `webnn-harness run ... --cases <folder>/findings --id ...`


@dataclass(frozen=True)
class FuzzRun:
    backend: BackendId
    header: Mapping[str, Any]  # the backend as info() reported it
    source: str  # the fuzz folder's name, never its path
    harness_version: str
    date: str
    machine: Mapping[str, Any]
    options: tuple[str, ...]  # -o key=value as given to fuzz
    seed: int | None
    budget_seconds: float | None
    seconds: float | None
    complete: bool
    graphs: int
    shrinking_graphs: int
    statuses: tuple[tuple[str, int], ...]
    data_types: tuple[str, ...]  # columns of the tried table
    tried: tuple[tuple[str, tuple[int, ...]], ...]  # (op, counts per data type), ops in order
    findings: tuple[FuzzFinding, ...]

    @property
    def new_findings(self) -> int:
        return sum(1 for f in self.findings if not f.known)

    def by_cause(self, cause: str) -> tuple[FuzzFinding, ...]:
        """Findings of one cause; "backend" includes runs older than the cause field."""
        return tuple(f for f in self.findings if f.cause == cause)


@dataclass(frozen=True)
class FindingsModel:
    runs: tuple[FuzzRun, ...]
    warnings: tuple[str, ...] = ()

    def for_op(self, op: str) -> list[tuple[FuzzRun, FuzzFinding]]:
        return [(r, f) for r in self.runs for f in r.findings if op in f.ops]

    @property
    def total(self) -> int:
        return sum(len(r.findings) for r in self.runs)


# --------------------------------------------------------------------------- reading


def _shape(desc: Mapping[str, Any]) -> str:
    return f"{desc.get('dataType', '?')}[{', '.join(str(d) for d in desc.get('shape', []))}]"


def _values(data: Any) -> str:
    values = data if isinstance(data, list) else [data]
    shown = ", ".join(format_value(v) for v in values[:SHOWN_VALUES])
    return f"[{shown}{', …' if len(values) > SHOWN_VALUES else ''}]"


def _argument(arg: Any) -> str:
    """One argument object of a call as the case file writes it ({"input": name},
    {"options": {...}}, WPT's {"scale": s, "zeroPoint": z}: one argument per key)."""
    if isinstance(arg, Mapping) and arg:
        return ", ".join(filter(None, (_keyed_argument(key, value) for key, value in arg.items())))
    return format_value(arg)


def _keyed_argument(key: str, value: Any) -> str:
    if key == "options":
        return ", ".join(f"{k}: {format_value(v)}" for k, v in value.items()) if isinstance(value, Mapping) else ""
    if isinstance(value, str):
        return value
    return f"{key}: {format_value(value)}"


def summarise_case(case: Mapping[str, Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(calls, inputs) of a case of our schema, one short line each."""
    graph = case.get("graph", {})
    calls = []
    for node in graph.get("operators", []):
        args = [a for a in (_argument(x) for x in node.get("arguments", [])) if a]
        outs = node.get("outputs", [])
        outs = [outs] if isinstance(outs, str) else outs
        calls.append(f"{node.get('name', '?')}({', '.join(args)}) -> {', '.join(outs)}")
    inputs = tuple(f"{name}: {_shape(spec.get('descriptor', {}))} = {_values(spec.get('data', []))}"
                   for name, spec in graph.get("inputs", {}).items())
    return tuple(calls), inputs


def _worst(worst: Any) -> WorstElement | None:
    if not isinstance(worst, Mapping) or worst.get("expected") is None and worst.get("actual") is None:
        return None
    budget = worst.get("budget")
    return WorstElement(
        output=str(worst.get("output") or ""),
        index=format_value(list(worst.get("index") or [])),
        expected=format_value(worst.get("expected")), actual=format_value(worst.get("actual")),
        error=format_error(worst.get("error")),
        budget=f"{format_error(budget)} {worst.get('metric') or ''}".strip() if budget is not None else "",
    )


def _read_optional(path: Path, problems: list[str], kind: str | None = None) -> Any:
    if not path.is_file():
        problems.append(f"{path.parent.name}/{path.name}: missing")
        return None
    try:
        return read_json(path, kind)
    except ReadError:
        problems.append(f"{path.parent.name}/{path.name}: unreadable")
        return None


def _finding(folder: Path, entry: Mapping[str, Any], source: str, slug: str, backend: Mapping[str, Any],
             backend_arg: str | None, options: Sequence[str], problems: list[str]) -> FuzzFinding:
    fid = str(entry.get("id", "?"))
    details = _read_optional(folder / FUZZ_DETAILS / f"{fid}.json", problems, f"{FUZZ_SUMMARY_SCHEMA}#finding") or {}
    doc = _read_optional(folder / FUZZ_CASES / f"{fid}.json", problems, "cases") or {}  # the shape summarise_case reads
    # The sidecar is written when the finding is; the summary at the end, with the final hit count.
    entry = {**details, **entry}
    tests = doc.get("tests") if isinstance(doc, Mapping) else None
    case = tests[0] if isinstance(tests, list) and tests and isinstance(tests[0], Mapping) else {}
    calls, inputs = summarise_case(case)
    name = str(details.get("case") or case.get("name") or "")
    shown, shortened = shown_path(folder)
    command = with_shortened_note(rerun_command(backend, options, f"{FUZZ_CASES}/{fid}.json", name,
                                                corpus_path=str(Path(shown) / FUZZ_CASES), backend_arg=backend_arg),
                                  shortened) if name else ""
    return FuzzFinding(
        id=fid, anchor=f"{slug}-{fid}", status=str(entry.get("status", "fail")),
        ops=tuple(entry.get("ops", ())), data_types=tuple(entry.get("dataTypes", ())),
        value_kind=str(entry.get("valueKind", "")), message=str(entry.get("message") or ""),
        worst=_worst(entry.get("worst")), hits=int(entry.get("hits") or 1), required=bool(entry.get("required", True)),
        known=tuple(str(k) for k in entry.get("known", ())), related=tuple(str(k) for k in entry.get("related", ())),
        cause=str(entry.get("cause") or "backend"), cause_note=str(entry.get("causeNote") or ""), case=name, graph=calls, inputs=inputs,
        elements=int(entry.get("elements") or 0), nodes=int(entry.get("nodes") or len(calls)), command=command,
    )


def read_fuzz_run(folder: Path, ids: BackendIds, problems: list[str]) -> FuzzRun:
    summary = read_fuzz_folder(folder).summary
    backend = summary.get("backend") or {}
    settings = summary.get("settings") or {}
    name = str(backend.get("name", "?"))
    source = folder.resolve().name or "fuzz"
    bid = ids.get(name, str(backend.get("version", "")), str(backend.get("device", "")),
                  extra=f"fuzz:{summary.get('date', '')}", run_label=source)
    options = tuple(f"{k}={v}" for k, v in (settings.get("options") or {}).items())
    given = str(settings.get("backend") or name)  # a module:factory path where not a registered name
    tried_by_op = summary.get("triedByOp") or {}
    data_types = tuple(sorted({t for per in tried_by_op.values() for t in per}))
    tried = tuple((op, tuple(int(per.get(t, 0)) for t in data_types)) for op, per in sorted(tried_by_op.items()))
    found_problems: list[str] = []
    findings = tuple(_finding(folder, f, source, bid.slug, backend, given if given != name else None, options,
                              found_problems)
                     for f in summary.get("findings", []) if isinstance(f, Mapping))
    problems.extend(f"{source}: {p}" for p in found_problems)
    return FuzzRun(
        backend=bid, header=backend, source=source, harness_version=str(summary.get("harnessVersion", "")),
        date=str(summary.get("date", "")), machine=summary.get("machine") or {}, options=options,
        seed=settings.get("seed"), budget_seconds=settings.get("seconds"), seconds=summary.get("seconds"),
        complete=bool(summary.get("complete")), graphs=int(summary.get("graphs") or 0),
        shrinking_graphs=int(summary.get("shrinkingGraphs") or 0),
        statuses=tuple(sorted((summary.get("statuses") or {}).items(), key=lambda kv: -kv[1])),
        data_types=data_types, tried=tried,
        # new root causes first, then the most often hit
        findings=tuple(sorted(findings, key=lambda f: (bool(f.known), -f.hits, f.ops, f.id))),
    )


def build_findings(folders: Sequence[Path], ids: BackendIds | None = None) -> FindingsModel:
    ids = ids or BackendIds()
    problems: list[str] = []
    runs = tuple(read_fuzz_run(f, ids, problems) for f in folders)
    return FindingsModel(runs=runs, warnings=tuple(problems))
