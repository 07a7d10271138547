"""What a probe tries: for every operator, one small valid argument set (the
baseline) and the combinations that vary one operand at a time.

For each operator and each input operand (spec member names):
- every data type (the spec's allowed ones, and the others labelled "beyond
  spec") at the baseline rank, the operands the spec ties to it ("same data
  type as") moving with it;
- every rank from 0 to 8 that the spec allows, at the baseline data type, the
  operands tied to it by rank moving with it;
- for outputs whose data type an argument chooses (cast ``dataType``,
  argMin ``outputDataType``), every data type of that argument;
- option and layout variants the spec has no limits member for (input and
  filter layouts, padding and interpolation modes, rounding types, RNN
  directions, weight layouts and activations, conv groups and dilations).

Each operator family has one small function ``make(v)`` that turns a
``Variation`` (which member is varied, to what) into operand shapes and
attributes; the operand data types come from ``Variation.types``. A shape
the create steps refuse raises ``Skip`` and the combination is not tried.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping

from webnn_harness.spec.catalog import OperatorSpec, enum_values, operator, operators
from webnn_harness.spec.dtypes import DATA_TYPES, EXTENSION_DATA_TYPES

MAX_RANK = 8  # ranks beyond this are not probed ("capped at rank 8")
# Dimension sizes for a rank-r operand: distinct leading sizes so a transposed
# or mis-strided result cannot pass; 1152 elements at rank 8.
DIMS = (2, 3, 4, 2, 3, 2, 2, 2)


# Data types beyond MLOperandDataType that browsers accept where they extend
# the spec: int4/uint4 for quantizeLinear / dequantizeLinear (Chromium's
# kInts4ToInts8). Other operators are not swept with them.
EXTENSION_OPS = frozenset({"quantizeLinear", "dequantizeLinear"})


def probed_data_types(op: str) -> tuple[str, ...]:
    return DATA_TYPES + EXTENSION_DATA_TYPES if op in EXTENSION_OPS else DATA_TYPES


def dims(rank: int) -> tuple[int, ...]:
    return DIMS[:rank]


class Skip(Exception):
    """This variation has no valid argument set (the message says why)."""


@dataclass(frozen=True)
class Variation:
    op: str
    member: str | None  # the member varied (None: the baseline itself)
    axis: str  # "dataType" | "rank" | "option" | "baseline"
    value: Any  # the data type, the rank, or the option label
    types: Mapping[str, str]  # data type of every input member present (and attribute-typed outputs)
    present: frozenset[str]  # optional operand members present in this variation

    @property
    def rank(self) -> int | None:
        return self.value if self.axis == "rank" else None

    def rank_of(self, member: str, default: int) -> int:
        return self.value if self.axis == "rank" and self.member == member else default


@dataclass(frozen=True)
class Combo:
    """One combination to try: an operator call with concrete descriptors."""

    op: str
    member: str | None
    axis: str
    value: Any
    shapes: Mapping[str, Any]  # member -> shape, or list of shapes for list members
    types: Mapping[str, str]  # member -> data type
    attributes: Mapping[str, Any]  # non-operand arguments and options given explicitly
    in_spec: bool  # every operand inside the spec's allowed data types and ranks
    note: str = ""

    @property
    def id(self) -> str:
        where = f"{self.member}." if self.member else ""
        return f"{self.op}/{where}{self.axis}={self.value}"


MakeFn = Callable[[Variation], tuple[dict, dict]]


@dataclass(frozen=True)
class OpPlan:
    make: MakeFn
    base_types: Mapping[str, str] = field(default_factory=dict)  # overrides of the first required type
    base_ranks: Mapping[str, int] = field(default_factory=dict)  # member -> baseline rank
    rank_ties: Mapping[str, str] = field(default_factory=dict)  # follower -> leader, beyond the catalog's
    typed_outputs: tuple[str, ...] = ()  # output members whose data type an argument picks
    options: tuple[str, ...] = ()  # option/layout variant labels make() understands
    extras: tuple[tuple[str, str, Any], ...] = ()  # extra (member, axis, value) variations make() understands
    output_sweeps: tuple[str, ...] = ()  # outputs present only with an option (make() sets it)


# --------------------------------------------------------------------------
# Family builders. Each returns ({member: shape}, {attribute: value}).


def unary(v: Variation):
    member = operator(v.op).signature[0].name  # "input" or "a"
    return {member: dims(v.rank_of(member, 2))}, {}


def unary_axis(v: Variation):
    r = v.rank_of("input", 2)
    if r == 0:
        raise Skip("needs rank >= 1")
    return {"input": dims(r)}, {"axis": r - 1}


def cast(v: Variation):
    return {"input": dims(v.rank_of("input", 2))}, {"dataType": v.types["output"]}


def clamp(v: Variation):
    t = v.types["input"]
    lo, hi = (-2.5, 1.75) if t in ("float32", "float16") else ((-50, 100) if t in ("int8", "int32", "int64") else (5, 150))
    return {"input": dims(v.rank_of("input", 2))}, {"minValue": lo, "maxValue": hi}


def binary(v: Variation):
    r = v.rank_of(v.member, 2) if v.axis == "rank" else 2
    names = [p.name for p in operator(v.op).signature]
    return {n: dims(r) for n in names}, {}


def reduction(v: Variation):
    r = v.rank_of("input", 2)
    # keepDimensions keeps the output at the input's rank, so one sweep covers both.
    return {"input": dims(r)}, {"axes": [r - 1] if r else None, "keepDimensions": True}


def arg_reduction(v: Variation):
    if v.axis == "rank" and v.member == "output" and v.value == 0:
        return {"input": (3,)}, {"axis": 0, "keepDimensions": False, "outputDataType": v.types["output"]}
    r = v.rank_of("input", 2)
    if r == 0:
        raise Skip("needs rank >= 1")
    return {"input": dims(r)}, {"axis": r - 1, "keepDimensions": True, "outputDataType": v.types["output"]}


def concat(v: Variation):
    r = v.rank_of("inputs", 2)
    if r == 0:
        raise Skip("needs rank >= 1")
    a = dims(r)
    b = a[:-1] + (a[-1] + 1,)
    return {"inputs": [a, b]}, {"axis": r - 1}


def expand(v: Variation):
    r = v.rank_of("input", 2)
    full = dims(r)
    ones = tuple(1 if i % 2 == 0 else d for i, d in enumerate(full))
    return {"input": ones}, {"newShape": list(full)}


def gather(v: Variation):
    if v.axis == "rank" and v.member == "indices":
        return {"input": (5,), "indices": dims(v.value)}, {"axis": 0}
    r = v.rank_of("input", 2)
    if r == 0:
        raise Skip("needs rank >= 1")
    return {"input": dims(r), "indices": (3,)}, {"axis": 0}


def gather_elements(v: Variation):
    r = v.rank_of("input", 2)
    if r == 0:
        raise Skip("needs rank >= 1")
    shape = dims(r)
    return {"input": shape, "indices": (3,) + shape[1:]}, {"axis": 0}


def gather_nd(v: Variation):
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


def scatter_elements(v: Variation):
    r = v.rank_of("input", 2)
    if r == 0:
        raise Skip("needs rank >= 1")
    shape = dims(r)
    # One row of indices along axis 0: every position gets exactly one update,
    # so the result does not depend on the order updates are applied in.
    small = (1,) + shape[1:]
    return {"input": shape, "indices": small, "updates": small}, {"axis": 0}


def scatter_nd(v: Variation):
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


def pad(v: Variation):
    r = v.rank_of("input", 2)
    mode = v.value if v.axis == "option" else "constant"
    attrs = {"beginningPadding": [1] * r, "endingPadding": [1 if i % 2 else 0 for i in range(r)], "mode": mode}
    if mode == "constant":
        attrs["value"] = 1
    return {"input": dims(r)}, attrs


def reshape(v: Variation):
    r = v.rank_of("input", 2)
    return {"input": dims(r)}, {"newShape": list(reversed(dims(r)))}


def reverse(v: Variation):
    return {"input": dims(v.rank_of("input", 2))}, {}


def slice_(v: Variation):
    shape = dims(v.rank_of("input", 2))
    starts = [1 if d > 1 else 0 for d in shape]
    sizes = [d - s for d, s in zip(shape, starts)]
    attrs = {"starts": starts, "sizes": sizes}
    if v.axis == "option" and v.value == "strides":
        attrs = {"starts": [0] * len(shape), "sizes": list(shape), "strides": [2] * len(shape)}
    return {"input": shape}, attrs


def split(v: Variation):
    r = v.rank_of("input", 2)
    if r == 0:
        raise Skip("needs rank >= 1")
    return {"input": dims(r)}, {"splits": 2, "axis": 0}


def tile(v: Variation):
    r = v.rank_of("input", 2)
    return {"input": dims(r)}, {"repetitions": [2 if i == 0 else 1 for i in range(r)]}


def transpose(v: Variation):
    return {"input": dims(v.rank_of("input", 2))}, {}


def triangular(v: Variation):
    r = v.rank_of("input", 2)
    if r < 2:
        raise Skip("needs rank >= 2")
    upper = not (v.axis == "option" and v.value == "lower")
    return {"input": dims(r)}, {"upper": upper, "diagonal": 0}


def where(v: Variation):
    r = v.rank_of(v.member, 2) if v.axis == "rank" else 2
    return {"condition": dims(r), "trueValue": dims(r), "falseValue": dims(r)}, {}


def prelu(v: Variation):
    r = v.rank_of(v.member, 2) if v.axis == "rank" else 2
    return {"input": dims(r), "slope": dims(r)}, {}


def matmul(v: Variation):
    ra, rb = v.rank_of("a", 2), v.rank_of("b", 2)
    if min(ra, rb) < 2:
        raise Skip("needs rank >= 2")
    batch = dims(max(ra, rb) - 2)
    return {"a": batch[len(batch) - (ra - 2):] + (2, 3), "b": batch[len(batch) - (rb - 2):] + (3, 4)}, {}


def gemm(v: Variation):
    shapes = {"a": (2, 3), "b": (3, 4)}
    attrs: dict = {}
    if "c" in v.present:
        shapes["c"] = ((), (4,), (2, 4))[v.rank_of("c", 2)]
    if v.axis == "option" and v.value == "aTranspose":
        shapes["a"], attrs["aTranspose"] = (3, 2), True
    if v.axis == "option" and v.value == "bTranspose":
        shapes["b"], attrs["bTranspose"] = (4, 3), True
    return shapes, attrs


# conv2d filter shapes for 2 input channels, 3 output channels, 3x3 kernel.
CONV_FILTER = {"oihw": (3, 2, 3, 3), "hwio": (3, 3, 2, 3), "ohwi": (3, 3, 3, 2), "ihwo": (2, 3, 3, 3)}
CONV_T_FILTER = {"iohw": (2, 3, 3, 3), "hwoi": (3, 3, 3, 2), "ohwi": (3, 3, 3, 2)}


def _conv(v: Variation, filters: Mapping[str, tuple], default_filter: str, spatial: int,
          grouped_filter: tuple, padding: list[int]):
    """conv2d and convTranspose2d baselines: 2 input channels, 3 output
    channels (4 with groups=2), a 3x3 kernel, one option varied at a time."""
    opt = v.value if v.axis == "option" else ""
    layout = "nhwc" if opt == "inputLayout=nhwc" else "nchw"
    filter_layout = opt.split("=")[1] if opt.startswith("filterLayout=") else default_filter
    shapes = {"input": (1, spatial, spatial, 2) if layout == "nhwc" else (1, 2, spatial, spatial),
              "filter": filters[filter_layout]}
    attrs: dict = {"inputLayout": layout, "filterLayout": filter_layout}
    if opt == "groups=2":
        shapes["filter"] = grouped_filter
        attrs["groups"] = 2
    elif opt == "dilations=2":
        attrs["dilations"] = [2, 2]
    elif opt == "strides=2":
        attrs["strides"] = [2, 2]
    elif opt == "padding":
        attrs["padding"] = padding
    elif opt == "outputPadding":
        attrs["strides"], attrs["outputPadding"] = [2, 2], [1, 1]
    if "bias" in v.present:
        shapes["bias"] = (4,) if opt == "groups=2" else (3,)
    return shapes, attrs


def conv2d(v: Variation):
    return _conv(v, CONV_FILTER, "oihw", 6, (4, 1, 3, 3), [1, 0, 2, 1])


def conv_transpose2d(v: Variation):
    return _conv(v, CONV_T_FILTER, "iohw", 4, (2, 2, 3, 3), [1, 0, 1, 1])


def pool(v: Variation):
    opt = v.value if v.axis == "option" else ""
    layout = "nhwc" if opt == "layout=nhwc" else "nchw"
    attrs: dict = {"windowDimensions": [3, 3], "layout": layout}
    if opt == "outputShapeRounding=ceil":
        attrs.update(strides=[2, 2], outputShapeRounding="ceil")
    elif opt == "dilations=2":
        attrs["dilations"] = [2, 2]
    elif opt == "strides=2":
        attrs["strides"] = [2, 2]
    elif opt == "padding":
        attrs["padding"] = [1, 1, 0, 1]
    elif opt == "global":
        attrs["windowDimensions"] = None
    return {"input": (1, 6, 6, 2) if layout == "nhwc" else (1, 2, 6, 6)}, attrs


def resample2d(v: Variation):
    opt = v.value if v.axis == "option" else ""
    attrs: dict = {"mode": "linear" if opt == "mode=linear" else "nearest-neighbor", "scales": [2.0, 2.0]}
    if opt == "sizes":
        attrs = {"mode": "nearest-neighbor", "sizes": [5, 7]}
    elif opt == "axes=[1,2]":
        attrs["axes"] = [1, 2]
    elif opt == "scales=0.5":
        attrs["scales"] = [0.5, 0.5]
    return {"input": (1, 2, 4, 4)}, attrs


def batch_normalization(v: Variation):
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


def instance_normalization(v: Variation):
    layout = "nhwc" if v.axis == "option" and v.value == "layout=nhwc" else "nchw"
    shapes = {"input": (1, 3, 3, 2) if layout == "nhwc" else (1, 2, 3, 3)}
    for m in ("scale", "bias"):
        if m in v.present:
            shapes[m] = (2,)
    return shapes, {"layout": layout}


def layer_normalization(v: Variation):
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


# Recurrent networks: steps 2, batch 2, input size 3, hidden size 4.
STEPS, BATCH, INPUT_SIZE, HIDDEN = 2, 2, 3, 4


def _recurrent_options(opt: str) -> dict:
    if opt.startswith("direction="):
        return {"direction": opt.split("=")[1]}
    if opt.startswith("layout="):
        return {"layout": opt.split("=")[1]}
    if opt == "returnSequence":
        return {"returnSequence": True}
    if opt == "resetAfter=false":
        return {"resetAfter": False}
    if opt.startswith("activations="):
        return {"activations": opt.split("=")[1].split(",")}
    return {}


def recurrent(gates: int, cell: bool):
    def make(v: Variation):
        opt = v.value if v.axis == "option" else ""
        attrs = {"hiddenSize": HIDDEN, **_recurrent_options(opt)}
        if v.member == "output1" and v.op == "gru" or v.member == "output2" and v.op == "lstm":
            attrs["returnSequence"] = True
        if cell:
            shapes = {"input": (BATCH, INPUT_SIZE), "weight": (gates * HIDDEN, INPUT_SIZE),
                      "recurrentWeight": (gates * HIDDEN, HIDDEN), "hiddenState": (BATCH, HIDDEN)}
            if gates == 4:
                shapes["cellState"] = (BATCH, HIDDEN)
            optional = {"bias": (gates * HIDDEN,), "recurrentBias": (gates * HIDDEN,), "peepholeWeight": (3 * HIDDEN,)}
        else:
            d = 2 if attrs.get("direction") == "both" else 1
            attrs["steps"] = STEPS
            shapes = {"input": (STEPS, BATCH, INPUT_SIZE), "weight": (d, gates * HIDDEN, INPUT_SIZE),
                      "recurrentWeight": (d, gates * HIDDEN, HIDDEN)}
            optional = {"bias": (d, gates * HIDDEN), "recurrentBias": (d, gates * HIDDEN),
                        "peepholeWeight": (d, 3 * HIDDEN), "initialHiddenState": (d, BATCH, HIDDEN),
                        "initialCellState": (d, BATCH, HIDDEN)}
        if "activations" in attrs and gates == 4:
            attrs["activations"] = attrs["activations"] + [attrs["activations"][-1]]
        for m in v.present:
            shapes[m] = optional[m]
        return shapes, attrs

    return make


def quantize_linear(v: Variation):
    r = v.rank_of("input", 2)
    ones = (1,) * r  # one scale for the whole tensor: the form every backend has
    if v.axis == "option" and v.value == "per-axis" and r >= 1:
        ones = (1,) * (r - 1) + (dims(r)[-1],)
    return {"input": dims(r), "scale": ones, "zeroPoint": ones}, {}


# --------------------------------------------------------------------------

UNARY = (
    "logicalNot", "isNaN", "isInfinite", "abs", "neg", "ceil", "cos", "erf", "exp", "floor", "log",
    "reciprocal", "roundEven", "sin", "sqrt", "tan", "identity", "sign", "elu", "gelu", "hardSigmoid",
    "hardSwish", "leakyRelu", "linear", "relu", "sigmoid", "softplus", "softsign", "tanh",
)
BINARY = (
    "add", "sub", "mul", "div", "max", "min", "pow", "equal", "notEqual", "greater", "greaterOrEqual",
    "lesser", "lesserOrEqual", "logicalAnd", "logicalOr", "logicalXor",
)
REDUCTIONS = (
    "reduceL1", "reduceSum", "reduceSumSquare", "reduceL2", "reduceLogSum", "reduceLogSumExp",
    "reduceMean", "reduceMax", "reduceMin", "reduceProduct",
)
CONV_OPTIONS = ("inputLayout=nhwc", "groups=2", "dilations=2", "strides=2", "padding")
POOL_OPTIONS = ("layout=nhwc", "outputShapeRounding=ceil", "dilations=2", "strides=2", "padding", "global")


def _rnn_options(op: str) -> tuple[str, ...]:
    cell = op.endswith("Cell")
    layout_enum = "MLGruWeightLayout" if op.startswith("gru") else "MLLstmWeightLayout"
    acts = enum_values("MLRecurrentNetworkActivation")
    out = [f"layout={x}" for x in enum_values(layout_enum)[1:]]
    out += [f"activations={a},{a}" for a in acts]
    if not cell:
        out += [f"direction={d}" for d in enum_values("MLRecurrentNetworkDirection")[1:]] + ["returnSequence"]
    if op.startswith("gru"):
        out.append("resetAfter=false")
    return tuple(out)


def _plans() -> dict[str, OpPlan]:
    plans: dict[str, OpPlan] = {op: OpPlan(unary) for op in UNARY}
    plans.update({op: OpPlan(binary, rank_ties={"b": "a"}) for op in BINARY})
    plans.update({op: OpPlan(reduction) for op in REDUCTIONS})
    for op in ("argMin", "argMax"):
        plans[op] = OpPlan(arg_reduction, typed_outputs=("output",), extras=(("output", "rank", 0),))
    plans.update(
        cast=OpPlan(cast, typed_outputs=("output",), base_types={"output": "float32"}),
        clamp=OpPlan(clamp),
        softmax=OpPlan(unary_axis),
        cumulativeSum=OpPlan(unary_axis),
        concat=OpPlan(concat),
        expand=OpPlan(expand),
        gather=OpPlan(gather),
        gatherElements=OpPlan(gather_elements),
        gatherND=OpPlan(gather_nd, extras=(("output", "rank", 0),)),
        scatterElements=OpPlan(scatter_elements),
        scatterND=OpPlan(scatter_nd),
        pad=OpPlan(pad, options=tuple(enum_values("MLPaddingMode")[1:])),
        reshape=OpPlan(reshape),
        reverse=OpPlan(reverse),
        slice=OpPlan(slice_, options=("strides",)),
        split=OpPlan(split),
        tile=OpPlan(tile),
        transpose=OpPlan(transpose),
        triangular=OpPlan(triangular, options=("lower",)),
        where=OpPlan(where, rank_ties={"trueValue": "condition", "falseValue": "condition"}),
        prelu=OpPlan(prelu, rank_ties={"slope": "input"}),
        matmul=OpPlan(matmul),
        gemm=OpPlan(gemm, options=("aTranspose", "bTranspose")),
        conv2d=OpPlan(conv2d, options=CONV_OPTIONS + tuple(f"filterLayout={x}" for x in CONV_FILTER if x != "oihw")),
        convTranspose2d=OpPlan(conv_transpose2d, options=CONV_OPTIONS + ("outputPadding",)
                               + tuple(f"filterLayout={x}" for x in CONV_T_FILTER if x != "iohw")),
        averagePool2d=OpPlan(pool, options=POOL_OPTIONS),
        l2Pool2d=OpPlan(pool, options=POOL_OPTIONS),
        maxPool2d=OpPlan(pool, options=POOL_OPTIONS),
        resample2d=OpPlan(resample2d, options=("mode=linear", "sizes", "axes=[1,2]", "scales=0.5")),
        batchNormalization=OpPlan(batch_normalization),
        instanceNormalization=OpPlan(instance_normalization, options=("layout=nhwc",)),
        layerNormalization=OpPlan(layer_normalization),
        gru=OpPlan(recurrent(3, False), options=_rnn_options("gru"), output_sweeps=("output1",)),
        lstm=OpPlan(recurrent(4, False), options=_rnn_options("lstm"), output_sweeps=("output2",)),
        gruCell=OpPlan(recurrent(3, True), options=_rnn_options("gruCell")),
        lstmCell=OpPlan(recurrent(4, True), options=_rnn_options("lstmCell")),
        quantizeLinear=OpPlan(quantize_linear, options=("per-axis",)),
        dequantizeLinear=OpPlan(quantize_linear, options=("per-axis",)),
    )
    return plans


PLANS = _plans()


# --------------------------------------------------------------------------
# From plans to combinations.


def _leader(spec: OperatorSpec, member: str, extra: Mapping[str, str], kind: str) -> str:
    """Follow 'same data type as' (kind "type") or 'same rank as' (kind "rank")
    ties among input members to the member that leads them."""
    seen = set()
    while member not in seen:
        seen.add(member)
        lim = spec.operands[member]
        tie = lim.same_data_type_as if kind == "type" else (extra.get(member) or lim.same_rank_as)
        if not tie or tie not in spec.input_members:
            return member
        member = tie
    return member


def baseline_types(op: str) -> dict[str, str]:
    """Per input member, the first required data type (the most likely to work),
    tied members following their leader."""
    spec, plan = operator(op), PLANS[op]
    types: dict[str, str] = {}
    for m in spec.input_members:
        lim = spec.operands[m]
        types[m] = plan.base_types.get(m) or (lim.required_data_types or lim.allowed_data_types)[0]
    for m in spec.input_members:
        types[m] = types[_leader(spec, m, {}, "type")]
    for m in plan.typed_outputs:
        lim = spec.operands[m]
        types[m] = plan.base_types.get(m) or (lim.required_data_types or lim.allowed_data_types)[0]
    return types


def optional_members(op: str) -> list[str]:
    spec = operator(op)
    return [m for m in spec.input_members if m in spec.options]


SWEEPS = ("types", "ranks")  # "types": baseline, data types, options; "ranks": the rank sweeps


def variations(op: str, max_rank: int = MAX_RANK, sweeps: tuple[str, ...] = SWEEPS,
               rank_types: Mapping[str, str] | None = None) -> Iterator[Variation]:
    """The variations of ``op``. ``rank_types`` replaces the baseline data
    types in the rank sweeps: a probe runs them at a data type the type sweep
    found working, so one broken type cannot charge every rank."""
    spec, plan = operator(op), PLANS[op]
    base = baseline_types(op)
    rank_base = {**base, **(rank_types or {})}
    optional = set(optional_members(op))
    types_sweep, ranks_sweep = "types" in sweeps, "ranks" in sweeps
    if types_sweep:
        yield Variation(op, None, "baseline", "", base, frozenset())
    for m in spec.input_members:
        present = frozenset({m} & optional)
        leader = _leader(spec, m, {}, "type")
        if types_sweep and (leader == m or m in optional):
            # An optional operand tied to another's type gets that sweep again, present.
            followers = [f for f in spec.input_members if _leader(spec, f, {}, "type") == leader]
            for t in probed_data_types(op):
                yield Variation(op, m, "dataType", t, {**base, **{f: t for f in followers}}, present)
        if ranks_sweep and _leader(spec, m, plan.rank_ties, "rank") == m:
            for r in range(0, max_rank + 1):
                yield Variation(op, m, "rank", r, rank_base, present)
    if not types_sweep:
        for member, axis, value in plan.extras:
            if axis == "rank":
                yield Variation(op, member, axis, value, rank_base, frozenset())
        return
    for m in plan.typed_outputs:
        for t in probed_data_types(op):
            yield Variation(op, m, "dataType", t, {**base, m: t}, frozenset())
    for m in plan.output_sweeps:  # outputs present only with an option: their own type sweep
        leader = _leader(spec, spec.input_members[0], {}, "type")
        followers = [f for f in spec.input_members if _leader(spec, f, {}, "type") == leader]
        for t in probed_data_types(op):
            yield Variation(op, m, "dataType", t, {**base, **{f: t for f in followers}}, frozenset())
    for label in plan.options:
        yield Variation(op, None, "option", label, base, frozenset())
    for member, axis, value in plan.extras:
        if axis != "rank" or ranks_sweep:
            yield Variation(op, member, axis, value, rank_base if axis == "rank" else base, frozenset())


def _in_spec(spec: OperatorSpec, shapes: Mapping[str, Any], types: Mapping[str, str]) -> bool:
    for m, shape in shapes.items():
        lim = spec.operands[m]
        for s in shape if isinstance(shape, list) else [shape]:
            if types[m] not in lim.allowed_data_types or not lim.allowed_ranks.contains(len(s)):
                return False
    return True


def combos_for(op: str, max_rank: int = MAX_RANK, sweeps: tuple[str, ...] = SWEEPS,
               rank_types: Mapping[str, str] | None = None) -> tuple[list[Combo], list[dict]]:
    """(combinations to try, combinations not tried with the reason)."""
    spec = operator(op)
    out: list[Combo] = []
    skipped: list[dict] = []
    for v in variations(op, max_rank, sweeps, rank_types):
        if v.axis == "rank" and not spec.operands[v.member].allowed_ranks.contains(v.value):
            skipped.append({"op": op, "member": v.member, "axis": "rank", "value": v.value,
                            "reason": "rank not allowed by the spec"})
            continue
        try:
            shapes, attrs = PLANS[op].make(v)
        except Skip as exc:
            skipped.append({"op": op, "member": v.member, "axis": v.axis, "value": v.value, "reason": str(exc)})
            continue
        shapes = {m: (list(map(tuple, s)) if isinstance(s, list) else tuple(s)) for m, s in shapes.items()}
        types = {m: v.types[m] for m in shapes}
        types.update({m: v.types[m] for m in PLANS[op].typed_outputs})
        in_spec = _in_spec(spec, shapes, types) and all(
            v.types[m] in spec.operands[m].allowed_data_types for m in PLANS[op].typed_outputs)
        out.append(Combo(op, v.member, v.axis, v.value, shapes, types, attrs, in_spec))
    return out, skipped


def plan(ops: list[str] | None = None, max_rank: int = MAX_RANK, sweeps: tuple[str, ...] = SWEEPS,
         rank_types: Mapping[str, Mapping[str, str]] | None = None) -> tuple[list[Combo], list[dict]]:
    """Every combination for ``ops`` (default: all operators) in ``sweeps``;
    ``rank_types`` (op -> member -> data type) sets the rank sweeps' types."""
    combos: list[Combo] = []
    skipped: list[dict] = []
    for op in ops or list(operators()):
        if op not in PLANS:
            raise KeyError(f"no probe plan for operator {op!r}")
        c, s = combos_for(op, max_rank, sweeps, (rank_types or {}).get(op))
        combos.extend(c)
        skipped.extend(s)
    return combos, skipped
