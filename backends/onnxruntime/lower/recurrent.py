"""gru, gruCell, lstm, lstmCell on ONNX GRU / LSTM.

Gate orders: ONNX GRU packs z, r, h (= WebNN "zrn"); ONNX LSTM packs i, o, f, c
(= WebNN "iofg"); peepholes are i, o, f in both. Other WebNN layouts are
reordered with Split + Concat along the gate axis. ONNX takes one bias
B = [Wb, Rb] of 2 * gates * hiddenSize per direction. The cells are the
sequence ops with one step (ONNX has no cell ops).
"""
from __future__ import annotations

import numpy as np

from backends.onnxruntime.emitter import Call, Emitter

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


def _activations(c: Call, defaults, directions: int) -> list[str]:
    names = c.attr("activations", defaults)
    return [ACTIVATIONS[a] for a in names] * directions


def _rnn(e: Emitter, c: Call, kind: str, cell: bool):
    """Emit the ONNX GRU/LSTM node; return (Y, Y_h, Y_c) names ('' when absent)."""
    is_lstm = kind == "LSTM"
    gates = 4 if is_lstm else 3
    hidden = int(c.attr("hiddenSize"))
    data_type = c.desc("input").data_type
    layout = c.attr("layout", "iofg" if is_lstm else "zrn")
    order = (LSTM_TO_ONNX if is_lstm else GRU_TO_ONNX)[layout]
    directions = 1 if cell else (2 if c.attr("direction", "forward") == "both" else 1)
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
    attrs = dict(hidden_size=hidden, direction="forward" if cell else DIRECTIONS[c.attr("direction", "forward")])
    if is_lstm:
        p = c.get("peepholeWeight", "")
        p = seq(p) if p else ""
        inputs = [x, w, r, b, "", h0, c0, p]
        attrs["activations"] = _activations(c, ["sigmoid", "tanh", "tanh"], directions)
        outputs = e.op("LSTM", _trim(inputs), outputs=3, **attrs)
    else:
        inputs = [x, w, r, b, "", h0]
        attrs["activations"] = _activations(c, ["sigmoid", "tanh"], directions)
        attrs["linear_before_reset"] = int(bool(c.attr("resetAfter", True)))
        outputs = e.op("GRU", _trim(inputs), outputs=2, **attrs)
    return outputs


def _trim(inputs: list[str]) -> list[str]:
    while inputs and inputs[-1] == "":
        inputs.pop()
    return inputs


def gru(e: Emitter, c: Call):
    y, y_h = _rnn(e, c, "GRU", cell=False)
    return [y_h, y] if c.attr("returnSequence", False) else [y_h]


def gru_cell(e: Emitter, c: Call) -> str:
    _, y_h = _rnn(e, c, "GRU", cell=True)
    return e.squeeze(y_h, [0])


def lstm(e: Emitter, c: Call):
    y, y_h, y_c = _rnn(e, c, "LSTM", cell=False)
    return [y_h, y_c, y] if c.attr("returnSequence", False) else [y_h, y_c]


def lstm_cell(e: Emitter, c: Call):
    _, y_h, y_c = _rnn(e, c, "LSTM", cell=True)
    return [e.squeeze(y_h, [0]), e.squeeze(y_c, [0])]


LOWER = {"gru": gru, "gruCell": gru_cell, "lstm": lstm, "lstmCell": lstm_cell}
EMULATED = {
    "gruCell": "ONNX GRU with one step (operands unsqueezed, Y_h squeezed); ONNX has no GRU cell",
    "lstmCell": "ONNX LSTM with one step (operands unsqueezed, Y_h/Y_c squeezed); ONNX has no LSTM cell",
}
