"""Value deviations: "this data type does not work" against "works except
for special values".

A combination judged ``wrong`` is run again with its discriminating special
values replaced by ordinary ones: once with every class replaced (plain), and
once per class with only that class kept. When the plain run matches the
reference, the data type works on ordinary values and the classes whose run
still fails are the root cause (sign(NaN), int64 beyond 2^53, ...). Findings
are grouped by operator and root cause, so one sign(NaN) deviation is one
finding whatever the number of sweeps that met it.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Iterable, Mapping

import numpy as np

from webnn_harness.loading.cases import Case
from webnn_harness.spec.dtypes import is_float

# Value classes in the order findings name them, and the stand-in for each.
CLASSES = ("NaN", "Infinity", "negative zero", "beyond 2^53", "beyond 2^31", "beyond 2^24")
FLOAT_STAND_IN, INTEGER_STAND_IN = 0.5, 3


def value_classes(array: np.ndarray, data_type: str) -> dict[str, np.ndarray]:
    """class -> mask of the elements of ``array`` in it (only classes present)."""
    a = np.asarray(array)
    if is_float(data_type):
        f = a.astype(np.float64)
        masks = {"NaN": np.isnan(f), "Infinity": np.isinf(f), "negative zero": (f == 0) & np.signbit(f)}
    else:
        # Python ints: uint64 above 2^63 and int64 below -2^63 stay exact.
        mag = np.array([abs(int(v)) for v in a.reshape(-1)], dtype=object).reshape(a.shape)
        big53, big31, big24 = mag > 2**53, mag > 2**31, mag > 2**24
        masks = {"beyond 2^53": big53, "beyond 2^31": big31 & ~big53, "beyond 2^24": big24 & ~big31}
    return {k: np.asarray(m, dtype=bool) for k, m in masks.items() if np.any(m)}


def _replace(array: np.ndarray, data_type: str, masks: Mapping[str, np.ndarray], keep: str | None) -> np.ndarray:
    out = np.array(array, copy=True)
    stand_in = FLOAT_STAND_IN if is_float(data_type) else INTEGER_STAND_IN
    for name, mask in masks.items():
        if name != keep:
            out[mask] = out.dtype.type(stand_in)
    return out


def present_classes(case: Case) -> list[str]:
    seen: set[str] = set()
    for name, value in case.inputs.items():
        if name in ("indices",) or name.startswith("indices"):
            continue
        seen |= set(value_classes(value, case.graph.descs[name].data_type))
    return [c for c in CLASSES if c in seen]


def variant(case: Case, keep: str | None, index: int) -> Case:
    """``case`` with its special values replaced, all of them (``keep`` None:
    the plain variant) or all but class ``keep``."""
    inputs = {}
    for name, value in case.inputs.items():
        data_type = case.graph.descs[name].data_type
        masks = {} if name.startswith("indices") else value_classes(value, data_type)
        inputs[name] = _replace(value, data_type, masks, keep)
    label = "plain" if keep is None else f"only {keep}"
    return dataclasses.replace(case, name=f"{case.name}~{label}", index=index, inputs=inputs)


def retry_keeps(case: Case, plain_outcome: str | None = None, working: frozenset[str] = frozenset()) -> list[str | None]:
    """Which variants tell the cause of a wrong ``case``: the plain one first
    (``plain_outcome`` None: not run yet); then, when it works and several
    classes are present, one per class. Empty without special values."""
    classes = present_classes(case)
    if not classes:
        return []
    if plain_outcome is None:
        return [None]
    return classes if plain_outcome in working and len(classes) > 1 else []


def classify(classes: list[str], outcomes: Mapping[str | None, str], working: frozenset[str]) -> dict:
    """The finding for one wrong combination from its variants' outcomes
    (None: the plain variant)."""
    plain = outcomes.get(None)
    if not classes:
        return {"cause": "ordinary values", "values": []}
    if plain not in working:
        return {"cause": "ordinary values", "values": [], "plainOutcome": plain}
    failing = [c for c in classes if c in outcomes and outcomes[c] not in working]
    # One class alone: the plain run passing names it. None failing alone: they fail together.
    return {"cause": "special values", "values": failing or classes}


def group(entries: Iterable[Mapping[str, Any]]) -> list[dict]:
    """Wrong combinations grouped by operator and root cause."""
    groups: dict[tuple, dict] = {}
    for e in entries:
        if e.get("outcome") != "wrong":
            continue
        dev = e.get("deviation") or {"cause": "ordinary values", "values": []}
        op = "graph" if e.get("role") else e["op"]
        key = (op, dev["cause"], tuple(dev["values"]))
        g = groups.setdefault(key, {"op": op, "cause": dev["cause"], "values": list(dev["values"]),
                                    "dataTypes": [], "inSpec": False, "combinations": [],
                                    "example": e.get("example"), "maxError": e.get("maxError"),
                                    "metric": e.get("metric"), "budget": e.get("budget"),
                                    "message": e.get("message", "")})
        for t in _data_types(e):
            if t not in g["dataTypes"]:
                g["dataTypes"].append(t)
        g["inSpec"] = g["inSpec"] or bool(e.get("inSpec"))
        g["combinations"].append(e["id"])
    return sorted(groups.values(), key=lambda g: (g["op"], g["cause"] != "special values", g["values"]))


def _data_types(entry: Mapping[str, Any]) -> list[str]:
    if entry.get("axis") == "dataType":
        return [str(entry["value"])]
    out: list[str] = []
    for d in entry.get("operands", {}).values():
        for x in d if isinstance(d, list) else [d]:
            if x["dataType"] not in out:
                out.append(x["dataType"])
    return out[:1]
