"""The registry of output kinds (harness/outputs/kinds.py): one entry per kind, and every command that
decides a folder's kind asks it."""
from __future__ import annotations

import json
from importlib import resources

import pytest

from webnn_harness.outputs.kinds import (ARCHIVED_KINDS, KINDS, discover_outputs, folder_kind_by_files, holds,
                                         read_probe_files, probe_header)
from webnn_harness.files.reading import ReadError
from webnn_harness.outputs.writing import OwnedFolder, kind_of


def test_every_schema_a_kind_names_exists():
    for kind in KINDS.values():
        for file, schema in kind.schemas.items():
            assert file in kind.files, (kind.name, file)
            assert resources.files("webnn_harness").joinpath(f"schema/{schema}.schema.json").is_file(), schema


def test_archived_kinds_have_a_header_and_the_folder_kinds_a_reader():
    assert ARCHIVED_KINDS == ("run", "bench", "fuzz", "probe")
    assert all(KINDS[k].header for k in ARCHIVED_KINDS)
    assert all(KINDS[k].read and KINDS[k].header for k in ("run", "bench", "fuzz", "accuracy"))  # a probe: by its files


@pytest.mark.parametrize("kind", ["run", "bench", "fuzz", "accuracy"])
def test_a_folder_is_told_by_its_marker_and_owned_with_its_files(tmp_path, kind):
    (tmp_path / KINDS[kind].marker).mkdir() if kind == "fuzz" else (tmp_path / KINDS[kind].marker).write_text("")
    assert folder_kind_by_files(tmp_path) == (kind, KINDS[kind].marker)
    assert kind_of(tmp_path) == (kind, KINDS[kind].marker)
    assert OwnedFolder(tmp_path, kind=kind).files == KINDS[kind].files
    assert holds(tmp_path, "bench") == (kind == "bench")


def test_a_probe_folder_is_told_by_its_evidence_file(tmp_path):
    (tmp_path / "x-probe.json").write_text("{}")
    assert kind_of(tmp_path) == ("probe", "x-probe.json")


def test_outputs_are_discovered_by_kind_and_a_folder_of_none_is_refused(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "bench.jsonl").write_text("")
    (tmp_path / "b" / "summary.json").write_text("{}")
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "ort-opSupportLimits.json").write_text("{}")
    found = discover_outputs([tmp_path])
    assert found.benches == [tmp_path / "b"] and found.probe_stems == [str(tmp_path / "p" / "ort")]
    (tmp_path / "empty").mkdir()
    with pytest.raises(ReadError, match="no run results"):
        discover_outputs([tmp_path / "empty"])


def test_a_probe_header_names_its_backend_or_its_file(tmp_path):
    probe = tmp_path / "ort-probe.json"
    probe.write_text(json.dumps({"header": {"backend": {"name": "onnxruntime", "version": "1.2", "device": "cpu"},
                                            "date": "2026-01-02T03:04:05+00:00", "harnessVersion": "0.1.0"}}))
    header = probe_header(read_probe_files(str(tmp_path / "ort"), None, None, probe))
    assert header.backends == ({"name": "onnxruntime", "version": "1.2", "device": "cpu"},)
    assert (header.date, header.label, header.harness_version) == ("2026-01-02T03:04:05+00:00", "ort", "0.1.0")
    limits = tmp_path / "bare-opSupportLimits.json"
    limits.write_text("[1]")
    with pytest.raises(ReadError, match="expected a JSON object"):
        read_probe_files(str(tmp_path / "bare"), limits, None, None)


def test_an_accuracy_folder_is_read_with_its_header(tmp_path):
    line = {"op": "matmul", "dataType": "float32", "dataSet": "0", "shape": "2x2", "k": 2, "ksb": 2,
            "compliant": True, "backend": {"name": "reference", "version": "0.1.0", "device": "cpu"}}
    (tmp_path / "accuracy.jsonl").write_text(json.dumps(line) + "\n{not json\n")
    (tmp_path / "summary.json").write_text(json.dumps({"kind": "accuracy", "date": "2026-01-02", "harnessVersion": "0.1.0"}))
    folder = KINDS["accuracy"].read(tmp_path)
    assert [c.op for _, c in folder.cases] == ["matmul"] and "line 2: not valid JSON" in folder.warnings[0]
    header = KINDS["accuracy"].header(folder)
    assert header.backends == (line["backend"],) and (header.date, header.harness_version) == ("2026-01-02", "0.1.0")
