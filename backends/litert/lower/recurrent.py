"""gru, gruCell, lstm, lstmCell, composed and unrolled as Chromium does on
TFLite (its UNIDIRECTIONAL_SEQUENCE_LSTM has other gate semantics and no
GRU exists): each cell from BATCH_MATMUL (weights transposed by adjY), ADD,
MUL, SUB and the activations, per gate a SLICE of the packed projection; the
sequence ops step the cell over the input's steps in each direction.

The spec's emulation is followed where engines differ: lstm's output gate
peephole reads the incoming cell state; without a peepholeWeight no peephole
term is added at all (an infinite cell state must not give inf * 0 = NaN);
a backward direction's sequence output is indexed by the input step.
"""
from __future__ import annotations

import numpy as np
from ai_edge_litert import schema_py_generated as schema

from webnn_harness.backends.litert.emitter import OP, Call, Emitter
from webnn_harness.backends.litert.lower.elementwise import binary, refuse_quantized, unary
from webnn_harness.backends.litert.lower.linalg import batch_matmul
from webnn_harness.spec.graph import TensorDesc

ACTIVATIONS = {"sigmoid": OP.LOGISTIC, "tanh": OP.TANH, "relu": OP.RELU}


def _at(e: Emitter, x: int, index: int) -> int:
    """x[index] along axis 0 (a SLICE and RESHAPE; folded for a constant)."""
    desc = e.desc(x)
    if x in e.values:
        return e.constant(e.values[x][index], desc.data_type)
    size = [1, *desc.shape[1:]]
    part = e.op(OP.SLICE, [x, e.i32([index] + [0] * (desc.rank - 1)), e.i32(size)], e.like(x, shape=size))
    return e.reshape(part, desc.shape[1:])


def _gates(e: Emitter, x: int, order: str, hidden: int) -> dict[str, int]:
    """The packed last axis of ``x`` cut into one slice per gate letter of ``order``."""
    shape = e.desc(x).shape
    out = {}
    for k, gate in enumerate(order):
        begin = [0] * (len(shape) - 1) + [k * hidden]
        size = [*shape[:-1], hidden]
        if x in e.values:
            out[gate] = e.constant(e.values[x][..., k * hidden:(k + 1) * hidden], e.desc(x).data_type)
        else:
            out[gate] = e.op(OP.SLICE, [x, e.i32(begin), e.i32(size)], e.like(x, shape=size))
    return out


def _project(e: Emitter, x: int, weight: int) -> int:
    """x @ weight^T for x [batch, K] and weight [N, K]."""
    out = (e.desc(x).shape[0], e.desc(weight).shape[0])
    return batch_matmul(e, x, weight, e.like(x, shape=out), adj_y=True)


def _add_all(e: Emitter, *terms) -> int:
    terms = [t for t in terms if t is not None]
    total = terms[0]
    for term in terms[1:]:
        total = binary(e, OP.ADD, total, term)
    return total


def gru_step(e: Emitter, x, w, r, h, b, rb, hidden: int, reset_after: bool, layout: str, acts) -> int:
    gate, new = (ACTIVATIONS[a] for a in acts)
    xw = _gates(e, _project(e, x, w), layout, hidden)
    hr = _gates(e, _project(e, h, r), layout, hidden)
    bias = _gates(e, b, layout, hidden) if b is not None else {}
    recurrent_bias = _gates(e, rb, layout, hidden) if rb is not None else {}
    z = unary(e, gate, _add_all(e, xw["z"], hr["z"], bias.get("z"), recurrent_bias.get("z")))
    reset = unary(e, gate, _add_all(e, xw["r"], hr["r"], bias.get("r"), recurrent_bias.get("r")))
    if reset_after:
        recurrent = binary(e, OP.MUL, reset, _add_all(e, hr["n"], recurrent_bias.get("n")))
        n = unary(e, new, _add_all(e, xw["n"], bias.get("n"), recurrent))
    else:
        r_n = _gates(e, e.transpose(r, (1, 0)), layout, hidden)["n"]  # [H, H] columns of gate n, transposed back
        recurrent = _project(e, binary(e, OP.MUL, reset, h), e.transpose(r_n, (1, 0)))
        n = unary(e, new, _add_all(e, xw["n"], bias.get("n"), recurrent_bias.get("n"), recurrent))
    # z * h + n * (1 - z)
    one = e.scalar(1, e.desc(h).data_type)
    return binary(e, OP.ADD, binary(e, OP.MUL, z, h), binary(e, OP.MUL, n, binary(e, OP.SUB, one, z)))


def lstm_step(e: Emitter, x, w, r, h, cell, b, rb, p, hidden: int, layout: str, acts) -> tuple[int, int]:
    gate, cell_act, out_act = (ACTIVATIONS[a] for a in acts)
    pre = _gates(e, _add_all(e, _project(e, x, w), _project(e, h, r), b, rb), layout, hidden)
    peep = _gates(e, p, "iof", hidden) if p is not None else {}

    def opened(name):
        term = binary(e, OP.MUL, cell, peep[name]) if name in peep else None
        return unary(e, gate, _add_all(e, pre[name], term))

    i, f, o = opened("i"), opened("f"), opened("o")  # every peephole reads the incoming cell state
    new_cell = binary(e, OP.ADD, binary(e, OP.MUL, f, cell), binary(e, OP.MUL, i, unary(e, cell_act, pre["g"])))
    return binary(e, OP.MUL, o, unary(e, out_act, new_cell)), new_cell


def _optional(c: Call, name: str):
    return c[name] if c.has(name) else None


def gru_cell(e: Emitter, c: Call) -> int:
    refuse_quantized(c, "input")
    return gru_step(e, c["input"], c["weight"], c["recurrentWeight"], c["hiddenState"], _optional(c, "bias"),
                    _optional(c, "recurrentBias"), int(c.attr("hiddenSize")), bool(c.attr("resetAfter")),
                    c.attr("layout"), c.attr("activations"))


def lstm_cell(e: Emitter, c: Call) -> list[int]:
    refuse_quantized(c, "input")
    return list(lstm_step(e, c["input"], c["weight"], c["recurrentWeight"], c["hiddenState"], c["cellState"],
                          _optional(c, "bias"), _optional(c, "recurrentBias"), _optional(c, "peepholeWeight"),
                          int(c.attr("hiddenSize")), c.attr("layout"),
                          c.attr("activations")))


def _unrolled(e: Emitter, c: Call, initial: tuple[str, ...], step) -> list[int]:
    """Run ``step(d, x_t, *state) -> state`` over the steps per direction;
    the final states stacked per direction, then the sequence if asked."""
    steps, batch = c.desc("input").shape[:2]
    hidden = int(c.attr("hiddenSize"))
    direction = c.attr("direction")
    backwards = {"forward": [False], "backward": [True], "both": [False, True]}[direction]
    data_type = c.desc("input").data_type
    zeros = e.constant(np.zeros((batch, hidden)), data_type)
    inputs = [_at(e, c["input"], t) for t in range(steps)]
    finals, sequences = [], []
    for d, backward in enumerate(backwards):
        state = tuple(_at(e, c[name], d) if c.has(name) else zeros for name in initial)
        per_step = {}
        for t in (reversed(range(steps)) if backward else range(steps)):
            state = step(d, inputs[t], *state)
            per_step[t] = state[0]
        finals.append(state)
        sequences.append([per_step[t] for t in range(steps)])

    def stacked(tensors, shape, axis):
        options = schema.PackOptionsT()
        options.axis, options.valuesCount = axis, len(tensors)
        return e.op(OP.PACK, tensors, TensorDesc(shape, data_type), options)

    directions = len(backwards)
    outputs = [stacked([f[k] for f in finals], (directions, batch, hidden), 0) for k in range(len(initial))]
    if c.attr("returnSequence"):
        per_step = [stacked([sequences[d][t] for d in range(directions)], (directions, batch, hidden), 0)
                    for t in range(steps)]
        outputs.append(stacked(per_step, (steps, directions, batch, hidden), 0))
    return outputs


def gru(e: Emitter, c: Call) -> list[int]:
    refuse_quantized(c, "input")
    hidden, layout = int(c.attr("hiddenSize")), c.attr("layout")
    acts, reset_after = c.attr("activations"), bool(c.attr("resetAfter"))
    per_direction = {}

    def operands(d):
        if d not in per_direction:
            per_direction[d] = [_at(e, c[n], d) if c.has(n) else None
                                for n in ("weight", "recurrentWeight", "bias", "recurrentBias")]
        return per_direction[d]

    def step(d, x, h):
        w, r, b, rb = operands(d)
        return (gru_step(e, x, w, r, h, b, rb, hidden, reset_after, layout, acts),)

    return _unrolled(e, c, ("initialHiddenState",), step)


def lstm(e: Emitter, c: Call) -> list[int]:
    refuse_quantized(c, "input")
    hidden, layout = int(c.attr("hiddenSize")), c.attr("layout")
    acts = c.attr("activations")
    per_direction = {}

    def operands(d):
        if d not in per_direction:
            per_direction[d] = [_at(e, c[n], d) if c.has(n) else None
                                for n in ("weight", "recurrentWeight", "bias", "recurrentBias", "peepholeWeight")]
        return per_direction[d]

    def step(d, x, h, cell):
        w, r, b, rb, p = operands(d)
        return lstm_step(e, x, w, r, h, cell, b, rb, p, hidden, layout, acts)

    return _unrolled(e, c, ("initialHiddenState", "initialCellState"), step)


LOWER = {"gru": gru, "gruCell": gru_cell, "lstm": lstm, "lstmCell": lstm_cell}
_CELL = "BATCH_MATMUL (adjY) per projection, SLICE per gate, ADD/MUL/SUB and the activations"
EMULATED = {
    "gruCell": _CELL + "; TFLite has no GRU",
    "lstmCell": _CELL + " (every peephole on the incoming cell state, as the spec's emulation)",
    "gru": "unrolled over the steps into composed gruCells, PACK of the states per direction and step",
    "lstm": "unrolled over the steps into composed lstmCells, PACK of the states per direction and step",
}
