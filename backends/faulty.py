"""A backend that misbehaves on purpose, to prove isolation: it aborts the
process on one op and hangs on another, and delegates everything else to the
reference. Not registered as an entry point; load it as
``--backend backends.faulty:create`` (options: crash_op=, hang_op=)."""
from __future__ import annotations

import os
import time
from typing import Mapping

from backends.base import BackendInfo
from backends.reference import ReferenceBackend


class FaultyBackend(ReferenceBackend):
    name = "faulty"

    def __init__(self, options: Mapping[str, str]):
        super().__init__({})
        unknown = set(options) - {"crash_op", "hang_op"}
        if unknown:
            raise ValueError(f"faulty backend options are crash_op and hang_op (got {', '.join(sorted(unknown))})")
        self.crash_op = options.get("crash_op", "abs")
        self.hang_op = options.get("hang_op", "neg")

    def info(self) -> BackendInfo:
        return BackendInfo(self.name, "0", "cpu", {"crash_op": self.crash_op, "hang_op": self.hang_op})

    def compute(self, compiled, inputs):
        ops = {n.op for n in compiled.nodes}
        if self.crash_op in ops:
            os.abort()
        if self.hang_op in ops:
            time.sleep(3600)
        return super().compute(compiled, inputs)


def create(options: Mapping[str, str]) -> FaultyBackend:
    return FaultyBackend(options)
