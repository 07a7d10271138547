"""What `bench` prints: a line per record as it completes, the seed table
beside the published figures, and the baseline comparison."""
from __future__ import annotations

from typing import Iterable, Mapping

from webnn_harness.bench.profile import node_share
from webnn_harness.bench.regressions import BenchComparison, is_noisy


def _ms(seconds: float | None) -> str:
    return f"{seconds * 1e3:10.3f}" if seconds is not None else f"{'-':>10}"


def record_line(record: dict) -> str:
    lat = record.get("latency")
    head = f"{record['backend']['name']:12} {record['benchmark']:40} {record['variant']:15}"
    if record["status"] != "ok" or not lat:
        return f"{head} {record['status']:>10}  {(record.get('message') or '')[:160]}"
    load = record.get("loadAverage")
    load = f"  load {max(load):.1f}" if load else ""
    return (f"{head} {_ms(lat['median'])} ms  iqr {lat['iqr'] * 1e3:8.3f}  cv {lat['cv'] * 100:5.1f}%  "
            f"n {lat['samples']:4}  build {_ms(record.get('buildSeconds')).strip()} ms{load}{profile_note(record)}")


def profile_note(record: dict) -> str:
    """bench --profile: the nodes' summed time beside the median, or why none."""
    profile = record.get("profile")
    if not isinstance(profile, dict):
        return ""
    share = node_share(record)
    if share is None:
        return f"  profile: {profile.get('error') or profile.get('unavailable') or 'none'}"[:200]
    run, run_nodes, plain = profile.get("runSeconds"), profile.get("runNodeSeconds"), profile.get("plainSeconds")
    beside = f", {profile['nodeSeconds'] / plain:.0%} of the graph run beside them" if plain else ""
    of_run = f", {run_nodes / run:.0%} of a profiled run" if run and run_nodes is not None else ""
    cost = f"; the profiler {run / plain - 1:+.0%} a run" if run and plain else ""
    launch = "; launch times on the host" if profile.get("nodeTimes") == "launch" else ""
    return (f"  nodes {profile['nodeSeconds'] * 1e3:.3f} ms ({share:.0%} of the median{beside}{of_run}{cost}{launch}, "
            f"{len(profile['nodes'])} nodes)")


def noise_line(summary: Mapping) -> str | None:
    """The machine's own spread (summary.json header.peaks.noise), if measured."""
    noise = ((summary.get("header") or {}).get("peaks") or {}).get("noise")
    if not isinstance(noise, Mapping) or noise.get("cv") is None:
        return None
    return (f"machine noise: CV {noise['cv']:.1%} of a fixed workload ({_ms(noise.get('medianSeconds')).strip()} ms a call): "
            "a benchmark's CV near this is the machine's")


def published_tables(records: Iterable[dict]) -> list[str]:
    """Our median beside the published figure, for every benchmark that has one."""
    lines = []
    rows = [r for r in records if r.get("published")]
    groups: dict[tuple[str, str], list[dict]] = {}
    for r in rows:
        groups.setdefault((r["benchmark"], r["backend"]["name"]), []).append(r)
    for (benchmark, backend), group in groups.items():
        source = group[0]["published"].get("source", "")
        lines.append(f"{benchmark} on {backend} (published: {source})")
        lines.append(f"  {'variant':15} {'ours ms':>10} {'published ms':>13} {'ours/published':>16}")
        for r in group:
            ours = r["latency"]["median"] if r["status"] == "ok" else None
            theirs = r["published"]["seconds"]
            ratio = f"{ours / theirs:16.2f}" if ours is not None else f"{r['status']:>16}"
            lines.append(f"  {r['variant']:15} {_ms(ours)} {theirs * 1e3:13.1f} {ratio}")
    return lines


def comparison_lines(comparison: BenchComparison) -> list[str]:
    """A line per change, but one for the baseline's benchmarks this bench did not time (a bench
    --filter leaves most out on purpose) and one for the machine noise a change had to pass."""
    lines = []
    missing = [c for c in comparison.changes if c.verdict == "missing"]
    for c in comparison.changes:
        if c.verdict in ("same", "missing"):
            continue
        figures = ""
        if c.ratio is not None:
            figures = f" {c.base_median * 1e3:.3f} -> {c.new_median * 1e3:.3f} ms ({(c.ratio - 1) * 100:+.1f}%, p={c.p_value:.2g})"
        lines.append(f"{c.verdict:13} {c.backend} {c.benchmark} {c.variant}{figures} {c.reason}".rstrip())
    if missing:
        first = ", ".join(f"{c.benchmark} {c.variant}" for c in missing[:3])
        lines.append(f"{len(missing)} benchmark(s) of the baseline not timed here (left out by a selection, or gone): "
                     f"{first}{', ...' if len(missing) > 3 else ''}")
    noisy = [f"{cv:.0%}" for cv in comparison.noise if is_noisy(cv)]
    if noisy:
        lines.append(f"noisy machine (CV {' and '.join(noisy)} of a fixed workload): "
                     f"a change within {comparison.threshold_used:.0%} is not called one")
    n = len(comparison.regressions)
    lines.append(f"against {comparison.base}: {n} regression(s) "
                 f"(slower by > {comparison.threshold_used:.0%} at p < {comparison.alpha}, or broken)")
    return lines


def comparison_markdown(comparison: BenchComparison) -> str:
    """A pull-request comment: the regressions first, then the other changes."""
    rows = [c for c in comparison.changes if c.verdict != "same"]
    rows.sort(key=lambda c: (c not in comparison.regressions, c.backend, c.benchmark, c.variant))
    lines = [f"**{len(comparison.regressions)} regression(s)** (slower by > {comparison.threshold:.0%} "
             f"at p < {comparison.alpha}, or broken)", "",
             "| verdict | backend | benchmark | variant | base ms | new ms | change | p |",
             "|---|---|---|---|---:|---:|---:|---:|"]
    for c in rows:
        if c.ratio is None:
            lines.append(f"| {c.verdict} | {c.backend} | {c.benchmark} | {c.variant} | | | {c.reason} | |")
        else:
            lines.append(f"| {c.verdict} | {c.backend} | {c.benchmark} | {c.variant} | {c.base_median * 1e3:.3f} "
                         f"| {c.new_median * 1e3:.3f} | {(c.ratio - 1) * 100:+.1f}% | {c.p_value:.2g} |")
    return "\n".join(lines) + "\n"
