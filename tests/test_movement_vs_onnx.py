"""Cross-check of the movement reference against onnx.reference.ReferenceEvaluator
on seeded random shapes, attributes and values, for every data type.

The whole harness path is exercised (build_graph -> create steps -> evaluate,
with the float64 round trip), and outputs must be bit-identical (NaN == NaN).

Semantic differences between ONNX and WebNN, and how the check avoids them:
- Expand: ONNX broadcasts bidirectionally (newShape 1 keeps the input's size),
  WebNN unidirectionally (that newShape throws). Only WebNN-valid shapes here.
- Gather/GatherElements/GatherND/Scatter*: ONNX rejects indices outside
  [-N, N-1]; WebNN clamps them (spec note "the specified clamping behavior",
  WPT gather cases). Only in-range indices here (negative ones included);
  test_out_of_range_indices_differ_from_onnx pins the difference.
  ONNX takes int32/int64 indices only; WebNN uint32 indices go to ONNX as int64.
- ScatterElements/ScatterND: with duplicate indices both leave the result
  undefined (ONNX reduction="none"); only distinct indices here.
- Reshape: ONNX's 0 (copy) and -1 (infer) placeholders do not exist in WebNN.
- Slice: ONNX clamps starts/ends and allows negative steps; WebNN throws on
  out-of-range starts/sizes and needs strides >= 1. WebNN reverse is ONNX
  Slice with steps -1 over the reversed axes.
- Split: ONNX num_outputs allows a smaller last chunk; WebNN needs an exact divisor.
- Tile: ONNX allows 0 repeats; WebNN throws.
- Pad: ONNX "reflect" is WebNN "reflection" (edge not repeated); ONNX also has
  "wrap" and negative pads, WebNN does not. ONNX constant_value has the input's
  type, WebNN casts the MLNumber value (clamping for integers).
"""
from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

from webnn_harness.backends.reference.evaluate import evaluate  # noqa: E402
from webnn_harness.spec.builder import build_graph  # noqa: E402
from webnn_harness.spec.graph import TensorDesc  # noqa: E402

DATA_TYPES = ["float32", "float16", "int32", "uint32", "int64", "uint64", "int8", "uint8"]
INDEX_TYPES = ["int32", "uint32", "int64"]
ONNX_TYPES = {
    "float32": TensorProto.FLOAT, "float16": TensorProto.FLOAT16, "int32": TensorProto.INT32,
    "uint32": TensorProto.UINT32, "int64": TensorProto.INT64, "uint64": TensorProto.UINT64,
    "int8": TensorProto.INT8, "uint8": TensorProto.UINT8,
}
TRIALS = 12


def random_values(rng, shape, data_type):
    """Full-width values: whole integer range (64-bit beyond 2^53), floats
    with NaN, infinities, -0 and (float16) subnormals mixed in."""
    if data_type.startswith("float"):
        values = rng.normal(0, 1000, size=shape).astype(data_type)
        specials = np.array([np.nan, np.inf, -np.inf, -0.0, 2.0**-24 if data_type == "float16" else 2.0**-149],
                            dtype=data_type)
        mask = rng.random(shape) < 0.2
        values[mask] = rng.choice(specials, size=int(mask.sum()))
        return values
    info = np.iinfo(data_type)
    return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=data_type)


def random_shape(rng, rank, low=1, high=4):
    return [int(s) for s in rng.integers(low, high, size=rank, endpoint=True)]


def const(name, values):
    return helper.make_tensor(name, TensorProto.INT64, [len(values)], [int(v) for v in values])


class Trial:
    """One random instance of an op: WebNN arguments + inputs + ONNX node."""

    def __init__(self, inputs, arguments, outputs, onnx_nodes, initializers=()):
        self.inputs = inputs
        self.arguments = arguments
        self.outputs = outputs
        self.onnx_nodes = onnx_nodes
        self.initializers = list(initializers)


def run_webnn(op, trial):
    descs = {n: TensorDesc(tuple(v.shape), v.dtype.name) for n, v in trial.inputs.items()}
    graph = build_graph(descs, {}, [{"name": op, "arguments": trial.arguments, "outputs": trial.outputs}], None)
    results = evaluate(graph, trial.inputs)
    names = [trial.outputs] if isinstance(trial.outputs, str) else trial.outputs
    for name in names:
        assert results[name].undefined is None or not results[name].undefined.any()
    return [results[n].values for n in names]


def run_onnx(trial):
    names = [trial.outputs] if isinstance(trial.outputs, str) else trial.outputs
    feeds = {n: (v.astype(np.int64) if v.dtype == np.uint32 and n.startswith("i") else v)
             for n, v in trial.inputs.items()}
    graph = helper.make_graph(
        trial.onnx_nodes, "g",
        [helper.make_tensor_value_info(n, ONNX_TYPES[v.dtype.name], v.shape) for n, v in feeds.items()],
        [helper.make_tensor_value_info(n, TensorProto.UNDEFINED, None) for n in names],
        initializer=trial.initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    return ReferenceEvaluator(model).run(None, feeds)


def same(expected: np.ndarray, actual: np.ndarray) -> bool:
    """Bit-identical, except that any NaN equals any NaN."""
    expected, actual = np.asarray(expected), np.asarray(actual)
    if expected.shape != actual.shape or expected.dtype != actual.dtype:
        return False
    if expected.dtype.kind != "f":
        return np.array_equal(expected, actual)
    bits = np.dtype(f"uint{expected.dtype.itemsize * 8}")
    nan = np.isnan(expected) & np.isnan(actual)
    return bool(np.all(nan | (expected.view(bits) == actual.view(bits))))


def in_range_indices(rng, shape, size, data_type):
    low = 0 if data_type == "uint32" else -size
    return rng.integers(low, size - 1, size=shape, endpoint=True).astype(data_type)


# One generator per op: (rng, data type) -> Trial.

def gen_reshape(rng, dt):
    shape = random_shape(rng, int(rng.integers(0, 5)))
    x = random_values(rng, shape, dt)
    new_shape = list(rng.permutation(shape + [1] * int(rng.integers(0, 2))))
    return Trial({"x": x}, [{"input": "x"}, {"newShape": [int(s) for s in new_shape]}], "y",
                 [helper.make_node("Reshape", ["x", "s"], ["y"])], [const("s", new_shape)])


def gen_transpose(rng, dt):
    rank = int(rng.integers(0, 6))
    x = random_values(rng, random_shape(rng, rank), dt)
    if rng.random() < 0.3:
        return Trial({"x": x}, [{"input": "x"}], "y", [helper.make_node("Transpose", ["x"], ["y"])])
    perm = [int(p) for p in rng.permutation(rank)]
    attrs = {"perm": perm} if perm else {}  # onnx.helper cannot type an empty list
    return Trial({"x": x}, [{"input": "x"}, {"options": {"permutation": perm}}], "y",
                 [helper.make_node("Transpose", ["x"], ["y"], **attrs)])


def gen_concat(rng, dt):
    rank = int(rng.integers(1, 5))
    shape = random_shape(rng, rank)
    axis = int(rng.integers(0, rank))
    inputs = {}
    for k in range(int(rng.integers(1, 5))):
        s = list(shape)
        s[axis] = int(rng.integers(1, 4))
        inputs[f"x{k}"] = random_values(rng, s, dt)
    return Trial(inputs, [{"inputs": list(inputs)}, {"axis": axis}], "y",
                 [helper.make_node("Concat", list(inputs), ["y"], axis=axis)])


def gen_split(rng, dt):
    rank = int(rng.integers(1, 5))
    shape = random_shape(rng, rank)
    axis = int(rng.integers(0, rank))
    shape[axis] = int(rng.integers(2, 7))
    x = random_values(rng, shape, dt)
    cuts = sorted(rng.choice(np.arange(1, shape[axis]), size=int(rng.integers(0, shape[axis])), replace=False))
    sizes = [int(b - a) for a, b in zip([0, *cuts], [*cuts, shape[axis]])]
    use_count = rng.random() < 0.3 and shape[axis] % 2 == 0
    splits = 2 if use_count else sizes
    onnx_sizes = [shape[axis] // 2] * 2 if use_count else sizes
    outs = [f"y{k}" for k in range(len(onnx_sizes))]
    options = {"axis": axis} if axis or rng.random() < 0.5 else {}
    return Trial({"x": x}, [{"input": "x"}, {"splits": splits}, {"options": options}], outs,
                 [helper.make_node("Split", ["x", "s"], outs, axis=axis)], [const("s", onnx_sizes)])


def gen_slice(rng, dt):
    rank = int(rng.integers(0, 5))
    shape = random_shape(rng, rank, 1, 6)
    x = random_values(rng, shape, dt)
    starts = [int(rng.integers(0, s)) for s in shape]
    sizes = [int(rng.integers(1, s - b + 1)) for s, b in zip(shape, starts)]
    strides = [int(rng.integers(1, 4)) for _ in shape]
    args = [{"input": "x"}, {"starts": starts}, {"sizes": sizes}]
    if rng.random() < 0.7:
        args.append({"options": {"strides": strides}})
    else:
        strides = [1] * rank
    ends = [b + n for b, n in zip(starts, sizes)]
    return Trial({"x": x}, args, "y", [helper.make_node("Slice", ["x", "b", "e", "a", "t"], ["y"])],
                 [const("b", starts), const("e", ends), const("a", range(rank)), const("t", strides)])


def gen_reverse(rng, dt):
    rank = int(rng.integers(0, 5))
    x = random_values(rng, random_shape(rng, rank), dt)
    if rng.random() < 0.3:
        axes, args = list(range(rank)), [{"input": "x"}]
    else:
        axes = [int(a) for a in rng.permutation(rank)[: int(rng.integers(0, rank + 1))]]
        args = [{"input": "x"}, {"options": {"axes": axes}}]
    if not axes:  # ONNX Slice over no axes: Identity
        return Trial({"x": x}, args, "y", [helper.make_node("Identity", ["x"], ["y"])])
    big = -(2**62)
    return Trial({"x": x}, args, "y", [helper.make_node("Slice", ["x", "b", "e", "a", "t"], ["y"])],
                 [const("b", [-1] * len(axes)), const("e", [big] * len(axes)), const("a", axes),
                  const("t", [-1] * len(axes))])


def gen_expand(rng, dt):
    rank = int(rng.integers(0, 4))
    out_rank = rank + int(rng.integers(0, 3))
    target = random_shape(rng, out_rank)
    shape = [1 if rng.random() < 0.5 else t for t in target[out_rank - rank:]]
    x = random_values(rng, shape, dt)
    return Trial({"x": x}, [{"input": "x"}, {"newShape": target}], "y",
                 [helper.make_node("Expand", ["x", "s"], ["y"])], [const("s", target)])


def gen_tile(rng, dt):
    rank = int(rng.integers(1, 5))
    x = random_values(rng, random_shape(rng, rank), dt)
    reps = random_shape(rng, rank, 1, 3)
    return Trial({"x": x}, [{"input": "x"}, {"repetitions": reps}], "y",
                 [helper.make_node("Tile", ["x", "r"], ["y"])], [const("r", reps)])


def gen_pad(rng, dt):
    rank = int(rng.integers(1, 5))
    shape = random_shape(rng, rank, 1, 4)
    x = random_values(rng, shape, dt)
    mode = str(rng.choice(["constant", "edge", "reflection"]))
    limit = [s - 1 if mode == "reflection" else 3 for s in shape]
    begin = [int(rng.integers(0, m + 1)) for m in limit]
    end = [int(rng.integers(0, m + 1)) for m in limit]
    options = {"mode": mode}
    onnx_inputs = ["x", "p"]
    inits = [const("p", begin + end)]
    if mode == "constant":
        value = random_values(rng, [1], dt)[0]
        # An in-type value: WebNN's cast leaves it unchanged, so ONNX's
        # same-typed constant_value matches.
        options["value"] = float(value) if dt.startswith("float") else {"bigint": str(int(value))}
        if dt.startswith("float") and not np.isfinite(value):
            options["value"] = "NaN" if np.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        inits.append(helper.make_tensor("v", ONNX_TYPES[dt], [], [value.item()]))
        onnx_inputs.append("v")
    onnx_mode = {"constant": "constant", "edge": "edge", "reflection": "reflect"}[mode]
    return Trial({"x": x}, [{"input": "x"}, {"beginningPadding": begin}, {"endingPadding": end},
                            {"options": options}], "y",
                 [helper.make_node("Pad", onnx_inputs, ["y"], mode=onnx_mode)], inits)


def gen_gather(rng, dt):
    rank = int(rng.integers(1, 5))
    shape = random_shape(rng, rank)
    axis = int(rng.integers(0, rank))
    it = str(rng.choice(INDEX_TYPES))
    # Output rank is rank + indices rank - 1; the catalog's gather output
    # limit (the spec table's "1 to N") rejects rank 0, so no 1-D input with
    # 0-D indices here (test_movement_reference covers that case).
    i = in_range_indices(rng, random_shape(rng, int(rng.integers(0 if rank > 1 else 1, 3))), shape[axis], it)
    return Trial({"x": random_values(rng, shape, dt), "i": i},
                 [{"input": "x"}, {"indices": "i"}, {"options": {"axis": axis}}], "y",
                 [helper.make_node("Gather", ["x", "i"], ["y"], axis=axis)])


def gen_gatherElements(rng, dt):  # noqa: N802
    rank = int(rng.integers(1, 5))
    shape = random_shape(rng, rank)
    axis = int(rng.integers(0, rank))
    ishape = list(shape)
    ishape[axis] = int(rng.integers(1, 5))
    it = str(rng.choice(INDEX_TYPES))
    i = in_range_indices(rng, ishape, shape[axis], it)
    return Trial({"x": random_values(rng, shape, dt), "i": i},
                 [{"input": "x"}, {"indices": "i"}, {"options": {"axis": axis}}], "y",
                 [helper.make_node("GatherElements", ["x", "i"], ["y"], axis=axis)])


def _nd_indices(rng, shape, batch, k, it, distinct=False):
    if distinct:  # distinct coordinates (scatterND): sample without replacement
        count = int(np.prod(batch))
        flat = rng.choice(int(np.prod(shape[:k])), size=count, replace=False)
        coords = np.stack(np.unravel_index(flat, shape[:k]), axis=-1) if k else np.zeros((count, 0), int)
        if it != "uint32":
            coords = coords - np.where(rng.random(coords.shape) < 0.5, np.array(shape[:k]), 0)
        return coords.reshape(batch + [k]).astype(it)
    cols = [in_range_indices(rng, batch, shape[d], it) for d in range(k)]
    return np.stack(cols, axis=-1).astype(it)


def gen_gatherND(rng, dt):  # noqa: N802
    rank = int(rng.integers(1, 5))
    shape = random_shape(rng, rank)
    k = int(rng.integers(1, rank + 1))
    it = str(rng.choice(INDEX_TYPES))
    i = _nd_indices(rng, shape, random_shape(rng, int(rng.integers(0, 3))), k, it)
    return Trial({"x": random_values(rng, shape, dt), "i": i}, [{"input": "x"}, {"indices": "i"}], "y",
                 [helper.make_node("GatherND", ["x", "i"], ["y"])])


def gen_scatterElements(rng, dt):  # noqa: N802
    rank = int(rng.integers(1, 5))
    shape = random_shape(rng, rank, 1, 4)
    axis = int(rng.integers(0, rank))
    ishape = list(shape)
    ishape[axis] = int(rng.integers(1, shape[axis] + 1))
    it = str(rng.choice(INDEX_TYPES))
    # Distinct indices along the axis: a permutation prefix per lane.
    lanes = np.moveaxis(np.zeros(ishape, dtype=np.int64), axis, -1)
    perm = np.argsort(rng.random(lanes.shape[:-1] + (shape[axis],)), axis=-1)[..., : ishape[axis]]
    if it != "uint32":
        perm = perm - np.where(rng.random(perm.shape) < 0.5, shape[axis], 0)
    i = np.moveaxis(perm, -1, axis).astype(it)
    return Trial({"x": random_values(rng, shape, dt), "i": i, "u": random_values(rng, ishape, dt)},
                 [{"input": "x"}, {"indices": "i"}, {"updates": "u"}, {"options": {"axis": axis}}], "y",
                 [helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], axis=axis)])


def gen_scatterND(rng, dt):  # noqa: N802
    rank = int(rng.integers(1, 5))
    shape = random_shape(rng, rank, 2, 4)
    k = int(rng.integers(1, rank + 1))
    batch = [int(rng.integers(1, int(np.prod(shape[:k])) + 1))]  # at most one write per position
    it = str(rng.choice(INDEX_TYPES))
    i = _nd_indices(rng, shape, batch, k, it, distinct=True)
    u = random_values(rng, batch + shape[k:], dt)
    return Trial({"x": random_values(rng, shape, dt), "i": i, "u": u},
                 [{"input": "x"}, {"indices": "i"}, {"updates": "u"}], "y",
                 [helper.make_node("ScatterND", ["x", "i", "u"], ["y"])])


GENERATORS = {name[4:]: fn for name, fn in globals().items() if name.startswith("gen_")}


@pytest.mark.parametrize("data_type", DATA_TYPES)
@pytest.mark.parametrize("op", sorted(GENERATORS))
def test_reference_matches_onnx(op, data_type):
    rng = np.random.default_rng([sum(map(ord, op)), DATA_TYPES.index(data_type)])
    for trial_index in range(TRIALS):
        trial = GENERATORS[op](rng, data_type)
        ours = run_webnn(op, trial)
        theirs = run_onnx(trial)
        assert len(ours) == len(theirs)
        for k, (a, b) in enumerate(zip(ours, theirs)):
            assert same(b, a), (
                f"{op} {data_type} trial {trial_index} output {k}: arguments {trial.arguments}\n"
                f"inputs {trial.inputs}\nreference {a}\nonnx {b}")


def test_the_check_can_fail():
    """The comparison is real: a wrong permutation or a changed bit fails it."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    ours = run_webnn("transpose", Trial({"x": x}, [{"input": "x"}], "y", []))[0]
    identity = Trial({"x": x}, [], "y", [helper.make_node("Transpose", ["x"], ["y"], perm=[0, 1])])
    assert not same(run_onnx(identity)[0], ours)
    reverse_one_axis = Trial({"x": x}, [], "y", [helper.make_node("Slice", ["x", "b", "e", "a", "t"], ["y"])],
                             [const("b", [-1]), const("e", [-(2**62)]), const("a", [0]), const("t", [-1])])
    ours = run_webnn("reverse", Trial({"x": x}, [{"input": "x"}, {"options": {"axes": [1]}}], "y", []))[0]
    assert not same(run_onnx(reverse_one_axis)[0], ours)
    assert not same(np.float32([-0.0]), np.float32([0.0]))  # -0 vs +0 is a difference for data movement
    assert same(np.float16([np.nan]), np.float16([np.nan]))
    assert not same(np.uint64([2**64 - 1]), np.uint64([2**64 - 2]))


def test_out_of_range_indices_differ_from_onnx():
    """WebNN clamps (spec note, WPT); ONNX's evaluator rejects the index."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    trial = Trial({"x": x, "i": np.array(5, dtype=np.int32)}, [{"input": "x"}, {"indices": "i"}], "y",
                  [helper.make_node("Gather", ["x", "i"], ["y"], axis=0)])
    assert run_webnn("gather", trial)[0].tolist() == [3, 4, 5]
    with pytest.raises(Exception):
        run_onnx(trial)


def test_expand_is_unidirectional_unlike_onnx():
    """ONNX Expand of [3,1] to [1,4] gives [3,4]; WebNN's create steps throw."""
    from webnn_harness.spec.builder import FieldError

    x = np.zeros((3, 1), dtype=np.float32)
    trial = Trial({"x": x}, [{"input": "x"}, {"newShape": [1, 4]}], "y",
                  [helper.make_node("Expand", ["x", "s"], ["y"])], [const("s", [1, 4])])
    assert run_onnx(trial)[0].shape == (3, 4)
    with pytest.raises(FieldError, match="unidirectionally"):
        run_webnn("expand", trial)
