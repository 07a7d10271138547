"""Every op's traits (harness/spec/opspec/traits.py) are stated once, beside
its create steps, and every per-op list of the probe, fuzz, accuracy,
reference and judge is derived from them."""
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
from webnn_harness.spec.opspec import CREATE, TRAITS, OpTraits
from webnn_harness.spec.opspec.base import EXTENSION_TYPES
from webnn_harness.spec.opspec.traits import VALUE_DOMAINS
from webnn_harness.verdict.tolerance import DISCRETE_OPS

evaluate = importlib.import_module("webnn_harness.backends.reference.evaluate")
ALL_OPS = list(operators())


def test_every_catalog_op_has_one_trait_record():
    assert sorted(TRAITS) == sorted(ALL_OPS) == sorted(CREATE)
    assert all(isinstance(TRAITS[op], OpTraits) for op in ALL_OPS)


@pytest.mark.parametrize("family", FAMILIES)
def test_a_family_states_traits_for_exactly_its_create_steps(family):
    module = importlib.import_module(f"webnn_harness.spec.opspec.{family}")
    assert sorted(module.TRAITS) == sorted(module.CREATE)


def test_every_value_domain_named_has_values():
    assert set(DOMAIN_VALUES) == VALUE_DOMAINS
    for op in ALL_OPS:
        values = TRAITS[op].values
        assert values.domain in VALUE_DOMAINS, op
        assert set(values.members.values()) <= VALUE_DOMAINS, op


def test_member_domains_name_members_the_op_has():
    for op in ALL_OPS:
        assert set(TRAITS[op].values.members) <= set(operator(op).input_members), op


def test_every_indices_operand_has_an_index_domain():
    for op in ALL_OPS:
        if "indices" in operator(op).input_members:
            assert TRAITS[op].values.members["indices"] in ("axisIndices", "coordinates"), op


def test_probe_plans_are_the_traits():
    assert dict(PLANS) == {op: TRAITS[op].probe for op in ALL_OPS}


def test_probe_extension_ops_are_the_create_steps_extension_ops():
    assert EXTENSION_OPS == {op for op, _member in EXTENSION_TYPES}


def test_reference_elementwise_set_is_the_traits_and_the_elementwise_family():
    assert evaluate.ELEMENTWISE == {op for op in ALL_OPS if TRAITS[op].elementwise}
    elementwise_family = importlib.import_module("webnn_harness.spec.opspec.elementwise")
    assert evaluate.ELEMENTWISE == set(elementwise_family.CREATE)


def test_discrete_ops_are_the_traits():
    assert DISCRETE_OPS == {op for op in ALL_OPS if TRAITS[op].discrete}
    assert {"argMin", "argMax", "equal", "logicalNot", "isNaN"} <= DISCRETE_OPS


def test_joined_arguments_are_the_traits():
    assert dict(JOINED_ARGUMENTS) == {op: TRAITS[op].joined_arguments for op in ALL_OPS
                                      if TRAITS[op].joined_arguments}


def test_graph_sweep_ops_follow_the_traits_identity_first():
    swept = [op for op in ALL_OPS if TRAITS[op].graph_sweep is not None]
    assert list(GRAPH_SWEEP_OPS) == sorted(swept, key=lambda op: TRAITS[op].graph_sweep)
    assert GRAPH_SWEEP_OPS[0] == "identity"
    assert len({TRAITS[op].graph_sweep for op in swept}) == len(swept)  # no ties: the order is stated


def test_fuzz_takes_probe_values_where_the_traits_name_such_a_domain():
    for op in ALL_OPS:
        for member in operator(op).input_members:
            domains = set(TRAITS[op].values.domains(member))
            assert takes_probe_values(op, member) == bool(domains & PROBE_VALUE_DOMAINS), (op, member)


def test_accuracy_ops_are_the_traits():
    planned = {op: TRAITS[op].accuracy for op in ALL_OPS if TRAITS[op].accuracy is not None}
    assert set(ACCURACY_OPS) == set(planned)
    for op, accuracy in planned.items():
        assert ACCURACY_OPS[op] == (TOSA_LAYOUTS[accuracy.tosa], accuracy.sizes)
    assert accuracy_check.INPUT_MAX_BOUND_OPS == {
        op for op, accuracy in planned.items() if accuracy.tosa in accuracy_check.INPUT_MAX_BOUND_TOSA}
