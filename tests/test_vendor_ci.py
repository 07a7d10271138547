"""What a vendor's CI relies on: shards that merge into the single run, diff
against a baseline, JUnit from any run folder, expectations from the command
line, and no green run that tested nothing."""
import json
import os
import re
import shlex
from pathlib import Path
import xml.etree.ElementTree as ET

import pytest

from webnn_harness.cli import main
from webnn_harness.verdict.expectations import CASE_NOTES
from webnn_harness.outputs.run_diff import diff_runs, format_markdown
from webnn_harness.verdict.record import Record
from webnn_harness.outputs.records import ResultWriter
from webnn_harness.outputs.run_folder import read_records_whole
from webnn_harness.loading.selection import SelectionError, Shard


def relu_case(name, expected=(0, 2, 0, 4)):
    return {"name": name, "graph": {
        "inputs": {"x": {"data": [-1, 2, -3, 4], "descriptor": {"shape": [4], "dataType": "float32"}}},
        "operators": [{"name": "relu", "arguments": [{"input": "x"}], "outputs": "y"}],
        "expectedOutputs": {"y": {"data": list(expected), "descriptor": {"shape": [4], "dataType": "float32"}}}}}


@pytest.fixture
def corpus(tmp_path):
    """A corpus "vendorcases" of 7 cases in two files: one wrong expectation, one malformed case."""
    root = tmp_path / "vendorcases"
    (root / "act").mkdir(parents=True)
    (root / "act" / "relu.json").write_text(json.dumps({"tests": [
        relu_case("relu a"), relu_case("relu b"), relu_case("relu wrong", (0, 2, 0, 5)), {"name": "relu broken"}]}))
    (root / "more.json").write_text(json.dumps([relu_case("more a"), relu_case("more b"), relu_case("more c")]))
    return root


def run(tmp_path, out, *args):
    return main(["run", "-q", "--workers", "1", "-b", "reference", "--out", str(tmp_path / out), *args])


def comparable(folder):
    """A run folder with its timings and dates taken out."""
    records = sorted((json.dumps({k: v for k, v in r.to_json().items() if k not in ("buildSeconds", "computeSeconds")},
                                 sort_keys=True) for r in read_records_whole(folder / "results.jsonl").records))
    summary = json.loads((folder / "summary.json").read_text())
    for key in ("date", "seconds", "merged"):
        summary.pop(key, None)
    for b in summary["backends"]:
        b.pop("seconds")
        b.pop("loadingSeconds")  # a timing too: a shard loads while its workers run
    return records, summary


def test_shards_partition_by_id_and_merge_into_the_single_run(tmp_path, corpus, capsys):
    assert run(tmp_path, "single", "--cases", str(corpus)) == 1
    for i in (1, 2, 3):
        run(tmp_path, f"shard{i}", "--cases", str(corpus), "--shard", f"{i}/3")
    sizes = [len(read_records_whole(tmp_path / f"shard{i}" / "results.jsonl").records) for i in (1, 2, 3)]
    assert sorted(sizes) == [2, 2, 3]  # balanced: 7 records (6 cases and a load error)
    # the merged summary records the merge and every shard's command as run (issue 25: none loses --shard);
    # the rest is the single run's
    # exit 1 as the single run's: a CI job gating on the join gates on the results (issue 42)
    assert main(["merge", *(str(tmp_path / f"shard{i}") for i in (3, 1, 2)), "--out", str(tmp_path / "merged")]) == 1
    single, merged = comparable(tmp_path / "single"), comparable(tmp_path / "merged")
    assert merged[0] == single[0]
    assert merged[1].pop("command").startswith("webnn-harness merge ")
    shard_commands = merged[1].pop("shardCommands")
    assert [f"--shard {i}/3" in c for i, c in zip((1, 2, 3), shard_commands)] == [True] * 3
    def unsharded(command):
        return " ".join(re.sub(r"--out \S+|--shard \S+", "", command).split())
    assert unsharded(shard_commands[0]) == unsharded(single[1].pop("command"))
    assert merged[1] == single[1]
    assert json.loads((tmp_path / "merged" / "summary.json").read_text())["merged"] == ["1/3", "2/3", "3/3"]
    # the timings left out above: a backend's are the sum over its shards
    shards = [json.loads((tmp_path / f"shard{i}" / "summary.json").read_text())["backends"][0] for i in (1, 2, 3)]
    (joined,) = json.loads((tmp_path / "merged" / "summary.json").read_text())["backends"]
    for key in ("seconds", "loadingSeconds"):
        assert joined[key] == pytest.approx(sum(b[key] for b in shards), abs=0.002), key
    # merging again into a folder that holds a run, or an incomplete set, is refused
    capsys.readouterr()
    assert main(["merge", str(tmp_path / "shard1"), "--out", str(tmp_path / "merged")]) == 2
    assert main(["merge", str(tmp_path / "shard1"), str(tmp_path / "shard2"), "--out", str(tmp_path / "m2")]) == 2
    assert "shard 3/3 missing" in capsys.readouterr().err
    assert main(["merge", str(tmp_path / "single"), "--out", str(tmp_path / "m3")]) == 2


def test_merge_and_junit_exit_as_run_would_have_on_the_whole_run(tmp_path, corpus, capsys):
    """Shards that each exit 1 merge to exit 1, JUnit of the merged folder too; the same shards with
    their failures listed as expected exit 0 at every step (issue 42)."""
    for listed, code in ((False, 1), (True, 0)):
        exp = tmp_path / f"exp{listed}.json"
        exp.write_text(json.dumps([{"match": "wrong|broken", "reason": "known"}] if listed else []))
        shards = [tmp_path / f"s{listed}{i}" for i in (1, 2)]
        codes = [run(tmp_path, s.name, "--cases", str(corpus), "--shard", f"{i}/2", "--expectations", str(exp))
                 for i, s in zip((1, 2), shards)]
        assert code in codes and set(codes) <= {0, code}
        merged = tmp_path / f"m{listed}"
        assert main(["merge", *map(str, shards), "--out", str(merged)]) == code
        assert main(["junit", str(merged), "--out", str(tmp_path / f"j{listed}.xml")]) == code
        out = capsys.readouterr().out
        assert ("exit 1, as run's" in out) == (code == 1)


def test_shard_take_is_deterministic_disjoint_and_balanced():
    class Item:
        def __init__(self, i):
            self.id, self.index = f"c/f{i % 5}.json::case {i}", i
    items = [Item(i) for i in range(23)]
    parts = [Shard(i, 4).take(items) for i in (1, 2, 3, 4)]
    assert sorted(x.id for p in parts for x in p) == sorted(x.id for x in items)
    assert {len(p) for p in parts} == {5, 6}
    assert [x.id for x in Shard(2, 4).take(list(reversed(items)))] == [x.id for x in parts[1]]
    for bad in ("0/4", "5/4", "2", "a/b"):
        with pytest.raises(SelectionError):
            Shard.parse(bad)


def test_more_shards_than_cases_is_exit_2(tmp_path, corpus, capsys):
    assert run(tmp_path, "s", "--cases", str(corpus / "more.json"), "--shard", "4/4") == 2
    assert "--shard 4/4 selects nothing: the selection has only 3 cases" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()  # nothing written for a mistake


@pytest.mark.parametrize("args,message", [
    (["--op", "conv2D"], "--op conv2D: no such operator (did you mean conv2d?)"),
    (["--op", "reduce_sum"], "(did you mean reduceSum?)"),
    (["--filter", "no such name"], "no cases selected: no case under"),
    (["--filter", "relu ("], "--filter 'relu (': not a regular expression"),
    (["--id", "vendorcases/nope.json"], "no cases selected"),
])
def test_selections_that_test_nothing_are_exit_2(tmp_path, corpus, capsys, args, message):
    assert run(tmp_path, "o", "--cases", str(corpus), *args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_an_empty_folder_is_exit_2(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert run(tmp_path, "o", "--cases", str(tmp_path / "empty")) == 2
    assert "no case files under" in capsys.readouterr().err


def test_failing_required_cases_are_listed_with_rerun_commands(tmp_path, corpus, capsys):
    assert run(tmp_path, "r", "--cases", str(corpus)) == 1
    out = capsys.readouterr().out
    assert "2 required cases failed:" in out  # the wrong expectation and the malformed case
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines)
              if line.startswith("  fail    reference: vendorcases/act/relu.json::relu wrong - max ULP error"))
    cmd = lines[at + 1].strip()
    argv = shlex.split(cmd)
    assert argv[argv.index("--cases") + 1] == str(corpus)
    assert argv[argv.index("--id") + 1] == "vendorcases/act/relu.json::relu wrong"
    out_dir = argv[argv.index("--out") + 1]
    assert out_dir.startswith("out/rerun-reference-") and out_dir != str(tmp_path / "r")
    # the command runs exactly that case
    argv[argv.index("--out") + 1] = str(tmp_path / "rerun")
    assert main(argv[1:] + ["-q", "--workers", "1"]) == 1
    (only,) = read_records_whole(tmp_path / "rerun" / "results.jsonl").records
    assert only.id == "vendorcases/act/relu.json::relu wrong"


def test_expectations_from_the_command_line_and_update(tmp_path, corpus, capsys):
    exp = tmp_path / "acme-expectations.json"
    # the run is judged against the expectations it wrote: they list its failures, so it is green (issue 28)
    assert run(tmp_path, "r1", "--cases", str(corpus), "--update-expectations", str(exp)) == 0
    out = capsys.readouterr().out
    assert "expectations: " in out and "judged against the updated expectations: 0 required failures not listed" in out
    doc = json.loads(exp.read_text())
    assert {(e["file"], e["case"]) for e in doc} == {("vendorcases/act/relu.json", "relu wrong"),
                                                     ("vendorcases/act/relu.json", "relu broken")}
    # a stale and an unmatched entry beside them
    doc += [{"file": "more.json", "case": "more a", "reason": "was broken"},
            {"case": "typo", "reason": "never matches"}]
    exp.write_text(json.dumps(doc))
    # a backend named by module:factory path: outcomes are keyed by the name its info() gives
    assert main(["run", "-q", "--workers", "1", "-b", "webnn_harness.backends.reference:create", "--out",
                 str(tmp_path / "r2"), "--cases", str(corpus), "--expectations", str(exp)]) == 0
    err = capsys.readouterr().err
    assert 'stale expectation (its cases ran and passed): ' in err and '"more a"' in err
    assert 'expectation matched no case: ' in err and '"typo"' in err
    summary = json.loads((tmp_path / "r2" / "summary.json").read_text())
    given = [e for e in summary["expectations"]["reference"] if e["source"] != CASE_NOTES]  # WPT's case notes: every backend's
    assert [e["outcome"] for e in given] == ["applied", "applied", "stale", "unmatched"]
    # versions scope entries: the reference is 0.x, so ">=1" entries are not in force
    exp.write_text(json.dumps([{**e, "versions": ">=1"} for e in doc]))
    assert run(tmp_path, "r3", "--cases", str(corpus), "--expectations", str(exp)) == 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"case": "x"}]))
    assert run(tmp_path, "r4", "--cases", str(corpus), "--expectations", str(bad)) == 2
    assert "[0]: 'reason' is a required property" in capsys.readouterr().err


def test_junit_classnames_come_from_ids_with_backend_properties(tmp_path, corpus):
    assert run(tmp_path, "r", "--cases", str(corpus)) == 1
    assert main(["junit", str(tmp_path / "r"), "--out", str(tmp_path / "j.xml")]) == 1  # as run's (issue 42)
    root = ET.parse(tmp_path / "j.xml").getroot()
    suite = root.find("testsuite")
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["backend.name"] == "reference" and props["backend.version"] and props["backend.device"]
    assert props["label"] == "vendorcases"
    classes = {tc.get("classname") for tc in suite.iter("testcase")}
    assert classes == {"vendorcases.act.relu", "vendorcases.more"}
    failure = next(tc for tc in suite.iter("testcase") if tc.get("name") == "relu wrong").find("failure")
    assert ("re-run: webnn-harness run --backend reference --cases vendorcases "
            "--id 'vendorcases/act/relu.json::relu wrong' --out out/rerun-reference-") in failure.text
    assert str(tmp_path) not in (tmp_path / "j.xml").read_text()  # no local path in a CI artifact
    assert main(["junit", str(tmp_path / "nothing"), "--out", str(tmp_path / "x.xml")]) == 2


def rec(cid, status, backend="acme", version="1", known=None):
    file, _, case = cid.partition("::")
    return Record(file=file, case=case, ops=("relu",), data_types=("float32",),
                  backend={"name": backend, "version": version, "device": "cpu"}, status=status, required=True,
                  message=f"{status} message" if status != "pass" else "", known_failure=known)


def write_run(folder, records, label):
    w = ResultWriter(folder)
    for r in records:
        w.write(r)
    w.close()
    (folder / "summary.json").write_text(json.dumps({"label": label}))
    return folder


def test_diff_finds_regressions_fixes_new_and_removed_per_backend(tmp_path, capsys):
    base = write_run(tmp_path / "base", [
        rec("w/a.json::keeps passing", "pass"), rec("w/a.json::breaks", "pass"), rec("w/a.json::gets fixed", "fail"),
        rec("w/a.json::fail to crash", "fail"), rec("w/a.json::goes away", "pass"),
        rec("w/a.json::breaks", "pass", backend="other")], "main")
    new = write_run(tmp_path / "new", [
        rec("w/a.json::keeps passing", "pass", version="2"), rec("w/a.json::breaks", "fail", version="2", known="listed"),
        rec("w/a.json::gets fixed", "pass", version="2"), rec("w/a.json::fail to crash", "crash", version="2"),
        rec("w/a.json::new failing", "timeout", version="2"), rec("w/a.json::new unsupported", "unsupported", version="2"),
        rec("w/a.json::breaks", "pass", backend="other")], "pr-42")
    d = diff_runs(base, new)
    assert (d.base, d.new) == ("base (main)", "new (pr-42)")
    acme, other = d.backends
    assert [c.id for c in acme.regressions] == ["w/a.json::breaks", "w/a.json::new failing"]
    assert acme.regressions[0].known_failure == "listed"  # an expectation does not excuse a step back
    assert [c.id for c in acme.fixes] == ["w/a.json::gets fixed"]
    assert [(c.base, c.new) for c in acme.changed] == [("fail", "crash")]
    assert [c.id for c in acme.new] == ["w/a.json::new unsupported"]
    assert [c.id for c in acme.removed] == ["w/a.json::goes away"]
    assert (acme.unchanged, acme.base_version, acme.new_version) == (1, "1", "2")
    assert not other.regressions and other.unchanged == 1 and d.exit_code == 1
    md = format_markdown(d)
    assert "**2 regressions**" in md and "| acme | 1 -> 2 | 2 | 1 | 1 | 1 | 1 | 1 |" in md
    assert "`w/a.json::breaks` | pass | fail | expected: listed |" in md
    assert main(["diff", str(base), str(new)]) == 1
    text = capsys.readouterr().out
    assert "REGRESSION w/a.json::breaks: pass -> fail [expected: listed]" in text
    assert "acme 1 -> 2: 2 regressions, 1 fixes, 1 changed, 1 new, 1 removed, 1 unchanged" in text
    assert main(["diff", str(new), str(new), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["regressions"] == 0
    assert main(["diff", str(base), str(tmp_path / "missing")]) == 2


def test_diff_reads_runs_written_before_ids(tmp_path):
    old = tmp_path / "old"
    old.mkdir()
    r = rec("wpt/relu.json::relu a", "pass").to_json()
    del r["id"]
    r["file"] = "/home/someone/shared/wpt/relu.json"
    (old / "results.jsonl").write_text(json.dumps(r) + "\n")
    new = write_run(tmp_path / "new", [rec("wpt/relu.json::relu a", "pass")], "new")
    (acme,) = diff_runs(old, new).backends
    assert acme.unchanged == 1 and not acme.new and not acme.removed


def test_report_renders_from_any_working_directory(tmp_path, corpus):
    import subprocess
    import sys

    run(tmp_path, "r", "--cases", str(corpus), "--label", "nightly")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = subprocess.run([sys.executable, "-m", "webnn_harness", "report", str(tmp_path / "r"), "--out", "site"],
                          cwd=elsewhere, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    page = (elsewhere / "site" / "conformance.html").read_text()
    assert 'run-label">nightly' in page and str(tmp_path) not in page


def _deps_view(tmp_path):
    """This environment's installed packages but webnn-harness and the example backend (installed
    editable here): what a vendor's venv resolves from the registry, without a checkout."""
    import sys

    view = tmp_path / "deps"
    view.mkdir()
    for folder in (Path(p) for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()):
        for entry in folder.iterdir():
            if (not entry.name.startswith(("webnn", "__editable__", "_webnn")) and entry.suffix != ".pth"
                    and not (view / entry.name).exists()):
                (view / entry.name).symlink_to(entry)
    return view


def test_the_vendor_install_from_built_wheels_runs_the_readme_recipe(tmp_path):
    """The README's vendor install, from built wheels in a fresh venv (no checkout): the `pytest`
    extra is the plugin's without the browser tests', the declared tables are package data that
    probe --compare finds by name, the CI recipe runs as written, a re-run of a run of the bundled
    corpus finds its cases (issue 41), and the pytest line runs (issue 42)."""
    import subprocess
    import sys
    import zipfile

    from conftest import REPO
    from test_example_backend import LEAKY_RELU, readme_ci_recipe

    src = tmp_path / "src"  # a copy of the tracked files: a build writes build/ beside its sources
    files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout.split(b"\0")
    for name in filter(None, files):
        target = src / name.decode()
        if (REPO / name.decode()).is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes((REPO / name.decode()).read_bytes())
    wheels = tmp_path / "wheels"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(src),
                            str(src / "examples" / "numpy_float32")], capture_output=True, text=True, timeout=600)
    if built.returncode and "NewConnectionError" in built.stderr + built.stdout:
        pytest.skip("building a wheel needs setuptools from the package index, which is out of reach")
    assert built.returncode == 0, built.stderr
    (harness_wheel,) = wheels.glob("webnn_harness-*.whl")
    with zipfile.ZipFile(harness_wheel) as whl:
        names = whl.namelist()
        metadata = whl.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "webnn_harness/probe/declared_tables/chromium-ort-opSupportLimits.json" in names
    extras = re.findall(r"^Requires-Dist: (\S+).*extra == \"pytest\"", metadata, re.M)
    assert "Provides-Extra: pytest" in metadata and any(e.startswith("pytest>=") for e in extras)
    assert not any(e.startswith("playwright") for e in extras)

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "deps.pth").write_text(str(_deps_view(tmp_path)) + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index",
                    *map(str, wheels.glob("*.whl"))], check=True, timeout=300)

    work = tmp_path / "ci"
    (work / "wpt").mkdir(parents=True)
    (work / "wpt" / "leaky_relu.json").write_bytes(LEAKY_RELU.read_bytes())
    (work / "my-backend").mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    cli = str(venv / "bin" / "webnn-harness")

    def sh(args, **kw):
        return subprocess.run(args, cwd=work, env=env, capture_output=True, text=True, timeout=600, **kw)

    where = sh([str(python), "-c", "import webnn_harness; print(webnn_harness.__file__)"]).stdout
    assert where.startswith(purelib), where  # the installed wheel, not the checkout
    assert sh([cli, "run", "-b", "example-numpy", "-o", "leaky_relu=fixed", "--cases", "wpt", "--out", "main-run",
               "-q"]).returncode == 0
    codes = []
    for line in readme_ci_recipe():
        argv = [a.replace("mybackend", "example-numpy") for a in shlex.split(line)][1:]
        for i in ("1", "2") if "$I/$N" in argv else (None,):
            args = [a.replace("$I/$N", f"{i}/2").replace("$I", i or "") for a in argv]
            args = [m for a in args for m in (sorted(str(p.relative_to(work)) for p in work.glob(a)) if "*" in a else [a])]
            done = sh([cli, *args, "-q"] if args[0] == "run" else [cli, *args])
            codes.append((args[0], done.returncode))
            assert "Traceback" not in done.stderr, done.stderr
    assert codes == [("run", 0), ("run", 0), ("run", 0), ("merge", 0), ("junit", 0), ("run", 0), ("diff", 1),
                     ("report", 0)]
    # a run of the bundled corpus, installed as webnn_harness/corpus, is re-run by its ids (issue 41)
    assert sh([cli, "run", "-q", "-b", "example-numpy", "--op", "leakyRelu", "--out", "bundled"]).returncode == 1
    again = sh([cli, "run", "-q", "--rerun-failures", "bundled", "--out", "bundled-rerun"])
    assert again.returncode == 1, again.stderr
    assert len(read_records_whole(work / "bundled-rerun" / "results.jsonl").records) == 4
    # probe --compare finds the shipped declared table by name
    probe = sh([cli, "probe", "-q", "-b", "example-numpy", "--op", "relu", "--no-layout", "--no-bytes",
                "--compare", "chromium-ort", "--out", "probe"])
    assert probe.returncode == 0 and "against chromium-ort: " in probe.stdout, probe.stderr
    # the README's pytest line, with the plugin of the installed wheel
    tests = sh([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "--webnn-backend", "example-numpy",
                "--webnn-cases=wpt", "--webnn-expectations=my-backend/expectations.json", "-m", "webnn"])
    assert tests.returncode == 0, tests.stdout[-2000:]
    assert re.search(r"\d+ passed", tests.stdout) and "xfailed" in tests.stdout
