"""Generate cases/recurrent/*.json: gru, gruCell, lstm, lstmCell.

Run: /work/venv/bin/python tools/cases/recurrent.py
Hand cases use tiny sizes and weights chosen so the spec's formulas
(index.bs gruCell/lstmCell emulation) can be followed on paper: relu
activations with small integers (exact), or zero weights where the default
activations give sigmoid(0) = 0.5 and tanh(0) = 0. Their expected values are
written out below from those formulas with plain Python, never from the
reference. Generated cases cover every direction, layout, resetAfter value,
optional operand and activation list; their expected values are left to the
reference.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reduction import case, gen, op, tensor, write  # noqa: E402

FAMILY = "recurrent"


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def _uniform(seed: int, scale: float = 1.0) -> dict:
    return gen(seed, "uniform", low=-scale, high=scale)


def _args(*positional, options=None) -> list[dict]:
    args = [dict([p]) for p in positional]
    if options:
        args.append({"options": options})
    return args


# ------------------------------------------------------------------- gru

def _gru_relu_hand(data_type: str, direction: str) -> dict:
    """relu gates, zrn: weight rows z = 0, r = 0, n = 1 (same for the
    recurrent weight) and bias r = 1, so z = relu(0) = 0, r = relu(1) = 1 and
    n = relu(x + 1 * h): every step h' = z*h + (1-z)*n = x + h.
    x = 1, 2, 4: forward 1, 3, 7; backward (t = 2, 1, 0) 4, 6, 7."""
    directions = 2 if direction == "both" else 1
    forward, backward = [1.0, 3.0, 7.0], [7.0, 6.0, 4.0]
    sequence = {"forward": forward, "backward": backward,
                "both": [v for pair in zip(forward, backward) for v in pair]}[direction]
    final = {"forward": [7.0], "backward": [7.0], "both": [7.0, 7.0]}[direction]
    return case(
        f"gru {data_type} relu {direction} returnSequence (hand)",
        {"x": tensor([1.0, 2.0, 4.0], [3, 1, 1], data_type),
         "w": tensor([0.0, 0.0, 1.0] * directions, [directions, 3, 1], data_type, constant=True),
         "r": tensor([0.0, 0.0, 1.0] * directions, [directions, 3, 1], data_type, constant=True),
         "b": tensor([0.0, 1.0, 0.0] * directions, [directions, 3], data_type, constant=True)},
        op("gru", _args(("input", "x"), ("weight", "w"), ("recurrentWeight", "r"), ("steps", 3), ("hiddenSize", 1),
                        options={"bias": "b", "direction": direction, "returnSequence": True,
                                 "activations": ["relu", "relu"]}), ["hidden", "sequence"]),
        {"hidden": tensor(final, [directions, 1, 1], data_type),
         "sequence": tensor(sequence, [3, directions, 1, 1], data_type)})


def _gru_halving_hand(data_type: str, layout: str, reset_after: bool) -> dict:
    """All weights zero, default activations: z = r = sigmoid(0) = 0.5 and
    n = tanh(0) = 0, so each step halves the state: h' = 0.5*h + 0.5*0."""
    h0 = [1.0, -2.0, 0.5, 4.0]
    return case(
        f"gru {data_type} zero weights halve the state, layout {layout}, resetAfter {str(reset_after).lower()} (hand)",
        {"x": tensor([0.25, -0.5, 1.0, 2.0, -1.0, 0.75, 3.0, -3.0], [2, 2, 2], data_type),
         "w": tensor(0.0, [1, 6, 2], data_type, constant=True),
         "r": tensor(0.0, [1, 6, 2], data_type, constant=True),
         "h0": tensor(h0, [1, 2, 2], data_type)},
        op("gru", _args(("input", "x"), ("weight", "w"), ("recurrentWeight", "r"), ("steps", 2), ("hiddenSize", 2),
                        options={"initialHiddenState": "h0", "layout": layout, "resetAfter": reset_after,
                                 "returnSequence": True}), ["hidden", "sequence"]),
        {"hidden": tensor([v / 4 for v in h0], [1, 2, 2], data_type),
         "sequence": tensor([v / 2 for v in h0] + [v / 4 for v in h0], [2, 1, 2, 2], data_type)})


def _gru_reset_hand(reset_after: bool, cell: bool) -> dict:
    """hidden 1, input 1, x = 0, weights zero except the recurrent n row = 1,
    recurrent bias n = 1, h = 2, default activations: z = r = 0.5.
    resetAfter:  n = tanh(r * (h*1 + 1)) = tanh(1.5)
    resetBefore: n = tanh((r*h)*1 + 1) = tanh(2)
    h' = z*h + (1 - z)*n = 1 + 0.5*n."""
    n = math.tanh(1.5) if reset_after else math.tanh(2.0)
    want = 1.0 + 0.5 * n
    name = f"{'gruCell' if cell else 'gru'} float32 recurrentBias with resetAfter {str(reset_after).lower()} (hand)"
    if cell:
        return case(name,
                    {"x": tensor([0.0], [1, 1], "float32"), "w": tensor(0.0, [3, 1], "float32", constant=True),
                     "r": tensor([0.0, 0.0, 1.0], [3, 1], "float32", constant=True),
                     "h": tensor([2.0], [1, 1], "float32"), "rb": tensor([0.0, 0.0, 1.0], [3], "float32", constant=True)},
                    op("gruCell", _args(("input", "x"), ("weight", "w"), ("recurrentWeight", "r"), ("hiddenState", "h"),
                                        ("hiddenSize", 1), options={"recurrentBias": "rb", "resetAfter": reset_after})),
                    {"output": tensor([want], [1, 1], "float32")})
    return case(name,
                {"x": tensor([0.0], [1, 1, 1], "float32"), "w": tensor(0.0, [1, 3, 1], "float32", constant=True),
                 "r": tensor([0.0, 0.0, 1.0], [1, 3, 1], "float32", constant=True),
                 "h0": tensor([2.0], [1, 1, 1], "float32"),
                 "rb": tensor([0.0, 0.0, 1.0], [1, 3], "float32", constant=True)},
                op("gru", _args(("input", "x"), ("weight", "w"), ("recurrentWeight", "r"), ("steps", 1), ("hiddenSize", 1),
                                options={"recurrentBias": "rb", "initialHiddenState": "h0", "resetAfter": reset_after}),
                   ["hidden"]),
                {"hidden": tensor([want], [1, 1, 1], "float32")})


def _gru_generated(name, seed, data_type, steps, batch, inp, hidden, present=(), **options) -> dict:
    directions = 2 if options.get("direction") == "both" else 1
    inputs = {"x": tensor(_uniform(seed), [steps, batch, inp], data_type),
              "w": tensor(_uniform(seed + 1), [directions, 3 * hidden, inp], data_type, constant=True),
              "r": tensor(_uniform(seed + 2), [directions, 3 * hidden, hidden], data_type, constant=True)}
    shapes = {"bias": [directions, 3 * hidden], "recurrentBias": [directions, 3 * hidden],
              "initialHiddenState": [directions, batch, hidden]}
    for k, name_ in enumerate(present):
        inputs[name_] = tensor(_uniform(seed + 3 + k), shapes[name_], data_type, constant=name_ != "initialHiddenState")
        options[name_] = name_
    outputs = ["hidden", "sequence"] if options.get("returnSequence") else ["hidden"]
    return case(f"gru {data_type} {name} generated", inputs,
                op("gru", _args(("input", "x"), ("weight", "w"), ("recurrentWeight", "r"), ("steps", steps),
                                ("hiddenSize", hidden), options=options), outputs))


ALL_GRU = ("bias", "recurrentBias", "initialHiddenState")


def gru_cases() -> list[dict]:
    out = [_gru_relu_hand("float32", d) for d in ("forward", "backward", "both")]
    out.append(_gru_relu_hand("float16", "both"))
    out += [_gru_halving_hand("float32", "rzn", False), _gru_halving_hand("float16", "zrn", True)]
    out += [_gru_reset_hand(True, cell=False), _gru_reset_hand(False, cell=False)]
    g = _gru_generated
    out += [
        g("forward defaults", 100, "float32", 3, 2, 3, 4),
        g("forward all operands returnSequence", 110, "float32", 4, 2, 3, 5, ALL_GRU, returnSequence=True),
        g("backward resetAfter false returnSequence", 120, "float32", 4, 3, 2, 3, ("bias",),
          direction="backward", resetAfter=False, returnSequence=True),
        g("both rzn all operands returnSequence", 130, "float32", 3, 2, 4, 3, ALL_GRU,
          direction="both", layout="rzn", returnSequence=True),
        g("both zrn resetAfter false", 140, "float32", 5, 1, 3, 4, ("recurrentBias", "initialHiddenState"),
          direction="both", resetAfter=False),
        g("forward activations sigmoid relu", 150, "float32", 4, 2, 3, 3, ("bias",),
          activations=["sigmoid", "relu"], returnSequence=True),
        g("backward rzn activations tanh tanh", 160, "float32", 3, 2, 3, 3, ALL_GRU,
          direction="backward", layout="rzn", activations=["tanh", "tanh"]),
        g("forward larger steps 8 hidden 16", 170, "float32", 8, 3, 16, 16, ("bias", "recurrentBias"),
          returnSequence=True),
        g("forward only recurrentBias", 180, "float32", 2, 2, 2, 2, ("recurrentBias",)),
        g("forward bias returnSequence", 200, "float16", 3, 2, 3, 4, ("bias",), returnSequence=True),
        g("both rzn resetAfter false all operands", 210, "float16", 3, 2, 3, 3, ALL_GRU,
          direction="both", layout="rzn", resetAfter=False, returnSequence=True),
        g("backward activations sigmoid relu", 220, "float16", 4, 1, 2, 3, ("initialHiddenState",),
          direction="backward", activations=["sigmoid", "relu"]),
    ]
    return out


# --------------------------------------------------------------- gruCell

def _gru_cell_generated(name, seed, data_type, batch, inp, hidden, present=(), **options) -> dict:
    inputs = {"x": tensor(_uniform(seed), [batch, inp], data_type),
              "w": tensor(_uniform(seed + 1), [3 * hidden, inp], data_type, constant=True),
              "r": tensor(_uniform(seed + 2), [3 * hidden, hidden], data_type, constant=True),
              "h": tensor(_uniform(seed + 3), [batch, hidden], data_type)}
    for k, name_ in enumerate(present):
        inputs[name_] = tensor(_uniform(seed + 4 + k), [3 * hidden], data_type, constant=True)
        options[name_] = name_
    return case(f"gruCell {data_type} {name} generated", inputs,
                op("gruCell", _args(("input", "x"), ("weight", "w"), ("recurrentWeight", "r"), ("hiddenState", "h"),
                                    ("hiddenSize", hidden), options=options or None)))


def gru_cell_cases() -> list[dict]:
    out = []
    for data_type in ("float32", "float16"):
        # relu, rows z = 0, r = 0, n = 1, bias r = 1: h' = x + h (see _gru_relu_hand).
        out.append(case(f"gruCell {data_type} relu batch 2 (hand)",
                        {"x": tensor([1.0, -3.0], [2, 1], data_type), "w": tensor([0.0, 0.0, 1.0], [3, 1], data_type, constant=True),
                         "r": tensor([0.0, 0.0, 1.0], [3, 1], data_type, constant=True), "h": tensor([2.0, 1.0], [2, 1], data_type),
                         "b": tensor([0.0, 1.0, 0.0], [3], data_type, constant=True)},
                        op("gruCell", _args(("input", "x"), ("weight", "w"), ("recurrentWeight", "r"), ("hiddenState", "h"),
                                            ("hiddenSize", 1), options={"bias": "b", "activations": ["relu", "relu"]})),
                        {"output": tensor([3.0, 0.0], [2, 1], data_type)}))  # relu(-3 + 1) = 0
        # zero weights: h' = h / 2.
        out.append(case(f"gruCell {data_type} zero weights halve the state (hand)",
                        {"x": tensor([5.0, -7.0], [1, 2], data_type), "w": tensor(0.0, [6, 2], data_type, constant=True),
                         "r": tensor(0.0, [6, 2], data_type, constant=True), "h": tensor([3.0, -1.5], [1, 2], data_type)},
                        op("gruCell", _args(("input", "x"), ("weight", "w"), ("recurrentWeight", "r"), ("hiddenState", "h"),
                                            ("hiddenSize", 2))),
                        {"output": tensor([1.5, -0.75], [1, 2], data_type)}))
    out += [_gru_reset_hand(True, cell=True), _gru_reset_hand(False, cell=True)]
    # Layout: bias 10 on the first block, -10 on the second, x = 0, weights 0,
    # h = 0.75, default activations, n = tanh(0) = 0, h' = z*0.75.
    # zrn: z = sigmoid(10); rzn: z = sigmoid(-10).
    for layout, z in (("zrn", _sigmoid(10.0)), ("rzn", _sigmoid(-10.0))):
        out.append(case(f"gruCell float32 layout {layout} picks the update gate (hand)",
                        {"x": tensor([0.0], [1, 1], "float32"), "w": tensor(0.0, [3, 1], "float32", constant=True),
                         "r": tensor(0.0, [3, 1], "float32", constant=True), "h": tensor([0.75], [1, 1], "float32"),
                         "b": tensor([10.0, -10.0, 0.0], [3], "float32", constant=True)},
                        op("gruCell", _args(("input", "x"), ("weight", "w"), ("recurrentWeight", "r"), ("hiddenState", "h"),
                                            ("hiddenSize", 1), options={"bias": "b", "layout": layout})),
                        {"output": tensor([z * 0.75], [1, 1], "float32")}))
    g = _gru_cell_generated
    out += [
        g("defaults", 300, "float32", 2, 3, 4),
        g("bias recurrentBias", 310, "float32", 3, 4, 5, ("bias", "recurrentBias")),
        g("rzn resetAfter false", 320, "float32", 2, 3, 3, ("bias", "recurrentBias"), layout="rzn", resetAfter=False),
        g("activations relu tanh", 330, "float32", 2, 2, 3, ("bias",), activations=["relu", "tanh"]),
        g("larger input 16 hidden 16", 340, "float32", 4, 16, 16, ("bias", "recurrentBias")),
        g("bias recurrentBias", 350, "float16", 2, 3, 4, ("bias", "recurrentBias")),
        g("rzn resetAfter false activations tanh sigmoid", 360, "float16", 2, 3, 3, ("recurrentBias",),
          layout="rzn", resetAfter=False, activations=["tanh", "sigmoid"]),
    ]
    return out


# ------------------------------------------------------------------- lstm

def _lstm_relu_hand(data_type: str, direction: str) -> dict:
    """relu, hidden 1, input 1, iofg weight rows i = 1, o = 1, f = 0, g = 1,
    bias f = 1, recurrent weight 0, no peepholes: i = o = g = x, f = 1, so
    c' = c + x*x and h' = x * c'. x = 1, 2 from c = 0:
    forward t0: c 1, h 1; t1: c 5, h 10.  backward t1: c 4, h 8; t0: c 5, h 5."""
    directions = 2 if direction == "both" else 1
    forward, backward = [1.0, 10.0], [5.0, 8.0]
    sequence = {"forward": forward, "backward": backward,
                "both": [v for pair in zip(forward, backward) for v in pair]}[direction]
    hidden = {"forward": [10.0], "backward": [5.0], "both": [10.0, 5.0]}[direction]
    cell = [5.0] * directions
    return case(
        f"lstm {data_type} relu {direction} returnSequence (hand)",
        {"x": tensor([1.0, 2.0], [2, 1, 1], data_type),
         "w": tensor([1.0, 1.0, 0.0, 1.0] * directions, [directions, 4, 1], data_type, constant=True),
         "r": tensor(0.0, [directions, 4, 1], data_type, constant=True),
         "b": tensor([0.0, 0.0, 1.0, 0.0] * directions, [directions, 4], data_type, constant=True)},
        op("lstm", _args(("input", "x"), ("weight", "w"), ("recurrentWeight", "r"), ("steps", 2), ("hiddenSize", 1),
                         options={"bias": "b", "direction": direction, "returnSequence": True,
                                  "activations": ["relu", "relu", "relu"]}), ["hidden", "cell", "sequence"]),
        {"hidden": tensor(hidden, [directions, 1, 1], data_type), "cell": tensor(cell, [directions, 1, 1], data_type),
         "sequence": tensor(sequence, [2, directions, 1, 1], data_type)})


def _lstm_zero_weights_hand(data_type: str, layout: str) -> dict:
    """Zero weights, default activations: i = f = o = sigmoid(0) = 0.5 and
    g = tanh(0) = 0: c' = 0.5*c, h' = 0.5*tanh(c'). Two steps from c0."""
    c0 = [1.0, -2.0]
    c1 = [c / 2 for c in c0]
    c2 = [c / 4 for c in c0]
    return case(
        f"lstm {data_type} zero weights layout {layout} (hand)",
        {"x": tensor([0.5, -1.0, 2.0, 0.25], [2, 1, 2], data_type),
         "w": tensor(0.0, [1, 8, 2], data_type, constant=True), "r": tensor(0.0, [1, 8, 2], data_type, constant=True),
         "h0": tensor([3.0, -3.0], [1, 1, 2], data_type), "c0": tensor(c0, [1, 1, 2], data_type)},
        op("lstm", _args(("input", "x"), ("weight", "w"), ("recurrentWeight", "r"), ("steps", 2), ("hiddenSize", 2),
                         options={"initialHiddenState": "h0", "initialCellState": "c0", "layout": layout,
                                  "returnSequence": True}), ["hidden", "cell", "sequence"]),
        {"hidden": tensor([0.5 * math.tanh(c) for c in c2], [1, 1, 2], data_type),
         "cell": tensor(c2, [1, 1, 2], data_type),
         "sequence": tensor([0.5 * math.tanh(c) for c in c1 + c2], [2, 1, 1, 2], data_type)})


def _lstm_generated(name, seed, data_type, steps, batch, inp, hidden, present=(), **options) -> dict:
    directions = 2 if options.get("direction") == "both" else 1
    inputs = {"x": tensor(_uniform(seed), [steps, batch, inp], data_type),
              "w": tensor(_uniform(seed + 1), [directions, 4 * hidden, inp], data_type, constant=True),
              "r": tensor(_uniform(seed + 2), [directions, 4 * hidden, hidden], data_type, constant=True)}
    shapes = {"bias": [directions, 4 * hidden], "recurrentBias": [directions, 4 * hidden],
              "peepholeWeight": [directions, 3 * hidden], "initialHiddenState": [directions, batch, hidden],
              "initialCellState": [directions, batch, hidden]}
    for k, name_ in enumerate(present):
        inputs[name_] = tensor(_uniform(seed + 3 + k), shapes[name_], data_type,
                               constant=not name_.startswith("initial"))
        options[name_] = name_
    outputs = ["hidden", "cell", "sequence"] if options.get("returnSequence") else ["hidden", "cell"]
    return case(f"lstm {data_type} {name} generated", inputs,
                op("lstm", _args(("input", "x"), ("weight", "w"), ("recurrentWeight", "r"), ("steps", steps),
                                 ("hiddenSize", hidden), options=options), outputs))


ALL_LSTM = ("bias", "recurrentBias", "peepholeWeight", "initialHiddenState", "initialCellState")


def lstm_cases() -> list[dict]:
    out = [_lstm_relu_hand("float32", d) for d in ("forward", "backward", "both")]
    out.append(_lstm_relu_hand("float16", "backward"))
    out += [_lstm_zero_weights_hand("float32", "iofg"), _lstm_zero_weights_hand("float16", "ifgo")]
    g = _lstm_generated
    out += [
        g("forward defaults", 400, "float32", 3, 2, 3, 4),
        g("forward all operands returnSequence", 410, "float32", 4, 2, 3, 5, ALL_LSTM, returnSequence=True),
        g("backward ifgo peepholes returnSequence", 420, "float32", 4, 3, 2, 3, ("bias", "peepholeWeight"),
          direction="backward", layout="ifgo", returnSequence=True),
        g("both iofg all operands returnSequence", 430, "float32", 3, 2, 4, 3, ALL_LSTM,
          direction="both", returnSequence=True),
        g("both ifgo initial states only", 440, "float32", 5, 1, 3, 4, ("initialHiddenState", "initialCellState"),
          direction="both", layout="ifgo"),
        g("forward activations sigmoid relu tanh", 450, "float32", 4, 2, 3, 3, ("bias",),
          activations=["sigmoid", "relu", "tanh"], returnSequence=True),
        g("backward activations tanh tanh sigmoid", 460, "float32", 3, 2, 3, 3, ALL_LSTM,
          direction="backward", activations=["tanh", "tanh", "sigmoid"]),
        g("forward larger steps 8 hidden 16", 470, "float32", 8, 3, 16, 16, ("bias", "recurrentBias"),
          returnSequence=True),
        g("forward bias peepholes returnSequence", 500, "float16", 3, 2, 3, 4, ("bias", "peepholeWeight"),
          returnSequence=True),
        g("both ifgo all operands", 510, "float16", 3, 2, 3, 3, ALL_LSTM, direction="both", layout="ifgo",
          returnSequence=True),
        g("backward activations sigmoid relu relu", 520, "float16", 3, 1, 2, 3, ("initialCellState",),
          direction="backward", activations=["sigmoid", "relu", "relu"]),
    ]
    return out


# --------------------------------------------------------------- lstmCell

def _lstm_cell_args(x, h, c, options=None) -> list[dict]:
    return _args(("input", x), ("weight", "w"), ("recurrentWeight", "r"), ("hiddenState", h), ("cellState", c),
                 ("hiddenSize", 1), options=options)


def _lstm_cell_relu_inputs(data_type: str) -> dict:
    return {"x": tensor([1.0], [1, 1], data_type), "w": tensor([1.0, 2.0, 3.0, 4.0], [4, 1], data_type, constant=True),
            "r": tensor(0.0, [4, 1], data_type, constant=True), "h": tensor([0.0], [1, 1], data_type),
            "c": tensor([2.0], [1, 1], data_type), "p": tensor([0.5, 0.25, 1.0], [3], data_type, constant=True)}


def _lstm_cell_generated(name, seed, data_type, batch, inp, hidden, present=(), **options) -> dict:
    inputs = {"x": tensor(_uniform(seed), [batch, inp], data_type),
              "w": tensor(_uniform(seed + 1), [4 * hidden, inp], data_type, constant=True),
              "r": tensor(_uniform(seed + 2), [4 * hidden, hidden], data_type, constant=True),
              "h": tensor(_uniform(seed + 3), [batch, hidden], data_type),
              "c": tensor(_uniform(seed + 4), [batch, hidden], data_type)}
    sizes = {"bias": 4 * hidden, "recurrentBias": 4 * hidden, "peepholeWeight": 3 * hidden}
    for k, name_ in enumerate(present):
        inputs[name_] = tensor(_uniform(seed + 5 + k), [sizes[name_]], data_type, constant=True)
        options[name_] = name_
    return case(f"lstmCell {data_type} {name} generated", inputs,
                op("lstmCell", _args(("input", "x"), ("weight", "w"), ("recurrentWeight", "r"), ("hiddenState", "h"),
                                     ("cellState", "c"), ("hiddenSize", hidden), options=options or None),
                   ["hidden", "cell"]))


def lstm_cell_cases() -> list[dict]:
    relu = ["relu", "relu", "relu"]
    out = []
    # relu, x = 1, h = 0, c = 2, weight rows [1, 2, 3, 4], peepholes (i, o, f)
    # [0.5, 0.25, 1] times the incoming c:
    # iofg: i = 1 + 1 = 2, o = 2 + 0.5 = 2.5, f = 3 + 2 = 5, g = 4:
    #       c' = 5*2 + 2*4 = 18, h' = 2.5*18 = 45.
    # ifgo: i = 1 + 1 = 2, f = 2 + 2 = 4, g = 3, o = 4 + 0.5 = 4.5:
    #       c' = 4*2 + 2*3 = 14, h' = 4.5*14 = 63.
    for data_type in ("float32", "float16"):
        for layout, h1, c1 in (("iofg", 45.0, 18.0), ("ifgo", 63.0, 14.0)):
            out.append(case(f"lstmCell {data_type} relu peepholes layout {layout} (hand)", _lstm_cell_relu_inputs(data_type),
                            op("lstmCell", _lstm_cell_args("x", "h", "c", {"peepholeWeight": "p", "layout": layout,
                                                                           "activations": relu}), ["hidden", "cell"]),
                            {"hidden": tensor([h1], [1, 1], data_type), "cell": tensor([c1], [1, 1], data_type)}))
    # Chained twice (iofg): second step from h = 45, c = 18 (recurrent weight 0):
    # i = 1 + 9 = 10, o = 2 + 4.5 = 6.5, f = 3 + 18 = 21, g = 4:
    # c'' = 21*18 + 10*4 = 418, h'' = 6.5*418 = 2717.
    out.append(case("lstmCell float32 relu chained twice (hand)", _lstm_cell_relu_inputs("float32"),
                    [op("lstmCell", _lstm_cell_args("x", "h", "c", {"peepholeWeight": "p", "activations": relu}),
                        ["h1", "c1"]),
                     op("lstmCell", _lstm_cell_args("x", "h1", "c1", {"peepholeWeight": "p", "activations": relu}),
                        ["hidden", "cell"])],
                    {"hidden": tensor([2717.0], [1, 1], "float32"), "cell": tensor([418.0], [1, 1], "float32")}))
    # Zero weights, default activations: c' = 0.5*c, h' = 0.5*tanh(c').
    for data_type in ("float32", "float16"):
        c0 = [1.0, -2.0, 0.5, 4.0]
        out.append(case(f"lstmCell {data_type} zero weights (hand)",
                        {"x": tensor([1.0, -1.0, 2.0, 0.5, 0.0, 3.0], [2, 3], data_type),
                         "w": tensor(0.0, [8, 3], data_type, constant=True), "r": tensor(0.0, [8, 2], data_type, constant=True),
                         "h": tensor([0.5, 0.5, -0.5, 1.0], [2, 2], data_type), "c": tensor(c0, [2, 2], data_type)},
                        op("lstmCell", _args(("input", "x"), ("weight", "w"), ("recurrentWeight", "r"), ("hiddenState", "h"),
                                             ("cellState", "c"), ("hiddenSize", 2)), ["hidden", "cell"]),
                        {"hidden": tensor([0.5 * math.tanh(c / 2) for c in c0], [2, 2], data_type),
                         "cell": tensor([c / 2 for c in c0], [2, 2], data_type)}))
    g = _lstm_cell_generated
    out += [
        g("defaults", 600, "float32", 2, 3, 4),
        g("all operands", 610, "float32", 3, 4, 5, ("bias", "recurrentBias", "peepholeWeight")),
        g("ifgo peepholes", 620, "float32", 2, 3, 3, ("peepholeWeight",), layout="ifgo"),
        g("activations relu sigmoid tanh", 630, "float32", 2, 2, 3, ("bias",), activations=["relu", "sigmoid", "tanh"]),
        g("larger input 16 hidden 16", 640, "float32", 4, 16, 16, ("bias", "recurrentBias")),
        g("all operands", 650, "float16", 2, 3, 4, ("bias", "recurrentBias", "peepholeWeight")),
        g("ifgo activations tanh tanh relu", 660, "float16", 2, 3, 3, ("recurrentBias",), layout="ifgo",
          activations=["tanh", "tanh", "relu"]),
    ]
    # Two generated cells chained: the second consumes the first's states.
    inputs = {"x1": tensor(_uniform(670), [2, 3], "float32"), "x2": tensor(_uniform(671), [2, 3], "float32"),
              "w": tensor(_uniform(672), [16, 3], "float32", constant=True),
              "r": tensor(_uniform(673), [16, 4], "float32", constant=True),
              "b": tensor(_uniform(674), [16], "float32", constant=True),
              "p": tensor(_uniform(675), [12], "float32", constant=True),
              "h": tensor(_uniform(676), [2, 4], "float32"), "c": tensor(_uniform(677), [2, 4], "float32")}

    def cell(x, h, c, outs):
        return op("lstmCell", _args(("input", x), ("weight", "w"), ("recurrentWeight", "r"), ("hiddenState", h),
                                    ("cellState", c), ("hiddenSize", 4), options={"bias": "b", "peepholeWeight": "p"}), outs)

    out.append(case("lstmCell float32 chained twice generated", inputs,
                    [cell("x1", "h", "c", ["h1", "c1"]), cell("x2", "h1", "c1", ["hidden", "cell"])]))
    return out


def main() -> None:
    write(FAMILY, "gru", gru_cases())
    write(FAMILY, "gru_cell", gru_cell_cases())
    write(FAMILY, "lstm", lstm_cases())
    write(FAMILY, "lstm_cell", lstm_cell_cases())


if __name__ == "__main__":
    main()
