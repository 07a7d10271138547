"""The spec's "create" steps for every operator, as pure functions on
descriptors: validate arguments the way the builder method does, resolve
option defaults, and compute output descriptors.

One module per family; each exports ``CREATE``, a name -> function table,
and ``TRAITS``, a name -> OpTraits table (traits.py: what the probe, fuzz,
accuracy and reference need of the op). This module joins each into the one
table the harness uses.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from webnn_harness.spec.catalog import operator, operators
from webnn_harness.spec.families import join
from webnn_harness.spec.opspec.base import Created, OperandArg, SpecError, check_limits
from webnn_harness.spec.opspec.traits import OpTraits

CREATE = join("webnn_harness.spec.opspec", "CREATE")
TRAITS: Mapping[str, OpTraits] = join("webnn_harness.spec.opspec", "TRAITS")


def ops_where(holds: Callable[[OpTraits], Any]) -> tuple[str, ...]:
    """The ops whose traits ``holds`` is true of, in catalog order: how every
    per-op list outside opspec is derived."""
    return tuple(op for op in operators() if op in TRAITS and holds(TRAITS[op]))


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


__all__ = ["CREATE", "TRAITS", "Created", "OpTraits", "SpecError", "create", "ops_where"]
