"""Transformer blocks written with onnx's helper, for ``webnn-harness import-onnx``.

    python tools/onnx_blocks.py OUT_DIR      # writes the three .onnx files below into OUT_DIR

- ``encoder_layer.onnx``: a pre-norm encoder layer (LayerNormalization, 4-head self-attention,
  residual, LayerNormalization, a feed-forward with the erf form of GELU as exporters write it).
- ``decoder_step_causal.onnx``: a decoder self-attention step over 8 positions with a causal mask
  (Trilu of ones, a Where to -10000 where a position would look ahead), as GPT-style exports do.
- ``int4_matmul.onnx``: an int4 weight-only matmul as LLMs ship (DequantizeLinear of int4 weights,
  blockwise scales of block 32 along K, opset 21, then MatMul).

Weights are seeded (numpy default_rng(0)), so the files are the same on every run.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

D_MODEL, HEADS, FF = 64, 4, 128


def _init(name: str, array: np.ndarray) -> TensorProto:
    return numpy_helper.from_array(np.asarray(array), name)


def _attention(nodes: list, inits: list, rng, x: str, seq: int, prefix: str, mask: str | None = None) -> str:
    """Multi-head self-attention on ``x`` [1, seq, D_MODEL]; returns its output's name."""
    head = D_MODEL // HEADS
    for w in "qkvo":
        inits.append(_init(f"{prefix}W{w}", rng.normal(0, D_MODEL ** -0.5, (D_MODEL, D_MODEL)).astype(np.float32)))
        inits.append(_init(f"{prefix}b{w}", rng.normal(0, 0.02, D_MODEL).astype(np.float32)))
    inits.append(_init(f"{prefix}split_heads", np.array([1, seq, HEADS, head], np.int64)))
    inits.append(_init(f"{prefix}merge_heads", np.array([1, seq, D_MODEL], np.int64)))
    inits.append(_init(f"{prefix}scale", np.array(head ** -0.5, np.float32)))
    for w in "qkv":
        nodes += [helper.make_node("MatMul", [x, f"{prefix}W{w}"], [f"{prefix}{w}_mm"]),
                  helper.make_node("Add", [f"{prefix}{w}_mm", f"{prefix}b{w}"], [f"{prefix}{w}_lin"]),
                  helper.make_node("Reshape", [f"{prefix}{w}_lin", f"{prefix}split_heads"], [f"{prefix}{w}_4d"])]
    nodes += [
        helper.make_node("Transpose", [f"{prefix}q_4d"], [f"{prefix}q_h"], perm=[0, 2, 1, 3]),
        helper.make_node("Transpose", [f"{prefix}k_4d"], [f"{prefix}k_t"], perm=[0, 2, 3, 1]),
        helper.make_node("Transpose", [f"{prefix}v_4d"], [f"{prefix}v_h"], perm=[0, 2, 1, 3]),
        helper.make_node("MatMul", [f"{prefix}q_h", f"{prefix}k_t"], [f"{prefix}qk"]),
        helper.make_node("Mul", [f"{prefix}qk", f"{prefix}scale"], [f"{prefix}scores"]),
    ]
    scores = f"{prefix}scores"
    if mask:
        inits.append(_init(f"{prefix}masked", np.array(-10000.0, np.float32)))
        nodes.append(helper.make_node("Where", [mask, scores, f"{prefix}masked"], [f"{prefix}scores_masked"]))
        scores = f"{prefix}scores_masked"
    nodes += [
        helper.make_node("Softmax", [scores], [f"{prefix}probs"], axis=-1),
        helper.make_node("MatMul", [f"{prefix}probs", f"{prefix}v_h"], [f"{prefix}ctx"]),
        helper.make_node("Transpose", [f"{prefix}ctx"], [f"{prefix}ctx_t"], perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", [f"{prefix}ctx_t", f"{prefix}merge_heads"], [f"{prefix}ctx_3d"]),
        helper.make_node("MatMul", [f"{prefix}ctx_3d", f"{prefix}Wo"], [f"{prefix}o_mm"]),
        helper.make_node("Add", [f"{prefix}o_mm", f"{prefix}bo"], [f"{prefix}out"]),
    ]
    return f"{prefix}out"


def _layer_norm(nodes, inits, rng, x: str, name: str) -> str:
    inits += [_init(f"{name}_g", rng.uniform(0.8, 1.2, D_MODEL).astype(np.float32)),
              _init(f"{name}_b", rng.normal(0, 0.02, D_MODEL).astype(np.float32))]
    nodes.append(helper.make_node("LayerNormalization", [x, f"{name}_g", f"{name}_b"], [name], axis=-1, epsilon=1e-5))
    return name


def _erf_gelu(nodes, inits, x: str) -> str:
    """0.5 * x * (1 + erf(x / sqrt(2))): the pattern PyTorch's exporter writes, kept as written."""
    inits += [_init("sqrt2", np.array(np.sqrt(2.0), np.float32)), _init("one", np.array(1.0, np.float32)),
              _init("half", np.array(0.5, np.float32))]
    nodes += [helper.make_node("Div", [x, "sqrt2"], ["gelu_div"]), helper.make_node("Erf", ["gelu_div"], ["gelu_erf"]),
              helper.make_node("Add", ["gelu_erf", "one"], ["gelu_add"]),
              helper.make_node("Mul", [x, "gelu_add"], ["gelu_mul"]),
              helper.make_node("Mul", ["gelu_mul", "half"], ["gelu"])]
    return "gelu"


def encoder_layer(seq: int = 16) -> onnx.ModelProto:
    rng = np.random.default_rng(0)
    nodes, inits = [], []
    ln1 = _layer_norm(nodes, inits, rng, "x", "ln1")
    attn = _attention(nodes, inits, rng, ln1, seq, "attn_")
    nodes.append(helper.make_node("Add", ["x", attn], ["resid1"]))
    ln2 = _layer_norm(nodes, inits, rng, "resid1", "ln2")
    inits += [_init("W1", rng.normal(0, D_MODEL ** -0.5, (D_MODEL, FF)).astype(np.float32)),
              _init("b1", rng.normal(0, 0.02, FF).astype(np.float32)),
              _init("W2", rng.normal(0, FF ** -0.5, (FF, D_MODEL)).astype(np.float32)),
              _init("b2", rng.normal(0, 0.02, D_MODEL).astype(np.float32))]
    nodes += [helper.make_node("MatMul", [ln2, "W1"], ["ff1_mm"]), helper.make_node("Add", ["ff1_mm", "b1"], ["ff1"])]
    gelu = _erf_gelu(nodes, inits, "ff1")
    nodes += [helper.make_node("MatMul", [gelu, "W2"], ["ff2_mm"]), helper.make_node("Add", ["ff2_mm", "b2"], ["ff2"]),
              helper.make_node("Add", ["resid1", "ff2"], ["y"])]
    graph = helper.make_graph(nodes, "encoder_layer",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, seq, D_MODEL])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, seq, D_MODEL])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def decoder_step_causal(seq: int = 8) -> onnx.ModelProto:
    rng = np.random.default_rng(1)
    nodes, inits = [], [_init("mask_shape", np.array([seq, seq], np.int64))]
    nodes += [helper.make_node("ConstantOfShape", ["mask_shape"], ["ones"],
                               value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0])),
              helper.make_node("Trilu", ["ones"], ["lower"], upper=0),
              helper.make_node("Cast", ["lower"], ["causal"], to=TensorProto.BOOL)]
    ln = _layer_norm(nodes, inits, rng, "h", "ln")
    attn = _attention(nodes, inits, rng, ln, seq, "self_", mask="causal")
    nodes.append(helper.make_node("Add", ["h", attn], ["h_next"]))
    graph = helper.make_graph(nodes, "decoder_step_causal",
                              [helper.make_tensor_value_info("h", TensorProto.FLOAT, [1, seq, D_MODEL])],
                              [helper.make_tensor_value_info("h_next", TensorProto.FLOAT, [1, seq, D_MODEL])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def int4_matmul(m: int = 8, k: int = 128, n: int = 64, block: int = 32) -> onnx.ModelProto:
    rng = np.random.default_rng(2)
    q = rng.integers(-8, 8, (k, n))
    weights = helper.make_tensor("W_int4", TensorProto.INT4, [k, n], q.reshape(-1).tolist())
    zero = helper.make_tensor("W_zero", TensorProto.INT4, [k // block, n], [0] * (k // block * n))
    scale = _init("W_scale", rng.uniform(0.005, 0.02, (k // block, n)).astype(np.float32))
    bias = _init("bias", rng.normal(0, 0.02, n).astype(np.float32))
    nodes = [helper.make_node("DequantizeLinear", ["W_int4", "W_scale", "W_zero"], ["W"], axis=0, block_size=block),
             helper.make_node("MatMul", ["x", "W"], ["xw"]), helper.make_node("Add", ["xw", "bias"], ["y"])]
    graph = helper.make_graph(nodes, "int4_matmul", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, m, k])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, m, n])],
                              [weights, zero, scale, bias])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


BLOCKS = {"encoder_layer": encoder_layer, "decoder_step_causal": decoder_step_causal, "int4_matmul": int4_matmul}


def write_blocks(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, make in BLOCKS.items():
        model = make()
        onnx.checker.check_model(model, full_check=True)
        onnx.save(model, out / f"{name}.onnx")
        paths.append(out / f"{name}.onnx")
    return paths


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python tools/onnx_blocks.py OUT_DIR")
    for p in write_blocks(Path(sys.argv[1])):
        print(p)
