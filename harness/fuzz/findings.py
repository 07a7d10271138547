"""Findings: the root-cause key that groups failures, the case file a
finding is written as (our case schema, runnable with ``run --cases``) and
its sidecar, and recognising failures the backend's expectations already
name."""
from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from webnn_harness.files.writes import write_atomic
from webnn_harness.verdict.expectations import Expectation
from webnn_harness.fuzz.strategies import FuzzGraph
from webnn_harness.verdict.record import Record
from webnn_harness.spec.values import decode_number, encode_array

FINDING_STATUSES = frozenset({"fail", "crash", "timeout"})
_NUMBER = re.compile(r"-?\d+(\.\d+)?(e[-+]?\d+)?", re.IGNORECASE)


def value_kind(value: Any) -> str:
    """The kind of the expected value at the worst element: what class of input tripped the backend."""
    if value is None:
        return "none"
    try:
        v = decode_number(value)
    except ValueError:
        return "other"
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf"
        if v == 0:
            return "zero"
        return "negative" if v < 0 else "positive"
    if abs(v) > 2**53:
        return "int>2^53"
    if abs(v) > 2**31:
        return "int>2^31"
    return "negative int" if v < 0 else "int"


def group_key(record: Record, output_type: str) -> str:
    """One bug, one key: status, ops, the failing output's data type, the
    kind of expected value, and the message with its numbers blanked."""
    note = re.sub(r"(; )?\d+ implementation-defined element\(s\) not compared", "", record.message or "")
    message = _NUMBER.sub("#", note)[:120]
    return " | ".join((record.status, "+".join(record.ops), output_type, value_kind(record.expected_value), message))


def same_root_cause(key: str, found: str) -> bool:
    """Whether a failure keyed ``key`` is one already found as ``found``: the
    same status, output type, kind of value and message, in a chain that holds
    every op of the found one (abs crashing is one bug, whether abs runs alone
    or before neg)."""
    status, ops, *rest = key.split(" | ")
    f_status, f_ops, *f_rest = found.split(" | ")
    return status == f_status and rest == f_rest and set(f_ops.split("+")) <= set(ops.split("+"))


# A data type named in an expectation's case name or pattern, as a word: "int"
# inside "zeroPoint" or "uint8" inside "uint8x" names none.
_DATA_TYPE_WORD = re.compile(r"(?<![A-Za-z0-9])(u?int(?:4|8|32|64)|float(?:16|32))(?![A-Za-z0-9])")


def _names_op(entry: Expectation, op: str) -> bool:
    """The entry is about ``op``: its file is named after it, or its case name
    or pattern names it as a word (the gelu entry does not name elu)."""
    if Path(entry.file or "").stem.replace("_", "").lower() == op.lower():
        return True
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(op)}(?![A-Za-z0-9])", entry.case or entry.match or "") is not None


def _named_data_types(entry: Expectation) -> set[str]:
    return set(_DATA_TYPE_WORD.findall(entry.case or entry.match or ""))


def related_expectations(ops: Sequence[str], data_types: Sequence[str], entries: Sequence[Expectation]) -> list[Expectation]:
    """Entries of the backend's expectations about an op of the finding's
    minimal graph (by the WPT file named after the op, or the op named as a
    word in the entry's case name or pattern) and, where the entry names data
    types, one of the finding's: the finding may be that known failure, or
    another bug of the same op (``agreeing_expectations`` tells)."""
    return [e for e in entries if any(_names_op(e, op) for op in ops)
            and (not _named_data_types(e) or _named_data_types(e) & set(data_types))]


# How an expectation's reason or case names each kind of value a finding can
# show: its worst element's expected and actual values, and the value classes
# of its minimal case's inputs (harness/probe/deviations.py CLASSES).
KIND_WORDS: Mapping[str, re.Pattern] = {kind: re.compile(pattern, re.IGNORECASE) for kind, pattern in {
    "NaN": r"\bnan\b",
    "Infinity": r"\binf(inity|inite)?\b|overflow",
    "negative zero": r"-0\b|negative zero|signed zero",
    "beyond 2^53": r"2\^53|\bdouble\b",
    "beyond 2^31": r"2\^31|int32 range",
    "beyond 2^24": r"2\^24|float32",
    "integer extreme": r"\bwrap|saturat|two's complement",
    "inexact": r"\bulp\b|approximat|rounded",
}.items()}
_QUOTED = re.compile(r"(?<!\w)'([^']{6,})'|\"([^\"]{6,})\"")  # not the ' of "ORT's"


def finding_value_kinds(worst: Mapping[str, Any], output_type: str, input_classes: Sequence[str]) -> set[str]:
    """The kinds of value (KIND_WORDS' keys) a finding shows."""
    from webnn_harness.spec.dtypes import integer_range, is_float

    kinds = set(input_classes)
    values = []
    for v in (worst.get("expected"), worst.get("actual")):
        try:
            values.append(decode_number(v))
        except ValueError:
            pass
    for v in values:
        if isinstance(v, float) and math.isnan(v):
            kinds.add("NaN")
        elif isinstance(v, float) and math.isinf(v):
            kinds.add("Infinity")
        elif isinstance(v, float) and v == 0 and math.copysign(1, v) < 0:
            kinds.add("negative zero")
        elif isinstance(v, int) and not is_float(output_type):
            # Beyond 2^53 is beyond int32 too (an int64-as-int32 bug shows there as well).
            kinds |= {"beyond 2^53", "beyond 2^31"} if abs(v) > 2**53 else {"beyond 2^31"} if not -2**31 <= v < 2**31 else \
                {"beyond 2^24"} if abs(v) > 2**24 else set()
            if v != 0 and v in integer_range(output_type):  # the type's min or max: a wrap or a saturation
                kinds.add("integer extreme")
    if len(values) == 2 and is_float(output_type) and all(isinstance(v, float) and math.isfinite(v) for v in values):
        kinds.add("inexact")
    return kinds


def agrees(entry: Expectation, kinds: set[str], message: str) -> bool:
    """Whether ``entry`` describes this failure, not only its op and data type:
    its reason or case names a kind of value the finding shows, or a phrase
    it quotes is in the finding's message."""
    text = f"{entry.reason} {entry.case or entry.match or ''}"
    if any(KIND_WORDS[kind].search(text) for kind in kinds if kind in KIND_WORDS):
        return True
    quoted = [a or b for a, b in _QUOTED.findall(entry.reason)]
    return any(q.lower() in (message or "").lower() for q in quoted)


def agreeing_expectations(related: Sequence[Expectation], kinds: set[str], message: str,
                          data_types: Sequence[str]) -> tuple[list[str], list[str]]:
    """(reasons that make the finding known, reasons only related to it), each
    once. Known takes an entry naming one of the finding's data types and
    describing the same kind of value (``agrees``); an entry naming no data
    type is only related."""
    known = [e.reason for e in related if _named_data_types(e) & set(data_types) and agrees(e, kinds, message)]
    others = [e.reason for e in related if e.reason not in known]
    return list(dict.fromkeys(known)), list(dict.fromkeys(others))


def finding_counts(findings: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """summary.json's counts over findings as written (``Finding.to_json``):
    new ones (no known failure agrees), and each cause (precision.py: a
    precision finding is the spec's formula evaluated in the operand type)."""
    return {"newFindings": sum(1 for f in findings if not f["known"]),
            "backendFindings": sum(1 for f in findings if f["cause"] == "backend"),
            "precisionFindings": sum(1 for f in findings if f["cause"] == "precision")}


@dataclass(frozen=True)
class Finding:
    key: str
    id: str  # file stem under findings/, stable for a given key
    status: str
    ops: tuple[str, ...]
    data_types: tuple[str, ...]
    value_kind: str
    message: str
    worst: Mapping[str, Any]  # output, index, expected, actual, error, metric, budget
    required: bool
    seed: int | None  # None: an unseeded search
    elements: int  # input elements of the minimal graph
    nodes: int
    known: tuple[str, ...] = ()  # reasons of agreeing expectation entries and probe findings
    related: tuple[str, ...] = ()  # expectations on the same op and data type about another kind of value
    cause: str = "backend"  # or "precision": the spec's formula in the operand type gives it too (precision.py)
    cause_note: str = ""  # one line saying why, for "precision"
    hits: int = 1  # failing graphs with this key (before shrinking)
    probe: tuple[Mapping[str, Any], ...] = ()  # the probe's verdict per op (harness/fuzz/evidence.py)
    shrink_seconds: float = 0.0
    shrink_graphs: int = 0
    shrink_stopped_by: str | None = None  # "cap", "budget", or None: hypothesis finished shrinking

    def to_json(self) -> dict:
        out = asdict(self)
        for name in ("data_types", "value_kind", "shrink_seconds", "shrink_graphs", "shrink_stopped_by", "cause_note"):
            del out[name]
        return {**out, "ops": list(self.ops), "dataTypes": list(self.data_types), "valueKind": self.value_kind,
                "known": list(self.known), "related": list(self.related), "causeNote": self.cause_note, "probe": [dict(v) for v in self.probe],
                "shrink": {"seconds": self.shrink_seconds, "graphs": self.shrink_graphs, "stoppedBy": self.shrink_stopped_by}}


def finding_id(key: str) -> str:
    import hashlib

    return hashlib.sha256(key.encode()).hexdigest()[:10]


def case_json(graph: FuzzGraph, name: str) -> dict:
    """The minimal graph as a case of our schema (harness/schema/cases.schema.json); expected
    values are left to the reference, as for generated cases."""
    case = graph.case
    inputs = {n: {"data": encode_array(case.inputs[n]), "descriptor": d.to_json()} for n, d in graph.input_descs.items()}
    outputs = {n: {"descriptor": case.graph.descs[n].to_json()} for n in case.graph.outputs}
    return {"name": name, "graph": {"inputs": inputs, "operators": list(graph.operators_json), "expectedOutputs": outputs}}


def write_finding(out: Path, finding: Finding, graph: FuzzGraph) -> Path:
    """findings/<id>.json (a case file) and findings/<id>.finding.json (what was seen)."""
    folder = out / "findings"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{finding.id}.json"
    name = f"{graph.case.name} {finding.id}"
    write_atomic(path, json.dumps({"tests": [case_json(graph, name)]}, indent=1) + "\n")
    (folder.parent / "findings-details").mkdir(exist_ok=True)
    write_atomic(folder.parent / "findings-details" / f"{finding.id}.json",
                 json.dumps({**finding.to_json(), "case": name, "caseFile": f"findings/{path.name}"}, indent=1) + "\n")
    return path


def worst_of(record: Record) -> dict:
    return {"output": record.output, "index": list(record.worst_index) if record.worst_index is not None else None,
            "expected": record.expected_value, "actual": record.actual_value, "error": record.max_error,
            "metric": record.metric, "budget": record.budget}


@dataclass
class Tally:
    """Graphs run per op and data type, split by phase (generation or shrinking)."""

    generated: dict[str, dict[str, int]] = field(default_factory=dict)
    shrinking: int = 0
    statuses: dict[str, int] = field(default_factory=dict)

    def add(self, record: Record, shrinking: bool) -> None:
        self.statuses[record.status] = self.statuses.get(record.status, 0) + 1
        if shrinking:
            self.shrinking += 1
            return
        for op in record.ops:
            per = self.generated.setdefault(op, {})
            for t in record.data_types:
                per[t] = per.get(t, 0) + 1

    @property
    def graphs(self) -> int:
        return sum(self.statuses.values())


def finding_kind(f: Finding) -> str:
    """Which one of the disjoint groups the console and the page count a finding in:
    a precision effect or a stale one by its cause, else known or new."""
    if f.cause != "backend":
        return f.cause
    return "known" if f.known else "new"


def finding_line(f: Finding) -> str:
    """One console line: id, new or known, what failed on which values, and the message (issue 28:
    the line was the raw key, ending with an empty message field)."""
    values = f" on {f.value_kind} values" if f.value_kind not in ("", "none") else ""
    message = " ".join(f.message.split())[:140]
    known = f"; known: {' '.join(f.known[0].split())[:100]}" if f.known else ""
    return (f"finding {f.id} ({finding_kind(f)}): {f.status} {'+'.join(f.ops)} {'/'.join(f.data_types)}{values}"
            f"{': ' + message if message else ''}{known}")


def findings_tally(findings) -> str:
    """The findings in disjoint groups, e.g. "6 findings: 2 new, 2 known, 2 precision"."""
    from collections import Counter

    counts = Counter(finding_kind(f) for f in findings)
    order = ("new", "known", "precision", "stale")
    words = {"new": "new (not a known failure)", "known": "known", "precision": "precision effects", "stale": "no longer failing"}
    parts = [f"{counts[k]} {words[k]}" for k in order if counts[k]]
    return f"{len(findings)} finding{'s' if len(findings) != 1 else ''}" + (f": {', '.join(parts)}" if parts else "")
