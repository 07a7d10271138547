"""``probe --compare FILE``: what a backend declares (an opSupportLimits
JSON, e.g. dumped from a browser) against what the probe measured.

- declared but broken: a data type or rank inside a declared member whose
  combinations were tried and none worked (with the outcomes seen);
- working but undeclared: a data type or rank that worked (inside the spec's
  allowed set) that the declaration leaves out;
- operators or members declared by one side only.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any, Mapping

from webnn_harness.probe.limits import WORKING

TOP_LEVEL = ("preferredInputLayout", "maxTensorByteLength")
GRAPH_MEMBERS = ("input", "constant", "output")


def _outcomes(evidence: Mapping[str, Any]) -> dict:
    """(op, member) -> {"types": {t: {outcomes}}, "ranks": {r: {outcomes}}}."""
    table: dict = defaultdict(lambda: {"types": defaultdict(set), "ranks": defaultdict(set)})
    for e in evidence["combinations"]:
        op = "graph" if e.get("role") else e["op"]
        pairs = []
        for m, d in e["operands"].items():
            pairs += [(e["role"] or m, x) for x in (d if isinstance(d, list) else [d])]
        pairs += [("output" if e.get("role") else o["member"], o) for o in e.get("outputs") or []]
        for member, d in pairs:  # judged as limits.py judges them: types by type sweeps, ranks by rank sweeps
            if e["axis"] in ("dataType", "baseline"):
                table[(op, member)]["types"][d["dataType"]].add(e["outcome"])
            if e["axis"] in ("rank", "baseline"):
                table[(op, member)]["ranks"][len(d["shape"])].add(e["outcome"])
    return table


def _ranks(limits: Mapping[str, Any]) -> set[int]:
    r = limits.get("rankRange") or {}
    return set(range(int(r.get("min", 0)), int(r.get("max", -1)) + 1))


def compare_declared(declared: Mapping[str, Any], evidence: Mapping[str, Any], source: str = "") -> dict:
    measured = _outcomes(evidence)
    broken, undeclared, only_declared, only_measured = [], [], [], []
    analysis = evidence["analysis"]
    members: list[tuple[str, str, Mapping]] = []
    for name, value in declared.items():
        if name in TOP_LEVEL:
            continue
        if name in GRAPH_MEMBERS:
            members.append(("graph", name, value))
        elif isinstance(value, Mapping):
            if name not in analysis:
                only_declared.append({"op": name})
                continue
            for member, lim in value.items():
                if isinstance(lim, Mapping) and "dataTypes" in lim:
                    members.append((name, member, lim))
    for op, member, lim in members:
        seen = measured.get((op, member))
        if seen is None:
            only_declared.append({"op": op, "member": member})
            continue
        for t in lim.get("dataTypes", []):
            outcomes = seen["types"].get(t)
            if outcomes and not outcomes & WORKING:
                broken.append({"op": op, "member": member, "dataType": t, "outcomes": sorted(outcomes)})
        for r in sorted(_ranks(lim)):
            outcomes = seen["ranks"].get(r)
            if outcomes and not outcomes & WORKING:
                broken.append({"op": op, "member": member, "rank": r, "outcomes": sorted(outcomes)})
        a = analysis.get(op, {}).get(member, {})
        allowed_extra = set(a.get("beyondSpecDataTypes", []))
        for t in a.get("workingDataTypes", []):
            if t not in lim.get("dataTypes", []) and t not in allowed_extra:
                undeclared.append({"op": op, "member": member, "dataType": t})
        declared_ranks = _ranks(lim)
        for r in a.get("workingRanks", []):
            if r not in declared_ranks:
                undeclared.append({"op": op, "member": member, "rank": r})
    for op in analysis:
        if op != "graph" and op not in declared and any(m.get("workingDataTypes") for m in analysis[op].values()):
            only_measured.append({"op": op})
    measured_top = {
        "preferredInputLayout": (evidence.get("preferredInputLayout") or {}).get("preferred"),
        "maxTensorByteLength": (evidence.get("maxTensorByteLength") or {}).get("maxTensorByteLength"),
    }
    top = {key: {"declared": declared.get(key), "measured": measured_top[key]} for key in TOP_LEVEL}
    return {
        "source": source,
        "declaredButBroken": broken,
        "workingButUndeclared": undeclared,
        "declaredNotMeasured": only_declared,
        "workingNotDeclared": only_measured,
        "topLevel": top,
        "counts": {"declaredButBroken": len(broken), "workingButUndeclared": len(undeclared),
                   "declaredNotMeasured": len(only_declared), "workingNotDeclared": len(only_measured)},
    }
