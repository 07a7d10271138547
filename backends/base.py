"""The backend protocol: a few methods, the same for every backend.

    backend.info()                  -> BackendInfo (name, version, device, settings)
    backend.build(graph)            -> compiled   (raise Unsupported if refused)
    backend.compute(compiled, inputs) -> {output name: ndarray}

Optional:
    backend.build_batch(graphs)     -> [compiled | BaseException, ...]
        build several graphs at once (OpenVINO compiles them into one model);
        the default builds them one by one.
    backend.emulations()            -> {op: how it is composed}
        ops the adapter composes from others instead of mapping natively.
    backend.build_settings(compiled) -> {setting: value}
        settings chosen per build (ONNX Runtime: the opset a graph was
        emitted at); each record keeps them beside the backend's info().
    backend.device_session(graph)   -> DeviceSession
        the graph built for repeated runs on tensors that stay in the
        backend's own memory (ORT OrtValue, OpenVINO ov.Tensor), and able to
        save the exact model it runs. The default (``device_session``
        below) wraps build/compute.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, Sequence, runtime_checkable

import numpy as np

from webnn_harness.graph import Graph


class Unsupported(Exception):
    """The backend refused to build the graph; the message is the backend's own."""


class BackendError(RuntimeError):
    """The backend cannot be created (not installed, bad option, no such device)."""


@dataclass(frozen=True)
class BackendInfo:
    name: str
    version: str
    device: str
    settings: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"name": self.name, "version": self.version, "device": self.device, "settings": dict(self.settings)}


@runtime_checkable
class Backend(Protocol):
    def info(self) -> BackendInfo: ...

    def build(self, graph: Graph) -> Any: ...

    def compute(self, compiled: Any, inputs: Mapping[str, np.ndarray]) -> Mapping[str, np.ndarray]: ...


def build_batch(backend: Backend, graphs: Sequence[Graph]) -> list[Any]:
    """Build graphs with the backend's batch builder when it has one."""
    batch = getattr(backend, "build_batch", None)
    if batch is not None:
        return list(batch(graphs))
    out: list[Any] = []
    for graph in graphs:
        try:
            out.append(backend.build(graph))
        except Exception as exc:  # noqa: BLE001 - the caller classifies it
            out.append(exc)
    return out


class DeviceSession(Protocol):
    """One built graph whose inputs and outputs are backend-owned tensors:
    ``upload`` copies a host array into one, ``run`` consumes and produces
    them without a host copy, ``download`` copies one back to a new host
    array. ``save(stem)`` writes the model it runs for replay by the
    backend's own tools and returns the files written (none if it cannot).
    Optional: ``build_settings()`` -> settings chosen for this build, as
    ``backend.build_settings`` gives them."""

    def save(self, stem: str) -> Sequence[str]: ...

    def upload(self, name: str, array: np.ndarray) -> Any: ...

    def run(self, inputs: Mapping[str, Any]) -> Mapping[str, Any]: ...

    def download(self, tensor: Any) -> np.ndarray: ...


class HostSession:
    """The fallback DeviceSession for a backend without device tensors: its
    "tensors" are host arrays and every run goes through ``compute``."""

    def __init__(self, backend: Backend, graph: Graph):
        self.backend, self.compiled = backend, backend.build(graph)

    def save(self, stem: str) -> Sequence[str]:
        return ()

    def upload(self, name: str, array: np.ndarray) -> np.ndarray:
        return np.array(array, copy=True)

    def run(self, inputs: Mapping[str, Any]) -> Mapping[str, Any]:
        return self.backend.compute(self.compiled, inputs)

    def download(self, tensor: Any) -> np.ndarray:
        return np.array(tensor, copy=True)


def device_session(backend: Backend, graph: Graph) -> DeviceSession:
    """The backend's own device session when it has one, else a HostSession."""
    fn = getattr(backend, "device_session", None)
    if fn is not None:
        return fn(graph)
    return HostSession(backend, graph)


def emulations(backend: Backend) -> Mapping[str, str]:
    fn = getattr(backend, "emulations", None)
    return dict(fn()) if fn else {}


def build_settings(backend: Backend, compiled: Any) -> Mapping[str, Any]:
    fn = getattr(backend, "build_settings", None)
    return dict(fn(compiled)) if fn else {}


def parse_options(pairs: Sequence[str]) -> dict[str, str]:
    """``-o key=value`` pairs to a dict; a pair without '=' is a usage error."""
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"backend option {pair!r} is not key=value")
        out[key.strip()] = value.strip()
    return out
