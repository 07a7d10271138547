"""The record of one case on one backend: the verdict's output.

A record is what the judge concludes about a case (its status, the worst
element against its budget, the known failure that explains it) together with
the configuration it ran under. The verdict makes it (``base_record``, then
harness/verdict/judge.py fills in the comparison); outputs/ only writes and
reads it (outputs/records.py, outputs/run_folder.py).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Mapping

from webnn_harness.loading.caseid import case_id, legacy_file_id

if TYPE_CHECKING:
    from webnn_harness.loading.cases import Case

STATUSES = ("pass", "fail", "unsupported", "error", "crash", "timeout", "skipped")
BAD_STATUSES = frozenset({"fail", "error", "crash", "timeout"})


# The record says what its slack means; the verdict (harness/verdict/comparison.py) computes it with this.
def budget_slack(max_error: float | None, budget: float | None) -> float | None:
    """How much of its budget a comparison used: ``max_error / budget``; 0
    for an exact result (a zero budget included), infinity for any error
    against a zero budget, None when nothing was compared. A pass at 0.5 or
    more has little headroom left: a different kernel or thread count may
    turn it into a failure."""
    if max_error is None or budget is None:
        return None
    if max_error == 0:
        return 0.0
    return max_error / budget if budget > 0 else float("inf")


@dataclass(frozen=True)
class Record:
    file: str  # the stable file id, e.g. "wpt/relu.json" (harness/loading/caseid.py)
    case: str
    ops: tuple[str, ...]
    data_types: tuple[str, ...]
    backend: Mapping[str, Any]
    status: str
    required: bool
    metric: str | None = None
    budget: float | None = None
    max_error: float | None = None
    carried: bool = False  # max_error is measured from a carried interval (Comparison.carried)
    output: str | None = None  # the output the worst element belongs to
    worst_index: tuple[int, ...] | None = None
    expected_value: Any = None
    actual_value: Any = None
    uncompared: int = 0  # implementation-defined elements not judged
    message: str = ""
    build_seconds: float | None = None
    compute_seconds: float | None = None
    known_failure: str | None = None  # reason, when the backend's known-failures file lists it
    build_settings: Mapping[str, Any] | None = None  # chosen per build (e.g. ONNX opset), see backends/base.py
    # max_error / budget (budget_slack): 0 exact, None when nothing was compared
    slack: float | None = None
    # the dot-product compliance check of `accuracy` (harness/accuracy/compliance.py), on its cases only
    compliance: Mapping[str, Any] | None = None
    # The other judge's verdict where it differs from ``status`` (harness/verdict/wpt.py):
    # WPT's under the harness's judge, the harness's under ``run --judge wpt``.
    wpt_verdict: Mapping[str, Any] | None = None
    harness_verdict: Mapping[str, Any] | None = None

    def to_json(self) -> dict:
        d = vars(self)  # the fields, read in place: fields() per record cost more
        return {
            "id": self.id,
            "file": d["file"],
            "case": d["case"],
            "ops": list(d["ops"]),
            "dataTypes": list(d["data_types"]),
            "backend": d["backend"],
            "status": d["status"],
            "required": d["required"],
            "metric": d["metric"],
            "budget": d["budget"],
            "maxError": json_float(d["max_error"]),
            "carried": d["carried"],
            "output": d["output"],
            "worstIndex": list(d["worst_index"]) if d["worst_index"] is not None else None,
            "expected": d["expected_value"],
            "actual": d["actual_value"],
            "uncompared": d["uncompared"],
            "message": d["message"],
            "buildSeconds": d["build_seconds"],
            "computeSeconds": d["compute_seconds"],
            "knownFailure": d["known_failure"],
            "buildSettings": d["build_settings"],
            "slack": json_float(d["slack"]),
            **({"compliance": d["compliance"]} if d["compliance"] is not None else {}),
            **({"wptVerdict": d["wpt_verdict"]} if d["wpt_verdict"] is not None else {}),
            **({"harnessVerdict": d["harness_verdict"]} if d["harness_verdict"] is not None else {}),
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "Record":
        # Runs written before stable ids hold a local path in "file" and no "id".
        return cls(
            file=d["file"] if "id" in d else legacy_file_id(d["file"]), case=d["case"], ops=tuple(d["ops"]), data_types=tuple(d["dataTypes"]),
            backend=d["backend"], status=d["status"], required=d["required"], metric=d.get("metric"),
            budget=d.get("budget"), max_error=d.get("maxError"), carried=d.get("carried", False), output=d.get("output"),
            worst_index=tuple(d["worstIndex"]) if d.get("worstIndex") is not None else None,
            expected_value=d.get("expected"), actual_value=d.get("actual"), uncompared=d.get("uncompared", 0),
            message=d.get("message", ""), build_seconds=d.get("buildSeconds"),
            compute_seconds=d.get("computeSeconds"), known_failure=d.get("knownFailure"),
            build_settings=d.get("buildSettings"),
            # records written before slack existed: computed from what they hold
            slack=read_json_float(d["slack"]) if "slack" in d else budget_slack(read_json_float(d.get("maxError")), read_json_float(d.get("budget"))),
            compliance=d.get("compliance"),
            wpt_verdict=d.get("wptVerdict"), harness_verdict=d.get("harnessVerdict"),
        )

    @property
    def id(self) -> str:
        return case_id(self.file, self.case)

    @property
    def detail(self) -> str:
        """One line saying what went wrong: the message, else the worst error against its budget."""
        if self.message:
            return " ".join(self.message.split())
        if self.metric and self.max_error is not None:
            beyond = " beyond the carried interval" if self.carried else ""
            return f"max {self.metric} error{beyond} {self.max_error} > budget {self.budget}"
        return ""

    def judged_by_wpt(self) -> "Record":
        """This record with WPT's verdict as its status (``run --judge wpt``),
        the harness's kept in ``harness_verdict``; unchanged where they agree."""
        if self.wpt_verdict is None:
            return self
        w = self.wpt_verdict
        ours = {"status": self.status, "metric": self.metric, "budget": self.budget,
                "maxError": json_float(self.max_error), "output": self.output,
                "worstIndex": list(self.worst_index) if self.worst_index is not None else None,
                "expected": self.expected_value, "actual": self.actual_value, "message": self.message}
        return replace(self, status=w["status"], metric=w["metric"], budget=w["budget"],
                       max_error=read_json_float(w["maxError"]), carried=False, output=w["output"],
                       worst_index=tuple(w["worstIndex"]) if w["worstIndex"] is not None else None,
                       expected_value=w["expected"], actual_value=w["actual"], message=w["message"],
                       slack=budget_slack(read_json_float(w["maxError"]), w["budget"]),
                       wpt_verdict=None, harness_verdict=ours)

    def with_(self, **changes) -> "Record":
        return replace(self, **changes)

    @property
    def known_failure_seen(self) -> bool:
        """A listed case that failed as listed: an unsupported one is a refusal, not a known failure,
        even where an entry names it (the console's and the badge's \"known failures\")."""
        return bool(self.known_failure) and self.status in BAD_STATUSES

    @property
    def worth_rerunning(self) -> bool:
        """A required or listed case that did not pass and was not refused: what ``run
        --rerun-failures`` runs again (an unsupported case stays unsupported on the same backend)."""
        return self.status in BAD_STATUSES and (self.required or bool(self.known_failure))

    @property
    def counts_against(self) -> bool:
        """A required case that failed, crashed, timed out or errored, and is not a known failure."""
        return self.required and self.status in BAD_STATUSES and not self.known_failure


def json_float(value):
    if value is None:
        return None
    if value == float("inf"):
        return "Infinity"
    return value


def read_json_float(value) -> float | None:
    """A number field as written by json_float; anything else (a file edited
    by hand, another tool's JSON) reads as absent rather than breaking a report."""
    if value == "Infinity":
        return float("inf")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def base_record(case: "Case", backend_info: Mapping[str, Any], status: str, **fields) -> Record:
    """A record of ``case`` on a backend with ``status``; the comparison's fields, if any, as ``fields``."""
    return Record(
        file=case.file,
        case=case.name,
        ops=tuple(case.graph.ops),
        data_types=tuple(case.graph.data_types),
        backend=backend_info,
        status=status,
        required=case.required,
        **fields,
    )
