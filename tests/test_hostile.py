"""Issue 41: nothing written or deleted outside the folder asked for, nothing forged published, for
each class of hostile input: links at every depth, forged archive entries and caches, hostile text in
every field we print or publish, values out of bounds, folders in the way. Each try ends in one
line with the documented exit code, and the good input beside a bad one is still processed."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from test_bad_inputs import _quietly, outputs  # noqa: F401 - the shared run, bench and fuzz folders

HOSTILE_TEXTS = {"lone surrogate": "a\ud800b", "newline": "a\nforged line", "escape": "a\x1b[31mred\x1b]0;t\x07",
                 "bidi override": "a\u202eb", "C1 control": "a\x85b"}


def _copy(outputs, tmp: Path, name: str) -> Path:  # noqa: F811
    return Path(shutil.copytree(outputs[name], tmp / f"my-{name}", ignore=shutil.ignore_patterns(".*.lock")))


def _tree(path: Path) -> dict[str, bytes]:
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


# ------------------------------------------------------------------ links at every depth

ADD_LINKS = ["findings", "findings/FILE", "summary.json"]  # a folder, a file a level down, a file


@pytest.mark.parametrize("link", ADD_LINKS)
def test_archive_add_copies_nothing_through_a_link_at_any_depth(tmp_path, outputs, link):
    fuzz = _copy(outputs, tmp_path, "fuzz")
    outside = tmp_path / "outside"
    first = sorted((fuzz / "findings").iterdir())[0].name
    path = fuzz / link.replace("FILE", first)
    shutil.copytree(fuzz, outside)
    moved = outside / link.replace("FILE", first)
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink()
    path.symlink_to(moved)
    code, errors, _ = _quietly(["archive", "add", str(tmp_path / "arch"), str(tmp_path / "my-fuzz")])
    assert code == 2 and len(errors) == 1 and "symbolic link" in errors[0], errors
    assert not (tmp_path / "arch" / "entries").exists() or not any((tmp_path / "arch" / "entries").iterdir())


ARCHIVE_LINKS = ["entries", "entry folder"]


@pytest.mark.parametrize("where", ARCHIVE_LINKS)
def test_archive_writes_no_entry_through_a_link(tmp_path, outputs, where):
    arch = tmp_path / "arch"
    assert _quietly(["archive", "add", str(arch), str(outputs["run"])])[0] == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if where == "entries":
        shutil.rmtree(arch / "entries")
        (arch / "entries").symlink_to(elsewhere)
    code, errors, _ = _quietly(["archive", "add", str(arch), str(outputs["bench"])])
    if where == "entries":
        assert code == 2 and "symbolic link" in errors[0], errors
        assert not any(elsewhere.iterdir())
        code, errors, _ = _quietly(["report", "--archive", str(arch), "--out", str(tmp_path / "site")])
        assert code == 2 and "symbolic link" in errors[0], errors
    else:
        assert code == 0, errors


SITE_LINKS = [".archive-cache", "history", "ops", "static"]


@pytest.mark.parametrize("link", SITE_LINKS)
def test_the_site_never_writes_or_deletes_through_a_link(tmp_path, outputs, link):
    arch, site, user = tmp_path / "arch", tmp_path / "site", tmp_path / "user"
    assert _quietly(["archive", "add", str(arch), str(outputs["run"]), str(outputs["bench"])])[0] == 0
    assert _quietly(["report", "--archive", str(arch), "--out", str(site)])[0] == 0
    user.mkdir()
    (user / "mine.json").write_text("mine")
    (user / "relu.html").write_text("mine")
    if (site / link).exists():
        shutil.rmtree(site / link)
    (site / link).symlink_to(user)
    code, errors, _ = _quietly(["report", "--archive", str(arch), "--out", str(site)])
    assert code == 2 and len(errors) == 1 and ("symbolic link" in errors[0] or "outside" in errors[0]), errors
    assert _tree(user) == {"mine.json": b"mine", "relu.html": b"mine"}


# ------------------------------------------------------------------ forged entries and caches

def _entry(arch: Path, kind: str) -> Path:
    return next(p for p in (arch / "entries").iterdir()
                if json.loads((p / "entry.json").read_text())["entryKind"] == kind)


FORGERIES = {
    "kind": lambda d: {**d, "entryKind": "bench" if d["entryKind"] == "run" else "run"},
    "backend name": lambda d: {**d, "backends": [{**d["backends"][0], "name": "forged"}]},
    "backend version": lambda d: {**d, "backends": [{**d["backends"][0], "version": "9.9"}]},
    "date": lambda d: {**d, "date": "1999-01-01T00:00:00+00:00"},
    "label": lambda d: {**d, "label": "forged"},
    "files": lambda d: {**d, "files": {}},
}


@pytest.mark.parametrize("field", list(FORGERIES))
@pytest.mark.parametrize("kind", ["run", "bench"])
def test_an_edited_entry_json_is_left_out_with_one_line(tmp_path, outputs, field, kind):
    arch = tmp_path / "arch"
    assert _quietly(["archive", "add", str(arch), str(outputs["run"]), str(outputs["bench"])])[0] == 0
    path = _entry(arch, kind) / "entry.json"
    path.write_text(json.dumps(FORGERIES[field](json.loads(path.read_text()))))
    code, errors, warnings = _quietly(["report", "--archive", str(arch), "--out", str(tmp_path / "site")])
    assert code == 0 and not errors, errors
    assert any(path.parent.name in w and "edited" in w or "changed" in w for w in warnings), warnings


DIGEST_DAMAGE = [{"backends": "x"}, {"backends": [{"cases": 5}]}, {"records": [1]}, {"entry": 5}, {"findings": []}]


def _digests(site):
    """The archive cache's entry digests (``<entry id>-<DIGEST_FORMAT>.json``), not its other files."""
    from webnn_harness.archive.digest import DIGEST_FORMAT

    return [p for p in (site / ".archive-cache").glob(f"*-{DIGEST_FORMAT}.json")
            if len(p.name) == 20 + len(f"-{DIGEST_FORMAT}.json")]


@pytest.mark.parametrize("damage", DIGEST_DAMAGE)
def test_a_cached_digest_of_the_wrong_shape_is_computed_again(tmp_path, outputs, damage):
    arch, site = tmp_path / "arch", tmp_path / "site"
    assert _quietly(["archive", "add", str(arch), str(outputs["run"]), str(outputs["bench"])])[0] == 0
    assert _quietly(["report", "--archive", str(arch), "--out", str(site)])[0] == 0
    pages = _tree(site)
    for cached in _digests(site):
        cached.write_text(json.dumps({**json.loads(cached.read_text()), **damage}))
    code, errors, _ = _quietly(["report", "--archive", str(arch), "--out", str(site)])
    assert code == 0, errors
    from webnn_harness.archive.digest import read_cached

    kinds = {p.name: json.loads((p / "entry.json").read_text())["entryKind"] for p in (arch / "entries").iterdir()}
    for cached in _digests(site):  # computed again, and kept whole
        assert read_cached(cached.parent, cached.name, f"archive-digest#{kinds[cached.name[:20]]}") is not None
    assert set(_tree(site)) == set(pages)


BAD_PROFILES = [{"runs": 1, "nodes": [{"name": "n", "op": "relu", "kernel": "k", "seconds": -1}]},
                {"runs": -1}, {"runs": 1, "nodeTimes": "wall"}, {"nodes": 5}, "x"]


@pytest.mark.parametrize("profile", BAD_PROFILES)
def test_a_bench_line_with_a_bad_profile_is_refused_by_archive_add_and_left_out_of_the_site(tmp_path, outputs,
                                                                                              profile):
    bench = _copy(outputs, tmp_path, "bench")
    first = json.loads((bench / "bench.jsonl").read_text().splitlines()[0])
    arch = tmp_path / "arch"
    assert _quietly(["archive", "add", str(arch), str(bench), str(outputs["run"])])[0] == 0
    with open(bench / "bench.jsonl", "a") as fh:
        fh.write(json.dumps({**first, "variant": "v2", "profile": profile}) + "\n")
    code, errors, _ = _quietly(["archive", "add", str(arch), str(bench)])
    assert code == 2 and len(errors) == 1 and "line 2: profile" in errors[0], errors
    # An archive that holds one (from a harness before this check, or by hand): the entry is left out with one
    # line, the rest of the site is built, and so is every later build.
    entry = _entry(arch, "bench")
    data = (bench / "bench.jsonl").read_bytes()
    (entry / "bench.jsonl").write_bytes(data)
    doc = json.loads((entry / "entry.json").read_text())
    import hashlib

    from webnn_harness.archive.store import entry_id
    doc["files"]["bench.jsonl"] = hashlib.sha256(data).hexdigest()
    new_id = entry_id("bench", doc["files"].items())
    doc["id"] = new_id
    (entry / "entry.json").write_text(json.dumps(doc))
    entry.rename(entry.parent / new_id)
    for _ in range(2):
        code, errors, warnings = _quietly(["report", "--archive", str(arch), "--out", str(tmp_path / "site")])
        assert code == 0 and not errors and any("line 2: profile" in w for w in warnings), (errors, warnings)


# ------------------------------------------------------------------ hostile text in every field

@pytest.mark.parametrize("text", list(HOSTILE_TEXTS))
def test_hostile_text_in_every_printed_and_published_field(tmp_path, outputs, text, capsys):
    value = HOSTILE_TEXTS[text]
    run = _copy(outputs, tmp_path, "run")
    record = json.loads((run / "results.jsonl").read_text().splitlines()[0])
    bad = {**record, "case": f"case {value}", "status": "fail", "message": f"at /home/secret/{value}",
           "knownFailure": f"reason /home/secret/x {value}"}
    (run / "results.jsonl").write_text(json.dumps(record) + "\n" + json.dumps(bad) + "\n")
    summary = json.loads((run / "summary.json").read_text())
    summary["label"] = f"label {value}"
    for b in summary.get("backends") or ():
        b["device"], b["version"] = f"device {value}", f"1.{value}"
    (run / "summary.json").write_text(json.dumps(summary))
    arch, site = tmp_path / "arch", tmp_path / "site"
    runs = [["report", str(run), "--out", str(tmp_path / "plain")], ["archive", "add", str(arch), str(run)],
            ["archive", "list", str(arch)], ["archive", "list", str(arch), "--json"],
            ["report", "--archive", str(arch), "--out", str(site)], ["diff", str(outputs["run"]), str(run)],
            ["junit", str(run), "--out", str(tmp_path / "j.xml")]]
    for argv in runs:
        code, errors, _ = _quietly(argv)
        assert code in (0, 1) and not errors, (argv, errors)
    capsys.readouterr()
    from webnn_harness.cli import main
    main(["archive", "list", str(arch)])
    listed = capsys.readouterr().out
    assert len(listed.splitlines()) == 1 and "\x1b" not in listed and "\u202e" not in listed
    for folder in (tmp_path / "plain", site):
        for path in folder.rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                assert b"/home/secret" not in data, path
                assert b"\x1b" not in data, path
                data.decode("utf-8")


VERSIONS = ["1.\u00b2", "1." + "9" * 5000, "\u0661.2", "1.2.3-rc.1"]


@pytest.mark.parametrize("version", VERSIONS)
def test_any_version_sorts(version):
    from webnn_harness.reports.capability import _version_key

    assert sorted(["1.10", version, "1.9"], key=_version_key)


def test_a_file_name_with_a_newline_stays_one_error_line(tmp_path):
    bad = tmp_path / "a\nforged: line"
    bad.write_text("{")
    code, errors, _ = _quietly(["bench", "-b", "reference", "--suite", str(bad), "--out", str(tmp_path / "b")])
    assert code == 2 and len(errors) == 1, errors


# ------------------------------------------------------------------ values

VALUES = {
    "report --stale-days 1000000000": (["report", "--archive", "A", "--stale-days", "1000000000"], "--stale-days"),
    "report --stale-days 5000 digits": (["report", "--archive", "A", "--stale-days", "9" * 5000], "--stale-days"),
    "run --workers 10**12": (["run", "--workers", "1000000000000"], "--workers"),
    "bench --threads 10**20": (["bench", "-b", "reference", "--threads", "99999999999999999999"], "--threads"),
    "run litert -o threads=10**20": (["run", "-b", "litert", "-o", "threads=99999999999999999999", "--cases", "G",
                                      "--out", "R"], "threads"),
    "run onnxruntime -o threads=superscript": (["run", "-b", "onnxruntime", "-o", "threads=\u00b2", "--cases", "G",
                                                "--out", "R"], "threads"),
    "run openvino -o threads=0": (["run", "-b", "openvino", "-o", "threads=0", "--cases", "G", "--out", "R"], "threads"),
}


@pytest.mark.parametrize("case_id", list(VALUES))
def test_an_option_out_of_bounds_is_exit_2_before_any_work(tmp_path, outputs, case_id):
    argv, text = VALUES[case_id]
    argv = [{"A": str(tmp_path / "arch"), "G": str(outputs["good.json"]), "R": str(tmp_path / "r")}.get(a, a)
            for a in argv]
    if argv[1] in ("litert", "onnxruntime", "openvino") or argv[2] in ("litert", "onnxruntime", "openvino"):
        from webnn_harness.backends import available
        if not any(a in available() for a in argv):
            pytest.skip("backend not installed")
    code, errors, _ = _quietly(argv)
    assert code == 2 and len(errors) == 1 and text in errors[0], errors
    assert not (tmp_path / "r").exists()


def test_a_plugin_that_crashes_or_hangs_on_import_is_listed_failed(tmp_path, monkeypatch, capsys):
    (tmp_path / "crashy_backend.py").write_text("import ctypes\nctypes.string_at(0)\n")
    (tmp_path / "exiting_backend.py").write_text("import os\nos._exit(3)\n")
    (tmp_path / "hanging_backend.py").write_text("import time\ntime.sleep(600)\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    from webnn_harness import backends
    from webnn_harness.commands import backends as command
    from webnn_harness.cli import main

    monkeypatch.setattr(command, "LOAD_SECONDS", 5)
    real = backends.available()
    monkeypatch.setattr(backends, "available", lambda: {**real, "crashy": "crashy_backend:create",
                                                        "exiting": "exiting_backend:create",
                                                        "hanging": "hanging_backend:create"})
    assert main(["backends"]) == 0
    out = capsys.readouterr().out
    assert "crashy" in out and "SIGSEGV" in out and "exit code 3" in out and "still loading" in out
    assert "reference  " in out.replace("reference ", "reference  ")


# ------------------------------------------------------------------ folders

def test_a_refused_bench_option_leaves_no_folder(tmp_path):
    out = tmp_path / "b"
    code, errors, _ = _quietly(["bench", "-b", "reference", "-o", "nosuch=1", "--out", str(out)])
    assert code == 2 and len(errors) == 1, errors
    assert not out.exists()


def test_archive_add_with_a_name_too_long_is_exit_2(tmp_path, outputs):
    code, errors, _ = _quietly(["archive", "add", str(tmp_path / ("n" * 300)), str(outputs["run"])])
    assert code == 2 and len(errors) == 1 and "kept" not in errors[0], errors


def test_report_out_a_name_too_long_is_exit_2(tmp_path, outputs):
    code, errors, _ = _quietly(["report", str(outputs["run"]), "--out", str(tmp_path / ("n" * 300))])
    assert code == 2 and len(errors) == 1 and "too long" in errors[0], errors


def test_run_overwrite_never_deletes_a_folder_named_like_its_file(tmp_path, outputs):
    run = _copy(outputs, tmp_path, "run")
    (run / "summary.json").unlink()
    (run / "summary.json").mkdir()
    (run / "summary.json" / "mine").write_text("mine")
    code, errors, _ = _quietly(["run", "-q", "-b", "reference", "--overwrite", "--cases", str(outputs["good.json"]),
                                "--out", str(run)])
    assert code == 2 and "summary.json" in errors[0], errors
    assert (run / "summary.json" / "mine").read_text() == "mine"


def test_a_corrupt_baseline_is_refused_before_the_bench(tmp_path, outputs):
    base = _copy(outputs, tmp_path, "bench")
    (base / "bench.jsonl").write_text("garbage\n")
    code, errors, _ = _quietly(["bench", "-b", "reference", "--baseline", str(base), "--out", str(tmp_path / "b")])
    assert code == 2 and "--baseline" in errors[0], errors
    assert not (tmp_path / "b").exists()


def test_bench_records_without_latency_are_not_comparable(tmp_path, outputs):
    other = _copy(outputs, tmp_path, "bench")
    lines = [json.loads(x) for x in (other / "bench.jsonl").read_text().splitlines()]
    (other / "bench.jsonl").write_text("".join(json.dumps({k: v for k, v in r.items() if k != "latency"}) + "\n"
                                               for r in lines))
    code, errors, _ = _quietly(["diff", str(outputs["bench"]), str(other)])
    assert code == 2 and "latency" in errors[0], errors


MALFORMED_CASES = ['{"tests": [{"name": "x", "graph": 5}]}', '{"tests": [{"name": "x", "graph": {"inputs": 5}}]}',
                   '{"tests": [{"name": "x", "graph": {"operators": [5]}}]}']


@pytest.mark.parametrize("case", MALFORMED_CASES)
def test_report_of_a_fuzz_folder_with_a_malformed_case_file(tmp_path, outputs, case):
    fuzz = _copy(outputs, tmp_path, "fuzz")
    first = sorted((fuzz / "findings").iterdir())[0]
    first.write_text(case)
    code, errors, warnings = _quietly(["report", str(fuzz), "--out", str(tmp_path / "site")])
    assert code == 0 and not errors and any(first.name in w for w in warnings), (errors, warnings)


CHANGES_DAMAGE = [{"newly_failing": [5]}, {"slower": "x"}, {"findings_new": [{"id": []}]}, [1], {"nope": 1}]


@pytest.mark.parametrize("damage", CHANGES_DAMAGE)
def test_a_damaged_changes_cache_is_computed_again(tmp_path, monkeypatch, damage):
    from webnn_harness.reports import archive as ra

    computed = ra.VersionChanges("b", "d", "1", "2", "", "")
    monkeypatch.setattr(ra, "version_changes", lambda *args: computed)
    used: set[str] = set()
    assert ra.cached_version_changes("b", "d", "1", "2", {}, None, tmp_path, used) == computed
    (file,) = used
    doc = json.loads((tmp_path / file).read_text())
    (tmp_path / file).write_text(json.dumps({**doc, **damage} if isinstance(damage, dict) else damage))
    assert ra.cached_version_changes("b", "d", "1", "2", {}, None, tmp_path, set()) == computed


def test_a_local_path_in_a_known_failure_reaches_neither_the_changes_page_nor_the_cache(tmp_path):
    from test_archive import NOW, backend, set_date
    from test_reports import rec, write_run

    from webnn_harness.archive import Archive
    from webnn_harness.reports import build_archive_site

    secret = f"{tmp_path}/secret-folder/why.txt"
    runs = []
    for version, date, status in (("1.9.0", "2026-10-01T00:00:00+00:00", "pass"),
                                  ("1.10.0", "2026-11-20T00:00:00+00:00", "fail")):
        b = backend(version)
        run = write_run(tmp_path / f"run-{version}", [
            rec("relu a", status=status, backend=b, message=f"see {secret}", known_failure=f"tracked in {secret}"),
            rec("relu b", backend=b)], "webnn-harness run")
        set_date(run / "summary.json", date)
        runs.append(run)
    Archive(tmp_path / "archive").add(runs)
    index, model = build_archive_site(tmp_path / "archive", tmp_path / "site", now=NOW)
    assert model.changes and model.changes[0].newly_failing
    changes = (tmp_path / "site" / "changes.html").read_text()
    assert "tracked in why.txt" in changes
    for path in (tmp_path / "site").rglob("*"):
        if path.is_file():
            assert "secret-folder" not in path.read_text(errors="replace"), path


def test_counts_for_the_closing_note():
    """The tries of this file, per class (each handled, by the tests above)."""
    counts = {
        "links": len(ADD_LINKS) + len(ARCHIVE_LINKS) + len(SITE_LINKS),
        "forged entries and caches": 2 * len(FORGERIES) + len(DIGEST_DAMAGE) + len(BAD_PROFILES) + len(CHANGES_DAMAGE),
        "hostile text": len(HOSTILE_TEXTS) + len(VERSIONS) + 2,  # + a file name with a newline, a local path
        "values": len(VALUES) + 1,  # + plugins crashing, exiting and hanging on import
        "folders and leftovers": 6 + len(MALFORMED_CASES),
    }
    print("issue 41 tries: " + ", ".join(f"{n} {c}" for c, n in counts.items()) + f"; {sum(counts.values())} in all")
    assert sum(counts.values()) >= 60
