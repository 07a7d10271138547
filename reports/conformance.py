"""Run results -> the conformance model: per-backend tallies, the op x data type matrix, problems."""
from __future__ import annotations

import json
import shlex
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from webnn_harness.spec.catalog import operators
from webnn_harness.spec.dtypes import DATA_TYPES
from webnn_harness.reports.common import (
    BackendId,
    BackendIds,
    ReportInputError,
    error_number,
    format_error,
    format_value,
    corpus_paths_from_command,
    options_from_command,
    options_from_settings,
    rate,
    published_rerun_command,
    recorded_run_command,
)
from webnn_harness.verdict.record import BAD_STATUSES, STATUSES, Record
from webnn_harness.outputs.rerun_commands import strip_local_paths
from webnn_harness.outputs.run_folder import SUMMARY, backend_groups, backend_key, read_run_folder

# --------------------------------------------------------------------------- conformance model


@dataclass(frozen=True)
class RunHeader:
    backend: Mapping[str, Any]
    harness_version: str
    date: str
    machine: Mapping[str, Any]
    command: str
    source: str  # the run folder's name (never its local path: pages are published)
    seconds: float | None
    incomplete: str = ""  # why the run is not whole ("" when it finished); then never "required OK"
    label: str = ""  # the run's --label (default: its corpora)

    @property
    def settings(self) -> Mapping[str, Any]:
        return self.backend.get("settings") or {}


@dataclass(frozen=True)
class Problem:
    """A record flattened for a table: every non-pass, and passes near their budget (TightPass)."""

    backend: BackendId
    file: str
    file_name: str
    case: str
    ops: tuple[str, ...]
    data_types: tuple[str, ...]
    status: str
    required: bool
    metric: str
    budget: str
    max_error: str
    max_error_sort: float | None
    carried: bool  # max_error is the distance beyond the interval its ancestors' budgets allow
    output: str
    worst_index: str
    expected: str
    actual: str
    message: str
    known_failure: str
    command: str
    slack: float | None = None  # max error / budget (Record.slack)


@dataclass(frozen=True)
class Cell:
    """One operator x data type square: how the cases there came out."""

    outcome: str  # pass | partial | fail | known | unsupported | skipped | untested
    counts: tuple[tuple[str, int], ...]  # (status, n) for statuses that occur
    total: int
    passed: int
    title: str


@dataclass(frozen=True)
class SlackRow:
    """How much of their budgets the judged cases of one op x data type used
    (slack = max error / budget, harness/verdict/comparison.py budget_slack)."""

    op: str
    data_type: str
    judged: int  # cases with a slack (something was compared)
    max_slack: float
    median_slack: float
    tight: int  # passing cases at TIGHT_SLACK or above


@dataclass(frozen=True)
class JudgeDisagreement:
    """A case the harness's judge and WPT's rule (harness/verdict/wpt.py) judge differently, and why."""

    file: str
    case: str
    ops: tuple[str, ...]
    ours: str  # the harness's status
    wpt: str  # WPT's status
    ours_detail: str  # "max error / budget metric"
    wpt_detail: str
    reason: str


def _verdict_detail(v: Mapping[str, Any]) -> str:
    if v.get("maxError") is None:
        return str(v.get("message") or "")
    return f"{v.get('maxError')} / {v.get('budget')} {v.get('metric')}"


def judge_disagreements(records: Sequence[Record]) -> tuple[JudgeDisagreement, ...]:
    """Every case whose record keeps a second verdict: ours pass and WPT's fail first, then the reverse."""
    from webnn_harness.verdict.wpt import why_they_differ

    out = []
    for r in records:
        if r.wpt_verdict is None and r.harness_verdict is None:
            continue
        own = {"status": r.status, "metric": r.metric, "budget": r.budget, "maxError": r.max_error,
               "expected": r.expected_value, "actual": r.actual_value, "message": r.message}
        ours, wpt = (own, r.wpt_verdict) if r.wpt_verdict is not None else (r.harness_verdict, own)
        out.append(JudgeDisagreement(r.file, r.case, r.ops, ours["status"], wpt["status"], _verdict_detail(ours),
                                     _verdict_detail(wpt), why_they_differ(ours, wpt, r.ops, r.carried, r.uncompared)))
    return tuple(sorted(out, key=lambda d: (d.ours != "pass", d.file, d.case)))


# One WebNN implementation's WPT runner flags passes that use half their budget or more.
TIGHT_SLACK = 0.5


@dataclass(frozen=True)
class BackendConformance:
    backend: BackendId
    header: RunHeader
    total: int
    counts: Mapping[str, int]
    required: Mapping[str, int]
    optional: Mapping[str, int]
    required_rate: float | None
    optional_rate: float | None
    required_failing: int  # required cases that failed, errored, crashed or timed out (known ones included)
    required_unsupported: int  # required cases the backend refused: not failures, but not passes
    supported_rate: float | None  # pass / (required - skipped - unsupported): correctness where it builds
    known_failures: int
    required_problems: int
    data_types: tuple[str, ...]
    matrix: tuple[tuple[str, tuple[Cell, ...]], ...]  # (op, cells in data_types order), all 95 ops
    ops_tested: int
    problems: tuple[Problem, ...]
    rerun_options_derived: bool  # True: options came from settings, not a recorded command
    slack: tuple[SlackRow, ...] = ()  # per op x data type judged, in catalog then data type order
    tight_passes: tuple[Problem, ...] = ()  # passes at TIGHT_SLACK or more (the next to fail), the tightest first
    judge: str = "harness"  # whose verdict the statuses are (run --judge)
    disagreements: tuple[JudgeDisagreement, ...] = ()  # the cases the two judges part on, with why


@dataclass(frozen=True)
class Conformance:
    backends: tuple[BackendConformance, ...]
    problems: tuple[Problem, ...]
    filter_ops: tuple[str, ...]
    filter_types: tuple[str, ...]
    filter_statuses: tuple[str, ...]


def cell_outcome(counts: Counter, known: int) -> str:
    total = sum(counts.values())
    if not total:
        return "untested"
    bad = sum(counts[s] for s in BAD_STATUSES) - known
    if bad > 0:
        return "partial" if counts["pass"] else "fail"
    if known:
        return "known"
    if counts["unsupported"]:
        return "unsupported" if not counts["pass"] else "partial-unsupported"
    if counts["pass"]:
        return "pass"
    return "skipped"


OUTCOME_TEXT = {
    "pass": "all pass",
    "partial": "some fail",
    "fail": "all fail",
    "known": "known failures only",
    "unsupported": "unsupported",
    "partial-unsupported": "some unsupported",
    "skipped": "skipped",
    "untested": "not tested",
}


def cell_counts(records: Sequence[Record]) -> dict[tuple[str, str], tuple[Counter, int]]:
    """(op, data type) -> (its cases' statuses, its known failures). A multi-operator graph counts for
    each operator and each data type it uses."""
    counts: dict[tuple[str, str], Counter] = defaultdict(Counter)
    known: Counter = Counter()
    for r in records:
        for op in set(r.ops):
            for dt in set(r.data_types):
                counts[(op, dt)][r.status] += 1
                known[(op, dt)] += bool(r.known_failure) and r.status in BAD_STATUSES
    return {key: (c, known[key]) for key, c in counts.items()}


def _matrix(cells: Mapping[tuple[str, str], tuple[Counter, int]], all_ops: Sequence[str], data_types: Sequence[str]):
    rows = []
    for op in all_ops:
        row = []
        for dt in data_types:
            c, known = cells.get((op, dt), (Counter(), 0))
            outcome = cell_outcome(c, known)
            occurring = tuple((s, c[s]) for s in STATUSES if c[s])
            detail = ", ".join(f"{n} {s}" for s, n in occurring) or "no cases"
            if known:
                detail += f" ({known} known failures)"
            row.append(Cell(outcome, occurring, sum(c.values()), c["pass"], f"{op} × {dt}: {detail}"))
        rows.append((op, tuple(row)))
    return tuple(rows)


def slack_per_cell(records: Sequence[Record]) -> list[SlackRow]:
    """Max and median slack per op x data type (a multi-op case counts for each, as in the matrix), in no
    order (``slack_in_order``): what a run's pieces keep (RunPieces). Records without a slack (nothing
    compared, or written before slack existed without a budget) are left out; an infinite slack (an
    error against a zero budget) counts."""
    import statistics

    found: dict[tuple[str, str], list[tuple[float, bool]]] = defaultdict(list)
    for r in records:
        if r.slack is None:
            continue
        for op in set(r.ops):
            for dt in set(r.data_types):
                found[(op, dt)].append((float(r.slack), r.status == "pass"))
    rows = []
    for (op, dt), values in found.items():
        slacks = [v for v, _ in values]
        rows.append(SlackRow(op, dt, len(slacks), max(slacks), float(statistics.median(slacks)),
                             sum(1 for v, passed in values if passed and v >= TIGHT_SLACK)))
    return rows


def slack_in_order(rows: Sequence[SlackRow], all_ops: Sequence[str], data_types: Sequence[str]) -> tuple[SlackRow, ...]:
    """In catalog order of the op, then of the data type (names the catalogs lack after theirs, by name)."""
    order = {op: i for i, op in enumerate(all_ops)}
    dt_order = {dt: i for i, dt in enumerate(data_types)}
    return tuple(sorted(rows, key=lambda r: (order.get(r.op, len(order)), r.op,
                                             dt_order.get(r.data_type, len(dt_order)), r.data_type)))


def tight_passes(shown: Sequence[ShownRecord], bid: BackendId) -> tuple[Problem, ...]:
    """The passes at TIGHT_SLACK or more (the next to fail), the tightest first."""
    tight = sorted((s for s in shown if is_tight_pass(s.record)), key=lambda s: -s.record.slack)
    return tuple(_problem(s.record, bid, s.command) for s in tight)


def is_tight_pass(r: Record) -> bool:
    """A pass at TIGHT_SLACK or more: the next to fail."""
    return r.status == "pass" and r.slack is not None and r.slack >= TIGHT_SLACK


def _problem(r: Record, bid: BackendId, command: str) -> Problem:
    index = "[" + ", ".join(str(i) for i in r.worst_index) + "]" if r.worst_index is not None else ""
    budget = "" if r.budget is None else format_error(r.budget)
    return Problem(
        backend=bid, file=r.file, file_name=Path(r.file).name, case=r.case, ops=tuple(r.ops),
        data_types=tuple(r.data_types), status=r.status, required=r.required, metric=r.metric or "",
        budget=budget, max_error=format_error(r.max_error), max_error_sort=error_number(r.max_error),
        carried=r.carried,
        output=r.output or "", worst_index=index, expected=format_value(r.expected_value),
        actual=format_value(r.actual_value), message=r.message or "", known_failure=r.known_failure or "",
        command=command, slack=r.slack,
    )


def problem_rank(p: Problem) -> tuple:
    """Real failures first (required before optional), then known failures, then
    unsupported and skipped: the rows a reader must act on lead the table."""
    if p.status in BAD_STATUSES and not p.known_failure:
        tier = 0
    elif p.known_failure:
        tier = 1
    else:
        tier = 2 if p.status == "unsupported" else 3
    return (tier, not p.required)


def _public_command(command: str) -> str:
    """The recorded command with local paths reduced to their last component
    (runs recorded before the harness did that itself)."""
    from webnn_harness.outputs.rerun_commands import SHORTENED, public_command, with_shortened_note

    try:
        return with_shortened_note(public_command(shlex.split(command, comments=True)), SHORTENED in command) if command else ""
    except ValueError:
        return ""


@dataclass
class _RunGroup:
    """Records of one backend in one run directory."""

    backend: Mapping[str, Any]
    records: list[Record]
    summary: Mapping[str, Any]
    source: Path
    problems: tuple[str, ...] = ()  # lines of results.jsonl that could not be read


def run_incomplete(summary: Mapping[str, Any], has_summary: bool) -> str:
    """Why a run folder does not hold a whole run; "" when it does. Runs
    before summary.json had "complete" wrote it only once they had finished."""
    if not has_summary:
        return "no summary.json: the run was stopped before it finished"
    if summary.get("complete", True) is not False:
        return ""
    progress = summary.get("progress") if isinstance(summary.get("progress"), Mapping) else {}
    # "loading": stopped while cases were still loading, so "planned" counts only those loaded.
    at_least = "at least " if progress.get("loading") else ""
    how_far = (f"{progress.get('recorded')} of {at_least}{progress.get('planned')} records"
               if "recorded" in progress and "planned" in progress else "")
    why = str(summary.get("stoppedBy") or "stopped before it finished (killed, or still running)")
    return f"{why}; {how_far}" if how_far else why


def read_run(run_dir: Path) -> list[_RunGroup]:
    """One group per backend of the run folder (harness/outputs/run_folder.py reads it, as every command does),
    its summary marked with why the run is incomplete, if it is."""
    try:
        run = read_run_folder(run_dir)
    except ValueError as exc:
        raise ReportInputError(str(exc)) from None
    summary = {**run.summary, "_incomplete": run_incomplete(run.summary, (run_dir / SUMMARY).exists())}
    return [_RunGroup(backend, records, summary, run_dir, run.problems) for backend, records in backend_groups(run)]


def _run_label(summary: Mapping[str, Any], folder: str) -> tuple[str, str]:
    """A run's name (which tells apart runs of one backend) and its label on the
    pages: its ``--label``; without one (the summary's label is then its
    corpora), its folder's name, shown with its corpora, so two runs of one
    corpus are not identical rows (issue 28)."""
    label = str(summary.get("label") or "")
    ids = summary.get("caseFileIds")
    corpora = {str(i).split("/", 1)[0] for i in ids} if isinstance(ids, list) and ids else None
    if not label or corpora is None or set(label.split("+")) != corpora:  # --label given (or not known)
        return label or folder, label or folder
    return folder, label if folder == label else f"{folder} ({label})"


@dataclass(frozen=True)
class ShownRecord:
    """A record the pages show one by one (a non-pass, a tight pass, a case the judges part on), with its
    published re-run command."""

    record: Record
    command: str


@dataclass(frozen=True)
class RunPieces:
    """What ``build_conformance`` needs of one backend's records in one run, derived from them once:
    tallies, the op x data type cells and slack, and the records shown one by one. An archive's
    site keeps these per entry (reports/archive.py) instead of reading every run again."""

    header: RunHeader
    run_name: str  # tells apart runs of one backend (_run_label)
    rerun_options_derived: bool  # the re-run options came from the settings, not a recorded command
    judge: str
    counts: Mapping[str, int]  # status -> records
    required: Mapping[str, int]
    optional: Mapping[str, int]
    known_failures: int
    required_problems: int
    ops: tuple[str, ...]  # every operator the records name
    data_types: tuple[str, ...]  # every data type the records name
    cells: Mapping[tuple[str, str], tuple[Counter, int]]  # cell_counts
    slack: tuple[SlackRow, ...]  # slack_per_cell
    shown: tuple[ShownRecord, ...]  # in the records' order
    problems: tuple[str, ...] = ()  # lines of results.jsonl that could not be read

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def _without_local_paths(r: Record) -> Record:
    """A shown record's free texts with no local path, as the pages show them (their every text goes through
    outputs/text.publishable, which cuts paths too): RunPieces are kept in the published site folder."""
    def text(value: Any) -> Any:
        return strip_local_paths(value) if isinstance(value, str) else value

    def verdict(v: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
        return None if v is None else {k: text(x) if k in ("message", "expected", "actual") else x
                                       for k, x in v.items()}

    return r.with_(message=text(r.message), known_failure=text(r.known_failure), expected_value=text(r.expected_value),
                   actual_value=text(r.actual_value), wpt_verdict=verdict(r.wpt_verdict),
                   harness_verdict=verdict(r.harness_verdict))


def run_pieces(g: _RunGroup) -> RunPieces:
    b = g.backend
    run_name, run_label = _run_label(g.summary, g.source.name)
    header = RunHeader(
        backend=b, harness_version=str(g.summary.get("harnessVersion", "")), date=str(g.summary.get("date", "")),
        machine=g.summary.get("machine", {}) or {}, command=_public_command(str(g.summary.get("command", ""))),
        source=g.source.name, seconds=next((e.get("seconds") for e in g.summary.get("backends", [])
                                            if backend_key(e.get("backend", {})) == backend_key(b)), None),
        incomplete=str(g.summary.get("_incomplete", "")),
        label=run_label,
    )
    run_command = recorded_run_command(g.summary)
    recorded = options_from_command(run_command) if len(g.summary.get("backends", [])) == 1 else None
    options = recorded if recorded is not None else options_from_settings(b)
    corpora = corpus_paths_from_command(run_command)
    counts, req, opt = Counter(), Counter(), Counter()
    for r in g.records:
        counts[r.status] += 1
        (req if r.required else opt)[r.status] += 1
    shown = tuple(ShownRecord(_without_local_paths(r),
                              published_rerun_command(r.backend, options, r.file, r.case, corpora))
                  for r in g.records if r.status != "pass" or is_tight_pass(r)
                  or r.wpt_verdict is not None or r.harness_verdict is not None)
    return RunPieces(
        header=header, run_name=run_name, rerun_options_derived=recorded is None,
        judge=str(g.summary.get("judge") or "harness"), counts=dict(counts), required=dict(req), optional=dict(opt),
        known_failures=sum(r.known_failure_seen for r in g.records),
        required_problems=sum(r.counts_against for r in g.records),
        ops=tuple(sorted({o for r in g.records for o in r.ops})),
        data_types=tuple(sorted({dt for r in g.records for dt in r.data_types})),
        cells=cell_counts(g.records), slack=tuple(slack_per_cell(g.records)), shown=shown, problems=tuple(g.problems))


def read_run_pieces(run_dir: Path) -> list[RunPieces]:
    """``read_run``'s groups as ``build_conformance`` takes them."""
    return [run_pieces(g) for g in read_run(run_dir)]


def build_conformance(runs: Sequence[RunPieces], ids: BackendIds) -> Conformance:
    # The same rows and columns for every backend, so their matrices line up.
    all_ops = list(operators())
    all_ops += sorted({o for g in runs for o in g.ops} - set(all_ops))
    extra_types = sorted({dt for g in runs for dt in g.data_types} - set(DATA_TYPES))
    data_types = tuple(DATA_TYPES) + tuple(extra_types)
    backends = []
    for g in runs:
        b = g.header.backend
        extra = json.dumps(b.get("settings", {}), sort_keys=True, default=str)
        bid = ids.get(str(b.get("name", "?")), str(b.get("version", "")), str(b.get("device", "")), extra, g.run_name)
        req, opt = Counter(g.required), Counter(g.optional)
        matrix = _matrix(g.cells, all_ops, data_types)
        problems = tuple(sorted((_problem(s.record, bid, s.command) for s in g.shown if s.record.status != "pass"),
                                key=problem_rank))
        backends.append(BackendConformance(
            backend=bid, header=g.header, total=g.total,
            counts={s: g.counts.get(s, 0) for s in STATUSES}, required={s: req[s] for s in STATUSES},
            optional={s: opt[s] for s in STATUSES},
            required_rate=rate(req["pass"], sum(req.values()) - req["skipped"]),
            optional_rate=rate(opt["pass"], sum(opt.values()) - opt["skipped"]),
            required_failing=sum(req[s] for s in BAD_STATUSES), required_unsupported=req["unsupported"],
            supported_rate=rate(req["pass"], sum(req.values()) - req["skipped"] - req["unsupported"]),
            known_failures=g.known_failures, required_problems=g.required_problems,
            data_types=data_types, matrix=matrix,
            ops_tested=sum(1 for _, cells in matrix if any(c.total for c in cells)),
            problems=problems, rerun_options_derived=g.rerun_options_derived,
            slack=slack_in_order(g.slack, all_ops, data_types),
            tight_passes=tight_passes(g.shown, bid),
            judge=g.judge, disagreements=judge_disagreements([s.record for s in g.shown]),
        ))
    problems = tuple(sorted((p for b in backends for p in b.problems), key=problem_rank))
    return Conformance(
        backends=tuple(backends), problems=problems,
        filter_ops=tuple(sorted({o for p in problems for o in p.ops})),
        filter_types=tuple(dt for dt in (*DATA_TYPES, *sorted({d for p in problems for d in p.data_types}
                                                            - set(DATA_TYPES)))
                           if any(dt in p.data_types for p in problems)),
        filter_statuses=tuple(s for s in STATUSES if any(p.status == s for p in problems)),
    )
