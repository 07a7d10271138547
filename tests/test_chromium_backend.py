"""The chromium backend: graphs to the page and back (no browser), installing
a package from a fake npm (no network), and, where a browser is installed
(``webnn-harness browsers install``; CI installs it), a few cases on the real
browser: passes, the browser's refusals classified, a crash isolated to its
case with the rest going on, and the context's declared table."""
from __future__ import annotations

import io
import json
import os
import shutil
import stat
import subprocess
import tarfile
import types
from pathlib import Path

import numpy as np
import pytest

from webnn_harness.backends.base import BackendError, BackendInfo
from webnn_harness.backends.chromium import install
from webnn_harness.backends.chromium.payload import (decode_tensor, encode_tensor, encode_value, node_call,
                                                     tensor_bytes, tensor_from_bytes)
from webnn_harness.spec.builder import build_graph
from webnn_harness.spec.graph import TensorDesc


def graph(inputs: dict, calls: list, constants=None):
    descs = {name: TensorDesc(tuple(shape), data_type) for name, (shape, data_type) in inputs.items()}
    return build_graph(descs, constants or {}, calls, None)


# ---- the page's JSON ---------------------------------------------------------

def test_int4_packs_two_a_byte_low_nibble_first_and_back():
    values = np.array([-8, 7, -1, 3, 5], dtype=np.int8)
    packed = tensor_bytes(values, "int4")
    assert packed == bytes([0x78, 0x3F, 0x05])
    assert tensor_from_bytes(packed, "int4", (5,)).astype(int).tolist() == values.tolist()


def test_a_uniform_tensor_crosses_as_one_element_both_ways():
    big = np.broadcast_to(np.float32(2.5), (64, 64))
    encoded = encode_tensor(big, "float32")
    assert set(encoded) == {"fill"}
    back = decode_tensor(encoded, "float32", (64, 64))
    assert back.shape == (64, 64) and back.dtype == np.float32 and float(back[3, 7]) == 2.5


def test_numbers_json_cannot_hold_are_tagged():
    assert encode_value([float("nan"), float("-inf"), 2 ** 60, 3]) == [
        {"$number": "NaN"}, {"$number": "-Infinity"}, {"$bigint": str(2 ** 60)}, 3]


def test_a_call_has_the_signature_s_arguments_and_the_options_with_operands_as_references():
    g = graph({"x": ([1, 2, 3, 3], "float32"), "w": ([2, 2, 1, 1], "float32")},
              [{"name": "conv2d", "arguments": [{"input": "x"}, {"filter": "w"}, {"options": {"groups": 1}}],
                "outputs": "y"}])
    call = node_call(g.nodes[0])
    assert call["args"] == [{"$operand": "x"}, {"$operand": "w"}]
    assert call["options"]["groups"] == 1 and "bias" not in call["options"]


# ---- installing ----------------------------------------------------------------

node = pytest.mark.skipif(shutil.which("node") is None, reason="installing needs Node.js (node) on PATH")


def _brotli(data: bytes, path: Path) -> None:
    script = "const z=require('zlib'),f=require('fs');f.writeFileSync(process.argv[2],z.brotliCompressSync(f.readFileSync(process.argv[1])))"
    raw = path.with_suffix(".raw")
    raw.write_bytes(data)
    subprocess.run(["node", "-e", script, str(raw), str(path)], check=True)
    raw.unlink()


def _tar(members: dict[str, bytes], gz: bool = False) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz" if gz else "w") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o755
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


def _fake_package(folder: Path, version: str, swiftshader: dict[str, bytes] | None = None) -> Path:
    """A small tarball shaped like @sparticuz/chromium: a script as the browser."""
    work = folder / "parts"
    work.mkdir(parents=True, exist_ok=True)
    _brotli(b"#!/bin/sh\necho Chromium 153.0.8010.0\n", work / "chromium.br")
    _brotli(_tar(swiftshader or {"libEGL.so": b"egl", "vk_swiftshader_icd.json": b"{}"}), work / "swiftshader.tar.br")
    tgz = folder / f"sparticuz-chromium-{version}.tgz"
    tgz.write_bytes(_tar({"package/package.json": json.dumps({"version": version}).encode(),
                          "package/bin/chromium.br": (work / "chromium.br").read_bytes(),
                          "package/bin/swiftshader.tar.br": (work / "swiftshader.tar.br").read_bytes()}, gz=True))
    return tgz


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "webnn-harness" / "browsers"


@node
def test_install_fetches_with_npm_unpacks_lists_and_resolves(tmp_path, cache, monkeypatch):
    tgz = _fake_package(tmp_path / "registry", "153.0.0")
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    npm = fake_bin / "npm"  # npm pack: the tarball into the working folder, its name as JSON
    npm.write_text(f"#!/bin/sh\ncp {tgz} .\necho '[{{\"filename\": \"{tgz.name}\"}}]'\n")
    npm.chmod(npm.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{fake_bin}{os.pathsep}{os.environ['PATH']}")
    browser = install.install("153")
    assert browser.version == "153.0.0" and browser.folder == cache / "153.0.0"
    assert os.access(browser.executable, os.X_OK) and (browser.folder / "libEGL.so").read_bytes() == b"egl"
    assert [(b.version, b.size_bytes > 0) for b in install.installed()] == [("153.0.0", True)]
    assert install.resolve("153").folder == install.resolve(None).folder == install.resolve("153.0.0").folder
    with pytest.raises(install.InstallError, match="browsers install 149"):
        install.resolve("149")
    assert not [p for p in cache.iterdir() if p.name.startswith(".")]  # no staging folder left


def test_a_cache_it_cannot_write_is_said_before_npm_fetches_anything(tmp_path, cache, monkeypatch):
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    asked = tmp_path / "npm-was-asked"
    npm = fake_bin / "npm"
    npm.write_text(f"#!/bin/sh\ntouch {asked}\nexit 1\n")
    npm.chmod(npm.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{fake_bin}{os.pathsep}{os.environ['PATH']}")
    cache.parent.mkdir(parents=True)
    cache.write_text("a file where the browsers folder goes")  # no folder can be made there (root or not)
    with pytest.raises(install.InstallError, match="cannot install a browser there"):
        install.install("153.0.0")
    assert not asked.exists()


@node
def test_an_archive_member_reaching_outside_is_refused_and_nothing_is_installed(tmp_path, cache):
    tgz = _fake_package(tmp_path, "153.0.0", swiftshader={"../../escape.so": b"x"})
    with pytest.raises(install.InstallError, match="refusing member"):
        install.install_tarball(tgz, "153.0.0")
    assert install.installed() == [] and not (tmp_path / "escape.so").exists()


def test_without_a_browser_the_backend_says_how_to_install_it(cache):
    from webnn_harness import backends

    with pytest.raises(BackendError, match="webnn-harness browsers install"):
        backends.create("chromium", {})


def test_browsers_list_says_when_none_is_installed(cache):
    from webnn_harness.commands.browsers import list_lines

    assert "webnn-harness browsers install" in list_lines()[0]


def test_a_milestone_names_its_newest_release_and_no_pre_release():
    published = ["135.0.0-next.3", "143.0.0", "143.0.10", "143.0.4", "147.0.2", "1430.0.0"]
    assert install.newest_of_milestone("143", published) == "143.0.10"
    assert install.newest_of_milestone("135", published) is None
    assert install.published_version("153.0.0") == "153.0.0"  # exact: npm is not asked
    with pytest.raises(install.InstallError, match="neither a package version"):
        install.published_version("latest")


@node
def test_browsers_install_of_milestones_asks_npm_once_each_and_installs_side_by_side(tmp_path, cache, monkeypatch,
                                                                                      capsys):
    from webnn_harness.cli import main

    registry = tmp_path / "registry"
    tarballs = {v: _fake_package(registry / v, v) for v in ("143.0.4", "147.0.2")}
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    npm = fake_bin / "npm"  # npm view: the versions; npm pack PACKAGE@V: V's tarball into the working folder
    npm.write_text("#!/bin/sh\n"
                   "if [ \"$1\" = view ]; then echo '[\"143.0.0\", \"143.0.4\", \"147.0.2\", \"149.0.0-next.1\"]'; exit 0; fi\n"
                   + "".join(f"case \"$2\" in *@{v}) cp {t} . ; echo '[{{\"filename\": \"{t.name}\"}}]';; esac\n"
                             for v, t in tarballs.items()))
    npm.chmod(npm.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{fake_bin}{os.pathsep}{os.environ['PATH']}")
    assert main(["browsers", "install", "143", "147"]) == 0
    assert [b.version for b in install.installed()] == ["143.0.4", "147.0.2"]
    assert main(["browsers", "install", "143", "149"]) == 1  # 143.0.4 is there; 149 has no release
    out, err = capsys.readouterr()
    assert "143.0.4 is installed" in out and "no release of milestone 149" in err
    main(["browsers", "list"])
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[:2]] == ["143.0.4", "147.0.2"] and " MB" in lines[0]
    assert lines[2].startswith("2 installed")
    from webnn_harness.backends.chromium import create

    assert create.facts.installed_variants() == ({"version": "143.0.4"}, {"version": "147.0.2"})


def test_backends_lists_a_row_per_installed_variant(monkeypatch, capsys):
    """A backend whose facts list installed variants is made once per variant (not a chromium case in harness/)."""
    import webnn_harness.backends as registry
    from webnn_harness.backends.base import BackendFacts
    from webnn_harness.cli import main

    made = []

    def versioned(options):
        made.append(dict(options))
        return types.SimpleNamespace(info=lambda: BackendInfo("multi", f"{options['version']}.0.1234.0", "cpu"))

    versioned.facts = BackendFacts(installed_variants=lambda: ({"version": "143"}, {"version": "153"}))
    # one of ours (webnn_harness.*): loaded in-process, where factory is patched
    monkeypatch.setattr(registry, "available", lambda: {"multi": "webnn_harness.backends.multi:create"})
    monkeypatch.setattr(registry, "factory", lambda name: versioned)
    assert main(["backends"]) == 0
    out = capsys.readouterr().out
    assert "143.0.1234.0" in out and "153.0.1234.0" in out and "(-o version=153)" in out
    assert made == [{"version": "143"}, {"version": "153"}]


# ---- the real browser ----------------------------------------------------------

real = pytest.mark.skipif(not install.installed() or shutil.which("node") is None,
                          reason="no Chromium installed for the chromium backend: "
                                 "run 'webnn-harness browsers install' (CI installs it)")


def _case(name, op, data_type, data):
    shape, arguments = [len(data)], [{"input": "x"}]
    return {"name": name, "graph": {
        "inputs": {"x": {"data": data, "descriptor": {"shape": shape, "dataType": data_type}}},
        "operators": [{"name": op, "arguments": arguments, "outputs": "y"}],
        "expectedOutputs": {"y": {"descriptor": {"shape": shape, "dataType": data_type}}}}}


# "The edge padding mode is not supported in tflite schema" (Chromium 143 to 153).
PAD_EDGE = {"name": "pad edge", "graph": {
    "inputs": {"x": {"data": [1, 2, 3, 4], "descriptor": {"shape": [2, 2], "dataType": "float32"}}},
    "operators": [{"name": "pad", "arguments": [{"input": "x"}, {"beginningPadding": [1, 1]},
                                                {"endingPadding": [1, 1]}, {"options": {"mode": "edge"}}],
                   "outputs": "y"}],
    "expectedOutputs": {"y": {"descriptor": {"shape": [4, 4], "dataType": "float32"}}}}}


def _run(tmp_path, tests, **options):
    from webnn_harness.api import BackendRequest, RunRequest, run
    from webnn_harness.execution.pool import RunOptions

    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "few.json").write_text(json.dumps({"tests": tests}))
    run(RunRequest((folder,), (BackendRequest("chromium", options),), tmp_path / "out",
                   options=RunOptions(workers=1, timeout=60)))
    records = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    return {r["case"]: r for r in records if "status" in r}


@real
def test_cases_pass_and_the_browser_s_refusals_are_unsupported_with_its_words(tmp_path):
    records = _run(tmp_path, [
        _case("relu", "relu", "float32", [-1.0, 2.0, "Infinity"]),
        PAD_EDGE,
        _case("abs int8", "abs", "int8", [-3, 4]),
        _case("sigmoid", "sigmoid", "float32", [0.0, 1.0]),
    ])
    assert records["relu"]["status"] == records["sigmoid"]["status"] == "pass"
    assert records["pad edge"]["status"] == "unsupported"
    assert records["pad edge"]["message"].startswith("build threw NotSupportedError: ")
    # A TypeError for a data type the context does not declare is its refusal, said so.
    assert records["abs int8"]["status"] == "unsupported"
    assert "builder.abs threw TypeError" in records["abs int8"]["message"]
    assert "outside the context's declared opSupportLimits()" in records["abs int8"]["message"]


@real
def test_a_crashed_browser_is_the_crash_of_its_case_and_the_others_go_on(tmp_path):
    records = _run(tmp_path, [_case("relu", "relu", "float32", [-1.0, 2.0]),
                              _case("sigmoid", "sigmoid", "float32", [0.0]),
                              _case("neg", "neg", "float32", [1.0, -2.0])], crash_on_op="sigmoid")
    assert {name: r["status"] for name, r in records.items()} == {"relu": "pass", "sigmoid": "crash", "neg": "pass"}


@real
def test_info_and_the_declared_table_name_the_browser_and_device(tmp_path):
    from webnn_harness import backends
    from webnn_harness.outputs.limits_file import read_limits_file
    from webnn_harness.probe.declared import backend_declared, write_declared

    backend = backends.create("chromium", {})
    info = backend.info()
    assert info.version.split(".")[0].isdigit() and info.settings["deviceType"] == "cpu"
    assert "--enable-features=WebMachineLearningNeuralNetwork" in info.settings["flags"]
    declared = backend_declared(backend)
    assert declared["$provenance"] == {"source": "MLContext.opSupportLimits()", "browser": "Chromium",
                                       "version": info.version, "deviceType": "cpu"}
    assert declared["preferredInputLayout"] in ("nchw", "nhwc") and "float32" in declared["relu"]["input"]["dataTypes"]
    path = write_declared(declared, tmp_path, "chromium")
    assert path.name == "chromium-opSupportLimits.declared.json"
    assert read_limits_file(path)["relu"] == declared["relu"]


@real
def test_a_large_input_is_fetched_by_the_page_and_comes_back_exact():
    from webnn_harness import backends
    from webnn_harness.backends.chromium.payload import LARGE_BYTES

    backend = backends.create("chromium", {})
    x = np.random.default_rng(1).standard_normal(LARGE_BYTES // 4 + 1000).astype(np.float32)
    g = graph({"x": ([x.size], "float32")}, [{"name": "relu", "arguments": [{"input": "x"}], "outputs": "y"}])
    assert np.array_equal(backend.compute(backend.build(g), {"x": x})["y"], np.maximum(x, 0))


@real
def test_probe_writes_the_context_s_declared_table_and_compares_with_it_without_a_file(tmp_path):
    from webnn_harness.execution.pool import RunOptions
    from webnn_harness.probe.driver import probe

    result = probe("chromium", {}, tmp_path, ops=["relu"], layout=False, byte_search=False,
                   run=RunOptions(workers=1, timeout=60, batch_size=64))
    declared = json.loads((tmp_path / "chromium-opSupportLimits.declared.json").read_text())
    assert declared["$provenance"]["deviceType"] == "cpu" and "relu" in declared
    assert result.evidence["compare"]["source"] == "chromium-opSupportLimits.declared.json"
    # relu's declared data types all work on the browser that declares them
    assert not [g for g in result.evidence["compare"]["declaredButBroken"] if g["op"] == "relu"]


@real
@pytest.mark.parametrize("options, problem", [({"device": "tpu"}, "device 'tpu'"), ({"threads": "2"}, "chromium: unknown option"),
                                              ({"version": "1"}, "browsers install 1"),
                                              ({"executable": "/nonexistent/chrome"}, "does not exist")])
def test_bad_options_are_one_line_backend_errors(options, problem):
    from webnn_harness import backends

    with pytest.raises(BackendError, match=problem):
        backends.create("chromium", options)


@real
def test_an_executable_runs_instead_of_a_package_and_info_says_which():
    from webnn_harness import backends

    path = install.resolve(None).executable
    info = backends.create("chromium", {"executable": str(path), "device": "gpu"}).info()
    assert info.settings["executable"] == str(path) and info.settings["package"] is None
    assert info.settings["deviceType"] == "gpu" and info.host_cpu is False
