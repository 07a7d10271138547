"""Whether a backend's opSupportLimits predicted that it would refuse a model.

For each record of a run that is not a pass or fail (the backend refused the graph, or erred
building it), and for each model a table predicts a refusal for, one ``RefusalCheck``: the model,
the backend, its own message (which names the op and operand where the backend says), and for each
limits table given (the backend's *declared* ``opSupportLimits()``: a browser's, or the shipped
tables in harness/probe/declared_tables; the *probed* one ``webnn-harness probe`` wrote) the first
operator / operand of the graph outside it (``outside_declared``, the same check the chromium
backend makes before building), or None where the table admits the whole graph.

``predicted`` is then: yes (the table names something and the backend refused), no (the backend
refused a graph the table admits: the table over-promises), or false alarm (the table names
something, the backend ran it). ``tools/model_refusals.py`` prints this for a run folder.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

REFUSED = ("unsupported", "error", "crash")


@dataclass(frozen=True)
class RefusalCheck:
    case: str
    backend: str
    status: str
    message: str
    outside: Mapping[str, str | None]  # table kind ("declared", "probed") -> why the graph is outside it, or None
    largest_constant: str = ""  # for a message that names no operand (Chromium's "Buffer size is over inline limit")

    def verdicts(self) -> dict[str, str]:
        refused = self.status in REFUSED
        out = {}
        for kind, why in self.outside.items():
            if why and refused:
                out[kind] = f"predicted ({why})"
            elif refused:
                out[kind] = "not predicted: the table admits every operand of the graph"
            elif not why:
                out[kind] = "agrees: admits the graph, and the backend ran it"
            else:
                out[kind] = f"false alarm: the backend ran it ({why})"
        return out

    def line(self) -> str:
        said = "; ".join(f"{k}: {v}" for k, v in self.verdicts().items()) or "no opSupportLimits table given"
        what = f"{self.status}: {self.message[:200]}" if self.status in REFUSED else self.status
        largest = f" (largest constant: {self.largest_constant})" if self.status in REFUSED and self.largest_constant else ""
        return f"{self.case} on {self.backend}: {what}{largest}; {said}"


def refusal_checks(records: Iterable[Mapping[str, Any]], graphs: Mapping[str, Any],
                   tables: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> list[RefusalCheck]:
    """``records``: a run's results.jsonl lines; ``graphs``: case id -> its Graph; ``tables``: backend
    name -> {"declared" | "probed": an opSupportLimits document}."""
    from webnn_harness.backends.chromium.limits import outside_declared

    checks = []
    for r in records:
        graph = graphs.get(r.get("id"))
        name = (r.get("backend") or {}).get("name", "")
        if graph is None:
            continue
        outside = {kind: outside_declared(graph, doc) for kind, doc in (tables.get(name) or {}).items()}
        if r.get("status") in REFUSED or any(outside.values()):
            checks.append(RefusalCheck(r.get("case", ""), name, r.get("status", ""), r.get("message", ""), outside,
                                       _largest_constant(graph)))
    return checks


def _largest_constant(graph) -> str:
    if not graph.constants:
        return ""
    name = max(graph.constants, key=lambda n: graph.descs[n].byte_length)
    consumer = next((n.op for n in graph.nodes if name in n.operand_names()), "?")
    return f"{name!r}, {graph.descs[name].byte_length:,} bytes, of {consumer}"


def read_table(path: Path) -> dict:
    """An opSupportLimits JSON file (spec-shaped, as ``probe`` and the declared tables write it)."""
    from webnn_harness.files.reading import read_json

    doc = read_json(path, max_bytes=8 << 20)
    if not isinstance(doc, dict):
        raise ValueError(f"{path}: not an opSupportLimits object")
    if doc.get("maxTensorByteLength") == 0:  # probe --no-bytes writes 0 for "not measured": no tensor fits 0 bytes
        doc = {k: v for k, v in doc.items() if k != "maxTensorByteLength"}
    return doc


def read_records(run_dir: Path) -> list[dict]:
    with open(run_dir / "results.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
