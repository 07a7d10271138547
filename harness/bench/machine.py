"""The machine a bench ran on, and its measured peaks (what the roofline is
drawn against)."""
from __future__ import annotations

import os
import platform
import socket
import time

import numpy as np

from webnn_harness.cpu import MachineFacts, cpu_model, usable_cores  # noqa: F401 - the bench's names for them


def machine_info() -> dict:
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        memory = None
    return {"cpu": cpu_model(), "cores": usable_cores(), "platform": platform.platform(),
            "memoryBytes": memory, "hostname": socket.gethostname(),
            **MachineFacts.here().to_json()}  # features and kernel settings, as a run's header has them


def _best_seconds(fn, repeats: int, max_seconds: float = float("inf")) -> float:
    """The shortest of ``repeats`` calls (fewer, but at least one, once ``max_seconds`` have passed)."""
    fn()
    best = float("inf")
    end = time.perf_counter() + max_seconds
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
        if t0 > end:
            break
    return best


def measure_peaks(copy_bytes: int = 128 << 20, matmul_size: int = 512, repeats: int = 5,
                  noise_size: int = 1024, noise_seconds: float = 1.0, chunk_bytes: int = 8 << 20,
                  matmul_repeats: int = 200) -> dict:
    """Memory bandwidth from a large numpy copy (bytes read + bytes written
    per second) and float32 FLOP/s from numpy matrix products (2 n^3 per
    product). The copy is several times any CPU's last-level cache, so it
    streams from memory. ``noise``: how steady the machine was (``measure_noise``).

    Both are the best of many short samples, as benchmarks are short samples:
    a peak is the rate while the process holds its cores. One long sample on a
    busy machine spans many scheduler slices and measures the machine's load
    instead (issue 28: on a shared 2-vCPU VM a 1536 product, best of 5, gave
    25-45 GFLOP/s while 512 products reached 133, and 9 of 37 roofline points
    sat above a roof measured that way; a whole 128 MiB copy gave 8.9 GB/s,
    its 8 MiB slices 16). The slices of the copy still stream from memory:
    the whole buffer is swept, so no slice is in cache when it is copied."""
    src = np.ones(copy_bytes // 4, dtype=np.float32)
    dst = np.empty_like(src)
    step = max(1, min(chunk_bytes, copy_bytes) // 4)
    slices = [slice(i, i + step) for i in range(0, src.size, step)]
    copy_rate = 0.0
    np.copyto(dst, src)
    for _ in range(repeats):
        for part in slices:
            t0 = time.perf_counter()
            np.copyto(dst[part], src[part])
            copy_rate = max(copy_rate, 2 * 4 * (part.stop - part.start if part.stop <= src.size else src.size - part.start)
                            / (time.perf_counter() - t0))
    a = np.random.default_rng(0).random((matmul_size, matmul_size), dtype=np.float32)
    product = _best_seconds(lambda: a @ a, max(repeats, matmul_repeats), max_seconds=2.0)
    return {
        "memoryBandwidthBytesPerSecond": copy_rate,
        "float32FlopsPerSecond": 2 * matmul_size**3 / product,
        "method": (f"bandwidth: numpy copyto of {copy_bytes >> 20} MiB float32 swept in {step * 4 >> 20 or step * 4} "
                   f"{'MiB' if step * 4 >= 1 << 20 else 'byte'} slices (read + write bytes, one thread), best slice of "
                   f"{repeats} sweeps; flops: numpy float32 {matmul_size}x{matmul_size} matmul "
                   f"(2n^3, numpy's BLAS with its default threads), best of up to {max(repeats, matmul_repeats)} in 2 s"),
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
