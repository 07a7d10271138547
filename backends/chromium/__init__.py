"""The chromium backend: WebNN itself, every case run through ``navigator.ml``
in a headless Chromium (Blink's validation of each builder call, Chromium's
lowering, the WebNN service, MLTensor, dispatch and readTensor). Chromium's
Linux WebNN backend runs graphs on LiteRT with XNNPACK, the runtime our
``litert`` backend calls directly: a difference between the two on a case is
Chromium's lowering or ours.

    webnn-harness browsers install          # @sparticuz/chromium 153.0.0, into ~/.cache
    webnn-harness run --backend chromium
    webnn-harness run --backend chromium -o device=gpu -o executable=/path/to/chrome

Options (``-o key=value``):
    device        cpu | gpu | npu (default cpu): the MLContext's deviceType
    executable    a Chromium, Chrome or Edge executable to run instead of an
                  installed package (its own flags are those below)
    version       an installed package version (153.0.0) or milestone (153);
                  default: the pinned release if installed, else the newest
    call_timeout  seconds a page call of several cases may run, plus one a
                  case, before it counts as hung (default 30): the worker
                  ends and the pool runs the cases one by one, each under the
                  run's --timeout
    crash_on_op   test only: crash the renderer in a call whose graphs use
                  this operator

Each case's graph is built in the page as WPT's webnn/resources/utils.js
builds it (backends/chromium/page.js), a worker batch of cases per page call,
one MLContext per device type reused. Outcomes:

    NotSupportedError                        unsupported (name, message, stage kept)
    TypeError, graph outside the context's declared opSupportLimits()
                                             unsupported (the browser's refusal)
    TypeError, graph inside them             error: a validation bug (BuildFailure)
    any other exception (build, dispatch, readTensor)   error (BuildFailure)
    the browser crashed                      crash (the worker ends; the pool isolates the case)

The stage that threw (``builder.<op>``, ``build``, ``createTensor``,
``writeTensor``, ``dispatch``, ``readTensor``) starts every message.
"""
from __future__ import annotations

import importlib.util
import math
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from webnn_harness.backends.base import (BackendError, BackendFacts, BackendInfo, BuildFailure, SettingOption, Unsupported,
                                         reject_unknown_options)
from webnn_harness.spec.graph import Graph

OPTIONS = ("device", "executable", "version", "call_timeout", "crash_on_op")
DEVICES = ("cpu", "gpu", "npu")
BATCH_SIZE = 64  # cases per worker batch: one page call each
TAKE_BYTES = 8 << 20  # bytes of a held output taken back per page call
CALL_BYTES = 32 << 20  # encoded tensor bytes per page call, beyond which a batch is cut into several calls
# What ``--version`` prints for a browser Playwright can drive: "Chromium 153.0.8010.0", "Google Chrome
# 120.0.6099.109", "Microsoft Edge 120.0.2210.91", "Chromium 156.0.8078.129 built on Debian ...": the
# product's name and a four-part version, so that /bin/false ("false (GNU coreutils) 9.1") is no browser.
_VERSION = re.compile(r"\b(?:Chromium|Chrome|Edge)\b[^\d\n]{0,20}(\d+\.\d+\.\d+\.\d+)\b", re.ASCII)
VERSION_SECONDS = 30  # for EXECUTABLE --version: a browser answers in well under a second


@dataclass(frozen=True)
class PageGraph:
    """A built case: the graph and its JSON for the page (the page builds it
    when the case's inputs are there, in the same call that dispatches it)."""

    graph: Graph
    payload: dict


@dataclass(frozen=True)
class Target:
    """The browser to run: its executable and, for an installed package, its version."""

    executable: Path
    package_version: str | None


def _target(options: Mapping[str, str]) -> Target:
    from webnn_harness.backends.chromium import install

    if "executable" in options and "version" in options:
        raise BackendError("chromium: give -o executable or -o version, not both")
    if "executable" in options:
        path = Path(options["executable"]).expanduser()
        if path.is_dir():
            raise BackendError(f"chromium: -o executable={path} is a folder, not a usable Chromium: name the "
                               "browser's executable file")
        if not path.is_file():
            raise BackendError(f"chromium executable {path} does not exist")
        if not os.access(path, os.X_OK):
            raise BackendError(f"chromium: -o executable={path} is not a usable Chromium: not executable")
        return Target(path, None)
    try:
        browser = install.resolve(options.get("version"))
    except install.InstallError as exc:
        raise BackendError(str(exc)) from None
    return Target(browser.executable, browser.version)


def executable_version(executable: Path) -> str:
    """The browser's version as ``EXECUTABLE --version`` prints it ("Chromium 153.0.8010.0"); a BackendError
    (one line, before any case) for anything that is no Chromium, Chrome or Edge."""
    unusable = f"chromium: {executable} is not a usable Chromium"
    try:
        done = subprocess.run([str(Path(executable).absolute()), "--version"], capture_output=True,
                              timeout=VERSION_SECONDS, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise BackendError(f"{unusable}: '--version' did not answer within {VERSION_SECONDS} s") from None
    except OSError as exc:
        raise BackendError(f"{unusable}: cannot run it ({exc.strerror or exc})") from None
    text = done.stdout[:4096].decode("utf-8", errors="replace")
    found = _VERSION.search(text)
    if done.returncode != 0 or not found:
        status = f"exited with status {done.returncode} and " if done.returncode else ""
        raise BackendError(f"{unusable}: '--version' {status}printed {(text.strip().splitlines() or [''])[0][:80]!r}, "
                           "no Chromium, Chrome or Edge version")
    return found.group(1)


def tflite_threads() -> int:
    """The threads Chromium's LiteRT interpreter computes on, as
    services/webnn/tflite/graph_impl_tflite.cc picks them: half the
    processors, rounded up, at most 4 (one on a 2-core machine). No
    command-line switch, feature or page API sets them; only the processors
    the browser sees (its CPU affinity, a container's limit) change them."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return min(4, (cores + 1) // 2)


def _seconds(text: str, name: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0 or math.isinf(value):
        raise BackendError(f"{name} must be a positive number of seconds, got {text!r}")
    return value


class ChromiumBackend:
    name = "chromium"

    def __init__(self, options: Mapping[str, str]):
        reject_unknown_options("chromium", options, OPTIONS)
        if importlib.util.find_spec("playwright") is None:
            raise BackendError("chromium backend needs playwright: pip install 'webnn-harness[chromium]'")
        self.device = options.get("device", "cpu")
        if self.device not in DEVICES:
            raise BackendError(f"device {self.device!r}: expected one of {', '.join(DEVICES)}")
        self.call_timeout = _seconds(options.get("call_timeout", "30"), "call_timeout")
        self.crash_on_op = options.get("crash_on_op") or None
        self.target = _target(options)
        self.version = executable_version(self.target.executable)
        from webnn_harness.backends.chromium.browser import FLAGS, Browser

        self.flags = FLAGS
        # Resolved: the driver runs in another working folder, and the browser finds its SwiftShader libraries
        # beside its own file, not beside a link to it.
        self.browser = Browser(self.target.executable.resolve(), self.flags)
        self._declared: dict | None = None
        self._bench = None  # the bench plan prepared in the page (backends/chromium/bench.py)

    def info(self) -> BackendInfo:
        settings = {
            "deviceType": self.device,
            # an installed package by its version (no local path in records); an -o executable as given
            "executable": None if self.target.package_version else str(self.target.executable),
            "package": f"@sparticuz/chromium@{self.target.package_version}" if self.target.package_version else None,
            "packageVersion": self.target.package_version,
            "flags": list(self.flags),
            "preferred_batch_size": BATCH_SIZE,
            "call_timeout": self.call_timeout,
        }
        if self.crash_on_op:
            settings["crash_on_op"] = self.crash_on_op
        return BackendInfo(name=self.name, version=self.version, device=f"{self.device} (Chromium WebNN)",
                           settings=settings, host_cpu=self.device == "cpu",
                           threads=tflite_threads() if self.device == "cpu" else None)

    def declared_limits(self) -> dict:
        """The context's ``opSupportLimits()`` (asked once), spec-shaped, with
        the browser, its version and the device type under ``$provenance``."""
        from webnn_harness.backends.chromium.limits import declared_table

        if self._declared is None:
            limits = self.browser.call("opSupportLimits", self.device)
            self._declared = declared_table(limits, "Chromium", self.version, self.device)
        return self._declared

    def build(self, graph: Graph) -> PageGraph:
        from webnn_harness.backends.chromium.payload import graph_payload

        return PageGraph(graph, graph_payload(graph))

    def build_batch(self, graphs: Sequence[Graph]) -> list[Any]:
        out: list[Any] = []
        for graph in graphs:
            try:
                out.append(self.build(graph))
            except Exception as exc:  # noqa: BLE001 - the worker classifies it
                out.append(exc)
        return out

    def compute(self, compiled: PageGraph, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        (result,) = self.compute_batch([compiled], [inputs])
        if isinstance(result, BaseException):
            raise result
        return result

    def compute_batch(self, compiled: Sequence[Any], inputs: Sequence[Mapping[str, np.ndarray]]) -> list[Any]:
        """Every built case of the batch built, dispatched and read back in
        as few page calls as their tensors allow (CALL_BYTES a call)."""
        from webnn_harness.backends.chromium.payload import decode_outputs, encoded_size, feeds_payload

        results: list[Any] = [None] * len(compiled)
        ready = [i for i, c in enumerate(compiled) if isinstance(c, PageGraph)]
        several = len(ready) > 1
        items = {i: {"graph": compiled[i].payload, "feeds": feeds_payload(compiled[i].graph, inputs[i])} for i in ready}
        for call in _calls(ready, {i: encoded_size(item) for i, item in items.items()}):
            crash = self.crash_on_op is not None and any(self.crash_on_op in compiled[i].graph.ops for i in call)
            answers = self.browser.call("runCases", self.device, [items[i] for i in call], crash=crash,
                                        timeout=self.call_timeout + len(call) if several else None)
            for i, answer in zip(call, answers):
                graph = compiled[i].graph
                results[i] = decode_outputs(graph, self._taken(answer["outputs"])) if "outputs" in answer \
                    else self.classify(answer["error"], graph)
        return results

    def _taken(self, outputs: Mapping[str, Any]) -> dict[str, Any]:
        """The outputs with each one the page held (``{"held": id}``) taken back as bytes, a chunk a call."""
        import base64

        out = dict(outputs)
        for name, value in outputs.items():
            if isinstance(value, Mapping) and "held" in value:
                chunks = [base64.b64decode(self.browser.call("take", value["held"], offset, TAKE_BYTES))
                          for offset in range(0, value["byteLength"], TAKE_BYTES)]
                self.browser.call("release", value["held"])
                out[name] = b"".join(chunks)
        return out

    def timed_plan(self, plan):
        """A bench variant built and timed in the page (backends/base.py, TimedPlan)."""
        from webnn_harness.backends.chromium.bench import timed_variant

        previous, self._bench = self._bench, None
        timed, self._bench = timed_variant(self, plan, previous)
        return timed

    def classify(self, error: Mapping[str, str], graph: Graph) -> Exception:
        """What the browser's exception is (the module docstring's table)."""
        from webnn_harness.backends.chromium.limits import outside_declared

        text = f"{error['stage']} threw {error['name']}: {error['message']}"
        if error["name"] == "NotSupportedError":
            return Unsupported(text)
        if error["name"] == "TypeError":
            why = outside_declared(graph, self.declared_limits())
            if why:
                return Unsupported(f"{text} (outside the context's declared opSupportLimits(): {why})")
            return BuildFailure(f"{text} (a graph valid by the spec and inside the context's declared "
                                "opSupportLimits(): a validation bug)")
        return BuildFailure(text)


def _calls(indices: Sequence[int], nbytes: Mapping[int, int]) -> list[list[int]]:
    """``indices`` cut into runs of at most CALL_BYTES of encoded tensors (one case at least per run)."""
    calls: list[list[int]] = []
    total = 0
    for i in indices:
        if not calls or total + nbytes[i] > CALL_BYTES:
            calls.append([])
            total = 0
        calls[-1].append(i)
        total += nbytes[i]
    return calls


def create(options: Mapping[str, str]) -> ChromiumBackend:
    return ChromiumBackend(options)


def _unready() -> str | None:
    """Why no chromium backend can be made here without options: a default run leaves it out with this line."""
    from webnn_harness.backends.chromium import install

    if importlib.util.find_spec("playwright") is None:
        return "it needs playwright: pip install 'webnn-harness[chromium]'"
    if not install.installed():
        return f"no Chromium installed in {install.browsers_folder()}; run 'webnn-harness browsers install'"
    return None


def _installed_variants() -> tuple[dict[str, str], ...]:
    """One ``-o version=V`` per installed browser, oldest first."""
    from webnn_harness.backends.chromium import install

    return tuple({"version": b.version} for b in install.installed())


create.facts = BackendFacts(  # what the harness reads before making one (backends/base.py, "Facts")
    # Playwright's driver is the worker's heavy import; the browser is launched per worker.
    preload=("playwright.sync_api",),
    # No threads option: Chromium's WebNN service picks LiteRT's threads itself (tflite_threads),
    # and no command-line switch or page API sets them (README, "Chromium: WebNN itself").
    rerun_options=(SettingOption("deviceType", "device", "cpu"),
                   # the exact package a record ran on, always repeated: the default is whichever is installed
                   SettingOption("packageVersion", "version", ""),
                   SettingOption("executable", "executable", "")),
    unready=_unready,
    installed_variants=_installed_variants,
    # On the CPU, Chromium's WebNN runs the graph on LiteRT (its TFLite backend, XNNPACK delegate):
    # the performance page sets a chromium column beside a litert one to show the browser's own cost.
    runtime="litert",
)


# Known failures: backends/chromium/known_failures.json (harness/verdict/expectations.py format).

__all__ = ["ChromiumBackend", "create"]
