"""From evidence to the spec's MLOpSupportLimits shape.

A data type or rank counts for an operand member when some combination in
which that member had it ended ``supported`` or ``emulated`` (built, ran, and
matched the reference on discriminating inputs). Accepted-but-wrong never
counts. The spec-shaped result is the intersection of what works with what
the spec allows (ranks also capped at 8); rankRange is the longest
contiguous run of working ranks, the rest of the picture (gaps, data types
beyond the spec, conformance gaps against the required sets) goes in the
analysis that the evidence file carries.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable, Mapping

from webnn_harness.spec.catalog import OperandLimits, operators
from webnn_harness.spec.dtypes import DATA_TYPES, in_spec_order
from webnn_harness.probe.plan import MAX_RANK

WORKING = frozenset({"supported", "emulated"})
GRAPH_MEMBERS = ("input", "constant", "output")


def _observations(entries: Iterable[Mapping[str, Any]]):
    """(op, member) -> {"types": set, "ranks": set} seen in working combos,
    the same for every combo tried (to tell 'not tried'), and for the
    graph-level members the operator that first proved each data type.

    Graph-level input and output limits come from every working combination
    (its operands are graph inputs, its results graph outputs), not only from
    the dedicated graph-level sweeps: a backend without identity still
    accepts inputs. Constants come from the graph-level sweeps alone."""
    works: dict = defaultdict(lambda: {"types": set(), "ranks": set()})
    tried: dict = defaultdict(lambda: {"types": set(), "ranks": set()})
    proven_by: dict = defaultdict(dict)  # graph member -> data type -> op
    for e in entries:
        role = e.get("role")
        op = "graph" if role else e["op"]
        descs: list[tuple[str, str, Mapping]] = []  # (op or "graph", member, desc)
        for m, d in e["operands"].items():
            for x in d if isinstance(d, list) else [d]:
                descs.append((op, role or m, x))
                if not role:
                    descs.append(("graph", "input", x))
        for o in e.get("outputs") or []:
            descs.append((op, "output" if role else o["member"], o))
            if not role:
                descs.append(("graph", "output", o))
        spec = None if op == "graph" else operators()[op]
        working = e["outcome"] in WORKING
        for where, member, d in descs:
            fixed_rank = (where != "graph" and spec is not None
                          and spec.operands[member].allowed_ranks.min == spec.operands[member].allowed_ranks.max)
            for table in (tried, works) if working else (tried,):
                # A data type is judged by its own sweep (at the baseline rank, on the
                # full discriminating values), a rank by the rank sweep: a small-rank
                # tensor that happens to miss the discriminating values proves nothing
                # about the data type. Option variants judge neither.
                if e["axis"] in ("dataType", "baseline"):
                    table[(where, member)]["types"].add(d["dataType"])
                    if working and where == "graph" and table is works and (role or d["dataType"] not in proven_by[member]):
                        proven_by[member][d["dataType"]] = e["op"]  # the graph-level sweep's op wins
                if e["axis"] in ("rank", "baseline") or (fixed_rank and e["axis"] != "option"):
                    table[(where, member)]["ranks"].add(len(d["shape"]))
    return works, tried, proven_by


def longest_run(ranks: Iterable[int]) -> tuple[int, int] | None:
    best: tuple[int, int] | None = None
    for r in sorted(set(ranks)):
        if r - 1 in ranks:
            continue
        end = r
        while end + 1 in ranks:
            end += 1
        if best is None or end - r > best[1] - best[0]:
            best = (r, end)
    return best


def tensor_limits(types: Iterable[str], ranks: Iterable[int], allowed: OperandLimits | None) -> dict:
    """MLTensorLimits within the spec's allowed set (graph-level members have none)."""
    ranks = {r for r in ranks if r <= MAX_RANK}
    types = set(types) & set(DATA_TYPES)  # int4/uint4 are shown beyond the spec's table, never in it
    if allowed is not None:
        types &= set(allowed.allowed_data_types)
        ranks = {r for r in ranks if allowed.allowed_ranks.contains(r)}
    # No data type works, so no rank does: one placeholder range, whatever ranks the sweeps of
    # other (beyond-spec) types got through, so two probes of an unsupported op agree.
    run = longest_run(ranks) if types else None
    return {
        "dataTypes": in_spec_order(types),
        "rankRange": {"min": run[0], "max": run[1]} if run else {"min": 0, "max": 0},
    }


def member_analysis(op: str, member: str, lim: OperandLimits | None, works, tried) -> dict:
    seen = works.get((op, member), {"types": set(), "ranks": set()})
    all_tried = tried.get((op, member), {"types": set(), "ranks": set()})
    ranks = {r for r in seen["ranks"] if r <= MAX_RANK}
    out: dict[str, Any] = {
        "workingDataTypes": in_spec_order(seen["types"]),
        "workingRanks": sorted(ranks),
        "triedDataTypes": in_spec_order(all_tried["types"]),
        "triedRanks": sorted(all_tried["ranks"]),
    }
    if lim is None:
        out["beyondSpecDataTypes"] = in_spec_order(seen["types"] - set(DATA_TYPES))
        return out
    allowed_ranks = [r for r in range(MAX_RANK + 1) if lim.allowed_ranks.contains(r)]
    in_spec_ranks = sorted(r for r in ranks if lim.allowed_ranks.contains(r))
    run = longest_run(in_spec_ranks)
    out["beyondSpecDataTypes"] = in_spec_order(seen["types"] - set(lim.allowed_data_types))
    out["rankGaps"] = [r for r in in_spec_ranks if run and not run[0] <= r <= run[1]]
    required_ranks = [r for r in allowed_ranks if lim.required_ranks.contains(r)]
    out["missingAllowedDataTypes"] = [t for t in lim.allowed_data_types if t not in seen["types"]]
    out["missingAllowedRanks"] = [r for r in allowed_ranks if r not in ranks]
    out["conformanceGaps"] = (
        [{"dataType": t} for t in lim.required_data_types if t not in seen["types"]]
        + [{"rank": r} for r in required_ranks if r not in ranks]
    )
    return out


def derive(entries: list[Mapping[str, Any]], graph_sweep_op: str | None = "identity") -> tuple[dict, dict]:
    """(per-op MLOpSupportLimits members incl. graph-level input/constant/output,
    analysis per op and member). ``graph_sweep_op``: the operator the
    graph-level sweeps ran on (None: none worked)."""
    works, tried, proven_by = _observations(entries)
    limits: dict[str, Any] = {}
    analysis: dict[str, Any] = {}
    for member in GRAPH_MEMBERS:
        seen = works.get(("graph", member), {"types": set(), "ranks": set()})
        limits[member] = tensor_limits(seen["types"], seen["ranks"], None)
        a = member_analysis("graph", member, None, works, tried)
        a["graphSweepOp"] = graph_sweep_op
        a["dataTypesProvenBy"] = {t: proven_by[member][t] for t in in_spec_order(proven_by[member])}
        analysis.setdefault("graph", {})[member] = a
    probed_ops = {e["op"] for e in entries if not e.get("role")}
    for op, spec in operators().items():
        if op not in probed_ops:
            continue
        limits[op] = {}
        analysis[op] = {}
        for member, lim in spec.operands.items():
            seen = works.get((op, member), {"types": set(), "ranks": set()})
            limits[op][member] = tensor_limits(seen["types"], seen["ranks"], lim)
            analysis[op][member] = member_analysis(op, member, lim, works, tried)
    return limits, analysis


# --------------------------------------------------------------------------
# Gaps against the spec: one set of definitions for the probe's summary, the
# terminal and the site. They read spec-shaped limits (a probe's or a
# browser's), so every consumer counts the same thing.


def data_type_status(lim: OperandLimits, declared: Mapping[str, Any] | None, wrong: Iterable[str],
                     data_type: str) -> str:
    """One member's one data type, the one classification the terminal and
    every page use: ``supported`` (listed: it works), ``wrong`` (accepted,
    but an in-spec combination computed wrong values: not listed, yet not
    refused either), ``missing`` (required by the spec, refused), ``beyond``
    (works, beyond the spec's allowed types), ``optional`` (allowed, not
    required, not listed)."""
    listed = data_type in ((declared or {}).get("dataTypes") or ())
    if data_type in set(wrong) and not listed:
        return "wrong"
    if listed:
        return "supported" if data_type in lim.allowed_data_types else "beyond"
    return "missing" if data_type in lim.required_data_types else "optional"


def member_gaps(lim: OperandLimits, declared: Mapping[str, Any] | None, computed_wrong: Iterable[str] = ()) -> dict:
    """The spec's required data types and ranks that a member's MLTensorLimits
    lacks (ranks checked up to MAX_RANK), apart from the data types it
    accepted but computed wrong (``computed_wrong``: ``wrongDataTypes``, not
    gaps). A member that lists no data type and computed none wrong lacks all."""
    computed_wrong = set(computed_wrong)
    wrong = [t for t in lim.required_data_types if data_type_status(lim, declared, computed_wrong, t) == "wrong"]
    types = list((declared or {}).get("dataTypes") or [])
    hi_req = lim.required_ranks.max if lim.required_ranks.max is not None else MAX_RANK
    required_ranks = [r for r in range(lim.required_ranks.min, min(hi_req, MAX_RANK) + 1)]
    missing = [t for t in lim.required_data_types if data_type_status(lim, declared, computed_wrong, t) == "missing"]
    if not types:
        return {"dataTypes": missing, "ranks": [], "listed": bool(wrong), "wrongDataTypes": wrong}
    rr = (declared or {}).get("rankRange") or {}
    lo, hi = rr.get("min", 0), rr.get("max", MAX_RANK)
    return {"dataTypes": missing, "ranks": [r for r in required_ranks if not lo <= r <= hi], "listed": True,
            "wrongDataTypes": wrong}


def operator_status(op: str, op_limits: Mapping[str, Any] | None, wrong_in_spec: bool,
                    wrong_types: Mapping[str, Iterable[str]] | None = None) -> str:
    """The operator's one status (a partition: every probed operator has
    exactly one): absent (no member lists a data type or computed one wrong),
    wrong (accepted in-spec combinations computed wrong values), gaps (misses
    a required data type or rank), complete. ``wrong_types``: member -> data
    types accepted but computed wrong (``wrong_data_types``)."""
    spec = operators()[op]
    gaps = [member_gaps(lim, (op_limits or {}).get(m), (wrong_types or {}).get(m, ())) for m, lim in spec.operands.items()]
    if not any(g["listed"] for g in gaps):
        return "absent"
    if wrong_in_spec:
        return "wrong"
    if any(g["dataTypes"] or g["ranks"] for g in gaps):
        return "gaps"
    return "complete"


def operator_counts(limits_doc: Mapping[str, Any], wrong_in_spec_ops: Iterable[str],
                    wrong_types: Mapping[str, Mapping[str, Iterable[str]]] | None = None) -> dict:
    """Operators per status (``operator_status``: they add up to the number
    probed); the site's matrix and the terminal summary print these."""
    wrong = set(wrong_in_spec_ops)
    counts = {"complete": 0, "gaps": 0, "wrong": 0, "absent": 0}
    for op in operators():
        if op not in limits_doc:
            continue
        counts[operator_status(op, limits_doc[op], op in wrong, (wrong_types or {}).get(op))] += 1
    return counts


def wrong_data_types(entries: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, list[str]]]:
    """op -> member -> data types an in-spec combination of its data-type or
    baseline sweep was accepted with and computed wrong."""
    out: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for e in entries:  # also read back from an evidence file: a malformed entry counts for nothing
        operands = e.get("operands")
        if (e.get("outcome") != "wrong" or not e.get("inSpec") or e.get("role") or e.get("axis") not in ("dataType", "baseline")
                or not isinstance(operands, Mapping)):
            continue
        for member, d in operands.items():
            for x in d if isinstance(d, list) else [d]:
                if isinstance(x, Mapping) and isinstance(x.get("dataType"), str):
                    out[str(e.get("op"))][member].add(x["dataType"])
    return {op: {m: in_spec_order(t) for m, t in members.items()} for op, members in out.items()}


def conformance_gaps(limits_doc: Mapping[str, Any],
                     wrong_types: Mapping[str, Mapping[str, Iterable[str]]] | None = None,
                     absent_ops: bool = False) -> list[dict]:
    """One entry per operator member that lacks a required data type or rank.
    An operator ``limits_doc`` leaves out is skipped (a probe of some operators
    only), or with ``absent_ops`` (a declaration: it supports none of them)
    lacks every required data type."""
    out = []
    for op, spec in operators().items():
        if op not in limits_doc and not absent_ops:
            continue
        for member, lim in spec.operands.items():
            declared = limits_doc.get(op) if isinstance(limits_doc.get(op), Mapping) else {}
            g = member_gaps(lim, declared.get(member), ((wrong_types or {}).get(op) or {}).get(member, ()))
            if g["dataTypes"] or g["ranks"]:
                out.append({"op": op, "member": member, "dataTypes": g["dataTypes"], "ranks": g["ranks"],
                            "listed": g["listed"]})
    return out
