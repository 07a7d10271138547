"""The per-op cost functions (the cost field of each op's record, harness/spec/opspec/<family>.py) and
graph_cost: each formula checked against an independent computation of the
same count (numpy's own einsum FLOP count, the textbook conv output size,
numpy broadcasting and array byte sizes), for several shapes."""
import json
import re
from itertools import islice
from math import prod

import numpy as np
import pytest

from webnn_harness.loading.cases import Case, bundled_corpus, load_cases, load_file
from webnn_harness.spec.catalog import operators
from webnn_harness.spec.cost import COST, Cost, graph_cost, node_cost


def one_case(tmp_path, operators_, inputs):
    p = tmp_path / "c.json"
    p.write_text(json.dumps({"tests": [{"name": "c", "graph": {"inputs": inputs, "operators": operators_}}]}))
    (case,) = load_cases([p])
    assert isinstance(case, Case), str(case)
    return case


def tensor(shape, dtype="float32", constant=False):
    out = {"data": {"generate": {"distribution": "uniform", "seed": 1}},
           "descriptor": {"shape": list(shape), "dataType": dtype}}
    if constant:
        out["constant"] = True
    return out


def nbytes(shape, dtype="float32") -> int:
    """Bytes of a tensor, as numpy sizes it."""
    return np.zeros(shape, dtype=dtype).nbytes


def einsum_flops(subscripts, *shapes) -> int:
    """numpy's naive FLOP count for an einsum: 2 per multiply-add of two operands."""
    report = np.einsum_path(subscripts, *(np.ones(s) for s in shapes), optimize=False)[1]
    return int(float(re.search(r"Naive FLOP count:\s*(\S+)", report).group(1)))


def conv_out(size, kernel, begin, end, stride, dilation):
    """Textbook convolution output size (floor rounding)."""
    return (size + begin + end - dilation * (kernel - 1) - 1) // stride + 1


def test_every_catalog_op_has_a_cost():
    assert set(COST) == set(operators())


def test_bundled_cases_of_every_op_have_a_whole_nonnegative_cost():
    """Every cost function runs on real graphs of its op (the first cases of
    each bundled file: one file per op, all 95) and answers whole,
    nonnegative numbers."""
    cases = [c for path in sorted(bundled_corpus().rglob("*.json")) for c in islice(load_file(path), 5)
             if isinstance(c, Case)]
    covered = set()
    for case in cases:
        cost = graph_cost(case.graph)
        assert isinstance(cost.flops, int) and isinstance(cost.bytes, int), case.id
        assert cost.flops >= 0 and cost.bytes > 0, case.id
        covered |= set(case.graph.ops)
    assert covered == set(operators())


@pytest.mark.parametrize("a_shape, b_shape, subscripts", [
    ((2, 5), (5, 3), "ij,jk->ik"),
    ((3, 1, 2, 5), (4, 5, 3), "...ij,...jk->...ik"),  # broadcast batch: 3 x 4
    ((7, 4, 8), (7, 8, 2), "bij,bjk->bik"),  # counts below 10^4: the report prints 4 digits
])
def test_matmul_counts_what_numpy_counts(tmp_path, a_shape, b_shape, subscripts):
    case = one_case(tmp_path, [{"name": "matmul", "arguments": [{"a": "a"}, {"b": "b"}], "outputs": "y"}],
                    {"a": tensor(a_shape), "b": tensor(b_shape)})
    out_shape = np.matmul(np.ones(a_shape), np.ones(b_shape)).shape
    cost = graph_cost(case.graph)
    assert cost.flops == einsum_flops(subscripts, a_shape, b_shape)
    assert cost.bytes == nbytes(a_shape) + nbytes(b_shape) + nbytes(out_shape)


@pytest.mark.parametrize("options, with_c", [
    ({}, False),
    ({"aTranspose": True, "alpha": 2.0}, True),
    ({"bTranspose": True, "beta": 0.5}, True),
])
def test_gemm(tmp_path, options, with_c):
    m, k, n = 4, 6, 5
    a_shape = (k, m) if options.get("aTranspose") else (m, k)
    b_shape = (n, k) if options.get("bTranspose") else (k, n)
    inputs = {"a": tensor(a_shape), "b": tensor(b_shape)}
    opts = dict(options)
    if with_c:
        inputs["c"] = tensor((n,))
        opts["c"] = "c"
    case = one_case(tmp_path, [{"name": "gemm", "arguments": [{"a": "a"}, {"b": "b"}, {"options": opts}],
                                "outputs": "y"}], inputs)
    expected = einsum_flops("ik,kj->ij", (m, k), (k, n))
    if options.get("alpha", 1.0) != 1.0:
        expected += m * n
    if with_c:
        expected += m * n * (2 if options.get("beta", 1.0) != 1.0 else 1)
    assert graph_cost(case.graph).flops == expected
    c_bytes = nbytes((n,)) if with_c else 0
    assert graph_cost(case.graph).bytes == nbytes(a_shape) + nbytes(b_shape) + c_bytes + nbytes((m, n))


CONV_SHAPES = [
    # (N, Cin, H, W), (Cout, kh, kw), padding, strides, dilations, groups, layouts, bias
    ((1, 4, 5, 5), (2, 3, 3), [0, 0, 0, 0], [1, 1], [1, 1], 1, ("nchw", "oihw"), False),
    ((2, 6, 9, 7), (4, 3, 2), [1, 1, 0, 1], [2, 1], [1, 2], 2, ("nhwc", "hwio"), True),
    ((1, 8, 10, 10), (8, 3, 3), [1, 1, 1, 1], [1, 1], [1, 1], 8, ("nhwc", "ihwo"), True),  # depthwise
    ((1, 100, 12, 12), (100, 3, 3), [1, 1, 1, 1], [1, 1], [1, 1], 1, ("nhwc", "ohwi"), False),
]


def _place(letters: str, dims: dict) -> list[int]:
    return [dims[x] for x in letters]


@pytest.mark.parametrize("nchw, okk, padding, strides, dilations, groups, layouts, bias", CONV_SHAPES)
def test_conv2d_counts_two_per_multiply_add(tmp_path, nchw, okk, padding, strides, dilations, groups, layouts, bias):
    n, cin, h, w = nchw
    cout, kh, kw = okk
    input_layout, filter_layout = layouts
    x_shape = (n, cin, h, w) if input_layout == "nchw" else (n, h, w, cin)
    f_shape = _place(filter_layout, {"o": cout, "i": cin // groups, "h": kh, "w": kw})
    inputs = {"x": tensor(x_shape), "f": tensor(f_shape, constant=True)}
    options = {"padding": padding, "strides": strides, "dilations": dilations, "groups": groups,
               "inputLayout": input_layout, "filterLayout": filter_layout}
    if bias:
        inputs["b"] = tensor((cout,), constant=True)
        options["bias"] = "b"
    case = one_case(tmp_path, [{"name": "conv2d", "arguments": [{"input": "x"}, {"filter": "f"}, {"options": options}],
                                "outputs": "y"}], inputs)
    hout = conv_out(h, kh, padding[0], padding[1], strides[0], dilations[0])
    wout = conv_out(w, kw, padding[2], padding[3], strides[1], dilations[1])
    expected = 2 * n * cout * hout * wout * (cin // groups) * kh * kw + (n * cout * hout * wout if bias else 0)
    cost = graph_cost(case.graph)
    assert cost.flops == expected
    assert cost.bytes == (nbytes(x_shape) + nbytes(f_shape) + (nbytes((cout,)) if bias else 0)
                          + nbytes((n, cout, hout, wout)))


def test_conv_transpose2d_counts_each_input_times_its_filter(tmp_path):
    n, cin, h, w, cout_per_group, kh, kw, groups = 1, 4, 3, 5, 3, 3, 2, 2
    case = one_case(tmp_path, [{"name": "convTranspose2d",
                                "arguments": [{"input": "x"}, {"filter": "f"}, {"options": {"groups": groups, "strides": [2, 2]}}],
                                "outputs": "y"}],
                    {"x": tensor((n, cin, h, w)), "f": tensor((cin, cout_per_group, kh, kw), constant=True)})
    out_h, out_w = (h - 1) * 2 + kh, (w - 1) * 2 + kw
    cost = graph_cost(case.graph)
    assert cost.flops == 2 * n * cin * h * w * cout_per_group * kh * kw
    assert cost.bytes == nbytes((n, cin, h, w)) + nbytes((cin, cout_per_group, kh, kw)) + \
        nbytes((n, cout_per_group * groups, out_h, out_w))


@pytest.mark.parametrize("a_shape, b_shape, dtype", [
    ((2, 1, 4), (3, 1), "float32"),
    ((5,), (5,), "float16"),
    ((1, 100, 100, 100), (100,), "float32"),
])
def test_binary_elementwise_counts_one_per_output_element(tmp_path, a_shape, b_shape, dtype):
    case = one_case(tmp_path, [{"name": "add", "arguments": [{"a": "a"}, {"b": "b"}], "outputs": "y"}],
                    {"a": tensor(a_shape, dtype), "b": tensor(b_shape, dtype)})
    out_shape = np.broadcast_shapes(a_shape, b_shape)
    assert graph_cost(case.graph) == Cost(prod(out_shape),
                                          nbytes(a_shape, dtype) + nbytes(b_shape, dtype) + nbytes(out_shape, dtype))


def test_an_operand_read_twice_is_counted_once(tmp_path):
    case = one_case(tmp_path, [{"name": "mul", "arguments": [{"a": "x"}, {"b": "x"}], "outputs": "y"}],
                    {"x": tensor((3, 4))})
    assert graph_cost(case.graph) == Cost(12, 2 * nbytes((3, 4)))


def test_comparisons_write_uint8(tmp_path):
    case = one_case(tmp_path, [{"name": "greater", "arguments": [{"a": "a"}, {"b": "b"}], "outputs": "y"}],
                    {"a": tensor((4, 4)), "b": tensor((4, 4))})
    assert graph_cost(case.graph).bytes == 2 * nbytes((4, 4)) + nbytes((4, 4), "uint8")


def test_movement_ops_cost_bytes_only(tmp_path):
    case = one_case(tmp_path, [{"name": "transpose", "arguments": [{"input": "x"}, {"options": {"permutation": [0, 2, 3, 1]}}],
                                "outputs": "y"}], {"x": tensor((1, 3, 4, 5), "float16")})
    assert graph_cost(case.graph) == Cost(0, 2 * nbytes((1, 3, 4, 5), "float16"))


@pytest.mark.parametrize("op, axes, per_input, per_output", [
    ("reduceSum", [1], 1, 0),
    ("reduceMean", [0, 2], 1, 1),
    ("reduceL2", None, 2, 1),
    ("reduceLogSumExp", [2], 2, 1),
])
def test_reductions(tmp_path, op, axes, per_input, per_output):
    shape = (3, 4, 5)
    options = {} if axes is None else {"axes": axes}
    case = one_case(tmp_path, [{"name": op, "arguments": [{"input": "x"}, {"options": options}], "outputs": "y"}],
                    {"x": tensor(shape)})
    out_shape = np.sum(np.ones(shape), axis=None if axes is None else tuple(axes)).shape
    assert graph_cost(case.graph) == Cost(per_input * prod(shape) + per_output * prod(out_shape),
                                          nbytes(shape) + nbytes(out_shape))


def test_max_pool_counts_one_compare_per_window_position(tmp_path):
    shape = (1, 2, 7, 7)
    case = one_case(tmp_path, [{"name": "maxPool2d",
                                "arguments": [{"input": "x"}, {"options": {"windowDimensions": [3, 3], "strides": [2, 2]}}],
                                "outputs": "y"}], {"x": tensor(shape)})
    side = conv_out(7, 3, 0, 0, 2, 1)
    assert graph_cost(case.graph) == Cost(1 * 2 * side * side * 9, nbytes(shape) + nbytes((1, 2, side, side)))


def test_lstm_counts_its_matmuls_per_step_and_direction(tmp_path):
    steps, batch, input_size, hidden, directions = 3, 2, 5, 4, 2
    inputs = {"x": tensor((steps, batch, input_size)),
              "w": tensor((directions, 4 * hidden, input_size), constant=True),
              "r": tensor((directions, 4 * hidden, hidden), constant=True)}
    case = one_case(tmp_path, [{"name": "lstm",
                                "arguments": [{"input": "x"}, {"weight": "w"}, {"recurrentWeight": "r"}, {"steps": steps},
                                              {"hiddenSize": hidden}, {"options": {"direction": "both"}}],
                                "outputs": ["h", "c"]}], inputs)
    gate_matmuls = einsum_flops("bi,gi->bg", (batch, input_size), (4 * hidden, input_size)) + \
        einsum_flops("bh,gh->bg", (batch, hidden), (4 * hidden, hidden))
    cost = graph_cost(case.graph)
    # The matmuls dominate; the elementwise rest is a few flops per gate element.
    elementwise = cost.flops - steps * directions * gate_matmuls
    assert 0 < elementwise <= steps * directions * batch * 4 * hidden * 4
    assert cost.bytes == sum(nbytes(s["descriptor"]["shape"]) for s in inputs.values()) + \
        2 * nbytes((directions, batch, hidden))


def test_a_graph_costs_the_sum_of_its_nodes(tmp_path):
    """The seed scenario's shape: conv2d (nhwc, hwio) + add + relu. Bytes count
    the intermediate values twice (written by one node, read by the next)."""
    n, h, w, c, k = 1, 10, 10, 8, 3
    ops = [
        {"name": "conv2d", "arguments": [{"input": "x"}, {"filter": "f"},
                                         {"options": {"padding": [1, 1, 1, 1], "inputLayout": "nhwc", "filterLayout": "hwio"}}],
         "outputs": "conv"},
        {"name": "add", "arguments": [{"a": "conv"}, {"b": "bias"}], "outputs": "sum"},
        {"name": "relu", "arguments": [{"input": "sum"}], "outputs": "y"},
    ]
    case = one_case(tmp_path, ops, {"x": tensor((n, h, w, c)), "f": tensor((k, k, c, c), constant=True),
                                    "bias": tensor((c,), constant=True)})
    out = n * h * w * c
    conv = 2 * out * c * k * k
    expected = Cost(conv + out + out,
                    (nbytes((n, h, w, c)) + nbytes((k, k, c, c)) + nbytes((n, h, w, c)))  # conv
                    + (nbytes((n, h, w, c)) + nbytes((c,)) + nbytes((n, h, w, c)))  # add
                    + 2 * nbytes((n, h, w, c)))  # relu
    assert graph_cost(case.graph) == expected
    assert sum((node_cost(node, case.graph.descs) for node in case.graph.nodes), Cost(0, 0)) == expected


def test_cost_serialises_to_json():
    assert json.loads(json.dumps(Cost(10, 20).to_json())) == {"flops": 10, "bytes": 20}
