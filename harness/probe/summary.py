"""The probe's findings as one-line text for the terminal, with the same
definitions and numbers the site shows (``limits.operator_counts``)."""
from __future__ import annotations

from typing import Any, Mapping


def probe_summary_text(evidence: Mapping[str, Any]) -> str:
    s = evidence["summary"]
    o = s["operators"]
    probed = sum(o[k] for k in ("complete", "gaps", "wrong", "absent"))
    bytes_ev = evidence.get("maxTensorByteLength") or {}
    layout = evidence.get("preferredInputLayout") or {}
    return (f"operators: {o['complete']} of {probed} support every required data type and rank, "
            f"{o['gaps']} miss a required data type or rank, {o['wrong']} compute wrong values "
            f"({s['wrongFindings']} findings, {s['valueDeviations']} only on special values), {o['absent']} not supported; "
            + _layout_text(layout)
            + f"; maxTensorByteLength {bytes_ev.get('summary') or 'not measured'}")


def _layout_text(layout: Mapping[str, Any]) -> str:
    """The layout's line: the preferred one and why, or that none was measured (its basis says
    which default stands: "not measured (defaulting to nchw)"), said once."""
    if layout.get("preferred"):
        return f"preferredInputLayout {layout['preferred']}" + (f" ({layout['basis']})" if layout.get("basis") else "")
    return f"preferredInputLayout {layout.get('basis') or 'not measured'}"


def compare_summary_text(compare: Mapping[str, Any]) -> str:
    c, g = compare["counts"], compare["groups"]
    labels = (("declaredButBroken", "declared but broken"), ("declaredUnverified", "declared but unverified"),
              ("declaredNotTried", "declared, never tried"), ("workingButUndeclared", "working but undeclared"),
              ("declaredNotMeasured", "declared, not measured"), ("workingNotDeclared", "working operators not declared"))
    return ", ".join(f"{c[k]} {text} ({g[k]} findings)" for k, text in labels)
