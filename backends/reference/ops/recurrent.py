"""Reference (float64 numpy) implementations of the recurrent operators.

Each function follows the spec's emulation code for the op
(index.bs #api-mlgraphbuilder-gru, -grucell, -lstm, -lstmcell):
- gate vectors are packed along the gate dimension in ``layout`` order
  (GRU "zrn"/"rzn", LSTM "iofg"/"ifgo"); peephole weights are always packed
  i, o, f whatever the layout ("The pack ordering ... is for the input (i),
  output (o), and forget (f) gate, respectively");
- an absent bias, recurrent bias or initial state is zero;
- the sequence ops run the cell once per step and direction; the backward
  direction walks the steps in reverse, and its sequence entries are stored
  at the time index of the input step they consumed (the emulation prepends
  them); "both" stacks forward then backward along the numDirections axis.

Where ONNX differs (tests/test_recurrent_reference.py cross-checks against
onnx.reference): ONNX's default gate orders are GRU zrh (= WebNN "zrn") and
LSTM iofc (= WebNN "iofg"); ONNX packs bias and recurrent bias in one B
tensor; ONNX's linear_before_reset=1 is WebNN resetAfter=true (WebNN's
default is true, ONNX's is 0); ONNX outputs are ordered Y, Y_h, Y_c (sequence
first) where WebNN returns hidden, cell, sequence; and ONNX's LSTM output
gate peephole reads the NEW cell state C_t, while WebNN's lstmCell emulation
reads the incoming cellState for all three peepholes.
"""
from __future__ import annotations

import numpy as np


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


ACTIVATIONS = {"relu": lambda x: np.maximum(x, 0.0), "sigmoid": _sigmoid, "tanh": np.tanh}


def gate_slices(packed: np.ndarray | None, order: str, hidden_size: int) -> dict[str, np.ndarray | float]:
    """Split a tensor packed along its first dimension into one block per gate,
    keyed by the gate letters of ``order`` (e.g. "zrn", "ifgo", "iof").
    An absent operand gives 0.0 for every gate (the spec's ``zero`` constant)."""
    if packed is None:
        return {gate: 0.0 for gate in order}
    return {gate: packed[k * hidden_size:(k + 1) * hidden_size] for k, gate in enumerate(order)}


def _project(x: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """matmul(x, transpose(weight)) for a [batch, K] x and a [hidden, K] weight."""
    return x @ weight.T


def gruCell(input, weight, recurrentWeight, hiddenState, hiddenSize, bias=None, recurrentBias=None,
            resetAfter=True, layout="zrn", activations=("sigmoid", "tanh")):
    w, u = gate_slices(weight, layout, hiddenSize), gate_slices(recurrentWeight, layout, hiddenSize)
    b, rb = gate_slices(bias, layout, hiddenSize), gate_slices(recurrentBias, layout, hiddenSize)
    gate, new = ACTIVATIONS[activations[0]], ACTIVATIONS[activations[1]]
    h = hiddenState
    z = gate(b["z"] + rb["z"] + _project(input, w["z"]) + _project(h, u["z"]))
    r = gate(b["r"] + rb["r"] + _project(input, w["r"]) + _project(h, u["r"]))
    if resetAfter:  # reset gate applied after the recurrent matmul (and its bias)
        n = new(b["n"] + _project(input, w["n"]) + r * (rb["n"] + _project(h, u["n"])))
    else:
        n = new(b["n"] + rb["n"] + _project(input, w["n"]) + _project(r * h, u["n"]))
    return z * h + n * (1.0 - z)


def lstmCell(input, weight, recurrentWeight, hiddenState, cellState, hiddenSize, bias=None,
             recurrentBias=None, peepholeWeight=None, layout="iofg", activations=("sigmoid", "tanh", "tanh")):
    w, u = gate_slices(weight, layout, hiddenSize), gate_slices(recurrentWeight, layout, hiddenSize)
    b, rb = gate_slices(bias, layout, hiddenSize), gate_slices(recurrentBias, layout, hiddenSize)
    p = gate_slices(peepholeWeight, "iof", hiddenSize)
    gate, cell, filter_ = (ACTIVATIONS[a] for a in activations)
    h, c = hiddenState, cellState

    def pre(g: str) -> np.ndarray:
        return b[g] + rb[g] + _project(input, w[g]) + _project(h, u[g])

    def peephole(g: str) -> np.ndarray | float:
        # The spec adds the peephole term only when peepholeWeight is given:
        # without it an infinite cell state must not turn a gate into inf * 0 = NaN.
        return 0.0 if peepholeWeight is None else c * p[g]

    # All three peepholes read the incoming cell state (spec emulation; ONNX
    # uses the new cell state for the output gate).
    i = gate(peephole("i") + pre("i"))
    f = gate(peephole("f") + pre("f"))
    g = cell(pre("g"))
    o = gate(peephole("o") + pre("o"))
    ct = f * c + i * g
    return o * filter_(ct), ct


def _directions(direction: str) -> list[bool]:
    """One entry per direction: True where the steps are walked in reverse."""
    return {"forward": [False], "backward": [True], "both": [False, True]}[direction]


def _initial_state(given: np.ndarray | None, directions: int, batch: int, hidden: int, dtype) -> np.ndarray:
    return np.zeros((directions, batch, hidden), dtype) if given is None else given


def _run_directions(input, step_fn, states, direction):
    """Run ``step_fn(dir, x_t, *state) -> state`` over the steps for each
    direction. Returns (final states stacked per direction, sequence
    [steps, numDirections, batch, hidden] of each step's first state)."""
    steps = input.shape[0]
    finals, sequences = [], []
    for d, reverse in enumerate(_directions(direction)):
        state = tuple(s[d] for s in states)
        sequence = [None] * steps
        for t in (reversed(range(steps)) if reverse else range(steps)):
            state = step_fn(d, input[t], *state)
            sequence[t] = state[0]  # stored at the time index it consumed
        finals.append(state)
        sequences.append(np.stack(sequence))
    stacked = tuple(np.stack([f[k] for f in finals]) for k in range(len(states)))
    return stacked, np.stack(sequences, axis=1)


def gru(input, weight, recurrentWeight, steps, hiddenSize, bias=None, recurrentBias=None,
        initialHiddenState=None, resetAfter=True, returnSequence=False, direction="forward",
        layout="zrn", activations=("sigmoid", "tanh")):
    directions = len(_directions(direction))
    h0 = _initial_state(initialHiddenState, directions, input.shape[1], hiddenSize, input.dtype)

    def step(d, x, h):
        return (gruCell(x, weight[d], recurrentWeight[d], h, hiddenSize,
                        bias=None if bias is None else bias[d],
                        recurrentBias=None if recurrentBias is None else recurrentBias[d],
                        resetAfter=resetAfter, layout=layout, activations=activations),)

    (hidden,), sequence = _run_directions(input, step, (h0,), direction)
    return (hidden, sequence) if returnSequence else (hidden,)


def lstm(input, weight, recurrentWeight, steps, hiddenSize, bias=None, recurrentBias=None,
         peepholeWeight=None, initialHiddenState=None, initialCellState=None, returnSequence=False,
         direction="forward", layout="iofg", activations=("sigmoid", "tanh", "tanh")):
    directions = len(_directions(direction))
    h0 = _initial_state(initialHiddenState, directions, input.shape[1], hiddenSize, input.dtype)
    c0 = _initial_state(initialCellState, directions, input.shape[1], hiddenSize, input.dtype)

    def step(d, x, h, c):
        return lstmCell(x, weight[d], recurrentWeight[d], h, c, hiddenSize,
                        bias=None if bias is None else bias[d],
                        recurrentBias=None if recurrentBias is None else recurrentBias[d],
                        peepholeWeight=None if peepholeWeight is None else peepholeWeight[d],
                        layout=layout, activations=activations)

    (hidden, cell), sequence = _run_directions(input, step, (h0, c0), direction)
    return (hidden, cell, sequence) if returnSequence else (hidden, cell)


OPS = {"gru": gru, "gruCell": gruCell, "lstm": lstm, "lstmCell": lstmCell}
