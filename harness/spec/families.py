"""The operator families. The spec's create steps, the tolerances, the
reference and every backend adapter keep one module per family under these
names, each with a name -> function table; ``join`` makes the one table."""
from __future__ import annotations

import importlib
from typing import Any

FAMILIES = (
    "elementwise",
    "reduction",
    "linalg",
    "convolution",
    "pooling",
    "normalization",
    "movement",
    "recurrent",
    "quantization",
)


def join(package: str, table: str) -> dict[str, Any]:
    """``{op: entry}`` from ``package.<family>.<table>`` for every family;
    an op defined in two families is a bug and raises."""
    out: dict[str, Any] = {}
    for family in FAMILIES:
        entries = getattr(importlib.import_module(f"{package}.{family}"), table)
        clash = set(out) & set(entries)
        if clash:
            raise RuntimeError(f"{package}.{family}.{table} redefines {', '.join(sorted(clash))}")
        out.update(entries)
    return out
