"""Write harness/probe/declared_tables/chromium-tflite-opSupportLimits.json: the
opSupportLimits a Chromium browser declares for its TFLite / LiteRT backend
(Android, ChromeOS, Linux).

Run: .venv/bin/python tools/declared/chromium_tflite.py

Source (read through the code index, not vendored): chromium/chromium
``services/webnn/tflite/graph_builder_tflite.cc``,
``GraphBuilderTflite::GetContextProperties()``, the version with the 32-bit
1 GiB tensor limit and the ``gru_output_sequence`` slot (the index names it by
its stored-version id, see PROVENANCE; the commit hash is not recorded
there). Each slot is a constraint set defined in that function or in
``services/webnn/public/cpp/supported_data_types.h``
(``kGatherScatterIndicesSupportedDataTypes``: int32, uint32, int64), with a
``SupportedRanks``: ``UpTo(n)`` is ranks 0..n, ``NonScalarUpTo(n)`` 1..n,
``Exactly(n)`` n. A slot given as a bare data-type set (``logical_output``)
has no ranks. The same intersection with the spec's own limits as the ORT
table (tools/declared/chromium_ort.py, whose ``declared`` writes both).
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from chromium_ort import ROOT, declared, write  # noqa: E402

OUT = ROOT / "harness" / "probe" / "declared_tables" / "chromium-tflite-opSupportLimits.json"

PROVENANCE = {
    "repository": "chromium/chromium",
    "file": "services/webnn/tflite/graph_builder_tflite.cc",
    "function": "GraphBuilderTflite::GetContextProperties",
    "storedVersion": "code index file id 54638235068 (commit not recorded by the index; the version with "
                     "'Allocating 2GiB isn't practical on a 32-bit system. Use a 1GiB limit.' and the "
                     "gru_output_sequence / lstm_output_sequence slots)",
    "constraintSets": "defined in GetContextProperties; DataTypeConstraint::* and "
                      "kGatherScatterIndicesSupportedDataTypes from services/webnn/public/cpp/supported_data_types.h",
    "maxTensorByteLength": "kTensorByteLengthLimit on a 64-bit CPU (INT32_MAX)",
    "intersection": "each slot intersected with the spec's allowed data types and ranks "
                    "(tools/declared/chromium_ort.py)",
}

F16_32 = ["float16", "float32"]
SETS = {
    "kAllDataTypesExceptUint4": ["float32", "float16", "int32", "uint32", "int64", "uint64", "int8", "uint8", "int4"],
    "kInt4AndInts8Int32": ["int4", "uint8", "int8", "int32"],
    "kInts8AndInt32": ["uint8", "int8", "int32"],
    "kFloat16To32AndInt8": F16_32 + ["int8"],
    "kFloat16To32AndInt32To64": F16_32 + ["int32", "int64"],
    "kFloat16To32AndInt32To64AndUint32": F16_32 + ["int32", "uint32", "int64"],
    "kFloat16To32AndInt32": F16_32 + ["int32"],
    "kFloat16To32AndInt32To64AndUint8": F16_32 + ["int32", "int64", "uint8"],
    "kFloat16To32AndInt8To64AndUint32": F16_32 + ["int32", "uint32", "int64", "int8"],
    "kFloat16To32AndInt8To32AndUint8": F16_32 + ["int32", "int8", "uint8"],
    "kFloat16To32AndInt8To64": F16_32 + ["int64", "int32", "int8"],
    "kFloat16To32AndInt8To64AndUint8": F16_32 + ["int64", "int32", "int8", "uint8"],
    "kFloat16To32AndInts8To32AndInt64": F16_32 + ["int8", "uint8", "int32", "uint32", "int64"],
    "kFloat16To32": F16_32,
    "kInt32To64": ["int32", "int64"],
    "kUint8": ["uint8"],
    "kInt32": ["int32"],
    "kGatherScatterIndicesSupportedDataTypes": ["int32", "uint32", "int64"],
}


def up_to(n):
    return (0, n)


def non_scalar_up_to(n):
    return (1, n)


def exactly(n):
    return (n, n)


# Slot -> (constraint set, ranks), in the order GetContextProperties lists them.
SLOTS = {
    "input": ("kAllDataTypesExceptUint4", up_to(8)), "constant": ("kAllDataTypesExceptUint4", up_to(8)),
    "arg_min_max_input": ("kFloat16To32AndInt8To32AndUint8", non_scalar_up_to(8)),
    "arg_min_max_output": ("kInt32To64", up_to(8)),
    "batch_normalization_input": ("kFloat16To32", non_scalar_up_to(5)),
    "batch_normalization_mean": ("kFloat16To32", exactly(1)),
    "cast_input": ("kFloat16To32AndInts8To32AndInt64", up_to(8)),
    "clamp_input": ("kFloat16To32", up_to(5)),
    "concat_inputs": ("kAllDataTypesExceptUint4", non_scalar_up_to(8)),
    "conv2d_input": ("kFloat16To32", exactly(4)), "conv2d_bias": ("kFloat16To32", up_to(8)),
    "conv_transpose2d_input": ("kFloat16To32", exactly(4)), "conv_transpose2d_bias": ("kFloat16To32", up_to(8)),
    "cumulative_sum_input": ("kFloat16To32AndInt32To64", non_scalar_up_to(8)),
    "dequantize_linear_input": ("kInt4AndInts8Int32", up_to(6)),
    "dequantize_linear_scale": ("kFloat16To32", up_to(6)),
    # Not a slot of this table: zeroPoint is read as the input's slot (the
    # same data types as the quantized input it offsets).
    "dequantize_linear_zero_point": ("kInt4AndInts8Int32", up_to(6)),
    "add_input": ("kFloat16To32AndInt32To64", up_to(6)),
    "sub_input": ("kFloat16To32AndInt32To64", up_to(6)),
    "mul_input": ("kFloat16To32AndInt32To64AndUint32", up_to(6)),
    "div_input": ("kFloat16To32AndInt32", up_to(5)),
    "max_input": ("kFloat16To32AndInt8To64AndUint8", up_to(5)),
    "min_input": ("kFloat16To32AndInt8To64AndUint8", up_to(5)),
    "pow_input": ("kFloat16To32AndInt32", up_to(5)),
    **{f"{op}_input": ("kFloat16To32AndInt32To64", up_to(4))
       for op in ("equal", "greater", "greater_or_equal", "lesser", "lesser_or_equal", "not_equal")},
    **{f"logical_{op}_input": ("kUint8", up_to(5)) for op in ("and", "or", "xor", "not")},
    "is_nan_input": ("kFloat16To32", up_to(4)), "is_infinite_input": ("kFloat16To32", up_to(4)),
    "logical_output": ("kUint8", None),
    "abs_input": ("kFloat16To32AndInt32", up_to(8)),
    **{f"{op}_input": ("kFloat16To32", up_to(8))
       for op in ("ceil", "cos", "exp", "floor", "log", "round_even", "sin", "sqrt", "tan", "gelu", "leaky_relu",
                  "tanh", "reduce_l2", "reduce_log_sum", "reduce_log_sum_exp")},
    "erf_input": ("kFloat16To32", up_to(5)),
    "identity_input": ("kFloat16To32AndInt8To64AndUint8", up_to(8)),
    "neg_input": ("kFloat16To32AndInt32To64", up_to(8)),
    "reciprocal_input": ("kFloat16To32", up_to(5)),
    "sign_input": ("kFloat16To32AndInt32", up_to(8)),
    "elu_input": ("kFloat16To32AndInt8", up_to(5)),
    "expand_input": ("kFloat16To32AndInts8To32AndInt64", up_to(8)),
    "gather_input": ("kFloat16To32AndInt8To64AndUint8", non_scalar_up_to(8)),
    "gather_indices": ("kGatherScatterIndicesSupportedDataTypes", up_to(5)),
    "gather_elements_input": ("kFloat16To32AndInt8To64AndUint8", non_scalar_up_to(8)),
    "gather_elements_indices": ("kGatherScatterIndicesSupportedDataTypes", non_scalar_up_to(5)),
    "gather_nd_input": ("kFloat16To32AndInt8To64AndUint8", non_scalar_up_to(8)),
    "gather_nd_indices": ("kGatherScatterIndicesSupportedDataTypes", non_scalar_up_to(5)),
    "gemm_a": ("kFloat16To32", exactly(2)), "gemm_c": ("kFloat16To32", up_to(2)),
    "gru_input": ("kFloat16To32", exactly(3)), "gru_bias": ("kFloat16To32", exactly(2)),
    "gru_cell_input": ("kFloat16To32", exactly(2)), "gru_cell_bias": ("kFloat16To32", exactly(1)),
    "hard_sigmoid_input": ("kFloat16To32", up_to(6)), "hard_swish_input": ("kFloat16To32", up_to(6)),
    "instance_normalization_input": ("kFloat16To32", exactly(4)),
    "instance_normalization_scale": ("kFloat16To32", exactly(1)),
    "layer_normalization_input": ("kFloat16To32", up_to(6)),
    "linear_input": ("kFloat16To32AndInt32To64", up_to(6)),
    "lstm_input": ("kFloat16To32", exactly(3)), "lstm_bias": ("kFloat16To32", exactly(2)),
    "lstm_cell_input": ("kFloat16To32", exactly(2)), "lstm_cell_bias": ("kFloat16To32", exactly(1)),
    "matmul_input": ("kFloat16To32AndInt8", up_to(5)),
    "pad_input": ("kFloat16To32AndInt32To64AndUint8", up_to(5)),
    "average_pool2d_input": ("kFloat16To32", exactly(4)), "l2_pool2d_input": ("kFloat16To32", exactly(4)),
    "max_pool2d_input": ("kFloat16To32", exactly(4)),
    "prelu_input": ("kFloat16To32", up_to(5)),
    "quantize_linear_input": ("kFloat16To32", up_to(5)),
    "quantize_linear_zero_point": ("kInts8AndInt32", up_to(5)),
    "reduce_l1_input": ("kFloat16To32AndInt32", up_to(8)),
    "reduce_max_input": ("kFloat16To32AndInt32To64", up_to(8)),
    "reduce_mean_input": ("kFloat16To32AndInt32To64AndUint8", up_to(8)),
    "reduce_min_input": ("kFloat16To32AndInt32To64", up_to(8)),
    "reduce_product_input": ("kFloat16To32AndInt32To64", up_to(8)),
    "reduce_sum_input": ("kFloat16To32AndInt32To64", up_to(8)),
    "reduce_sum_square_input": ("kFloat16To32AndInt32", up_to(8)),
    "relu_input": ("kFloat16To32AndInt8To64", up_to(5)),
    "resample2d_input": ("kFloat16To32", up_to(4)),
    "reshape_input": ("kAllDataTypesExceptUint4", up_to(8)),
    "reverse_input": ("kFloat16To32AndInt8To32AndUint8", up_to(8)),
    "scatter_elements_input": ("kFloat16To32AndInt8To64AndUint32", non_scalar_up_to(8)),
    "scatter_elements_indices": ("kInt32", non_scalar_up_to(8)),
    "scatter_nd_input": ("kFloat16To32AndInt8To64AndUint32", non_scalar_up_to(8)),
    "scatter_nd_indices": ("kInt32", non_scalar_up_to(5)),
    "scatter_nd_updates": ("kFloat16To32AndInt8To64AndUint32", non_scalar_up_to(8)),
    "sigmoid_input": ("kFloat16To32", up_to(6)),
    "slice_input": ("kFloat16To32AndInts8To32AndInt64", up_to(5)),
    "softmax_input": ("kFloat16To32", non_scalar_up_to(6)),
    "softplus_input": ("kFloat16To32", up_to(6)), "softsign_input": ("kFloat16To32", up_to(6)),
    "split_input": ("kFloat16To32AndInt8To64AndUint8", up_to(8)),
    "tile_input": ("kFloat16To32AndInt32To64AndUint8", up_to(8)),
    "transpose_input": ("kFloat16To32AndInt8To64AndUint8", up_to(6)),
    "triangular_input": ("kFloat16To32AndInt32To64AndUint32", up_to(6)),
    "where_condition": ("kUint8", up_to(5)),
    "where_value": ("kFloat16To32AndInt8To64AndUint32", up_to(5)),
}


def main() -> None:
    write(OUT, PROVENANCE, declared(SETS, SLOTS, layout="nhwc"))


if __name__ == "__main__":
    main()
