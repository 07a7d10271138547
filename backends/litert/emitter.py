"""Build a TFLite flatbuffer model tensor by tensor, with the schema's
object API (``ai_edge_litert.schema_py_generated``, shipped in the
ai-edge-litert wheel; no converter, no TensorFlow).

The lowering functions (backends/litert/lower/) see one ``Emitter`` per
graph. Unlike ONNX, every TFLite tensor carries its shape, so each op is
added with the descriptor of its output; the lowering computes it (the
WebNN create steps give it for every WebNN operand). TFLite does not check
a declared shape: it resizes it in ``allocate_tensors`` (issue 27), so
``LiteRtBackend.build`` compares the outputs' shapes after allocation.
Constants are folded here where a lowering only rearranges them (a filter's
transpose), so the model holds the layout the kernel wants.
"""
from __future__ import annotations

from typing import Sequence

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as schema

from webnn_harness.backends.lowering import Call  # noqa: F401 - the lowerings import it from here
from webnn_harness.spec.graph import TensorDesc

T = schema.TensorType
# WebNN data type -> TFLite tensor type ("bool" only inside a lowering).
TFLITE_TYPES: dict[str, int] = {
    "float32": T.FLOAT32, "float16": T.FLOAT16, "int32": T.INT32, "uint32": T.UINT32,
    "int64": T.INT64, "uint64": T.UINT64, "int8": T.INT8, "uint8": T.UINT8, "bool": T.BOOL,
    "int4": T.INT4,
}
OP = schema.BuiltinOperator
# Builtins whose first registered version is not 1 (LiteRT's resolver finds
# no kernel for version 1 of these).
FIRST_VERSION = {OP.BROADCAST_TO: 2}
# Opcodes beyond 127 go in builtinCode; the deprecated byte field holds this marker.
PLACEHOLDER_FOR_GREATER_OP_CODES = 127


class Unlowerable(Exception):
    """The lowering refuses this node (an op, option or data type LiteRT lacks)."""


def _options_type(options) -> int:
    """The BuiltinOptions union tag of an options object (``AddOptionsT`` -> AddOptions)."""
    return getattr(schema.BuiltinOptions, type(options).__name__[:-1])


class Emitter:
    def __init__(self):
        self.tensors: list = []
        self.descs: list[TensorDesc] = []
        self.buffers: list = [schema.BufferT()]  # buffer 0: the empty buffer every non-constant uses
        self.values: dict[int, np.ndarray] = {}  # constant tensor index -> value
        self.operators: list = []
        self.opcodes: dict[int, int] = {}  # builtin code -> opcode index
        self._const_cache: dict[tuple, int] = {}

    # -- tensors ----------------------------------------------------------

    def tensor(self, desc: TensorDesc, name: str = "") -> int:
        if desc.data_type not in TFLITE_TYPES:
            raise Unlowerable(f"LiteRT has no tensor type for {desc.data_type}")
        t = schema.TensorT()
        t.shape = list(desc.shape)
        t.type = TFLITE_TYPES[desc.data_type]
        t.buffer = 0
        t.name = name or f"t{len(self.tensors)}"
        self.tensors.append(t)
        self.descs.append(desc)
        return len(self.tensors) - 1

    def constant(self, value: np.ndarray, data_type: str, name: str = "") -> int:
        """A constant tensor holding ``value`` as ``data_type`` ("bool" allowed)."""
        # np.asarray(order="C"), not ascontiguousarray: that one makes 0-D arrays 1-D.
        array = np.asarray(value, dtype=_numpy(data_type), order="C")
        index = self.tensor(TensorDesc(tuple(array.shape), data_type), name)
        buffer = schema.BufferT()
        buffer.data = np.frombuffer(array.tobytes(), np.uint8)
        self.buffers.append(buffer)
        self.tensors[index].buffer = len(self.buffers) - 1
        self.values[index] = array
        return index

    def const(self, value, data_type: str, shape: Sequence[int] | None = None) -> int:
        """A small constant (shapes, axes, scalars), shared between uses."""
        # An MLNumber beyond float16's range is infinite there, as the spec casts it.
        with np.errstate(over="ignore"):
            array = np.asarray(value, dtype=_numpy(data_type))
        if shape is not None:
            array = array.reshape(shape)
        key = (data_type, array.shape, array.tobytes())
        if key not in self._const_cache:
            self._const_cache[key] = self.constant(array, data_type)
        return self._const_cache[key]

    def i32(self, values) -> int:
        values = [int(v) for v in values]
        return self.const(values, "int32", (len(values),))

    def scalar(self, value, data_type: str) -> int:
        return self.const(value, data_type, ())

    # -- operators --------------------------------------------------------

    def op(self, code: int, inputs: Sequence[int], out: TensorDesc | Sequence[TensorDesc], options=None):
        """Add an operator; its new output tensor (a list when ``out`` is a list)."""
        self.opcodes.setdefault(code, len(self.opcodes))
        single = isinstance(out, TensorDesc)
        outputs = [self.tensor(d) for d in ([out] if single else out)]
        operator = schema.OperatorT()
        operator.opcodeIndex = self.opcodes[code]
        operator.inputs = [int(i) for i in inputs]
        operator.outputs = outputs
        if options is not None:
            operator.builtinOptionsType = _options_type(options)
            operator.builtinOptions = options
        self.operators.append(operator)
        return outputs[0] if single else outputs

    def desc(self, index: int) -> TensorDesc:
        return self.descs[index]

    def cast(self, x: int, data_type: str) -> int:
        if self.descs[x].data_type == data_type:
            return x
        if x in self.values:
            return self.constant(self.values[x].astype(_numpy(data_type)), data_type)
        return self.op(OP.CAST, [x], TensorDesc(self.descs[x].shape, data_type))

    def reshape(self, x: int, shape: Sequence[int]) -> int:
        desc = self.descs[x]
        if x in self.values:
            return self.constant(self.values[x].reshape(shape), desc.data_type)
        return self.op(OP.RESHAPE, [x, self.i32(shape)], TensorDesc(tuple(shape), desc.data_type))

    def transpose(self, x: int, perm: Sequence[int]) -> int:
        perm = [int(p) for p in perm]
        if perm == list(range(len(perm))):
            return x
        desc = self.descs[x]
        if x in self.values:
            return self.constant(np.transpose(self.values[x], perm), desc.data_type)
        shape = tuple(desc.shape[p] for p in perm)
        return self.op(OP.TRANSPOSE, [x, self.i32(perm)], TensorDesc(shape, desc.data_type))

    def like(self, x: int, data_type: str | None = None, shape: Sequence[int] | None = None) -> TensorDesc:
        """The descriptor of ``x`` with another data type or shape."""
        desc = self.descs[x]
        return TensorDesc(tuple(desc.shape if shape is None else shape), data_type or desc.data_type)

    # -- the model ----------------------------------------------------------

    def finish(self, inputs: Sequence[int], outputs: Sequence[int]) -> bytes:
        subgraph = schema.SubGraphT()
        subgraph.tensors = self.tensors
        subgraph.inputs = list(inputs)
        subgraph.outputs = list(outputs)
        subgraph.operators = self.operators
        subgraph.name = "webnn"
        model = schema.ModelT()
        model.version = 3
        model.operatorCodes = [None] * len(self.opcodes)
        for code, index in self.opcodes.items():
            opcode = schema.OperatorCodeT()
            opcode.builtinCode = code
            opcode.deprecatedBuiltinCode = min(code, PLACEHOLDER_FOR_GREATER_OP_CODES)
            opcode.version = FIRST_VERSION.get(code, 1)
            model.operatorCodes[index] = opcode
        model.subgraphs = [subgraph]
        model.buffers = self.buffers
        model.description = "webnn-harness"
        size = sum(len(b.data) for b in self.buffers if b.data is not None)
        builder = flatbuffers.Builder(size + 1024)
        builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
        return bytes(builder.Output())


def _numpy(data_type: str) -> np.dtype:
    if data_type == "bool":
        return np.dtype("bool")
    from webnn_harness.spec.dtypes import numpy_dtype

    return numpy_dtype(data_type)


def broadcast_shape(*shapes: Sequence[int]) -> tuple[int, ...]:
    return tuple(np.broadcast_shapes(*[tuple(s) for s in shapes]))
