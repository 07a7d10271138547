"""The performance page's charts: matplotlib figures written as SVG text.

No pyplot and no GUI: a bare ``Figure`` draws straight to the SVG backend, so
nothing here touches matplotlib's global backend or needs a display. Output is
deterministic (fixed ID salt, no date or other metadata), offline (text stays
text in the page's own fonts; no images, links or DTD), so the same bench
folders give byte-identical charts.
"""
from __future__ import annotations

import io
import re
from statistics import median
from typing import Any, Mapping, Sequence

from webnn_harness.files.writes import xml_text
from webnn_harness.reports.performance import Peaks, PerformanceModel, RooflinePoint

# SVG settings: a fixed salt makes the generated element IDs repeatable;
# fonttype "none" keeps labels as <text> (small, searchable, selectable).
# text.parse_math off: a benchmark or backend name with "$...$" (from a file) is drawn as written, never
# parsed as mathtext (which raises on what it cannot parse).
RC = {"svg.hashsalt": "webnn-harness", "svg.fonttype": "none", "font.size": 9,
      "axes.spines.top": False, "axes.spines.right": False, "text.parse_math": False}
# Every metadata key matplotlib would write, unset: no date (repeatable
# output), no Dublin Core URIs (no external references).
NO_METADATA = {"Date": None, "Creator": None, "Format": None, "Type": None}
COLORS = ("#2f5fb3", "#d0463f", "#3a9d5d", "#b7791f", "#6b4fbb", "#2478a8", "#667085", "#c2185b")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
# Label points on a roofline only while they stay readable.
MAX_LABELLED_POINTS = 24
# Samples drawn as dots per box: a fast op gives thousands, which would make
# a megabyte of SVG; evenly spaced order statistics keep the shape. The box
# itself is always computed from every sample.
MAX_STRIP_POINTS = 200


def _svg(fig) -> str:
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context(RC):
        fig.savefig(buffer, format="svg", metadata=NO_METADATA)
    text = buffer.getvalue()
    # The DOCTYPE names the SVG 1.1 DTD by URL; browsers never need it.
    return re.sub(r"<!DOCTYPE[^>]*>\s*", "", text)


def _figure(width: float, height: float):
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(width, height), layout="constrained")
        ax = fig.add_subplot()
    return fig, ax


# Every label drawn (names from bench files) goes through xml_text: a control character would make the
# SVG invalid XML (and has no glyph), so it is drawn visibly as \\xNN instead.
def roofline_svg(points: Sequence[RooflinePoint], peaks: Peaks, labels: Mapping[str, str]) -> str:
    """Achieved flop rate against arithmetic intensity, log-log, under the
    machine's two roofs (memory bandwidth and float32 peak). ``labels`` maps
    a column slug to the backend's label."""
    import matplotlib

    with matplotlib.rc_context(RC):
        fig, ax = _figure(7.5, 4.6)
        ridge = peaks.flops / peaks.bandwidth
        lo = min([p.intensity for p in points] + [ridge]) / 4
        hi = max([p.intensity for p in points] + [ridge]) * 4
        ax.plot([lo, ridge, hi], [lo * peaks.bandwidth / 1e9, peaks.flops / 1e9, peaks.flops / 1e9],
                color="#1d2330", linewidth=1.2, label="roofline (measured peaks)")
        columns = list(dict.fromkeys(p.column for p in points))
        for i, column in enumerate(columns):
            mine = [p for p in points if p.column == column]
            ax.scatter([p.intensity for p in mine], [p.achieved / 1e9 for p in mine], s=22,
                       color=COLORS[i % len(COLORS)], marker=MARKERS[i % len(MARKERS)],
                       label=xml_text(labels.get(column, column)), zorder=3)
        # Too many points for names: each gets its row number in the table under the chart (issue 28: unlabelled dots).
        named = len(points) <= MAX_LABELLED_POINTS
        for number, p in enumerate(points, 1):
            ax.annotate(xml_text(f"{p.benchmark} {p.variant}") if named else str(number), (p.intensity, p.achieved / 1e9),
                        fontsize=6.5, xytext=(4, 2), textcoords="offset points", color="#39414f")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("arithmetic intensity (flop per byte)")
        ax.set_ylabel("GFLOP/s")
        ax.grid(True, which="major", color="#e3e6ec", linewidth=0.6)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7.5, frameon=False)
        return _svg(fig)


def distribution_svg(groups: Sequence[tuple[str, Sequence[float]]], relative: bool = False) -> str:
    """One horizontal box per group (quartiles, whiskers at 1.5 IQR) with every
    sample drawn over it. Seconds are shown in milliseconds, or, with
    ``relative``, each group divided by its own median (to compare spread
    across very different latencies)."""
    import matplotlib

    with matplotlib.rc_context(RC):
        fig, ax = _figure(7.5, 0.9 + 0.32 * len(groups))
        data = []
        for _, times in groups:
            times = sorted(times)
            if relative:
                mid = median(times) if times else 0.0
                data.append([t / mid for t in times] if mid > 0 else times)
            else:
                data.append([t * 1e3 for t in times])
        positions = list(range(len(groups), 0, -1))  # first group on top
        ax.boxplot(data, positions=positions, orientation="horizontal", widths=0.6, showfliers=False,
                   medianprops={"color": "#d0463f"}, boxprops={"color": "#39414f"},
                   whiskerprops={"color": "#667085"}, capprops={"color": "#667085"})
        for y, values in zip(positions, data):
            if len(values) > MAX_STRIP_POINTS:
                step = (len(values) - 1) / (MAX_STRIP_POINTS - 1)
                values = [values[round(k * step)] for k in range(MAX_STRIP_POINTS)]
            # Spread the samples over the box's height in a fixed pattern: no
            # random jitter, so the chart is the same every time.
            offsets = [((k * 7) % 11 - 5) * 0.045 for k in range(len(values))]
            ax.scatter(values, [y + o for o in offsets], s=10, color="#2f5fb3", alpha=0.6, linewidths=0)
        ax.set_yticks(positions, [xml_text(label) for label, _ in groups], fontsize=7.5)
        ax.set_xlabel("time / median" if relative else "milliseconds")
        ax.grid(True, axis="x", color="#e3e6ec", linewidth=0.6)
        return _svg(fig)


def chart_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")[:80] or "chart"


def performance_charts(perf: PerformanceModel) -> dict[str, Any]:
    """Every chart of the performance page: {"files": {file name: SVG text},
    "roofline": {index in perf.roofline: file name}, "distributions": [(title, file name)]}.
    Only speeds are drawn: a record that is not "ok" has no place on a chart."""
    labels = {c.backend.slug: c.backend.label for c in perf.columns}
    files: dict[str, str] = {}
    roofline: dict[int, str] = {}
    for index, roof in enumerate(perf.roofline):
        name = f"roofline-{index + 1}.svg"
        files[name] = roofline_svg(roof.points, roof.peaks, labels)
        roofline[index] = name
    distributions = []
    by_benchmark: dict[str, list[tuple[str, Sequence[float]]]] = {}
    titles: dict[str, str] = {}
    for row in perf.scenario_rows + perf.transfer_rows:
        for column, cell in zip(perf.columns, row.cells):
            r = cell.record
            if r and r.is_speed and r.latency.times:
                by_benchmark.setdefault(row.benchmark, []).append((f"{row.variant} · {column.backend.label}",
                                                                   r.latency.times))
                titles.setdefault(row.benchmark, row.title)
    for benchmark, groups in by_benchmark.items():
        name = f"distribution-{chart_name(benchmark)}.svg"
        files[name] = distribution_svg(groups)
        distributions.append((f"{benchmark}: {titles[benchmark]}", name))
    op_groups = [(f"{row.benchmark} {row.variant} · {column.backend.label}", cell.record.latency.times)
                 for row in perf.op_rows for column, cell in zip(perf.columns, row.cells)
                 if cell.record and cell.record.is_speed and cell.record.latency.times]
    if op_groups:
        files["distribution-ops.svg"] = distribution_svg(op_groups, relative=True)
        distributions.append(("Per-op benchmarks, each divided by its own median", "distribution-ops.svg"))
    return {"files": files, "roofline": roofline, "distributions": distributions}
