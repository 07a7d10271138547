"""Timing one callable the way torch.utils.benchmark's blocked_autorange and
pytest-benchmark do: warm up, pick how many calls one sample times so a
sample is long against the timer's resolution, then take samples until both a
minimum total time and a minimum sample count are reached (or a cap), and
summarise with robust statistics."""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

clock = time.perf_counter
# The process's CPU time, every thread (user + sys). Beside each sample's
# wall time it tells a slow sample that waited for a core (a busy machine)
# from one that worked more, and shows threads that spin while idle.
cpu_clock = time.process_time


@dataclass(frozen=True)
class TimingPolicy:
    min_time: float = 1.0  # seconds of samples at least...
    min_samples: int = 10  # ...and this many samples at least
    max_samples: int = 10_000
    max_time: float = 20.0  # stop here even if min_samples is not reached
    warmup_time: float = 0.2  # seconds of untimed calls after the first run
    min_sample_time: float = 1e-3  # a sample shorter than this times a block of calls

    def to_json(self) -> dict:
        return {"minTime": self.min_time, "minSamples": self.min_samples, "maxSamples": self.max_samples,
                "maxTime": self.max_time, "warmupTime": self.warmup_time, "minSampleTime": self.min_sample_time}


@dataclass(frozen=True)
class Latency:
    """Seconds per call. ``number`` calls were timed together per sample
    (1 unless a call is shorter than the policy's min_sample_time)."""

    times: tuple[float, ...]
    number: int = 1
    stopped_by: str = "minimums"
    summary: dict = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, times, number: int = 1, stopped_by: str = "minimums", cpu_times=None,
           timed: Mapping[str, Any] | None = None) -> "Latency":
        """``cpu_times``: the process CPU seconds per call of each sample;
        ``timed``: where samples timed elsewhere were timed and which calls
        (``timed_elsewhere``), kept in the summary as ``timed``."""
        times = tuple(float(t) for t in times)
        if not times:
            raise ValueError("no samples")
        q = statistics.quantiles(times, n=100, method="inclusive") if len(times) > 1 else [times[0]] * 99
        mean = statistics.fmean(times)
        stdev = statistics.stdev(times) if len(times) > 1 else 0.0
        summary = {
            "median": statistics.median(times), "mean": mean, "min": min(times), "max": max(times),
            "p90": q[89], "iqr": q[74] - q[24], "cv": stdev / mean if mean > 0 else 0.0,
            "samples": len(times), "number": number, "stoppedBy": stopped_by, "times": list(times),
        }
        if cpu_times:
            summary["cpuMedian"] = statistics.median(float(t) for t in cpu_times)
        if timed:
            summary["timed"] = dict(timed)
        return cls(times, number, stopped_by, summary)

    def to_json(self) -> dict:
        return dict(self.summary)

    @property
    def median(self) -> float:
        return self.summary["median"]


def timer_overhead(repeats: int = 2000) -> float:
    """The median cost of reading the clock twice back to back (what every
    sample carries on top of the work it times)."""
    deltas = []
    for _ in range(repeats):
        t0 = clock()
        deltas.append(clock() - t0)
    return statistics.median(deltas)


def warm_up(call: Callable[[], object], seconds: float) -> float:
    """Call ``call`` for ``seconds`` (at least once), untimed but for the
    last call's duration, which it returns. A session's first runs after its
    build are slower than its steady state (pages of fresh buffers, arena
    growth, threads parked): on our 2-core VM an ORT maxpool session's first
    run took 1.76 ms, its 50th 0.74 ms. The timed runs and the profiled ones
    (harness/bench/profile.py) warm up alike."""
    end = clock() + seconds
    while True:
        t0 = clock()
        call()
        single = clock() - t0
        if clock() >= end:
            return single


def measure(call: Callable[[], object], policy: TimingPolicy) -> Latency:
    """Time ``call`` (already run once by the caller: first run is apart)."""
    single = warm_up(call, policy.warmup_time)  # the last call's duration sizes the block
    number = 1
    if single < policy.min_sample_time:
        number = max(1, int(policy.min_sample_time / max(single, 1e-9)) + 1)
    times: list[float] = []
    cpu_times: list[float] = []
    spent = 0.0
    while True:
        c0 = cpu_clock()
        t0 = clock()
        for _ in range(number):
            call()
        elapsed = clock() - t0
        cpu_times.append((cpu_clock() - c0) / number)
        times.append(elapsed / number)
        spent += elapsed
        if spent >= policy.min_time and len(times) >= policy.min_samples:
            return Latency.of(times, number, "minimums", cpu_times)
        if len(times) >= policy.max_samples:
            return Latency.of(times, number, "maxSamples", cpu_times)
        if spent >= policy.max_time:
            return Latency.of(times, number, "maxTime", cpu_times)


def timed_elsewhere(samples) -> Latency:
    """A backend's ``Samples`` (backends/base.py: timed in a browser page by
    ``backend.timed_plan``, with this module's algorithm and the same policy)
    summarised as ``measure`` summarises its own, with where they were timed
    and which calls."""
    timed = {"timer": samples.timer, "calls": samples.timed_calls, **dict(samples.details)}
    return Latency.of(samples.times, samples.number, samples.stopped_by, timed=timed)
