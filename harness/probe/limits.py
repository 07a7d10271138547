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

from webnn_harness.catalog import OperandLimits, operators
from webnn_harness.dtypes import in_spec_order
from webnn_harness.probe.plan import MAX_RANK

WORKING = frozenset({"supported", "emulated"})
GRAPH_MEMBERS = ("input", "constant", "output")


def _observations(entries: Iterable[Mapping[str, Any]]):
    """(op, member) -> {"types": set, "ranks": set} seen in working combos,
    and (op, member) -> the same for every combo tried (to tell 'not tried')."""
    works: dict = defaultdict(lambda: {"types": set(), "ranks": set()})
    tried: dict = defaultdict(lambda: {"types": set(), "ranks": set()})
    for e in entries:
        op = "graph" if e.get("role") else e["op"]
        descs: list[tuple[str, Mapping]] = []
        for m, d in e["operands"].items():
            member = e["role"] if e.get("role") else m
            descs.extend((member, x) for x in (d if isinstance(d, list) else [d]))
        for o in e.get("outputs") or []:
            descs.append(("output" if e.get("role") else o["member"], o))
        spec = None if op == "graph" else operators()[op]
        for member, d in descs:
            fixed_rank = spec is not None and spec.operands[member].allowed_ranks.min == spec.operands[member].allowed_ranks.max
            for table in (tried, works) if e["outcome"] in WORKING else (tried,):
                # A data type is judged by its own sweep (at the baseline rank, on the
                # full discriminating values), a rank by the rank sweep: a small-rank
                # tensor that happens to miss the discriminating values proves nothing
                # about the data type. Option variants judge neither.
                if e["axis"] in ("dataType", "baseline"):
                    table[(op, member)]["types"].add(d["dataType"])
                if e["axis"] in ("rank", "baseline") or (fixed_rank and e["axis"] != "option"):
                    table[(op, member)]["ranks"].add(len(d["shape"]))
    return works, tried


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
    types = set(types)
    if allowed is not None:
        types &= set(allowed.allowed_data_types)
        ranks = {r for r in ranks if allowed.allowed_ranks.contains(r)}
    run = longest_run(ranks)
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


def derive(entries: list[Mapping[str, Any]]) -> tuple[dict, dict]:
    """(per-op MLOpSupportLimits members incl. graph-level input/constant/output,
    analysis per op and member)."""
    works, tried = _observations(entries)
    limits: dict[str, Any] = {}
    analysis: dict[str, Any] = {}
    for member in GRAPH_MEMBERS:
        seen = works.get(("graph", member), {"types": set(), "ranks": set()})
        limits[member] = tensor_limits(seen["types"], seen["ranks"], None)
        analysis.setdefault("graph", {})[member] = member_analysis("graph", member, None, works, tried)
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


def conformance_gaps(analysis: Mapping[str, Any]) -> list[dict]:
    out = []
    for op, members in analysis.items():
        for member, a in members.items():
            for gap in a.get("conformanceGaps", []):
                out.append({"op": op, "member": member, **gap})
    return out
