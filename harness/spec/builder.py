"""From a case's JSON graph to a validated ``Graph``.

Arguments are matched to the builder method's parameters by position (WPT
writes ``[{"input": "x"}, {"type": "int32"}, {"options": {...}}]`` and its
keys do not always match the spec's parameter names). Options get their IDL
defaults, then each node runs its op's create steps, which validate it as the
spec's builder method would and resolve the remaining defaults.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from webnn_harness.spec import opspec
from webnn_harness.spec.catalog import OperatorSpec, operator
from webnn_harness.spec.graph import Graph, Node, TensorDesc
from webnn_harness.spec.opspec.base import SpecError
from webnn_harness.spec.values import decode_numbers


class FieldError(Exception):
    """A problem with one field of a case: ``field`` says where."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field
        self.message = message


def _operand_ref(value: Any, where: str, known: Mapping[str, TensorDesc], is_list: bool):
    if is_list:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise FieldError(where, f"expected a list of operand names, got {value!r}")
        missing = [v for v in value if v not in known]
        if missing:
            raise FieldError(where, f"unknown operand(s) {', '.join(missing)}")
        return tuple(value)
    if not isinstance(value, str):
        raise FieldError(where, f"expected an operand name, got {value!r}")
    if value not in known:
        raise FieldError(where, f"unknown operand {value!r}")
    return value


def argument_values(arguments: list) -> tuple[list[Any], Any]:
    """(positional values, the options object or None) of an operator's
    ``arguments`` as WPT's builder reads them (webnn/resources/utils.js,
    buildAndExecuteGraph): every key of every argument object, in order, is
    the next positional argument, whatever its name, except ``options``. So
    ``[{"input": "x"}, {"scale": "s", "zeroPoint": "z"}]`` (WPT's subgraph
    files) passes the same three arguments as one key per object."""
    positional: list[Any] = []
    options = None
    for argument in arguments:
        for name, value in argument.items():
            if name == "options":
                options = value
            else:
                positional.append(value)
    return positional, options


def _node_arguments(spec: OperatorSpec, raw: dict, where: str, known: Mapping[str, TensorDesc]):
    operands: dict[str, Any] = {}
    attributes: dict[str, Any] = {}
    positional, options = argument_values(raw.get("arguments", []))
    if options is None:
        options = {}
    elif not isinstance(options, dict):
        raise FieldError(f"{where}.options", "options must be an object")
    if len(positional) > len(spec.signature):
        raise FieldError(f"{where}.arguments", f"{spec.name} takes {len(spec.signature)} arguments besides options, got {len(positional)}")
    if len(positional) < len(spec.signature):
        names = ", ".join(p.name for p in spec.signature[len(positional):])
        raise FieldError(f"{where}.arguments", f"{spec.name} is missing argument(s) {names}")
    for param, value in zip(spec.signature, positional):
        if param.is_operand or param.is_operand_list:
            operands[param.name] = _operand_ref(value, f"{where}.{param.name}", known, param.is_operand_list)
        else:
            attributes[param.name] = decode_numbers(value)
    for name, value in options.items():
        if name == "label":
            continue
        opt = spec.options.get(name)
        if opt is None:
            known_opts = ", ".join(spec.options) or "none"
            raise FieldError(f"{where}.options.{name}", f"{spec.name} has no option {name!r} (options: {known_opts})")
        if opt.is_operand:
            operands[name] = _operand_ref(value, f"{where}.options.{name}", known, False)
        else:
            attributes[name] = decode_numbers(value)
    for name, opt in spec.options.items():
        if not opt.is_operand and name not in attributes:
            attributes[name] = opt.default
    return operands, attributes


def build_graph(
    inputs: Mapping[str, TensorDesc],
    constants: Mapping[str, np.ndarray],
    operators: list[dict],
    output_names: list[str] | None,
) -> Graph:
    """``inputs`` are the non-constant graph inputs' descriptors; ``constants``
    the constant operands' values. Raises FieldError."""
    descs: dict[str, TensorDesc] = dict(inputs)
    for name, value in constants.items():
        descs[name] = TensorDesc(tuple(value.shape), value.dtype.name)
    nodes = []
    consumed: set[str] = set()
    for i, raw in enumerate(operators):
        where = f"operators[{i}]"
        try:
            spec = operator(raw.get("name", ""))
        except KeyError as exc:
            raise FieldError(f"{where}.name", str(exc.args[0])) from None
        where = f"operators[{i}] ({spec.name})"
        operands, attributes = _node_arguments(spec, raw, where, descs)
        operand_descs = {
            k: tuple(descs[r] for r in v) if isinstance(v, tuple) else descs[v] for k, v in operands.items()
        }
        try:
            created = opspec.create(spec.name, operand_descs, attributes)
        except SpecError as exc:
            raise FieldError(where, f"invalid per spec: {exc}") from None
        except NotImplementedError as exc:
            raise FieldError(where, f"not implemented: {exc}") from None
        except (TypeError, ValueError, KeyError, IndexError) as exc:
            raise FieldError(where, f"invalid per spec: {type(exc).__name__}: {exc}") from None
        outs = raw["outputs"]
        out_names = [outs] if isinstance(outs, str) else list(outs)
        if len(out_names) != len(created.outputs):
            raise FieldError(f"{where}.outputs", f"{spec.name} produces {len(created.outputs)} output(s), case names {len(out_names)}")
        for name in out_names:
            if name in descs:
                raise FieldError(f"{where}.outputs", f"operand name {name!r} is already used")
        descs.update(zip(out_names, created.outputs))
        node = Node(spec.name, operands, dict(created.attributes), tuple(out_names))
        consumed.update(node.operand_names())
        nodes.append(node)
    if output_names is None:
        output_names = [n for node in nodes for n in node.outputs if n not in consumed]
    for name in output_names:
        if name not in descs:
            raise FieldError(f"expectedOutputs.{name}", "no operand of the graph has this name")
    return Graph(
        inputs=tuple(inputs),
        constants=dict(constants),
        nodes=tuple(nodes),
        outputs=tuple(output_names),
        descs=descs,
    )


def is_required(graph: Graph) -> bool:
    """True when every operand of every node is inside the spec's required data
    types and ranks (the spec's tensor-limits 'required' columns)."""
    for node in graph.nodes:
        spec = operator(node.op)
        pairs: list[tuple[str, TensorDesc]] = []
        for member, ref in node.operands.items():
            for name in ref if isinstance(ref, tuple) else (ref,):
                pairs.append((member, graph.descs[name]))
        out_members = spec.output_members
        for i, name in enumerate(node.outputs):
            pairs.append((out_members[min(i, len(out_members) - 1)], graph.descs[name]))
        for member, desc in pairs:
            limits = spec.operands.get(member)
            if limits is None:
                continue
            if desc.data_type not in limits.required_data_types or not limits.required_ranks.contains(desc.rank):
                return False
    return True
