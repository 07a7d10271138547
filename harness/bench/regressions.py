"""Two bench folders compared: which benchmarks got slower, and whether
that is real. Like ``asv compare``: a change counts only when it is
statistically significant (one-sided Mann-Whitney U on all sample times,
p < alpha) and larger than a threshold (relative change of the median).

With fewer than about 5 samples a side the U test cannot reach p < 0.01, so
such a pair never counts as slower (it is reported as ``same``).

Each bench measures the machine's own noise (harness/bench/machine.py: the CV of a fixed
workload). A change the machine's noise explains is no change, however small its p-value
(thousands of samples make any drift significant): the threshold a change must pass is the
larger of ``threshold`` and the noisier side's CV, and a bench whose CV passes ``NOISY_CV`` is
marked noisy on the pages."""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from webnn_harness.cpu import machine_changes
from webnn_harness.outputs.bench_records import BENCH_FILE, BenchFolder, read_bench_folder
from webnn_harness.files.reading import ReadError

# A machine whose fixed workload varies by more than this (CV) is noisy: its benches are marked so,
# and the archive's history calls no step on them.
NOISY_CV = 0.10
VERDICTS = ("slower", "broken", "faster", "fixed", "same", "missing", "added", "notComparable")
COMPARED = ("slower", "broken", "faster", "fixed", "same")  # verdicts of a benchmark in both, comparable


@dataclass(frozen=True)
class Change:
    benchmark: str
    variant: str
    backend: str
    verdict: str  # one of VERDICTS
    base_median: float | None = None
    new_median: float | None = None
    ratio: float | None = None  # new median / base median
    p_value: float | None = None  # of the one-sided test in the direction of the change
    reason: str = ""

    def to_json(self) -> dict:
        return {"benchmark": self.benchmark, "variant": self.variant, "backend": self.backend,
                "verdict": self.verdict, "baseMedian": self.base_median, "newMedian": self.new_median,
                "ratio": self.ratio, "pValue": self.p_value, "reason": self.reason}


@dataclass(frozen=True)
class BenchComparison:
    base: str
    new: str
    threshold: float
    alpha: float
    changes: tuple[Change, ...]
    noise: tuple[float | None, float | None] = (None, None)  # each side's machine noise (CV), where measured

    @property
    def threshold_used(self) -> float:
        """The change a median had to pass: the threshold, or the machine noise where larger."""
        return noise_threshold(self.threshold, self.noise)

    @property
    def regressions(self) -> tuple[Change, ...]:
        """Significantly slower beyond the threshold, or ok before and not now."""
        return tuple(c for c in self.changes if c.verdict in ("slower", "broken"))

    @property
    def compared(self) -> tuple[Change, ...]:
        """The benchmarks actually compared: in both folders, timed on the same hardware."""
        return tuple(c for c in self.changes if c.verdict in COMPARED)

    def nothing_compared(self) -> str:
        """Why no benchmark was compared ("" when one was): a comparison of
        nothing is no evidence of no regression, so it is a usage error."""
        if self.compared:
            return ""
        if not any(c.verdict == "notComparable" for c in self.changes):
            return f"{self.new} and the baseline {self.base} have no benchmark in common: nothing was compared"
        reasons = sorted({c.reason for c in self.changes if c.verdict == "notComparable"})
        return f"no benchmark of {self.new} is comparable with the baseline {self.base}: {'; '.join(reasons)}"

    def to_json(self) -> dict:
        return {"base": self.base, "new": self.new, "threshold": self.threshold, "alpha": self.alpha,
                "noise": list(self.noise),
                "regressions": len(self.regressions), "changes": [c.to_json() for c in self.changes]}


def read_bench(folder: str | Path, on_problem: Callable[[str], object] | None = None) -> dict[tuple[str, str, str], dict]:
    """The records of a bench folder keyed by (benchmark, variant, backend name) (harness/outputs/bench_records.py:
    unreadable lines skipped and given to ``on_problem``)."""
    return _keyed(read_bench_folder(folder, on_problem))


def read_baseline(folder: str | Path) -> BenchFolder:
    """``bench --baseline FOLDER``, read whole before the bench runs. A gate's yardstick must be whole: a line
    that cannot be read, no record at all, an ok record without latency samples or with a median or sample
    that is no finite number, or a summary that names no machine (times are compared only on the same
    hardware) is a ReadError (one line), never "0 regressions" after the bench."""
    bench = read_bench_folder(folder)
    path = Path(folder) / BENCH_FILE
    if bench.problems:
        raise ReadError(bench.problems[0])
    if not bench.records:
        raise ReadError(f"{path}: holds no bench record")
    for number, record in bench.records:
        if record["status"] != "ok":
            continue
        if not _timed(record):
            raise ReadError(f"{path}: line {number}: an ok record without latency samples (latency.median, .times)")
        latency = record["latency"]
        if not all(math.isfinite(v) for v in [latency["median"], *latency["times"]]):
            raise ReadError(f"{path}: line {number}: latency: a median or sample that is not a finite number")
    if _machine(bench.summary) is None and not all((r.get("node") or {}).get("machine") for _, r in bench.records):
        raise ReadError(f"{Path(folder) / 'summary.json'}: missing, or names no machine (header.machine): "
                        "a baseline is compared only with times of the same hardware")
    return bench


def _keyed(folder) -> dict[tuple[str, str, str], dict]:
    return {(r["benchmark"], r["variant"], r["backend"]["name"]): r for _, r in folder.records}


def noise_cv(summary: Mapping[str, Any] | None) -> float | None:
    """The machine noise a bench recorded (its summary's header.peaks.noise.cv), None where none."""
    header = summary.get("header") if isinstance(summary, Mapping) else None
    noise = ((header or {}).get("peaks") or {}).get("noise") if isinstance(header, Mapping) else None
    cv = noise.get("cv") if isinstance(noise, Mapping) else None
    return float(cv) if isinstance(cv, (int, float)) and not isinstance(cv, bool) and cv >= 0 else None


def is_noisy(cv: float | None) -> bool:
    return cv is not None and cv > NOISY_CV


def noise_threshold(threshold: float, noise: tuple[float | None, float | None]) -> float:
    """The relative change a median must pass to count: ``threshold``, or the noisier side's CV."""
    return max([threshold, *(cv for cv in noise if cv is not None)])


def _machine(summary: Mapping[str, Any]) -> dict | None:
    """The machine a local bench ran on (its summary's header), or None where it names none."""
    machine = (summary.get("header") or {}).get("machine") if isinstance(summary, Mapping) else None
    return machine if isinstance(machine, dict) else None


def _timed_on(record: dict, folder_machine: dict | None = None) -> dict | None:
    """The machine a record was timed on: its node's (bench --executor ray) or else its folder's (a local bench)."""
    machine = (record.get("node") or {}).get("machine") or folder_machine
    return machine if isinstance(machine, dict) else None


def _hardware(machine: dict | None) -> tuple | None:
    """A machine's hardware: CPU model, cores and memory, not the host name, so that identical
    machines of a farm compare."""
    return (machine.get("cpu"), machine.get("cores"), machine.get("memoryBytes")) if machine else None


def machine_difference(base: dict | None, new: dict | None) -> str:
    """What differs between the machines two records were timed on ("" where nothing does, or where
    one names none): the hardware, and the facts ``diff`` compares between runs (cpu.machine_changes:
    the ISA class and features, a kernel setting such as ONEDNN_MAX_CPU_ISA), so that a bench capped
    to AVX2 and a native one on one CPU are two machines (issue #47)."""
    if base is None or new is None:
        return ""
    hardware = _hardware(base), _hardware(new)
    said = [f"{hardware[0]} before, {hardware[1]} now"] if hardware[0] != hardware[1] else []
    said += [c for c in machine_changes(base, new) if not (said and c.startswith("cpu: "))]
    return "; ".join(said)


def _timed(record: dict) -> bool:
    """Whether ``record`` holds what a comparison reads: a latency median and its samples (the schema lets
    a record of another kind, or an ok one from another tool, go without)."""
    latency = record.get("latency")
    return isinstance(latency, dict) and isinstance(latency.get("median"), (int, float)) \
        and isinstance(latency.get("times"), list) and bool(latency["times"])


def _compare_pair(key, base: dict, new: dict, threshold: float, alpha: float,
                  machines: tuple[dict | None, dict | None] = (None, None),
                  noise: tuple[float | None, float | None] = (None, None)) -> Change:
    from scipy.stats import mannwhitneyu

    base_ok, new_ok = base["status"] == "ok", new["status"] == "ok"
    if base_ok and new_ok and not (_timed(base) and _timed(new)):
        return Change(*key, "notComparable", reason="no latency samples in one of them (a record of another kind)")
    differs = machine_difference(_timed_on(base, machines[0]), _timed_on(new, machines[1]))
    if base_ok and new_ok and differs:
        # Two machines' times are no regression: a baseline timed elsewhere, or a Ray bench
        # that put the benchmark on whichever node was free.
        return Change(*key, "notComparable", base["latency"]["median"], new["latency"]["median"],
                      reason=f"timed on different machines: {differs}")
    if not (base_ok and new_ok):
        if base_ok:
            return Change(*key, "broken", reason=f"was ok, now {new['status']}: {new.get('message') or ''}".strip())
        if new_ok:
            return Change(*key, "fixed", reason=f"was {base['status']}, now ok")
        return Change(*key, "notComparable", reason=f"{base['status']} before, {new['status']} now")
    base_times, new_times = base["latency"]["times"], new["latency"]["times"]
    base_median, new_median = base["latency"]["median"], new["latency"]["median"]
    ratio = new_median / base_median if base_median > 0 else float("inf")
    direction = "greater" if ratio >= 1 else "less"
    p_value = float(mannwhitneyu(new_times, base_times, alternative=direction).pvalue)
    verdict, reason = "same", ""
    beyond = noise_threshold(threshold, noise)
    if p_value < alpha and ratio > 1 + threshold:
        verdict = "slower"
    elif p_value < alpha and ratio < 1 / (1 + threshold):
        verdict = "faster"
    if verdict != "same" and 1 / (1 + beyond) <= ratio <= 1 + beyond:
        verdict, reason = "same", f"{ratio:.2f}x is within the machine noise the benches measured (CV {beyond:.0%})"
    return Change(*key, verdict, base_median, new_median, ratio, p_value, reason)


def compare_bench(base_dir: str | Path, new_dir: str | Path, threshold: float = 0.05,
                  alpha: float = 0.01, on_problem: Callable[[str], object] | None = None) -> BenchComparison:
    """Compare every (benchmark, variant, backend) of two bench folders."""
    base, new = read_bench_folder(base_dir, on_problem), read_bench_folder(new_dir, on_problem)
    noise = (noise_cv(base.summary), noise_cv(new.summary))
    changes = compare_records(_keyed(base), _keyed(new), threshold, alpha,
                              machines=(_machine(base.summary), _machine(new.summary)), noise=noise)
    return BenchComparison(str(base_dir), str(new_dir), threshold, alpha, changes, noise)


def compare_records(base: dict[tuple[str, str, str], dict], new: dict[tuple[str, str, str], dict],
                    threshold: float = 0.05, alpha: float = 0.01,
                    machines: tuple[dict | None, dict | None] = (None, None),
                    noise: tuple[float | None, float | None] = (None, None)) -> tuple[Change, ...]:
    """Records keyed as ``read_bench`` keys them, compared key by key (also
    what the archive's changes page uses between two versions); ``machines``:
    each side's machine, where its records do not name their own; ``noise``: each side's machine
    noise (``noise_cv``), which a change must pass."""
    changes = []
    for key in sorted(set(base) | set(new)):
        if key not in new:
            changes.append(Change(*key, "missing", reason="in the baseline only"))
        elif key not in base:
            changes.append(Change(*key, "added", reason="not in the baseline"))
        else:
            changes.append(_compare_pair(key, base[key], new[key], threshold, alpha, machines, noise))
    return tuple(changes)
