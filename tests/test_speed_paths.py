"""The fast paths give the same answers as the slow ones: schema check,
one-value tensors, bit-identical judging, batch compute, the reference cache."""
from __future__ import annotations

import importlib
import json
import pickle
from multiprocessing.reduction import ForkingPickler

import numpy as np
from batchcheck import assert_batch_equals_alone
import pytest

from webnn_harness.verdict import reference_cache as refcache
from webnn_harness.backends.reference.evaluate import evaluate
from webnn_harness.loading.cases import Case, _is_valid_case, _validator, bundled_corpus, load_cases, load_file
from webnn_harness.verdict.comparison import compare
from webnn_harness.spec.uniform import is_uniform, register_pickling
from webnn_harness.spec.values import to_array


def _case(name, inputs, operators, expected=None):
    graph = {"inputs": inputs, "operators": operators}
    if expected is not None:
        graph["expectedOutputs"] = expected
    return {"name": name, "graph": graph}


def _tensor(data, shape, data_type="float32", constant=False):
    t = {"data": data, "descriptor": {"shape": shape, "dataType": data_type}}
    return {**t, "constant": True} if constant else t


ADD_UNIFORM = _case("add uniform", {"a": _tensor(1.5, [64, 64], constant=True), "b": _tensor(2.25, [64, 64])},
                    [{"name": "add", "arguments": [{"a": "a"}, {"b": "b"}], "outputs": "out"}])


def test_fast_schema_check_agrees_with_jsonschema_on_the_corpus_and_on_broken_cases():
    raws = []
    for path in sorted(bundled_corpus().rglob("*.json"))[:40]:
        doc = json.loads(path.read_text())
        raws += doc["tests"] if isinstance(doc, dict) else doc
    broken = [{"name": "x"}, {"name": "", "graph": {}}, _case("t", {"a": {"descriptor": {"dataType": "bf16", "shape": [1]}}},
                                                             [{"name": "relu", "arguments": [], "outputs": "o"}])]
    for raw in raws + broken:
        assert _is_valid_case()(raw) == _validator().is_valid(raw)
    assert not any(_is_valid_case()(raw) for raw in broken)


def test_scalar_data_is_a_read_only_uniform_view_that_pickles_as_one_value():
    array = to_array(3.0, [1000, 1000], "float16")
    assert is_uniform(array) and not array.flags.writeable and array.dtype == np.float16
    register_pickling()
    data = ForkingPickler.dumps(array)
    assert len(data) < 1000
    back = pickle.loads(data)
    assert back.shape == (1000, 1000) and np.array_equal(back, np.full((1000, 1000), 3.0, np.float16))


@pytest.mark.parametrize("op,args", [("add", {}), ("pow", {}), ("div", {}), ("max", {}),
                                     ("clamp", {"options": {"minValue": 2.0, "maxValue": 3.0}}),
                                     ("cast", {"type": "int8"})])
def test_elementwise_reference_on_uniform_operands_equals_the_full_computation(tmp_path, op, args):
    binary = op in ("add", "pow", "div", "max")
    arguments = [{"a": "a"}, {"b": "b"}] if binary else [{"input": "a"}]
    arguments += [{k: v} for k, v in args.items()]
    raw = _case(op, {"a": _tensor(1.75, [40, 50]), "b": _tensor(-0.5, [50])}, [{"name": op, "arguments": arguments, "outputs": "o"}])
    if not binary:
        del raw["graph"]["inputs"]["b"]
    (tmp_path / "c.json").write_text(json.dumps([raw]))
    (case,) = load_file(tmp_path / "c.json")
    assert isinstance(case, Case) and all(is_uniform(v) for v in case.inputs.values())
    fast = evaluate(case.graph, case.inputs)["o"]
    full = evaluate(case.graph, {k: np.array(v) for k, v in case.inputs.items()})["o"]
    assert is_uniform(fast.values)
    assert fast.values.dtype == full.values.dtype and np.array_equal(fast.values, full.values)


def test_bit_identical_shortcut_gives_the_same_comparison(monkeypatch):
    from webnn_harness.verdict import comparison as compare_module

    expected = np.broadcast_to(np.float32(166.5771942138672), (300, 300))
    actual = np.full((300, 300), np.float32(166.5771942138672))
    undefined = np.zeros((300, 300), bool)
    undefined[3, 4] = True
    fast = compare(expected, actual, "float32", "ULP", 1.0, undefined)
    monkeypatch.setattr(compare_module, "BIT_EQUAL_SHORTCUT", 1 << 40)
    assert compare(expected, actual, "float32", "ULP", 1.0, undefined) == fast
    actual[7, 7] = np.nextafter(actual[7, 7], np.float32(0))  # one element off: the full path judges it
    slow = compare(expected, actual, "float32", "ULP", 0.0)
    assert (slow.passed, slow.max_error, slow.worst_index) == (False, 1.0, (7, 7))


def _backend_batch_equals_one_by_one(name, raws, tmp_path):
    from webnn_harness import backends
    from webnn_harness.backends.base import build_batch, compute_batch

    (tmp_path / "b.json").write_text(json.dumps(raws))
    cases = [c for c in load_file(tmp_path / "b.json") if isinstance(c, Case)]
    backend = backends.create(name, {})
    built = build_batch(backend, [c.graph for c in cases])
    computed = compute_batch(backend, built, [c.inputs for c in cases])
    assert_batch_equals_alone(backend, cases, built, computed)
    return built, computed


def _mixed_batch():
    relu = [_case(f"relu {i}", {"x": _tensor([-1.0, float(i), 2.5], [3])},
                  [{"name": "relu", "arguments": [{"input": "x"}], "outputs": "y"}]) for i in range(5)]
    int_div_by_zero = _case("div int32 by zero", {"a": _tensor([1, 2], [2], "int32"), "b": _tensor([0, 1], [2], "int32")},
                            [{"name": "div", "arguments": [{"a": "a"}, {"b": "b"}], "outputs": "y"}])
    trilu_int8 = _case("triangular int8", {"x": _tensor([1, 2, 3, 4], [2, 2], "int8")},
                       [{"name": "triangular", "arguments": [{"input": "x"}], "outputs": "y"}])
    return relu[:2] + [int_div_by_zero] + relu[2:4] + [trilu_int8] + relu[4:]


def test_onnxruntime_merged_sessions_give_what_sessions_of_their_own_give(tmp_path):
    pytest.importorskip("onnxruntime")
    built, computed = _backend_batch_equals_one_by_one("onnxruntime", _mixed_batch(), tmp_path)
    # The batch really had a graph ORT refuses and one whose compute fails.
    assert any(isinstance(b, BaseException) for b in built)
    assert any(isinstance(c, BaseException) for c in computed)


def test_onnxruntime_large_uniform_constant_is_handed_to_the_session_not_copied_into_the_model():
    """A 1 MiB+ one-value constant is an external initializer naming its
    value (backends/onnxruntime/emitter.py); the session computes what the
    model with every byte in it computes, and ``lower`` (saved by bench)
    still holds every byte."""
    pytest.importorskip("onnxruntime")
    from webnn_harness import backends
    from webnn_harness.loading.cases import load_case

    raw = _case("add large uniform", {"a": _tensor(-1.5, [512, 600], constant=True), "b": _tensor(2.25, [512, 600])},
                [{"name": "add", "arguments": [{"a": "a"}, {"b": "b"}], "outputs": "out"}])
    case = load_case(raw, "t.json", 0)
    backend = backends.create("onnxruntime", {})
    compiled = backend.build(case.graph)
    lowered = backend.lower(case.graph, external_uniform=True)
    assert lowered.ByteSize() < 1000 and lowered.graph.initializer[0].data_location == 1  # EXTERNAL
    full = backend.lower(case.graph)
    assert full.graph.initializer[0].raw_data and full.ByteSize() > 512 * 600 * 4
    alone = backend.session(full).run(None, {"b": np.ascontiguousarray(case.inputs["b"])})[0]
    out = backend.compute(compiled, case.inputs)["out"]
    assert out.dtype == np.float32 and np.array_equal(out, alone) and np.all(out == np.float32(0.75))


def test_openvino_batch_compute_gives_what_compute_gives(tmp_path):
    pytest.importorskip("openvino")
    _backend_batch_equals_one_by_one("openvino", _mixed_batch(), tmp_path)


def test_reference_cache_round_trip_and_invalidation(tmp_path, monkeypatch):
    monkeypatch.setattr(refcache, "MIN_SECONDS_TO_KEEP", 0.0)
    corpus = tmp_path / "c.json"
    corpus.write_text(json.dumps([ADD_UNIFORM]))
    (case,) = load_file(corpus)
    folder = tmp_path / "cache"
    first = refcache.ReferenceCache(folder).outputs_for(case)
    (entry,) = folder.iterdir()
    again = refcache.ReferenceCache(folder)

    def not_again(*_):
        raise AssertionError("evaluated, not read from the cache")

    monkeypatch.setattr(importlib.import_module("webnn_harness.backends.reference.evaluate"), "evaluate", not_again)
    read = again.outputs_for(case)
    assert read is not first and np.array_equal(read["out"].values, first["out"].values)
    assert is_uniform(read["out"].values) and entry.stat().st_size < 1000
    # Any change of the file's content gives its cases a new key ...
    corpus.write_text(json.dumps([ADD_UNIFORM], indent=1))
    (edited,) = load_file(corpus)
    assert edited.source_key != case.source_key
    assert refcache.entry_key(edited.source_key) != refcache.entry_key(case.source_key)
    # ... and so does any change of the harness's code.
    key = refcache.entry_key(case.source_key)
    monkeypatch.setattr(refcache, "code_digest", lambda: "other code")
    assert refcache.entry_key(case.source_key) != key


def test_a_corrupt_entry_is_computed_again(tmp_path, monkeypatch):
    monkeypatch.setattr(refcache, "MIN_SECONDS_TO_KEEP", 0.0)
    (tmp_path / "c.json").write_text(json.dumps([ADD_UNIFORM]))
    (case,) = load_file(tmp_path / "c.json")
    folder = tmp_path / "cache"
    refcache.ReferenceCache(folder).outputs_for(case)
    (entry,) = folder.iterdir()
    entry.write_bytes(entry.read_bytes()[:40])
    out = refcache.ReferenceCache(folder).outputs_for(case)["out"].values
    assert np.array_equal(out, np.full((64, 64), 3.75, np.float32))


def test_run_writes_the_cache_under_xdg_and_not_with_no_cache(tmp_path, monkeypatch):
    from webnn_harness.cli import main

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert refcache.default_folder() == tmp_path / "xdg" / "webnn-harness" / "reference"
    # Slow enough to be kept (a 400x400 float64 matmul takes milliseconds).
    slow = _case("matmul 400", {"a": _tensor({"generate": {"distribution": "normal"}}, [400, 400]),
                                "b": _tensor({"generate": {"distribution": "normal"}}, [400, 400])},
                 [{"name": "matmul", "arguments": [{"a": "a"}, {"b": "b"}], "outputs": "o"}])
    (tmp_path / "c.json").write_text(json.dumps([slow]))
    args = ["run", "-b", "reference", "--cases", str(tmp_path / "c.json"), "-q", "--workers", "1"]
    assert main([*args, "--out", str(tmp_path / "a"), "--no-cache"]) == 0
    assert not (tmp_path / "xdg").exists()
    assert main([*args, "--out", str(tmp_path / "b")]) == 0
    assert len(list(refcache.default_folder().glob("*.ref"))) == 1
    statuses = [json.loads(line)["status"] for line in (tmp_path / "b" / "results.jsonl").read_text().splitlines()]
    assert statuses == ["pass"]


def test_bundled_corpus_cases_carry_source_keys():
    loaded = load_cases([bundled_corpus() / "elementwise"])
    keys = [c.source_key for c in loaded if isinstance(c, Case)]
    assert keys and all(keys) and len(set(keys)) == len(keys)


@pytest.mark.parametrize("data_type", ["float32", "float16", "int8", "uint8", "int32", "uint32", "int64", "uint64"])
@pytest.mark.parametrize("data", [[1, 2.5, -0.0], [0, 127, 128, 255, 256, -1], [2**53 + 1, -(2**63)], [2**63, 2**64 - 1],
                                  [2**64], [True, 1], [1e300, -1e300], []])
def test_plain_number_lists_decode_in_one_call_as_value_by_value(monkeypatch, data_type, data):
    """values._plain_numbers gives the value-by-value decoding's array, bit
    for bit, or leaves the list to it (and so to its error message)."""
    from webnn_harness.spec import values

    def decoded(fast: bool):
        if not fast:
            monkeypatch.setattr(values, "_plain_numbers", lambda *a: None)
        try:
            array = values.to_array(data, [len(data)], data_type)
            return array.dtype.name, array.tobytes()
        except values.TensorValueError as exc:
            return str(exc)
        finally:
            monkeypatch.undo()

    assert decoded(True) == decoded(False)


def test_worker_batches_follow_the_backends_preference_unless_the_run_sets_one():
    from webnn_harness.backends.base import DEFAULT_BATCH_SIZE, preferred_batch_size
    from webnn_harness.execution.pool import RunOptions, batches

    cases = list(range(130))
    asks_64 = {"settings": {"preferred_batch_size": 64}}
    assert [len(b) for b in batches(cases, RunOptions(), asks_64)] == [64, 64, 2]
    assert [len(b) for b in batches(cases, RunOptions(batch_size=100), asks_64)] == [100, 30]
    assert preferred_batch_size({"settings": {}}) == DEFAULT_BATCH_SIZE
    for bad in (0, -3, "64", True, 2.5):
        assert preferred_batch_size({"settings": {"preferred_batch_size": bad}}) == DEFAULT_BATCH_SIZE


def test_a_record_says_the_next_case_has_started_so_a_crash_after_it_blames_that_case():
    """One message per case (worker.batch_events): after ("record", i) the
    slot's current case is i + 1, running since then; the last record leaves
    the slot on its case until "done"."""
    from collections import deque
    from types import SimpleNamespace

    from webnn_harness import backends
    from webnn_harness.loading.cases import load_case
    from webnn_harness.execution.pool import advance, requeue_lost
    from webnn_harness.execution.worker import batch_events

    cases = [load_case(ADD_UNIFORM, "c.json", k) for k in range(3)]
    events = list(batch_events(backends.create("reference", {}), {}, 7, cases))
    assert [e[0] for e in events] == ["building", "start", "record", "record", "record", "done"]
    slot = SimpleNamespace(phase="building", batch=["a", "b", "c"], current=-1, done=set(), since=0.0)
    for event in events[:3]:  # building, start 0, record 0
        advance(slot, event)
    assert (slot.phase, slot.current, slot.done) == ("running", 1, {0}) and slot.since > 0
    queue: deque = deque()
    assert requeue_lost(queue, slot.batch, slot.phase, slot.current, slot.done) == "b"
    assert list(queue) == [["c"]]
    for event in events[3:5]:
        advance(slot, event)
    assert (slot.current, slot.done) == (2, {0, 1, 2})
    advance(slot, events[5])
    assert slot.phase == "idle" and slot.batch is None
