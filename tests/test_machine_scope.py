"""The machine is part of the configuration (issue #47): CPU features read from /proc/cpuinfo's text,
the oneDNN ISA cap applied to them, and expectations scoped by ``cpu`` matched against synthetic
machines, so no test depends on the CPU it runs on."""
import json

import pytest

from webnn_harness.backends import facts
from webnn_harness.cpu import (
    MachineFacts, capped_features, isa_class, kernel_environment, machine_class, parse_cpuinfo_features,
)
from webnn_harness.verdict.expectations import CpuView, ExpectationSet, ExpectationsError, bundled_expectations, parse_expectations
from webnn_harness.outputs.expectations_update import update_expectations
from webnn_harness.verdict.record import Record
from webnn_harness.outputs.records import run_header

AVX2 = frozenset({"sse4_1", "sse4_2", "avx", "avx2", "fma", "f16c"})
AVX512 = AVX2 | {"avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd", "avx512_vnni", "avx512_bf16"}
X86_CPUINFO = "processor\t: 0\nmodel name\t: Some CPU\nflags\t\t: fpu sse4_1 avx avx2 fma avx512f avx512_bf16 amx_tile\n"
ARM_CPUINFO = "processor\t: 0\nFeatures\t: fp asimd asimdhp sve sve2 bf16 i8mm\nCPU implementer\t: 0x41\n"


def test_features_from_cpuinfo_keep_only_the_tracked_ones():
    assert parse_cpuinfo_features(X86_CPUINFO) == {"sse4_1", "avx", "avx2", "fma", "avx512f", "avx512_bf16",
                                                   "amx_tile"}
    assert parse_cpuinfo_features(ARM_CPUINFO) == {"asimd", "asimdhp", "sve", "sve2", "bf16", "i8mm"}
    assert parse_cpuinfo_features("no such lines") == frozenset()


@pytest.mark.parametrize("features,cls", [
    (AVX2, "AVX2"),
    (AVX512 - {"avx512_bf16"}, "AVX512_CORE_VNNI"),
    (AVX512, "AVX512_CORE_BF16"),  # no avx_vnni (AMD's AVX-512 parts): still above AVX2_VNNI
    (AVX512 | {"amx_tile", "amx_int8", "amx_bf16"}, "AVX10_1_512_AMX"),
    (frozenset({"asimd", "sve", "bf16"}), "ARM64+SVE+BF16"),
    (frozenset(), "unknown"),
])
def test_isa_class(features, cls):
    assert isa_class(features) == cls


def test_the_cap_removes_what_is_above_it_and_an_unknown_cap_removes_nothing():
    assert capped_features(AVX512, "AVX2") == AVX2
    assert capped_features(AVX512, "avx512_core") == AVX512 - {"avx512_vnni", "avx512_bf16"}
    assert capped_features(AVX512, "ALL") == AVX512
    assert capped_features(AVX512, "NO_SUCH_ISA") == AVX512  # oneDNN ignores a name it does not know
    assert capped_features(AVX512, None) == AVX512


def test_a_backend_sees_the_cap_only_if_it_declares_the_variable():
    machine = MachineFacts(AVX512, {"ONEDNN_MAX_CPU_ISA": "AVX2"})
    assert machine.kernel_features("ONEDNN_MAX_CPU_ISA") == AVX2
    assert machine.kernel_features(None) == AVX512
    assert MachineFacts(AVX512, {"DNNL_MAX_CPU_ISA": "AVX2"}).kernel_features("ONEDNN_MAX_CPU_ISA") == AVX2
    assert facts("openvino").isa_cap_variable == "ONEDNN_MAX_CPU_ISA"
    assert facts("litert").isa_cap_variable is None  # XNNPACK dispatches on CPUID


def test_header_records_features_class_and_kernel_settings(monkeypatch):
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "AVX2")
    machine = run_header()["machine"]
    assert machine["kernelEnvironment"]["ONEDNN_MAX_CPU_ISA"] == "AVX2"
    assert isinstance(machine["cpuFeatures"], list) and isinstance(machine["isaClass"], str)
    assert machine_class(machine).endswith("ONEDNN_MAX_CPU_ISA=AVX2")
    assert machine_class({}) == "unknown"  # an output written before features were recorded
    assert kernel_environment({"OMP_NUM_THREADS": "2", "PATH": "/bin"}) == {"OMP_NUM_THREADS": "2"}


def rec(case, status, message=""):
    return Record(file="cases/elementwise/gelu.json", case=case, ops=("gelu",), data_types=("float32",),
                  backend={"name": "acme", "version": "1.0"}, status=status, required=True, message=message)


SCOPED = [
    {"file": "gelu.json", "case": "on avx512", "reason": "avx512 kernel", "cpu": {"has": ["avx512f"]}},
    {"file": "gelu.json", "case": "without avx512", "reason": "avx2 kernel", "cpu": {"lacks": ["avx512f"]}},
    {"file": "gelu.json", "case": "capped", "reason": "capped crash", "status": ["crash"],
     "cpu": {"hardware": ["avx512f"], "lacks": ["avx512f"]}},
    {"file": "gelu.json", "case": "anywhere", "reason": "any machine"},
]
VIEWS = {  # the kernels' features, the CPU's own
    "avx2 machine": CpuView(AVX2, AVX2),
    "avx512 machine": CpuView(AVX512, AVX512),
    "avx512 machine capped to AVX2": CpuView(AVX2, AVX512),
}


@pytest.mark.parametrize("view,in_force", [
    ("avx2 machine", {"avx2 kernel", "any machine"}),
    ("avx512 machine", {"avx512 kernel", "any machine"}),
    ("avx512 machine capped to AVX2", {"avx2 kernel", "capped crash", "any machine"}),
])
def test_an_entry_is_in_force_only_where_its_cpu_holds(view, in_force):
    entries = parse_expectations(SCOPED, "acme/known_failures.json")
    assert {e.reason for e in entries if e.applies_to("1.0", {}, VIEWS[view])} == in_force
    # an unknown machine: no scoped entry is in force
    assert {e.reason for e in entries if e.applies_to("1.0", {}, None)} == {"any machine"}


def test_an_entry_not_in_force_here_is_neither_applied_nor_stale(monkeypatch, tmp_path):
    path = tmp_path / "x.json"
    path.write_text(json.dumps(SCOPED))
    capped = MachineFacts(AVX512, {"ONEDNN_MAX_CPU_ISA": "AVX2"})
    es = ExpectationSet.for_backend("openvino", "1.0", {}, [path], bundled=False, machine=capped,
                                    isa_cap_variable=facts("openvino").isa_cap_variable)
    assert es.apply(rec("without avx512", "fail")).known_failure == "avx2 kernel"
    assert es.apply(rec("on avx512", "fail")).known_failure is None  # the AVX-512 entry is not in force
    assert es.apply(rec("capped", "crash", "SIGSEGV")).known_failure == "capped crash"
    es.apply(rec("anywhere", "pass"))
    assert {e["case"]: e["outcome"] for e in es.report()} == {
        "without avx512": "applied", "capped": "applied", "anywhere": "stale"}  # "on avx512": not reported
    # the same file on litert (no cap variable): the machine's own AVX-512 kernels
    es = ExpectationSet.for_backend("litert", "1.0", {}, [path], bundled=False, machine=capped,
                                    isa_cap_variable=facts("litert").isa_cap_variable)
    assert {e.reason for e in es.entries} == {"avx512 kernel", "any machine"}


def test_update_keeps_an_entry_for_another_machine_as_it_was(tmp_path):
    previous = parse_expectations(SCOPED[:1], "x.json")
    counts = update_expectations(tmp_path / "x.json", [rec("on avx512", "pass")], previous, "1.0", {},
                                 CpuView(AVX2, AVX2))
    assert counts == {"kept": 1, "added": 0, "dropped": 0}  # its failure holds on AVX-512 machines, not here
    assert json.loads((tmp_path / "x.json").read_text()) == SCOPED[:1]


@pytest.mark.parametrize("cpu,field", [
    ({"has": ["avx512"]}, "avx512"),  # not /proc/cpuinfo's name (avx512f)
    ({}, "cpu"),
    ({"needs": ["avx2"]}, "cpu"),
])
def test_a_bad_cpu_scope_is_one_line_naming_the_entry(cpu, field):
    with pytest.raises(ExpectationsError, match=rf"x\.json.*\[0\].*{field}"):
        parse_expectations([{"case": "c", "reason": "r", "cpu": cpu}], "x.json")


@pytest.mark.parametrize("backend", ["openvino", "litert"])
def test_shipped_cpu_scopes_name_known_features_and_carry_evidence(backend):
    scoped = [e for e in bundled_expectations(backend) if e.cpu]
    assert scoped, "the machine-dependent entries of issue #47"
    assert all(e.evidence and e.versions for e in scoped)


def test_diff_tells_a_change_of_machine_from_a_change_of_version():
    from webnn_harness.outputs.run_diff import machine_changes

    base = {"cpu": "EPYC", **MachineFacts(AVX512, {}).to_json()}
    capped = {"cpu": "EPYC", **MachineFacts(AVX512, {"ONEDNN_MAX_CPU_ISA": "AVX2"}).to_json()}
    older = {"cpu": "Core", **MachineFacts(AVX2, {}).to_json()}
    assert machine_changes(base, base) == ()
    assert machine_changes(base, capped) == ("ONEDNN_MAX_CPU_ISA: (not set) -> AVX2",)
    changes = machine_changes(base, older)
    assert changes[:2] == ("cpu: EPYC -> Core", "isaClass: AVX512_CORE_BF16 -> AVX2")
    assert changes[2].startswith("cpuFeatures: -avx512_bf16")
    assert machine_changes({"cpu": "EPYC"}, older) == ("cpu: EPYC -> Core",)  # an older header: what both say


def test_archive_keeps_machine_classes_apart_and_splits_no_older_history():
    from webnn_harness.archive.store import machine_text, same_machine

    hardware = {"cpu": "EPYC", "cores": 2, "platform": "Linux"}
    native = machine_text({**hardware, **MachineFacts(AVX512, {}).to_json()})
    capped = machine_text({**hardware, **MachineFacts(AVX512, {"ONEDNN_MAX_CPU_ISA": "AVX2"}).to_json()})
    older = machine_text(hardware)  # archived before features were recorded
    assert native == "EPYC, 2 cores, Linux [AVX512_CORE_BF16]"
    assert capped == "EPYC, 2 cores, Linux [AVX512_CORE_BF16, ONEDNN_MAX_CPU_ISA=AVX2]"
    assert not same_machine(native, capped)
    assert same_machine(older, native) and same_machine(older, capped)
    assert not same_machine(older, machine_text({**hardware, "cpu": "Xeon"}))


def test_backends_declare_their_runtime_and_settings_in_their_facts():
    from webnn_harness.backends import recorded_facts

    assert facts("chromium").runtime == "litert"  # Chromium's WebNN on the CPU runs on LiteRT
    assert facts("openvino").thread_settings == ("inference_num_threads",)
    assert facts("onnxruntime").thread_settings == ("intra_op_threads",)
    assert recorded_facts("no-such-backend").thread_settings == ("threads",)  # the defaults


def test_capability_matrix_keeps_machines_apart_and_marks_where_they_disagree(tmp_path):
    from test_reports import limits_doc, probe_doc

    from webnn_harness.reports import build_model, build_site

    probe_dir = tmp_path / "probe"
    probe_dir.mkdir()
    machines = {"avx512": MachineFacts(AVX512, {}), "capped": MachineFacts(AVX512, {"ONEDNN_MAX_CPU_ISA": "AVX2"})}
    for stem, machine in machines.items():  # one version, two machine classes; conv2d float16 only on one
        doc = probe_doc("1.0")
        doc["header"]["machine"] = {"platform": "test", **machine.to_json()}
        (probe_dir / f"{stem}-opSupportLimits.json").write_text(json.dumps(limits_doc(drop_conv_f16=stem == "capped")))
        (probe_dir / f"{stem}-probe.json").write_text(json.dumps(doc))
    m = build_model([probe_dir])
    assert sorted(p.machine_class for p in m.probes) == ["AVX512_CORE_BF16", "AVX512_CORE_BF16, ONEDNN_MAX_CPU_ISA=AVX2"]
    assert {op for _, op in m.machines_disagree} == {"conv2d"}  # both columns marked, each naming the other class
    assert sorted(m.machines_disagree.values()) == sorted(p.machine_class for p in m.probes)
    assert m.changed == frozenset()  # one version: a machine's difference is no version change
    page = build_site([probe_dir], tmp_path / "site").read_text()  # the matrix is the index page
    assert "differs on another machine class" in page and "ONEDNN_MAX_CPU_ISA=AVX2" in page


def test_archive_changes_page_shows_where_two_machines_disagree(tmp_path, monkeypatch):
    from test_reports import rec as run_rec, write_run

    from webnn_harness.cli import main
    from webnn_harness.reports.archive import build_archive_model

    for variable in ("ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA"):  # native: whatever cap the suite runs under
        monkeypatch.delenv(variable, raising=False)
    native = write_run(tmp_path / "native", [run_rec("relu float32 1D"), run_rec("relu float32 2D", status="fail")],
                       "webnn-harness run --out native")
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "AVX2")  # the same CPU with the kernels capped: another class
    capped = write_run(tmp_path / "capped", [run_rec("relu float32 1D"), run_rec("relu float32 2D")],
                       "webnn-harness run --out capped")
    arch = tmp_path / "arch"
    assert main(["archive", "add", str(arch), str(native), str(capped)]) == 0
    (d,) = build_archive_model(arch).machine_disagreements
    assert [(c.id, c.base, c.new) for c in d.cases] == [("cases/elementwise/relu.json::relu float32 2D", "fail", "pass")]
    assert d.new_machine.endswith("ONEDNN_MAX_CPU_ISA=AVX2]") and not d.base_machine.endswith("AVX2]")  # classes sorted
    assert main(["report", "--archive", str(arch), "--out", str(tmp_path / "site")]) == 0
    page = (tmp_path / "site" / "changes.html").read_text()
    assert "Where machines disagree" in page and "relu float32 2D" in page
