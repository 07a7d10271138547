"""What every report page shares: backend identity, value formatting, re-run commands."""
from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping, TypeVar

from webnn_harness.backends import options_from_settings  # noqa: F401 - re-exported for the pages
from webnn_harness.files.reading import ReadError
from webnn_harness.outputs.rerun_commands import (  # noqa: F401 - re-exported for the pages
    corpus_paths_from_command, options_from_command,
    published_rerun_command, recorded_run_command, rerun_command, shown_path, with_shortened_note)

# MLOpSupportLimits members that are not operators (spec: "MLOpSupportLimits dictionary").
TOP_LEVEL_LIMITS = ("preferredInputLayout", "maxTensorByteLength", "input", "constant", "output")
SHORT_TYPE = {
    "float32": "f32", "float16": "f16", "int32": "i32", "uint32": "u32",
    "int64": "i64", "uint64": "u64", "int8": "i8", "uint8": "u8", "int4": "i4", "uint4": "u4",
}


T = TypeVar("T")


class ReportInputError(ValueError):
    """An input that is neither a run directory nor a probe output, or cannot be read."""



# --------------------------------------------------------------------------- identity


def slug(text: str) -> str:
    """A file-name-safe, lower-case form of ``text`` (backend labels become page names)."""
    s = re.sub(r"[^a-z0-9._-]+", "-", text.lower()).strip("-.")
    return s[:80] or "backend"


@dataclass(frozen=True)
class BackendId:
    """One column of every table: a backend at a version on a device."""

    name: str
    version: str
    device: str
    slug: str  # unique within a site
    label: str  # unique within a site, for people
    machine: str = ""  # report --archive: the column's machine class (issue #47); "" where not recorded

    @property
    def short_version(self) -> str:
        # OpenVINO's versions carry the build tag ("2026.4.1-22982-e213a14-releases/2026/4").
        return self.version.split("-")[0] if self.version else ""


class BackendIds:
    """Hands out BackendIds, unique by (name, version, device, extra)."""

    def __init__(self) -> None:
        self._by_key: dict[tuple, BackendId] = {}
        self._slugs: set[str] = set()

    def get(self, name: str, version: str, device: str, extra: str = "", run_label: str = "") -> BackendId:
        """``run_label`` (a run's --label) tells apart runs of one backend version."""
        key = (name, version, device, extra, run_label)
        if key in self._by_key:
            return self._by_key[key]
        label = f"{name} {version.split('-')[0]}".strip()
        base = slug(f"{name}-{version.split('-')[0]}")
        same = [b for b in self._by_key.values() if b.name == name and b.short_version == version.split("-")[0]]
        if same and run_label and all(not b.label.endswith(f" · {run_label}") for b in same):
            label = f"{label} · {run_label}"
            base = f"{base}-{slug(run_label)}"
        elif same:
            label = f"{label} ({len(same) + 1})"
            base = f"{base}-{len(same) + 1}"
        s = base
        while s in self._slugs:
            s += "x"
        self._slugs.add(s)
        bid = BackendId(name, version, device, s, label)
        self._by_key[key] = bid
        return bid


# --------------------------------------------------------------------------- values


def format_value(value: Any) -> str:
    """Expected/actual values as people read them (bigints as decimals, floats to 9 digits)."""
    if value is None:
        return ""
    if isinstance(value, Mapping) and "bigint" in value:
        return str(value["bigint"])
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return str(value)
        if value == int(value) and abs(value) < 1e16:
            return str(int(value)) if abs(value) >= 1e6 else repr(value)
        return f"{value:.9g}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    return str(value)


def error_number(value: Any) -> float | None:
    """maxError as a number for sorting ("Infinity" is written as a string)."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return float(value)


def format_error(value: Any) -> str:
    n = error_number(value)
    if n is None:
        return ""
    if math.isinf(n):
        return "inf"
    return f"{n:.6g}"


def rate(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


# --------------------------------------------------------------------------- re-run command

def reads_inputs(build: Callable[..., T]) -> Callable[..., T]:
    """``build`` with a ReadError of the one reader of every input (harness/files/reading.py) raised as
    the report's own error, so the report's callers catch one kind of error, naming file and field."""
    @functools.wraps(build)
    def reading(*args: Any, **kwargs: Any) -> T:
        try:
            return build(*args, **kwargs)
        except ReadError as exc:
            raise ReportInputError(str(exc)) from None
    return reading


def format_seconds(t: Any) -> str:
    if not isinstance(t, (int, float)) or isinstance(t, bool):
        return "" if t is None else str(t)
    if t < 1e-3:
        return f"{t * 1e6:.1f} µs"
    if t < 1:
        return f"{t * 1e3:.3f} ms"
    return f"{t:.3f} s"


def format_bytes(n: Any) -> str:
    if not isinstance(n, int) or n <= 0:
        return str(n)
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n:,} bytes ({n / size:.4g} {unit})"
    return f"{n:,} bytes"
