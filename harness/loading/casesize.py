"""How big a case is, known from its descriptors before anything is allocated.

A case that asks for a [100000, 100000] float32 input would raise
MemoryError (or push the machine into swap) while loading and take the
whole run with it; a rank-65 shape makes numpy raise before any field is
named. Both are refused here from the JSON descriptors alone, as a
``FieldError`` naming the tensor, so the case fails alone and the rest of
the run goes on (issue 12).
"""
from __future__ import annotations

import os
from math import prod
from typing import Any, Mapping

import numpy as np

from webnn_harness.spec.builder import FieldError
from webnn_harness.spec.dtypes import DATA_TYPES, byte_size
from webnn_harness.spec.graph import Graph

# numpy's NPY_MAXDIMS: 32 before numpy 2, 64 since. No backend we drive goes beyond it.
MAX_RANK = 64 if int(np.__version__.split(".")[0]) >= 2 else 32
# The share of physical memory one case may ask for by default (``--max-case-bytes``):
# the reference computes in float64 beside the case's own tensors, so leave room.
MEMORY_FRACTION = 0.25
_FALLBACK_MEMORY = 8 << 30


def physical_memory() -> int:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):  # not POSIX
        return _FALLBACK_MEMORY


def default_max_case_bytes() -> int:
    return int(physical_memory() * MEMORY_FRACTION)


def _descriptor_bytes(tensor: Mapping[str, Any], where: str) -> int:
    desc = tensor["descriptor"]
    shape = desc.get("shape", desc.get("dimensions"))
    if len(shape) > MAX_RANK:
        raise FieldError(f"{where}.descriptor.shape", f"rank {len(shape)} is more than the {MAX_RANK} dimensions "
                         "numpy (and every backend here) supports")
    data_type = desc["dataType"]
    return prod(shape) * (byte_size(data_type) if data_type in DATA_TYPES else 8)


def _refuse(where: str, nbytes: int, limit: int) -> FieldError:
    return FieldError(where, f"needs {nbytes:,} bytes, over the {limit:,}-byte limit per case "
                             "(--max-case-bytes)")


def check_descriptors(graph_raw: Mapping[str, Any], limit: int) -> None:
    """Before decoding: every input and expected output of a schema-valid case."""
    total = 0
    for group in ("inputs", "expectedOutputs"):
        for name, tensor in (graph_raw.get(group) or {}).items():
            where = f"{group}.{name}"
            nbytes = _descriptor_bytes(tensor, where)
            if nbytes > limit:
                raise _refuse(f"{where}.descriptor", nbytes, limit)
            total += nbytes
    if total > limit:
        raise _refuse("graph", total, limit)


def check_graph(graph: Graph, limit: int) -> None:
    """After shape inference, before any value is computed: every operand,
    intermediates included (an ``expand`` to a huge shape is as bad as a huge input)."""
    sizes = {name: d.byte_length for name, d in graph.descs.items()}
    for name, d in graph.descs.items():
        if d.rank > MAX_RANK:
            raise FieldError(f"operand {name}", f"rank {d.rank} is more than {MAX_RANK} dimensions")
    total = sum(sizes.values())
    if total > limit:
        biggest = max(sizes, key=sizes.__getitem__)
        raise FieldError("graph", f"its operands need {total:,} bytes (the largest, {biggest}, {sizes[biggest]:,}), "
                                  f"over the {limit:,}-byte limit per case (--max-case-bytes)")
