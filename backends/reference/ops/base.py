"""Shared pieces of the reference operators."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class ImplementationDefined:
    """A result with elements the spec leaves to the implementation.

    ``undefined`` is a boolean mask (same shape as ``values``) of elements the
    comparator must not judge; ``reason`` says why, citing the spec."""

    values: np.ndarray
    undefined: np.ndarray
    reason: str
