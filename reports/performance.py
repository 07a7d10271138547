"""Bench folders -> the performance model (plain frozen data, no HTML).

A bench folder is what ``webnn-harness bench`` writes (the output contract,
see harness/bench): ``bench.jsonl``, one record per benchmark x variant x
backend, and ``summary.json`` with the header (harness version, date, machine,
measured peaks). Everything the performance page shows is decided here: which
figure is a speed (only records with status "ok": a "wrong" result is never a
speed), the scenario ratios, the share of time inserted transposes cost, the
roofline fractions and the speed tiers the capability matrix shows.
"""
from __future__ import annotations

import json
import math
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from webnn_harness.backends import recorded_facts
from webnn_harness.outputs.bench_records import read_bench_folder
from webnn_harness.outputs.kinds import BENCH_FILE
from webnn_harness.outputs.rerun_commands import strip_local_paths
from webnn_harness.reports.capability import _version_key
from webnn_harness.reports.common import BackendId, BackendIds, ReportInputError
from webnn_harness.reports.profiles import FusionPair, NodeProfile, ProfileView, fusion_pairs, profile_views, read_profile

# Scenario ratios: each variant's median over the benchmark's baseline
# variant, the first of these the benchmark has (one graph doing all the work:
# "fused" for the interop scenarios, "graph" for op-by-op chains, "backend"
# for offload to the host).
BASELINE_VARIANTS = ("fused", "graph", "backend")
# The layout comparison: the graph authored nhwc with transposes inserted
# around the layout-sensitive ops runs those ops in nchw, so the difference
# from the nchw graph is what the transposes cost.
LAYOUT_VARIANTS = ("nchw", "nhwc", "nhwcTransposed")
TRANSPOSED, TRANSPOSED_TO = "nhwcTransposed", "nchw"
# A runtime that prefers nhwc (LiteRT, so Chromium's WebNN on Linux) inserts
# transposes around an nchw graph's layout-sensitive ops itself: what they
# cost is the nchw graph's median over the nhwc graph's, with its interval.
PREFERS_NHWC_COST = ("nchw", "nhwc")
# The browser's own cost beside the runtime it calls: the same whole graph,
# one dispatch a call, timed in the page (a backend whose facts name the
# runtime it runs on: BackendFacts.runtime) and through our backend on that
# runtime, on the same machine.
ONE_DISPATCH_VARIANTS = ("graph", "fused", "backend")
# Bootstrap of a difference of medians: resamples and the interval's level.
RESAMPLES, INTERVAL = 2000, 0.95
# Speed tiers on the capability matrix: an op x data type that is supported
# but at least this many times slower than its float32 twin on the same
# backend is marked. 3x, because a data type that merely halves the memory
# traffic should be faster, not slower, and run-to-run noise on a shared
# machine stays well under 2x; a factor of 3 or more means the backend
# converts or emulates (float16 on a CPU without FP16 arithmetic).
SLOW_TIER_FACTOR = 3.0
# A first run does one-time work (allocation, kernel selection, caches), so one
# under half the steady-state median means the timed runs were slowed (issue 28:
# a host variant's first run at 0.07x its median); the page says so.
FIRST_RUN_FAST = 0.5
# A backend says its thread count and precision label in its info (BackendInfo
# threads and precision, in each record's backend). Records written before it
# did, which archives keep, say them only in their settings, under the keys its
# facts declare (BackendFacts.thread_settings, precision_settings): read there
# when the backend says nothing.

# --------------------------------------------------------------------------- records


@dataclass(frozen=True)
class Latency:
    median: float
    mean: float | None
    min: float | None
    max: float | None
    p90: float | None
    iqr: float | None
    cv: float | None
    samples: int
    times: tuple[float, ...]
    cpu_median: float | None = None  # process CPU seconds per call, every thread (older records: None)


@dataclass(frozen=True)
class Published:
    seconds: float
    source: str


@dataclass(frozen=True)
class BenchResult:
    """One bench record (harness/outputs/bench_records.py ``BenchRecord``, the one contract of a line of
    bench.jsonl) as the pages read it: its figures typed and the record placed in a column and a run."""

    column: str  # BenchColumn.backend.slug
    run: int  # index into PerformanceModel.runs: the folder it came from
    benchmark: str
    suite: str
    kind: str  # op | scenario | transfer
    variant: str
    title: str
    op: str
    data_type: str
    workload: str
    params: Mapping[str, Any]
    status: str  # ok | wrong | unsupported | error | crash | timeout
    message: str
    build_seconds: float | None
    first_run_seconds: float | None
    latency: Latency | None
    flops: int | None
    bytes: int | None
    transfer_bytes: int | None
    artifact: str
    verification: Mapping[str, Any] | None
    published: Published | None
    profile: NodeProfile | None = None  # bench --profile (reports/profiles.py)

    @property
    def is_speed(self) -> bool:
        """Only a verified, measured record is a speed; "wrong" never is."""
        return self.status == "ok" and self.latency is not None and self.latency.median > 0

    @property
    def seconds(self) -> float | None:
        return self.latency.median if self.is_speed else None

    @property
    def flops_per_second(self) -> float | None:
        return self.flops / self.latency.median if self.is_speed and self.flops else None

    @property
    def bytes_per_second(self) -> float | None:
        moved = self.transfer_bytes if self.kind == "transfer" and self.transfer_bytes else self.bytes
        return moved / self.latency.median if self.is_speed and moved else None

    @property
    def problem(self) -> str:
        """What to show instead of a speed: the status and its message."""
        if self.is_speed:
            return ""
        if self.status == "wrong" and self.verification:
            v = self.verification
            detail = f"max error {v.get('maxError')} {v.get('metric') or ''} (budget {v.get('budget')})"
            return f"wrong: {detail}" + (f"; {self.message}" if self.message else "")
        if self.status == "ok":
            return "ok, but no latency was recorded"
        return f"{self.status}: {self.message}" if self.message else self.status


@dataclass(frozen=True)
class Peaks:
    bandwidth: float | None  # bytes per second
    flops: float | None  # float32 flops per second
    method: str
    threads: Any
    noise_cv: float | None = None  # the machine's own spread (harness/bench/machine.py measure_noise)
    noise_seconds: float | None = None  # the noise workload's median call
    noise_method: str = ""

    @property
    def noisy(self) -> bool:
        """The machine's own spread is beyond what a change must pass (bench/regressions.py NOISY_CV)."""
        from webnn_harness.bench.regressions import is_noisy

        return is_noisy(self.noise_cv)


@dataclass(frozen=True)
class BenchColumn:
    """One backend build with one set of settings: a column of every table.
    Bench folders of the same backend that measured different benchmarks
    (two suites) share a column; a benchmark measured twice makes a second
    column, so no figure hides another."""

    backend: BackendId
    settings: Mapping[str, Any]
    threads: str
    precision: str
    runs: tuple[int, ...]  # indexes into PerformanceModel.runs
    machine: str = ""  # the machine that timed it (a column never mixes machines)
    host_cpu: bool = True  # False: timed on an accelerator, which the host's peaks do not bound


@dataclass(frozen=True)
class BenchRun:
    """One bench folder's header, without its local path; for a bench on a
    Ray cluster, one per node that timed (its own machine and peaks)."""

    label: str  # suite and date
    suite: str
    harness_version: str
    date: str
    command: str
    machine: Mapping[str, Any]
    peaks: Peaks
    timer_overhead: float | None
    complete: bool
    counts: Mapping[str, int]
    backends: tuple[Mapping[str, Any], ...]
    load_errors: tuple[str, ...]  # suite entries the bench could not load (summary "loadErrors")


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _integer(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _latency(raw: Any) -> Latency | None:
    if not isinstance(raw, Mapping) or _number(raw.get("median")) is None:
        return None
    times = tuple(t for t in (_number(x) for x in raw.get("times") or ()) if t is not None)
    return Latency(median=float(raw["median"]), mean=_number(raw.get("mean")), min=_number(raw.get("min")),
                   max=_number(raw.get("max")), p90=_number(raw.get("p90")), iqr=_number(raw.get("iqr")),
                   cv=_number(raw.get("cv")), samples=_integer(raw.get("samples")) or len(times), times=times,
                   cpu_median=_number(raw.get("cpuMedian")))


def _setting(settings: Mapping[str, Any], keys: Sequence[str]) -> str:
    for key in keys:
        if settings.get(key) not in (None, ""):
            return str(settings[key])
    return ""


def read_record(raw: Mapping[str, Any], column: str, run: int, where: str) -> BenchResult:
    for key in ("benchmark", "variant", "status"):
        if not isinstance(raw.get(key), str):
            raise ReportInputError(f"{where}: field {key!r} is missing or not a string")
    params = raw.get("params") if isinstance(raw.get("params"), Mapping) else {}
    published = raw.get("published")
    return BenchResult(
        column=column, run=run, benchmark=raw["benchmark"], suite=str(raw.get("suite") or ""),
        kind=str(raw.get("kind") or ""), variant=raw["variant"], title=str(raw.get("title") or raw["benchmark"]),
        op=str(raw.get("op") or ""), data_type=str(raw.get("dataType") or ""),
        workload=str(params.get("workload") or ""), params=params, status=raw["status"],
        message=strip_local_paths(str(raw.get("message") or "")),
        build_seconds=_number(raw.get("buildSeconds")), first_run_seconds=_number(raw.get("firstRunSeconds")),
        latency=_latency(raw.get("latency")), flops=_integer(raw.get("flops")), bytes=_integer(raw.get("bytes")),
        transfer_bytes=_integer(raw.get("transferBytes")), artifact=str(raw.get("artifact") or ""),
        verification=raw.get("verification") if isinstance(raw.get("verification"), Mapping) else None,
        published=(Published(float(published["seconds"]), str(published.get("source") or ""))
                   if isinstance(published, Mapping) and _number(published.get("seconds")) is not None else None),
        profile=read_profile(raw.get("profile"), where),
    )


def _mapping(raw: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    return raw.get(key) if isinstance(raw.get(key), Mapping) else {}


def _node(raw: Mapping[str, Any]) -> Mapping[str, Any]:
    """The node a record was timed on (bench --executor ray); {} when local."""
    return _mapping(raw, "node")


def _run(summary: Mapping[str, Any], records: Sequence[Mapping[str, Any]]) -> BenchRun:
    """The run of ``records``; when they were timed on a Ray node, the
    machine, peaks and timer overhead are that node's, not the header's."""
    header = _mapping(summary, "header")
    node = _node(records[0]) if records else {}
    where = node or header
    peaks = _mapping(where, "peaks")
    noise = _mapping(peaks, "noise")
    suite = str(summary.get("suite") or next((r.get("suite") for r in records if r.get("suite")), ""))
    date = str(header.get("date") or "")
    counts: dict[str, int] = defaultdict(int)
    for r in records:
        counts[str(r.get("status"))] += 1
    machine = _mapping(where, "machine")
    on_node = f" on {machine.get('hostname') or '?'} (Ray node {str(node.get('id'))[:8]})" if node else ""
    return BenchRun(
        label=f"{suite or 'bench'} {date[:16].replace('T', ' ')}{on_node}".strip(), suite=suite,
        harness_version=str(header.get("harnessVersion") or ""), date=date,
        command=strip_local_paths(str(header.get("command") or "")),
        machine={k: strip_local_paths(v) if isinstance(v, str) else v for k, v in machine.items()},
        peaks=Peaks(bandwidth=_number(peaks.get("memoryBandwidthBytesPerSecond")),
                    flops=_number(peaks.get("float32FlopsPerSecond")), method=str(peaks.get("method") or ""),
                    threads=peaks.get("threads"), noise_cv=_number(noise.get("cv")),
                    noise_seconds=_number(noise.get("medianSeconds")), noise_method=str(noise.get("method") or "")),
        timer_overhead=_number(where.get("timerOverheadSeconds")),
        # No summary, or one without "complete": the bench did not finish.
        complete=summary.get("complete") is True, counts=dict(counts),
        backends=tuple(b for b in summary.get("backends") or () if isinstance(b, Mapping)),
        load_errors=tuple(strip_local_paths(str(e)) for e in summary.get("loadErrors") or ()),
    )


# --------------------------------------------------------------------------- derived figures


@dataclass(frozen=True)
class Cell:
    """One record in a table cell: a speed, or the reason there is none."""

    record: BenchResult | None

    @property
    def seconds(self) -> float | None:
        return self.record.seconds if self.record else None


@dataclass(frozen=True)
class Row:
    """One benchmark x variant across every column."""

    benchmark: str
    variant: str
    title: str
    op: str
    data_type: str
    workload: str
    cells: tuple[Cell, ...]  # in PerformanceModel.columns order


@dataclass(frozen=True)
class Ratio:
    """A variant's median over the baseline variant's, on one column."""

    benchmark: str
    title: str
    column: str
    variant: str
    baseline: str
    seconds: float | None
    baseline_seconds: float | None
    ratio: float | None  # None when either side is not a speed
    problem: str  # why there is no ratio


@dataclass(frozen=True)
class RatioRow:
    """One scenario variant's ratios to its baseline, one per column."""

    benchmark: str
    title: str
    variant: str
    baseline: str
    cells: tuple[Ratio | None, ...]  # in PerformanceModel.columns order


@dataclass(frozen=True)
class PublishedRow:
    """A variant with a published figure, beside ours."""

    row: Row
    published: Published
    baseline: str  # the variant the ratios divide by
    published_ratio: float | None  # published / the published baseline variant's figure
    ratios: tuple[Ratio | None, ...]  # ours, per column, to the same baseline

    @property
    def is_baseline(self) -> bool:
        return self.row.variant == self.baseline


@dataclass(frozen=True)
class Difference:
    """One median minus another and its bootstrap interval (INTERVAL level)."""

    seconds: float
    low: float
    high: float

    @property
    def excludes_zero(self) -> bool:
        return self.low > 0 or self.high < 0


def median_difference(a: Sequence[float], b: Sequence[float], resamples: int = RESAMPLES,
                      seed: int = 0) -> Difference | None:
    """median(a) - median(b), with the percentile bootstrap interval of it
    (both sample sets resampled, a fixed seed: the page is reproducible);
    None without two samples on each side."""
    import numpy as np

    if len(a) < 2 or len(b) < 2:
        return None
    rng = np.random.default_rng(seed)
    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    diffs = (np.median(rng.choice(xa, (resamples, xa.size)), axis=1)
             - np.median(rng.choice(xb, (resamples, xb.size)), axis=1))
    tail = (1 - INTERVAL) / 2 * 100
    low, high = np.percentile(diffs, [tail, 100 - tail])
    return Difference(float(np.median(xa) - np.median(xb)), float(low), float(high))


def _record_difference(a: BenchResult | None, b: BenchResult | None) -> Difference | None:
    if a is None or b is None or not a.is_speed or not b.is_speed:
        return None
    return median_difference(a.latency.times, b.latency.times)


@dataclass(frozen=True)
class BrowserOverhead:
    """One whole graph (one dispatch a call) timed in the browser and through
    our backend on the runtime the browser calls, on the same machine: what
    the browser adds per dispatch (IPC, validation, its tensor copies)."""

    benchmark: str
    variant: str
    workload: str
    browser: str  # column slug
    runtime: str  # column slug
    browser_cell: Cell
    runtime_cell: Cell
    per_dispatch: Difference | None  # browser - runtime


@dataclass(frozen=True)
class LayoutCost:
    """One workload on one column: the three layouts and what the transposes cost."""

    benchmark: str
    workload: str
    column: str
    nchw: Cell
    nhwc: Cell
    transposed: Cell
    transpose_seconds: float | None  # transposed - nchw
    transpose_share: float | None  # (transposed - nchw) / transposed
    within_spread: bool  # the difference is smaller than the larger IQR of the two
    preferred: str  # the faster of nchw and nhwc, "" when unknown
    nchw_over_nhwc: Difference | None = None  # nchw - nhwc: the transposes an nhwc runtime inserts itself


@dataclass(frozen=True)
class RooflinePoint:
    benchmark: str
    variant: str
    column: str
    data_type: str
    intensity: float  # flops per byte
    achieved: float  # flops per second
    bound: float  # min(peak flops, intensity * peak bandwidth)
    fraction: float  # achieved / bound
    memory_bound: bool  # the bandwidth roof is the lower one at this intensity

    @property
    def above_roof(self) -> bool:
        """Faster than the measured roof allows: the peak was measured low (a
        busy machine), or the backend did less work than the cost functions
        count (it folded or skipped operations)."""
        return self.fraction > 1


@dataclass(frozen=True)
class Roof:
    """One roofline chart: the points timed under one pair of peaks. The
    host CPU's columns of a bench folder share the peaks the bench measured
    on its machine; a column timed on an accelerator is drawn under the
    peaks it attained itself in the ``peaks`` suite (kind "peak")."""

    label: str
    peaks: Peaks
    source: str  # "machine" (the bench's host peaks) | "backend" (the column's own peak benchmarks)
    points: tuple[RooflinePoint, ...]


@dataclass(frozen=True)
class SpeedTier:
    """An op x data type far slower than its float32 twin on the same backend."""

    backend: BackendId
    op: str
    data_type: str
    benchmark: str
    factor: float  # median / float32 twin's median


SLOWEST_SHOWN = 5


@dataclass(frozen=True)
class PerformanceModel:
    runs: tuple[BenchRun, ...]
    columns: tuple[BenchColumn, ...]
    records: tuple[BenchResult, ...]
    op_rows: tuple[Row, ...]  # kind "op"
    scenario_rows: tuple[Row, ...]  # kind "scenario"
    transfer_rows: tuple[Row, ...]  # kind "transfer"
    published_rows: tuple[PublishedRow, ...]  # rows with a published figure
    ratios: tuple[Ratio, ...]
    ratio_rows: tuple[RatioRow, ...]
    layout: tuple[LayoutCost, ...]
    browser_overheads: tuple[BrowserOverhead, ...]  # the browser beside the runtime it calls, per dispatch
    roofline: tuple[Roof, ...]  # host columns per bench folder (machine peaks), then accelerator columns
    unroofed: tuple[BenchColumn, ...]  # accelerator columns with no peak benchmarks: not drawn
    speed_tiers: tuple[SpeedTier, ...]
    profiles: tuple[ProfileView, ...] = ()  # bench --profile: per-node breakdowns
    changes: tuple[tuple[str, str, Any], ...] = ()  # significant_changes
    problems: tuple[str, ...] = ()  # lines of bench.jsonl that were skipped (harness/outputs/bench_records.py)

    @property
    def has_bench(self) -> bool:
        return bool(self.records)

    @property
    def fusion_pairs(self) -> tuple[FusionPair, ...]:
        """Profiled op-by-op variants beside their fused graphs (reports/profiles.py)."""
        return fusion_pairs(self.profiles)

    @property
    def slowest(self) -> tuple[BenchResult, ...]:
        """The longest medians, the first thing the page answers (issue 28)."""
        return tuple(sorted((r for r in self.records if r.is_speed), key=lambda r: -r.seconds)[:SLOWEST_SHOWN])

    def run_columns(self, run: int) -> tuple[BenchColumn, ...]:
        """The backends a bench folder measured."""
        return tuple(c for c in self.columns if run in c.runs)

    def column(self, slug: str) -> BenchColumn:
        return next(c for c in self.columns if c.backend.slug == slug)


def _grid(items: Iterable[Any], columns: Sequence[BenchColumn]) -> list[tuple[Any, tuple[Any, ...]]]:
    """Items (records or ratios) by (benchmark, variant) in first-seen order:
    (the first item, then one item or None per column)."""
    grouped: dict[tuple[str, str], dict[str, Any]] = {}
    for item in items:
        grouped.setdefault((item.benchmark, item.variant), {})[item.column] = item
    return [(next(iter(by_column.values())), tuple(by_column.get(c.backend.slug) for c in columns))
            for by_column in grouped.values()]


def rows(records: Iterable[BenchResult], columns: Sequence[BenchColumn]) -> tuple[Row, ...]:
    """One row per (benchmark, variant), first-seen order, one cell per column."""
    return tuple(Row(first.benchmark, first.variant, first.title, first.op, first.data_type, first.workload,
                     tuple(Cell(r) for r in cells)) for first, cells in _grid(records, columns))


def scenario_ratios(records: Iterable[BenchResult]) -> tuple[Ratio, ...]:
    by_benchmark: dict[tuple[str, str], dict[str, BenchResult]] = {}
    for r in records:
        if r.kind == "scenario" and r.variant not in LAYOUT_VARIANTS:
            by_benchmark.setdefault((r.column, r.benchmark), {})[r.variant] = r
    out = []
    for (column, benchmark), variants in by_benchmark.items():
        baseline = next((v for v in BASELINE_VARIANTS if v in variants), None)
        if baseline is None:
            continue
        base = variants[baseline]
        for variant, r in variants.items():
            if variant == baseline:
                continue
            problem = r.problem or (f"{baseline} {base.problem}" if base.problem else "")
            ratio = r.seconds / base.seconds if not problem else None
            out.append(Ratio(benchmark, r.title, column, variant, baseline, r.seconds, base.seconds, ratio, problem))
    return tuple(out)


def ratio_grid(ratios: Sequence[Ratio], columns: Sequence[BenchColumn]) -> tuple[RatioRow, ...]:
    return tuple(RatioRow(first.benchmark, first.title, first.variant, first.baseline, cells)
                 for first, cells in _grid(ratios, columns))


def published_rows(rows_: Sequence[Row], records: Sequence[BenchResult], ratios: Sequence[RatioRow]
                   ) -> tuple[PublishedRow, ...]:
    """Rows that carry a published figure, with the published ratio to the
    same baseline variant our ratios use (ratios travel between machines
    better than seconds do)."""
    published = {(r.benchmark, r.variant): r.published for r in records if r.published}
    ours = {(r.benchmark, r.variant): r for r in ratios}
    out = []
    for row in rows_:
        figure = published.get((row.benchmark, row.variant))
        if figure is None:
            continue
        ratio_row = ours.get((row.benchmark, row.variant))
        baseline = ratio_row.baseline if ratio_row else next(
            (v for v in BASELINE_VARIANTS if (row.benchmark, v) in published), None)
        base_figure = published.get((row.benchmark, baseline)) if baseline else None
        out.append(PublishedRow(
            row, figure, baseline or "", figure.seconds / base_figure.seconds if base_figure else None,
            ratio_row.cells if ratio_row else tuple(None for _ in row.cells)))
    return tuple(out)


def layout_costs(records: Iterable[BenchResult]) -> tuple[LayoutCost, ...]:
    groups: dict[tuple[str, str, str], dict[str, BenchResult]] = {}
    for r in records:
        if r.variant in LAYOUT_VARIANTS:
            groups.setdefault((r.column, r.benchmark, r.workload), {})[r.variant] = r
    out = []
    for (column, benchmark, workload), variants in groups.items():
        if TRANSPOSED not in variants:
            continue
        native, transposed = variants.get(TRANSPOSED_TO), variants[TRANSPOSED]
        cost = share = None
        within = False
        if native and native.is_speed and transposed.is_speed:
            cost = transposed.seconds - native.seconds
            share = cost / transposed.seconds
            spread = max(native.latency.iqr or 0.0, transposed.latency.iqr or 0.0)
            within = abs(cost) < spread
        timed = {v: variants[v].seconds for v in ("nchw", "nhwc") if v in variants and variants[v].is_speed}
        preferred = min(timed, key=timed.get) if len(timed) == 2 else ""
        inserted = _record_difference(*(variants.get(v) for v in PREFERS_NHWC_COST))
        out.append(LayoutCost(benchmark, workload, column, Cell(native), Cell(variants.get("nhwc")), Cell(transposed),
                              cost, share, within, preferred, inserted))
    return tuple(out)


def browser_overheads(records: Iterable[BenchResult], columns: Sequence[BenchColumn]) -> tuple[BrowserOverhead, ...]:
    """Every whole graph timed on a browser's column and a column of the
    runtime it runs on (its facts' ``runtime``: Chromium on the CPU, LiteRT)
    of the same machine, op benchmarks first, smallest work first."""
    by_column = {c.backend.slug: c for c in columns}
    names = {c.backend.name for c in columns}
    runs_on = {n: rt for n in names if (rt := _runtime_of(n)) in names and rt != n}  # browser -> runtime
    found: dict[tuple[str, str], dict[str, list[BenchResult]]] = defaultdict(lambda: {"browser": [], "runtime": []})
    for r in records:
        name = by_column[r.column].backend.name if r.column in by_column else ""
        if r.variant not in ONE_DISPATCH_VARIANTS or not r.is_speed:
            continue
        if name in runs_on:
            found[(r.benchmark, r.variant)]["browser"].append(r)
        if name in runs_on.values():
            found[(r.benchmark, r.variant)]["runtime"].append(r)
    out = []
    for (benchmark, variant), sides in found.items():
        for browser in sides["browser"]:
            for runtime in sides["runtime"]:
                if _runtime_of(by_column[browser.column].backend.name) != by_column[runtime.column].backend.name:
                    continue
                if by_column[browser.column].machine != by_column[runtime.column].machine:
                    continue
                out.append(BrowserOverhead(benchmark, variant, browser.workload, browser.column, runtime.column,
                                           Cell(browser), Cell(runtime), _record_difference(browser, runtime)))
    work = {(r.benchmark, r.variant): (r.kind != "op", r.flops or 0) for r in records}
    return tuple(sorted(out, key=lambda o: (*work[(o.benchmark, o.variant)], o.benchmark, o.browser, o.runtime)))


def roofline_point(r: BenchResult, peaks: Peaks) -> RooflinePoint | None:
    """Where a record sits under its machine's roofline: attainable flops at
    its arithmetic intensity are min(peak flops, intensity * peak bandwidth)."""
    if not (r.is_speed and r.flops and r.bytes and peaks.flops and peaks.bandwidth):
        return None
    intensity = r.flops / r.bytes
    achieved = r.flops / r.latency.median
    bound = min(peaks.flops, intensity * peaks.bandwidth)
    return RooflinePoint(r.benchmark, r.variant, r.column, r.data_type, intensity, achieved, bound,
                         achieved / bound, intensity * peaks.bandwidth < peaks.flops)


def backend_peaks(records: Iterable[BenchResult]) -> Peaks | None:
    """A column's own roofs from its peak benchmarks (the ``peaks`` suite):
    the best flop rate of those marked ``peak: flops`` and the best rate of
    bytes read and written of those marked ``peak: bandwidth``; None unless
    both were measured."""
    flops, bandwidth, named = [], [], []
    for r in records:
        if r.kind != "peak":
            continue
        if r.params.get("peak") == "flops" and r.flops_per_second:
            flops.append(r.flops_per_second)
            named.append(r.benchmark)
        elif r.params.get("peak") == "bandwidth" and r.bytes_per_second:
            bandwidth.append(r.bytes_per_second)
            named.append(r.benchmark)
    if not flops or not bandwidth:
        return None
    return Peaks(bandwidth=max(bandwidth), flops=max(flops), threads=None,
                 method=f"the backend's own, on its device: {', '.join(sorted(named))} (inputs resident, "
                        "outputs left on the device; cost-function flops and bytes over the median)")


def roofs(records: Sequence[BenchResult], runs: Sequence[BenchRun],
          columns: Sequence[BenchColumn]) -> tuple[tuple[Roof, ...], tuple[BenchColumn, ...]]:
    """The roofline charts: per bench folder, its host-CPU columns under the
    machine's peaks; per accelerator column, its points under the peaks it
    measured itself (the host's peaks bound no accelerator). Accelerator
    columns without peak benchmarks are returned apart, undrawn."""
    host = {c.backend.slug for c in columns if c.host_cpu}
    on_machine = lambda r: r.column in host or r.variant == "host"  # noqa: E731 - a host variant is numpy on the host CPU
    by_run: dict[int, list[RooflinePoint]] = defaultdict(list)
    for r in records:
        if on_machine(r) and r.kind != "peak" and (point := roofline_point(r, runs[r.run].peaks)):
            by_run[r.run].append(point)
    out = [Roof(runs[run].label, runs[run].peaks, "machine", tuple(points)) for run, points in sorted(by_run.items())]
    unroofed = []
    for column in columns:
        if column.host_cpu:
            continue
        own = [r for r in records if r.column == column.backend.slug]
        peaks = backend_peaks(own)
        if peaks is None:
            unroofed.append(column)
            continue
        points = tuple(p for r in own if r.kind != "peak" and not on_machine(r) and (p := roofline_point(r, peaks)))
        out.append(Roof(f"{column.backend.label} ({column.machine})" if column.machine else column.backend.label,
                        peaks, "backend", points))
    return tuple(out), tuple(unroofed)


def _twin_key(r: BenchResult) -> tuple:
    params = {k: v for k, v in r.params.items() if k != "dataType"}
    return r.column, r.op, r.variant, json.dumps(params, sort_keys=True, default=str)


def speed_tiers(records: Iterable[BenchResult], columns: Sequence[BenchColumn]) -> tuple[SpeedTier, ...]:
    """Per-op benchmarks at least SLOW_TIER_FACTOR times slower than the float32
    benchmark of the same op, variant and parameters on the same column."""
    ops = [r for r in records if r.kind == "op" and r.op and r.is_speed]
    float32 = {_twin_key(r): r for r in ops if r.data_type == "float32"}
    backend = {c.backend.slug: c.backend for c in columns}
    out = []
    for r in ops:
        twin = float32.get(_twin_key(r))
        if r.data_type == "float32" or twin is None:
            continue
        factor = r.seconds / twin.seconds
        if factor >= SLOW_TIER_FACTOR:
            out.append(SpeedTier(backend[r.column], r.op, r.data_type, r.benchmark, factor))
    return tuple(out)


# --------------------------------------------------------------------------- assembly


def _backend_key(raw: Mapping[str, Any]) -> tuple[str, str, str, Mapping[str, Any]]:
    backend = raw.get("backend") if isinstance(raw.get("backend"), Mapping) else {}
    settings = backend.get("settings") if isinstance(backend.get("settings"), Mapping) else {}
    return (str(backend.get("name") or "?"), str(backend.get("version") or ""), str(backend.get("device") or ""),
            settings)


def _host_cpu(raw: Mapping[str, Any]) -> bool:
    backend = raw.get("backend") if isinstance(raw.get("backend"), Mapping) else {}
    return backend.get("hostCpu", True) is not False


def threads_and_precision(raw: Mapping[str, Any]) -> tuple[str, str]:
    """The thread count and precision label a record's backend said
    (BackendInfo), each else read from its settings under the keys its facts
    declare (BackendFacts thread_settings, precision_settings); "" where
    neither says."""
    backend = raw.get("backend") if isinstance(raw.get("backend"), Mapping) else {}
    settings = backend.get("settings") if isinstance(backend.get("settings"), Mapping) else {}
    facts = recorded_facts(str(backend.get("name") or ""))
    return (_setting(backend, ("threads",)) or _setting(settings, facts.thread_settings),
            _setting(backend, ("precision",)) or _setting(settings, facts.precision_settings))


def _runtime_of(name: str) -> str | None:
    """The backend whose runtime ``name`` runs on, as its facts declare (None: its own, or not installed)."""
    return recorded_facts(name).runtime


def machine_label(machine: Mapping[str, Any]) -> str:
    """A machine in a few words: host, CPU and cores."""
    cores = f"{machine['cores']} cores" if machine.get("cores") else ""
    return ", ".join(str(p) for p in (machine.get("hostname"), machine.get("cpu"), cores) if p)


def build_performance(folders: Sequence[Path], ids: BackendIds | None = None) -> PerformanceModel:
    ids = ids or BackendIds()
    runs: list[BenchRun] = []
    records: list[BenchResult] = []
    # Columns by backend identity (name, version, device, settings), each with
    # the (benchmark, variant) pairs it holds and the runs it came from.
    columns: dict[str, tuple[BackendId, Mapping[str, Any], set, list, bool, tuple[str, str]]] = {}
    by_identity: dict[str, list[str]] = defaultdict(list)
    folder_labels: dict[Path, str] = {}
    problems: list[str] = []
    for folder in folders:
        # Read as every command reads it (harness/outputs/bench_records.py): a line that cannot be read, such
        # as the truncated last line of an interrupted bench, is skipped; the summary's "complete" says
        # whether the run finished.
        bench = read_bench_folder(folder, problems.append)
        summary, raw_records = bench.summary, bench.records
        # A bench on a Ray cluster is one run per node: each node's machine and peaks.
        by_node: dict[str, list[tuple[int, Mapping[str, Any]]]] = {"": []} if not raw_records else {}
        for number, raw in raw_records:
            by_node.setdefault(str(_node(raw).get("id") or ""), []).append((number, raw))
        for node_records in by_node.values():
            index = len(runs)
            runs.append(_run(summary, [r for _, r in node_records]))
            folder_labels.setdefault(folder, f"{folder.name}: {runs[index].label}")
            groups: dict[str, list[tuple[int, Mapping[str, Any]]]] = defaultdict(list)
            for number, raw in node_records:
                # The machine is part of a column's identity: figures of two machines never share a column.
                identity = json.dumps([*_backend_key(raw), runs[index].machine], sort_keys=True, default=str)
                groups[identity].append((number, raw))
            for identity, group in groups.items():
                pairs = {(raw.get("benchmark"), raw.get("variant")) for _, raw in group}
                slug = next((s for s in by_identity[identity] if not columns[s][2] & pairs), None)
                if slug is None:
                    name, version, device, settings = _backend_key(group[0][1])
                    bid = ids.get(name, version, device, f"{identity}#{len(by_identity[identity])}")
                    slug = bid.slug
                    columns[slug] = (bid, settings, set(), [], _host_cpu(group[0][1]),
                                     threads_and_precision(group[0][1]))
                    by_identity[identity].append(slug)
                columns[slug][2].update(pairs)
                columns[slug][3].append(index)
                for number, raw in group:
                    try:  # a malformed line (its profile, say) is left out alone, with one line, as a skipped line is
                        records.append(read_record(raw, slug, index, f"{folder.name}/{BENCH_FILE} line {number}"))
                    except ReportInputError as exc:
                        problems.append(f"{exc}; the line is left out")
    built = []
    for bid, settings, _, run_indexes, host_cpu, (threads, precision) in columns.values():
        first = runs[run_indexes[0]]
        threads = threads or (str(first.peaks.threads) if first.peaks.threads else "")
        built.append(BenchColumn(bid, settings, threads, precision, tuple(run_indexes),
                                 machine_label(first.machine), host_cpu))
    ordered = tuple(sorted(built, key=lambda c: (c.backend.name, _version_key(c.backend.version), c.runs,
                                                 c.backend.slug)))
    op_rows = rows((r for r in records if r.kind == "op"), ordered)
    scenario_rows = rows((r for r in records if r.kind not in ("op", "transfer")), ordered)  # peaks too
    transfer_rows = rows((r for r in records if r.kind == "transfer"), ordered)
    ratios = scenario_ratios(records)
    ratio_rows = ratio_grid(ratios, ordered)
    roofline, unroofed = roofs(records, runs, ordered)
    return PerformanceModel(
        runs=tuple(runs), columns=ordered, records=tuple(records), op_rows=op_rows, scenario_rows=scenario_rows,
        transfer_rows=transfer_rows,
        published_rows=published_rows(scenario_rows + op_rows, records, ratio_rows),
        ratios=ratios, ratio_rows=ratio_rows, layout=layout_costs(records),
        browser_overheads=browser_overheads(records, ordered),
        roofline=roofline, unroofed=unroofed, speed_tiers=speed_tiers(records, ordered), problems=tuple(problems),
        profiles=profile_views(records),
        changes=significant_changes(folders, folder_labels),
    )


SIGNIFICANT = ("slower", "broken", "faster", "fixed")


def significant_changes(folders: Sequence[Path], labels: Mapping[Path, str]) -> tuple[tuple[str, str, Any], ...]:
    """(earlier folder's label, later folder's label, Change) for each benchmark that changed
    significantly between two bench folders given one after the other that
    share benchmarks, judged as ``bench --baseline`` judges (Mann-Whitney U,
    p < 0.01, beyond 5%): the answer a page of two benches leads with."""
    from webnn_harness.bench.regressions import compare_bench

    out = []
    for base, new in zip(folders, folders[1:]):
        try:
            comparison = compare_bench(base, new)
        except (ValueError, ImportError):  # an unreadable folder is reported elsewhere; no scipy: no test
            continue
        shared = [c for c in comparison.changes if c.verdict not in ("missing", "added")]
        out += [(labels.get(base, base.name), labels.get(new, new.name), c) for c in shared if c.verdict in SIGNIFICANT]
    return tuple(out)


def tiers_by_probe(tiers: Iterable[SpeedTier], probes: Iterable[Any]) -> Mapping[tuple[str, str], tuple[SpeedTier, ...]]:
    """(probe slug, op) -> the speed tiers of that backend and op, matching a
    bench column to a probe column by backend name, version and device (the
    same backend build measured twice)."""
    out: dict[tuple[str, str], list[SpeedTier]] = defaultdict(list)
    for probe in probes:
        b = probe.backend
        for tier in tiers:
            if (tier.backend.name, tier.backend.version, tier.backend.device) == (b.name, b.version, b.device):
                out[(b.slug, tier.op)].append(tier)
    return {k: tuple(v) for k, v in out.items()}
