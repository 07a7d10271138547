"""Tensor bytes kept beside a case file: the ``{"sidecar": ...}`` data form.

A model's weights (``webnn-harness import-onnx``) are too many to write as
JSON number lists, so a case may point a tensor into a raw little-endian file
in its own folder (the format: /work/notes/model-case-format.md, the README's
"Importing ONNX models"):

    {"sidecar": {"file": "resnet.weights.bin", "offset": 0, "byteLength": 37632, "sha256": "..."}}

The file is as untrusted as the case: its name must be a plain file name that
stays in the case file's folder, it must be a regular file, the slice must lie
inside it, be exactly the descriptor's size (checked against the per-case
limit from the descriptors before this is called) and hash to the sha256 the
case declares. Each failure is a ``TensorValueError`` naming what is wrong;
the loader turns it into one CaseError for the field.
"""
from __future__ import annotations

import hashlib
import re
import stat
from math import prod
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from webnn_harness.spec.dtypes import numpy_dtype
from webnn_harness.spec.values import INT4_DTYPES, TensorValueError

# A plain file name: no folder part, no leading dot, nothing a shell or a file system reads twice.
_PLAIN_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+-]{0,199}$")
# int4 / uint4 are stored one value per byte, in these containers.
_INT4_CONTAINERS = {"int4": np.dtype("int8"), "uint4": np.dtype("uint8")}


def sidecar_path(folder: Path | None, name: object) -> Path:
    """The sidecar file ``name`` in ``folder``; a TensorValueError for a name
    that is not a plain file name or that leads out of the folder (a link)."""
    if folder is None:
        raise TensorValueError("a sidecar is read beside its case file; this case was not read from a file")
    if not isinstance(name, str) or not _PLAIN_NAME.match(name) or ".." in name:
        raise TensorValueError(f"sidecar file {str(name)[:80]!r} is not a plain file name in the case's folder")
    path = folder / name
    try:
        if path.resolve().parent != folder.resolve():
            raise TensorValueError(f"sidecar file {name!r} leads out of the case's folder")
    except (OSError, RuntimeError) as exc:
        raise TensorValueError(f"sidecar file {name!r}: {exc}") from None
    return path


def read_sidecar(spec: Mapping, folder: Path | None, shape: Sequence[int], data_type: str) -> np.ndarray:
    """The tensor a ``{"sidecar": spec}`` data form points at, checked as the module says."""
    path = sidecar_path(folder, spec.get("file"))
    offset, length = spec.get("offset"), spec.get("byteLength")
    dtype = numpy_dtype(data_type)
    stored = _INT4_CONTAINERS.get(data_type, dtype)
    want = prod(shape) * stored.itemsize
    if length != want:
        raise TensorValueError(f"sidecar byteLength {length} but {data_type}{list(shape)} needs {want} bytes")
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):
            raise TensorValueError(f"sidecar file {path.name!r} is not a regular file")
        if offset + length > st.st_size:
            raise TensorValueError(f"sidecar slice [{offset}, {offset + length}) is beyond the end of "
                                   f"{path.name!r} ({st.st_size} bytes)")
        with open(path, "rb") as f:
            f.seek(offset)
            data = f.read(length)
    except OSError as exc:
        raise TensorValueError(f"cannot read sidecar file {path.name!r}: {exc.strerror or exc}") from None
    if len(data) != length:  # the file shrank between stat and read
        raise TensorValueError(f"sidecar file {path.name!r} is truncated")
    if hashlib.sha256(data).hexdigest() != spec.get("sha256"):
        raise TensorValueError(f"sidecar slice of {path.name!r} at {offset} does not match its sha256")
    values = np.frombuffer(data, dtype=stored.newbyteorder("<")).reshape(tuple(shape))
    if dtype in INT4_DTYPES:
        lo, hi = (-8, 7) if data_type == "int4" else (0, 15)
        if values.size and (values.min() < lo or values.max() > hi):
            raise TensorValueError(f"sidecar holds a value outside {data_type}'s [{lo}, {hi}]")
    return values.astype(dtype)  # native order, writable, its own memory


def sidecar_slice(data: bytes, offset: int, file: str) -> dict:
    """The ``sidecar`` form for ``data`` written at ``offset`` of ``file`` (the writer's half)."""
    return {"file": file, "offset": offset, "byteLength": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def tensor_bytes(array: np.ndarray, data_type: str) -> bytes:
    """``array`` as a sidecar stores it: little-endian, int4/uint4 one value per byte."""
    stored = _INT4_CONTAINERS.get(data_type, numpy_dtype(data_type))
    return np.ascontiguousarray(np.asarray(array).astype(stored.newbyteorder("<"))).tobytes()
