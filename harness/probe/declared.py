"""``probe --compare FILE``: what a backend declares (an opSupportLimits
JSON, e.g. a browser's) against what the probe measured.

Categories (each a list of findings grouped by root cause: operator, member,
outcome and the backend's message or the value class at fault, with the data
types or ranks it covers and the evidence ids):

- ``declaredButBroken``: declared data types or ranks whose combinations were
  tried and none worked (rejected, wrong, crash, timeout);
- ``declaredUnverified``: declared, accepted by the backend, but the
  reference cannot compute it: nothing says it is broken;
- ``declaredNotTried``: declared data types the probe never tried (int4 and
  uint4 outside quantization, names it does not know);
- ``workingButUndeclared``: worked (inside the spec's allowed set) but the
  declaration leaves it out;
- ``declaredNotMeasured`` / ``workingNotDeclared``: operators or members on
  one side only.

A declared member is read as a browser reports it: data types and ranks
intersected with the spec's allowed ones, and a member with no
``rankRange`` stands for the spec's allowed ranks (up to rank 8).
"""
from __future__ import annotations

from collections import defaultdict
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

from webnn_harness.outputs.kinds import DECLARED_SUFFIX
from webnn_harness.spec.catalog import OperandLimits, operators
from webnn_harness.spec.dtypes import ALL_DATA_TYPES
from webnn_harness.probe.limits import WORKING
from webnn_harness.probe.plan import MAX_RANK

TOP_LEVEL = ("preferredInputLayout", "maxTensorByteLength")
GRAPH_MEMBERS = ("input", "constant", "output")
CATEGORIES = ("declaredButBroken", "declaredUnverified", "declaredNotTried", "workingButUndeclared",
              "declaredNotMeasured", "workingNotDeclared")
EVIDENCE_IDS = 5  # evidence ids kept per finding




def backend_declared(backend) -> dict | None:
    """What the backend itself declares (its ``declared_limits()``: a
    browser's ``MLContext.opSupportLimits()``), or None for a backend that
    declares nothing."""
    declared = getattr(backend, "declared_limits", None)
    return dict(declared()) if declared is not None else None


def declared_path(out_dir, name: str):
    """The file of backend ``name``'s own declared table, ``<name>-opSupportLimits.declared.json``."""
    from pathlib import Path

    return Path(out_dir) / f"{name}-{DECLARED_SUFFIX}"


def write_declared(declared: Mapping[str, Any], out_dir, name: str):
    """Save a backend's own declared table beside its probe's files; the path written."""
    from webnn_harness.outputs.jsontext import readable_json
    from webnn_harness.files.writes import write_atomic

    path = declared_path(out_dir, name)
    write_atomic(path, readable_json(declared) + "\n")
    return path


def _tried(evidence: Mapping[str, Any]) -> dict:
    """(op, member) -> {"types": {t: [entry]}, "ranks": {r: [entry]}}, judged as limits.py judges:
    data types by the type sweeps, ranks by the rank sweeps; every combination's
    operands count for the graph's input, its results for the graph's output."""
    table: dict = defaultdict(lambda: {"types": defaultdict(list), "ranks": defaultdict(list)})
    for e in evidence["combinations"]:
        role = e.get("role")
        keyed: list[tuple[tuple[str, str], Mapping]] = []
        for m, d in e["operands"].items():
            for x in d if isinstance(d, list) else [d]:
                keyed.append((("graph", role) if role else (e["op"], m), x))
                if not role:
                    keyed.append((("graph", "input"), x))
        for o in e.get("outputs") or []:
            keyed.append((("graph", "output") if role else (e["op"], o["member"]), o))
            if not role:
                keyed.append((("graph", "output"), o))
        for k, d in keyed:
            if e["axis"] in ("dataType", "baseline"):
                table[k]["types"][d["dataType"]].append(e)
            if e["axis"] in ("rank", "baseline"):
                table[k]["ranks"][len(d["shape"])].append(e)
    return table


def _spec_ranks(allowed: OperandLimits | None) -> set[int]:
    return {r for r in range(MAX_RANK + 1) if allowed is None or allowed.allowed_ranks.contains(r)}


def declared_ranks(lim: Mapping[str, Any], allowed: OperandLimits | None) -> set[int]:
    """A declared member's ranks as the browser reads them: no rankRange is the spec's allowed ranks."""
    spec = _spec_ranks(allowed)
    r = lim.get("rankRange")
    if not isinstance(r, Mapping):
        return spec
    return {x for x in range(int(r.get("min", 0)), int(r.get("max", -1)) + 1)} & spec


def _cause(entries: list[Mapping[str, Any]]) -> tuple[str, str]:
    """(outcome, why) shared by the entries: the value classes of a deviation, else the message."""
    outcomes = sorted({e["outcome"] for e in entries})
    e = entries[0]
    dev = e.get("deviation") or {}
    if e["outcome"] == "wrong" and dev.get("cause") == "special values":
        why = "wrong only for " + ", ".join(dev["values"])
    elif e["outcome"] == "wrong":
        why = "wrong on ordinary values"
    elif e["outcome"] in WORKING:
        why = ""  # it works: a note such as uncompared elements is no cause
    else:
        why = (e.get("message") or "").splitlines()[0][:200] if e.get("message") else ""
    return "/".join(outcomes), why


class _Groups:
    """Findings of one category, grouped by root cause: (op, outcome, cause);
    the members, data types and ranks it covers are listed inside."""

    def __init__(self):
        self.groups: dict[tuple, dict] = {}

    def add(self, op: str, member: str, axis: str, value: Any, entries: list[Mapping[str, Any]] | None = None,
            outcome: str = "", why: str = "") -> None:
        if entries:
            outcome, why = _cause(entries)
        g = self.groups.setdefault((op, outcome, why), {
            "op": op, "outcome": outcome, "cause": why, "members": {}, "evidence": []})
        m = g["members"].setdefault(member, {"dataTypes": [], "ranks": []})
        m["dataTypes" if axis == "dataType" else "ranks"].append(value)
        for e in entries or []:
            if e["id"] not in g["evidence"] and len(g["evidence"]) < EVIDENCE_IDS:
                g["evidence"].append(e["id"])

    def items(self) -> list[dict]:
        return sorted(self.groups.values(), key=lambda g: (g["op"], g["outcome"], g["cause"]))


def size(group: Mapping[str, Any]) -> int:
    """The (member, data type or rank) pairs a finding covers (1 for a whole operator)."""
    members = group.get("members") or {}
    return sum(len(m["dataTypes"]) + len(m["ranks"]) for m in members.values()) or 1


SHIPPED_TABLE_SUFFIX = "-opSupportLimits.json"  # a shipped table's file: <name>-opSupportLimits.json


def shipped_declared_tables() -> dict[str, Path]:
    """The declared tables shipped with the package (``probe/declared_tables/``, written by
    tools/declared/ with their provenance), by name: {"chromium-ort": path, ...}."""
    folder = Path(str(resources.files("webnn_harness.probe"))) / "declared_tables"
    return {p.name.removesuffix(SHIPPED_TABLE_SUFFIX): p for p in sorted(folder.glob(f"*{SHIPPED_TABLE_SUFFIX}"))}


def declared_table(given: str) -> str:
    """``probe --compare``'s file: a path that exists, else a shipped table named by its name
    (``chromium-ort``), its file name or a path ending in it, so that an installed package needs no
    checkout; anything else as given (reading it then says what is wrong)."""
    if Path(given).exists():
        return given
    name = Path(given).name.removesuffix(SHIPPED_TABLE_SUFFIX).removesuffix(".json")
    shipped = shipped_declared_tables().get(name)
    return str(shipped) if shipped else given


def compare_declared(declared: Mapping[str, Any], evidence: Mapping[str, Any], source: str = "") -> dict:
    tried = _tried(evidence)
    analysis = evidence["analysis"]
    found = {c: _Groups() for c in CATEGORIES[:4]}
    only_declared, only_measured = [], []
    members: list[tuple[str, str, Mapping, OperandLimits | None]] = []
    specs = operators()
    for name, value in declared.items():
        if name in TOP_LEVEL or name.startswith("$"):  # "$provenance" and the like: not limits
            continue
        if name in GRAPH_MEMBERS:
            members.append(("graph", name, value, None))
        elif isinstance(value, Mapping):
            if name not in analysis:
                only_declared.append({"op": name, "member": "", "reason": "operator not probed" if name in specs
                                      else "not an operator the harness knows"})
                continue
            for member, lim in value.items():
                if isinstance(lim, Mapping) and "dataTypes" in lim:
                    members.append((name, member, lim, specs[name].operands.get(member)))
    for op, member, lim, allowed in members:
        seen = tried.get((op, member))
        if seen is None:
            only_declared.append({"op": op, "member": member, "reason": "member not measured"})
            continue
        spec_types = set(allowed.allowed_data_types) if allowed is not None else set(ALL_DATA_TYPES)
        a = analysis.get(op, {}).get(member, {})
        ranks = declared_ranks(lim, allowed)
        for t in lim.get("dataTypes", []):
            entries = seen["types"].get(t)
            if not entries:
                why = "not a data type the harness knows" if t not in ALL_DATA_TYPES else "never tried by the probe"
                found["declaredNotTried"].add(op, member, "dataType", t, outcome="not tried", why=why)
                continue
            outcomes = {e["outcome"] for e in entries}
            if outcomes & WORKING:
                continue
            if outcomes == {"unverified"}:
                found["declaredUnverified"].add(op, member, "dataType", t, entries)
            else:
                found["declaredButBroken"].add(op, member, "dataType", t, [e for e in entries if e["outcome"] != "unverified"])
        for r in sorted(ranks):
            entries = seen["ranks"].get(r)
            if not entries:
                continue
            outcomes = {e["outcome"] for e in entries}
            if outcomes & WORKING:
                continue
            category = "declaredUnverified" if outcomes == {"unverified"} else "declaredButBroken"
            found[category].add(op, member, "rank", r, [e for e in entries if category == "declaredUnverified"
                                                           or e["outcome"] != "unverified"])
        declared_types = set(lim.get("dataTypes", []))
        for t in a.get("workingDataTypes", []):
            if t not in declared_types and t in spec_types:
                found["workingButUndeclared"].add(op, member, "dataType", t, seen["types"].get(t))
        for r in a.get("workingRanks", []):
            if r not in ranks and r in _spec_ranks(allowed):
                found["workingButUndeclared"].add(op, member, "rank", r, seen["ranks"].get(r))
    for op in analysis:
        if op != "graph" and op not in declared and any(m.get("workingDataTypes") for m in analysis[op].values()):
            only_measured.append({"op": op, "member": "", "reason": "works, not declared"})
    measured_bytes = evidence.get("maxTensorByteLength") or {}
    measured_top = {
        "preferredInputLayout": (evidence.get("preferredInputLayout") or {}).get("preferred"),
        "maxTensorByteLength": measured_bytes.get("maxTensorByteLength"),
    }
    top = {k: {"declared": declared.get(k), "measured": measured_top[k]} for k in TOP_LEVEL}
    if measured_bytes.get("kind") in ("budget", "time"):
        bound = "search budget" if measured_bytes["kind"] == "budget" else "time budget"
        top["maxTensorByteLength"]["note"] = f"at least this ({bound} reached)"
    out = {"source": source, "provenance": declared.get("$provenance")}
    for c in CATEGORIES[:4]:
        out[c] = found[c].items()
    out["declaredNotMeasured"] = only_declared
    out["workingNotDeclared"] = only_measured
    out["topLevel"] = top
    out["counts"] = {c: sum(size(g) for g in out[c]) for c in CATEGORIES}
    out["groups"] = {c: len(out[c]) for c in CATEGORIES}
    return out
