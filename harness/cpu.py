"""The machine a command runs on, as every output describes it: its CPU model
and the cores this process may use. Outside the stage packages, so that run,
probe and bench (outputs/records.py, bench/machine.py) name one machine alike
without one stage importing another for it."""
from __future__ import annotations

import os
import platform


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
