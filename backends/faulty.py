"""A backend that misbehaves on purpose, to prove the runner and the prober
survive it: it kills its own process or hangs on chosen operators and
delegates everything else to the reference.

    webnn-harness probe --backend backends.faulty:create -o crash_op=relu -o hang_op=exp

Options (``-o key=value``; lists are comma-separated):
    crash_op   ops whose compute aborts the process (default ``abs``)
    segv_op    ops whose compute dereferences NULL through ctypes (default none)
    hang_op    ops whose compute sleeps (default ``neg``)
    build_crash_op  ops whose build aborts the process (default none)
    hang_seconds    how long a hang lasts (default 3600)
    wrong_op   ops whose float results are perturbed (accepted but wrong; default none)
    reject_op  ops the build refuses with Unsupported (default none)
    wrong_negative_f16_op  ops whose float16 output is off by one exactly where
                the op's first input is negative and the shapes match: a
                planted bug for the fuzzer to find (default none)
    bf16_op    ops whose float32 operands (inputs and constants) are rounded to
               bfloat16 before the float64 compute: what a CPU running float32
               graphs at bf16 inference precision does (default none)
    device     the device name it reports (computes on the CPU anyway); lets
               tests place work by device, e.g. on Ray nodes that advertise it
"""
from __future__ import annotations

import ctypes
import dataclasses
import os
import time
from typing import Any, Mapping

import numpy as np

from webnn_harness.backends.base import BackendInfo, Unsupported
from webnn_harness.spec.graph import Graph

OPTIONS = ("crash_op", "segv_op", "hang_op", "build_crash_op", "hang_seconds", "wrong_op", "reject_op",
           "wrong_negative_f16_op", "bf16_op", "device")
DEFAULTS = {"crash_op": "abs", "hang_op": "neg"}


def _ops(value: str) -> frozenset[str]:
    return frozenset(x.strip() for x in value.split(",") if x.strip())


def _segfault() -> None:
    ctypes.string_at(0)  # reads address 0: SIGSEGV


class FaultyBackend:
    name = "faulty"

    def __init__(self, options: Mapping[str, str]):
        unknown = set(options) - set(OPTIONS)
        if unknown:
            raise ValueError(f"faulty: unknown option(s) {', '.join(sorted(unknown))} (known: {', '.join(OPTIONS)})")
        opts = {**DEFAULTS, **options}
        self.crash = _ops(opts.get("crash_op", ""))
        self.segv = _ops(opts.get("segv_op", ""))
        self.hang = _ops(opts.get("hang_op", ""))
        self.build_crash = _ops(opts.get("build_crash_op", ""))
        self.wrong = _ops(opts.get("wrong_op", ""))
        self.reject = _ops(opts.get("reject_op", ""))
        self.wrong_negative_f16 = _ops(opts.get("wrong_negative_f16_op", ""))
        self.bf16 = _ops(opts.get("bf16_op", ""))
        self.hang_seconds = float(opts.get("hang_seconds", 3600))
        self.settings = dict(opts)
        self.device = opts.get("device", "cpu")
        from webnn_harness.backends.reference import ReferenceBackend

        self.reference = ReferenceBackend({})

    def info(self) -> BackendInfo:
        return BackendInfo(self.name, "0", f"{self.device} (delegates to reference)", self.settings)

    def build(self, graph: Graph) -> Graph:
        ops = set(graph.ops)
        if ops & self.build_crash:
            os.abort()
        if ops & self.reject:
            raise Unsupported(f"faulty: refuses {', '.join(sorted(ops & self.reject))} on purpose")
        if ops & self.bf16:
            graph = dataclasses.replace(graph, constants={n: round_to_bfloat16(v) for n, v in graph.constants.items()})
        return self.reference.build(graph)

    def compute(self, compiled: Graph, inputs: Mapping[str, np.ndarray]) -> dict[str, Any]:
        ops = set(compiled.ops)
        if ops & self.crash:
            os.abort()
        if ops & self.segv:
            _segfault()
        if ops & self.hang:
            time.sleep(self.hang_seconds)
        if ops & self.bf16:
            inputs = {n: round_to_bfloat16(v) for n, v in inputs.items()}
        out = self.reference.compute(compiled, inputs)
        if ops & self.wrong:
            out = {k: (v + v.dtype.type(1) if v.dtype.kind == "f" else v) for k, v in out.items()}
        for node in compiled.nodes:
            if node.op in self.wrong_negative_f16:
                out = self._wrong_where_negative(compiled, node, inputs, out)
        return out

    @staticmethod
    def _wrong_where_negative(compiled: Graph, node, inputs, out):
        first = inputs.get(node.operand_names()[0]) if node.operand_names() else None
        for name in node.outputs:
            value = out.get(name)
            if first is None or value is None or value.dtype != np.float16 or value.shape != first.shape:
                continue
            out[name] = np.where(first < 0, value + np.float16(1), value).astype(np.float16)
        return out

    def emulations(self) -> dict[str, str]:
        return {}


def round_to_bfloat16(values: np.ndarray) -> np.ndarray:
    """float32 values rounded to the nearest bfloat16 (ties to even), kept as
    float32: the top 16 bits of the pattern. Other types pass unchanged."""
    values = np.asarray(values)
    if values.dtype != np.float32:
        return values
    bits = values.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(np.uint32).view(np.float32)
    return np.where(np.isnan(values), values, rounded)


def create(options: Mapping[str, str]) -> FaultyBackend:
    return FaultyBackend(options)
