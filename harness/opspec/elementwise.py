"""Create steps for the elementwise operators (see harness/opspec/__init__.py)."""
from __future__ import annotations

from harness.opspec.base import Created, check, ulp

CREATE = {}
TOLERANCE = {}
