"""Stable case identities: corpus + path inside it + case name, wherever the corpus lives."""
import json
import shutil

import pytest

from webnn_harness.loading.caseid import id_matches_file, split_case_id
from webnn_harness.loading.cases import Case, bundled_corpus, find_case_files, load_cases
from webnn_harness.verdict.record import Record

RELU = {"name": "relu a", "graph": {
    "inputs": {"x": {"data": [1, -1], "descriptor": {"shape": [2], "dataType": "float32"}}},
    "operators": [{"name": "relu", "arguments": [{"input": "x"}], "outputs": "y"}]}}


def corpus(root, name="wpt"):
    folder = root / name
    (folder / "sub").mkdir(parents=True)
    (folder / "relu.json").write_text(json.dumps({"tests": [RELU]}))
    (folder / "sub" / "deep.json").write_text(json.dumps([RELU]))
    return folder


def test_id_is_corpus_folder_plus_path_inside_it_wherever_it_lives(tmp_path):
    here = corpus(tmp_path / "a")
    there = shutil.copytree(here, tmp_path / "elsewhere" / "deeper" / "wpt")
    ids_here = [c.id for c in load_cases([here])]
    assert ids_here == ["wpt/relu.json::relu a", "wpt/sub/deep.json::relu a"]
    assert [c.id for c in load_cases([there])] == ids_here
    # a single file is named by the folder it sits in, as when its folder is given
    (single,) = load_cases([there / "relu.json"])
    assert single.id == "wpt/relu.json::relu a" and single.path == str(there / "relu.json")


def test_bundled_corpus_is_cases_however_it_is_reached(tmp_path, monkeypatch):
    ids = {f.id for f in find_case_files([bundled_corpus()])}
    assert "cases/elementwise/relu.json" in ids
    assert all(i.startswith("cases/") for i in ids)
    one = bundled_corpus() / "elementwise" / "relu.json"
    monkeypatch.chdir(tmp_path)  # a relative path from elsewhere names the same file
    assert {c.file for c in load_cases([one])} == {"cases/elementwise/relu.json"}


def test_two_corpora_with_one_name_are_refused_and_one_file_is_loaded_once(tmp_path):
    a, b = corpus(tmp_path / "a"), corpus(tmp_path / "b")
    with pytest.raises(ValueError, match="same case id wpt/relu.json"):
        find_case_files([a, b])
    assert len(find_case_files([a, a / "relu.json"])) == 2


def test_records_carry_the_id_and_old_records_get_one():
    r = Record(file="wpt/relu.json", case="relu a", ops=("relu",), data_types=("float32",), backend={},
               status="pass", required=True)
    d = r.to_json()
    assert d["id"] == "wpt/relu.json::relu a" and d["file"] == "wpt/relu.json"
    assert Record.from_json(d) == r
    old = {k: v for k, v in d.items() if k != "id"}
    for path, fid in [(".venv/lib/python3.11/site-packages/cases/elementwise/relu.json", "cases/elementwise/relu.json"),
                      ("/x/site-packages/webnn_harness/corpus/elementwise/relu.json", "cases/elementwise/relu.json"),
                      ("/work/shared/wpt/relu.json", "wpt/relu.json"), ("../shared/wpt/relu.json", "wpt/relu.json")]:
        assert Record.from_json({**old, "file": path}).id == f"{fid}::relu a"


def test_file_patterns_match_on_folder_boundaries():
    assert id_matches_file("relu.json", "wpt/relu.json")
    assert id_matches_file("elementwise/relu.json", "cases/elementwise/relu.json")
    assert not id_matches_file("elu.json", "wpt/relu.json")
    assert not id_matches_file("elementwise/relu.json", "wpt/relu.json")
    assert split_case_id("wpt/a.json::x::y") == ("wpt/a.json", "x::y")
    assert split_case_id("wpt/a.json") == ("wpt/a.json", "")


def test_loaded_cases_are_cases():
    assert all(isinstance(c, Case) for c in load_cases([bundled_corpus() / "elementwise" / "relu.json"]))
