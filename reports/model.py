"""Results and probe files -> the report model (plain frozen data, no HTML).

The renderer only formats what is here; every count, rate, gap and re-run
command is decided in this module so it can be tested without templates.

Inputs:
- run directories (``results.jsonl`` and, normally, ``summary.json``) written
  by ``webnn-harness run``; one run may hold several backends;
- probe outputs: ``<backend>-opSupportLimits.json`` (MLOpSupportLimits as the
  spec shapes it, see the spec's "MLOpSupportLimits dictionary") and
  ``<backend>-probe.json`` (the evidence behind it: header, layout timings,
  per-combination outcomes).
"""
from __future__ import annotations

import json
import math
import re
import shlex
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from webnn_harness.catalog import OperatorSpec, operators
from webnn_harness.dtypes import DATA_TYPES
from webnn_harness.results import BAD_STATUSES, STATUSES, Record, read_records

LIMITS_SUFFIX = "-opSupportLimits.json"
PROBE_SUFFIX = "-probe.json"
HEADER_SUFFIX = "-opSupportLimits.header.json"
# MLOpSupportLimits members that are not operators (spec: "MLOpSupportLimits dictionary").
TOP_LEVEL_LIMITS = ("preferredInputLayout", "maxTensorByteLength", "input", "constant", "output")
SHORT_TYPE = {
    "float32": "f32", "float16": "f16", "int32": "i32", "uint32": "u32",
    "int64": "i64", "uint64": "u64", "int8": "i8", "uint8": "u8", "int4": "i4", "uint4": "u4",
}


class ReportInputError(ValueError):
    """An input that is neither a run directory nor a probe output, or cannot be read."""


# --------------------------------------------------------------------------- identity


def slug(text: str) -> str:
    """A file-name-safe, lower-case form of ``text`` (backend labels become page names)."""
    s = re.sub(r"[^a-z0-9._-]+", "-", text.lower()).strip("-.")
    return s[:80] or "backend"


@dataclass(frozen=True)
class BackendId:
    """One column of every table: a backend at a version on a device."""

    name: str
    version: str
    device: str
    slug: str  # unique within a site
    label: str  # unique within a site, for people

    @property
    def short_version(self) -> str:
        # OpenVINO's versions carry the build tag ("2026.4.1-22982-e213a14-releases/2026/4").
        return self.version.split("-")[0] if self.version else ""


class _Ids:
    """Hands out BackendIds, unique by (name, version, device, extra)."""

    def __init__(self) -> None:
        self._by_key: dict[tuple, BackendId] = {}
        self._slugs: set[str] = set()

    def get(self, name: str, version: str, device: str, extra: str = "") -> BackendId:
        key = (name, version, device, extra)
        if key in self._by_key:
            return self._by_key[key]
        label = f"{name} {version.split('-')[0]}".strip()
        base = slug(f"{name}-{version.split('-')[0]}")
        same = [b for b in self._by_key.values() if b.name == name and b.short_version == version.split("-")[0]]
        if same:
            label = f"{label} ({len(same) + 1})"
            base = f"{base}-{len(same) + 1}"
        s = base
        while s in self._slugs:
            s += "x"
        self._slugs.add(s)
        bid = BackendId(name, version, device, s, label)
        self._by_key[key] = bid
        return bid


# --------------------------------------------------------------------------- values


def format_value(value: Any) -> str:
    """Expected/actual values as people read them (bigints as decimals, floats to 9 digits)."""
    if value is None:
        return ""
    if isinstance(value, Mapping) and "bigint" in value:
        return str(value["bigint"])
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return str(value)
        if value == int(value) and abs(value) < 1e16:
            return str(int(value)) if abs(value) >= 1e6 else repr(value)
        return f"{value:.9g}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    return str(value)


def error_number(value: Any) -> float | None:
    """maxError as a number for sorting ("Infinity" is written as a string)."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return float(value)


def format_error(value: Any) -> str:
    n = error_number(value)
    if n is None:
        return ""
    if math.isinf(n):
        return "inf"
    return f"{n:.6g}"


def rate(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


# --------------------------------------------------------------------------- re-run command

# When a run's command line is not recorded, the options a backend was made
# with are recovered from the settings its info() reports: settings key ->
# (option name, the backend's default, which need not be repeated).
OPTIONS_FROM_SETTINGS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "onnxruntime": (("provider", "ep", "CPUExecutionProvider"),
                    ("graph_optimization_level", "opt_level", "all"),
                    ("intra_op_threads", "threads", "1")),
    "openvino": (("device", "device", "CPU"), ("precision", "precision", "exact")),
}


def options_from_command(command: str | None) -> list[str] | None:
    """The ``-o key=value`` pairs of a recorded ``webnn-harness run`` command line."""
    if not command:
        return None
    try:
        argv = shlex.split(command)
    except ValueError:
        return None
    out, i = [], 0
    while i < len(argv):
        a = argv[i]
        if a in ("-o", "--option") and i + 1 < len(argv):
            out.append(argv[i + 1])
            i += 2
            continue
        if a.startswith("--option="):
            out.append(a.split("=", 1)[1])
        elif a.startswith("-o") and len(a) > 2:
            out.append(a[2:])
        i += 1
    return out


def options_from_settings(backend: Mapping[str, Any]) -> list[str]:
    settings = backend.get("settings") or {}
    out = []
    for key, option, default in OPTIONS_FROM_SETTINGS.get(backend.get("name", ""), ()):
        if key in settings and str(settings[key]) != default:
            out.append(f"{option}={settings[key]}")
    return out


_REGEX_SPECIAL = re.compile(r"([.^$*+?{}\[\]\\|()])")


def regex_literal(text: str) -> str:
    """``text`` as a regular expression matching itself; unlike re.escape, spaces stay
    readable (the run command's --filter is a Python regex, searched in the case name)."""
    return _REGEX_SPECIAL.sub(r"\\\1", text)


def rerun_command(backend: Mapping[str, Any], options: Sequence[str], file: str, case: str) -> str:
    """The command that re-runs just this case on this backend (a POSIX shell line)."""
    parts = ["webnn-harness", "run", "--backend", str(backend.get("name", "?"))]
    for opt in options:
        parts += ["-o", opt]
    parts += ["--cases", file, "--filter", f"^{regex_literal(case)}$"]
    return " ".join(shlex.quote(p) for p in parts)


# --------------------------------------------------------------------------- conformance model


@dataclass(frozen=True)
class RunHeader:
    backend: Mapping[str, Any]
    harness_version: str
    date: str
    machine: Mapping[str, Any]
    command: str
    source: str  # the run directory
    seconds: float | None

    @property
    def settings(self) -> Mapping[str, Any]:
        return self.backend.get("settings") or {}


@dataclass(frozen=True)
class Problem:
    """A non-pass record, flattened for the table."""

    backend: BackendId
    file: str
    file_name: str
    case: str
    ops: tuple[str, ...]
    data_types: tuple[str, ...]
    status: str
    required: bool
    metric: str
    budget: str
    max_error: str
    max_error_sort: float | None
    output: str
    worst_index: str
    expected: str
    actual: str
    message: str
    known_failure: str
    command: str


@dataclass(frozen=True)
class Cell:
    """One operator x data type square: how the cases there came out."""

    outcome: str  # pass | partial | fail | known | unsupported | skipped | untested
    counts: tuple[tuple[str, int], ...]  # (status, n) for statuses that occur
    total: int
    passed: int
    title: str


@dataclass(frozen=True)
class BackendConformance:
    backend: BackendId
    header: RunHeader
    total: int
    counts: Mapping[str, int]
    required: Mapping[str, int]
    optional: Mapping[str, int]
    required_rate: float | None
    optional_rate: float | None
    known_failures: int
    required_problems: int
    data_types: tuple[str, ...]
    matrix: tuple[tuple[str, tuple[Cell, ...]], ...]  # (op, cells in data_types order), all 95 ops
    ops_tested: int
    problems: tuple[Problem, ...]
    rerun_options_derived: bool  # True: options came from settings, not a recorded command


@dataclass(frozen=True)
class Conformance:
    backends: tuple[BackendConformance, ...]
    problems: tuple[Problem, ...]
    filter_ops: tuple[str, ...]
    filter_types: tuple[str, ...]
    filter_statuses: tuple[str, ...]


def cell_outcome(counts: Counter, known: int) -> str:
    total = sum(counts.values())
    if not total:
        return "untested"
    bad = sum(counts[s] for s in BAD_STATUSES) - known
    if bad > 0:
        return "partial" if counts["pass"] else "fail"
    if known:
        return "known"
    if counts["unsupported"]:
        return "unsupported" if not counts["pass"] else "partial-unsupported"
    if counts["pass"]:
        return "pass"
    return "skipped"


OUTCOME_TEXT = {
    "pass": "all pass",
    "partial": "some fail",
    "fail": "all fail",
    "known": "known failures only",
    "unsupported": "unsupported",
    "partial-unsupported": "some unsupported",
    "skipped": "skipped",
    "untested": "not tested",
}


def _matrix(records: Sequence[Record], all_ops: Sequence[str], data_types: Sequence[str]):
    counts: dict[tuple[str, str], Counter] = defaultdict(Counter)
    known: Counter = Counter()
    for r in records:
        # A multi-operator graph counts for each operator and each data type it uses.
        for op in set(r.ops):
            for dt in set(r.data_types):
                counts[(op, dt)][r.status] += 1
                known[(op, dt)] += bool(r.known_failure) and r.status in BAD_STATUSES
    rows = []
    for op in all_ops:
        cells = []
        for dt in data_types:
            c = counts.get((op, dt), Counter())
            outcome = cell_outcome(c, known[(op, dt)])
            occurring = tuple((s, c[s]) for s in STATUSES if c[s])
            detail = ", ".join(f"{n} {s}" for s, n in occurring) or "no cases"
            if known[(op, dt)]:
                detail += f" ({known[(op, dt)]} known failures)"
            cells.append(Cell(outcome, occurring, sum(c.values()), c["pass"], f"{op} × {dt}: {detail}"))
        rows.append((op, tuple(cells)))
    return tuple(rows)


def _problem(r: Record, bid: BackendId, options: Sequence[str]) -> Problem:
    index = "[" + ", ".join(str(i) for i in r.worst_index) + "]" if r.worst_index is not None else ""
    budget = "" if r.budget is None else format_error(r.budget)
    return Problem(
        backend=bid, file=r.file, file_name=Path(r.file).name, case=r.case, ops=tuple(r.ops),
        data_types=tuple(r.data_types), status=r.status, required=r.required, metric=r.metric or "",
        budget=budget, max_error=format_error(r.max_error), max_error_sort=error_number(r.max_error),
        output=r.output or "", worst_index=index, expected=format_value(r.expected_value),
        actual=format_value(r.actual_value), message=r.message or "", known_failure=r.known_failure or "",
        command=rerun_command(r.backend, options, r.file, r.case),
    )


@dataclass
class _RunGroup:
    """Records of one backend in one run directory."""

    backend: Mapping[str, Any]
    records: list[Record]
    summary: Mapping[str, Any]
    source: Path


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ReportInputError(f"{path}: cannot read: {exc}") from None


def read_run(run_dir: Path) -> list[_RunGroup]:
    results = run_dir / "results.jsonl"
    try:
        records = read_records(results)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ReportInputError(f"{results}: cannot read: {exc}") from None
    summary_path = run_dir / "summary.json"
    summary = _read_json(summary_path) if summary_path.exists() else {}
    groups: dict[str, _RunGroup] = {}
    # Backends in the summary's order, then any only the records name (an interrupted run).
    for entry in summary.get("backends", []):
        b = entry.get("backend", {})
        groups.setdefault(_backend_key(b), _RunGroup(b, [], summary, run_dir))
    for r in records:
        groups.setdefault(_backend_key(r.backend), _RunGroup(r.backend, [], summary, run_dir)).records.append(r)
    return list(groups.values())


def _backend_key(b: Mapping[str, Any]) -> str:
    return json.dumps(b, sort_keys=True, default=str)


def build_conformance(groups: Sequence[_RunGroup], ids: _Ids) -> Conformance:
    # The same rows and columns for every backend, so their matrices line up.
    all_ops = list(operators())
    all_ops += sorted({o for g in groups for r in g.records for o in r.ops} - set(all_ops))
    extra_types = sorted({dt for g in groups for r in g.records for dt in r.data_types} - set(DATA_TYPES))
    data_types = tuple(DATA_TYPES) + tuple(extra_types)
    backends = []
    for g in groups:
        b = g.backend
        extra = json.dumps(b.get("settings", {}), sort_keys=True, default=str)
        bid = ids.get(str(b.get("name", "?")), str(b.get("version", "")), str(b.get("device", "")), extra)
        header = RunHeader(
            backend=b, harness_version=str(g.summary.get("harnessVersion", "")), date=str(g.summary.get("date", "")),
            machine=g.summary.get("machine", {}) or {}, command=str(g.summary.get("command", "")),
            source=str(g.source), seconds=next((e.get("seconds") for e in g.summary.get("backends", [])
                                                if _backend_key(e.get("backend", {})) == _backend_key(b)), None),
        )
        recorded = options_from_command(header.command) if len(g.summary.get("backends", [])) == 1 else None
        options = recorded if recorded is not None else options_from_settings(b)
        counts, req, opt = Counter(), Counter(), Counter()
        for r in g.records:
            counts[r.status] += 1
            (req if r.required else opt)[r.status] += 1
        matrix = _matrix(g.records, all_ops, data_types)
        problems = tuple(_problem(r, bid, options) for r in g.records if r.status != "pass")
        backends.append(BackendConformance(
            backend=bid, header=header, total=len(g.records),
            counts={s: counts[s] for s in STATUSES}, required={s: req[s] for s in STATUSES},
            optional={s: opt[s] for s in STATUSES},
            required_rate=rate(req["pass"], sum(req.values()) - req["skipped"]),
            optional_rate=rate(opt["pass"], sum(opt.values()) - opt["skipped"]),
            known_failures=sum(bool(r.known_failure) for r in g.records),
            required_problems=sum(r.counts_against for r in g.records),
            data_types=data_types, matrix=matrix,
            ops_tested=sum(1 for _, cells in matrix if any(c.total for c in cells)),
            problems=problems, rerun_options_derived=recorded is None,
        ))
    problems = tuple(p for b in backends for p in b.problems)
    return Conformance(
        backends=tuple(backends), problems=problems,
        filter_ops=tuple(sorted({o for p in problems for o in p.ops})),
        filter_types=tuple(dt for dt in (*DATA_TYPES, *sorted({d for p in problems for d in p.data_types}
                                                            - set(DATA_TYPES)))
                           if any(dt in p.data_types for p in problems)),
        filter_statuses=tuple(s for s in STATUSES if any(p.status == s for p in problems)),
    )


# --------------------------------------------------------------------------- capability model
#
# Probe outputs (harness/probe): ``<stem>-opSupportLimits.json`` is exactly
# MLOpSupportLimits; ``<stem>-opSupportLimits.header.json`` the probe's header;
# ``<stem>-probe.json`` the evidence: {"header", "summary", "combinations": [
# {id, op, role, member, axis, value, inSpec, operands, outputs, attributes,
# outcome, message, metric, budget, maxError, example}], "optionValues",
# "beyondSpecDataTypes", "conformanceGaps", "emulations", "preferredInputLayout",
# "maxTensorByteLength", "analysis", "notTried", "harnessProblems"}.
# A limits file alone (for example one a browser declares) is enough for the
# matrix; the evidence adds wrong results, emulation, layouts and options.

MAX_PROBED_RANK = 8  # the probe caps ranks here; a spec "N" is checked up to it


@dataclass(frozen=True)
class TensorLimit:
    data_types: tuple[str, ...]
    rank_min: int | None
    rank_max: int | None

    @property
    def rank_text(self) -> str:
        if not self.data_types or (self.rank_min is None and self.rank_max is None):
            return ""
        if self.rank_min == self.rank_max:
            return f"rank {self.rank_min}"
        return f"rank {self.rank_min}–{self.rank_max}"


@dataclass(frozen=True)
class MemberCapability:
    """One operand of one operator on one backend, against the spec."""

    member: str
    limit: TensorLimit | None  # None: the backend's limits do not list this member
    missing_types: tuple[str, ...]  # required by the spec, absent from the backend's list
    missing_ranks: str  # "" or e.g. "spec requires rank 0–5, backend has 1–5"
    beyond_spec: tuple[str, ...]  # working data types the spec does not allow (from the evidence)


@dataclass(frozen=True)
class Evidence:
    """One probed combination as the probe recorded it."""

    op: str
    member: str
    axis: str  # dataType | rank | option | baseline
    value: str
    varied: str  # "input.dataType=int64", "option inputLayout=nhwc", "baseline"
    operands: str  # "input f32 [2, 3] → output f32 [2, 3]"
    attributes: str
    in_spec: bool
    outcome: str  # supported | emulated | rejected | wrong | unverified | crash | timeout | error
    message: str  # the backend's message, or for a wrong result the worst element

    @property
    def data_type(self) -> str:
        return self.value if self.axis == "dataType" else ""

    @property
    def rank(self) -> str:
        return self.value if self.axis == "rank" else ""


@dataclass(frozen=True)
class OpCapability:
    op: str
    backend: BackendId
    probed: bool  # False: a partial probe that did not try this operator
    listed: bool  # some member has a data type in opSupportLimits
    members: tuple[MemberCapability, ...]
    wrong: tuple[Evidence, ...]  # accepted and computed, but the values were wrong
    emulated: str  # how the backend composes it, "" if native
    evidence: tuple[Evidence, ...]
    options: tuple[tuple[str, str], ...]  # (option or layout variant, outcome)
    outcomes: tuple[tuple[str, int], ...]  # evidence outcome counts

    @property
    def missing_types(self) -> tuple[str, ...]:
        seen: list[str] = []
        for m in self.members:
            seen += [t for t in m.missing_types if t not in seen]
        return tuple(seen)

    @property
    def rank_gaps(self) -> tuple[str, ...]:
        return tuple(f"{m.member}: {m.missing_ranks}" for m in self.members if m.missing_ranks)

    @property
    def primary(self) -> MemberCapability | None:
        return self.members[0] if self.members else None

    @property
    def layouts(self) -> tuple[tuple[str, str], ...]:
        return tuple((k, v) for k, v in self.options if "ayout" in k)

    @property
    def option_variants(self) -> tuple[tuple[str, str], ...]:
        return tuple((k, v) for k, v in self.options if "ayout" not in k)

    @property
    def wrong_in_spec(self) -> tuple[Evidence, ...]:
        return tuple(e for e in self.wrong if e.in_spec)

    @property
    def has_gaps(self) -> bool:
        return self.listed and bool(self.missing_types or self.rank_gaps)

    @property
    def status(self) -> str:
        """The cell's colour: wrong results inside the spec first, then gaps, then how it is done.
        Wrong results only for data types beyond the spec do not colour the cell (a WebNN
        implementation rejects those before they reach the backend); they are still listed."""
        if not self.probed:
            return "unprobed"
        if not self.listed:
            return "absent"
        if self.wrong_in_spec:
            return "wrong"
        if self.missing_types or self.rank_gaps:
            return "gaps"
        return "emulated" if self.emulated else "complete"


CAPABILITY_TEXT = {
    "complete": "every required data type and rank",
    "emulated": "complete, composed from other operations",
    "gaps": "misses a spec-required data type or rank",
    "wrong": "accepted but computes wrong values",
    "absent": "not supported",
    "unprobed": "not probed",
}


@dataclass(frozen=True)
class ProbeBackend:
    backend: BackendId
    header: Mapping[str, Any]  # run_header(): backend info, harness version, date, machine
    limits_file: str  # path of the opSupportLimits JSON, "" if none given
    limits_download: str  # file name under data/ in the site, "" if none
    preferred_layout: str
    layout_basis: str  # why that layout ("geometric mean of nhwc/nchw time ratios = 1.11")
    layout_timings: tuple[tuple[str, str, str, str], ...]  # (graph, nchw median, nhwc median, nhwc/nchw)
    layout_evidence: tuple[tuple[str, str], ...]  # the rest of the layout evidence (shapes...), flattened
    max_tensor_byte_length: int | None
    bytes_evidence: tuple[tuple[str, str], ...]  # how the byte search went, as (what, text) rows
    bytes_at_budget: bool  # the search stopped at its memory budget: the real limit is at least this
    compare: Mapping[str, Any]  # the probe's diff against a declared opSupportLimits file, if any
    graph_limits: tuple[tuple[str, TensorLimit], ...]  # input / constant / output
    ops: Mapping[str, OpCapability]
    summary: Mapping[str, Any]
    not_tried: int
    harness_problems: tuple[str, ...]

    @property
    def gap_ops(self) -> tuple[OpCapability, ...]:
        return tuple(o for o in self.ops.values() if o.status == "absent" or o.has_gaps or o.wrong_in_spec)

    @property
    def counts(self) -> Mapping[str, int]:
        """Operators per cell colour, and (independently) how many have gaps or wrong results."""
        c = Counter(o.status for o in self.ops.values())
        out = {s: c[s] for s in CAPABILITY_TEXT}
        out["with_gaps"] = sum(o.has_gaps for o in self.ops.values())
        out["with_wrong"] = sum(bool(o.wrong_in_spec) and o.listed for o in self.ops.values())
        return out


def _tensor_limit(raw: Any) -> TensorLimit | None:
    if not isinstance(raw, Mapping):
        return None
    rr = raw.get("rankRange") or {}
    return TensorLimit(tuple(raw.get("dataTypes") or ()), rr.get("min"), rr.get("max"))


def member_capability(spec: OperatorSpec, member: str, raw: Any, beyond: Sequence[str] = ()) -> MemberCapability:
    """A backend's MLTensorLimits for one member against the spec's required types and ranks."""
    lim = spec.operands[member]
    limit = _tensor_limit(raw)
    req_lo = lim.required_ranks.min
    req_hi = min(lim.required_ranks.max if lim.required_ranks.max is not None else MAX_PROBED_RANK, MAX_PROBED_RANK)
    rank_gap = ""
    if limit is None or not limit.data_types:
        missing = tuple(lim.required_data_types)
    else:
        missing = tuple(t for t in lim.required_data_types if t not in limit.data_types)
        lo, hi = limit.rank_min, limit.rank_max
        if lo is not None and hi is not None and (lo > req_lo or hi < req_hi):
            need = f"{req_lo}–{req_hi}" if req_hi != req_lo else f"{req_lo}"
            have = f"{lo}–{hi}" if lo != hi else f"{lo}"
            rank_gap = f"spec requires rank {need}, backend has {have}"
    return MemberCapability(member=member, limit=limit, missing_types=missing, missing_ranks=rank_gap,
                            beyond_spec=tuple(beyond))


def _short(v: Any) -> str:
    s = v if isinstance(v, str) else json.dumps(v, default=str)
    return s if len(s) <= 48 else s[:45] + "..."


def _desc_text(member: str, d: Any) -> str:
    if isinstance(d, list):
        return "; ".join(_desc_text(member, x) for x in d)
    if not isinstance(d, Mapping):
        return member
    shape = "[" + ", ".join(str(x) for x in d.get("shape", [])) + "]"
    return f"{member} {SHORT_TYPE.get(d.get('dataType', ''), d.get('dataType', ''))} {shape}"


def evidence_entry(e: Mapping[str, Any]) -> Evidence:
    axis, value, member = str(e.get("axis", "")), e.get("value", ""), e.get("member") or ""
    if axis == "baseline":
        varied = "baseline"
    elif axis == "option":
        varied = f"option {value}"
    else:
        varied = f"{member}.{axis}={value}" if member else f"{axis}={value}"
    ins = ", ".join(_desc_text(m, d) for m, d in (e.get("operands") or {}).items())
    outs = ", ".join(_desc_text(o.get("member", "output"), o) for o in (e.get("outputs") or []))
    message = str(e.get("message") or "")
    example = e.get("example")
    if e.get("outcome") == "wrong" and isinstance(example, Mapping):
        idx = example.get("index")
        where = "[" + ", ".join(str(i) for i in idx) + "]" if isinstance(idx, list) else ""
        message = (f"max error {format_error(e.get('maxError'))} (budget {format_error(e.get('budget'))} "
                   f"{e.get('metric') or ''}); at {where} expected {format_value(example.get('expected'))}, "
                   f"got {format_value(example.get('actual'))}" + (f"; {message}" if message else ""))
    attrs = e.get("attributes") or {}
    return Evidence(
        op=str(e.get("op", "")), member=str(member), axis=axis, value=str(value), varied=varied,
        operands=ins + (f" → {outs}" if outs else ""),
        attributes=", ".join(f"{k}={_short(v)}" for k, v in attrs.items()) if isinstance(attrs, Mapping) else "",
        in_spec=bool(e.get("inSpec", True)), outcome=str(e.get("outcome", "")), message=message,
    )


def _flatten(value: Any, prefix: str = "") -> list[tuple[str, str]]:
    """Nested evidence (layout timings, byte search) as (key path, text) rows."""
    if isinstance(value, Mapping):
        out = []
        for k, v in value.items():
            out += _flatten(v, f"{prefix}.{k}" if prefix else str(k))
        return out
    if isinstance(value, float):
        return [(prefix, f"{value:.6g}")]
    if isinstance(value, list) and value and all(isinstance(x, Mapping) for x in value):
        return [row for i, x in enumerate(value) for row in _flatten(x, f"{prefix}[{i}]")]
    return [(prefix, value if isinstance(value, str) else json.dumps(value, default=str))]


def format_seconds(t: Any) -> str:
    if not isinstance(t, (int, float)) or isinstance(t, bool):
        return "" if t is None else str(t)
    if t < 1e-3:
        return f"{t * 1e6:.1f} µs"
    if t < 1:
        return f"{t * 1e3:.3f} ms"
    return f"{t:.3f} s"


def format_bytes(n: Any) -> str:
    if not isinstance(n, int) or n <= 0:
        return str(n)
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n:,} bytes ({n / size:.4g} {unit})"
    return f"{n:,} bytes"


def _layout_rows(raw: Any) -> tuple[tuple[tuple[str, str, str, str], ...], tuple[tuple[str, str], ...]]:
    """The layout timing table (per graph: nchw, nhwc medians and their ratio) and the other facts."""
    if not isinstance(raw, Mapping):
        return (), ()
    rows = []
    timings = raw.get("timings") if isinstance(raw.get("timings"), Mapping) else {}
    for label, t in timings.items():
        if not isinstance(t, Mapping):
            continue

        def cell(layout: str) -> str:
            v = t.get(layout)
            if not isinstance(v, Mapping):
                return ""
            if v.get("error"):
                return f"failed: {v['error']}"
            runs = f" (median of {v['runs']})" if v.get("runs") else ""
            return format_seconds(v.get("medianSeconds")) + runs

        ratio = t.get("nhwcOverNchw")
        rows.append((str(label), cell("nchw"), cell("nhwc"), f"{ratio:.3f}" if isinstance(ratio, (int, float)) else ""))
    rest = [(k, v) for k, v in _flatten({k: v for k, v in raw.items() if k not in ("preferred", "basis", "timings")})]
    return tuple(rows), tuple(rest)


def _bytes_rows(raw: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(raw, Mapping):
        return ()
    rows = []
    if raw.get("op"):
        rows.append(("measured with", str(raw["op"])))
    if raw.get("kind"):
        kind = {"budget": "reached the search's memory budget (the real limit may be higher)",
                "limit": "found a size the backend refuses or computes wrongly",
                "unknown": "inconclusive"}.get(raw["kind"], str(raw["kind"]))
        rows.append(("result", kind))
    if raw.get("budget"):
        rows.append(("budget", format_bytes(raw["budget"])))
    first = raw.get("firstFailure")
    if isinstance(first, Mapping):
        rows.append(("first failure", f"{format_bytes(first.get('bytes'))}: {first.get('problem', '')}"))
    if isinstance(raw.get("attempts"), list):
        rows.append(("attempts", str(len(raw["attempts"]))))
    return tuple(rows)


def build_probe_backend(stem: str, limits_path: Path | None, header_path: Path | None, probe_path: Path | None,
                        ids: _Ids) -> tuple[ProbeBackend, Any]:
    """One probe's column; also returns the limits JSON as read (for the download link)."""
    limits = _read_json(limits_path) if limits_path else {}
    probe = _read_json(probe_path) if probe_path else {}
    header = _read_json(header_path) if header_path else {}
    for path, doc in ((limits_path, limits), (probe_path, probe), (header_path, header)):
        if not isinstance(doc, Mapping):
            raise ReportInputError(f"{path}: expected a JSON object")
    header = probe.get("header") if isinstance(probe.get("header"), Mapping) else header
    binfo = header.get("backend") if isinstance(header.get("backend"), Mapping) else {}
    name = str(binfo.get("name") or Path(stem).name)
    bid = ids.get(name, str(binfo.get("version", "")), str(binfo.get("device", "")),
                  json.dumps(binfo.get("settings", {}), sort_keys=True, default=str) + stem)
    combos = [c for c in probe.get("combinations", []) if isinstance(c, Mapping) and not c.get("role")]
    by_op: dict[str, list[Evidence]] = defaultdict(list)
    for c in combos:
        by_op[str(c.get("op"))].append(evidence_entry(c))
    emulations = probe.get("emulations") or header.get("emulations") or {}
    analysis = probe.get("analysis") if isinstance(probe.get("analysis"), Mapping) else None
    beyond = probe.get("beyondSpecDataTypes") or {}
    option_values = probe.get("optionValues") or {}
    ops: dict[str, OpCapability] = {}
    for op, spec in operators().items():
        raw_op = limits.get(op) if isinstance(limits.get(op), Mapping) else None
        probed = raw_op is not None or analysis is None or op in analysis
        members = tuple(member_capability(spec, m, (raw_op or {}).get(m), (beyond.get(op) or {}).get(m, ()))
                        for m in spec.operands)
        listed = raw_op is not None and any(m.limit and m.limit.data_types for m in members)
        ev = tuple(by_op.get(op, ()))
        outcome_counts = Counter(e.outcome for e in ev)
        how = ""
        if outcome_counts["emulated"] or (not ev and op in emulations):
            how = str(emulations.get(op, "composed from other operations"))
        ops[op] = OpCapability(
            op=op, backend=bid, probed=probed, listed=listed, members=members,
            wrong=tuple(e for e in ev if e.outcome == "wrong"), emulated=how, evidence=ev,
            options=tuple((str(k), str(v)) for k, v in (option_values.get(op) or {}).items()),
            outcomes=tuple(sorted(outcome_counts.items(), key=lambda kv: -kv[1])),
        )
    layout_raw = probe.get("preferredInputLayout")
    preferred = limits.get("preferredInputLayout") or (layout_raw.get("preferred") if isinstance(layout_raw, Mapping)
                                                        else layout_raw) or ""
    mtbl = limits.get("maxTensorByteLength")
    bytes_raw = probe.get("maxTensorByteLength")
    if not mtbl and isinstance(bytes_raw, Mapping):
        mtbl = bytes_raw.get("maxTensorByteLength")
    timings, rest = _layout_rows(layout_raw)
    pb = ProbeBackend(
        backend=bid, header=header, limits_file=str(limits_path or ""),
        limits_download=f"{bid.slug}-opSupportLimits.json" if limits else "",
        preferred_layout=str(preferred),
        layout_basis=str(layout_raw.get("basis", "")) if isinstance(layout_raw, Mapping) else "",
        layout_timings=timings, layout_evidence=rest,
        # 0 is what the probe writes when the byte search was not run: not a measurement.
        max_tensor_byte_length=int(mtbl) if isinstance(mtbl, (int, float)) and mtbl > 0 else None,
        bytes_evidence=_bytes_rows(bytes_raw),
        bytes_at_budget=isinstance(bytes_raw, Mapping) and bytes_raw.get("kind") == "budget",
        compare=probe.get("compare") if isinstance(probe.get("compare"), Mapping) else {},
        graph_limits=tuple((k, t) for k in ("input", "constant", "output")
                           if (t := _tensor_limit(limits.get(k))) is not None),
        ops=ops, summary=probe.get("summary") or {},
        not_tried=len(probe.get("notTried") or ()),
        harness_problems=tuple(f"{p.get('id', '')}: {p.get('error', '')}" if isinstance(p, Mapping) else str(p)
                               for p in probe.get("harnessProblems") or ()),
    )
    return pb, (limits or None)


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


def discover(inputs: Iterable[str | Path]) -> _Found:
    """Run directories and probe files under the given paths (searched recursively)."""
    found = _Found()

    def add_file(p: Path) -> bool:
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
                raise ReportInputError(f"{p}: not a results.jsonl, summary.json, "
                                       f"*{LIMITS_SUFFIX} or *{PROBE_SUFFIX} file")
            continue
        before = (len(found.runs), len(found.limits), len(found.probes))
        for child in sorted(p.rglob("*")):
            if child.is_file():
                add_file(child)
        if (len(found.runs), len(found.limits), len(found.probes)) == before:
            raise ReportInputError(f"{p}: no run results (results.jsonl) or probe outputs "
                                   f"(*{LIMITS_SUFFIX}, *{PROBE_SUFFIX}) in this folder")
    return found


def build_model(inputs: Sequence[str | Path]) -> SiteModel:
    from webnn_harness import __version__

    found = discover(inputs)
    groups = [g for run_dir in found.runs for g in read_run(run_dir)]
    conformance = build_conformance(groups, _Ids())
    probes = []
    payloads: dict[str, Any] = {}
    probe_ids = _Ids()  # probe pages and run anchors are separate name spaces
    for stem in sorted(set(found.limits) | set(found.probes)):
        pb, limits = build_probe_backend(stem, found.limits.get(stem), found.headers.get(stem),
                                         found.probes.get(stem), probe_ids)
        probes.append(pb)
        if pb.limits_download:
            payloads[pb.limits_download] = limits
    # Several versions of one backend side by side: group columns by name, versions in order.
    probes.sort(key=lambda p: (p.backend.name, _version_key(p.backend.version), p.backend.slug))
    return SiteModel(
        conformance=conformance, probes=tuple(probes), limits_payloads=payloads, ops=tuple(operators()),
        harness_version=__version__, inputs=tuple(str(i) for i in inputs), changed=version_changes(probes),
    )


def _capability_signature(c: OpCapability) -> tuple:
    return (c.listed, tuple((m.member, m.limit) for m in c.members), len(c.wrong), bool(c.emulated))


def version_changes(probes: Sequence[ProbeBackend]) -> frozenset[tuple[str, str]]:
    """Cells that differ from the same backend's previous column (probes sorted by name, version)."""
    out = set()
    for prev, cur in zip(probes, probes[1:]):
        if prev.backend.name != cur.backend.name:
            continue
        for op, cap in cur.ops.items():
            if _capability_signature(cap) != _capability_signature(prev.ops[op]):
                out.add((cur.backend.slug, op))
    return frozenset(out)


def _version_key(version: str) -> tuple:
    # Numeric parts compare as numbers ("1.9" < "1.10"); tagged so ints and words never meet.
    return tuple((0, int(x), "") if x.isdigit() else (1, 0, x) for x in re.split(r"[.\-+]", version))
