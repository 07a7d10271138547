"""Every op, declared once: one ``OpSpec`` record per op (traits.py) with its
create steps, tolerance budget, cost and probe plan. The create steps are
pure functions on descriptors: validate arguments the way the builder method
does, resolve option defaults, and compute output descriptors.

One module per family; each exports ``OPS = declare(OpSpec(...), ...)``.
This module joins them into the one table the harness uses, and derives
every per-op table (create steps, tolerances, costs) from it.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from webnn_harness.spec.catalog import operator, operators
from webnn_harness.spec.families import join
from webnn_harness.spec.opspec.base import BudgetFn, Created, CostFn, CreateFn, OperandArg, SpecError, check_limits
from webnn_harness.spec.opspec.traits import OpSpec

OPS: Mapping[str, OpSpec] = join("webnn_harness.spec.opspec", "OPS")
CREATE: Mapping[str, CreateFn] = {op: spec.create for op, spec in OPS.items()}
TOLERANCE: Mapping[str, BudgetFn] = {op: spec.tolerance for op, spec in OPS.items()}
COST: Mapping[str, CostFn] = {op: spec.cost for op, spec in OPS.items()}


def ops_where(holds: Callable[[OpSpec], Any]) -> tuple[str, ...]:
    """The ops whose record ``holds`` is true of, in catalog order: how every
    per-op list outside opspec is derived."""
    return tuple(op for op in operators() if op in OPS and holds(OPS[op]))


def create(op: str, operands: Mapping[str, OperandArg], attributes: Mapping[str, Any]) -> Created:
    """Run ``op``'s create steps; raise SpecError where the spec throws."""
    spec = operator(op)
    if op not in CREATE:
        raise NotImplementedError(f"{op}: no create steps implemented")
    check_limits(spec, operands)
    # The output rows of the tensor-limits tables describe what an
    # implementation reports; the create steps validate inputs only (gather of
    # a 1-D input with 0-D indices yields a 0-D output though the table says
    # "1 to N", and WPT tests exactly that).
    return CREATE[op](operands, attributes)


__all__ = ["COST", "CREATE", "OPS", "TOLERANCE", "Created", "OpSpec", "SpecError", "create", "ops_where"]
