"""Build a TFLite flatbuffer model tensor by tensor, with the schema's
generated builder functions (``ai_edge_litert.schema_py_generated``,
shipped in the ai-edge-litert wheel; no converter, no TensorFlow).

``finish`` writes the model with the builder functions and every integer
vector in one piece (``CreateNumpyVector``), not through the object API's
``ModelT.Pack``: the bytes are the same (tests/test_litert_backend.py
checks it), and writing them took about 1 ms per graph that way, most of
a corpus run's LiteRT-only CPU time (issue 27).

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

from webnn_harness.backends.lowering import Call, Unlowerable  # noqa: F401 - the lowerings import them from here
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


def _options_type(options) -> int:
    """The BuiltinOptions union tag of an options object (``AddOptionsT`` -> AddOptions)."""
    return getattr(schema.BuiltinOptions, type(options).__name__[:-1])


class Tensor:
    """One tensor of the model, as ``finish`` writes it."""

    __slots__ = ("shape", "type", "buffer", "name")

    def __init__(self, shape: Sequence[int], type: int, buffer: int, name: str):
        self.shape, self.type, self.buffer, self.name = shape, type, buffer, name


class Operator:
    """One operator of the model: its opcode index, tensors and options object."""

    __slots__ = ("opcode", "inputs", "outputs", "options")

    def __init__(self, opcode: int, inputs: list[int], outputs: list[int], options):
        self.opcode, self.inputs, self.outputs, self.options = opcode, inputs, outputs, options


class Emitter:
    def __init__(self):
        self.tensors: list[Tensor] = []
        self.descs: list[TensorDesc] = []
        self.buffers: list[np.ndarray | None] = [None]  # buffer 0: the empty buffer every non-constant uses
        self.values: dict[int, np.ndarray] = {}  # constant tensor index -> value
        self.operators: list[Operator] = []
        self.opcodes: dict[int, int] = {}  # builtin code -> opcode index
        self._const_cache: dict[tuple, int] = {}

    # -- tensors ----------------------------------------------------------

    def tensor(self, desc: TensorDesc, name: str = "") -> int:
        if desc.data_type not in TFLITE_TYPES:
            raise Unlowerable(f"LiteRT has no tensor type for {desc.data_type}")
        self.tensors.append(Tensor(desc.shape, TFLITE_TYPES[desc.data_type], 0, name or f"t{len(self.tensors)}"))
        self.descs.append(desc)
        return len(self.tensors) - 1

    def constant(self, value: np.ndarray, data_type: str, name: str = "") -> int:
        """A constant tensor holding ``value`` as ``data_type`` ("bool" allowed)."""
        # np.asarray(order="C"), not ascontiguousarray: that one makes 0-D arrays 1-D.
        array = np.asarray(value, dtype=_numpy(data_type), order="C")
        index = self.tensor(TensorDesc(tuple(array.shape), data_type), name)
        self.buffers.append(array.reshape(-1).view(np.uint8))  # its bytes, not a copy
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
        self.operators.append(Operator(self.opcodes[code], [int(i) for i in inputs], outputs, options))
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
        """The model's bytes: the fields ``schema.ModelT.Pack`` writes for
        this model, in its order (so the same bytes), written directly."""
        size = sum(len(b) for b in self.buffers if b is not None)
        b = flatbuffers.Builder(size + 1024)
        codes = sorted(self.opcodes, key=self.opcodes.__getitem__)
        operator_codes = _table_vector(b, [_operator_code(b, code) for code in codes])
        subgraph = _subgraph(b, self.tensors, inputs, outputs, self.operators)
        subgraphs = _table_vector(b, [subgraph])
        description = b.CreateString("webnn-harness")
        buffers = _table_vector(b, [_buffer(b, data) for data in self.buffers])
        schema.ModelStart(b)
        schema.ModelAddVersion(b, 3)
        schema.ModelAddOperatorCodes(b, operator_codes)
        schema.ModelAddSubgraphs(b, subgraphs)
        schema.ModelAddDescription(b, description)
        schema.ModelAddBuffers(b, buffers)
        b.Finish(schema.ModelEnd(b), file_identifier=b"TFL3")
        return bytes(memoryview(b.Bytes)[b.Head():])  # Output() would copy once more


def _int32s(b: flatbuffers.Builder, values: Sequence[int]) -> int:
    return b.CreateNumpyVector(np.asarray(values, dtype="<i4").reshape(-1))


def _table_vector(b: flatbuffers.Builder, offsets: list[int]) -> int:
    b.StartVector(4, len(offsets), 4)
    for offset in reversed(offsets):
        b.PrependUOffsetTRelative(offset)
    return b.EndVector()


def _operator_code(b: flatbuffers.Builder, code: int) -> int:
    schema.OperatorCodeStart(b)
    schema.OperatorCodeAddDeprecatedBuiltinCode(b, min(code, PLACEHOLDER_FOR_GREATER_OP_CODES))
    schema.OperatorCodeAddVersion(b, FIRST_VERSION.get(code, 1))
    schema.OperatorCodeAddBuiltinCode(b, code)
    return schema.OperatorCodeEnd(b)


def _subgraph(b: flatbuffers.Builder, tensors: list[Tensor], inputs: Sequence[int], outputs: Sequence[int],
              operators: list[Operator]) -> int:
    tensor_offsets = []
    for t in tensors:
        shape = _int32s(b, t.shape)
        name = b.CreateString(t.name)
        schema.TensorStart(b)
        schema.TensorAddShape(b, shape)
        schema.TensorAddType(b, t.type)
        schema.TensorAddBuffer(b, t.buffer)
        schema.TensorAddName(b, name)
        tensor_offsets.append(schema.TensorEnd(b))
    tensor_vector = _table_vector(b, tensor_offsets)
    input_vector, output_vector = _int32s(b, inputs), _int32s(b, outputs)
    operator_offsets = []
    for op in operators:
        op_inputs, op_outputs = _int32s(b, op.inputs), _int32s(b, op.outputs)
        options = op.options.Pack(b) if op.options is not None else None
        schema.OperatorStart(b)
        schema.OperatorAddOpcodeIndex(b, op.opcode)
        schema.OperatorAddInputs(b, op_inputs)
        schema.OperatorAddOutputs(b, op_outputs)
        if options is not None:
            schema.OperatorAddBuiltinOptionsType(b, _options_type(op.options))
            schema.OperatorAddBuiltinOptions(b, options)
        operator_offsets.append(schema.OperatorEnd(b))
    operator_vector = _table_vector(b, operator_offsets)
    name = b.CreateString("webnn")
    schema.SubGraphStart(b)
    schema.SubGraphAddTensors(b, tensor_vector)
    schema.SubGraphAddInputs(b, input_vector)
    schema.SubGraphAddOutputs(b, output_vector)
    schema.SubGraphAddOperators(b, operator_vector)
    schema.SubGraphAddName(b, name)
    return schema.SubGraphEnd(b)


def _byte_vector(b: flatbuffers.Builder, data: np.ndarray) -> int:
    """``b.CreateNumpyVector(data)`` for bytes, without its two copies (a
    byteswap of a one-byte type, then tobytes): a WPT case holds a 144 MB
    constant, and each copy of it took about a second."""
    b.StartVector(1, data.size, 1)
    b.head -= data.size
    b.Bytes[b.head:b.head + data.size] = memoryview(data)
    b.vectorNumElems = data.size
    return b.EndVector()


def _buffer(b: flatbuffers.Builder, data: np.ndarray | None) -> int:
    vector = _byte_vector(b, data) if data is not None else None
    schema.BufferStart(b)
    if vector is not None:
        schema.BufferAddData(b, vector)
    return schema.BufferEnd(b)


def _numpy(data_type: str) -> np.dtype:
    if data_type == "bool":
        return np.dtype("bool")
    from webnn_harness.spec.dtypes import numpy_dtype

    return numpy_dtype(data_type)


def broadcast_shape(*shapes: Sequence[int]) -> tuple[int, ...]:
    return tuple(np.broadcast_shapes(*[tuple(s) for s in shapes]))
