"""Build an ONNX ModelProto node by node, directly with onnx.helper.

The lowering functions (backends/onnxruntime/lower/) see one ``Emitter`` per
graph: it hands out fresh value names, adds nodes, turns numpy arrays into
initializers (small ones shared) and keeps the WebNN descriptors at hand.
No onnx.checker here: it costs milliseconds per model and the tests run it.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from webnn_harness.backends.lowering import Call, Unlowerable  # noqa: F401 - the lowerings import them from here
from webnn_harness.spec.graph import TensorDesc
from webnn_harness.spec.uniform import is_uniform, uniform_value

# WebNN data type -> ONNX element type.
ONNX_TYPES: dict[str, int] = {
    "float32": TensorProto.FLOAT,
    "float16": TensorProto.FLOAT16,
    "int32": TensorProto.INT32,
    "uint32": TensorProto.UINT32,
    "int64": TensorProto.INT64,
    "uint64": TensorProto.UINT64,
    "int8": TensorProto.INT8,
    "uint8": TensorProto.UINT8,
    # int4/uint4 (a browser extension for the quantization ops) travel in
    # int8/uint8 tensors: ORT's CPU kernels for Reshape and Expand, which the
    # quantization lowerings need, have no int4 (onnxruntime#24285), and every
    # int4 value is exact in int8. The lowerings saturate to the 4-bit range.
    "int4": TensorProto.INT8,
    "uint4": TensorProto.UINT8,
    # Only inside a lowering, never at a WebNN boundary:
    "bool": TensorProto.BOOL,
    "float64": TensorProto.DOUBLE,
}

INT4_CARRIERS = {"int4": np.dtype("int8"), "uint4": np.dtype("uint8")}


# A uniform constant (one value broadcast, harness/spec/uniform.py) of this many
# bytes or more is emitted as an external initializer that names its value
# instead of holding its bytes (``uniform_external``): WPT's "large inputs"
# constant is 144 MB, which cost more to convert, type-infer, serialise and
# parse than every other case of the corpus to build.
UNIFORM_EXTERNAL_MIN_BYTES = 1 << 20
UNIFORM_LOCATION = "webnn-harness:uniform"


def uniform_external(name: str, array: np.ndarray):
    """An initializer for ``array`` (uniform) whose data ORT is handed at
    session creation (``uniform_values``), with the one value in its entry."""
    tensor = TensorProto(name=name, data_type=helper.np_dtype_to_tensor_dtype(array.dtype), dims=array.shape,
                         data_location=TensorProto.EXTERNAL)
    for key, value in (("location", UNIFORM_LOCATION), ("value", uniform_value(array).tobytes().hex())):
        entry = tensor.external_data.add()
        entry.key, entry.value = key, value
    return tensor


def uniform_values(model) -> dict[str, np.ndarray]:
    """name -> full array, for the initializers ``uniform_external`` made."""
    out = {}
    for tensor in model.graph.initializer:
        entries = {e.key: e.value for e in tensor.external_data}
        if tensor.data_location == TensorProto.EXTERNAL and entries.get("location") == UNIFORM_LOCATION:
            dtype = helper.tensor_dtype_to_np_dtype(tensor.data_type)
            value = np.frombuffer(bytes.fromhex(entries["value"]), dtype)[0]
            out[tensor.name] = np.full(tuple(tensor.dims), value, dtype)
    return out


class Emitter:
    def __init__(self, opset: int, reserved: set[str], external_uniform: bool = False):
        self.opset = opset
        self.external_uniform = external_uniform  # large uniform constants as uniform_external
        self.nodes: list = []
        self.initializers: list = []
        self.reserved = reserved  # WebNN operand names: never reused for temporaries
        self._count = 0
        self._const_cache: dict[tuple, str] = {}

    def fresh(self, hint: str = "t") -> str:
        while True:
            self._count += 1
            name = f"ort:{hint}:{self._count}"
            if name not in self.reserved:
                return name

    def op(self, op_type: str, inputs: Sequence[str], outputs: int | Sequence[str] = 1, **attrs):
        """Add a node; return its output name (or list of names when outputs > 1
        or a list of names was given)."""
        attrs = {k: v for k, v in attrs.items() if v is not None}
        if isinstance(outputs, int):
            names = [self.fresh(op_type) for _ in range(outputs)]
            single = outputs == 1
        else:
            names = list(outputs)
            single = False
        self.nodes.append(helper.make_node(op_type, list(inputs), names, **attrs))
        return names[0] if single else names

    def initializer(self, name: str, value: np.ndarray) -> str:
        carrier = INT4_CARRIERS.get(np.asarray(value).dtype.name)
        if self.external_uniform and carrier is None and is_uniform(value) \
                and value.nbytes >= UNIFORM_EXTERNAL_MIN_BYTES:
            self.initializers.append(uniform_external(name, value))
            return name
        # np.asarray(order="C"), not ascontiguousarray: that one makes 0-D arrays 1-D.
        array = np.asarray(value, order="C")
        if carrier is not None:
            array = array.astype(carrier)
        self.initializers.append(numpy_helper.from_array(array, name))
        return name

    def const(self, value, data_type: str, shape: Sequence[int] | None = None) -> str:
        """A constant tensor of a WebNN (or 'float64'/'bool') data type."""
        dtype = np.dtype("bool") if data_type == "bool" else np.dtype(data_type)
        array = np.asarray(value, dtype=dtype)
        if shape is not None:
            array = array.reshape(shape)
        key = (data_type, array.shape, array.tobytes()) if array.size <= 64 else None
        if key is not None and key in self._const_cache:
            return self._const_cache[key]
        name = self.initializer(self.fresh("const"), array)
        if key is not None:
            self._const_cache[key] = name
        return name

    def i64(self, values) -> str:
        """A 1-D int64 constant (shapes, axes, pads...)."""
        return self.const(list(values), "int64", (len(list(values)),))

    def scalar(self, value, data_type: str) -> str:
        return self.const(value, data_type, ())

    def cast(self, x: str, data_type: str) -> str:
        return self.op("Cast", [x], to=ONNX_TYPES[data_type])

    def transpose(self, x: str, perm: Sequence[int]) -> str:
        if list(perm) == list(range(len(perm))):
            return x
        return self.op("Transpose", [x], perm=list(perm))

    def reshape(self, x: str, shape: Sequence[int]) -> str:
        return self.op("Reshape", [x, self.i64(shape)], allowzero=1)

    def unsqueeze(self, x: str, axes: Sequence[int]) -> str:
        return self.op("Unsqueeze", [x, self.i64(axes)])

    def squeeze(self, x: str, axes: Sequence[int]) -> str:
        return self.op("Squeeze", [x, self.i64(axes)])


def value_info(name: str, desc: TensorDesc):
    return helper.make_tensor_value_info(name, ONNX_TYPES[desc.data_type], list(desc.shape))
