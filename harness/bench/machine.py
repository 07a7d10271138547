"""The machine a bench ran on, and its measured peaks (what the roofline is
drawn against)."""
from __future__ import annotations

import os
import platform
import socket
import time

import numpy as np


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def machine_info() -> dict:
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        memory = None
    return {"cpu": cpu_model(), "cores": usable_cores(), "platform": platform.platform(),
            "memoryBytes": memory, "hostname": socket.gethostname()}


def _best_seconds(fn, repeats: int) -> float:
    fn()
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def measure_peaks(copy_bytes: int = 128 << 20, matmul_size: int = 1536, repeats: int = 5,
                  noise_size: int = 1024, noise_seconds: float = 1.0) -> dict:
    """Memory bandwidth from a large numpy copy (bytes read + bytes written
    per second, best of ``repeats``) and float32 FLOP/s from a large numpy
    matrix product (2 n^3 per product, best of ``repeats``). The copy is
    several times any CPU's last-level cache, so it streams from memory.
    ``noise``: how steady the machine was (``measure_noise``)."""
    src = np.ones(copy_bytes // 4, dtype=np.float32)
    dst = np.empty_like(src)
    copy = _best_seconds(lambda: np.copyto(dst, src), repeats)
    a = np.random.default_rng(0).random((matmul_size, matmul_size), dtype=np.float32)
    product = _best_seconds(lambda: a @ a, repeats)
    return {
        "memoryBandwidthBytesPerSecond": 2 * src.nbytes / copy,
        "float32FlopsPerSecond": 2 * matmul_size**3 / product,
        "method": (f"bandwidth: numpy copyto of {copy_bytes >> 20} MiB float32 (read + write bytes, one thread), "
                   f"best of {repeats}; flops: numpy float32 {matmul_size}x{matmul_size} matmul "
                   f"(2n^3, numpy's BLAS with its default threads), best of {repeats}"),
        "threads": usable_cores(),
        "noise": measure_noise(noise_size, noise_seconds),
    }


def measure_noise(matmul_size: int = 1024, seconds: float = 1.0) -> dict:
    """How steady the machine is: a fixed workload that uses every core
    (numpy's float32 matmul on its BLAS's default threads, tens of ms per
    call on a small machine, like the seed graph) timed as the bench times a
    benchmark, for ``seconds``. Its CV is the spread this machine gives work
    that does not vary: a benchmark's CV near it is the machine's, not the
    backend's or the harness's (issue #11 asks CV <= 3% on a quiet machine;
    this says whether the machine was one)."""
    from webnn_harness.bench.measure import TimingPolicy, measure

    a = np.random.default_rng(1).random((matmul_size, matmul_size), dtype=np.float32)
    call = lambda: a @ a  # noqa: E731
    call()
    summary = measure(call, TimingPolicy(min_time=seconds, min_samples=10, max_time=max(5.0, 4 * seconds),
                                         warmup_time=0.1)).summary
    return {"cv": summary["cv"], "medianSeconds": summary["median"], "samples": summary["samples"],
            "method": f"numpy float32 {matmul_size}x{matmul_size} matmul (numpy's BLAS, its default threads), "
                      f"{seconds:g} s of samples timed as benchmarks are"}
