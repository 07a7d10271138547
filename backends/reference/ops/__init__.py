"""The reference operators: one pure numpy function per WebNN op, named like
the spec method, grouped by family, joined into one table here.

Calling convention (applied by ``backends.reference.evaluate``): the function
is called with every operand and attribute of the node as keyword arguments,
named as the spec names the parameter or option. Operands whose data type is
a float type arrive as float64 arrays; integer operands keep their exact
integer dtype. The function returns an array (or a tuple of arrays for ops
that return a sequence); float results are rounded once, by the caller, to
the output data type. A result the spec leaves to the implementation is
returned wrapped in ``ImplementationDefined`` with a mask of those elements.
"""
from __future__ import annotations

from webnn_harness.spec.families import join
from webnn_harness.backends.reference.ops.base import ImplementationDefined

OPS = join("webnn_harness.backends.reference.ops", "OPS")

__all__ = ["OPS", "ImplementationDefined"]
