"""Create steps for the data-movement operators (see harness/spec/opspec/__init__.py).

One function per builder method, named like it, following the method steps of
the spec (index.bs, section "API"). Each validates what those steps validate,
resolves option defaults and returns the output descriptors.
"""
from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np

from webnn_harness.spec.dtypes import is_float, numpy_dtype
from webnn_harness.spec.graph import TensorDesc
from webnn_harness.spec.catalog import enum_values
from webnn_harness.spec.opspec.base import EXACT, MOVEMENT, Created, check, check_axes
from webnn_harness.spec.opspec.traits import InputValues, OpSpec, ProbePlan, Skip, Variation, declare, dims

# "A valid dimension is an integer greater than zero and in the range of long."
MAX_DIMENSION = 2**31 - 1
# "A valid tensor count is an integer greater than zero and less or equal to 8192."
MAX_TENSOR_COUNT = 8192
MAX_UNSIGNED_LONG = 2**32 - 1


def _is_unsigned_long(value: Any) -> bool:
    # WebIDL [EnforceRange] unsigned long: an integer in [0, 2^32 - 1].
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and 0 <= value <= MAX_UNSIGNED_LONG


def _unsigned_list(op: str, name: str, values: Any) -> list[int]:
    check(isinstance(values, (list, tuple)), f"{op}: {name} must be a sequence of unsigned long, got {values!r}")
    check(all(_is_unsigned_long(v) for v in values), f"{op}: {name} {list(values)} must hold unsigned long values")
    return [int(v) for v in values]


def _unsigned(op: str, name: str, value: Any) -> int:
    check(_is_unsigned_long(value), f"{op}: {name} {value!r} must be an unsigned long")
    return int(value)


def _check_dimensions(op: str, shape: Sequence[int]) -> None:
    """The spec's "check dimensions" of an MLOperandDescriptor: every size a
    valid dimension, and the element count a valid dimension too."""
    for size in shape:
        check(0 < size <= MAX_DIMENSION, f"{op}: output dimension {size} is not a valid dimension (1 to 2^31-1)")
    check(math.prod(shape) <= MAX_DIMENSION, f"{op}: output element count {math.prod(shape)} exceeds 2^31-1")


def _out(op: str, shape: Sequence[int], data_type: str) -> TensorDesc:
    shape = tuple(int(s) for s in shape)
    _check_dimensions(op, shape)
    return TensorDesc(shape, data_type)


def _resolved(attributes: Mapping[str, Any], **values: Any) -> dict[str, Any]:
    resolved = dict(attributes)
    resolved.update(values)
    return resolved


def cast_number(value: int | float, data_type: str) -> int | float:
    """The spec's "cast" of an MLNumber to a data type (section "Casting"):
    floats round to nearest even and overflow to +/-Infinity; integers clamp,
    round half to even, and NaN becomes 0.

    The spec maps "uint32" to ConvertToInt(x, 32, "signed"), which cannot be
    meant (it would clamp 4e9 to 2^31-1 and give negative uint32 values); we
    use "unsigned" like every other unsigned type."""
    if is_float(data_type):
        # float64 -> float32/float16 in numpy rounds to nearest even and
        # overflows to infinity exactly where ConvertToFloat's upperBound does.
        try:
            as_double = float(value)
        except OverflowError:  # a Python int beyond the float64 range
            as_double = math.inf if value > 0 else -math.inf
        with np.errstate(over="ignore"):
            return float(np.asarray(as_double).astype(numpy_dtype(data_type)))
    info = np.iinfo(numpy_dtype(data_type))
    if isinstance(value, float):
        if value != value:
            return 0
        if math.isinf(value):
            return int(info.max) if value > 0 else int(info.min)
        value = round(value)  # Python's round: half to even, exact for floats
    return int(min(max(int(value), int(info.min)), int(info.max)))


def reshape(operands, attributes) -> Created:
    input_ = operands["input"]
    new_shape = _unsigned_list("reshape", "newShape", attributes["newShape"])
    # No -1 / 0 placeholders as in ONNX: every item must be a valid dimension.
    for size in new_shape:
        check(0 < size <= MAX_DIMENSION, f"reshape: newShape {new_shape} has {size}, not a valid dimension")
    check(
        math.prod(new_shape) == input_.size,
        f"reshape: newShape {new_shape} has {math.prod(new_shape)} elements, input {input_} has {input_.size}",
    )
    return Created((_out("reshape", new_shape, input_.data_type),), _resolved(attributes, newShape=new_shape))


def transpose(operands, attributes) -> Created:
    input_ = operands["input"]
    permutation = attributes.get("permutation")
    if permutation is None:
        # "the reversed sequence of all indices for input's shape"
        permutation = list(reversed(range(input_.rank)))
    permutation = _unsigned_list("transpose", "permutation", permutation)
    check(len(permutation) == input_.rank,
          f"transpose: permutation {permutation} has {len(permutation)} values, input rank is {input_.rank}")
    check_axes(permutation, input_.rank, "transpose: permutation")
    # The spec's steps say "copying an MLOperand given input", which keeps the
    # input's shape; the output shape is the permuted one (the method's
    # description, WPT and every implementation).
    shape = [input_.shape[p] for p in permutation]
    return Created((_out("transpose", shape, input_.data_type),), _resolved(attributes, permutation=permutation))


def concat(operands, attributes) -> Created:
    inputs = operands["inputs"]
    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
    check(0 < len(inputs) <= MAX_TENSOR_COUNT, f"concat: {len(inputs)} inputs is not a valid tensor count")
    axis = _unsigned("concat", "axis", attributes["axis"])
    first = inputs[0]
    check(axis < first.rank, f"concat: axis {axis} is out of range for rank {first.rank}")
    size = first.shape[axis]
    for index, desc in enumerate(inputs[1:], start=1):
        check(desc.data_type == first.data_type,
              f"concat: inputs[{index}] data type {desc.data_type} differs from inputs[0] ({first.data_type})")
        check(desc.rank == first.rank, f"concat: inputs[{index}] rank {desc.rank} differs from inputs[0] ({first.rank})")
        for dim in range(first.rank):
            if dim != axis:
                check(desc.shape[dim] == first.shape[dim],
                      f"concat: inputs[{index}] shape {list(desc.shape)} differs from inputs[0] "
                      f"{list(first.shape)} in dimension {dim} (only axis {axis} may differ)")
        size += desc.shape[axis]
        check(size <= MAX_DIMENSION, f"concat: concatenated size {size} is not a valid dimension")
    shape = list(first.shape)
    shape[axis] = size
    return Created((_out("concat", shape, first.data_type),), _resolved(attributes, axis=axis))


def split(operands, attributes) -> Created:
    input_ = operands["input"]
    axis = _unsigned("split", "axis", attributes.get("axis", 0))
    check(axis < input_.rank, f"split: axis {axis} is out of range for rank {input_.rank}")
    splits = attributes["splits"]
    length = input_.shape[axis]
    if isinstance(splits, (list, tuple)):
        sizes = _unsigned_list("split", "splits", splits)
        check(0 < len(sizes) <= MAX_TENSOR_COUNT, f"split: {len(sizes)} splits is not a valid tensor count")
        check(all(s > 0 for s in sizes), f"split: splits {sizes} has a 0")
        check(sum(sizes) == length, f"split: splits {sizes} sum to {sum(sizes)}, input dimension {axis} is {length}")
    else:
        count = _unsigned("split", "splits", splits)
        check(0 < count <= MAX_TENSOR_COUNT, f"split: splits {count} is not a valid tensor count")
        check(length % count == 0, f"split: splits {count} does not evenly divide input dimension {axis} ({length})")
        sizes = [length // count] * count
    outputs = []
    for size in sizes:
        shape = list(input_.shape)
        shape[axis] = size
        outputs.append(_out("split", shape, input_.data_type))
    # ``splits`` is resolved to the list of output sizes along ``axis`` (the
    # number form means equal parts), so a backend reads one form only.
    return Created(tuple(outputs), _resolved(attributes, splits=sizes, axis=axis))


def slice(operands, attributes) -> Created:  # noqa: A001 - named like the spec method
    input_ = operands["input"]
    starts = _unsigned_list("slice", "starts", attributes["starts"])
    sizes = _unsigned_list("slice", "sizes", attributes["sizes"])
    check(all(s != 0 for s in sizes), f"slice: sizes {sizes} has a 0")
    check(len(starts) == input_.rank and len(sizes) == input_.rank,
          f"slice: starts {starts} and sizes {sizes} must both have input rank {input_.rank} values")
    strides = attributes.get("strides")
    if strides is None:
        strides = [1] * input_.rank  # "an array of length rank consisting of all 1's"
    strides = _unsigned_list("slice", "strides", strides)
    check(len(strides) == input_.rank, f"slice: strides {strides} must have input rank {input_.rank} values")
    shape = []
    for dim, (start, size, stride, length) in enumerate(zip(starts, sizes, strides, input_.shape)):
        check(stride >= 1, f"slice: strides[{dim}] is {stride}, must be at least 1")
        check(start <= length, f"slice: starts[{dim}] {start} is beyond input dimension size {length}")
        check(start + size <= length,
              f"slice: starts[{dim}] + sizes[{dim}] = {start + size} exceeds input dimension size {length}")
        # ceil(size / stride): the elements start, start+stride, ... < start+size
        shape.append(size // stride + (1 if size % stride else 0))
    return Created((_out("slice", shape, input_.data_type),),
                   _resolved(attributes, starts=starts, sizes=sizes, strides=strides))


def expand(operands, attributes) -> Created:
    input_ = operands["input"]
    new_shape = _unsigned_list("expand", "newShape", attributes["newShape"])
    # "unidirectionally broadcasting" input's shape to newShape: the input may
    # not be larger than newShape in any dimension. ONNX Expand broadcasts
    # bidirectionally (a newShape 1 keeps the input's size); WebNN throws.
    check(len(new_shape) >= input_.rank,
          f"expand: newShape {new_shape} has lower rank than input {input_}")
    padded = (1,) * (len(new_shape) - input_.rank) + input_.shape
    for dim, (size_from, size_to) in enumerate(zip(padded, new_shape)):
        check(size_from == size_to or size_from == 1,
              f"expand: input {input_} is not unidirectionally broadcastable to {new_shape} (dimension {dim})")
    return Created((_out("expand", new_shape, input_.data_type),), _resolved(attributes, newShape=new_shape))


def _gather_axis(op: str, input_: TensorDesc, attributes) -> int:
    axis = _unsigned(op, "axis", attributes.get("axis", 0))
    check(axis < input_.rank, f"{op}: axis {axis} is out of range for input rank {input_.rank}")
    return axis


def gather(operands, attributes) -> Created:
    input_, indices = operands["input"], operands["indices"]
    axis = _gather_axis("gather", input_, attributes)
    shape = input_.shape[:axis] + indices.shape + input_.shape[axis + 1:]
    return Created((_out("gather", shape, input_.data_type),), _resolved(attributes, axis=axis))


def _check_same_but_axis(op: str, indices: TensorDesc, input_: TensorDesc, axis: int) -> None:
    expected = list(input_.shape)
    expected[axis] = indices.shape[axis] if indices.rank > axis else None
    check(list(indices.shape) == expected,
          f"{op}: indices shape {list(indices.shape)} must equal input shape {list(input_.shape)} "
          f"except in dimension {axis}")


def gatherElements(operands, attributes) -> Created:  # noqa: N802 - spec method name
    input_, indices = operands["input"], operands["indices"]
    axis = _gather_axis("gatherElements", input_, attributes)
    _check_same_but_axis("gatherElements", indices, input_, axis)
    return Created((_out("gatherElements", indices.shape, input_.data_type),), _resolved(attributes, axis=axis))


def _nd_block_shape(op: str, input_: TensorDesc, indices: TensorDesc) -> tuple[int, ...]:
    """indices.shape[:-1] + input.shape[coordinateSize:] (gatherND output,
    scatterND updates)."""
    coordinate_size = indices.shape[-1]
    check(coordinate_size <= input_.rank,
          f"{op}: indices' last dimension {coordinate_size} exceeds input rank {input_.rank}")
    return indices.shape[:-1] + input_.shape[coordinate_size:]


def gatherND(operands, attributes) -> Created:  # noqa: N802 - spec method name
    input_, indices = operands["input"], operands["indices"]
    shape = _nd_block_shape("gatherND", input_, indices)
    return Created((_out("gatherND", shape, input_.data_type),), _resolved(attributes))


def scatterElements(operands, attributes) -> Created:  # noqa: N802 - spec method name
    input_, indices, updates = operands["input"], operands["indices"], operands["updates"]
    axis = _unsigned("scatterElements", "axis", attributes.get("axis", 0))
    check(axis < input_.rank, f"scatterElements: axis {axis} is out of range for input rank {input_.rank}")
    _check_same_but_axis("scatterElements", indices, input_, axis)
    check(updates.shape == indices.shape,
          f"scatterElements: updates shape {list(updates.shape)} must equal indices shape {list(indices.shape)}")
    return Created((_out("scatterElements", input_.shape, input_.data_type),), _resolved(attributes, axis=axis))


def scatterND(operands, attributes) -> Created:  # noqa: N802 - spec method name
    input_, indices, updates = operands["input"], operands["indices"], operands["updates"]
    expected = _nd_block_shape("scatterND", input_, indices)
    check(updates.shape == expected,
          f"scatterND: updates shape {list(updates.shape)} must be {list(expected)} "
          f"(indices.shape[:-1] + input.shape[indices.shape[-1]:])")
    return Created((_out("scatterND", input_.shape, input_.data_type),), _resolved(attributes))


def tile(operands, attributes) -> Created:
    input_ = operands["input"]
    repetitions = _unsigned_list("tile", "repetitions", attributes["repetitions"])
    check(len(repetitions) == input_.rank,
          f"tile: repetitions {repetitions} must have input rank {input_.rank} values")
    check(all(r != 0 for r in repetitions), f"tile: repetitions {repetitions} has a 0")
    shape = [size * r for size, r in zip(input_.shape, repetitions)]
    return Created((_out("tile", shape, input_.data_type),), _resolved(attributes, repetitions=repetitions))


def reverse(operands, attributes) -> Created:
    input_ = operands["input"]
    axes = attributes.get("axes")
    if axes is None:
        # "When this member is not present, it is treated as if all dimensions
        # are reversed. If explicitly passed as empty, no dimensions are reversed."
        axes = list(range(input_.rank))
    axes = _unsigned_list("reverse", "axes", axes)
    check_axes(axes, input_.rank, "reverse: axes")
    return Created((_out("reverse", input_.shape, input_.data_type),), _resolved(attributes, axes=axes))


PADDING_MODES = ("constant", "edge", "reflection")


def pad(operands, attributes) -> Created:
    input_ = operands["input"]
    beginning = _unsigned_list("pad", "beginningPadding", attributes["beginningPadding"])
    ending = _unsigned_list("pad", "endingPadding", attributes["endingPadding"])
    check(len(beginning) == input_.rank and len(ending) == input_.rank,
          f"pad: beginningPadding {beginning} and endingPadding {ending} must both have input rank {input_.rank} values")
    mode = attributes.get("mode") or "constant"
    check(mode in PADDING_MODES, f"pad: mode {mode!r} is not an MLPaddingMode ({', '.join(PADDING_MODES)})")
    shape = []
    for dim, (size, before, after) in enumerate(zip(input_.shape, beginning, ending)):
        if mode == "reflection":
            # Reflection mirrors without repeating the edge, so at most size-1
            # elements exist to mirror on each side.
            check(before < size and after < size,
                  f"pad: reflection padding [{before}, {after}] in dimension {dim} must be less than its size {size}")
        shape.append(size + before + after)
    for size in shape:
        check(size <= MAX_DIMENSION, f"pad: padded size {size} is not a valid dimension")
    value = attributes.get("value")
    # "Set options.value to the result of casting options.value to input's dataType."
    value = cast_number(0 if value is None else value, input_.data_type)
    return Created((_out("pad", shape, input_.data_type),),
                   _resolved(attributes, beginningPadding=beginning, endingPadding=ending, mode=mode, value=value))


# Probe plans (see traits.py).


def concat_arguments(v: Variation):
    r = v.rank_of("inputs", 2)
    if r == 0:
        raise Skip("needs rank >= 1")
    a = dims(r)
    b = a[:-1] + (a[-1] + 1,)
    return {"inputs": [a, b]}, {"axis": r - 1}


def expand_arguments(v: Variation):
    r = v.rank_of("input", 2)
    full = dims(r)
    ones = tuple(1 if i % 2 == 0 else d for i, d in enumerate(full))
    return {"input": ones}, {"newShape": list(full)}


def gather_arguments(v: Variation):
    if v.axis == "rank" and v.member == "indices":
        return {"input": (5,), "indices": dims(v.value)}, {"axis": 0}
    r = v.rank_of("input", 2)
    if r == 0:
        raise Skip("needs rank >= 1")
    return {"input": dims(r), "indices": (3,)}, {"axis": 0}


def gather_elements_arguments(v: Variation):
    r = v.rank_of("input", 2)
    if r == 0:
        raise Skip("needs rank >= 1")
    shape = dims(r)
    return {"input": shape, "indices": (3,) + shape[1:]}, {"axis": 0}


def gather_nd_arguments(v: Variation):
    if v.axis == "rank" and v.member == "output":  # a full coordinate picks one element
        return {"input": (4,), "indices": (1,)}, {}
    if v.axis == "rank" and v.member == "indices":
        q = v.value
        if q == 0:
            raise Skip("needs rank >= 1")
        return {"input": (4, 3), "indices": dims(q - 1) + (1,)}, {}
    r = v.rank_of("input", 2)
    if r == 0:
        raise Skip("needs rank >= 1")
    return {"input": dims(r), "indices": (2, 1)}, {}


def scatter_elements_arguments(v: Variation):
    r = v.rank_of("input", 2)
    if r == 0:
        raise Skip("needs rank >= 1")
    shape = dims(r)
    # One row of indices along axis 0: every position gets exactly one update,
    # so the result does not depend on the order updates are applied in.
    small = (1,) + shape[1:]
    return {"input": shape, "indices": small, "updates": small}, {"axis": 0}


def scatter_nd_arguments(v: Variation):
    if v.axis == "rank" and v.member == "indices":
        q = v.value
        if q == 0:
            raise Skip("needs rank >= 1")
        return {"input": (4,), "indices": (1,) * (q - 1) + (1,), "updates": (1,) * (q - 1)}, {}
    if v.axis == "rank" and v.member == "updates":
        u = v.value
        if u == 0:
            return {"input": (4,), "indices": (1,), "updates": ()}, {}
        shape = dims(u)
        return {"input": shape, "indices": (1, 1), "updates": (1,) + shape[1:]}, {}
    r = v.rank_of("input", 2)
    if r == 0:
        raise Skip("needs rank >= 1")
    shape = dims(r)
    return {"input": shape, "indices": (1, 1), "updates": (1,) + shape[1:]}, {}


def pad_arguments(v: Variation):
    r = v.rank_of("input", 2)
    mode = v.value if v.axis == "option" else "constant"
    attrs = {"beginningPadding": [1] * r, "endingPadding": [1 if i % 2 else 0 for i in range(r)], "mode": mode}
    if mode == "constant":
        attrs["value"] = 1
    return {"input": dims(r)}, attrs


def reshape_arguments(v: Variation):
    r = v.rank_of("input", 2)
    return {"input": dims(r)}, {"newShape": list(reversed(dims(r)))}


def input_only_arguments(v: Variation):
    """reverse, transpose: the input alone, every option at its default."""
    return {"input": dims(v.rank_of("input", 2))}, {}


def slice_arguments(v: Variation):
    shape = dims(v.rank_of("input", 2))
    starts = [1 if d > 1 else 0 for d in shape]
    sizes = [d - s for d, s in zip(shape, starts)]
    attrs = {"starts": starts, "sizes": sizes}
    if v.axis == "option" and v.value == "strides":
        attrs = {"starts": [0] * len(shape), "sizes": list(shape), "strides": [2] * len(shape)}
    return {"input": shape}, attrs


def split_arguments(v: Variation):
    r = v.rank_of("input", 2)
    if r == 0:
        raise Skip("needs rank >= 1")
    return {"input": dims(r)}, {"splits": 2, "axis": 0}


def tile_arguments(v: Variation):
    r = v.rank_of("input", 2)
    return {"input": dims(r)}, {"repetitions": [2 if i == 0 else 1 for i in range(r)]}


# Data movement copies values: 0 ULP (WPT: "0 ULP: data movement (concat,
# expand, gather*, identity, pad, reshape, reverse, scatter*, slice, split,
# tile, transpose)"). It does no arithmetic (scatter* overwrite, they do not
# accumulate, in WebNN); its cost is the bytes each op reads and writes (see base.py).


def moved(name: str, create, make, specials: bool = True, indices: str | None = None,
          graph_sweep: int | None = None, **plan) -> OpSpec:
    """Data movement takes the full width of every data type and hands on
    input values (a zero keeps its sign); ``specials``: NaN and infinities
    move bit for bit."""
    members = {"indices": indices} if indices else {}
    return OpSpec(name, create, EXACT, MOVEMENT, ProbePlan(make, **plan), InputValues("wide", members, specials),
                  keeps_zero_sign=True, graph_sweep=graph_sweep)


# graph_sweep: after identity, the data movement every backend has, in the
# order the probe's graph-level sweeps try them.
OPS = declare(
    moved("reshape", reshape, reshape_arguments, graph_sweep=1),
    moved("transpose", transpose, input_only_arguments, graph_sweep=2),
    moved("concat", concat, concat_arguments),
    moved("split", split, split_arguments),
    moved("slice", slice, slice_arguments, graph_sweep=6, options=("strides",)),
    moved("expand", expand, expand_arguments, graph_sweep=3),
    moved("gather", gather, gather_arguments, indices="axisIndices"),
    moved("gatherElements", gatherElements, gather_elements_arguments, indices="axisIndices"),
    moved("gatherND", gatherND, gather_nd_arguments, indices="coordinates", extras=(("output", "rank", 0),)),
    moved("scatterElements", scatterElements, scatter_elements_arguments, specials=False, indices="axisIndices"),
    moved("scatterND", scatterND, scatter_nd_arguments, specials=False, indices="coordinates"),
    moved("tile", tile, tile_arguments, graph_sweep=4),
    moved("reverse", reverse, input_only_arguments, graph_sweep=5),
    moved("pad", pad, pad_arguments, specials=False, options=tuple(enum_values("MLPaddingMode")[1:])),
)
