"""Every op is declared once (harness/spec/opspec/traits.py: one OpSpec record
beside its create steps), and every per-op list of the probe, fuzz, accuracy,
reference, judge and cost is derived from it."""
from __future__ import annotations

import importlib

import pytest

from webnn_harness.accuracy import check as accuracy_check
from webnn_harness.accuracy.plans import OPS as ACCURACY_OPS, TOSA_LAYOUTS
from webnn_harness.fuzz.strategies import PROBE_VALUE_DOMAINS, takes_probe_values
from webnn_harness.probe.driver import GRAPH_SWEEP_OPS
from webnn_harness.probe.inputs import DOMAIN_VALUES
from webnn_harness.probe.plan import EXTENSION_OPS, PLANS
from webnn_harness.probe.synth import JOINED_ARGUMENTS
from webnn_harness.spec.catalog import operator, operators
from webnn_harness.spec.families import FAMILIES
from webnn_harness.spec.cost import COST as GRAPH_COST
from webnn_harness.spec.opspec import COST, CREATE, OPS, TOLERANCE, OpSpec
from webnn_harness.spec.opspec.base import EXTENSION_TYPES
from webnn_harness.spec.opspec.traits import VALUE_DOMAINS
from webnn_harness.verdict.judge import SIGN_KEEPING_OPS
from webnn_harness.verdict.tolerance import DISCRETE_OPS, TOLERANCE as JUDGE_TOLERANCE

evaluate = importlib.import_module("webnn_harness.backends.reference.evaluate")
ALL_OPS = list(operators())


def test_every_catalog_op_has_one_record():
    assert sorted(OPS) == sorted(ALL_OPS)
    assert all(isinstance(OPS[op], OpSpec) and OPS[op].name == op for op in ALL_OPS)


def test_create_tolerance_and_cost_tables_are_the_records():
    for table, field in ((CREATE, "create"), (TOLERANCE, "tolerance"), (COST, "cost")):
        assert dict(table) == {op: getattr(OPS[op], field) for op in ALL_OPS}, field
    assert JUDGE_TOLERANCE is TOLERANCE and GRAPH_COST is COST


@pytest.mark.parametrize("family", FAMILIES)
def test_a_family_declares_each_op_once_under_its_own_name(family):
    module = importlib.import_module(f"webnn_harness.spec.opspec.{family}")
    assert module.OPS and all(spec.name == op for op, spec in module.OPS.items())
    assert all(OPS[op] is spec for op, spec in module.OPS.items())


def test_an_op_declared_twice_is_refused():
    from webnn_harness.spec.opspec.traits import declare

    with pytest.raises(RuntimeError, match="abs is declared twice"):
        declare(OPS["abs"], OPS["abs"])


def test_every_value_domain_named_has_values():
    assert set(DOMAIN_VALUES) == VALUE_DOMAINS
    for op in ALL_OPS:
        values = OPS[op].values
        assert values.domain in VALUE_DOMAINS, op
        assert set(values.members.values()) <= VALUE_DOMAINS, op


def test_member_domains_name_members_the_op_has():
    for op in ALL_OPS:
        assert set(OPS[op].values.members) <= set(operator(op).input_members), op


def test_every_indices_operand_has_an_index_domain():
    for op in ALL_OPS:
        if "indices" in operator(op).input_members:
            assert OPS[op].values.members["indices"] in ("axisIndices", "coordinates"), op


def test_probe_plans_are_the_traits():
    assert dict(PLANS) == {op: OPS[op].probe for op in ALL_OPS}


def test_probe_extension_ops_are_the_create_steps_extension_ops():
    assert EXTENSION_OPS == {op for op, _member in EXTENSION_TYPES}


def test_reference_elementwise_set_is_the_traits_and_the_elementwise_family():
    assert evaluate.ELEMENTWISE == {op for op in ALL_OPS if OPS[op].elementwise}
    elementwise_family = importlib.import_module("webnn_harness.spec.opspec.elementwise")
    assert evaluate.ELEMENTWISE == set(elementwise_family.OPS)


def test_discrete_ops_are_the_traits():
    assert DISCRETE_OPS == {op for op in ALL_OPS if OPS[op].discrete}
    assert {"argMin", "argMax", "equal", "logicalNot", "isNaN"} <= DISCRETE_OPS


def test_sign_keeping_ops_are_the_records():
    assert SIGN_KEEPING_OPS == {op for op in ALL_OPS if OPS[op].keeps_zero_sign}
    # every data movement op, and the two elementwise ops that hand on their input's value
    movement = importlib.import_module("webnn_harness.spec.opspec.movement")
    assert SIGN_KEEPING_OPS == set(movement.OPS) | {"cast", "identity"}


def test_joined_arguments_are_the_traits():
    assert dict(JOINED_ARGUMENTS) == {op: OPS[op].joined_arguments for op in ALL_OPS
                                      if OPS[op].joined_arguments}


def test_graph_sweep_ops_follow_the_traits_identity_first():
    swept = [op for op in ALL_OPS if OPS[op].graph_sweep is not None]
    assert list(GRAPH_SWEEP_OPS) == sorted(swept, key=lambda op: OPS[op].graph_sweep)
    assert GRAPH_SWEEP_OPS[0] == "identity"
    assert len({OPS[op].graph_sweep for op in swept}) == len(swept)  # no ties: the order is stated


def test_fuzz_takes_probe_values_where_the_traits_name_such_a_domain():
    for op in ALL_OPS:
        for member in operator(op).input_members:
            domains = set(OPS[op].values.domains(member))
            assert takes_probe_values(op, member) == bool(domains & PROBE_VALUE_DOMAINS), (op, member)


def test_accuracy_ops_are_the_traits():
    planned = {op: OPS[op].accuracy for op in ALL_OPS if OPS[op].accuracy is not None}
    assert set(ACCURACY_OPS) == set(planned)
    for op, accuracy in planned.items():
        assert ACCURACY_OPS[op] == (TOSA_LAYOUTS[accuracy.tosa], accuracy.sizes)
    assert accuracy_check.INPUT_MAX_BOUND_OPS == {
        op for op, accuracy in planned.items() if accuracy.tosa in accuracy_check.INPUT_MAX_BOUND_TOSA}
