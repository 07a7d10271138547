"""gru, gruCell, lstm, lstmCell on OpenVINO's GRU/LSTM cell and sequence ops.

WebNN and OpenVINO differ in three ways this file bridges:
- gate order: OpenVINO GRU uses z, r, h (WebNN "zrn"; "rzn" is reordered);
  OpenVINO LSTM uses f, i, c, o (WebNN "iofg" and "ifgo" are reordered);
- layout: WebNN sequences are [steps, batch, ...] and return states as
  [numDirections, batch, hidden]; OpenVINO is batch-major;
- biases: OpenVINO takes one bias, the sum of WebNN's bias and recurrentBias,
  except GRU with linear_before_reset (WebNN resetAfter), which keeps the
  recurrent new-gate bias apart as a fourth block.
OpenVINO's LSTM ops have no peepholes; with peepholeWeight the cell is
composed from MatMul and activations exactly as the spec's emulation note
writes it (the output gate's peephole reads the previous cell state).
"""
from __future__ import annotations

import numpy as np
import openvino.opset16 as ops

from webnn_harness.backends.lowering import Call
from webnn_harness.backends.openvino.lower.base import const, constant, output, shape, slice_axis, squeeze, transpose, unsqueeze

GRU_ORDER = {"zrn": (0, 1, 2), "rzn": (1, 0, 2)}  # WebNN layout -> positions of z, r, n
LSTM_TO_FICO = {"iofg": (2, 0, 3, 1), "ifgo": (1, 0, 2, 3)}  # positions of f, i, g, o
ACTIVATIONS = {"sigmoid": ops.sigmoid, "tanh": ops.tanh, "relu": ops.relu}


def _gates(t, axis, hidden, order):
    """Gate blocks of size ``hidden`` along ``axis``, in ``order``."""
    return [slice_axis(t, axis, g * hidden, hidden) for g in order]


def _reorder(t, axis, hidden, order):
    return output(ops.concat(_gates(t, axis, hidden, order), axis))


def _zeros(like, dims):
    return const(np.zeros(dims), like)


def _gru_bias(input, bias, recurrentBias, hidden, layout, resetAfter, lead):
    """OpenVINO GRU bias ([*lead, 3H], or [*lead, 4H] with linear_before_reset)."""
    axis = len(lead)
    zeros = _zeros(input, [*lead, 3 * hidden])
    b = _reorder(bias, axis, hidden, GRU_ORDER[layout]) if bias is not None else zeros
    rb = _reorder(recurrentBias, axis, hidden, GRU_ORDER[layout]) if recurrentBias is not None else zeros
    if not resetAfter:
        return output(ops.add(b, rb))
    zr = ops.add(slice_axis(b, axis, 0, 2 * hidden), slice_axis(rb, axis, 0, 2 * hidden))
    return output(ops.concat([zr, slice_axis(b, axis, 2 * hidden, hidden), slice_axis(rb, axis, 2 * hidden, hidden)], axis))


def gru_cell(e, c: Call):
    input, hidden, layout, reset_after = c["input"], c.attr("hiddenSize"), c.attr("layout"), c.attr("resetAfter")
    order = GRU_ORDER[layout]
    w = _reorder(c["weight"], 0, hidden, order)
    r = _reorder(c["recurrentWeight"], 0, hidden, order)
    b = _gru_bias(input, c.get("bias"), c.get("recurrentBias"), hidden, layout, reset_after, [])
    return output(ops.gru_cell(input, c["hiddenState"], w, r, b, hidden, list(c.attr("activations")),
                               linear_before_reset=reset_after))


def gru(e, c: Call):
    input, hidden, layout, reset_after = c["input"], c.attr("hiddenSize"), c.attr("layout"), c.attr("resetAfter")
    _, batch, _ = shape(input)
    num_dir = shape(c["weight"])[0]
    order = GRU_ORDER[layout]
    w = _reorder(c["weight"], 1, hidden, order)
    r = _reorder(c["recurrentWeight"], 1, hidden, order)
    b = _gru_bias(input, c.get("bias"), c.get("recurrentBias"), hidden, layout, reset_after, [num_dir])
    h0 = _batch_major_state(input, c.get("initialHiddenState"), num_dir, batch, hidden)
    seq = ops.gru_sequence(transpose(input, (1, 0, 2)), h0, _lengths(batch, c.attr("steps")), w, r, b, hidden,
                           _direction(c.attr("direction")), list(c.attr("activations")),
                           linear_before_reset=reset_after)
    y, h = seq.output(0), seq.output(1)
    outs = [transpose(h, (1, 0, 2))]
    if c.attr("returnSequence"):
        outs.append(transpose(y, (2, 1, 0, 3)))
    return tuple(outs)


def _direction(direction):
    return {"forward": "forward", "backward": "reverse", "both": "bidirectional"}[direction]


def _lengths(batch, steps):
    return constant(np.full([batch], steps, np.int32))


def _batch_major_state(input, state, num_dir, batch, hidden):
    if state is None:
        return _zeros(input, [batch, num_dir, hidden])
    return transpose(state, (1, 0, 2))


def _lstm_bias(input, bias, recurrentBias, hidden, layout, lead):
    axis = len(lead)
    parts = [_reorder(t, axis, hidden, LSTM_TO_FICO[layout]) for t in (bias, recurrentBias) if t is not None]
    if not parts:
        return _zeros(input, [*lead, 4 * hidden])
    return parts[0] if len(parts) == 1 else output(ops.add(*parts))


def lstm_cell(e, c: Call):
    input, weight, recurrent_weight = c["input"], c["weight"], c["recurrentWeight"]
    bias, recurrent_bias, peephole = c.get("bias"), c.get("recurrentBias"), c.get("peepholeWeight")
    hidden, layout, activations = c.attr("hiddenSize"), c.attr("layout"), c.attr("activations")
    if peephole is not None:
        return _composed_lstm_cell(input, weight, recurrent_weight, c["hiddenState"], c["cellState"], hidden, layout,
                                   activations, bias, recurrent_bias, peephole)
    order = LSTM_TO_FICO[layout]
    w = _reorder(weight, 0, hidden, order)
    r = _reorder(recurrent_weight, 0, hidden, order)
    b = _lstm_bias(input, bias, recurrent_bias, hidden, layout, [])
    cell = ops.lstm_cell(input, c["hiddenState"], c["cellState"], w, r, b, hidden, list(activations))
    return cell.output(0), cell.output(1)


def _composed_lstm_cell(x, weight, recurrentWeight, h, c, hidden, layout, activations, bias, recurrentBias,
                        peephole):
    """The spec's lstmCell emulation, for any layout and activations."""
    parts = _lstm_gate_parts(weight, recurrentWeight, bias, recurrentBias, peephole, hidden, layout)
    return _composed_lstm_step(x, h, c, parts, activations)


def _lstm_gate_parts(weight, recurrentWeight, bias, recurrentBias, peephole, hidden, layout):
    """Per-gate blocks of the weights, biases and peepholes (dicts by gate
    name), sliced once so that every step of an unrolled lstm shares them."""
    names = ("i", "o", "f", "g") if layout == "iofg" else ("i", "f", "g", "o")
    w = dict(zip(names, _gates(weight, 0, hidden, range(4))))
    r = dict(zip(names, _gates(recurrentWeight, 0, hidden, range(4))))
    b = dict(zip(names, _gates(bias, 0, hidden, range(4)))) if bias is not None else {}
    rb = dict(zip(names, _gates(recurrentBias, 0, hidden, range(4)))) if recurrentBias is not None else {}
    p = dict(zip(("i", "o", "f"), _gates(peephole, 0, hidden, range(3)))) if peephole is not None else {}
    return w, r, b, rb, p


def _composed_lstm_step(x, h, c, parts, activations):
    w, r, b, rb, p = parts
    gate_fn, cell_fn, out_fn = (ACTIVATIONS[a] for a in activations)

    def gate(name, fn):
        z = ops.add(ops.matmul(x, w[name], False, True), ops.matmul(h, r[name], False, True))
        for extra in (b.get(name), rb.get(name)):
            if extra is not None:
                z = ops.add(z, extra)
        if name in p:
            z = ops.add(z, ops.multiply(c, p[name]))
        return fn(z)

    i, f, g, o = gate("i", gate_fn), gate("f", gate_fn), gate("g", cell_fn), gate("o", gate_fn)
    c_new = ops.add(ops.multiply(f, c), ops.multiply(i, g))
    h_new = ops.multiply(o, out_fn(c_new))
    return output(h_new), output(c_new)


def lstm(e, c: Call):
    input, weight, recurrent_weight = c["input"], c["weight"], c["recurrentWeight"]
    bias, recurrent_bias, peephole = c.get("bias"), c.get("recurrentBias"), c.get("peepholeWeight")
    initial_hidden, initial_cell = c.get("initialHiddenState"), c.get("initialCellState")
    steps, hidden, layout, activations = c.attr("steps"), c.attr("hiddenSize"), c.attr("layout"), c.attr("activations")
    direction, return_sequence = c.attr("direction"), c.attr("returnSequence")
    _, batch, _ = shape(input)
    num_dir = shape(weight)[0]
    if peephole is not None:
        return _unrolled_lstm(input, weight, recurrent_weight, steps, hidden, return_sequence, direction, layout,
                              activations, bias, recurrent_bias, peephole, initial_hidden, initial_cell, batch,
                              num_dir)
    order = LSTM_TO_FICO[layout]
    w = _reorder(weight, 1, hidden, order)
    r = _reorder(recurrent_weight, 1, hidden, order)
    b = _lstm_bias(input, bias, recurrent_bias, hidden, layout, [num_dir])
    h0 = _batch_major_state(input, initial_hidden, num_dir, batch, hidden)
    c0 = _batch_major_state(input, initial_cell, num_dir, batch, hidden)
    seq = ops.lstm_sequence(transpose(input, (1, 0, 2)), h0, c0, _lengths(batch, steps), w, r, b, hidden,
                            _direction(direction), list(activations))
    outs = [transpose(seq.output(1), (1, 0, 2)), transpose(seq.output(2), (1, 0, 2))]
    if return_sequence:
        outs.append(transpose(seq.output(0), (2, 1, 0, 3)))
    return tuple(outs)


def _unrolled_lstm(input, weight, recurrentWeight, steps, hidden, returnSequence, direction, layout, activations,
                   bias, recurrentBias, peephole, h0, c0, batch, num_dir):
    """The spec's lstm emulation: lstmCell per step and direction."""
    hs, cs, sequences = [], [], []
    for d in range(num_dir):
        def pick(t):
            return None if t is None else squeeze(slice_axis(t, 0, d, 1), [0])

        h = pick(h0) if h0 is not None else _zeros(input, [batch, hidden])
        c = pick(c0) if c0 is not None else _zeros(input, [batch, hidden])
        # One set of gate blocks per direction: the same nodes OpenVINO's
        # common-subexpression pass would leave of a per-step slicing, made
        # once (compile time grows with the node count).
        parts = _lstm_gate_parts(pick(weight), pick(recurrentWeight), pick(bias), pick(recurrentBias),
                                 pick(peephole), hidden, layout)
        backward = d == 1 or direction == "backward"
        per_step = [None] * steps
        for step in range(steps):
            t = steps - 1 - step if backward else step
            x = squeeze(slice_axis(input, 0, t, 1), [0])
            h, c = _composed_lstm_step(x, h, c, parts, activations)
            per_step[t] = unsqueeze(h, [0, 1])
        hs.append(unsqueeze(h, [0]))
        cs.append(unsqueeze(c, [0]))
        sequences.append(output(ops.concat(per_step, 0)))
    outs = [output(ops.concat(hs, 0)), output(ops.concat(cs, 0))]
    if returnSequence:
        outs.append(output(ops.concat(sequences, 1)))
    return tuple(outs)


LOWER = {"gru": gru, "gruCell": gru_cell, "lstm": lstm, "lstmCell": lstm_cell}
EMULATED = {
    "lstm": "LSTMSequence (gates reordered to fico, biases summed, batch-major transposes); with "
    "peepholeWeight: unrolled MatMul/activation cells per the spec's emulation note",
    "lstmCell": "LSTMCell (gates reordered to fico, biases summed); with peepholeWeight: MatMul/activation "
    "composition per the spec's emulation note",
    "gru": "GRUSequence (rzn reordered to zrn, biases summed or split for linear_before_reset, "
    "batch-major transposes)",
    "gruCell": "GRUCell (rzn reordered to zrn, biases summed or split for linear_before_reset)",
}
