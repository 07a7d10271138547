"""Create steps for the normalization operators (see harness/spec/opspec/__init__.py):
batchNormalization, instanceNormalization, layerNormalization.

Spec: #api-mlgraphbuilder-batchnorm, #api-mlgraphbuilder-instancenorm,
#api-mlgraphbuilder-layernorm.
"""
from __future__ import annotations

from webnn_harness.spec.graph import TensorDesc
from webnn_harness.spec.opspec.base import Budget, Created, check, counted, ulp
from webnn_harness.spec.opspec.linalg import cast_number
from webnn_harness.spec.opspec.traits import InputValues, OpSpec, ProbePlan, Skip, Variation, declare, dims

LAYOUTS = ("nchw", "nhwc")


def _check_1d(op: str, name: str, desc: TensorDesc | None, size: int, what: str) -> None:
    if desc is not None:
        check(desc.shape == (size,), f"{op}: {name} shape {list(desc.shape)} must be [{size}] ({what})")


def batchNormalization(operands, attributes) -> Created:
    x: TensorDesc = operands["input"]
    axis = attributes["axis"]
    check(isinstance(axis, int) and 0 <= axis < x.rank,
          f"batchNormalization: axis {axis} is out of range for input rank {x.rank}")
    size = x.shape[axis]
    for name in ("mean", "variance", "scale", "bias"):
        _check_1d("batchNormalization", name, operands.get(name), size, f"input.shape[{axis}]")
    resolved = {"axis": axis, "epsilon": cast_number(attributes["epsilon"], x.data_type)}
    return Created((x,), resolved)


def instanceNormalization(operands, attributes) -> Created:
    x: TensorDesc = operands["input"]
    layout = attributes["layout"]
    check(layout in LAYOUTS, f"instanceNormalization: layout {layout!r} is not one of {', '.join(LAYOUTS)}")
    # "Let axis be 1 if layout is nchw, and 3 otherwise."
    axis = 1 if layout == "nchw" else 3
    for name in ("scale", "bias"):
        _check_1d("instanceNormalization", name, operands.get(name), x.shape[axis], f"{layout} channels")
    resolved = {"epsilon": cast_number(attributes["epsilon"], x.data_type), "layout": layout}
    return Created((x,), resolved)


def layerNormalization(operands, attributes) -> Created:
    x: TensorDesc = operands["input"]
    axes = attributes["axes"]
    if axes is None:
        # "the range from 1 to rank, exclusive, if rank > 1, or an empty list otherwise"
        axes = list(range(1, x.rank)) if x.rank > 1 else []
    axes = list(axes)
    for axis in axes:
        check(isinstance(axis, int) and 0 <= axis < x.rank,
              f"layerNormalization: axis {axis} in axes {axes} is out of range for input rank {x.rank}")
    check(len(set(axes)) == len(axes), f"layerNormalization: axes {axes} has duplicate values")
    want = tuple(x.shape[a] for a in axes)  # scale/bias shape[index] == input shape[axes[index]]
    for name in ("scale", "bias"):
        desc = operands.get(name)
        if desc is not None:
            check(desc.rank == len(axes),
                  f"layerNormalization: {name} rank {desc.rank} must equal the number of axes ({len(axes)})")
            check(desc.shape == want,
                  f"layerNormalization: {name} shape {list(desc.shape)} must be {list(want)} (input dims at axes {axes})")
    resolved = {"axes": axes, "epsilon": cast_number(attributes["epsilon"], x.data_type)}
    return Created((x,), resolved)


def layer_normalization_budget(node, descs) -> Budget:
    """840 ULP (float16 8400), the instanceNormalization budget.

    Why: the computation is the same chain (mean and variance reductions,
    sqrt, divide, scale, bias), so it earns the same budget. The older WPT
    ATOL 1/1024 (float16 1/512) is not scale-aware: it accepts 100% error on
    outputs near 1e-3 and rejects 1-ULP errors once scale makes outputs large.
    The current WPT test file could not be read here (the README records only
    the older ATOL). The WPT layer_normalization cases need no slack from the
    reference: it reproduces all 25 expected values exactly (0 ULP;
    tests/test_normalization_reference.py::test_layer_norm_budget_covers_wpt)."""
    if descs[node.outputs[0]].data_type == "float16":
        return Budget("ULP", 8400)
    return Budget("ULP", 840)


# --- Costs (see base.py "What a Cost counts"), from the spec's emulations.


def _affine_flops(node) -> int:
    """Per element: one multiply for scale and one add for bias, when given."""
    return ("scale" in node.operands) + ("bias" in node.operands)


@counted
def batch_normalization_flops(node, descs) -> int:
    """(x - mean) / sqrt(variance + epsilon) * scale + bias: per element a
    subtract and a divide (+ scale, bias); per channel an add and a sqrt."""
    x = descs[node.operands["input"]]
    return x.size * (2 + _affine_flops(node)) + 2 * x.shape[node.attributes["axis"]]


def _moments_flops(node, x: TensorDesc, groups: int) -> int:
    """Normalising over groups of x: per element an add for the mean,
    subtract-square-add for the variance, subtract and divide to normalise
    (+ scale, bias); per group the mean and variance divides, epsilon's add
    and a sqrt."""
    return x.size * (6 + _affine_flops(node)) + 4 * groups


@counted
def instance_normalization_flops(node, descs) -> int:
    x = descs[node.operands["input"]]
    channels = x.shape[1] if node.attributes["layout"] == "nchw" else x.shape[3]
    return _moments_flops(node, x, x.shape[0] * channels)


@counted
def layer_normalization_flops(node, descs) -> int:
    x = descs[node.operands["input"]]
    reduced = 1
    for axis in node.attributes["axes"]:
        reduced *= x.shape[axis]
    return _moments_flops(node, x, x.size // reduced)


# Probe plans (see traits.py).


def batch_normalization_arguments(v: Variation):
    r = v.rank_of("input", 2)
    if r == 0:
        raise Skip("needs rank >= 1")
    shape = dims(r)
    axis = 1 if r > 1 else 0
    shapes = {"input": shape, "mean": (shape[axis],), "variance": (shape[axis],)}
    for m in ("scale", "bias"):
        if m in v.present:
            shapes[m] = (shape[axis],)
    return shapes, {"axis": axis}


def instance_normalization_arguments(v: Variation):
    layout = "nhwc" if v.axis == "option" and v.value == "layout=nhwc" else "nchw"
    shapes = {"input": (1, 3, 3, 2) if layout == "nhwc" else (1, 2, 3, 3)}
    for m in ("scale", "bias"):
        if m in v.present:
            shapes[m] = (2,)
    return shapes, {"layout": layout}


def layer_normalization_arguments(v: Variation):
    if v.axis == "rank" and v.member in ("scale", "bias"):
        q = v.value
        r = max(q, 1)
        shape = dims(r)
        axes = list(range(r - q, r))
        return {"input": shape, v.member: tuple(shape[a] for a in axes)}, {"axes": axes}
    r = v.rank_of("input", 2)
    shape = dims(r)
    axes = list(range(1, r)) if r > 1 else []
    shapes = {"input": shape}
    for m in ("scale", "bias"):
        if m in v.present:
            shapes[m] = tuple(shape[a] for a in axes)
    return shapes, {"axes": axes}


OPS = declare(
    OpSpec("batchNormalization", batchNormalization, ulp(6), batch_normalization_flops,
           ProbePlan(batch_normalization_arguments), InputValues("dyadic", {"variance": "positiveUniform"})),
    # WPT PR 43891 review: 840 ULP (float16 8400) for the mean/variance reduction.
    OpSpec("instanceNormalization", instanceNormalization, ulp(840, float16=8400), instance_normalization_flops,
           ProbePlan(instance_normalization_arguments, options=("layout=nhwc",)), InputValues("dyadic")),
    OpSpec("layerNormalization", layerNormalization, layer_normalization_budget, layer_normalization_flops,
           ProbePlan(layer_normalization_arguments), InputValues("dyadic")),
)
