"""A case's nchw graph rewritten channels-last (nhwc): ``bench --cases``'s
``nhwc`` variant, so a model's time in the layout it was authored in (ONNX
models are nchw) stands beside its time in the layout an nhwc runtime
(LiteRT, so Chromium's WebNN on Linux) computes natively.

What a converter to nhwc does, op by op, on the raw operators of the case:

- every layout op given an nchw tensor (conv2d, convTranspose2d, the pools,
  instanceNormalization; resample2d on axes [2, 3]; batchNormalization on
  axis 1) takes it nhwc instead (``inputLayout``/``layout`` nhwc, axes [1, 2],
  axis 3); filters keep the layout the case gives them (WebNN takes any
  filter layout with either input layout), so only the activations move;
- elementwise ops and concat pass nhwc through; their constant operands are
  turned channels-last (a [1, C, 1, 1] bias becomes [1, 1, 1, C]);
- a rank-4 graph input every consumer of which is such an op is given nhwc
  (its values transposed): the model's caller hands it nhwc;
- any other op given an nhwc tensor (reshape, gemm, softmax, ...) gets it
  back nchw through an explicit transpose, and so does a graph output: the
  outputs are the nchw graph's, so the same expected values verify both.

A graph with no nchw layout op is not rewritten (``allows_nhwc``): it has no
layout to change.
"""
from __future__ import annotations

import copy
import dataclasses
from typing import Any, Mapping

import numpy as np

from webnn_harness.spec.catalog import operator
from webnn_harness.spec.opspec import ops_where

TO_NHWC, TO_NCHW = (0, 2, 3, 1), (0, 3, 1, 2)
NCHW_AXIS_IN_NHWC = {0: 0, 1: 3, 2: 1, 3: 2}
# op -> (its layout option, the value that means nchw, the value that means nhwc)
LAYOUT_OPTION = {
    "conv2d": ("inputLayout", "nchw", "nhwc"), "convTranspose2d": ("inputLayout", "nchw", "nhwc"),
    "averagePool2d": ("layout", "nchw", "nhwc"), "maxPool2d": ("layout", "nchw", "nhwc"),
    "l2Pool2d": ("layout", "nchw", "nhwc"), "instanceNormalization": ("layout", "nchw", "nhwc"),
    "resample2d": ("axes", [2, 3], [1, 2]), "batchNormalization": ("axis", 1, 3),
}
# the ops whose presence makes a graph's layout worth changing (not resample2d, batchNormalization alone)
IMAGE_OPS = ("conv2d", "convTranspose2d", "averagePool2d", "maxPool2d", "l2Pool2d", "instanceNormalization")
# Every operand of these broadcasts elementwise against the others (the op declarations say which;
# quantizeLinear/dequantizeLinear expand their scale blockwise, which a transposed constant keeps):
# nhwc passes through.
ELEMENTWISE = frozenset(ops_where(lambda spec: spec.elementwise)) | {"quantizeLinear", "dequantizeLinear"}


def _option(raw_op: Mapping[str, Any], name: str, default: Any) -> Any:
    for argument in raw_op.get("arguments") or ():
        if isinstance(argument, dict) and isinstance(argument.get("options"), dict) and name in argument["options"]:
            return argument["options"][name]
    return default


def allows_nhwc(raw_case: Any) -> bool:
    """Whether the raw case's graph has an nchw image op (conv2d, a pool, ...): a layout to change."""
    try:
        ops = raw_case["graph"]["operators"]
        return any(operator(op["name"]).name in IMAGE_OPS
                   and _option(op, LAYOUT_OPTION[operator(op["name"]).name][0], "nchw") == "nchw" for op in ops)
    except (KeyError, TypeError, AttributeError):
        return False


class _Rewrite:
    """The nhwc graph, built op by op (``run``)."""

    def __init__(self, case, raw_operators: list):
        self.graph, self.raw = case.graph, raw_operators
        self.inputs = dict(case.inputs)
        self.constants = dict(case.graph.constants)
        self.used = set(case.graph.descs)
        self.nhwc: dict[str, str] = {}  # operand -> the name of its nhwc form in the new graph
        self.nchw: dict[str, str] = {}  # operand -> the name of its nchw form (itself, for an untouched one)
        self.ops: list[dict] = []

    def fresh(self, name: str) -> str:
        while name in self.used:
            name += "_"
        self.used.add(name)
        return name

    def rank(self, name: str) -> int:
        return self.graph.descs[name].rank

    def transpose(self, source: str, permutation, target: str) -> str:
        target = self.fresh(target)
        self.ops.append({"name": "transpose", "arguments": [{"input": source}, {"options": {"permutation": list(permutation)}}],
                         "outputs": target})
        return target

    def to_nhwc(self, name: str) -> str | None:
        """The nhwc form of ``name`` (a constant of rank <= 4 turned channels-last), None when it has none."""
        if name in self.nhwc:
            return self.nhwc[name]
        if name in self.constants and self.rank(name) <= 4:
            value = self.constants[name]
            value = value.reshape((1,) * (4 - value.ndim) + value.shape).transpose(TO_NHWC)
            self.nhwc[name] = self.fresh(f"{name}__nhwc")
            self.constants[self.nhwc[name]] = np.ascontiguousarray(value)
        elif name not in self.constants and self.rank(name) == 4:
            self.nhwc[name] = self.transpose(self.nchw.get(name, name), TO_NHWC, f"{name}__nhwc")
        return self.nhwc.get(name)

    def to_nchw(self, name: str) -> str:
        if name not in self.nchw:
            self.nchw[name] = self.transpose(self.nhwc[name], TO_NCHW, f"{name}__nchw")
        return self.nchw[name]

    def nhwc_inputs(self) -> None:
        """Give a rank-4 graph input nhwc where every op reading it takes nhwc."""
        readers: dict[str, list] = {}
        for node in self.graph.nodes:
            for member, ref in node.operands.items():
                for name in (ref if isinstance(ref, tuple) else (ref,)):
                    readers.setdefault(name, []).append((node, member))
        for name in self.graph.inputs:
            uses = readers.get(name, [])
            if self.rank(name) == 4 and uses and name not in self.graph.outputs and all(
                    node.op in ELEMENTWISE or (node.op in LAYOUT_OPTION and member == "input" and self._nchw_op(node))
                    for node, member in uses):
                self.inputs[name] = np.ascontiguousarray(self.inputs[name].transpose(TO_NHWC))
                self.nhwc[name] = name

    @staticmethod
    def _nchw_op(node) -> bool:
        option, nchw, _ = LAYOUT_OPTION[node.op]
        value = node.attributes.get(option)
        return list(value) == nchw if isinstance(value, (list, tuple)) else value == nchw

    def run(self) -> None:
        self.nhwc_inputs()
        for name in (*self.graph.inputs, *self.graph.constants):
            if name not in self.nhwc:
                self.nchw[name] = name
        for node, raw in zip(self.graph.nodes, self.raw):
            self.node(node, copy.deepcopy(raw))

    def node(self, node, raw: dict) -> None:
        names = {member: (ref if isinstance(ref, tuple) else (ref,)) for member, ref in node.operands.items()}
        # an activation given nhwc (a constant turned channels-last for another op does not count)
        given_nhwc = any(n in self.nhwc and n not in self.graph.constants for ns in names.values() for n in ns)
        renamed = None
        if node.op in LAYOUT_OPTION and self._nchw_op(node) and self.rank(names["input"][0]) == 4 \
                and (given_nhwc or node.op in IMAGE_OPS):
            renamed = {m: tuple(self.to_nhwc(n) if m == "input" else self.nchw.get(n, n) for n in ns)
                       for m, ns in names.items()}
            option, _, value = LAYOUT_OPTION[node.op]
            _set_option(raw, option, value)
        elif given_nhwc and node.op in ELEMENTWISE:
            renamed = {m: tuple(self.to_nhwc(n) for n in ns) for m, ns in names.items()}
        elif given_nhwc and node.op == "concat" and all(self.to_nhwc(n) for n in names["inputs"]):
            renamed = {"inputs": tuple(self.nhwc[n] for n in names["inputs"])}
            _set_argument(raw, "axis", NCHW_AXIS_IN_NHWC[node.attributes["axis"]])
        if renamed is None or any(n is None for ns in renamed.values() for n in ns):
            renamed = {m: tuple(self.to_nchw(n) if n in self.nhwc else self.nchw.get(n, n) for n in ns)
                       for m, ns in names.items()}
            self._emit(node, raw, renamed, nhwc=False)
        else:
            self._emit(node, raw, renamed, nhwc=True)

    def _emit(self, node, raw: dict, renamed: Mapping[str, tuple], nhwc: bool) -> None:
        for member, new in renamed.items():
            _set_operand(raw, member, list(new) if isinstance(node.operands[member], tuple) else new[0])
        outputs = []
        for name in node.outputs:
            if not nhwc:
                self.nchw[name] = name
                outputs.append(name)
            elif name in self.graph.outputs:  # the graph's output stays nchw: computed nhwc, then transposed
                self.nhwc[name] = self.fresh(f"{name}__nhwc")
                outputs.append(self.nhwc[name])
            else:
                self.nhwc[name] = name
                outputs.append(name)
        raw["outputs"] = outputs[0] if isinstance(raw["outputs"], str) else outputs
        self.ops.append(raw)
        for name in node.outputs:
            if nhwc and name in self.graph.outputs:
                self.ops.append({"name": "transpose", "arguments": [
                    {"input": self.nhwc[name]}, {"options": {"permutation": list(TO_NCHW)}}], "outputs": name})
                self.nchw[name] = name


def _options(raw: dict) -> dict:
    arguments = raw.setdefault("arguments", [])
    for argument in arguments:
        if isinstance(argument, dict) and isinstance(argument.get("options"), dict):
            return argument["options"]
    arguments.append({"options": {}})
    return arguments[-1]["options"]


def _set_option(raw: dict, name: str, value: Any) -> None:
    _options(raw)[name] = value


def _set_argument(raw: dict, name: str, value: Any) -> None:
    for argument in raw.get("arguments") or ():
        if isinstance(argument, dict) and name in argument:
            argument[name] = value
            return
    _set_option(raw, name, value)


def _set_operand(raw: dict, member: str, value: Any) -> None:
    """Point the raw op's operand ``member`` (a positional argument or an operand option) at ``value``."""
    for argument in raw.get("arguments") or ():
        if isinstance(argument, dict) and member in argument:
            argument[member] = value
            return
    _options(raw)[member] = value


def nhwc_case(case, raw_case: Mapping[str, Any]):
    """``case`` (loaded from ``raw_case``) with its graph rewritten nhwc; its
    outputs and expected values unchanged. Raises ValueError (FieldError) where
    the rewritten graph does not build."""
    from webnn_harness.spec.builder import build_graph
    from webnn_harness.spec.graph import TensorDesc

    rewrite = _Rewrite(case, list(raw_case["graph"]["operators"]))
    rewrite.run()
    descs = {k: TensorDesc(tuple(v.shape), v.dtype.name) for k, v in rewrite.inputs.items()}
    used = {n for op in rewrite.ops for n in _operand_names(op)}
    constants = {k: v for k, v in rewrite.constants.items() if k in used}  # a bias turned nhwc leaves its nchw form unused
    graph = build_graph(descs, constants, rewrite.ops, list(case.graph.outputs))
    return dataclasses.replace(case, graph=graph, inputs=rewrite.inputs, source_key="")


def _operand_names(raw_op: dict):
    for argument in raw_op.get("arguments") or ():
        if not isinstance(argument, dict):
            continue
        for key, value in argument.items():
            values = value.values() if key == "options" and isinstance(value, dict) else [value]
            for v in values:
                yield from (v if isinstance(v, list) else [v]) if isinstance(v, (str, list)) else ()
