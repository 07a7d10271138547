"""A stand-in for Chromium releases in the README test (tests/test_readme_commands.py):
the reference backend named chromium, its version the milestone of ``-o version``
(``143`` -> 143.0.0.0), refusing leakyRelu before 149 (a case newly passing at
149) and declaring leakyRelu from 149 on (a declared opSupportLimits() entry
gained), so that the recipe's archive has changes to show."""
from __future__ import annotations

from typing import Mapping

from webnn_harness.backends.base import BackendInfo, Unsupported
from webnn_harness.backends.reference import ReferenceBackend

LEAKY_RELU_FROM = 149


def _member(*types: str) -> dict:
    return {"dataTypes": list(types), "rankRange": {"min": 0, "max": 8}}


class ReleaseStandIn(ReferenceBackend):
    name = "chromium"

    def __init__(self, options: Mapping[str, str]):
        super().__init__({})
        self.milestone = int(str(options.get("version", "153")).split(".")[0])

    def info(self) -> BackendInfo:
        return BackendInfo(name=self.name, version=f"{self.milestone}.0.0.0", device="cpu (stand-in)",
                           settings={"deviceType": "cpu", "packageVersion": f"{self.milestone}.0.0"})

    def build(self, graph):
        if self.milestone < LEAKY_RELU_FROM and "leakyRelu" in graph.ops:
            raise Unsupported(f"builder.leakyRelu threw NotSupportedError: not before {LEAKY_RELU_FROM}")
        return super().build(graph)

    def declared_limits(self) -> dict:
        ops = ("relu", "leakyRelu") if self.milestone >= LEAKY_RELU_FROM else ("relu",)
        return {**{op: {"input": _member("float32"), "output": _member("float32")} for op in ops},
                "$provenance": {"browser": "stand-in", "version": f"{self.milestone}.0.0.0", "deviceType": "cpu"}}


def create(options: Mapping[str, str]) -> ReleaseStandIn:
    return ReleaseStandIn(options)
