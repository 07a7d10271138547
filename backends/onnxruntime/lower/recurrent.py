"""gru, gruCell, lstm, lstmCell on ONNX GRU / LSTM.

Gate orders: ONNX GRU packs z, r, h (= WebNN "zrn"); ONNX LSTM packs i, o, f, c
(= WebNN "iofg"); peepholes are i, o, f in both. Other WebNN layouts are
reordered with Split + Concat along the gate axis. ONNX takes one bias
B = [Wb, Rb] of 2 * gates * hiddenSize per direction. The cells are the
sequence ops with one step (ONNX has no cell ops).
"""
from __future__ import annotations

import numpy as np

from webnn_harness.backends.onnxruntime.emitter import Call, Emitter

DIRECTIONS = {"forward": "forward", "backward": "reverse", "both": "bidirectional"}
ACTIVATIONS = {"sigmoid": "Sigmoid", "tanh": "Tanh", "relu": "Relu"}

# WebNN layout -> the order in which its gate blocks are taken to make ONNX's order
GRU_TO_ONNX = {"zrn": None, "rzn": (1, 0, 2)}
LSTM_TO_ONNX = {"iofg": None, "ifgo": (0, 3, 1, 2)}  # i f g o -> i o f g


def _reorder(e: Emitter, x: str, order, axis: int, gates: int) -> str:
    if order is None:
        return x
    parts = e.op("Split", [x], outputs=[e.fresh("gate") for _ in range(gates)], axis=axis, num_outputs=gates)
    return e.op("Concat", [parts[i] for i in order], axis=axis)


def _bias(e: Emitter, c: Call, order, gates: int, hidden: int, directions: int, data_type: str, cell: bool):
    """ONNX B = concat(Wb, Rb) on the last axis, zeros for an absent one."""
    if not c.has("bias") and not c.has("recurrentBias"):
        return ""
    shape = (gates * hidden,) if cell else (directions, gates * hidden)
    parts = []
    for name in ("bias", "recurrentBias"):
        if c.has(name):
            parts.append(_reorder(e, c[name], order, len(shape) - 1, gates))
        else:
            parts.append(e.const(np.zeros(shape), data_type, shape))
    return e.op("Concat", parts, axis=len(shape) - 1)


def _activations(c: Call, directions: int) -> list[str]:
    return [ACTIVATIONS[a] for a in c.attr("activations")] * directions


def _rnn(e: Emitter, c: Call, kind: str, cell: bool):
    """Emit the ONNX GRU/LSTM node; return (Y, Y_h, Y_c) names ('' when absent)."""
    is_lstm = kind == "LSTM"
    gates = 4 if is_lstm else 3
    hidden = int(c.attr("hiddenSize"))
    data_type = c.desc("input").data_type
    layout = c.attr("layout")
    order = (LSTM_TO_ONNX if is_lstm else GRU_TO_ONNX)[layout]
    directions = 1 if cell else (2 if c.attr("direction") == "both" else 1)
    gate_axis = 0 if cell else 1

    def seq(name):  # add the step / direction axis the cell form lacks
        return e.unsqueeze(name, [0]) if cell else name

    x = seq(c["input"])
    w = seq(_reorder(e, c["weight"], order, gate_axis, gates))
    r = seq(_reorder(e, c["recurrentWeight"], order, gate_axis, gates))
    b = _bias(e, c, order, gates, hidden, directions, data_type, cell)
    b = seq(b) if b else ""
    if cell:
        h0 = seq(c["hiddenState"])
        c0 = seq(c["cellState"]) if is_lstm else ""
    else:
        h0 = c.get("initialHiddenState", "")
        c0 = c.get("initialCellState", "") if is_lstm else ""
    attrs = dict(hidden_size=hidden, direction="forward" if cell else DIRECTIONS[c.attr("direction")])
    if is_lstm:
        p = c.get("peepholeWeight", "")
        p = seq(p) if p else ""
        inputs = [x, w, r, b, "", h0, c0, p]
        attrs["activations"] = _activations(c, directions)
        outputs = e.op("LSTM", _trim(inputs), outputs=3, **attrs)
    else:
        inputs = [x, w, r, b, "", h0]
        attrs["activations"] = _activations(c, directions)
        attrs["linear_before_reset"] = int(bool(c.attr("resetAfter")))
        outputs = e.op("GRU", _trim(inputs), outputs=2, **attrs)
    return outputs


def _trim(inputs: list[str]) -> list[str]:
    while inputs and inputs[-1] == "":
        inputs.pop()
    return inputs


def gru(e: Emitter, c: Call):
    y, y_h = _rnn(e, c, "GRU", cell=False)
    return [y_h, y] if c.attr("returnSequence") else [y_h]


def gru_cell(e: Emitter, c: Call) -> str:
    _, y_h = _rnn(e, c, "GRU", cell=True)
    return e.squeeze(y_h, [0])


# WebNN's lstmCell (spec note "the behavior of this operation", followed by
# the reference) feeds the output gate's peephole with the PREVIOUS cell state;
# ONNX LSTM feeds it the new one. With a peepholeWeight the cell is therefore
# composed from MatMul/Split/activations, and lstm unrolled over its steps.
LSTM_GATES = {"iofg": "iofg", "ifgo": "ifgo"}


def _composed_lstm_cell(e: Emitter, x, w, r, bias, p, h, cell, layout: str, acts, hidden: int):
    """One WebNN lstmCell step on 2-D operands; returns (h', c')."""
    gates = e.op("Add", [e.op("MatMul", [x, e.transpose(w, (1, 0))]), e.op("MatMul", [h, e.transpose(r, (1, 0))])])
    if bias:
        gates = e.op("Add", [gates, bias])
    parts = dict(zip(LSTM_GATES[layout], e.op("Split", [gates], outputs=[e.fresh("gate") for _ in range(4)],
                                                   axis=1, num_outputs=4)))
    peep = dict(zip("iof", e.op("Split", [p], outputs=[e.fresh("peep") for _ in range(3)], axis=0, num_outputs=3)))
    gate_act, cell_act, out_act = (ACTIVATIONS[a] for a in acts)

    def gate(name):
        return e.op(gate_act, [e.op("Add", [parts[name], e.op("Mul", [cell, peep[name]])])])

    i, f, o = gate("i"), gate("f"), gate("o")  # all three see the previous cell state
    g = e.op(cell_act, [parts["g"]])
    new_cell = e.op("Add", [e.op("Mul", [f, cell]), e.op("Mul", [i, g])])
    return e.op("Mul", [o, e.op(out_act, [new_cell])]), new_cell


def _summed_bias(e: Emitter, c: Call, pick):
    terms = [pick(c[n]) for n in ("bias", "recurrentBias") if c.has(n)]
    if not terms:
        return ""
    return terms[0] if len(terms) == 1 else e.op("Add", terms)


def _peephole_lstm(e: Emitter, c: Call):
    hidden = int(c.attr("hiddenSize"))
    layout = c.attr("layout")
    acts = c.attr("activations")
    data_type = c.desc("input").data_type
    steps, batch = c.desc("input").shape[:2]
    direction = c.attr("direction")
    directions = 2 if direction == "both" else 1

    def pick(name, index):
        return e.op("Gather", [name, e.scalar(index, "int64")], axis=0)

    hiddens, cells, sequences = [], [], []
    zeros = e.const(np.zeros((batch, hidden)), data_type, (batch, hidden))
    for d in range(directions):
        w, r, p = pick(c["weight"], d), pick(c["recurrentWeight"], d), pick(c["peepholeWeight"], d)
        bias = _summed_bias(e, c, lambda name: pick(name, d))
        h = pick(c["initialHiddenState"], d) if c.has("initialHiddenState") else zeros
        cell = pick(c["initialCellState"], d) if c.has("initialCellState") else zeros
        backward = d == 1 or direction == "backward"
        order = range(steps - 1, -1, -1) if backward else range(steps)
        per_step = {}
        for t in order:
            h, cell = _composed_lstm_cell(e, pick(c["input"], t), w, r, bias, p, h, cell, layout, acts, hidden)
            per_step[t] = h
        hiddens.append(e.unsqueeze(h, [0]))
        cells.append(e.unsqueeze(cell, [0]))
        # The sequence is indexed by input step whatever the direction (spec lstm note).
        sequences.append(e.unsqueeze(e.op("Concat", [e.unsqueeze(per_step[t], [0]) for t in range(steps)], axis=0), [1]))

    def joined(names, axis):
        return names[0] if len(names) == 1 else e.op("Concat", names, axis=axis)

    outputs = [joined(hiddens, 0), joined(cells, 0)]
    if c.attr("returnSequence"):
        outputs.append(joined(sequences, 1))
    return outputs


def lstm(e: Emitter, c: Call):
    if c.has("peepholeWeight"):
        return _peephole_lstm(e, c)
    y, y_h, y_c = _rnn(e, c, "LSTM", cell=False)
    return [y_h, y_c, y] if c.attr("returnSequence") else [y_h, y_c]


def lstm_cell(e: Emitter, c: Call):
    if c.has("peepholeWeight"):
        return list(_composed_lstm_cell(
            e, c["input"], c["weight"], c["recurrentWeight"], _summed_bias(e, c, lambda name: name),
            c["peepholeWeight"], c["hiddenState"], c["cellState"], c.attr("layout"),
            c.attr("activations"), int(c.attr("hiddenSize"))))
    _, y_h, y_c = _rnn(e, c, "LSTM", cell=True)
    return [e.squeeze(y_h, [0]), e.squeeze(y_c, [0])]


LOWER = {"gru": gru, "gruCell": gru_cell, "lstm": lstm, "lstmCell": lstm_cell}
EMULATED = {
    "gruCell": "ONNX GRU with one step (operands unsqueezed, Y_h squeezed); ONNX has no GRU cell",
    "lstmCell": "ONNX LSTM with one step (operands unsqueezed, Y_h/Y_c squeezed); ONNX has no LSTM cell. "
    "With peepholeWeight: composed from MatMul/Split/activations, because WebNN's output gate peephole "
    "uses the previous cell state where ONNX LSTM uses the new one",
    "lstm": "with peepholeWeight: unrolled over the steps into composed lstmCells (output gate peephole on the "
    "previous cell state, as WebNN's lstmCell note has it; ONNX LSTM uses the new one)",
}
