"""Reading an opSupportLimits JSON file (``probe --compare FILE``, and the
``*-opSupportLimits.json`` inputs of ``report``), checked to be shaped like
the spec's MLOpSupportLimits dictionary before anything relies on it.

Shape (WebNN spec, "MLOpSupportLimits dictionary"): an object whose members
are ``preferredInputLayout`` (string), ``maxTensorByteLength`` (number),
``input``/``constant``/``output`` (MLTensorLimits), and one member per
operator, itself an object of per-operand MLTensorLimits
(``{"dataTypes": [...], "rankRange": {"min": m, "max": n}}``). Operators we
do not know are accepted when shaped right (a newer browser may list them);
a file with no member we know at all is not an opSupportLimits file. A
member named ``$...`` is metadata, not limits (the ``$provenance`` of the
declared tables tools/declared/ writes) and is not read.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

TOP_LEVEL_TENSOR_LIMITS = ("input", "constant", "output")


class LimitsFileError(Exception):
    """Not a readable MLOpSupportLimits file: one line naming the file and the member."""


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null",
            int: "a number", float: "a number"}.get(type(value), type(value).__name__)


def _check_tensor_limits(value: Any, where: str) -> str:
    if not isinstance(value, Mapping):
        return f"{where}: expected tensor limits ({{\"dataTypes\": [...], \"rankRange\": ...}}), got {_kind(value)}"
    types = value.get("dataTypes")
    if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
        return f"{where}.dataTypes: expected a list of data type names, got {_kind(types)}"
    ranks = value.get("rankRange")
    if ranks is not None:
        if not isinstance(ranks, Mapping):
            return f"{where}.rankRange: expected {{\"min\": m, \"max\": n}}, got {_kind(ranks)}"
        for end in ("min", "max"):
            r = ranks.get(end)
            if r is not None and (not isinstance(r, int) or isinstance(r, bool) or r < 0):
                return f"{where}.rankRange.{end}: expected a whole number >= 0, got {r!r}"
    return ""


def limits_problem(doc: Any) -> str:
    """"" when ``doc`` is shaped like MLOpSupportLimits; else the first problem, naming the member."""
    from webnn_harness.spec.catalog import operators

    if not isinstance(doc, Mapping):
        return f"expected an MLOpSupportLimits object, got {_kind(doc)}"
    known = set(operators())
    recognised = 0
    for name, value in doc.items():
        if name.startswith("$"):
            continue  # metadata beside the limits, e.g. tools/declared's "$provenance"
        if name == "preferredInputLayout":
            problem = "" if isinstance(value, str) else f"{name}: expected a string, got {_kind(value)}"
        elif name == "maxTensorByteLength":
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0
            problem = "" if ok else f"{name}: expected a number of bytes, got {value!r}"[:200]
        elif name in TOP_LEVEL_TENSOR_LIMITS:
            problem = _check_tensor_limits(value, name)
        elif not isinstance(value, Mapping):
            problem = f"{name}: expected an operator's limits (an object of operands), got {_kind(value)}"
        else:
            problem = next((p for m, v in value.items() if (p := _check_tensor_limits(v, f"{name}.{m}"))), "")
        if problem:
            return problem
        recognised += name in known or name in TOP_LEVEL_TENSOR_LIMITS or name in (
            "preferredInputLayout", "maxTensorByteLength")
    if not recognised:
        return "names no operator and no MLOpSupportLimits member"
    return ""


def read_limits_file(path: str | Path) -> dict:
    """The file's MLOpSupportLimits, or LimitsFileError naming file and member."""
    path = Path(path)
    if not path.is_file():
        raise LimitsFileError(f"{path}: no such file")
    from webnn_harness.files.reading import ReadError, read_json

    try:
        doc = read_json(path)
    except ReadError as exc:
        raise LimitsFileError(str(exc)[:300]) from None
    problem = limits_problem(doc)
    if problem:
        raise LimitsFileError(f"{path}: not an opSupportLimits file: {problem}")
    return doc
