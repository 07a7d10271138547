"""Create steps, reference and tolerance of gru, gruCell, lstm and lstmCell.

WPT has no cases for these ops, so the float64 reference is cross-checked
against onnx.reference (GRU, LSTM in float64) and, for the non-default
activations the ONNX reference ignores, against ONNX Runtime's float32
kernels within our own budget. Semantic differences between WebNN and ONNX
that the conversions below bridge:
- gate order: WebNN GRU "zrn" = ONNX zrh; "rzn" needs the z and r blocks
  swapped. WebNN LSTM "iofg" = ONNX iofc; "ifgo" needs reordering. Peephole
  weights are i, o, f in both, whatever the layout.
- bias: WebNN bias and recurrentBias are two [numDirections, G*hidden]
  tensors; ONNX packs them in one B = concat(bias, recurrentBias) on axis 1.
- GRU resetAfter (default true) = ONNX linear_before_reset (default 0).
- direction "backward" = ONNX "reverse", "both" = "bidirectional"; the
  sequence output has the same [steps, numDirections, batch, hidden] layout
  (ONNX layout=0), backward entries at the time index they consumed.
- outputs: WebNN [hidden, (cell), (sequence)]; ONNX [Y (sequence), Y_h, Y_c].
- LSTM output-gate peephole: ONNX multiplies by the NEW cell state C_t;
  WebNN's lstmCell emulation by the incoming cellState. The cross-check uses a
  zero output-gate peephole, and a separate test pins the difference.
- ONNX activation names are capitalised (Relu/Sigmoid/Tanh); onnx.reference
  ignores the attribute (always sigmoid/tanh).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from webnn_harness.backends.reference.evaluate import evaluate
from webnn_harness.backends.reference.ops import recurrent as ref
from webnn_harness.loading.cases import Case, load_file
from webnn_harness.spec.graph import Node, TensorDesc
from webnn_harness.spec.opspec import SpecError, TOLERANCE, create
from webnn_harness.spec.opspec.recurrent import OPS as RECURRENT_OPS

CASES = Path(__file__).resolve().parent.parent / "cases" / "recurrent"
ONNX_DIRECTION = {"forward": "forward", "backward": "reverse", "both": "bidirectional"}


def desc(shape, data_type="float32"):
    return TensorDesc(tuple(shape), data_type)


def defaults(op, **given):
    from webnn_harness.spec.catalog import operator

    spec = operator(op)
    attrs = {name: opt.default for name, opt in spec.options.items() if not opt.is_operand}
    attrs.update(given)
    return attrs


# ---------------------------------------------------------------- create steps

def gru_operands(steps=2, batch=3, inp=4, hidden=5, directions=1, **extra):
    ops = {
        "input": desc([steps, batch, inp]),
        "weight": desc([directions, 3 * hidden, inp]),
        "recurrentWeight": desc([directions, 3 * hidden, hidden]),
    }
    ops.update(extra)
    return ops


def lstm_operands(steps=2, batch=3, inp=4, hidden=5, directions=1, **extra):
    ops = {
        "input": desc([steps, batch, inp]),
        "weight": desc([directions, 4 * hidden, inp]),
        "recurrentWeight": desc([directions, 4 * hidden, hidden]),
    }
    ops.update(extra)
    return ops


def cell_operands(gates, batch=3, inp=4, hidden=5, **extra):
    ops = {
        "input": desc([batch, inp]),
        "weight": desc([gates * hidden, inp]),
        "recurrentWeight": desc([gates * hidden, hidden]),
        "hiddenState": desc([batch, hidden]),
    }
    if gates == 4:
        ops["cellState"] = desc([batch, hidden])
    ops.update(extra)
    return ops


INVALID = [
    ("gru", gru_operands(), dict(steps=3, hiddenSize=5), "steps"),
    ("gru", gru_operands(), dict(steps=0, hiddenSize=5), "greater than 0"),
    ("gru", gru_operands(), dict(steps=2, hiddenSize=4), "weight shape"),
    ("gru", gru_operands(), dict(steps=2, hiddenSize=5, direction="both"), "weight shape"),
    ("gru", gru_operands(bias=desc([1, 16])), dict(steps=2, hiddenSize=5), "bias shape"),
    ("gru", gru_operands(recurrentBias=desc([1, 14])), dict(steps=2, hiddenSize=5), "recurrentBias shape"),
    ("gru", gru_operands(initialHiddenState=desc([1, 2, 5])), dict(steps=2, hiddenSize=5), "initialHiddenState"),
    ("gru", gru_operands(), dict(steps=2, hiddenSize=5, activations=["sigmoid"]), "2 entries"),
    ("gru", gru_operands(), dict(steps=2, hiddenSize=5, activations=["sigmoid", "gelu"]), "activation"),
    ("gru", gru_operands(), dict(steps=2, hiddenSize=5, direction="reverse"), "direction"),
    ("gru", gru_operands(), dict(steps=2, hiddenSize=5, layout="ifgo"), "layout"),
    ("gru", gru_operands(), dict(steps=2, hiddenSize=-1), "unsigned long"),
    # 3 * hiddenSize fits a dimension but 6 * hiddenSize exceeds long.
    ("gru", gru_operands(hidden=400_000_000, inp=1, batch=1), dict(steps=2, hiddenSize=400_000_000), "valid dimension"),
    ("lstm", lstm_operands(), dict(steps=2, hiddenSize=5, activations=["sigmoid", "tanh"]), "3 entries"),
    ("lstm", lstm_operands(), dict(steps=0, hiddenSize=5), "greater than 0"),
    ("lstm", lstm_operands(peepholeWeight=desc([1, 20])), dict(steps=2, hiddenSize=5), "peepholeWeight"),
    ("lstm", lstm_operands(initialCellState=desc([2, 3, 5])), dict(steps=2, hiddenSize=5), "initialCellState"),
    ("lstm", lstm_operands(bias=desc([1, 15])), dict(steps=2, hiddenSize=5), "bias shape"),
    ("lstm", lstm_operands(), dict(steps=2, hiddenSize=5, layout="zrn"), "layout"),
    ("gruCell", cell_operands(3, hiddenState=desc([3, 4])), dict(hiddenSize=5), "hiddenState"),
    ("gruCell", cell_operands(3, bias=desc([16])), dict(hiddenSize=5), "bias shape"),
    ("gruCell", cell_operands(3), dict(hiddenSize=6), "weight shape"),
    ("lstmCell", cell_operands(4, cellState=desc([3, 6])), dict(hiddenSize=5), "cellState"),
    ("lstmCell", cell_operands(4, peepholeWeight=desc([20])), dict(hiddenSize=5), "peepholeWeight"),
    ("lstmCell", cell_operands(4), dict(hiddenSize=5, activations=["relu"] * 4), "3 entries"),
]


@pytest.mark.parametrize("op,operands,attrs,message", INVALID, ids=[f"{c[0]}-{c[3]}-{i}" for i, c in enumerate(INVALID)])
def test_invalid_arguments_throw(op, operands, attrs, message):
    with pytest.raises(SpecError, match=message):
        create(op, operands, defaults(op, **attrs))


def test_rank_and_type_limits_come_from_the_catalog():
    with pytest.raises(SpecError, match="rank"):
        create("gru", gru_operands(bias=desc([15])), defaults("gru", steps=2, hiddenSize=5))
    with pytest.raises(SpecError, match="data type"):
        create("lstmCell", cell_operands(4, cellState=desc([3, 5], "float16")), defaults("lstmCell", hiddenSize=5))


@pytest.mark.parametrize("op,operands,attrs,shapes,activations", [
    ("gru", gru_operands(), dict(steps=2, hiddenSize=5), [(1, 3, 5)], ["sigmoid", "tanh"]),
    ("gru", gru_operands(directions=2), dict(steps=2, hiddenSize=5, direction="both", returnSequence=True),
     [(2, 3, 5), (2, 2, 3, 5)], ["sigmoid", "tanh"]),
    ("lstm", lstm_operands(), dict(steps=2, hiddenSize=5), [(1, 3, 5), (1, 3, 5)], ["sigmoid", "tanh", "tanh"]),
    ("lstm", lstm_operands(directions=2), dict(steps=2, hiddenSize=5, direction="both", returnSequence=True,
                                               activations=["relu", "relu", "tanh"]),
     [(2, 3, 5), (2, 3, 5), (2, 2, 3, 5)], ["relu", "relu", "tanh"]),
    ("gruCell", cell_operands(3), dict(hiddenSize=5), [(3, 5)], ["sigmoid", "tanh"]),
    ("lstmCell", cell_operands(4), dict(hiddenSize=5), [(3, 5), (3, 5)], ["sigmoid", "tanh", "tanh"]),
])
def test_outputs_and_resolved_activations(op, operands, attrs, shapes, activations):
    given = defaults(op, **attrs)
    created = create(op, operands, given)
    assert [o.shape for o in created.outputs] == shapes
    assert all(o.data_type == "float32" for o in created.outputs)
    assert created.attributes["activations"] == activations
    assert set(created.attributes) == set(given)  # same keys, nothing left None
    assert all(v is not None for v in created.attributes.values())


def test_budget_is_a_function_of_the_node_shapes():
    descs = {"x": desc([7, 2, 4]), "w": desc([1, 15, 4]), "r": desc([1, 15, 5]), "h": desc([1, 2, 5])}
    node = Node("gru", {"input": "x", "weight": "w", "recurrentWeight": "r"},
                {"steps": 7, "activations": ["sigmoid", "tanh"]}, ("h",))
    # 7 steps * (2*(4+5) + 34 + 16 + 11) ULP of 1.0 in float32
    assert TOLERANCE[node.op](node, descs).metric == "ATOL"
    assert TOLERANCE[node.op](node, descs).value == 7 * (18 + 34 + 16 + 11) * 2.0**-23
    half = {k: desc(v.shape, "float16") for k, v in descs.items()}
    assert TOLERANCE[node.op](node, half).value == 7 * (18 + 10 + 16 + 11) * 2.0**-10
    assert set(RECURRENT_OPS) == {"gru", "gruCell", "lstm", "lstmCell"}


# ------------------------------------------------------ hand-computed values

def test_gru_cell_by_hand():
    # hiddenSize 1, inputSize 1, weights zero except the n gate, so
    # z = r = sigmoid(0) = 0.5; resetAfter: n = tanh(0*x + 0.5*(1*h)) with h = 2:
    # n = tanh(1); h' = 0.5*2 + 0.5*tanh(1).
    x, h = np.array([[3.0]]), np.array([[2.0]])
    w = np.array([[0.0], [0.0], [0.0]])
    u = np.array([[0.0], [0.0], [1.0]])
    got = ref.gruCell(x, w, u, h, 1)
    assert got[0, 0] == pytest.approx(1.0 + 0.5 * np.tanh(1.0), abs=1e-15)
    # resetAfter=false: n = tanh((r*h) @ u_n) = tanh(1) too, and with a
    # recurrent n bias of 1: after -> tanh(0.5*(2+1)) vs before -> tanh(1+1).
    rb = np.array([0.0, 0.0, 1.0])
    assert ref.gruCell(x, w, u, h, 1, recurrentBias=rb)[0, 0] == pytest.approx(1 + 0.5 * np.tanh(1.5), abs=1e-15)
    assert ref.gruCell(x, w, u, h, 1, recurrentBias=rb, resetAfter=False)[0, 0] == pytest.approx(1 + 0.5 * np.tanh(2.0), abs=1e-15)


def test_gru_cell_layout_swaps_z_and_r():
    # z from bias 10 (z ~ 1 keeps h), r from bias -10: zrn keeps h; rzn makes
    # the gate with bias -10 the update gate (z ~ 0: h' ~ n = tanh(0) = 0).
    x, h = np.zeros((1, 1)), np.array([[0.75]])
    w, u = np.zeros((3, 1)), np.zeros((3, 1))
    bias = np.array([10.0, -10.0, 0.0])
    assert ref.gruCell(x, w, u, h, 1, bias=bias, layout="zrn")[0, 0] == pytest.approx(0.75, abs=1e-4)
    assert ref.gruCell(x, w, u, h, 1, bias=bias, layout="rzn")[0, 0] == pytest.approx(0.0, abs=1e-4)


def test_lstm_cell_by_hand_with_relu():
    # relu everywhere, hidden 1, input 1, x = 1, h = 0, c = 2; iofg weights
    # [1, 2, 3, 4]: i = 1, o = 2, f = 3, g = 4; peepholes i,o,f = [0.5, 0.25, 1]
    # add c*p: i = 1 + 1 = 2, o = 2 + 0.5 = 2.5, f = 3 + 2 = 5.
    # c' = f*c + i*g = 10 + 8 = 18; h' = o * relu(c') = 45.
    x, h, c = np.array([[1.0]]), np.array([[0.0]]), np.array([[2.0]])
    w = np.array([[1.0], [2.0], [3.0], [4.0]])
    p = np.array([0.5, 0.25, 1.0])
    got_h, got_c = ref.lstmCell(x, w, np.zeros((4, 1)), h, c, 1, peepholeWeight=p, activations=["relu"] * 3)
    assert (got_h[0, 0], got_c[0, 0]) == (45.0, 18.0)
    # ifgo: the same weight rows now mean i = 1, f = 2, g = 3, o = 4:
    # i = 2, f = 2 + 2 = 4, o = 4 + 0.5 = 4.5; c' = 8 + 6 = 14; h' = 63.
    got_h, got_c = ref.lstmCell(x, w, np.zeros((4, 1)), h, c, 1, peepholeWeight=p, layout="ifgo",
                                activations=["relu"] * 3)
    assert (got_h[0, 0], got_c[0, 0]) == (63.0, 14.0)


def test_backward_sequence_is_stored_at_the_consumed_time_index():
    # relu gates, zrn weights: z = relu(0) = 0, r = relu(bias 1) = 1, and
    # n = relu(x*1 + r*(h*1)), so h' = z*h + (1-z)*n = x + h.
    x = np.array([[[1.0]], [[2.0]], [[4.0]]])
    w = np.array([[[0.0], [0.0], [1.0]]])
    u = np.array([[[0.0], [0.0], [1.0]]])
    bias = np.array([[0.0, 1.0, 0.0]])
    relu = ["relu", "relu"]
    hidden, seq = ref.gru(x, w, u, 3, 1, bias=bias, direction="backward", returnSequence=True, activations=relu)
    # backward walks t = 2, 1, 0: 4, 2 + 4 = 6, 1 + 6 = 7, each stored at its t.
    assert seq[:, 0, 0, 0].tolist() == [7.0, 6.0, 4.0]
    assert hidden[0, 0, 0] == 7.0
    two = np.concatenate
    hidden, seq = ref.gru(x, two([w, w]), two([u, u]), 3, 1, bias=two([bias, bias]), direction="both",
                          returnSequence=True, activations=relu)
    # forward 1, 3, 7 in direction 0; backward 7, 6, 4 in direction 1.
    assert seq[:, :, 0, 0].tolist() == [[1.0, 7.0], [3.0, 6.0], [7.0, 4.0]]
    assert hidden[:, 0, 0].tolist() == [7.0, 7.0]


def test_one_step_networks_equal_their_cells():
    rng = np.random.default_rng(3)
    x, h = rng.uniform(-1, 1, (1, 2, 3)), rng.uniform(-1, 1, (1, 2, 4))
    w, u, b = rng.uniform(-1, 1, (1, 12, 3)), rng.uniform(-1, 1, (1, 12, 4)), rng.uniform(-1, 1, (1, 12))
    (out,) = ref.gru(x, w, u, 1, 4, bias=b, initialHiddenState=h, layout="rzn", resetAfter=False)
    np.testing.assert_array_equal(out[0], ref.gruCell(x[0], w[0], u[0], h[0], 4, bias=b[0], layout="rzn", resetAfter=False))
    w, u, c = rng.uniform(-1, 1, (1, 16, 3)), rng.uniform(-1, 1, (1, 16, 4)), rng.uniform(-1, 1, (1, 2, 4))
    p = rng.uniform(-1, 1, (1, 12))
    hidden, cell = ref.lstm(x, w, u, 1, 4, peepholeWeight=p, initialHiddenState=h, initialCellState=c)
    want = ref.lstmCell(x[0], w[0], u[0], h[0], c[0], 4, peepholeWeight=p[0])
    np.testing.assert_array_equal(hidden[0], want[0])
    np.testing.assert_array_equal(cell[0], want[1])


# ------------------------------------------------------- ONNX cross-checks

def _onnx_run(op, inputs, outputs, attrs, runtime="reference"):
    """One ONNX node; inputs: list of (name, array or None) in ONNX order."""
    names = [n if a is not None else "" for n, a in inputs]
    dtype = next(a for _, a in inputs if a is not None).dtype
    elem = TensorProto.DOUBLE if dtype == np.float64 else TensorProto.FLOAT
    node = helper.make_node(op, names, outputs, **attrs)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(n, elem, None) for n, a in inputs if a is not None],
        [helper.make_tensor_value_info(n, elem, None) for n in outputs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], ir_version=9)
    feeds = {n: a for n, a in inputs if a is not None}
    if runtime == "reference":
        return ReferenceEvaluator(model).run(None, feeds)
    import onnxruntime as ort

    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)


def to_onnx_gates(packed, layout, hidden):
    """Reorder the gate blocks (last-but-one axis for weights, last for
    biases) from a WebNN layout to ONNX's zrh / iofc order."""
    onnx_order = "zrn" if set(layout) == set("zrn") else "iofg"
    axis = packed.ndim - 2 if packed.ndim == 3 else packed.ndim - 1
    blocks = {g: np.take(packed, range(k * hidden, (k + 1) * hidden), axis=axis) for k, g in enumerate(layout)}
    return np.concatenate([blocks[g] for g in onnx_order], axis=axis)


def random_problem(rng, gates, steps, batch, inp, hidden, directions, dtype=np.float64, **present):
    def u(*shape):
        return rng.uniform(-1, 1, shape).astype(dtype)

    return dict(
        input=u(steps, batch, inp), weight=u(directions, gates * hidden, inp),
        recurrentWeight=u(directions, gates * hidden, hidden),
        bias=u(directions, gates * hidden) if present.get("bias") else None,
        recurrentBias=u(directions, gates * hidden) if present.get("recurrentBias") else None,
        initialHiddenState=u(directions, batch, hidden) if present.get("h0") else None,
        initialCellState=u(directions, batch, hidden) if present.get("c0") else None,
        peepholeWeight=u(directions, 3 * hidden) if present.get("peephole") else None,
    )


def onnx_bias(p, gates, hidden, layout):
    if p["bias"] is None and p["recurrentBias"] is None:
        return None
    zeros = np.zeros_like(p["weight"][:, :, 0])
    b = p["bias"] if p["bias"] is not None else zeros
    rb = p["recurrentBias"] if p["recurrentBias"] is not None else zeros
    return np.concatenate([to_onnx_gates(b, layout, hidden), to_onnx_gates(rb, layout, hidden)], axis=1)


def gru_vs_onnx(p, steps, hidden, direction, layout, reset_after, runtime="reference", activations=None):
    onnx_attrs = dict(hidden_size=hidden, direction=ONNX_DIRECTION[direction], linear_before_reset=int(reset_after))
    if activations:
        onnx_attrs["activations"] = [a.capitalize() for a in activations] * (2 if direction == "both" else 1)
    y, y_h = _onnx_run("GRU", [
        ("X", p["input"]), ("W", to_onnx_gates(p["weight"], layout, hidden)),
        ("R", to_onnx_gates(p["recurrentWeight"], layout, hidden)), ("B", onnx_bias(p, 3, hidden, layout)),
        ("sequence_lens", None), ("initial_h", p["initialHiddenState"])], ["Y", "Y_h"], onnx_attrs, runtime)
    f64 = {k: (v.astype(np.float64) if v is not None else None) for k, v in p.items()}
    hidden_state, sequence = ref.gru(
        f64["input"], f64["weight"], f64["recurrentWeight"], steps, hidden, bias=f64["bias"],
        recurrentBias=f64["recurrentBias"], initialHiddenState=f64["initialHiddenState"], resetAfter=reset_after,
        returnSequence=True, direction=direction, layout=layout, activations=activations or ("sigmoid", "tanh"))
    return (hidden_state, sequence), (y_h, y)


def lstm_vs_onnx(p, steps, hidden, direction, layout, runtime="reference", activations=None):
    onnx_attrs = dict(hidden_size=hidden, direction=ONNX_DIRECTION[direction])
    if activations:
        onnx_attrs["activations"] = [a.capitalize() for a in activations] * (2 if direction == "both" else 1)
    y, y_h, y_c = _onnx_run("LSTM", [
        ("X", p["input"]), ("W", to_onnx_gates(p["weight"], layout, hidden)),
        ("R", to_onnx_gates(p["recurrentWeight"], layout, hidden)), ("B", onnx_bias(p, 4, hidden, layout)),
        ("sequence_lens", None), ("initial_h", p["initialHiddenState"]), ("initial_c", p["initialCellState"]),
        ("P", p["peepholeWeight"])], ["Y", "Y_h", "Y_c"], onnx_attrs, runtime)
    f64 = {k: (v.astype(np.float64) if v is not None else None) for k, v in p.items()}
    got = ref.lstm(
        f64["input"], f64["weight"], f64["recurrentWeight"], steps, hidden, bias=f64["bias"],
        recurrentBias=f64["recurrentBias"], peepholeWeight=f64["peepholeWeight"],
        initialHiddenState=f64["initialHiddenState"], initialCellState=f64["initialCellState"],
        returnSequence=True, direction=direction, layout=layout, activations=activations or ("sigmoid", "tanh", "tanh"))
    return got, (y_h, y_c, y)


@pytest.mark.parametrize("direction", ["forward", "backward", "both"])
@pytest.mark.parametrize("layout", ["zrn", "rzn"])
@pytest.mark.parametrize("reset_after", [True, False])
@pytest.mark.parametrize("present", [{}, {"bias": 1, "recurrentBias": 1, "h0": 1}, {"recurrentBias": 1}])
def test_gru_matches_onnx_reference(direction, layout, reset_after, present):
    rng = np.random.default_rng(11)
    directions = 2 if direction == "both" else 1
    p = random_problem(rng, 3, 4, 2, 3, 5, directions, **present)
    got, want = gru_vs_onnx(p, 4, 5, direction, layout, reset_after)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=0, atol=1e-12)


@pytest.mark.parametrize("direction", ["forward", "backward", "both"])
@pytest.mark.parametrize("layout", ["iofg", "ifgo"])
@pytest.mark.parametrize("present", [{}, {"bias": 1, "recurrentBias": 1, "h0": 1, "c0": 1, "peephole": 1},
                                     {"bias": 1, "c0": 1}])
def test_lstm_matches_onnx_reference(direction, layout, present):
    rng = np.random.default_rng(12)
    directions = 2 if direction == "both" else 1
    p = random_problem(rng, 4, 4, 2, 3, 5, directions, **present)
    if p["peepholeWeight"] is not None:
        p["peepholeWeight"][:, 5:10] = 0.0  # output gate: ONNX reads C_t, WebNN c_{t-1}
    got, want = lstm_vs_onnx(p, 4, 5, direction, layout)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=0, atol=1e-12)


def test_lstm_output_gate_peephole_differs_from_onnx():
    """WebNN's emulation feeds the incoming cell state to the output-gate
    peephole; ONNX feeds the new one. Pin the difference so a change in
    either is noticed."""
    rng = np.random.default_rng(13)
    p = random_problem(rng, 4, 3, 2, 3, 4, 1, peephole=1, c0=1)
    got, want = lstm_vs_onnx(p, 3, 4, "forward", "iofg")
    assert np.abs(got[0] - want[0]).max() > 1e-3
    # and the input/forget peepholes alone agree
    p["peepholeWeight"][:, 4:8] = 0.0
    got, want = lstm_vs_onnx(p, 3, 4, "forward", "iofg")
    np.testing.assert_allclose(got[0], want[0], rtol=0, atol=1e-12)


def test_cross_check_can_fail():
    """The gate-order conversion matters: feeding rzn weights to ONNX as if
    they were zrn must disagree well beyond the budget."""
    rng = np.random.default_rng(14)
    p = random_problem(rng, 3, 3, 2, 3, 4, 1, bias=1)
    got, _ = gru_vs_onnx(p, 3, 4, "forward", "rzn", True)
    _, want = gru_vs_onnx(p, 3, 4, "forward", "zrn", True)
    assert np.abs(got[0] - want[0]).max() > 1e-2


def _budget_for(op, p, steps, activations):
    descs = {"w": desc(p["weight"].shape), "r": desc(p["recurrentWeight"].shape), "out": desc([1])}
    node = Node(op, {"weight": "w", "recurrentWeight": "r"}, {"steps": steps, "activations": list(activations)}, ("out",))
    return TOLERANCE[node.op](node, descs).value


@pytest.mark.parametrize("activations", [("relu", "tanh"), ("tanh", "sigmoid"), ("sigmoid", "relu")])
@pytest.mark.parametrize("direction", ["forward", "both"])
def test_gru_activations_match_onnxruntime_float32_within_budget(activations, direction):
    """onnx.reference ignores `activations`; ONNX Runtime's float32 GRU honours
    them, and is also a real float32 implementation to hold the budget against."""
    rng = np.random.default_rng(15)
    directions = 2 if direction == "both" else 1
    p = random_problem(rng, 3, 6, 2, 8, 8, directions, dtype=np.float32, bias=1, recurrentBias=1, h0=1)
    got, want = gru_vs_onnx(p, 6, 8, direction, "zrn", True, runtime="onnxruntime", activations=list(activations))
    budget = _budget_for("gru", p, 6, activations)
    for g, w in zip(got, want):
        # relu as the update gate lets the state grow far beyond O(1) (z > 1),
        # so the budget, stated at magnitude 1, is scaled to the values here.
        assert np.abs(g - w.astype(np.float64)).max() <= budget * max(1.0, np.abs(w).max())


@pytest.mark.parametrize("activations", [("relu", "tanh", "sigmoid"), ("sigmoid", "relu", "tanh"), ("tanh", "tanh", "relu")])
def test_lstm_activations_match_onnxruntime_float32_within_budget(activations):
    rng = np.random.default_rng(16)
    p = random_problem(rng, 4, 6, 2, 8, 8, 1, dtype=np.float32, bias=1, h0=1, c0=1)
    got, want = lstm_vs_onnx(p, 6, 8, "forward", "ifgo", runtime="onnxruntime", activations=list(activations))
    budget = _budget_for("lstm", p, 6, activations)
    for g, w in zip(got, want):
        assert np.abs(g - w.astype(np.float64)).max() <= budget * max(1.0, np.abs(w).max())


@pytest.mark.parametrize("steps,hidden", [(1, 4), (8, 16), (16, 32), (32, 64)])
def test_budget_holds_for_onnxruntime_float32_default_activations(steps, hidden):
    rng = np.random.default_rng(17)
    p = random_problem(rng, 3, steps, 2, hidden, hidden, 1, dtype=np.float32, bias=1, recurrentBias=1)
    got, want = gru_vs_onnx(p, steps, hidden, "forward", "zrn", True, runtime="onnxruntime")
    budget = _budget_for("gru", p, steps, ("sigmoid", "tanh"))
    errors = [np.abs(g - w.astype(np.float64)).max() for g, w in zip(got, want)]
    assert max(errors) <= budget
    p = random_problem(rng, 4, steps, 2, hidden, hidden, 1, dtype=np.float32, bias=1, c0=1)
    got, want = lstm_vs_onnx(p, steps, hidden, "forward", "iofg", runtime="onnxruntime")
    budget = _budget_for("lstm", p, steps, ("sigmoid", "tanh", "tanh"))
    errors = [np.abs(g - w.astype(np.float64)).max() for g, w in zip(got, want)]
    assert max(errors) <= budget


# ---------------------------------------------------------------- corpus

def corpus_cases(op_file):
    return list(load_file(CASES / op_file))


@pytest.mark.parametrize("op_file", ["gru.json", "gru_cell.json", "lstm.json", "lstm_cell.json"])
def test_corpus_loads_and_is_large_enough(op_file):
    cases = corpus_cases(op_file)
    errors = [str(c) for c in cases if not isinstance(c, Case)]
    assert not errors
    assert len(cases) >= 10
    types = {c.graph.descs[c.graph.outputs[0]].data_type for c in cases}
    assert types == {"float32", "float16"}


@pytest.mark.parametrize("op_file", ["gru.json", "gru_cell.json", "lstm.json", "lstm_cell.json"])
def test_corpus_literal_expectations_match_reference_within_budget(op_file):
    checked = 0
    for case in corpus_cases(op_file):
        if not case.expected:
            continue
        outputs = evaluate(case.graph, {**case.inputs})
        budget = sum(TOLERANCE[n.op](n, case.graph.descs).value for n in case.graph.nodes)
        for name, want in case.expected.items():
            got = outputs[name].values.astype(np.float64)
            assert np.abs(got - want.astype(np.float64)).max() <= budget, (case.name, name)
            checked += 1
    assert checked >= 2  # every file has hand-checked cases


def test_lstm_cell_without_peephole_adds_no_peephole_term():
    # The spec adds cellState * peepholeWeight only when peepholeWeight is given; an infinite cell
    # state without one must not make every gate inf * 0 = NaN (a fuzz finding against ORT that
    # was the reference's bug).
    from webnn_harness.backends.reference.ops.recurrent import lstmCell

    hidden = 2
    x = np.ones((1, 3))
    weight, recurrent = np.full((4 * hidden, 3), 0.1), np.full((4 * hidden, hidden), 0.1)
    h, c = np.zeros((1, hidden)), np.full((1, hidden), np.inf)
    out_h, out_c = lstmCell(x, weight, recurrent, h, c, hidden)
    o = 1 / (1 + np.exp(-0.3))  # sigmoid of the output gate's pre-activation: 3 inputs x 0.1
    np.testing.assert_allclose(out_h, np.full((1, hidden), o * np.tanh(np.inf)))
    assert np.all(np.isposinf(out_c))
    with np.errstate(invalid="ignore"):
        with_peephole, _ = lstmCell(x, weight, recurrent, h, c, hidden, peepholeWeight=np.zeros(3 * hidden))
    assert np.all(np.isnan(with_peephole))  # given, the term is inf * 0, as the spec's formula says
