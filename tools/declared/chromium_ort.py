"""Write harness/probe/declared_tables/chromium-ort-opSupportLimits.json: the
opSupportLimits a Chromium browser declares for its ONNX Runtime backend.

Run: .venv/bin/python tools/declared/chromium_ort.py

Source (read through the code index, not vendored): chromium/chromium
``services/webnn/ort/context_impl_ort.cc``, ``ContextImplOrt::GetContextProperties()``,
the version carrying the crbug.com/429859156 TODO on ``where_value`` (the index
names it by its stored-version id, see PROVENANCE; the commit hash is not
recorded there). The constraint sets come from
``services/webnn/public/cpp/supported_data_types.h``; ``kInts4ToInts8`` is
not in the stored copy of that header and is read by its name (int4, uint4,
int8, uint8).

The browser reports ``opSupportLimits()`` as the backend's properties
intersected with the spec's own limits (``WebNNContextImpl`` intersects with
the base properties), so every member here is the slot's data types and
ranks intersected with our catalog's allowed sets. int4/uint4 survive only
where the browser extends the spec (quantization), so they are kept beyond
the spec's table. A slot given as a bare data-type set (no ranks) is written
without ``rankRange``: ``probe --compare`` reads that as the spec's allowed
ranks, as the browser does.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "harness" / "probe" / "declared_tables" / "chromium-ort-opSupportLimits.json"

PROVENANCE = {
    "repository": "chromium/chromium",
    "file": "services/webnn/ort/context_impl_ort.cc",
    "function": "ContextImplOrt::GetContextProperties",
    "storedVersion": "code index file id 30512881273 (commit not recorded by the index; the version "
                     "with 'TODO(crbug.com/429859156): ORT CPU EP should support int8, uint32, and uint64 "
                     "for where operation')",
    "constraintSets": "services/webnn/public/cpp/supported_data_types.h (kInts4ToInts8 read by name)",
    "intersection": "each slot intersected with the spec's allowed data types and ranks (tools/declared/chromium_ort.py)",
}

ALL = ["float32", "float16", "int32", "uint32", "int64", "uint64", "int8", "uint8", "int4", "uint4"]
AT_LEAST_8 = ALL[:8]
F16_32 = ["float16", "float32"]
SETS = {
    "All": ALL, "kAllDataTypesAtLeast8bits": AT_LEAST_8, "kFloat16To32": F16_32, "kUint8": ["uint8"],
    "kInt32To64": ["int32", "int64"],
    "kFloat16To32Int8To64": F16_32 + ["int8", "int32", "int64"],
    "kFloat16To32Ints32To64": F16_32 + ["int32", "uint32", "int64", "uint64"],
    "kFloat16To32Int32To64": F16_32 + ["int32", "int64"],
    "kInts8Float16To32": ["uint8", "int8"] + F16_32,
    "kFloat16To32Uint8Int32To64": F16_32 + ["uint8", "int32", "int64"],
    "kFloat16To32Uint8Int8To32": F16_32 + ["uint8", "int8", "int32"],
    "kFloat16To32Int64": F16_32 + ["int64"],
    "kInts4To8Int32": ["int4", "uint4", "uint8", "int8", "int32"],
    "kFloat16To32Int32": F16_32 + ["int32"],
    "kInts4ToInts8": ["int4", "uint4", "int8", "uint8"],
}
MAX, NON_SCALAR = (0, 8), (1, 8)
# Slot name -> (constraint set, ranks or None for a bare data-type set), as the file writes them.
SLOTS = {
    "input": ("All", None), "constant": ("All", None),
    "arg_min_max_input": ("kAllDataTypesAtLeast8bits", NON_SCALAR), "arg_min_max_output": ("kInt32To64", None),
    "batch_normalization_input": ("kFloat16To32", NON_SCALAR), "batch_normalization_mean": ("kFloat16To32", (1, 1)),
    "cast_input": ("All", MAX), "clamp_input": ("kAllDataTypesAtLeast8bits", MAX),
    "concat_inputs": ("kAllDataTypesAtLeast8bits", NON_SCALAR),
    "conv2d_input": ("kFloat16To32", (3, 8)), "conv2d_bias": ("kFloat16To32", (1, 1)),
    "conv_transpose2d_input": ("kFloat16To32", (3, 8)), "conv_transpose2d_bias": ("kFloat16To32", (1, 1)),
    "cumulative_sum_input": ("kFloat16To32Int32To64", NON_SCALAR),
    "dequantize_linear_input": ("kInts4To8Int32", MAX), "dequantize_linear_scale": ("kFloat16To32", MAX),
    "dequantize_linear_zero_point": ("kInts4To8Int32", MAX),
    **{f"{op}_input": ("kAllDataTypesAtLeast8bits", MAX) for op in ("add", "sub", "mul", "div", "max", "min")},
    "pow_input": ("kFloat16To32Int32To64", MAX),
    **{f"{op}_input": ("kAllDataTypesAtLeast8bits", MAX)
       for op in ("equal", "greater", "greater_or_equal", "lesser", "lesser_or_equal", "not_equal")},
    **{f"logical_{op}_input": ("kUint8", MAX) for op in ("and", "or", "xor", "not")},
    "logical_output": ("kUint8", None),
    "abs_input": ("kAllDataTypesAtLeast8bits", MAX), "ceil_input": ("kFloat16To32", MAX),
    "cos_input": ("kFloat16To32", MAX), "erf_input": ("kAllDataTypesAtLeast8bits", MAX),
    "exp_input": ("kFloat16To32", MAX), "floor_input": ("kFloat16To32", MAX), "identity_input": ("All", MAX),
    "log_input": ("kFloat16To32", MAX), "neg_input": ("kFloat16To32Int8To64", MAX),
    "reciprocal_input": ("kFloat16To32", MAX), "sign_input": ("kAllDataTypesAtLeast8bits", MAX),
    "sin_input": ("kFloat16To32", MAX), "sqrt_input": ("kFloat16To32", MAX), "tan_input": ("kFloat16To32", MAX),
    "elu_input": ("kFloat16To32", MAX), "expand_input": ("kAllDataTypesAtLeast8bits", MAX),
    "gather_input": ("kAllDataTypesAtLeast8bits", NON_SCALAR), "gather_indices": ("kInt32To64", MAX),
    "gather_elements_input": ("kAllDataTypesAtLeast8bits", NON_SCALAR),
    "gather_elements_indices": ("kInt32To64", NON_SCALAR),
    "gather_nd_input": ("kAllDataTypesAtLeast8bits", NON_SCALAR), "gather_nd_indices": ("kInt32To64", NON_SCALAR),
    "gelu_input": ("kFloat16To32", MAX),
    "gemm_a": ("kFloat16To32Ints32To64", (2, 2)), "gemm_c": ("kFloat16To32Ints32To64", (0, 2)),
    "gru_input": ("kFloat16To32", (3, 3)), "gru_bias": ("kFloat16To32", (2, 2)),
    "gru_cell_input": ("kFloat16To32", (2, 2)), "gru_cell_bias": ("kFloat16To32", (1, 1)),
    "hard_sigmoid_input": ("kFloat16To32", MAX), "hard_swish_input": ("kFloat16To32", MAX),
    "instance_normalization_input": ("kFloat16To32", (4, 4)), "instance_normalization_scale": ("kFloat16To32", (1, 1)),
    "layer_normalization_input": ("kFloat16To32", MAX), "leaky_relu_input": ("kFloat16To32", MAX),
    "linear_input": ("kFloat16To32", MAX),
    "lstm_input": ("kFloat16To32", (3, 3)), "lstm_bias": ("kFloat16To32", (2, 2)),
    "lstm_cell_input": ("kFloat16To32", (2, 2)), "lstm_cell_bias": ("kFloat16To32", (1, 1)),
    "matmul_input": ("kFloat16To32Ints32To64", MAX), "pad_input": ("kAllDataTypesAtLeast8bits", NON_SCALAR),
    "average_pool2d_input": ("kFloat16To32", (3, 8)), "l2_pool2d_input": ("kFloat16To32", (3, 8)),
    "max_pool2d_input": ("kInts8Float16To32", (3, 8)), "prelu_input": ("kFloat16To32Ints32To64", MAX),
    "quantize_linear_input": ("kFloat16To32Int32", MAX), "quantize_linear_zero_point": ("kInts4ToInts8", MAX),
    **{f"reduce_{op}_input": ("kFloat16To32Int32To64", MAX)
       for op in ("l1", "l2", "log_sum", "log_sum_exp", "max", "mean", "min", "product", "sum", "sum_square")},
    "relu_input": ("kFloat16To32Int8To64", MAX), "resample2d_input": ("kFloat16To32Uint8Int8To32", (4, 4)),
    "reshape_input": ("kAllDataTypesAtLeast8bits", MAX), "reverse_input": ("kAllDataTypesAtLeast8bits", MAX),
    "scatter_elements_input": ("kAllDataTypesAtLeast8bits", NON_SCALAR),
    "scatter_elements_indices": ("kInt32To64", NON_SCALAR),
    "scatter_nd_input": ("kAllDataTypesAtLeast8bits", NON_SCALAR), "scatter_nd_indices": ("kInt32To64", NON_SCALAR),
    "scatter_nd_updates": ("kAllDataTypesAtLeast8bits", MAX),
    "sigmoid_input": ("kFloat16To32", MAX), "slice_input": ("kAllDataTypesAtLeast8bits", MAX),
    "softmax_input": ("kFloat16To32", MAX), "softplus_input": ("kFloat16To32", MAX),
    "softsign_input": ("kFloat16To32", MAX), "split_input": ("kAllDataTypesAtLeast8bits", NON_SCALAR),
    "tanh_input": ("kFloat16To32", MAX), "tile_input": ("kAllDataTypesAtLeast8bits", MAX),
    "transpose_input": ("All", MAX), "triangular_input": ("kFloat16To32Int64", (2, 8)),
    "where_condition": ("kUint8", MAX), "where_value": ("kFloat16To32Uint8Int32To64", MAX),
}
SNAKE = {"argMin": "arg_min_max", "argMax": "arg_min_max", "cumulativeSum": "cumulative_sum",
         "greaterOrEqual": "greater_or_equal", "lesserOrEqual": "lesser_or_equal", "notEqual": "not_equal",
         "logicalAnd": "logical_and", "logicalOr": "logical_or", "logicalXor": "logical_xor",
         "logicalNot": "logical_not", "gatherElements": "gather_elements", "gatherND": "gather_nd",
         "hardSigmoid": "hard_sigmoid", "hardSwish": "hard_swish", "leakyRelu": "leaky_relu",
         "instanceNormalization": "instance_normalization", "layerNormalization": "layer_normalization",
         "batchNormalization": "batch_normalization", "convTranspose2d": "conv_transpose2d",
         "averagePool2d": "average_pool2d", "l2Pool2d": "l2_pool2d", "maxPool2d": "max_pool2d",
         "quantizeLinear": "quantize_linear", "dequantizeLinear": "dequantize_linear",
         "scatterElements": "scatter_elements", "scatterND": "scatter_nd", "gruCell": "gru_cell",
         "lstmCell": "lstm_cell", "reduceL1": "reduce_l1", "reduceL2": "reduce_l2", "reduceLogSum": "reduce_log_sum",
         "reduceLogSumExp": "reduce_log_sum_exp", "reduceMax": "reduce_max", "reduceMean": "reduce_mean",
         "reduceMin": "reduce_min", "reduceProduct": "reduce_product", "reduceSum": "reduce_sum",
         "reduceSumSquare": "reduce_sum_square",
         # slots the TFLite table has (tools/declared/chromium_tflite.py) and this one does not
         "isNaN": "is_nan", "isInfinite": "is_infinite", "roundEven": "round_even"}
LOGICAL_OUT = {"equal", "notEqual", "greater", "greaterOrEqual", "lesser", "lesserOrEqual",
               "logicalAnd", "logicalOr", "logicalXor", "logicalNot"}


def slot_for(op: str, member: str) -> str | None:
    """The ContextProperties slot Blink reads for ``op``'s ``member`` (ml_context.cc's mapping)."""
    base = SNAKE.get(op, op)
    if member.startswith("output") or member == "outputs":
        if op in LOGICAL_OUT:
            return "logical_output"
        if op in ("argMin", "argMax"):
            return "arg_min_max_output"
        if op in ("quantizeLinear",):
            return "quantize_linear_zero_point"
        if op == "dequantizeLinear":
            return "dequantize_linear_scale"
        if op == "concat":
            return "concat_inputs"
    own = {  # members with a slot of their own
        ("batchNormalization", "mean"): "batch_normalization_mean", ("batchNormalization", "variance"): "batch_normalization_mean",
        ("batchNormalization", "scale"): "batch_normalization_mean", ("batchNormalization", "bias"): "batch_normalization_mean",
        ("conv2d", "bias"): "conv2d_bias", ("convTranspose2d", "bias"): "conv_transpose2d_bias",
        ("dequantizeLinear", "scale"): "dequantize_linear_scale", ("dequantizeLinear", "zeroPoint"): "dequantize_linear_zero_point",
        ("quantizeLinear", "zeroPoint"): "quantize_linear_zero_point", ("gemm", "c"): "gemm_c",
        ("instanceNormalization", "scale"): "instance_normalization_scale",
        ("instanceNormalization", "bias"): "instance_normalization_scale",
        ("where", "condition"): "where_condition", ("where", "trueValue"): "where_value",
        ("where", "falseValue"): "where_value", ("where", "output"): "where_value",
        ("scatterND", "updates"): "scatter_nd_updates", ("concat", "inputs"): "concat_inputs",
    }
    if (op, member) in own:
        return own[(op, member)]
    if member == "indices":
        return f"{base}_indices"
    if op in ("gru", "gruCell", "lstm", "lstmCell") and member in ("bias", "recurrentBias", "peepholeWeight"):
        return f"{base}_bias"
    if op == "gemm":
        return "gemm_a"
    return f"{base}_input"


def declared(sets: dict = SETS, slots: dict = SLOTS, layout: str = "nchw", max_bytes: int = 2**31 - 1) -> dict:
    """The opSupportLimits a browser declares from a table of ``slots`` (slot
    -> (constraint set name in ``sets``, ranks or None)), intersected with
    the spec's allowed data types and ranks."""
    sys.path.insert(0, str(ROOT))
    from webnn_harness.spec.catalog import operators

    beyond = {"int4", "uint4"}  # the browser's quantization extension beyond the spec's table

    def limits(slot: str, allowed_types, allowed_ranks, extra=frozenset()) -> dict | None:
        if slot not in slots:
            return None
        set_name, ranks = slots[slot]
        wanted = {t for t in sets[set_name] if t in allowed_types or t in extra}
        types = [t for t in ALL if t in wanted]  # the spec's enum order, int4/uint4 last
        out: dict = {"dataTypes": types}
        if ranks is not None:
            lo, hi = ranks
            ok = [r for r in range(lo, hi + 1) if allowed_ranks is None or allowed_ranks.contains(r)]
            if ok:
                out["rankRange"] = {"min": ok[0], "max": ok[-1]}
            else:
                out["dataTypes"] = []
        return out

    doc: dict = {"preferredInputLayout": layout, "maxTensorByteLength": max_bytes}
    for member in ("input", "constant"):
        doc[member] = limits(member, ALL, None)
    doc["output"] = limits("input", ALL, None)  # Blink reports output as the input set
    for op, spec in operators().items():
        members = {}
        for member, lim in spec.operands.items():
            slot = slot_for(op, member)
            extra = beyond if op in ("quantizeLinear", "dequantizeLinear") else frozenset()
            got = limits(slot, set(lim.allowed_data_types), lim.allowed_ranks, extra) if slot else None
            if got is None:
                members = None  # the browser has no slot for this operator
                break
            members[member] = got
        if members is not None:
            doc[op] = members
    return doc


def write(out: Path, provenance: dict, doc: dict) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    doc = {"$provenance": provenance, **doc}
    out.write_text(json.dumps(doc, indent=1) + "\n")
    operators = sum(1 for k, v in doc.items() if isinstance(v, dict) and k[0] != "$") - 3
    print(f"wrote {out.relative_to(ROOT)}: {operators} operators")


def main() -> None:
    write(OUT, PROVENANCE, declared())


if __name__ == "__main__":
    main()
