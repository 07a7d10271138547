"""Create steps for the recurrent operators (see harness/spec/opspec/__init__.py):
gru, gruCell, lstm and lstmCell (spec sections #api-mlgraphbuilder-gru,
-grucell, -lstm, -lstmcell).

The four ops share one shape: packed gate weights ``[gates * hiddenSize, ...]``
(3 gates for GRU, 4 for LSTM), optional biases, an activation list with a
default, and for the sequence ops a direction and an optional sequence output.
The shared checks live in small helpers; each op's function only states what
differs.
"""
from __future__ import annotations

from typing import Any, Mapping

from webnn_harness.spec.catalog import enum_values
from webnn_harness.spec.graph import TensorDesc
from webnn_harness.spec.opspec.base import Budget, BudgetFn, Created, check, counted
from webnn_harness.spec.opspec.traits import InputValues, OpSpec, ProbePlan, Variation, declare

GRU_GATES = 3
LSTM_GATES = 4
# Spec: "When not specified, defaults to the sigmoid and tanh functions" (GRU)
# and "sigmoid, tanh, and tanh" (LSTM).
GRU_DEFAULT_ACTIVATIONS = ("sigmoid", "tanh")
LSTM_DEFAULT_ACTIVATIONS = ("sigmoid", "tanh", "tanh")
LONG_MAX = 2**31 - 1  # "valid dimension": greater than zero and in the range of long
UNSIGNED_LONG_MAX = 2**32 - 1  # [EnforceRange] unsigned long


def _check_unsigned_long(op: str, name: str, value: Any) -> None:
    check(
        isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= UNSIGNED_LONG_MAX,
        f"{op}: {name} {value!r} is not an unsigned long",
    )


def _check_enum(op: str, name: str, value: Any, enum: str) -> None:
    allowed = enum_values(enum)
    check(value in allowed, f"{op}: {name} {value!r} is not one of {', '.join(allowed)}")


def _check_shape(op: str, name: str, desc: TensorDesc | None, expected: tuple[int, ...]) -> None:
    if desc is not None:
        check(desc.shape == expected, f"{op}: {name} shape {list(desc.shape)} must be {list(expected)}")


def _check_bias_dimension(op: str, hidden_size: int, gates: int) -> None:
    # Spec: "If hiddenSize * 6 (GRU) / * 8 (LSTM) is not a valid dimension,
    # throw": some platforms concatenate bias and recurrentBias.
    combined = hidden_size * 2 * gates
    check(0 < combined <= LONG_MAX, f"{op}: hiddenSize * {2 * gates} = {combined} is not a valid dimension")


def _resolve_activations(op: str, given: Any, default: tuple[str, ...]) -> list[str]:
    if given is None:
        return list(default)
    check(len(given) == len(default), f"{op}: activations must have {len(default)} entries, got {len(given)}")
    for name in given:
        _check_enum(op, "activation", name, "MLRecurrentNetworkActivation")
    return list(given)


def _num_directions(direction: str) -> int:
    return 2 if direction == "both" else 1


def _recurrent_network(
    op: str, gates: int, operands: Mapping[str, Any], attributes: Mapping[str, Any],
    layout_enum: str, default_activations: tuple[str, ...], state_operands: tuple[str, ...],
) -> tuple[TensorDesc, TensorDesc, dict]:
    """gru/lstm create steps. Returns (state descriptor, sequence descriptor, resolved)."""
    inp, weight, recurrent = operands["input"], operands["weight"], operands["recurrentWeight"]
    steps, hidden = attributes["steps"], attributes["hiddenSize"]
    _check_unsigned_long(op, "steps", steps)
    _check_unsigned_long(op, "hiddenSize", hidden)
    _check_enum(op, "direction", attributes["direction"], "MLRecurrentNetworkDirection")
    _check_enum(op, "layout", attributes["layout"], layout_enum)
    # lstm: "If steps is 0, throw"; gru: "The value must be greater than 0".
    check(steps > 0, f"{op}: steps must be greater than 0")
    check(inp.shape[0] == steps, f"{op}: input shape[0] {inp.shape[0]} must equal steps {steps}")
    batch, input_size = inp.shape[1], inp.shape[2]
    directions = _num_directions(attributes["direction"])
    _check_shape(op, "weight", weight, (directions, gates * hidden, input_size))
    _check_shape(op, "recurrentWeight", recurrent, (directions, gates * hidden, hidden))
    _check_bias_dimension(op, hidden, gates)
    _check_shape(op, "bias", operands.get("bias"), (directions, gates * hidden))
    _check_shape(op, "recurrentBias", operands.get("recurrentBias"), (directions, gates * hidden))
    _check_shape(op, "peepholeWeight", operands.get("peepholeWeight"), (directions, 3 * hidden))
    for name in state_operands:
        _check_shape(op, name, operands.get(name), (directions, batch, hidden))
    activations = _resolve_activations(op, attributes["activations"], default_activations)
    resolved = {**attributes, "activations": activations}
    state = TensorDesc((directions, batch, hidden), inp.data_type)
    sequence = TensorDesc((steps, directions, batch, hidden), inp.data_type)
    return state, sequence, resolved


def _recurrent_cell(
    op: str, gates: int, operands: Mapping[str, Any], attributes: Mapping[str, Any],
    layout_enum: str, default_activations: tuple[str, ...], state_operands: tuple[str, ...],
) -> tuple[TensorDesc, dict]:
    """gruCell/lstmCell create steps. Returns (state descriptor, resolved)."""
    inp, weight, recurrent = operands["input"], operands["weight"], operands["recurrentWeight"]
    hidden = attributes["hiddenSize"]
    _check_unsigned_long(op, "hiddenSize", hidden)
    _check_enum(op, "layout", attributes["layout"], layout_enum)
    batch, input_size = inp.shape
    _check_shape(op, "weight", weight, (gates * hidden, input_size))
    _check_shape(op, "recurrentWeight", recurrent, (gates * hidden, hidden))
    for name in state_operands:
        _check_shape(op, name, operands[name], (batch, hidden))
    _check_bias_dimension(op, hidden, gates)
    _check_shape(op, "bias", operands.get("bias"), (gates * hidden,))
    _check_shape(op, "recurrentBias", operands.get("recurrentBias"), (gates * hidden,))
    _check_shape(op, "peepholeWeight", operands.get("peepholeWeight"), (3 * hidden,))
    activations = _resolve_activations(op, attributes["activations"], default_activations)
    return TensorDesc((batch, hidden), inp.data_type), {**attributes, "activations": activations}


def gru(operands, attributes) -> Created:
    """Returns [hidden state [numDirections, batch, hidden], sequence
    [steps, numDirections, batch, hidden] only when returnSequence]."""
    state, sequence, resolved = _recurrent_network(
        "gru", GRU_GATES, operands, attributes, "MLGruWeightLayout", GRU_DEFAULT_ACTIVATIONS,
        ("initialHiddenState",))
    outputs = (state, sequence) if attributes["returnSequence"] else (state,)
    return Created(outputs, resolved)


def lstm(operands, attributes) -> Created:
    """Returns [hidden state, cell state (both [numDirections, batch, hidden]),
    sequence [steps, numDirections, batch, hidden] only when returnSequence]."""
    state, sequence, resolved = _recurrent_network(
        "lstm", LSTM_GATES, operands, attributes, "MLLstmWeightLayout", LSTM_DEFAULT_ACTIVATIONS,
        ("initialHiddenState", "initialCellState"))
    outputs = (state, state, sequence) if attributes["returnSequence"] else (state, state)
    return Created(outputs, resolved)


def gruCell(operands, attributes) -> Created:
    """Returns the new hidden state [batchSize, hiddenSize]."""
    state, resolved = _recurrent_cell(
        "gruCell", GRU_GATES, operands, attributes, "MLGruWeightLayout", GRU_DEFAULT_ACTIVATIONS,
        ("hiddenState",))
    return Created((state,), resolved)


def lstmCell(operands, attributes) -> Created:
    """Returns [hidden state, cell state], both [batchSize, hiddenSize]."""
    state, resolved = _recurrent_cell(
        "lstmCell", LSTM_GATES, operands, attributes, "MLLstmWeightLayout", LSTM_DEFAULT_ACTIVATIONS,
        ("hiddenState", "cellState"))
    return Created((state, state), resolved)


# --- Tolerance --------------------------------------------------------------
# WPT's corpus here has no cases for these ops, so no budget to copy (upstream
# WPT uses 3 ULP for gru and 1 ULP for lstm float32, fitted to its own
# hand-picked data). We sum the budgets of the spec's emulation in WPT's
# style, per step: the gate pre-activations are matmuls with
# K = inputSize + hiddenSize (2*K ULP, WPT's matmul), the activations as WPT
# budgets them (sigmoid 34, float16 10; tanh 16; relu 0) and 1 ULP for each
# add/sub/mul on the emulation's longest path; times `steps`, since each step
# feeds its error into the next.
#
# Metric ATOL, not ULP: the hidden state is a difference of gated terms
# (z*h + (1-z)*n) that often lands near 0, where one float32 rounding of an
# O(1) term is thousands of ULP of the result (measured against ONNX Runtime's
# float32 GRU: 264721 ULP, 1.3e-4 absolute, for 32 steps of 64 hidden units).
# Gate outputs are bounded by 1 (sigmoid, tanh) and the states are O(1) with
# the default activations, so the budget is that ULP count in units of the
# output type's ULP at 1.0 (2^-23 float32, 2^-10 float16). Data far from O(1)
# (relu activations with large inputs) needs a per-case tolerance.
ACTIVATION_ULP = {"relu": 0, "sigmoid": 34, "tanh": 16}
ACTIVATION_ULP_FLOAT16 = {"relu": 0, "sigmoid": 10, "tanh": 16}
ULP_AT_ONE = {"float32": 2.0**-23, "float16": 2.0**-10}
# add/sub/mul on the longest path of one step of the emulation:
# GRU: z (3 adds), n (3 adds, 1 mul), update (2 mul, 1 sub, 1 add);
# LSTM: a gate (peephole mul, 4 adds), cell state (2 mul, 1 add), hidden (1 mul).
GRU_ELEMENTWISE_OPS_PER_STEP = 11
LSTM_ELEMENTWISE_OPS_PER_STEP = 9


def recurrent_budget(elementwise_ops_per_step: int) -> BudgetFn:
    """The budget of a gru or lstm (network or cell) whose one step has
    ``elementwise_ops_per_step`` add/sub/mul on its longest path."""

    def budget(node, descs) -> Budget:
        data_type = descs[node.outputs[0]].data_type
        k = descs[node.operands["weight"]].shape[-1] + descs[node.operands["recurrentWeight"]].shape[-1]
        table = ACTIVATION_ULP_FLOAT16 if data_type == "float16" else ACTIVATION_ULP
        per_step = 2 * k + sum(table[a] for a in node.attributes["activations"]) + elementwise_ops_per_step
        steps = node.attributes.get("steps", 1)  # cells are one step
        return Budget("ATOL", steps * per_step * ULP_AT_ONE[data_type])

    return budget


# --- Costs (see base.py "What a Cost counts"), from the spec's emulation.
# Per step, per direction, with B = batch, H = hiddenSize, I = inputSize and
# G gates: the gate pre-activations are two matmuls (2*B*G*H*I for the input,
# 2*B*G*H*H for the recurrent state) and an add joining them; each bias
# present adds B*G*H; each gate element goes through one activation; then the
# state update costs a few operations per hidden unit (below).
# GRU: n = tanh(x*Wn + r * (h*Rn + Rbn)): the reset gate's multiply; the new
# state z * h + (1 - z) * n: subtract, 2 multiplies, add.
# LSTM: c' = f * c + i * g (2 multiplies, add); h' = o * tanh(c') (tanh,
# multiply); a peephole weight adds a multiply and an add per gate it feeds (3).
STATE_UPDATE_FLOPS = 5  # GRU 1 + 4, LSTM 3 + 2
PEEPHOLE_FLOPS = 6


@counted
def recurrent_flops(node, descs) -> int:
    gates = GRU_GATES if node.op.startswith("gru") else LSTM_GATES
    weight = descs[node.operands["weight"]].shape  # [(dirs,) G*H, I]
    hidden = descs[node.operands["recurrentWeight"]].shape[-1]
    input_size = weight[-1]
    batch = descs[node.operands["input"]].shape[-2]
    steps = node.attributes.get("steps", 1)  # cells are one step
    directions = _num_directions(node.attributes["direction"]) if "direction" in node.attributes else 1
    biases = ("bias" in node.operands) + ("recurrentBias" in node.operands)
    gate_elements = batch * gates * hidden
    per_step = (2 * gate_elements * (input_size + hidden)  # the two matmuls
                + gate_elements * (1 + biases)  # join them, add biases
                + gate_elements  # one activation per gate element
                + batch * hidden * STATE_UPDATE_FLOPS)
    if "peepholeWeight" in node.operands:
        per_step += batch * hidden * PEEPHOLE_FLOPS
    return steps * directions * per_step


# Probe plans (see traits.py).

# Recurrent networks in the probe: steps 2, batch 2, input size 3, hidden size 4.
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


def recurrent_arguments(gates: int, cell: bool):
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


def recurrent_options(op: str) -> tuple[str, ...]:
    """The probe's option variants: every weight layout beyond the default,
    each activation, and for networks every direction and returnSequence."""
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


def recurrent(name: str, create, gates: int, elementwise_ops_per_step: int,
              output_sweeps: tuple[str, ...] = ()) -> OpSpec:
    cell = name.endswith("Cell")
    return OpSpec(name, create, recurrent_budget(elementwise_ops_per_step), recurrent_flops,
                  ProbePlan(recurrent_arguments(gates, cell), options=recurrent_options(name),
                            output_sweeps=output_sweeps),
                  InputValues("dyadic"))


OPS = declare(
    recurrent("gru", gru, GRU_GATES, GRU_ELEMENTWISE_OPS_PER_STEP, output_sweeps=("output1",)),
    recurrent("lstm", lstm, LSTM_GATES, LSTM_ELEMENTWISE_OPS_PER_STEP, output_sweeps=("output2",)),
    recurrent("gruCell", gruCell, GRU_GATES, GRU_ELEMENTWISE_OPS_PER_STEP),
    recurrent("lstmCell", lstmCell, LSTM_GATES, LSTM_ELEMENTWISE_OPS_PER_STEP),
)
