"""Probe outputs -> the capability model: measured opSupportLimits, evidence, layout and byte-length findings."""
from __future__ import annotations

import functools
import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from webnn_harness.cpu import machine_class
from webnn_harness.spec.catalog import OperatorSpec, operators
from webnn_harness.outputs.kinds import ProbeFiles
from webnn_harness.probe.limits import member_gaps, operator_status, wrong_data_types
from webnn_harness.reports.common import (
    SHORT_TYPE,
    BackendId,
    BackendIds,
    format_bytes,
    format_error,
    format_seconds,
    format_value,
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
    wrong_types: tuple[str, ...] = ()  # required types accepted but computed wrong (limits.data_type_status)


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
    spec_status: str = "absent"  # limits.operator_status: the probe's terminal summary uses the same

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
        return self.status == "gaps"

    @property
    def status(self) -> str:
        """The cell's colour, one per operator: ``limits.operator_status`` (wrong results
        inside the spec first, then gaps), complete split by how it is done. Wrong results
        only for data types beyond the spec do not colour the cell (a WebNN implementation
        rejects those before they reach the backend); they are still listed."""
        if not self.probed:
            return "unprobed"
        if self.spec_status == "complete" and self.emulated:
            return "emulated"
        return self.spec_status


CAPABILITY_TEXT = {
    "complete": "every required data type and rank",
    "emulated": "complete, composed from other operations",
    "gaps": "misses a spec-required data type or rank",
    "wrong": "accepted but computes wrong values",
    "absent": "not supported",
    "unprobed": "not probed",
}


@dataclass(frozen=True)
class DeclaredDiffRow:
    """One finding of the probe's diff against a declared opSupportLimits file (``probe --compare``)."""

    op: str
    member: str
    what: str  # "f32, i64" or "ranks 2–8"
    outcome: str
    cause: str
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class DeclaredDiffSection:
    """The findings of one kind of that diff (declared but broken, working but undeclared, ...)."""

    key: str
    title: str
    explanation: str
    count: int  # data types and ranks covered
    rows: tuple[DeclaredDiffRow, ...]


# The byte search's endings (harness/probe/bytes.py "kind") after which the number found is
# a lower bound, not the limit: the badge's text.
_BYTES_LOWER_BOUND = {
    "budget": "no limit found below the search's memory budget",
    "time": "the search's time budget ran out before a limit was found",
}

DECLARED_DIFF_TEXT = {
    "declaredButBroken": ("Declared but broken", "declared data types or ranks whose every combination was refused, crashed or computed wrong values"),
    "declaredUnverified": ("Declared, accepted, unverified", "the backend accepts these but the reference cannot compute them: not counted as broken"),
    "declaredNotTried": ("Declared, never tried", "data types the probe does not sweep here (int4/uint4 outside quantization) or does not know"),
    "workingButUndeclared": ("Working but undeclared", "inside the spec's allowed set, measured working, left out of the declaration"),
    "declaredNotMeasured": ("Declared, not measured", "operators or members the probe did not measure"),
    "workingNotDeclared": ("Working, operator not declared", "operators that work but the declaration does not list"),
}


def rank_text(ranks: Sequence[int]) -> str:
    """[2, 3, 4, 7] -> "ranks 2–4, 7"."""
    runs: list[list[int]] = []
    for r in sorted(ranks):
        if runs and r == runs[-1][-1] + 1:
            runs[-1].append(r)
        else:
            runs.append([r])
    parts = [f"{x[0]}–{x[-1]}" if len(x) > 1 else str(x[0]) for x in runs]
    return ("ranks " if len(ranks) > 1 else "rank ") + ", ".join(parts) if parts else ""


def _what(m: Mapping[str, Any]) -> str:
    types = ", ".join(SHORT_TYPE.get(t, str(t)) for t in m.get("dataTypes") or [])
    return "; ".join(x for x in (types, rank_text(m.get("ranks") or [])) if x)


def _members_text(members: Mapping[str, Any]) -> str:
    """{"a": {i64}, "b": {i64}} -> "i64"; differing members -> "input: i8, u8; scale: f16"."""
    texts = {name: _what(m) for name, m in members.items() if isinstance(m, Mapping)}
    if len(set(texts.values())) <= 1:
        return next(iter(texts.values()), "")
    return "; ".join(f"{name}: {t}" for name, t in texts.items())


def declared_diff_sections(diff: Mapping[str, Any]) -> tuple[DeclaredDiffSection, ...]:
    out = []
    for key, (title, explanation) in DECLARED_DIFF_TEXT.items():
        groups = diff.get(key) or []
        if not groups:
            continue
        rows = []
        for g in groups:
            if not isinstance(g, Mapping):
                continue
            rows.append(DeclaredDiffRow(op=str(g.get("op", "")), member=", ".join(map(str, g.get("members") or ())),
                                   what=_members_text(g.get("members") or {}),
                                   outcome=str(g.get("outcome", "")), cause=str(g.get("cause") or g.get("reason") or ""),
                                   evidence=tuple(str(x) for x in g.get("evidence") or ())))
        out.append(DeclaredDiffSection(key, title, explanation, int((diff.get("counts") or {}).get(key, len(rows))), tuple(rows)))
    return tuple(out)


def graph_derivation(analysis: Mapping[str, Any] | None) -> dict[str, str]:
    """member -> "graph-level sweeps on identity; data types also proven by relu, add" from the evidence."""
    out = {}
    for member, a in ((analysis or {}).get("graph") or {}).items():
        if not isinstance(a, Mapping):
            continue
        sweep = a.get("graphSweepOp")
        proven = a.get("dataTypesProvenBy") or {}
        text = f"graph-level sweeps on {sweep}" if sweep else "no graph-level sweep op worked"
        others: dict[str, list[str]] = {}
        for t, op in proven.items():
            if op != sweep:
                others.setdefault(op, []).append(SHORT_TYPE.get(t, t))
        if others:
            text += "; also " + ", ".join(f"{'/'.join(ts)} by {op}" for op, ts in sorted(others.items())[:6])
        if a.get("beyondSpecDataTypes"):
            text += f" ({', '.join(a['beyondSpecDataTypes'])} beyond the spec's types)"
        out[str(member)] = text
    return out


@dataclass(frozen=True)
class WrongFinding:
    op: str
    cause: str  # "special values" | "ordinary values"
    values: tuple[str, ...]
    data_types: tuple[str, ...]
    in_spec: bool
    combinations: int
    example: str


def wrong_findings(raw: Any) -> tuple[WrongFinding, ...]:
    out = []
    for f in raw or ():
        if not isinstance(f, Mapping):
            continue
        ex = f.get("example") if isinstance(f.get("example"), Mapping) else {}
        example = (f"expected {format_value(ex.get('expected'))}, got {format_value(ex.get('actual'))}"
                   if ex else str(f.get("message") or ""))
        out.append(WrongFinding(op=str(f.get("op", "")), cause=str(f.get("cause", "")), values=tuple(f.get("values") or ()),
                                data_types=tuple(f.get("dataTypes") or ()), in_spec=bool(f.get("inSpec")),
                                combinations=len(f.get("combinations") or ()), example=example))
    return tuple(out)


@dataclass(frozen=True)
class Certificate:
    """The spec's required set as a certificate (since spec PR #910 a context
    MUST support at least each operand's required data types and ranks): the
    operands short of it, as measured (the probe's limits, and required types
    accepted but computed wrong) and as declared (the probe's
    ``declaredConformanceGaps``: the backend's own opSupportLimits, or the
    table it was compared with). Each entry: "conv2d.input: float16; rank 0"."""

    measured: tuple[str, ...]
    declared: tuple[str, ...] | None  # None: no declaration was read
    declared_source: str = ""

    @property
    def measured_met(self) -> bool:
        return not self.measured

    @property
    def declared_met(self) -> bool | None:
        return None if self.declared is None else not self.declared


def _short_of(op: str, m: MemberCapability) -> str | None:
    """What one measured operand lacks of the required set, or None."""
    parts = ([", ".join(m.missing_types)] if m.missing_types else []) + ([m.missing_ranks] if m.missing_ranks else [])
    parts += [f"computes {', '.join(m.wrong_types)} wrong"] if m.wrong_types else []
    return f"{op}.{m.member}: {'; '.join(parts)}" if parts else None


def _declared_short_of(gap: Any) -> str | None:
    """One ``declaredConformanceGaps`` entry as text (a malformed one: None, it counts for nothing)."""
    if not isinstance(gap, Mapping) or not isinstance(gap.get("op"), str) or not isinstance(gap.get("member"), str):
        return None
    types = [str(t) for t in gap.get("dataTypes") or () if isinstance(t, str)]
    ranks = [r for r in gap.get("ranks") or () if isinstance(r, int) and not isinstance(r, bool)]
    parts = ([", ".join(types)] if types else []) + ([rank_text(ranks)] if ranks else [])
    return f"{gap['op']}.{gap['member']}: {'; '.join(parts)}" if parts else None


def certificate(ops: Mapping[str, "OpCapability"], probe: Mapping[str, Any]) -> Certificate:
    """The backend's certificate: measured over the operators it was probed on."""
    measured = []
    for op, c in ops.items():
        if c.status == "unprobed":
            continue
        measured += [text for m in c.members if (text := _short_of(op, m)) is not None]
        wrong = sorted({e.varied for e in c.wrong_in_spec})
        measured += [f"{op}: computes wrong values ({', '.join(wrong)})"] if wrong else []
    raw = probe.get("declaredConformanceGaps")
    declared = (tuple(t for g in raw if (t := _declared_short_of(g)) is not None) if isinstance(raw, list) else None)
    return Certificate(tuple(measured), declared, str(probe.get("declaredConformanceGapsSource") or ""))


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
    bytes_lower_bound: str  # why the number is only a lower bound ("" when it is the limit found)
    declared_diff: Mapping[str, Any]  # the probe's diff against a declared opSupportLimits file, if any
    declared_diff_sections: tuple["DeclaredDiffSection", ...]  # the same, grouped for reading
    wrong_findings: tuple["WrongFinding", ...]  # wrong results grouped by operator and root cause
    bytes_summary: str  # "at least N bytes (search budget reached)" or the limit found
    graph_limits: tuple[tuple[str, TensorLimit], ...]  # input / constant / output
    graph_derivation: Mapping[str, str]  # member -> which operators proved those limits
    ops: Mapping[str, OpCapability]
    summary: Mapping[str, Any]
    not_tried: int
    harness_problems: tuple[str, ...]
    certificate: Certificate = Certificate((), None)

    @property
    def gap_ops(self) -> tuple[OpCapability, ...]:
        """Operators short of the spec: with gaps, wrong or not supported (``counts`` says how many of each)."""
        return tuple(o for o in self.ops.values() if o.status in ("gaps", "wrong", "absent"))

    @property
    def machine_class(self) -> str:
        """The probe's machine class (ISA class and any ISA cap in force, issue #47); "unknown" for a probe
        written before features were recorded."""
        return machine_class(self.header.get("machine") or {})

    @functools.cached_property  # the matrix page asks each column for it once per column (report --archive: 60)
    def counts(self) -> Mapping[str, int]:
        """Operators per cell colour: one status each, so they add up to the operators listed."""
        c = Counter(o.status for o in self.ops.values())
        return {s: c[s] for s in CAPABILITY_TEXT}


def _tensor_limit(raw: Any) -> TensorLimit | None:
    if not isinstance(raw, Mapping):
        return None
    rr = raw.get("rankRange") or {}
    return TensorLimit(tuple(raw.get("dataTypes") or ()), rr.get("min"), rr.get("max"))


def member_capability(spec: OperatorSpec, member: str, raw: Any, beyond: Sequence[str] = (),
                      wrong: Sequence[str] = ()) -> MemberCapability:
    """A backend's MLTensorLimits for one member against the spec's required
    types and ranks (the probe's own gap definition, ``limits.member_gaps``);
    ``wrong``: data types accepted but computed wrong (not missing)."""
    lim = spec.operands[member]
    limit = _tensor_limit(raw)
    gaps = member_gaps(lim, raw if isinstance(raw, Mapping) else None, wrong)
    rank_gap = ""
    if gaps["ranks"] and limit is not None:
        req_lo = lim.required_ranks.min
        req_hi = min(lim.required_ranks.max if lim.required_ranks.max is not None else MAX_PROBED_RANK, MAX_PROBED_RANK)
        need = f"{req_lo}–{req_hi}" if req_hi != req_lo else f"{req_lo}"
        lo, hi = limit.rank_min, limit.rank_max
        have = f"{lo}–{hi}" if lo != hi else f"{lo}"
        rank_gap = f"spec requires rank {need}, backend has {have}"
    return MemberCapability(member=member, limit=limit, missing_types=tuple(gaps["dataTypes"]), missing_ranks=rank_gap,
                            beyond_spec=tuple(beyond), wrong_types=tuple(gaps["wrongDataTypes"]))


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
        dev = e.get("deviation")
        if isinstance(dev, Mapping) and dev.get("cause") == "special values":
            message = f"wrong only for {', '.join(map(str, dev.get('values') or []))} (right on ordinary values); " + message
        elif isinstance(dev, Mapping):
            message = "wrong on ordinary values; " + message
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
        text = f"{ratio:.3f}" if isinstance(ratio, (int, float)) else ""
        ci = t.get("ci95")
        if text and isinstance(ci, list) and len(ci) == 2 and all(isinstance(x, (int, float)) for x in ci):
            text += f" (95% {ci[0]:.3f}–{ci[1]:.3f}: {t.get('verdict', '')})"
        rows.append((str(label), cell("nchw"), cell("nhwc"), text))
    return tuple(rows), _layout_facts(raw)


# Layout evidence the page words itself; other keys are shown flattened, so nothing is lost.
LAYOUT_WORDED = ("preferred", "basis", "timings", "verdict", "significant", "ratio", "method", "shapes", "ended")


def _layout_facts(raw: Mapping) -> tuple[tuple[str, str], ...]:
    """The layout evidence beside the timing table, as labelled sentences (the
    page showed it as a raw key/value dump: issue 28)."""
    facts = []
    ratio = raw.get("ratio") if isinstance(raw.get("ratio"), Mapping) else {}
    ci = ratio.get("ci95")
    if isinstance(ratio.get("median"), (int, float)):
        text = f"nhwc / nchw {ratio['median']:.3f} (geometric mean of the graphs' ratios)"
        if isinstance(ci, list) and len(ci) == 2 and all(isinstance(x, (int, float)) for x in ci):
            text += f", 95% interval {ci[0]:.3f}–{ci[1]:.3f}"
        facts.append(("All graphs", text + (f": {raw['verdict']}" if raw.get("verdict") else "")))
    method = raw.get("method") if isinstance(raw.get("method"), Mapping) else {}
    rounds = method.get("rounds") if isinstance(method.get("rounds"), Mapping) else {}
    if rounds:
        text = f"{rounds.get('min', '?')}–{rounds.get('max', '?')} rounds"
        if method.get("interleaved"):
            text += ", nchw and nhwc interleaved"
        if isinstance(rounds.get("budgetSeconds"), (int, float)):
            text += f", within {rounds['budgetSeconds']:g} s a graph"
        facts.append(("Method", text + (f"; {method['interval']}" if method.get("interval") else "")))
    shapes = raw.get("shapes") if isinstance(raw.get("shapes"), Mapping) else {}
    if shapes and all(isinstance(v, Mapping) for v in shapes.values()):
        kinds = sorted({f"batch {v.get('batch', '?')}, {v.get('dataType', '?')}" for v in shapes.values()})
        facts.append(("Inputs", "; ".join(kinds)))
    elif shapes:
        facts += _flatten(shapes, "shapes")
    facts += _flatten({k: v for k, v in raw.items() if k not in LAYOUT_WORDED})
    return tuple(facts)


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


def build_probe_backend(files: ProbeFiles, limits_file: str, ids: BackendIds) -> tuple[ProbeBackend, Any]:
    """One probe's column (``limits_file``: the name of its limits file, "" without one); also returns the
    limits JSON as read (for the download link)."""
    limits, probe, header, binfo, name = files.limits, files.evidence, files.header, files.backend, files.backend_name
    bid = ids.get(name, str(binfo.get("version", "")), str(binfo.get("device", "")),
                  json.dumps(binfo.get("settings", {}), sort_keys=True, default=str) + files.stem)
    combos = [c for c in probe.get("combinations", []) if isinstance(c, Mapping) and not c.get("role")]
    by_op: dict[str, list[Evidence]] = defaultdict(list)
    for c in combos:
        by_op[str(c.get("op"))].append(evidence_entry(c))
    emulations = probe.get("emulations") or header.get("emulations") or {}
    analysis = probe.get("analysis") if isinstance(probe.get("analysis"), Mapping) else None
    beyond = probe.get("beyondSpecDataTypes") or {}
    option_values = probe.get("optionValues") or {}
    wrong_types = wrong_data_types(combos)
    ops: dict[str, OpCapability] = {}
    for op, spec in operators().items():
        raw_op = limits.get(op) if isinstance(limits.get(op), Mapping) else None
        probed = raw_op is not None or analysis is None or op in analysis
        wrong_here = wrong_types.get(op, {})
        members = tuple(member_capability(spec, m, (raw_op or {}).get(m), (beyond.get(op) or {}).get(m, ()),
                                          wrong_here.get(m, ()))
                        for m in spec.operands)
        listed = (raw_op is not None and any(m.limit and m.limit.data_types for m in members)) or bool(wrong_here)
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
            spec_status=operator_status(op, raw_op, any(e.in_spec for e in ev if e.outcome == "wrong"), wrong_here),
        )
    layout_raw = probe.get("preferredInputLayout")
    preferred = limits.get("preferredInputLayout") or (layout_raw.get("preferred") if isinstance(layout_raw, Mapping)
                                                        else layout_raw) or ""
    if preferred and isinstance(layout_raw, Mapping) and "preferred" in layout_raw and not layout_raw["preferred"]:
        preferred = f"{preferred} (not measured)"  # the spec's default written to the limits, not a finding
    mtbl = limits.get("maxTensorByteLength")
    bytes_raw = probe.get("maxTensorByteLength")
    if not mtbl and isinstance(bytes_raw, Mapping):
        mtbl = bytes_raw.get("maxTensorByteLength")
    timings, rest = _layout_rows(layout_raw)
    pb = ProbeBackend(
        backend=bid, header=header, limits_file=limits_file,
        limits_download=f"{bid.slug}-opSupportLimits.json" if limits else "",
        preferred_layout=str(preferred),
        layout_basis=str(layout_raw.get("basis", "")) if isinstance(layout_raw, Mapping) else "",
        layout_timings=timings, layout_evidence=rest,
        # 0 is what the probe writes when the byte search was not run: not a measurement.
        max_tensor_byte_length=int(mtbl) if isinstance(mtbl, (int, float)) and mtbl > 0 else None,
        bytes_evidence=_bytes_rows(bytes_raw),
        bytes_lower_bound=_BYTES_LOWER_BOUND.get(bytes_raw.get("kind"), "") if isinstance(bytes_raw, Mapping) else "",
        declared_diff=probe.get("compare") if isinstance(probe.get("compare"), Mapping) else {},
        declared_diff_sections=(declared_diff_sections(probe.get("compare")) if isinstance(probe.get("compare"), Mapping)
                                else ()),
        wrong_findings=wrong_findings(probe.get("wrongFindings")),
        bytes_summary=str(bytes_raw.get("summary", "")) if isinstance(bytes_raw, Mapping) else "",
        graph_limits=tuple((k, t) for k in ("input", "constant", "output")
                           if (t := _tensor_limit(limits.get(k))) is not None),
        graph_derivation=graph_derivation(analysis),
        ops=ops, summary=probe.get("summary") or {},
        not_tried=len(probe.get("notTried") or ()),
        harness_problems=tuple(f"{p.get('id', '')}: {p.get('error', '')}" if isinstance(p, Mapping) else str(p)
                               for p in probe.get("harnessProblems") or ()),
        certificate=certificate(ops, probe),
    )
    return pb, (limits or None)



def _capability_signature(c: OpCapability) -> tuple:
    return (c.listed, tuple((m.member, m.limit) for m in c.members), len(c.wrong), bool(c.emulated))


def version_changes(probes: Sequence[ProbeBackend]) -> frozenset[tuple[str, str]]:
    """Cells that differ from the same backend's previous column (probes sorted by name, version); one
    version on two machine classes is a disagreement of machines (``machine_disagreements``), not a change."""
    out = set()
    for prev, cur in zip(probes, probes[1:]):
        if prev.backend.name != cur.backend.name:
            continue
        if prev.backend.version == cur.backend.version and prev.machine_class != cur.machine_class:
            continue
        for op, cap in cur.ops.items():
            if _capability_signature(cap) != _capability_signature(prev.ops[op]):
                out.add((cur.backend.slug, op))
    return frozenset(out)


def machine_disagreements(probes: Sequence[ProbeBackend]) -> dict[tuple[str, str], str]:
    """Cells where one backend version's probes on two machine classes disagree (as wpt.fyi keeps
    browsers apart, the matrix keeps machines apart): (probe slug, op) -> the other classes, for
    each column of the pair. Probes of unknown class are not compared."""
    out: dict[tuple[str, str], set[str]] = defaultdict(set)
    groups: dict[tuple[str, str], list[ProbeBackend]] = defaultdict(list)
    for p in probes:
        if p.machine_class != "unknown":
            groups[(p.backend.name, p.backend.version)].append(p)
    for group in groups.values():
        for a in group:
            for b in group:
                if a.machine_class == b.machine_class:
                    continue
                for op, cap in a.ops.items():
                    if op in b.ops and _capability_signature(cap) != _capability_signature(b.ops[op]):
                        out[(a.backend.slug, op)].add(b.machine_class)
    return {k: "; ".join(sorted(v)) for k, v in out.items()}


def _version_key(version: str) -> tuple:
    # Numeric parts compare as numbers ("1.9" < "1.10") by their length, then their digits: int() would
    # refuse 5,000 digits and read "²" (isdigit, not ASCII). Tagged so numbers and words never meet.
    def part(x: str) -> tuple:
        if x.isascii() and x.isdigit():
            digits = x.lstrip("0")
            return (0, len(digits), digits)
        return (1, 0, x)
    return tuple(part(x) for x in re.split(r"[.\-+]", version))
