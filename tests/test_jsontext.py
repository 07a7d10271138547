"""readable_json: the same JSON as json.dumps, laid out one member or item per line."""
from __future__ import annotations

import json

import pytest

from webnn_harness.outputs.jsontext import readable_json

DOCS = [
    {},
    [],
    {"a": [], "b": {}, "c": [1, 2.5, "x", None, True]},
    {"combinations": [{"id": "relu/1", "shape": [2, 3], "nested": {"k": [1]}}, {"id": "relu/2"}], "n": 2},
    [[1, 2], [3, [4, {"x": "é"}]], 5],
    {7: "int key", True: "bool key", None: "null key", 2.5: "float key"},
    {"deep": {"deeper": {"deepest": [{"a": 1}, [2]]}}},
    ("tuple", {"in": ("a", "tuple")}),
    "a string",
    3,
]


@pytest.mark.parametrize("doc", DOCS)
def test_reads_back_as_json_dumps_does(doc):
    assert json.loads(readable_json(doc)) == json.loads(json.dumps(doc))


def test_default_converts_what_json_cannot():
    from pathlib import PurePosixPath

    doc = {"path": PurePosixPath("a/b"), "list": [{"p": PurePosixPath("c")}]}
    assert json.loads(readable_json(doc, default=str)) == {"path": "a/b", "list": [{"p": "c"}]}
    with pytest.raises(TypeError):
        readable_json(doc)


def test_one_member_or_item_per_line():
    text = readable_json({"combinations": [{"id": 1}, {"id": 2}], "ranks": [1, 2, 3]})
    assert text.splitlines() == ['{', ' "combinations": [', '  {"id": 1},', '  {"id": 2}', ' ],', ' "ranks": [1, 2, 3]', '}']
