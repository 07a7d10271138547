"""The archive (archive add|list) and the site built from it (report --archive):
entries keyed by content, untrusted input refused one line at a time, every
backend version a column newest first with its last-run date and a stale mark,
the changes page between consecutive versions, per-op history with steps found
by step detection, and incremental builds that read only new entries."""
from __future__ import annotations

import json
import os
import random
from datetime import datetime, timezone
from pathlib import Path

import pytest
from test_reports import XSS, limits_doc, parse, rec, write_run
from test_reports_performance import record, write_bench
from webnn_harness.archive import Archive, ArchiveError
from webnn_harness.archive import digest as digest_module
from webnn_harness.archive.steps import detect_steps, fit
from webnn_harness.archive.store import ENTRIES, ENTRY_FILE
from webnn_harness.reports import ReportInputError, build_archive_site
from webnn_harness.reports import archive as archive_model
from webnn_harness.reports.archive import limits_entries
from webnn_harness.reports.conformance import read_run
from webnn_harness.reports.sitefolder import CACHE, MANIFEST

NOW = datetime(2026, 11, 25, tzinfo=timezone.utc)


def backend(version: str) -> dict:
    return {"name": "fakert", "version": version, "device": "CPU", "settings": {"threads": 1}}


def set_date(summary: Path, date: str, key_path=("date",)) -> None:
    doc = json.loads(summary.read_text())
    target = doc
    for k in key_path[:-1]:
        target = target[k]
    target[key_path[-1]] = date
    summary.write_text(json.dumps(doc))


def make_version(root: Path, version: str, date: str, *, flip: bool, slower: bool, finding: str) -> list[Path]:
    """A run, a probe, a bench and a fuzz run of fakert ``version``. ``flip``: the
    case "a" fails and "b" passes (else the other way round); ``slower``: the
    benchmark's samples are 30% slower; ``finding``: the fuzz finding's id."""
    b = backend(version)
    run = write_run(root / f"run-{version}", [
        rec("relu a", status="fail" if flip else "pass", backend=b, message=XSS),
        rec("relu b", status="pass" if flip else "fail", backend=b, message=f"cannot read {root}/relu-b.bin"),
        rec(f"relu {XSS}", backend=b),
        rec("clamp c", ops=("clamp",), backend=b),
    ], f"webnn-harness run --backend fakert --out {root}/run")
    set_date(run / "summary.json", date)
    probe = root / f"probe-{version}"
    probe.mkdir()
    (probe / "fakert-opSupportLimits.json").write_text(json.dumps(limits_doc(drop_conv_f16=flip)))
    (probe / "fakert-opSupportLimits.header.json").write_text(json.dumps(
        {"harnessVersion": "0.1.0", "date": date, "machine": {"platform": "test"}, "backend": b}))
    rng = random.Random(version)
    level = 1.3e-3 if slower else 1e-3
    bench = write_bench(root / f"bench-{version}", [
        record("op/relu", "graph", [level * (1 + rng.gauss(0, 0.01)) for _ in range(12)], backend=b, kind="op",
               op="relu")], backends=(b,))
    set_date(bench / "summary.json", date, ("header", "date"))
    fuzz = root / f"fuzz-{version}"
    fuzz.mkdir()
    (fuzz / "summary.json").write_text(json.dumps({
        "kind": "fuzz", "harnessVersion": "0.1.0", "date": date, "backend": b, "settings": {"seed": 0},
        "findings": [{"id": finding, "status": "fail", "ops": ["relu"], "message": "wrong"}]}))
    return [run, probe, bench, fuzz]


def two_versions(root: Path) -> dict[str, list[Path]]:
    """1.9.0, last run 55 days before NOW, and 1.10.0 five days before, in which the case "a" fails
    and "b" passes (the other way round before), conv2d loses float16, relu's bench gets 30% slower
    and the fuzz finding f-old is gone and f-new is new."""
    return {"1.9.0": make_version(root / "out", "1.9.0", "2026-10-01T00:00:00+00:00", flip=False, slower=False,
                                  finding="f-old"),
            "1.10.0": make_version(root / "out", "1.10.0", "2026-11-20T00:00:00+00:00", flip=True, slower=True,
                                   finding="f-new")}


@pytest.fixture
def outputs(tmp_path: Path) -> dict[str, list[Path]]:
    return two_versions(tmp_path)


@pytest.fixture
def archive(tmp_path: Path, outputs) -> Archive:
    a = Archive(tmp_path / "archive")
    a.add([*outputs["1.9.0"], *outputs["1.10.0"]])
    return a


# --------------------------------------------------------------------------- the store


def test_entries_are_keyed_by_content_and_adding_again_adds_nothing(tmp_path, outputs):
    a = Archive(tmp_path / "archive")
    first = a.add(outputs["1.9.0"])
    assert sorted(e.kind for e in first.added) == ["bench", "fuzz", "probe", "run"] and not first.present
    again = a.add(outputs["1.9.0"])
    assert not again.added and {e.id for e in again.present} == {e.id for e in first.added}
    # The same files under another folder name are the same entry.
    copy = tmp_path / "elsewhere"
    copy.mkdir()
    for name in ("results.jsonl", "summary.json"):
        (copy / name).write_bytes((outputs["1.9.0"][0] / name).read_bytes())
    assert not a.add([copy]).added
    entries, problems = a.entries()
    assert not problems and len(entries) == 4
    run = next(e for e in entries if e.kind == "run")
    assert (run.backends[0].name, run.backends[0].version, run.backends[0].device) == ("fakert", "1.9.0", "CPU")
    assert run.date == "2026-10-01T00:00:00+00:00" and run.harness_version
    assert sorted(p.name for p in (a.path / ENTRIES).iterdir()) == sorted(e.id for e in entries)
    assert (a.path / ENTRIES / run.id / "results.jsonl").read_bytes() == (outputs["1.9.0"][0] / "results.jsonl").read_bytes()


def test_untrusted_folders_fail_alone_with_one_line_and_write_nothing(tmp_path, outputs):
    a = Archive(tmp_path / "archive")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "results.jsonl").write_text('{"not": "a record"}\n')
    with pytest.raises(ArchiveError) as err:
        a.add([outputs["1.9.0"][0], bad])
    assert "\n" not in str(err.value) and "bad" in str(err.value)
    assert not (a.path / ENTRIES).exists() or not any((a.path / ENTRIES).iterdir())  # checked before anything is stored
    link = tmp_path / "linked"
    link.mkdir()
    (link / "results.jsonl").symlink_to(outputs["1.9.0"][0] / "results.jsonl")
    with pytest.raises(ArchiveError, match="symbolic link"):
        a.add([link])
    deep = tmp_path / "deep"
    deep.mkdir()
    (deep / "x-opSupportLimits.json").write_text("[" * 100000 + "]" * 100000)
    with pytest.raises(ArchiveError):
        a.add([deep])
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(ArchiveError, match="not empty"):
        Archive(foreign).add([outputs["1.9.0"][0]])
    assert [p.name for p in foreign.iterdir()] == ["notes.txt"]


def test_a_damaged_entry_is_named_and_the_others_are_read(archive):
    entries, _ = archive.entries()
    victim = archive.entries_dir / entries[0].id / ENTRY_FILE
    victim.write_text(json.dumps({**json.loads(victim.read_text()), "files": {"../../etc/passwd": "x"}}))
    other = archive.entries_dir / entries[1].id / ENTRY_FILE
    other.write_text(json.dumps({**json.loads(other.read_text()), "id": "0" * 20}))
    left, problems = archive.entries()
    assert len(left) == len(entries) - 2 and len(problems) == 2
    assert all(str(victim.parent.name) in p or str(other.parent.name) in p for p in problems)


def test_an_entry_changed_after_it_was_archived_is_left_out_of_the_site_with_one_line(archive, tmp_path):
    entries, _ = archive.entries()
    run = next(e for e in entries if e.kind == "run" and e.backends[0].version == "1.10.0")
    results = archive.entries_dir / run.id / "results.jsonl"
    results.write_text(results.read_text().replace('"fail"', '"pass"'))  # someone "fixed" a failure by hand
    probe = next(e for e in entries if e.kind == "probe" and e.backends[0].version == "1.10.0")
    (archive.entries_dir / probe.id / "other-opSupportLimits.json").write_text("{}")
    assert archive.verify(run) and archive.verify(probe) and not archive.verify(entries[0])
    _, model = build_archive_site(archive.path, tmp_path / "site", now=NOW)
    assert any("changed since it was archived" in w for w in model.site.warnings)
    assert any("did not archive: other-opSupportLimits.json" in w for w in model.site.warnings)
    assert [b.backend.version for b in model.site.conformance.backends] == ["1.9.0"]
    assert [p.backend.version for p in model.site.probes] == ["1.9.0"]


# --------------------------------------------------------------------------- step detection


def test_steps_are_found_where_the_level_changes_and_not_in_noise():
    rng = random.Random(1)
    y = [1 + rng.gauss(0, 0.02) for _ in range(10)] + [1.3 + rng.gauss(0, 0.02) for _ in range(8)]
    steps = detect_steps(y, min_relative=0.05)
    assert [s.index for s in steps] == [10] and 1.2 < steps[0].ratio < 1.4
    for seed in range(5):
        rng = random.Random(seed)
        assert detect_steps([1 + rng.gauss(0, 0.05) for _ in range(20)], min_relative=0.05) == ()
    assert [(s.index, s.before, s.after) for s in detect_steps([0.9] * 4 + [1.0] * 3)] == [(4, 0.9, 1.0)]
    assert detect_steps([0.5] * 6) == () and detect_steps([]) == () and fit([2.0]) == [(0, 1, 2.0)]


def test_a_single_outlier_is_not_a_step():
    """The L1 fit is robust: one slow version among steady ones is noise, as asv treats it."""
    assert detect_steps([1.0, 1.01, 0.99, 1.0, 1.5, 1.0, 1.01, 0.99], min_relative=0.05) == ()


# --------------------------------------------------------------------------- the site


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """One site for the tests that only read it (a build takes seconds)."""
    root = tmp_path_factory.mktemp("archive-site")
    a = Archive(root / "archive")
    a.add([folder for folders in two_versions(root).values() for folder in folders])
    _, model = build_archive_site(a.path, root / "site", now=NOW, stale_days=30)
    return root / "site", model


def test_changes_page_names_cases_limits_benchmarks_and_findings(site):
    out, model = site
    (change,) = model.changes
    assert (change.base_version, change.new_version) == ("1.9.0", "1.10.0")  # by version, not as text
    assert [c.id for c in change.newly_failing] == ["cases/elementwise/relu.json::relu a"]
    assert [c.id for c in change.newly_passing] == ["cases/elementwise/relu.json::relu b"]
    before, after = limits_entries(limits_doc(False)), limits_entries(limits_doc(True))
    assert set(change.limits_lost) == before - after and "conv2d.input: float16" in change.limits_lost
    assert not change.limits_gained
    assert [(b.benchmark, b.verdict) for b in change.slower] == [("op/relu", "slower")] and not change.faster
    assert [f.id for f in change.findings_new] == ["f-new"] and [f.id for f in change.findings_gone] == ["f-old"]
    page = (out / "changes.html").read_text()
    for text in ("relu.json::relu a", "relu.json::relu b", "conv2d.input: float16", "op/relu", "f-new", "f-old"):
        assert text in page


def test_benchmarks_of_two_machines_are_not_compared(tmp_path):
    outputs = {v: make_version(tmp_path / "out", v, date, flip=False, slower=v == "2.0", finding="f")
               for v, date in (("1.0", "2026-11-01T00:00:00+00:00"), ("2.0", "2026-11-02T00:00:00+00:00"))}
    summary = outputs["2.0"][2] / "summary.json"
    doc = json.loads(summary.read_text())
    doc["header"]["machine"] = {**doc["header"]["machine"], "cpu": "Another CPU", "hostname": "other-host"}
    summary.write_text(json.dumps(doc))
    a = Archive(tmp_path / "archive")
    a.add([*outputs["1.0"], *outputs["2.0"]])
    _, model = build_archive_site(a.path, tmp_path / "site", now=NOW)
    (change,) = model.changes
    assert not change.slower and "different machines" in change.bench_note and "Another CPU" in change.bench_note
    assert "different machines" in (tmp_path / "site" / "changes.html").read_text()


def test_columns_newest_first_with_last_run_and_stale_marks(site):
    out, model = site
    assert [b.backend.version for b in model.site.conformance.backends] == ["1.10.0", "1.9.0"]
    assert [p.backend.version for p in model.site.probes] == ["1.10.0", "1.9.0"]
    index, conformance = (out / "index.html").read_text(), (out / "conformance.html").read_text()
    for page in (index, conformance):
        assert "last run 2026-11-20 00:00 UTC" in page and "last run 2026-10-01 00:00 UTC" in page
        # 1.9.0 was last run 55 days before NOW: stale; 1.10.0 five days before: not.
        stale = page.split("last run 2026-10-01")[1].split("</div>")[0]
        fresh = page.split("last run 2026-11-20")[1].split("</div>")[0]
        assert "stale" in stale and "stale" not in fresh
        assert page.index("1.10.0") < page.index("1.9.0")


def test_history_finds_the_pass_rate_step_and_the_latency_step(site):
    out, model = site
    relu = {s.metric: s for s in model.history["relu"]}
    rate = relu["pass rate"]
    assert [p.version for p in rate.points] == ["1.9.0", "1.10.0"]
    assert [p.value for p in rate.points] == [2 / 3, 2 / 3]  # one of a and b fails in each: no step
    assert rate.steps == ()
    latency = relu["median latency: op/relu graph"]
    assert [s.index for s in latency.steps] == [1] and latency.steps[0].ratio > 1.2
    assert "op/relu" in (out / "history.html").read_text()
    assert (out / "history" / "relu.html").is_file()
    assert 'href="../history/relu.html"' in (out / "ops" / "relu.html").read_text()
    assert "../history/" not in (out / "ops" / "gru.html").read_text()  # no case, no bench: no history page


def test_pages_escape_untrusted_text_and_name_no_local_path(site):
    out, _ = site
    tmp_path = out.parent
    pages = [p for p in out.rglob("*.html")]
    assert any("history" in str(p) for p in pages) and any(p.name == "changes.html" for p in pages)
    for page in pages:
        text = page.read_text()
        assert XSS not in text, page
        assert str(tmp_path) not in text, page
    for cached in (out / ".archive-cache").iterdir():  # published with the site unless left out
        assert str(tmp_path) not in cached.read_text(), cached
    assert "&lt;script&gt;" in (out / "changes.html").read_text()  # relu a's message, escaped


def test_every_link_is_local_and_leads_somewhere(site):
    out, _ = site
    for page in out.rglob("*.html"):
        parsed = parse(page)
        for link in parsed.links:
            assert not link.startswith(("http:", "https:", "//")), f"{page}: external resource {link}"
            target, _, fragment = link.partition("#")
            resolved = (page.parent / target) if target else page
            assert resolved.resolve().exists(), f"{page}: broken link {link}"
            if fragment and resolved.suffix == ".html" and resolved.parent.name == "history":
                assert fragment in parse(resolved).ids, f"{page}: no #{fragment} in {target}"
        assert all(script.get("src", "").endswith("static/site.js") for script in parsed.scripts)


def test_a_second_build_reads_only_new_entries(archive, outputs, tmp_path, monkeypatch):
    build_archive_site(archive.path, tmp_path / "site", now=NOW)
    computed = []
    real = dict(digest_module.DIGESTERS)
    for kind, fn in real.items():
        monkeypatch.setitem(digest_module.DIGESTERS, kind, lambda folder, fn=fn: computed.append(folder.name) or fn(folder))
    real_run = digest_module._run_digest
    monkeypatch.setattr(digest_module, "_run_digest", lambda folder, reader: computed.append(folder.name) or real_run(folder, reader))
    newer = make_version(tmp_path / "out2", "1.11.0", "2026-11-24T00:00:00+00:00", flip=False, slower=False,
                         finding="f-new")
    added = archive.add(newer[:1]).added
    _, model = build_archive_site(archive.path, tmp_path / "site", now=NOW)
    assert computed == [added[0].id]
    assert [c.new_version for c in model.changes][0] == "1.11.0"
    assert (tmp_path / "site" / "index.html").is_file()


def test_a_rebuild_reads_no_run_or_probe_of_an_entry_it_read_before(archive, tmp_path, monkeypatch):
    """The columns' model pieces are kept per entry (reports/archive_cache.py): a build with nothing added
    reads no run's results and no probe's files; a build after one entry was added reads that entry's
    only; and the model is the one a build from an empty cache makes."""
    from webnn_harness.reports import archive_cache

    site = tmp_path / "site"
    _, first = build_archive_site(archive.path, site, now=NOW)
    assert (first.reuse.entries_read, first.reuse.entries) == (8, 8)
    runs, probes = [], []
    real_run, real_probe = archive_model.read_run, archive_cache.read_probe_files
    monkeypatch.setattr(archive_model, "read_run", lambda folder: runs.append(folder.name) or real_run(folder))
    monkeypatch.setattr(archive_cache, "read_probe_files", lambda stem, *a: probes.append(stem) or real_probe(stem, *a))
    _, again = build_archive_site(archive.path, site, now=NOW)
    # The newest bench and the fuzz runs (the performance and findings pages) are read on every build.
    assert runs == probes == [] and again.reuse.entries_read == 3
    assert again.reuse.line == f"entries read: 3 of 8; pages drawn: {again.reuse.pages_drawn} of {again.reuse.pages}"
    assert again.site.conformance == first.site.conformance and again.site.probes == first.site.probes
    newer = make_version(tmp_path / "out2", "1.11.0", "2026-11-24T00:00:00+00:00", flip=False, slower=False,
                         finding="f-new")
    run, probe = archive.add(newer[:2]).added
    _, grown = build_archive_site(archive.path, site, now=NOW)
    assert runs == [run.id] and [Path(s).parent.name for s in probes] == [probe.id]
    assert (grown.reuse.entries_read, grown.reuse.entries) == (2 + 3, 10)
    _, fresh = build_archive_site(archive.path, tmp_path / "fresh", now=NOW)
    assert grown.site.conformance == fresh.site.conformance and grown.site.probes == fresh.site.probes
    assert _site_files(site) == _site_files(tmp_path / "fresh")


def test_damaged_model_pieces_are_read_again_from_their_entry(archive, tmp_path):
    site, fresh = tmp_path / "site", tmp_path / "fresh"
    build_archive_site(archive.path, site, now=NOW)
    pieces = sorted((site / CACHE).glob("pieces-*.json"))
    assert len(pieces) == 4  # the newest run and probe of each version
    for i, p in enumerate(pieces):
        doc = json.loads(p.read_text())
        if isinstance(doc, list):  # a run's: a shown record that is no record, a count that is no number
            doc[0]["shown"][0][0]["status"] = "great" if i % 2 else doc[0]["shown"][0][0]["status"]
            doc[0]["counts"]["pass"] = doc[0]["counts"]["pass"] if i % 2 else "many"
        p.write_text(json.dumps(doc) if isinstance(doc, list) else "{")
    keys = json.loads((site / CACHE / "pages-1.json").read_text())
    keys["index.html"], keys["changes.html"] = ["a key"], {"a": "page"}  # pages of a damaged key file are drawn
    (site / CACHE / "pages-1.json").write_text(json.dumps(keys))
    _, model = build_archive_site(archive.path, site, now=NOW)
    assert model.reuse.entries_read == 4 + 3
    build_archive_site(archive.path, fresh, now=NOW)
    assert _site_files(site) == _site_files(fresh)


def test_a_page_whose_inputs_did_not_change_is_not_drawn_again_and_reads_as_a_fresh_build(archive, tmp_path):
    """reports/page_cache.py: a rebuild draws no page, but every page's footer says when it was built;
    a new run draws every page that shows every column, not the probes' pages; a column turned stale
    draws them again; a page edited in the site folder is drawn again. Each time, the site is byte
    for byte the one a build into a new folder writes."""
    site = tmp_path / "site"

    def fresh(now, name):
        build_archive_site(archive.path, tmp_path / name, now=now)
        return _site_files(tmp_path / name)

    _, first = build_archive_site(archive.path, site, now=NOW)
    assert first.reuse.pages_drawn == first.reuse.pages > 100
    later = NOW.replace(hour=9, minute=41)
    _, again = build_archive_site(archive.path, site, now=later)
    assert again.reuse.pages_drawn == 0 and again.reuse.pages == first.reuse.pages
    assert "built 2026-11-25 09:41 UTC" in (site / "backends" / f"{first.site.probes[0].backend.slug}.html").read_text()
    assert _site_files(site) == fresh(later, "fresh-later")
    newer = make_version(tmp_path / "out2", "1.11.0", "2026-11-24T00:00:00+00:00", flip=False, slower=False,
                         finding="f-new")
    archive.add(newer[:1])  # a run: the probes' columns are as they were
    _, grown = build_archive_site(archive.path, site, now=later)
    probe_pages = len(grown.site.probes)
    assert probe_pages == 2 and grown.reuse.pages_drawn == grown.reuse.pages - probe_pages
    assert _site_files(site) == fresh(later, "fresh-grown")
    (site / "ops" / "relu.html").write_text("edited")
    (site / "backends" / f"{grown.site.probes[0].backend.slug}.html").write_bytes(
        (site / "backends" / f"{grown.site.probes[0].backend.slug}.html").read_bytes().replace(b"<main>", b"<main>x"))
    _, edited = build_archive_site(archive.path, site, now=later)
    assert edited.reuse.pages_drawn == 2
    assert _site_files(site) == fresh(later, "fresh-edited")
    stale = NOW.replace(month=12, day=28)  # 1.10.0's columns are now stale too: every page showing columns says so
    _, aged = build_archive_site(archive.path, site, now=stale)
    assert sum(lr.stale for lr in aged.site.archive.last_run.values()) > sum(
        lr.stale for lr in edited.site.archive.last_run.values())
    assert aged.reuse.pages_drawn == aged.reuse.pages - probe_pages  # a probe's page shows no last run
    assert _site_files(site) == fresh(stale, "fresh-stale")


def test_a_page_key_is_the_same_in_the_next_process(archive, tmp_path):
    """What a page shows is hashed by its repr: a set in it would make every key new in the next
    process (another hash seed), and every page drawn again."""
    import subprocess
    import sys

    def report(seed: str) -> str:
        argv = [sys.executable, "-m", "webnn_harness", "report", "--archive", str(archive.path),
                "--out", str(tmp_path / "site")]
        proc = subprocess.run(argv, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": seed})
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.splitlines()[1]

    first = report("1")
    pages = first.rsplit(" ", 1)[1]
    assert first == f"entries read: 8 of 8; pages drawn: {pages} of {pages}"
    assert report("2") == f"entries read: 3 of 8; pages drawn: 0 of {pages}"


def test_cli_says_how_much_a_build_reused(archive, tmp_path, capsys):
    from webnn_harness.cli import main

    site = tmp_path / "site"
    assert main(["report", "--archive", str(archive.path), "--out", str(site)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("report: ") and out[1].startswith("entries read: 8 of 8; pages drawn: ")
    assert main(["report", "--archive", str(archive.path), "--out", str(site)]) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith("entries read: 3 of 8; pages drawn: ")


def test_an_operator_name_from_a_record_never_becomes_a_path(tmp_path):
    evil = "../../../escaped"
    run = write_run(tmp_path / "run", [rec("x", ops=(evil,), backend=backend("1.0")),
                                       rec("y", backend=backend("1.0"))], "webnn-harness run")
    a = Archive(tmp_path / "archive")
    a.add([run])
    _, model = build_archive_site(a.path, tmp_path / "deep" / "er" / "site", now=NOW)
    assert evil not in model.history and "relu" in model.history
    assert not (tmp_path / "escaped.html").exists() and not list(tmp_path.rglob("escaped*"))


def test_a_foreign_site_folder_is_refused_before_anything_is_written(archive, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(ReportInputError, match="not empty"):
        build_archive_site(archive.path, out, now=NOW)
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


# --------------------------------------------------------------------------- the command line


def test_cli_archive_add_list_and_report(outputs, tmp_path, capsys):
    from webnn_harness.cli import main

    arch, site = tmp_path / "arch", tmp_path / "site"
    assert main(["archive", "add", str(arch), *map(str, outputs["1.9.0"] + outputs["1.10.0"])]) == 0
    assert "8 added, 0 already there" in capsys.readouterr().out
    assert main(["archive", "add", str(arch), str(outputs["1.9.0"][0])]) == 0
    assert "0 added, 1 already there" in capsys.readouterr().out
    assert main(["archive", "list", str(arch), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert len(listed) == 8 and {e["entryKind"] for e in listed} == {"run", "probe", "bench", "fuzz"}
    assert main(["report", "--archive", str(arch), "--out", str(site)]) == 0
    assert "1 case(s) newly failing" in capsys.readouterr().out
    assert (site / "changes.html").is_file()
    assert main(["report", "--archive", str(tmp_path / "nothing"), "--out", str(site)]) == 2
    assert main(["report", "--out", str(site)]) == 2
    assert main(["archive", "list", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "not a webnn-harness archive" in err and "Traceback" not in err


def _site_files(site: Path) -> dict[str, bytes]:
    """Every file of a site but the cache (which a full build has no more of than it needs)."""
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*"))
            if p.is_file() and CACHE not in p.relative_to(site).parts}


def test_an_incremental_build_writes_what_a_full_build_writes_and_computes_only_what_is_new(archive, tmp_path,
                                                                                          monkeypatch):
    incremental = tmp_path / "incremental"
    build_archive_site(archive.path, incremental, now=NOW)
    pairs, fitted = [], []
    real_changes, real_steps = archive_model.version_changes, archive_model.detect_steps
    monkeypatch.setattr(archive_model, "version_changes",
                        lambda name, device, base, new, *a: pairs.append((base, new)) or real_changes(name, device, base, new, *a))
    monkeypatch.setattr(archive_model, "detect_steps", lambda y, **kw: fitted.append(list(y)) or real_steps(y, **kw))
    newer = make_version(tmp_path / "out2", "1.11.0", "2026-11-24T00:00:00+00:00", flip=False, slower=False,
                         finding="f-new")
    archive.add(newer[:3])  # a run, a probe and a bench of the next version
    (incremental / CACHE / "changes-of-a-pair-no-longer-consecutive.json").write_text("{}")
    _, model = build_archive_site(archive.path, incremental, now=NOW)
    assert pairs == [("1.10.0", "1.11.0")]  # 1.9.0 -> 1.10.0 came from the cache
    assert len(list((incremental / CACHE).glob("changes-*.json"))) == 2  # one per pair of this build: the cache does not grow
    assert fitted and all(len(y) == 3 for y in fitted)  # only series that gained a point were fitted again
    assert model.changes[0].newly_passing and model.changes[1].newly_failing
    full = tmp_path / "full"
    build_archive_site(archive.path, full, now=NOW)
    assert _site_files(incremental) == _site_files(full)
    # A damaged cache is computed again, to the same pages.
    for p in (full / CACHE).iterdir():
        p.write_text("{" if p.name.startswith(("changes-", "steps-")) else p.read_text())
    build_archive_site(archive.path, full, now=NOW)
    assert _site_files(incremental) == _site_files(full)


def test_an_entry_edited_after_its_digest_was_cached_is_still_left_out(archive, tmp_path):
    site = tmp_path / "site"
    build_archive_site(archive.path, site, now=NOW)
    entries, _ = archive.entries()
    run = next(e for e in entries if e.kind == "run" and e.backends[0].version == "1.10.0")
    results = archive.entries_dir / run.id / "results.jsonl"
    results.write_text(results.read_text().replace('"fail"', '"pass"'))
    _, model = build_archive_site(archive.path, site, now=NOW)
    assert any(run.id in w and "changed since it was archived" in w for w in model.site.warnings)
    assert [b.backend.version for b in model.site.conformance.backends] == ["1.9.0"]
    assert not any(c.runs_compared for c in model.changes)
    assert run.id not in (site / "changes.html").read_text()


def test_a_rebuild_rewrites_only_changed_files_and_leaves_no_stale_page(archive, tmp_path):
    site = tmp_path / "site"
    build_archive_site(archive.path, site, now=NOW)
    listed = set(json.loads((site / MANIFEST).read_text())["files"])
    assert listed == set(_site_files(site)) - {MANIFEST} and "history/relu.html" in listed
    for p in listed:
        os.utime(site / p, ns=(1, 1))  # so that a page written again shows, however coarse the clock
    (site / "history" / "clamp.html").unlink()  # a page a person removed is written again
    (site / "ops" / "gone.html").write_text("a page an earlier report wrote")
    (site / MANIFEST).write_text(json.dumps({"kind": "webnn-harness report", "files": sorted(listed | {"ops/gone.html"})}))
    newer = make_version(tmp_path / "out2", "1.11.0", "2026-11-24T00:00:00+00:00", flip=False, slower=False,
                         finding="f-new")
    archive.add(newer[:1])  # a run: the probe and bench pages stay as they were
    build_archive_site(archive.path, site, now=NOW)
    rewritten = {p for p in listed if (site / p).exists() and (site / p).stat().st_mtime_ns != 1}
    assert {"changes.html", "conformance.html", "history/relu.html", "history/clamp.html"} <= rewritten
    # Every page's footer counts the archive's entries, so every page changed; the files that
    # name no entry count (styles, scripts, limits downloads, charts) were not written again.
    kept = {p for p in listed if not p.endswith(".html")}
    assert kept and any(p.startswith("data/") for p in kept) and kept.isdisjoint(rewritten), sorted(kept & rewritten)
    assert not (site / "ops" / "gone.html").exists()
    assert set(json.loads((site / MANIFEST).read_text())["files"]) == set(_site_files(site)) - {MANIFEST}
    full = tmp_path / "full"
    build_archive_site(archive.path, full, now=NOW)
    assert _site_files(site) == _site_files(full)


def test_run_records_are_grouped_by_their_backend_as_json_tells_them_apart(tmp_path):
    """read_run dumps each distinct backend once: dicts equal in Python but not in JSON
    (1 and True) stay apart, and the same dict in another key order is the same backend."""
    a = {"name": "fakert", "version": "1", "device": "CPU", "settings": {"threads": 1, "fast": True}}
    reordered = {"settings": {"fast": True, "threads": 1}, "device": "CPU", "version": "1", "name": "fakert"}
    other = {**a, "settings": {"threads": True, "fast": True}}
    assert a == other  # what a memo keyed by dict equality would merge
    results = tmp_path / "run" / "results.jsonl"
    results.parent.mkdir()
    results.write_text("".join(json.dumps(rec(f"relu {i}", backend=b).to_json()) + "\n"
                               for i, b in enumerate([a, reordered, other, a])))
    groups = read_run(results.parent)
    assert [len(g.records) for g in groups] == [3, 1]
    assert groups[1].backend["settings"]["threads"] is True


# --------------------------------------------------------------------------- releases of one browser


def test_declared_tables_are_archived_compared_and_the_index_leads_with_the_newest_release(tmp_path):
    """A probe's declared table (chromium-opSupportLimits.declared.json) travels into its entry; the
    changes page lists the declared entries gained and lost beside the probed ones; the index leads
    with the backend of the most versions: its newest release's cases per corpus, declared against
    probed, and a link to the changes since the release before."""
    versions = two_versions(tmp_path)
    for version, folders in versions.items():
        probe = folders[1]
        declared = limits_doc(drop_conv_f16=version == "1.10.0", clamp_types=("float32", "int8"))
        (probe / "fakert-opSupportLimits.declared.json").write_text(json.dumps(
            {**declared, "$provenance": {"browser": "fakert", "version": version}}))
    a = Archive(tmp_path / "archive")
    a.add([folder for folders in versions.values() for folder in folders])
    probes = [e for e in a.entries()[0] if e.kind == "probe"]
    assert all("fakert-opSupportLimits.declared.json" in dict(e.files) for e in probes)
    _, model = build_archive_site(a.path, tmp_path / "site", now=NOW, stale_days=30)
    (change,) = model.changes
    assert change.declared_compared and change.declared_lost == ("conv2d.bias: float16", "conv2d.filter: float16",
                                                                 "conv2d.input: float16", "conv2d.output: float16")
    assert not change.declared_gained
    page = (tmp_path / "site" / "changes.html").read_text()
    assert "Declared opSupportLimits() gained" in page and "conv2d.filter: float16" in page
    lead = model.site.archive.lead
    assert (lead.name, lead.version, lead.previous_version) == ("fakert", "1.10.0", "1.9.0")
    assert [(c.corpus, c.passed, c.failed, c.refused) for c in lead.cases] == [("cases", 3, 1, 0)]
    (dv,) = lead.declared  # declared clamp int8 is not probed working; probed clamp float16 and int32 are not declared
    assert (dv.declared_only, dv.probed_only) == (2, 4) and dv.both > 0
    index = (tmp_path / "site" / "index.html").read_text()
    assert index.index("<h1>fakert 1.10.0") < index.index("<h1>WebNN capability matrix")
    assert f'changes.html#{change.anchor}' in index and "1 newly passing, 1 newly failing" in index


def test_corpus_counts_put_each_case_under_its_first_folder():
    cases = {"wpt/relu.json::a": ["pass"], "wpt/relu.json::b": ["unsupported"], "wpt-extra/x.json::c": ["error"],
             "wpt-extra/x.json::d": ["skipped"], "x.json::e": ["fail"], "wpt-extra/x.json::f": ["fail", "listed", ""],
             "wpt/relu.json::g": ["unsupported", "listed", ""]}
    assert [(c.corpus, c.passed, c.failed, c.refused, c.known)
            for c in archive_model.corpus_counts("cpu", cases)] == [
        ("", 0, 1, 0, 0), ("wpt", 1, 0, 2, 0), ("wpt-extra", 0, 2, 0, 1)]  # known: of the failed only


# --------------------------------------------------------------------------- machine classes (issue #47)

AVX2_FEATURES = ["avx", "avx2", "f16c", "fma", "sse4_1", "sse4_2"]
AVX512_FEATURES = [*AVX2_FEATURES, "avx512_bf16", "avx512_vnni", "avx512bw", "avx512cd", "avx512dq", "avx512f",
                   "avx512vl"]


def on_machine(folders: list[Path], features: list[str] | None) -> list[Path]:
    """make_version's run and probe as recorded on a synthetic machine: one CPU model, with the CPU
    features ``features`` (None: an output written before features were recorded)."""
    machine = {"cpu": "Some CPU", "cores": 8, "platform": "test"}
    if features is not None:
        machine.update(cpuFeatures=features, kernelEnvironment={})
    run, probe, *_ = folders
    doc = json.loads((run / "summary.json").read_text())
    doc["machine"] = machine
    (run / "summary.json").write_text(json.dumps(doc))
    header = probe / "fakert-opSupportLimits.header.json"
    header.write_text(json.dumps({**json.loads(header.read_text()), "machine": machine}))
    return [run, probe]


def test_one_version_on_two_machine_classes_is_two_columns_and_their_disagreement_is_shown(tmp_path):
    """As wpt.fyi keeps browsers apart: fakert 1.0 archived from an AVX-512 machine and, later, an AVX2 one
    (where case "a" fails and conv2d lacks float16) is two columns named by their class, not the newer
    one hiding the older; the matrix marks the cells where they disagree, the changes page the cases."""
    avx512 = on_machine(make_version(tmp_path / "avx512", "1.0", "2026-11-01T00:00:00+00:00", flip=False,
                                     slower=False, finding="f"), AVX512_FEATURES)
    avx2 = on_machine(make_version(tmp_path / "avx2", "1.0", "2026-11-02T00:00:00+00:00", flip=True, slower=False,
                                   finding="f"), AVX2_FEATURES)
    a = Archive(tmp_path / "archive")
    a.add([*avx512, *avx2])
    _, model = build_archive_site(a.path, tmp_path / "site", now=NOW)
    out = tmp_path / "site"
    runs, probes = model.site.conformance.backends, model.site.probes
    assert sorted(b.backend.label for b in runs) == ["fakert 1.0 · AVX2", "fakert 1.0 · AVX512_CORE_BF16"]
    assert sorted(p.backend.label for p in probes) == ["fakert 1.0 · AVX2", "fakert 1.0 · AVX512_CORE_BF16"]
    assert all(x.backend.label == b.backend.label for b in runs for x in (*b.problems, *b.tight_passes))
    assert {p.backend.label for p in model.site.conformance.problems} == {b.backend.label for b in runs}
    assert {(k[0], k[4]) for k in model.site.archive.last_run} == {
        (kind, cls) for kind in ("run", "probe") for cls in ("AVX2", "AVX512_CORE_BF16")}
    assert {op for _, op in model.site.machines_disagree} == {"conv2d"}
    (d,) = model.machine_disagreements
    assert d.base_machine == "Some CPU, 8 cores, test [AVX2]"  # classes sorted: AVX2's statuses first
    assert [(c.id.split("::")[1], c.base, c.new) for c in d.cases] == [("relu a", "fail", "pass"),
                                                                      ("relu b", "pass", "fail")]
    assert not model.changes  # one version: a machine's difference is no version change
    index, conformance = (out / "index.html").read_text(), (out / "conformance.html").read_text()
    for page in (index, conformance):
        assert "fakert 1.0 · AVX2" in page and "fakert 1.0 · AVX512_CORE_BF16" in page
        assert "last run 2026-11-01 00:00 UTC" in page and "last run 2026-11-02 00:00 UTC" in page
    assert "differs on another machine class" in index
    assert '<div class="small muted">AVX2</div>' not in index  # the class is in the column's name, not twice


def test_entries_without_a_machine_class_keep_one_column_and_fold_into_a_newer_classed_one(tmp_path):
    """Entries archived before classes were recorded: one column per version as before, with no class
    in its name; a newer output of that version on the same hardware that names its class takes the
    column over (with the older one's runs), so an upgrade splits no column."""
    legacy = on_machine(make_version(tmp_path / "old", "1.0", "2026-11-01T00:00:00+00:00", flip=False,
                                     slower=False, finding="f"), None)
    a = Archive(tmp_path / "archive")
    a.add(legacy)
    _, model = build_archive_site(a.path, tmp_path / "site", now=NOW)
    assert [b.backend.label for b in model.site.conformance.backends] == ["fakert 1.0"]
    assert [p.backend.label for p in model.site.probes] == ["fakert 1.0"]
    assert set(model.site.archive.last_run) == {(kind, "fakert", "1.0", "CPU", "") for kind in ("run", "probe")}
    a.add(on_machine(make_version(tmp_path / "new", "1.0", "2026-11-02T00:00:00+00:00", flip=True, slower=False,
                                  finding="f"), AVX512_FEATURES))
    _, model = build_archive_site(a.path, tmp_path / "site2", now=NOW)
    (run,) = model.site.conformance.backends
    assert run.backend.label == "fakert 1.0" and run.header.date.startswith("2026-11-02")  # one class: no class label
    last = model.site.archive.column("run", run.backend)
    assert last is not None and last.runs == 2 and not model.machine_disagreements


def test_a_page_of_one_machine_class_names_no_class_in_its_columns(site):
    _, model = site
    assert all(" · " not in b.backend.label for b in model.site.conformance.backends)
    assert all(" · " not in p.backend.label for p in model.site.probes)


def test_changes_between_versions_compare_the_machine_class_both_were_run_on(tmp_path):
    """fakert 1.0 on AVX-512 and (newer) on AVX2, 2.0 on AVX-512 only, the cases differing by machine
    alone: 1.0 -> 2.0 compares the AVX-512 runs (no change, no machine note), not the newest 1.0 (AVX2)."""
    folders = [on_machine(make_version(tmp_path / root, v, date, flip=flip, slower=False, finding="f"), features)
               for root, v, date, flip, features in (
                   ("a", "1.0", "2026-11-01T00:00:00+00:00", False, AVX512_FEATURES),
                   ("b", "1.0", "2026-11-02T00:00:00+00:00", True, AVX2_FEATURES),
                   ("c", "2.0", "2026-11-03T00:00:00+00:00", False, AVX512_FEATURES))]
    a = Archive(tmp_path / "archive")
    a.add([f for pair in folders for f in pair])
    _, model = build_archive_site(a.path, tmp_path / "site", now=NOW)
    (change,) = model.changes
    assert change.runs_compared and not change.newly_failing and not change.newly_passing
    assert not change.machine_note and change.probes_compared and not change.limits_lost
    assert change.machines == "Some CPU, 8 cores, test [AVX512_CORE_BF16]"
    # Without a class in common the newest runs are compared, and the page says the machines differ.
    b = Archive(tmp_path / "archive2")
    b.add([*folders[1], *folders[2]])
    _, model = build_archive_site(b.path, tmp_path / "site2", now=NOW)
    (change,) = model.changes
    assert "different machines" in change.machine_note and len(change.newly_failing) == 1
