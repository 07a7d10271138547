"""A finding checked against the backend's probe evidence
(``<backend>-probe.json``, written by ``probe``, see harness/probe/__init__.py).

For each op of a finding, with the data type of the op's first operand in the
minimal graph, the probe says one of:

- ``wrong``: the probe already found that op and data type computing wrong
  values, on ordinary values, or on special values (NaN, int64 beyond 2^53,
  ...) that the minimal case's inputs hold too, classified by the probe's own
  ``deviations.present_classes``. The finding is then known, not new;
- ``wrong on other values``: the probe found it wrong only on special values
  the minimal case does not hold; the finding may be another bug, so it is new;
- ``supported``: the probe saw that data type work, so its opSupportLimits
  declare it, and the finding shows the declaration is too broad;
- ``not supported``: tried and refused; ``not tried``: the probe has no
  evidence (another op set, or a data type it skipped).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from webnn_harness.loading.cases import Case
from webnn_harness.probe.deviations import present_classes


def load_probe_evidence(path: Path, backend: str) -> dict:
    """The evidence of ``backend`` in ``path`` (a probe folder or the
    ``-probe.json`` file itself); ValueError when it is missing or another backend's."""
    from webnn_harness.files.reading import read_json

    file = probe_file(path, backend)
    try:
        evidence = read_json(file)
        name = evidence["header"]["backend"]["name"]
        evidence["analysis"], evidence["wrongFindings"]
    except (OSError, ValueError, KeyError, TypeError) as exc:  # ReadError is a ValueError naming the file
        raise ValueError(f"--probe {path}: no probe evidence of {backend} ({type(exc).__name__}: {exc})") from None
    if name != backend:
        raise ValueError(f"--probe {path}: evidence of {name}, not {backend}")
    return evidence


def probe_file(path: Path, backend: str) -> Path:
    path = Path(path)
    return path / f"{backend}-probe.json" if path.is_dir() else path


def op_data_types(case: Case) -> list[tuple[str, str]]:
    """(op, data type of its first operand) for each node of the graph."""
    out = []
    for node in case.graph.nodes:
        first = next(iter(node.operands.values()), None)
        name = first[0] if isinstance(first, tuple) else first
        if name is not None and (node.op, case.graph.descs[name].data_type) not in out:
            out.append((node.op, case.graph.descs[name].data_type))
    return out


def probe_verdict(evidence: Mapping[str, Any], op: str, data_type: str, classes: list[str]) -> dict:
    """What the probe says about ``op`` in ``data_type`` (see the module's docstring)."""
    same = [f for f in evidence["wrongFindings"] if f["op"] == op and data_type in f["dataTypes"]]
    for found in same:
        if found["cause"] != "special values" or set(found["values"]) & set(classes):
            return {"op": op, "dataType": data_type, "probe": "wrong", "cause": found["cause"],
                    "values": list(found["values"]), "combinations": list(found["combinations"][:3])}
    if same:  # the probe found it wrong on special values this case does not hold: maybe another bug
        return {"op": op, "dataType": data_type, "probe": "wrong on other values",
                "values": sorted({v for f in same for v in f["values"]})}
    members = evidence["analysis"].get(op) or {}
    first = next(iter(members.values()), {})
    if data_type in first.get("workingDataTypes", []):
        verdict = "supported"
    elif data_type in first.get("triedDataTypes", []):
        verdict = "not supported"
    else:
        verdict = "not tried"
    return {"op": op, "dataType": data_type, "probe": verdict}


def check_against_probe(evidence: Mapping[str, Any], case: Case) -> list[dict]:
    """The probe's verdict on every op of a finding's minimal case."""
    classes = present_classes(case)
    return [probe_verdict(evidence, op, t, classes) for op, t in op_data_types(case)]


def probe_known(verdicts: list[dict]) -> list[str]:
    """Reasons a finding is known from the probe: one per op the probe already found wrong."""
    return [f"probe: {v['op']} {v['dataType']} wrong on {v['cause']}" + (f" ({', '.join(v['values'])})" if v["values"] else "")
            for v in verdicts if v["probe"] == "wrong"]


def probe_source(evidence: Mapping[str, Any], path: Path) -> dict:
    """What summary.json says about the evidence used: backend version and date, not the local path."""
    header = evidence["header"]
    return {"file": probe_file(path, header["backend"]["name"]).name, "backend": header["backend"], "date": header.get("date"),
            "harnessVersion": header.get("harnessVersion")}
