"""Reference results, computed once per case and kept.

Every verdict needs the float64 reference of its case (expected values where
the case gives none, and the masks of implementation-defined elements). It is
kept at two levels:

- in the worker, for the batch in progress: the reference backend's own
  ``compute`` and the judging of that case share one evaluation (the
  memo the reference backend's compute shares, harness/spec/evaluation_memo.py);
- on disk, under ``$XDG_CACHE_HOME/webnn-harness/reference`` (default
  ``~/.cache/webnn-harness``), for the cases whose evaluation is slow (2 ms or
  more: large tensors, recurrent ops), so the next backend of the same run
  and later runs read it instead of computing it again. Cheap cases are
  computed again: an entry costs about as much to write or read.

A disk entry is keyed by the case's source (the SHA-256 of its file's bytes,
its index and name: any edit to the file invalidates its cases), the harness
(version and the SHA-256 of its own source files, so an edited checkout never
reads results of other code), numpy's version and the machine. Entries are
written to a temporary file and renamed, so concurrent workers never see half
a file; an unreadable entry is computed again. ``run --no-cache`` turns the
disk level off.
"""
from __future__ import annotations

import hashlib
import io
import json
import math
import os
import platform
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

import numpy as np

import webnn_harness
from webnn_harness import __version__
from webnn_harness.spec.exact import ReferenceOutput, exact_reference
from webnn_harness.spec import evaluation_memo as memo
from webnn_harness.spec.evaluation_memo import EvaluationMemo
from webnn_harness.files import reading
from webnn_harness.files.writes import write_atomic
from webnn_harness.spec.uniform import is_uniform, uniform_value

# Entries over this size are not kept (a 6000x6000 float32 output that is not
# one value would be 144 MB a case).
MAX_ENTRY_BYTES = 16 << 20
# Only evaluations that took this long are kept on disk: writing or reading
# an entry costs about as much as evaluating a small case (~0.1-0.5 ms), so
# keeping those would make both cold and warm runs slower.
MIN_SECONDS_TO_KEEP = 0.002


def default_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "webnn-harness" / "reference"


@lru_cache(maxsize=1)
def code_digest() -> str:
    """SHA-256 over the harness's own source and data files (the loader, the
    spec's create steps and the reference ops all shape a reference result)."""
    digest = hashlib.sha256(__version__.encode())
    for root in (Path(webnn_harness.__file__).parent, exact_reference().source_folder):
        for path in sorted(root.rglob("*")):
            if path.suffix in (".py", ".json") and path.is_file():
                digest.update(str(path.relative_to(root)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def entry_key(source_key: str) -> str:
    text = json.dumps([source_key, code_digest(), np.__version__, platform.machine()])
    return hashlib.sha256(text.encode()).hexdigest()


class ReferenceCache:
    def __init__(self, folder: Path | None, evaluations: EvaluationMemo | None = None):
        self.folder = folder  # None: memory only
        self.memo = evaluations if evaluations is not None else EvaluationMemo()
        self._names: set[str] | None = None

    # -- on disk --------------------------------------------------------------
    def outputs_for(self, case) -> dict:
        """The reference outputs of ``case``: from memory, from disk, or computed (and kept)."""
        # The entry's name (a SHA-256 of the case's key) is worked out only when
        # the disk can answer (it holds entries) or the result is worth keeping:
        # on a cold cache most cases need neither, and hashing each cost about
        # as much as evaluating it.
        name = None
        hit = self.memo.recall(case.graph, case.inputs)  # the reference backend's own compute, just now
        if hit is None and self.folder is not None and self._listing():
            name = self._entry_name(case)
            if name is not None and name in self._listing():
                outputs = _read(self.folder / name)
                if outputs is not None and _fits(outputs, case.graph):
                    self.memo.remember(case.graph, case.inputs, outputs, 0.0)
                    return outputs
        if hit is None:
            self.memo.evaluate(case.graph, case.inputs)
            hit = self.memo.recall(case.graph, case.inputs)
        outputs, seconds = hit
        if seconds >= MIN_SECONDS_TO_KEEP and (name := name or self._entry_name(case)) is not None \
                and name not in self._listing():
            _write(self.folder / name, outputs)
            self._listing().add(name)
        return outputs

    def _entry_name(self, case) -> str | None:
        source_key = getattr(case, "source_key", "")
        if self.folder is None or not source_key:
            return None
        return f"{entry_key(source_key)}.ref"

    def _listing(self) -> set[str]:
        """The entries on disk, listed once per process (a look-up per case
        would cost what it saves); entries other workers add meanwhile are
        found by the next process."""
        if self._names is None:
            try:
                self._names = {e.name for e in os.scandir(self.folder) if e.name.endswith(".ref")}
            except OSError:
                self._names = set()
        return self._names


def _fits(outputs: Mapping[str, Any], graph) -> bool:
    """A read entry names the graph's outputs with their shapes and types."""
    if set(outputs) != set(graph.outputs):
        return False
    return all(out.values.shape == graph.descs[name].shape and out.values.dtype.name == graph.descs[name].data_type
               for name, out in outputs.items())


# The file: one JSON line ({"outputs": per output its name, shape, whether values and mask are one value
# broadcast, and reason; "sha256": of the rest}), then the arrays in .npy format, in order. The digest is
# what makes a damaged entry (a disk error, a partial copy, a hand edit) one that cannot be read, so it is
# computed again instead of judging a case against wrong numbers.
def _write(path: Path, outputs: Mapping[str, Any]) -> None:
    header, arrays = [], []
    for name, out in outputs.items():
        item = {"name": name, "shape": list(out.values.shape), "reason": out.reason}
        for part, array in (("values", out.values), ("undefined", out.undefined)):
            if array is None:
                item[part] = "none"
                continue
            item[part] = "uniform" if is_uniform(array) else "full"
            arrays.append(uniform_value(array) if is_uniform(array) else np.ascontiguousarray(array))
        header.append(item)
    if sum(a.nbytes for a in arrays) > MAX_ENTRY_BYTES:
        return
    body = io.BytesIO()
    for array in arrays:
        np.lib.format.write_array(body, array, allow_pickle=False)
    data = body.getvalue()
    line = json.dumps({"outputs": header, "sha256": hashlib.sha256(data).hexdigest()}).encode() + b"\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, line + data)  # concurrent workers never see half an entry
    except OSError:
        pass  # a read-only or full cache only costs speed (and leaves no temporary file: write_atomic)


MAX_HEADER_BYTES = 1 << 20


def _read(path: Path) -> dict | None:
    """The entry at ``path``, or None when it cannot be read whole and as written: garbage, a header that
    claims more values than the file holds, a digest that does not match. Never an exception."""
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_HEADER_BYTES + MAX_ENTRY_BYTES + (1 << 16) + 1)
        newline = data.index(b"\n", 0, MAX_HEADER_BYTES)
        head = reading.loads(data[:newline], str(path))
        body = data[newline + 1:]
        if not isinstance(head, dict) or head.get("sha256") != hashlib.sha256(body).hexdigest():
            return None
        fh = io.BytesIO(body)
        outputs = {}
        for item in head["outputs"]:
            parts = {}
            for part in ("values", "undefined"):
                if item[part] == "none":
                    parts[part] = None
                    continue
                array = _read_array(fh, len(body))
                parts[part] = np.broadcast_to(array, tuple(item["shape"])) if item[part] == "uniform" else array
            outputs[item["name"]] = ReferenceOutput(parts["values"], parts["undefined"], item["reason"])
        return outputs if fh.tell() == len(body) else None
    except (OSError, EOFError, ValueError, KeyError, TypeError, IndexError, OverflowError, MemoryError):
        return None


def _read_array(fh: io.BytesIO, limit: int) -> np.ndarray:
    """One .npy array of ``fh``, its header checked first: a header claiming more bytes than ``limit``
    is refused before numpy allocates them."""
    start = fh.tell()
    version = np.lib.format.read_magic(fh)
    read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
    shape, _, dtype = read_header(fh)
    if dtype.hasobject or math.prod(shape) * dtype.itemsize > limit:
        raise ValueError("an array larger than its entry")
    fh.seek(start)
    return np.lib.format.read_array(fh, allow_pickle=False)


_CACHE = ReferenceCache(None, memo.current())


def configure(use_disk: bool) -> ReferenceCache:
    """Set this process's cache (workers call it at start)."""
    global _CACHE
    _CACHE = ReferenceCache(default_folder() if use_disk else None)
    memo.use(_CACHE.memo)  # the reference backend's compute and the judge share its evaluations
    return _CACHE


def current() -> ReferenceCache:
    return _CACHE
