"""An accuracy folder (``webnn-harness accuracy --out``) read back: ``accuracy.jsonl``, one line per op x
data type x data set x shape (TOSA's dot-product compliance beside the WPT verdict,
harness/accuracy/driver.py), and ``summary.json`` (the run header, ``"kind": "accuracy"``). Both are read
as untrusted: the file's size is bounded, every line is checked field by field, and a bad line becomes
one warning naming the folder, line and field while the other lines are read."""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from webnn_harness.files.reading import ReadError, loads, read_json
from webnn_harness.outputs.kind_files import ACCURACY_FILE  # noqa: F401 - the kind's file, named once

ACCURACY_KIND = "accuracy"
MAX_ACCURACY_BYTES = 64 << 20  # a full plan is about 1 MB per backend
MAX_WARNINGS = 5  # bad lines named per folder; the rest are counted


@dataclass(frozen=True)
class AccuracyCase:
    op: str
    data_type: str
    data_set: str
    shape: str
    k: int
    ksb: int
    compliant: bool | None  # None: not checked (refused, crashed, timed out)
    failed: tuple[str, ...]
    max_err: float | None
    max_err_limit: float | None
    sum_sq: float | None
    sum_sq_limit: float | None
    sum_err: float | None
    sum_err_limit: float | None  # None: no bias test for this data set
    wpt_status: str
    wpt_slack: float | None
    message: str

    @property
    def outcome(self) -> str:
        return {True: "compliant", False: "non-compliant"}.get(self.compliant, "not checked")

    @property
    def use(self) -> float | None:
        """The largest share of a limit used: max over |err| / A, sum err^2 / V T, |sum err| / its limit."""
        shares = [abs(v) / lim for v, lim in ((self.max_err, self.max_err_limit), (self.sum_sq, self.sum_sq_limit),
                                              (self.sum_err, self.sum_err_limit)) if v is not None and lim]
        return max(shares) if shares else None


class _BadField(ValueError):
    pass


def _number(raw: Mapping[str, Any], key: str, optional: bool = True) -> float | None:
    value = raw.get(key)
    if value is None and optional:
        return None
    if value in ("Infinity", "-Infinity"):
        return math.inf if value == "Infinity" else -math.inf
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _BadField(key)
    return float(value)


def _text(raw: Mapping[str, Any], key: str, limit: int = 300) -> str:
    value = raw.get(key, "")
    if not isinstance(value, str):
        raise _BadField(key)
    return value[:limit]


def read_case(raw: Any) -> AccuracyCase:
    """One line of accuracy.jsonl; _BadField names the first field that is wrong."""
    if not isinstance(raw, dict):
        raise _BadField("(line)")
    bounds = raw.get("bounds") or {}
    wpt = raw.get("wpt") or {}
    failed = raw.get("failed") or []
    if not isinstance(bounds, dict):
        raise _BadField("bounds")
    if not isinstance(wpt, dict):
        raise _BadField("wpt")
    if not isinstance(failed, list) or not all(isinstance(f, str) for f in failed):
        raise _BadField("failed")
    if raw.get("compliant") not in (True, False, None):
        raise _BadField("compliant")
    for key in ("k", "ksb"):
        if isinstance(raw.get(key), bool) or not isinstance(raw.get(key), int):
            raise _BadField(key)
    for key in ("op", "dataType", "dataSet"):
        if not _text(raw, key):
            raise _BadField(key)
    try:
        limits = [_number(bounds, key) for key in ("maxErr", "sumSq", "sumErr")]
    except _BadField as exc:
        raise _BadField(f"bounds.{exc}") from None
    try:
        wpt_slack, wpt_status = _number(wpt, "slack"), _text(wpt, "status", 20)
    except _BadField as exc:
        raise _BadField(f"wpt.{exc}") from None
    return AccuracyCase(
        op=_text(raw, "op", 60), data_type=_text(raw, "dataType", 20), data_set=_text(raw, "dataSet", 10),
        shape=_text(raw, "shape"), k=raw["k"], ksb=raw["ksb"], compliant=raw.get("compliant"), failed=tuple(failed[:3]),
        max_err=_number(raw, "maxErr"), max_err_limit=limits[0], sum_sq=_number(raw, "sumSq"), sum_sq_limit=limits[1],
        sum_err=_number(raw, "sumErr"), sum_err_limit=limits[2], wpt_status=wpt_status, wpt_slack=wpt_slack,
        message=_text(raw, "message", 500),
    )


def read_backend(raw: Any) -> Mapping[str, Any]:
    """A record's backend info (name, version, device, settings): a mapping of
    a mapping, as the page's header rows need; _BadField otherwise."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise _BadField("backend")
    if not isinstance(raw.get("settings", {}), dict):
        raise _BadField("backend.settings")
    return raw


@dataclass(frozen=True)
class AccuracyFolder:
    path: Path
    summary: Mapping[str, Any]  # {} for a run that wrote none
    cases: tuple[tuple[Mapping[str, Any], AccuracyCase], ...]  # (backend, case) per readable line
    warnings: tuple[str, ...]  # lines left out, "FOLDER/accuracy.jsonl: line N: why"


def read_accuracy_folder(folder: Path) -> AccuracyFolder:
    """One accuracy folder; a ReadError for one that is not (or of which no line reads)."""
    folder = Path(folder)
    path = folder / ACCURACY_FILE
    where = f"{folder.name}/{ACCURACY_FILE}"
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ReadError(f"{where}: cannot read: {exc.strerror or exc}") from None
    if size > MAX_ACCURACY_BYTES:
        raise ReadError(f"{where}: {size} bytes, more than the {MAX_ACCURACY_BYTES} an accuracy run writes")
    summary_path = folder / "summary.json"
    summary = read_json(summary_path) if summary_path.exists() else {}
    if not isinstance(summary, dict) or summary.get("kind", ACCURACY_KIND) != ACCURACY_KIND:
        raise ReadError(f"{folder.name}/summary.json: not the summary of an accuracy run")
    cases, warnings, bad = [], [], 0
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = loads(line, where)  # the one reader's parse: nesting bounded, never a RecursionError
            case = read_case(raw)
            backend = read_backend(raw.get("backend", summary.get("backend")))
        except ValueError as exc:  # JSON errors and _BadField
            bad += 1
            if len(warnings) < MAX_WARNINGS:
                what = f"field {exc}" if isinstance(exc, _BadField) else "not valid JSON"
                warnings.append(f"{where}: line {number}: {what}; the line is left out")
            continue
        cases.append((backend, case))
    if bad > MAX_WARNINGS:
        warnings.append(f"{where}: ... and {bad - MAX_WARNINGS} more unreadable lines")
    if bad and not cases:
        raise ReadError(warnings[0])
    return AccuracyFolder(folder, summary, tuple(cases), tuple(warnings))
