"""Case files: schema validation, one-line errors naming file, case and field."""
import json

import pytest

from webnn_harness.loading.cases import Case, CaseError, load_cases

RELU = {
    "name": "relu float32 2D",
    "graph": {
        "inputs": {"x": {"data": [-1, 2, -3, 4, 5, -6], "descriptor": {"shape": [2, 3], "dataType": "float32"}}},
        "operators": [{"name": "relu", "arguments": [{"input": "x"}], "outputs": "y"}],
        "expectedOutputs": {"y": {"data": [0, 2, 0, 4, 5, 0], "descriptor": {"shape": [2, 3], "dataType": "float32"}}},
    },
}


def write(tmp_path, doc, name="x.json"):
    p = tmp_path / name
    p.write_text(json.dumps(doc))
    return p


def load_one(tmp_path, case):
    (result,) = load_cases([write(tmp_path, {"tests": [case]})])
    return result


def mutate(**changes):
    case = json.loads(json.dumps(RELU))
    for path, value in changes.items():
        node = case
        keys = path.split("__")
        for k in keys[:-1]:
            node = node[int(k)] if k.isdigit() else node[k]
        node[keys[-1]] = value
    return case


def test_a_good_case_loads(tmp_path):
    case = load_one(tmp_path, RELU)
    assert isinstance(case, Case)
    assert case.graph.outputs == ("y",) and case.required
    assert case.expected["y"].tolist() == [[0, 2, 0], [4, 5, 0]]


def test_wrong_value_count_names_file_case_and_field(tmp_path):
    err = load_one(tmp_path, mutate(graph__inputs__x__data=[1, 2, 3, 4, 5]))
    assert isinstance(err, CaseError)
    assert str(err).endswith('x.json: "relu float32 2D": inputs.x.data: data has 5 values, shape [2, 3] needs 6')


def test_unknown_data_type_is_a_schema_error_with_a_field(tmp_path):
    err = load_one(tmp_path, mutate(graph__inputs__x__descriptor={"shape": [2, 3], "dataType": "float64"}))
    assert isinstance(err, CaseError) and "graph.inputs.x.descriptor.dataType" in str(err)
    assert "\n" not in str(err)


def test_unknown_operand_reference(tmp_path):
    case = mutate(graph__operators=[{"name": "relu", "arguments": [{"input": "nope"}], "outputs": "y"}])
    err = load_one(tmp_path, case)
    assert "operators[0] (relu).input: unknown operand 'nope'" in str(err)


def test_unknown_operator(tmp_path):
    case = mutate(graph__operators=[{"name": "frobnicate", "arguments": [{"input": "x"}], "outputs": "y"}])
    assert "operators[0].name: unknown WebNN operator 'frobnicate'" in str(load_one(tmp_path, case))


def test_unknown_option_is_reported(tmp_path):
    case = mutate(graph__operators=[{"name": "relu", "arguments": [{"input": "x"}, {"options": {"alpha": 2}}], "outputs": "y"}])
    assert "relu has no option 'alpha'" in str(load_one(tmp_path, case))


def test_case_the_spec_forbids_is_reported_as_invalid(tmp_path):
    # relu allows float32, float16, int64, int32 and int8 inputs; not uint32.
    case = mutate(graph__inputs__x__descriptor={"shape": [2, 3], "dataType": "uint32"},
                  graph__inputs__x__data=[1, 2, 3, 4, 5, 6],
                  graph__expectedOutputs__y__descriptor={"shape": [2, 3], "dataType": "uint32"})
    err = load_one(tmp_path, case)
    assert isinstance(err, CaseError) and "invalid per spec" in err.message and "uint32" in err.message


def test_expected_descriptor_must_match_the_graph(tmp_path):
    case = mutate(graph__expectedOutputs__y__descriptor={"shape": [3, 2], "dataType": "float32"})
    assert "says float32[3, 2] but the graph produces float32[2, 3]" in str(load_one(tmp_path, case))


def test_bad_case_fails_alone(tmp_path):
    bad = mutate(name="bad one", graph__inputs__x__data=[1])
    good = dict(RELU, name="good one")
    results = load_cases([write(tmp_path, {"tests": [bad, good]})])
    assert [type(r).__name__ for r in results] == ["CaseError", "Case"]


def test_unreadable_and_malformed_files(tmp_path):
    (tmp_path / "broken.json").write_text("{not json")
    results = load_cases([tmp_path / "broken.json", tmp_path / "missing.json"])
    assert all(isinstance(r, CaseError) for r in results)
    assert "not valid JSON" in str(results[0]) and "no such file" in str(results[1])


def test_generated_data_is_seeded_and_expected_may_be_omitted(tmp_path):
    case = mutate(graph__inputs__x__data={"generate": {"distribution": "uniform", "low": -2, "high": 2, "seed": 3}})
    del case["graph"]["expectedOutputs"]
    a, b = load_one(tmp_path, case), load_one(tmp_path, case)
    assert (a.inputs["x"] == b.inputs["x"]).all() and a.graph.outputs == ("y",) and not a.expected


def test_scalar_data_fills_the_shape_and_list_form_of_a_file(tmp_path):
    case = mutate(graph__inputs__x__data=-1.5)
    del case["graph"]["expectedOutputs"]
    (c,) = load_cases([write(tmp_path, [case])])
    assert c.inputs["x"].tolist() == [[-1.5] * 3] * 2


def test_duplicate_case_names_in_a_file(tmp_path):
    results = load_cases([write(tmp_path, {"tests": [RELU, RELU]})])
    assert isinstance(results[1], CaseError) and "duplicate" in results[1].message


@pytest.mark.parametrize("dtype,value", [("int8", 128), ("uint8", -1), ("int32", 1.5)])
def test_integer_values_out_of_range(tmp_path, dtype, value):
    case = {
        "name": "cast range",
        "graph": {
            "inputs": {"x": {"data": [value], "descriptor": {"shape": [1], "dataType": dtype}}},
            "operators": [{"name": "identity", "arguments": [{"input": "x"}], "outputs": "y"}],
        },
    }
    err = load_one(tmp_path, case)
    assert isinstance(err, CaseError) and "inputs.x.data" in str(err)
