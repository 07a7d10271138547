"""Create steps, reference and tolerance of quantizeLinear and
dequantizeLinear.

WPT has no cases for these ops here, so the reference is cross-checked
against onnx.reference's QuantizeLinear/DequantizeLinear (opset 21) for the
per-tensor, per-axis and single-axis blockwise forms ONNX can express.
Differences from ONNX that the conversion bridges or the tests pin:
- scale shape: WebNN always uses the input's rank (per-tensor = all ones);
  ONNX uses a scalar (per-tensor), a 1-D [C] with ``axis`` (per-axis) or a
  same-rank tensor blocked along one ``axis`` with ``block_size``. WebNN may
  block along several axes at once; ONNX cannot.
- output types: ONNX QuantizeLinear has no int32/uint32 output; WebNN does.
- both round half to even; both saturate to the output type's range.
- ONNX zero points are optional; WebNN's are required.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from webnn_harness.backends.reference.evaluate import evaluate
from webnn_harness.backends.reference.ops import quantization as ref
from webnn_harness.backends.reference.ops.base import ImplementationDefined
from webnn_harness.loading.cases import Case, load_file
from webnn_harness.spec.graph import Node, TensorDesc
from webnn_harness.spec.opspec import SpecError, create
from webnn_harness.spec.opspec import TOLERANCE
from webnn_harness.spec.opspec.quantization import blockwise_broadcastable

CASES = Path(__file__).resolve().parent.parent / "cases" / "quantization"


def desc(shape, data_type):
    return TensorDesc(tuple(shape), data_type)


def values(result):
    return result.values if isinstance(result, ImplementationDefined) else result


def undefined(result):
    return result.undefined if isinstance(result, ImplementationDefined) else np.zeros(np.shape(result), bool)


# ---------------------------------------------------------------- create steps

INVALID = [
    ("quantizeLinear", [desc([2, 4], "float32"), desc([4], "float32"), desc([4], "uint8")], "rank"),
    ("quantizeLinear", [desc([2, 4], "float32"), desc([1, 4], "float32"), desc([1, 2], "uint8")], "zeroPoint shape"),
    ("quantizeLinear", [desc([2, 4], "float32"), desc([1, 3], "float32"), desc([1, 3], "uint8")], "blockwise"),
    ("quantizeLinear", [desc([2, 4], "float32"), desc([1, 8], "float32"), desc([1, 8], "uint8")], "blockwise"),
    ("quantizeLinear", [desc([2, 4], "float32"), desc([1, 4], "float16"), desc([1, 4], "uint8")], "data type"),
    ("quantizeLinear", [desc([2, 4], "float32"), desc([1, 4], "float32"), desc([1, 4], "int64")], "data type"),
    ("quantizeLinear", [desc([2, 4], "int8"), desc([1, 4], "float32"), desc([1, 4], "int8")], "data type"),
    ("dequantizeLinear", [desc([2, 4], "int8"), desc([1, 4], "float32"), desc([1, 4], "uint8")], "data type"),
    ("dequantizeLinear", [desc([2, 4], "uint8"), desc([2], "float32"), desc([2], "uint8")], "rank"),
    ("dequantizeLinear", [desc([6], "uint8"), desc([4], "float32"), desc([4], "uint8")], "blockwise"),
    ("dequantizeLinear", [desc([6], "float32"), desc([3], "float32"), desc([3], "uint8")], "data type"),
    ("dequantizeLinear", [desc([6], "int32"), desc([3], "int32"), desc([3], "int32")], "data type"),
]


@pytest.mark.parametrize("op,descs,message", INVALID, ids=[f"{c[0]}-{c[2]}-{i}" for i, c in enumerate(INVALID)])
def test_invalid_arguments_throw(op, descs, message):
    with pytest.raises(SpecError, match=message):
        create(op, dict(zip(("input", "scale", "zeroPoint"), descs)), {})


@pytest.mark.parametrize("zero_point_type", ["int8", "uint8", "int32", "uint32"])
@pytest.mark.parametrize("scale_shape", [[1, 1, 1], [1, 3, 1], [2, 1, 2], [2, 3, 4]])
def test_output_descriptors(zero_point_type, scale_shape):
    created = create("quantizeLinear", {"input": desc([2, 3, 4], "float16"), "scale": desc(scale_shape, "float16"),
                                        "zeroPoint": desc(scale_shape, zero_point_type)}, {})
    assert created.outputs == (desc([2, 3, 4], zero_point_type),)
    created = create("dequantizeLinear", {"input": desc([2, 3, 4], zero_point_type), "scale": desc(scale_shape, "float16"),
                                          "zeroPoint": desc(scale_shape, zero_point_type)}, {})
    assert created.outputs == (desc([2, 3, 4], "float16"),)


def test_scalar_operands_and_blockwise_rule():
    created = create("quantizeLinear", {"input": desc([], "float32"), "scale": desc([], "float32"),
                                        "zeroPoint": desc([], "int8")}, {})
    assert created.outputs == (desc([], "int8"),)
    assert blockwise_broadcastable([4, 5], [16, 10])  # the spec's example
    assert not blockwise_broadcastable([4, 5], [9, 3])
    assert not blockwise_broadcastable([4], [1, 4])  # ranks must be equal


def test_budgets():
    descs = {"q": desc([4], "uint8"), "i": desc([4], "int32"), "s": desc([1], "float32"), "f": desc([4], "float32")}
    assert TOLERANCE["dequantizeLinear"](Node("dequantizeLinear", {"input": "q"}, {}, ("f",)), descs).value == 1
    assert TOLERANCE["dequantizeLinear"](Node("dequantizeLinear", {"input": "i"}, {}, ("f",)), descs).value == 1
    assert TOLERANCE["quantizeLinear"](Node("quantizeLinear", {"input": "f"}, {}, ("q",)), descs).value == 0


# ------------------------------------------------------ hand-computed values

def test_quantize_rounds_half_to_even_and_saturates():
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.49, 200.0, -200.0, np.inf, -np.inf])
    got = ref.quantizeLinear(x, np.array([1.0]), np.array([0], np.int8))
    assert values(got).tolist() == [0, 2, 2, 0, -2, -2, 3, 127, -128, 127, -128]
    assert not undefined(got).any()
    got = ref.quantizeLinear(x, np.array([0.5]), np.array([10], np.uint8))  # x / 0.5 = 2x, exact
    assert values(got).tolist() == [11, 13, 15, 9, 7, 5, 17, 255, 0, 255, 0]
    assert values(got).dtype == np.uint8


def test_quantize_32_bit_outputs():
    x = np.array([1000.5, -70000.25, 3.0e9])
    got = ref.quantizeLinear(x, np.array([0.25]), np.array([-5], np.int32))
    assert values(got).tolist() == [4002 - 5, -280001 - 5, 2**31 - 1]
    # 2^31 - 1 is not a float32 value: the emulation's clamp lands on 2^31,
    # and casting that is implementation-defined.
    assert undefined(got).tolist() == [False, False, True]
    got = ref.quantizeLinear(np.array([-1.0, 7.5]), np.array([0.5]), np.array([3], np.uint32))
    assert values(got).tolist() == [1, 18] and not undefined(got).any()


def test_quantize_nan_and_bad_scale_are_implementation_defined():
    got = ref.quantizeLinear(np.array([np.nan, 1.0, 1.0]), np.array([1.0, 0.0, -1.0]), np.array([0, 0, 0], np.uint8))
    assert undefined(got).tolist() == [True, True, True]
    got = ref.dequantizeLinear(np.array([1, 2], np.uint8), np.array([0.0, 1.0]), np.array([0, 0], np.uint8))
    assert undefined(got).tolist() == [True, False]


def test_quantize_near_ties_are_implementation_defined_but_exact_ties_are_not():
    f32 = lambda v: np.float64(np.float32(v))  # noqa: E731
    # 0.25 / 0.1 in float32 lands on 2.5 (ties to 2) while the exact quotient
    # is 2.4999999627; a division 1 ULP high gives 3: either is conformant.
    x, s = np.array([f32(0.25)]), np.array([f32(0.1)])
    got = ref.quantizeLinear(x, s, np.array([0], np.uint8))
    assert values(got).tolist() == [2] and undefined(got).tolist() == [True]
    # 0.3 / 0.1 is far from a tie: judged.
    got = ref.quantizeLinear(np.array([f32(0.3)]), s, np.array([0], np.uint8))
    assert values(got).tolist() == [3] and not undefined(got).any()
    # 2.5 / 1 and 5 / 2 are exact ties: every IEEE division agrees, judged.
    got = ref.quantizeLinear(np.array([2.5, 5.0]), np.array([1.0, 2.0]), np.array([0, 0], np.int8))
    assert values(got).tolist() == [2, 2] and not undefined(got).any()


def test_float16_division_widens_the_tie_window():
    # 100.47 is no float16 value, so this is float32 data: 100.47 is judged.
    got = ref.quantizeLinear(np.array([np.float64(np.float32(100.47))]), np.array([1.0]), np.array([0], np.uint8))
    assert not undefined(got).any()
    # float16 data: 100.4375 / 1 is exact (judged); 0.5 / 0.0999755859375
    # (float16 0.1) = 5.0012..., whose float16 neighbours 5.0 and 5.0039 round
    # to 5 either way: judged; 0.25 / float16(0.1) = 2.5006 is typed 2.5: ambiguous.
    s16 = np.float64(np.float16(0.1))
    got = ref.quantizeLinear(np.array([100.4375, 0.5, 0.25]), np.array([1.0, s16, s16]), np.array([0, 0, 0], np.uint8))
    assert values(got).tolist() == [100, 5, 3]
    assert undefined(got).tolist() == [False, False, True]


def test_blockwise_expand_repeats_each_element():
    scale = np.array([[1.0, 2.0, 3.0]])
    assert ref.blockwise_expand(scale, (2, 6)).tolist() == [[1, 1, 2, 2, 3, 3]] * 2


def test_dequantize_by_hand():
    x = np.array([[0, 255, 128, 1], [10, 20, 30, 40]], np.uint8)
    scale = np.array([[0.5, 2.0], [0.25, 4.0]])  # blocks of [1, 2]
    zp = np.array([[128, 0], [10, 30]], np.uint8)
    got = ref.dequantizeLinear(x, scale, zp)
    assert got.tolist() == [[-64.0, 63.5, 256.0, 2.0], [0.0, 2.5, 0.0, 40.0]]
    # int32 differences are taken exactly, before any float conversion.
    got = ref.dequantizeLinear(np.array([2**31 - 1], np.int32), np.array([1.0]), np.array([-(2**31)], np.int32))
    assert got.tolist() == [2.0**32 - 1]


def test_quantize_dequantize_round_trip():
    q = np.arange(-128, 128, dtype=np.int8).reshape(16, 16)
    scale, zp = np.full((1, 4), 0.125), np.array([[3, -7, 0, 100]], np.int8)
    dq = ref.dequantizeLinear(q, scale, zp)
    np.testing.assert_array_equal(values(ref.quantizeLinear(dq, scale, zp)), q)


# ------------------------------------------------------- ONNX cross-checks

ONNX_TYPES = {"int8": TensorProto.INT8, "uint8": TensorProto.UINT8, "float32": TensorProto.FLOAT,
              "float16": TensorProto.FLOAT16, "int32": TensorProto.INT32}


def _expand_by_index(scale: np.ndarray, input_shape) -> np.ndarray:
    """Full-size scale by index arithmetic (element [i, j, k] uses scale
    [i // block_i, j // block_j, k // block_k]), independent of the reference's
    np.repeat."""
    blocks = [n // s for s, n in zip(scale.shape, input_shape)]
    index = np.indices(input_shape)
    return scale[tuple(index[a] // blocks[a] for a in range(len(input_shape)))]


def to_onnx_scale(scale: np.ndarray, input_shape) -> tuple[np.ndarray, dict]:
    """WebNN's same-rank scale to ONNX's forms: scalar (per-tensor), 1-D with
    ``axis`` (per-axis), or same-shape-but-one-axis with ``block_size``.
    WebNN shapes ONNX cannot take (blocked along one axis while broadcast or
    blocked along others) are expanded to the full shape first."""
    if all(s == 1 for s in scale.shape):
        return scale.reshape(()), {}
    partial = [a for a, (s, n) in enumerate(zip(scale.shape, input_shape)) if s != 1]
    if len(partial) == 1 and scale.shape[partial[0]] == input_shape[partial[0]]:
        return scale.reshape(-1), {"axis": partial[0]}
    differing = [a for a, (s, n) in enumerate(zip(scale.shape, input_shape)) if s != n]
    if len(differing) == 1:
        axis = differing[0]
        return scale, {"axis": axis, "block_size": input_shape[axis] // scale.shape[axis]}
    return _expand_by_index(scale, input_shape), {"axis": 0, "block_size": 1}


def onnx_run(op, x, scale, zero_point, attrs, out_type):
    names = ["x", "s", "z"]
    arrays = [x, scale, zero_point]
    node = helper.make_node(op, names, ["y"], **attrs)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(n, ONNX_TYPES[a.dtype.name], a.shape) for n, a in zip(names, arrays)],
        [helper.make_tensor_value_info("y", ONNX_TYPES[out_type], x.shape)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)
    return ReferenceEvaluator(model).run(None, dict(zip(names, arrays)))[0]


SCALE_FORMS = {"per-tensor": [1, 1, 1], "per-axis 1": [1, 6, 1], "per-axis 2": [1, 1, 8],
               "blockwise axis 2": [4, 6, 2], "blockwise axis 1": [4, 3, 8], "blockwise axis 0": [2, 6, 8],
               # WebNN only: ONNX needs every other axis at full size.
               "blockwise axes 0 and 2": [2, 1, 4], "blockwise axis 1 broadcast": [1, 2, 1]}


@pytest.mark.parametrize("form", list(SCALE_FORMS))
@pytest.mark.parametrize("zero_point_type", ["int8", "uint8"])
@pytest.mark.parametrize("float_type", ["float32", "float16"])
def test_quantize_matches_onnx_reference(form, zero_point_type, float_type):
    rng = np.random.default_rng(21)
    shape, scale_shape = (4, 6, 8), SCALE_FORMS[form]
    x = rng.uniform(-30, 30, shape).astype(float_type)
    scale = rng.uniform(0.05, 0.2, scale_shape).astype(float_type)
    lo, hi = np.iinfo(zero_point_type).min, np.iinfo(zero_point_type).max
    zp = rng.integers(lo // 4, hi // 4, scale_shape, endpoint=True).astype(zero_point_type)
    got = ref.quantizeLinear(x.astype(np.float64), scale.astype(np.float64), zp)
    onnx_scale, attrs = to_onnx_scale(scale, shape)
    onnx_zp, _ = to_onnx_scale(zp, shape)
    want = onnx_run("QuantizeLinear", x, onnx_scale, onnx_zp, attrs, zero_point_type)
    judged = ~undefined(got)
    assert judged.mean() > 0.9  # the tie window is narrow
    np.testing.assert_array_equal(values(got)[judged], want[judged])
    assert (values(got) == lo).any() and (values(got) == hi).any()  # saturation exercised


@pytest.mark.parametrize("form", list(SCALE_FORMS))
@pytest.mark.parametrize("input_type", ["int8", "uint8", "int32"])
def test_dequantize_matches_onnx_reference(form, input_type):
    rng = np.random.default_rng(22)
    shape, scale_shape = (4, 6, 8), SCALE_FORMS[form]
    lo, hi = (-1000, 1000) if input_type == "int32" else (np.iinfo(input_type).min, np.iinfo(input_type).max)
    x = rng.integers(lo, hi, shape, endpoint=True).astype(input_type)
    zp = rng.integers(lo, hi, scale_shape, endpoint=True).astype(input_type)
    scale = rng.uniform(0.01, 2.0, scale_shape).astype(np.float32)
    got = ref.dequantizeLinear(x, scale.astype(np.float64), zp)
    onnx_scale, attrs = to_onnx_scale(scale, shape)
    want = onnx_run("DequantizeLinear", x, onnx_scale, to_onnx_scale(zp, shape)[0], attrs, "float32")
    # ONNX computes (x - zp) * scale in float32: one rounding, like ours
    # rounded once to float32.
    np.testing.assert_array_equal(got.astype(np.float32), want)


def test_cross_check_can_fail():
    """A blockwise scale expanded the ONNX way (tile, not repeat) disagrees."""
    x = np.arange(8, dtype=np.float32).reshape(1, 8)
    scale = np.array([[1.0, 4.0]], np.float32)
    zp = np.zeros((1, 2), np.uint8)
    got = ref.quantizeLinear(x.astype(np.float64), scale.astype(np.float64), zp)
    tiled = onnx_run("QuantizeLinear", x, np.tile(scale, (1, 4)), np.tile(zp, (1, 4)), {"axis": 1, "block_size": 1}, "uint8")
    assert (values(got) != tiled).any()
    blocked = onnx_run("QuantizeLinear", x, scale, zp, {"axis": 1, "block_size": 4}, "uint8")
    np.testing.assert_array_equal(values(got), blocked)


# ---------------------------------------------------------------- corpus

@pytest.mark.parametrize("op_file", ["quantize_linear.json", "dequantize_linear.json"])
def test_corpus_loads_and_is_large_enough(op_file):
    cases = list(load_file(CASES / op_file))
    assert not [str(c) for c in cases if not isinstance(c, Case)]
    assert len(cases) >= 10


@pytest.mark.parametrize("op_file", ["quantize_linear.json", "dequantize_linear.json"])
def test_corpus_literal_expectations_match_reference(op_file):
    checked = 0
    for case in load_file(CASES / op_file):
        if not case.expected:
            continue
        outputs = evaluate(case.graph, dict(case.inputs))
        for name, want in case.expected.items():
            out = outputs[name]
            judged = np.ones(want.shape, bool) if out.undefined is None else ~out.undefined
            # Literal float expectations in this corpus are exact (small
            # integers times powers of two), so equality is the right check.
            np.testing.assert_array_equal(out.values[judged], want[judged], err_msg=case.name)
            checked += 1
    assert checked >= 5
