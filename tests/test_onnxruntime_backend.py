"""Backend options, recorded settings, provider handling, known-failure data."""
from __future__ import annotations

import pytest

ort = pytest.importorskip("onnxruntime")

from webnn_harness import backends  # noqa: E402
from webnn_harness.backends.base import BackendError, Unsupported  # noqa: E402
from webnn_harness.backends.onnxruntime.opsets import loadable_opset  # noqa: E402
from webnn_harness.verdict.expectations import bundled_expectations  # noqa: E402
from webnn_harness.spec.graph import Graph, Node, TensorDesc  # noqa: E402


def test_info_records_version_provider_opset_level_threads():
    info = backends.create("onnxruntime", {}).info()
    assert "hostCpu" not in info.to_json() and "provider_options" not in info.settings
    assert info.version == ort.__version__
    s = info.settings
    assert s["provider"] == "CPUExecutionProvider"
    assert s["opset"] == loadable_opset()[0] >= 21
    assert s["graph_optimization_level"] == "all"
    assert s["intra_op_threads"] == 1


def test_options_are_applied():
    s = backends.create("onnxruntime", {"opt_level": "basic", "threads": "2", "opset": "21"}).info().settings
    assert (s["graph_optimization_level"], s["intra_op_threads"], s["opset"]) == ("basic", 2, 21)


@pytest.mark.parametrize("options", [{"bogus": "1"}, {"ep": "NoSuchExecutionProvider"}, {"threads": "0"},
                                     {"opt_level": "max"}, {"opset": "999"}, {"ep.no_such_option": "1"}])
def test_bad_options_are_backend_errors(options):
    with pytest.raises(BackendError):
        backends.create("onnxruntime", options)


def test_non_cpu_provider_never_falls_back_silently():
    # TensorRT is listed by onnxruntime-gpu even without its libraries: CUDA first.
    others = sorted((p for p in ort.get_available_providers() if p not in ("CPUExecutionProvider", "AzureExecutionProvider")),
                    key=lambda p: p != "CUDAExecutionProvider")
    if not others:
        pytest.skip("only the CPU provider is installed")
    info = backends.create("onnxruntime", {"ep": others[0]}).info()
    assert info.settings["cpu_fallback"] == "disabled"
    # What runs off the host CPU says so (the performance page draws no host roofline for it).
    assert info.to_json()["hostCpu"] is False and isinstance(info.settings["provider_options"], dict)


def test_a_provider_option_the_provider_does_not_read_is_a_usage_error():
    """ORT ignores a key its provider does not read: -o ep.KEY is refused
    then, never dropped silently."""
    with pytest.raises(BackendError, match="CPUExecutionProvider has no option arena"):
        backends.create("onnxruntime", {"ep.arena": "0"})


def test_provider_options_reach_the_provider_and_are_recorded():
    """-o ep.KEY=VALUE goes to the execution provider and the options in force are recorded."""
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        pytest.skip("the CUDA provider is not installed")
    info = backends.create("onnxruntime", {"ep": "CUDAExecutionProvider", "ep.use_tf32": "0"}).info()
    assert info.settings["provider_options"]["use_tf32"] == "0"
    assert info.device.startswith("CUDAExecutionProvider (")


def test_ort_build_error_is_unsupported_with_orts_message():
    # relu on int64: ONNX allows it, ORT 1.31's CPU provider has no kernel.
    graph = Graph(("x",), {}, (Node("relu", {"input": "x"}, {}, ("y",)),), ("y",),
                  {"x": TensorDesc((2,), "int64"), "y": TensorDesc((2,), "int64")})
    backend = backends.create("onnxruntime", {})
    try:
        backend.build(graph)
    except Unsupported as exc:
        assert "Relu" in str(exc)
    else:
        pytest.skip("this onnxruntime has an int64 Relu kernel")


def test_known_failures_entries_have_reasons():
    entries = bundled_expectations("onnxruntime")  # validated against the expectations schema
    assert entries
    for e in entries:
        assert e.reason and (e.case or e.match)
