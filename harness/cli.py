"""The command line: a table of subcommands, each a thin call into the
library. Expected errors print one line and exit 2; never a traceback."""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Callable

from webnn_harness import __version__
from webnn_harness.options import fraction, positive_int, positive_seconds, regex
from webnn_harness.execution.lifecycle import Terminated, sigterm_raises

EXIT_OK, EXIT_FAILURES, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad usage or unreadable input: one line on stderr, exit code 2."""


def _check_operator_names(names) -> None:
    import difflib

    from webnn_harness.spec.catalog import operators

    unknown = [op for op in names if op not in operators()]
    if unknown:
        hints = [m for op in unknown for m in difflib.get_close_matches(op, operators(), n=1)]
        raise UsageError(f"unknown operator{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}"
                         + (f" (did you mean {', '.join(hints)}?)" if hints else "; `webnn-harness ops` lists them"))


def _check_registered(names, source: str) -> None:
    """Backends named by a file we read must be registered ones: a ``module:factory`` written in a results
    file is never imported (data does not choose code); the user can still name it with --backend."""
    from webnn_harness.backends import available

    foreign = [n for n in names if n not in available()]
    if foreign:
        raise UsageError(f"{source}: its records name backend {foreign[0]!r}, which is not installed; "
                         "give the backend to re-run with --backend")


def _backend_requests(names: list[str] | None, option_pairs: list[str] | None):
    from webnn_harness.backends import DEFAULT_BACKENDS, available
    from webnn_harness.backends.base import parse_options
    from webnn_harness.api import BackendRequest

    try:
        options = parse_options(option_pairs or [])
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if not names:
        names = [n for n in DEFAULT_BACKENDS if n in available()]
    if len(names) > 1 and options:
        # An option names one backend's setting (ep=, device=); applying it to
        # several backends would be a guess, so ask for separate runs.
        raise UsageError("-o options apply to a single --backend; run each backend separately")
    return [BackendRequest(n, options) for n in names]


@contextlib.contextmanager
def _executors(args):
    """The executor factory of ``--executor``/``--ray-address``, closed after
    the command; a Ray run ends with how many cases each node ran."""
    from webnn_harness.execution.executors import executors

    try:
        factory = executors(args.executor, args.ray_address, getattr(args, "workers", None))
    except ValueError as exc:  # --ray-address without --executor ray
        raise UsageError(str(exc)) from None
    try:
        yield factory
    finally:
        factory.close()
    spread = getattr(factory, "cases_per_node", None)
    if spread:
        print("ray: " + ", ".join(f"{n} on {node}" for node, n in sorted(spread.items())), file=sys.stderr)


def _add_executor_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--executor", choices=("local", "ray"), default="local",
                   help="where cases run: local worker processes (default) or Ray actors (extra 'ray')")
    p.add_argument("--ray-address", metavar="ADDR",
                   help="join this Ray cluster (default with --executor ray: start a local Ray instance)")


def cmd_run(args) -> int:
    if args.backend and args.executor == "local":
        from webnn_harness.execution.forkserver import prestart

        prestart(args.backend)  # first thing: the workers' imports overlap this process's (harness/execution/forkserver.py)
    from webnn_harness.backends import BackendError, UnknownBackend
    from webnn_harness.loading.cases import DuplicateCaseId, bundled_corpus
    from webnn_harness.outputs.expectations import ExpectationsError
    from webnn_harness.outputs.run_folder import OutputFolderError, check_writable_file, rerun_failures
    from webnn_harness.progress import Progress
    from webnn_harness.api import RunEvents, RunRequest, run
    from webnn_harness.execution.pool import RunOptions
    from webnn_harness.loading.selection import CaseFilter, SelectionError, Shard

    paths = args.cases or [bundled_corpus()]
    for p in [*paths, *(args.expectations or [])]:
        if not Path(p).exists():
            raise UsageError(f"{p}: no such file or folder")
    out = Path(args.out)
    only, names, ids = None, args.backend, args.id or ()
    try:
        shard = Shard.parse(args.shard) if args.shard else None
        if args.rerun_failures:
            # Records name files by stable id: --cases gives the corpus again (default: the bundled one).
            rerun = rerun_failures(Path(args.rerun_failures), out)
            for problem in rerun.problems:
                print(f"warning: {problem}", file=sys.stderr)
            only, names, ids = rerun.only, args.backend or rerun.backends, ids or rerun.files
            if not args.backend:  # first: a results file never chooses code (issue 26)
                _check_registered(rerun.backends, args.rerun_failures)
            if not args.cases:
                _check_rerun_corpora(Path(args.rerun_failures), rerun.files)
        if args.junit:
            check_writable_file(Path(args.junit), "--junit")
        if args.update_expectations:  # before the run, not after it: readable if it is there, writable
            from webnn_harness.outputs.expectations import read_expectations

            if Path(args.update_expectations).exists() and not Path(args.update_expectations).is_dir():
                read_expectations(Path(args.update_expectations))
            check_writable_file(Path(args.update_expectations), "--update-expectations")
    except (SelectionError, OutputFolderError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    requests = _backend_requests(names, args.option)
    opts = RunOptions(workers=args.workers, timeout=args.timeout, batch_size=args.batch_size,
                      reference_cache=not args.no_cache)
    if args.update_expectations and len(requests) != 1:
        raise UsageError("--update-expectations writes one backend's expectations: give exactly one --backend")
    mode = "resume" if args.resume else "overwrite" if args.overwrite else "new"
    progress = Progress("case", enabled=not args.quiet)
    failing = []

    def on_record(record) -> None:
        if record.counts_against:
            failing.append(record)

    try:
        with _executors(args) as executor:
            selection = CaseFilter(ops=tuple(args.op) if args.op else None, name_filter=args.filter, ids=tuple(ids),
                                   shard=shard, max_case_bytes=args.max_case_bytes)
            request = RunRequest(cases=tuple(paths), backends=tuple(requests), out_dir=out, selection=selection,
                                 options=opts, expectations=tuple(args.expectations or ()), label=args.label,
                                 mode=mode, only=only, executor=executor, command=_public_argv(args))
            events = RunEvents(on_record=on_record, progress=progress.update, on_total=progress.set_total,
                               on_backend=lambda info, n: progress.start(f"{info['name']} {info['version']}", n))
            result = run(request, events)
    except (UnknownBackend, BackendError, SelectionError, ExpectationsError, DuplicateCaseId,
            OutputFolderError) as exc:
        raise UsageError(str(exc)) from None
    finally:
        progress.close()
    for problem in result.dropped_lines:
        print(f"warning: {problem}", file=sys.stderr)
    if result.resumed:
        print(f"resumed: kept {result.resumed} records of the earlier run in {out}")
    for err in result.load_errors[:20]:
        print(f"error: {err}", file=sys.stderr)
    if len(result.load_errors) > 20:
        print(f"error: ... and {len(result.load_errors) - 20} more case errors", file=sys.stderr)
    narrowed = bool(args.op or args.filter or args.id or shard)
    for tally in result.tallies:
        b = tally.backend
        counts = ", ".join(f"{n} {s}" for s, n in tally.counts.items() if n)
        known = f" ({tally.known_failures} known failures)" if tally.known_failures else ""
        loading = f", {tally.loading_seconds:.1f} s of it loading the cases alongside" if tally.loading_seconds >= 0.05 else ""
        print(f"{b['name']} {b['version']} on {b['device']}: {counts}{known} in {tally.seconds:.1f} s{loading}")
        _print_expectation_outcomes(result, b["name"], narrowed)
    _print_failing(failing, dict(zip((t.backend["name"] for t in result.tallies), requests)), result.corpus_paths)
    print(f"results: {out / 'results.jsonl'}, summary: {out / 'summary.json'}")
    if args.junit:
        from webnn_harness.outputs.junit import write_junit

        try:
            write_junit(out, Path(args.junit))
        except OSError as exc:  # checked before the run; the folder may have gone since
            raise UsageError(f"{args.junit}: cannot write JUnit XML: {exc.strerror or exc}") from None
        print(f"junit: {args.junit}")
    exit_code = result.exit_code
    if args.update_expectations:
        exit_code = _update_expectations(Path(args.update_expectations), out, requests[0], result,
                                         args.expectations or ())
    if any(e.index == -1 for e in result.load_errors):
        return EXIT_USAGE
    return exit_code


def _check_rerun_corpora(old_run: Path, files: list[str]) -> None:
    """``--rerun-failures OLD`` without ``--cases`` reads the bundled corpus: when
    OLD ran another corpus, say so with OLD's command rather than list every id
    the bundled corpus lacks."""
    from webnn_harness.loading.cases import bundled_corpus

    bundled = Path(bundled_corpus()).name
    others = sorted({f.split("/", 1)[0] for f in files} - {bundled})
    if not others:
        return
    try:
        command = json.loads((old_run / "summary.json").read_text(encoding="utf-8")).get("command")
    except (OSError, ValueError, AttributeError):
        command = None
    raise UsageError(f"{old_run} ran the corpus {', '.join(others)}, not the bundled one: pass the same --cases as it did"
                     + (f" (its command: {command})" if isinstance(command, str) else ""))


EXPECTATIONS_SHOWN = 3


def _print_expectation_outcomes(result, backend: str, narrowed: bool) -> None:
    _print_entries("stale expectation (its cases ran and passed)", result.expectations_with(backend, "stale"))
    unmatched = result.expectations_with(backend, "unmatched")
    if unmatched and narrowed:
        # --op/--filter/--id/--shard leave most entries' cases out on purpose.
        print(f"  {len(unmatched)} expectations matched no case of this selection", file=sys.stderr)
    else:
        _print_entries("expectation matched no case", unmatched)


def _print_entries(what: str, entries: list[dict]) -> None:
    """One line for a few entries; a count and the first few for many (all are in summary.json)."""
    if len(entries) <= EXPECTATIONS_SHOWN:
        for entry in entries:
            print(f"  {what}: {_describe_entry(entry)}", file=sys.stderr)
    elif entries:
        first = "; ".join(_describe_entry(e) for e in entries[:EXPECTATIONS_SHOWN])
        print(f"  {len(entries)} x {what} (all listed in summary.json under \"expectations\"), the first "
              f"{EXPECTATIONS_SHOWN}: {first}", file=sys.stderr)


def _describe_entry(entry: dict) -> str:
    what = f'"{entry["case"]}"' if "case" in entry else f"/{entry.get('match')}/"
    return f"{entry['source']}[{entry['index']}]: {entry.get('file', '*')}: {what}"


FAILING_SHOWN = 20


def _print_failing(failing, requests, corpus_paths) -> None:
    """The required cases that count against the exit code, each with what to
    run to see it again (``requests``: backend info name -> the request as the
    user gave it, which may be a module:factory path)."""
    if not failing:
        return
    from webnn_harness.outputs.rerun_commands import rerun_command

    print(f"{len(failing)} required case{'s' if len(failing) != 1 else ''} failed"
          f"{f' (first {FAILING_SHOWN} shown)' if len(failing) > FAILING_SHOWN else ''}:")
    for r in sorted(failing, key=lambda r: (r.backend["name"], r.id))[:FAILING_SHOWN]:
        detail = r.detail[:120]
        print(f"  {r.status:7} {r.backend['name']}: {r.id}{' - ' + detail if detail else ''}")
        req = requests.get(r.backend["name"])
        cmd = rerun_command(r.backend, [f"{k}={v}" for k, v in req.options.items()] if req else [], r.file, r.case,
                            corpus_paths.get(r.file.split("/", 1)[0]), req.name if req else None)
        print(f"          {cmd}")


def _update_expectations(path: Path, out: Path, request, result, given: tuple[str, ...]) -> int:
    """Write ``path`` from the run, then judge the run against it (and the
    expectations it ran with): the exit code of the run as the next one will see it."""
    from webnn_harness.outputs.expectations import ExpectationSet, read_expectations, update_expectations
    from webnn_harness.outputs.run_folder import read_records_whole

    try:
        previous = read_expectations(path) if path.exists() else ()
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    info = result.tallies[0].backend
    records = read_records_whole(out / "results.jsonl").records
    counts = update_expectations(path, records, previous, str(info.get("version", "")), request.options)
    print(f"expectations: {path} ({counts['added']} added, {counts['kept']} kept, {counts['dropped']} dropped as passing)")
    updated = ExpectationSet.for_backend(request.name, str(info.get("version", "")), request.options,
                                         [*given, path])
    left = sum(updated.apply(r).counts_against for r in records)
    print(f"judged against the updated expectations: {left} required failure{'s' if left != 1 else ''} "
          f"not listed{'; exit 1' if left else ''}")
    return EXIT_FAILURES if left else EXIT_OK


def cmd_ops(args) -> int:
    from webnn_harness.spec.catalog import catalog_json, operators

    _check_operator_names(args.op)
    if args.json:
        print(json.dumps(catalog_json(), indent=1))
        return EXIT_OK
    for name, spec in operators().items():
        if args.op and name not in args.op:
            continue
        print(name)
        for member, lim in spec.operands.items():
            hi = lim.allowed_ranks.max if lim.allowed_ranks.max is not None else "N"
            rq_hi = lim.required_ranks.max
            print(f"  {member:20} allowed {','.join(lim.allowed_data_types):55} ranks {lim.allowed_ranks.min}-{hi}"
                  f"  required {','.join(lim.required_data_types)} ranks {lim.required_ranks.min}-{rq_hi}")
        if spec.options:
            opts = ", ".join(f"{k}={o.default!r}" if o.default is not None else k for k, o in spec.options.items())
            print(f"  options: {opts}")
    return EXIT_OK


def cmd_backends(args) -> int:
    from webnn_harness import backends

    rows = []
    for name, target in sorted(backends.available().items()):
        try:
            info = backends.create(name, {}).info()
            rows.append({"name": name, "version": info.version, "device": info.device,
                         "settings": dict(info.settings), "entryPoint": target})
        except Exception as exc:  # noqa: BLE001 - list what can't load, with why
            rows.append({"name": name, "error": f"{type(exc).__name__}: {exc}", "entryPoint": target})
    if args.json:
        print(json.dumps(rows, indent=1, default=str))
        return EXIT_OK
    from webnn_harness.backends import DEFAULT_BACKENDS

    # Columns as wide as their longest entry (an OpenVINO build string is 40 characters).
    name_width = max(len(r["name"]) for r in rows) if rows else 0
    version_width = max((len(r["version"]) for r in rows if "error" not in r), default=0)
    for r in rows:
        if "error" in r:
            print(f"{r['name']:{name_width}}  not available: {r['error']}")
        else:
            print(f"{r['name']:{name_width}}  {r['version']:{version_width}}  {r['device']}")
    loaded = {r["name"] for r in rows if "error" not in r}
    used = [n for n in DEFAULT_BACKENDS if n in loaded]  # in the order run takes them
    print(f"run without --backend uses {', '.join(used) or 'none of these (install one)'}; bench the same but the reference")
    return EXIT_OK


def cmd_probe(args) -> int:
    """Measure what a backend supports; write <backend>-opSupportLimits.json and <backend>-probe.json."""
    from tqdm import tqdm

    from webnn_harness.backends import BackendError, UnknownBackend
    from webnn_harness.backends.base import parse_options
    from webnn_harness.probe.driver import probe
    from webnn_harness.probe.summary import compare_summary_text, probe_summary_text
    from webnn_harness.execution.pool import RunOptions

    from webnn_harness import backends
    from webnn_harness.outputs.limits_file import LimitsFileError, read_limits_file
    from webnn_harness.outputs.writing import OutputFolderError

    try:
        options = parse_options(args.option or [])
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    _check_operator_names(args.op or ())
    if args.compare:
        try:
            read_limits_file(args.compare)  # before the probe: a bad file must not cost a whole probe
        except LimitsFileError as exc:
            raise UsageError(str(exc)) from None
    try:
        backends.create(args.backend, options)  # its options, checked before any worker starts
    except (ValueError, TypeError) as exc:
        raise UsageError(f"{args.backend}: {exc}") from None
    except (UnknownBackend, BackendError) as exc:
        raise UsageError(str(exc)) from None
    bar = tqdm(total=None, unit="combination", file=sys.stderr, disable=args.quiet or None, dynamic_ncols=True)
    try:
        with _executors(args) as executor:
            result = probe(
                args.backend, options, Path(args.out), ops=args.op, max_bytes=args.max_bytes,
                run=RunOptions(workers=args.workers, timeout=args.timeout, batch_size=args.batch_size),
                layout=not args.no_layout, byte_search=not args.no_bytes, progress=bar.update,
                compare_file=Path(args.compare) if args.compare else None, executor=executor,
                mode="overwrite" if args.overwrite else "new",
            )
    except (UnknownBackend, BackendError, OutputFolderError) as exc:
        raise UsageError(str(exc)) from None
    finally:
        bar.close()
    s = result.evidence["summary"]
    counts = ", ".join(f"{n} {o}" for o, n in s["outcomes"].items() if n)
    print(f"{result.evidence['header']['backend']['name']}: {s['combinations']} combinations ({counts}) in {result.seconds:.1f} s")
    print(probe_summary_text(result.evidence))
    if "compare" in result.evidence:
        print(f"against {args.compare}: {compare_summary_text(result.evidence['compare'])}")
    print(f"opSupportLimits: {result.limits_path}, evidence: {result.evidence_path}")
    return EXIT_OK


def cmd_fuzz(args) -> int:
    """Fuzz one backend against the reference; minimal failing graphs go to DIR/findings."""
    from webnn_harness.backends import BackendError, UnknownBackend
    from webnn_harness.backends.base import parse_options
    from webnn_harness.fuzz.driver import FuzzSettings, fuzz
    from webnn_harness.outputs.writing import OutputFolderError

    try:
        options = parse_options(args.option or [])
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    out = Path(args.out)
    config = FuzzSettings(args.backend, options, tuple(args.op or ()), args.time, args.seed, args.max_ops, args.timeout,
                          shrink_cap=args.shrink_cap, probe=args.probe)
    from webnn_harness.fuzz.findings import finding_line, findings_tally

    show = (lambda f: None) if args.quiet else (lambda f: print(finding_line(f), file=sys.stderr))
    try:
        result = fuzz(config, out, on_finding=show, mode="overwrite" if args.overwrite else "new")
    except (UnknownBackend, BackendError, KeyError, ValueError, OutputFolderError) as exc:
        raise UsageError(str(exc).strip("'\"")) from None
    print(f"{result.tally.graphs} graphs ({result.tally.shrinking} while shrinking) in {result.seconds:.1f} s: "
          f"{findings_tally(result.findings)}; {result.summary_path}")
    return EXIT_FAILURES if result.new_deviations else EXIT_OK


def cmd_accuracy(args) -> int:
    """TOSA's dot-product compliance check on generated data sets, beside the WPT verdict;
    DIR/accuracy.jsonl and DIR/summary.json. Exit 1 when a case does not comply, crashes, hangs or errs."""
    from webnn_harness.accuracy.driver import AccuracySettings, accuracy
    from webnn_harness.outputs.writing import OutputFolderError
    from webnn_harness.accuracy.plans import OPS
    from webnn_harness.backends import BackendError, UnknownBackend
    from webnn_harness.backends.base import parse_options

    try:
        options = parse_options(args.option or [])
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    unknown = [op for op in args.op or () if op not in OPS]
    if unknown:
        raise UsageError(f"accuracy covers {', '.join(OPS)}; not {', '.join(unknown)}")
    config = AccuracySettings(args.backend, options, tuple(dict.fromkeys(args.op or ())),
                              tuple(dict.fromkeys(args.data_type or ())) or AccuracySettings.data_types,
                              timeout=args.timeout, workers=args.workers)

    def show(line: dict) -> None:
        if not args.quiet:
            verdict = {True: "complies", False: "does not comply"}.get(line["compliant"], "not checked")
            failed = f" ({', '.join(line['failed'])})" if line["failed"] else ""
            print(f"{line['op']} {line['dataType']} {line['dataSet']} k={line['k']}: {verdict}{failed}; "
                  f"WPT {line['wpt']['status']}", file=sys.stderr)

    try:
        result = accuracy(config, Path(args.out), on_record=show, mode="overwrite" if args.overwrite else "new")
    except (UnknownBackend, BackendError, OutputFolderError) as exc:
        raise UsageError(str(exc).strip("'\"")) from None
    counts = result.counts
    print(f"{len(result.records)} cases in {result.seconds:.1f} s: {counts['compliant']} compliant, "
          f"{counts['non-compliant']} not, {counts['not checked']} not checked; {result.summary_path.parent / 'accuracy.jsonl'}")
    return EXIT_FAILURES if result.problems else EXIT_OK


def cmd_report(args) -> int:
    """Write the static HTML site (capability matrix, conformance report) from run and probe outputs."""
    from webnn_harness.reports import ReportInputError, build_model
    from webnn_harness.reports.render import render_site

    if bool(args.inputs) == bool(args.archive):
        raise UsageError("give the folders to report on or --archive ARCHIVE (one of the two)")
    if args.archive:
        return _report_archive(args)
    try:
        model = build_model(args.inputs)
        for warning in model.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        index = render_site(model, Path(args.out))
    except ReportInputError as exc:
        raise UsageError(str(exc)) from None
    print(f"report: {index} (open {index.resolve().as_uri()} in a browser)")
    return EXIT_OK


def _report_archive(args) -> int:
    from webnn_harness.reports import ReportInputError, build_archive_site

    try:
        index, model = build_archive_site(args.archive, args.out, stale_days=args.stale_days)
    except ReportInputError as exc:
        raise UsageError(str(exc)) from None
    for warning in model.site.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    failing = sum(len(c.newly_failing) for c in model.changes)
    print(f"report: {index} from {model.site.archive.entries} archived outputs: {len(model.changes)} version "
          f"change(s) ({failing} case(s) newly failing), {len(model.steps)} step(s) in the history "
          f"(open {index.resolve().as_uri()} in a browser)")
    return EXIT_OK


def cmd_archive(args) -> int:
    """archive add ARCHIVE DIR...: store outputs as immutable entries; archive list ARCHIVE: what is stored."""
    from webnn_harness.archive import Archive, ArchiveError

    archive = Archive(args.archive)
    try:
        if args.action == "add":
            result = archive.add(args.folders)
            for warning in result.warnings:
                print(f"warning: {warning}", file=sys.stderr)
            for entry in result.added:
                print(f"added {entry.id} {entry.kind} {entry.backend_text} {entry.date}")
            for entry in result.present:
                print(f"already archived {entry.id} {entry.kind} {entry.backend_text} {entry.date}")
            print(f"archive {args.archive}: {len(result.added)} added, {len(result.present)} already there")
            return EXIT_OK
        entries, problems = archive.entries()
    except ArchiveError as exc:
        raise UsageError(str(exc)) from None
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    if args.json:
        print(json.dumps([e.to_json() for e in entries], indent=1))
    else:
        for e in entries:
            print(f"{e.id}  {e.kind:5}  {e.date}  {e.backend_text}  {e.machine}  {e.label}")
    return EXIT_OK


def cmd_bench(args) -> int:
    """Time verified benchmarks on backends; write DIR/bench.jsonl and DIR/summary.json. Exit 1 when a
    variant is wrong, errs, crashes or hangs, or with --baseline when one regressed; 2 on bad usage."""
    from webnn_harness.backends import BackendError, UnknownBackend
    from webnn_harness.bench.driver import BenchFolderExists, BenchOptions, run_bench
    from webnn_harness.bench.measure import TimingPolicy
    from webnn_harness.bench.suite import load_suite
    from webnn_harness.bench.regressions import compare_bench
    from webnn_harness.bench.console import comparison_lines, noise_line, published_tables, record_line
    from webnn_harness.outputs.kinds import holds
    from webnn_harness.bench.ray_cluster import bench_executor

    names = args.backend
    if not names:  # the reference is the yardstick, not a contender: bench it only when named
        from webnn_harness.backends import DEFAULT_BACKENDS, available

        names = [n for n in DEFAULT_BACKENDS if n != "reference" and n in available()] or ["reference"]
    requests = _backend_requests(names, args.option)
    if args.baseline and not holds(args.baseline, "bench"):
        raise UsageError(f"--baseline {args.baseline}: not a bench folder (no bench.jsonl)")
    if args.threads is not None and args.threads < 1:
        raise UsageError("--threads must be at least 1")
    try:
        suite = load_suite(args.suite)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    for err in suite.errors:
        print(f"error: {err}", file=sys.stderr)
    threads = args.threads
    for request in requests:  # -o threads=N and --threads are one setting
        if "threads" in request.options:
            threads = int(request.options["threads"]) if request.options["threads"].isdigit() else threads
    policy = TimingPolicy(min_time=args.min_time, min_samples=args.min_samples, max_time=args.max_time)
    options = BenchOptions(policy=policy, timeout=args.timeout, threads=threads, name_filter=args.filter,
                           save_artifacts=not args.no_artifacts, profile_runs=args.profile or 0)
    show = (lambda record: None) if args.quiet else (lambda record: print(record_line(record), flush=True))
    try:
        with _executors(args) as executor:
            result = run_bench(suite, [(r.name, r.options) for r in requests], Path(args.out), options,
                               command=_public_argv(args), overwrite=args.overwrite,
                               on_record=show, executor=bench_executor(executor))
    except (UnknownBackend, BackendError, BenchFolderExists, ValueError) as exc:
        raise UsageError(str(exc)) from None
    for line in published_tables(result.records):
        print(line)
    counts = ", ".join(f"{n} {s}" for s, n in result.counts.items() if n)
    print(f"{suite.name}: {counts}; bench: {result.out / 'bench.jsonl'}, summary: {result.out / 'summary.json'}")
    noise = noise_line(json.loads((result.out / "summary.json").read_text()))
    if noise:
        print(noise)
    if args.baseline:
        comparison = compare_bench(args.baseline, result.out, threshold=args.threshold)
        for line in comparison_lines(comparison):
            print(line)
        if comparison.nothing_compared():  # "0 regressions" of nothing is no pass
            raise UsageError(f"--baseline: {comparison.nothing_compared()}")
        if comparison.regressions:
            return EXIT_FAILURES
    if suite.errors:
        return EXIT_USAGE
    # wrong numbers, crashes, hangs and harness errors fail the bench; a backend refusing a graph does not
    failed = sum(result.counts[s] for s in ("wrong", "error", "crash", "timeout"))
    return EXIT_FAILURES if failed else EXIT_OK


def cmd_diff(args) -> int:
    """Compare two run folders by case id; exit 1 when NEW regressed against BASE."""
    from webnn_harness.outputs.kinds import holds
    from webnn_harness.outputs.run_diff import FORMATS, diff_runs

    benches = [holds(d, "bench") for d in (args.base, args.new)]
    if any(benches):
        if not all(benches):
            raise UsageError("diff compares two run folders or two bench folders, not one of each")
        return _diff_benches(args)
    _check_out_file(args.out)
    try:
        diff = diff_runs(args.base, args.new, on_problem=_warn)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    _write_diff(args, FORMATS[args.format](diff), diff.regressions)
    return EXIT_FAILURES if diff.exit_code else EXIT_OK


def _write_diff(args, text: str, regressions: int) -> None:
    """A diff goes to --out (with one line saying so) or to stdout."""
    if args.out:
        from webnn_harness.outputs.writing import write_atomic

        write_atomic(Path(args.out), text)
        print(f"{regressions} regressions; {args.format} written to {args.out}")
    else:
        sys.stdout.write(text)


def _diff_benches(args) -> int:
    """Two bench folders: significant slowdowns beyond --threshold are regressions (exit 1)."""
    from webnn_harness.bench.regressions import compare_bench
    from webnn_harness.bench.console import comparison_lines, comparison_markdown

    _check_out_file(args.out)
    try:
        comparison = compare_bench(args.base, args.new, threshold=args.threshold, on_problem=_warn)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if comparison.nothing_compared():
        raise UsageError(comparison.nothing_compared())
    if args.format == "json":
        text = json.dumps(comparison.to_json(), indent=2) + "\n"
    elif args.format == "markdown":
        text = comparison_markdown(comparison)
    else:
        text = "\n".join(comparison_lines(comparison)) + "\n"
    _write_diff(args, text, len(comparison.regressions))
    return EXIT_FAILURES if comparison.regressions else EXIT_OK


def _public_argv(args) -> str:
    """This command line (as ``main`` got it) as a summary records it (api.public_command)."""
    from webnn_harness.api import public_command

    return public_command(args.argv)


def _warn(problem: str) -> None:
    """A line of an output folder that was skipped (harness/outputs/reading.py): said, never fatal."""
    print(f"warning: {problem}", file=sys.stderr)


def _check_out_file(path: str | None) -> None:
    """An --out FILE that cannot be written is a usage error before any work (a folder, a missing
    parent, a name too long), not a traceback after it."""
    from webnn_harness.outputs.run_folder import check_writable_file

    if path:
        try:
            check_writable_file(Path(path), "--out")
        except ValueError as exc:
            raise UsageError(str(exc)) from None


def cmd_merge(args) -> int:
    """Join the shard folders of one sharded run into one run folder."""
    from webnn_harness.outputs.shard_merge import merge_runs

    out = Path(args.out)
    try:
        summary = merge_runs(args.folders, out, command=_public_argv(args), on_problem=_warn)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    doc = json.loads(summary.read_text())
    for b in doc["backends"]:
        counts = ", ".join(f"{n} {s}" for s, n in b["counts"].items() if n)
        print(f"{b['backend']['name']} {b['backend']['version']}: {counts}")
    print(f"merged {len(args.folders)} shards: {out / 'results.jsonl'}, {summary}")
    return EXIT_OK


def cmd_junit(args) -> int:
    """Write JUnit XML from a run folder."""
    from webnn_harness.outputs.junit import write_junit

    _check_out_file(args.out)
    try:
        n = write_junit(Path(args.run), Path(args.out), on_problem=_warn)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    print(f"junit: {args.out} ({n} test cases)")
    return EXIT_OK


COMMANDS: dict[str, tuple[Callable, str]] = {
    "run": (cmd_run, "run conformance cases on backends"),
    "ops": (cmd_ops, "print the operator catalog (the spec's tensor limits and options)"),
    "backends": (cmd_backends, "list installed backends with versions and devices"),
    "probe": (cmd_probe, "measure a backend's real opSupportLimits (and the evidence behind it)"),
    "report": (cmd_report, "write the HTML conformance and performance reports and capability matrix"),
    "diff": (cmd_diff, "compare two runs case by case: regressions, fixes, new and removed cases"),
    "merge": (cmd_merge, "join the output folders of a sharded run into one run folder"),
    "junit": (cmd_junit, "write JUnit XML from a run folder"),
    "fuzz": (cmd_fuzz, "fuzz a backend with generated graphs; shrink each failure to a minimal case file"),
    "bench": (cmd_bench, "time verified benchmarks (suites of ops and interop scenarios) on a backend"),
    "accuracy": (cmd_accuracy, "TOSA's dot-product compliance (error bound from the operands) for sums of products"),
    "archive": (cmd_archive, "keep run, probe, bench and fuzz outputs across versions (add, list) for report --archive"),
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        """One line, like every other usage error (argparse also prints the whole usage)."""
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="webnn-harness", description="WebNN conformance and capability harness")
    p.add_argument("--version", action="version", version=f"webnn-harness {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help=COMMANDS["run"][1])
    run.add_argument("--backend", "-b", action="append", help="backend name (repeatable; default: all installed defaults)")
    run.add_argument("-o", "--option", action="append", metavar="KEY=VALUE", help="backend option, e.g. ep=CUDAExecutionProvider")
    run.add_argument("--cases", action="append", help="case file or folder (repeatable; default: the bundled corpus)")
    run.add_argument("--op", action="append", help="only cases using this operator (repeatable)")
    run.add_argument("--filter", help="only cases whose name matches this regular expression")  # checked by CaseFilter
    run.add_argument("--out", default="out/run", help="output folder (default: out/run)")
    run.add_argument("--workers", type=positive_int, default=os.cpu_count() or 1, help="worker processes (default: cores)")
    run.add_argument("--timeout", type=positive_seconds, default=60.0, help="seconds per case before it counts as a timeout (default 60)")
    run.add_argument("--batch-size", type=positive_int,
                     help="cases per worker batch (default: the backend's preference, else 16)")
    run.add_argument("--max-case-bytes", type=positive_int, metavar="BYTES",
                     help="refuse a case whose tensors need more (default: a quarter of physical memory)")
    again = run.add_mutually_exclusive_group()
    again.add_argument("--overwrite", action="store_true", help="replace the run already in --out")
    again.add_argument("--resume", action="store_true",
                       help="continue the interrupted run in --out: keep its records, run only the cases they lack")
    again.add_argument("--rerun-failures", metavar="RUN",
                       help="run only the cases that did not pass in the run folder RUN (into a new --out)")
    run.add_argument("--junit", metavar="FILE", help="also write JUnit XML")
    _add_executor_arguments(run)
    run.add_argument("--no-cache", action="store_true",
                     help="compute reference results afresh, neither reading nor writing "
                          "$XDG_CACHE_HOME/webnn-harness (default ~/.cache/webnn-harness)")
    run.add_argument("--quiet", "-q", action="store_true", help="no progress as it runs (the bar); the summary still prints")
    run.add_argument("--id", action="append", metavar="CASE_ID",
                     help="only this case id (wpt/relu.json::name) or case file id (wpt/relu.json) (repeatable)")
    run.add_argument("--shard", metavar="I/N", help="run shard I of N (1-based): a balanced slice by case id")
    run.add_argument("--label", help="the run's name on report pages (default: its corpora, e.g. wpt)")
    run.add_argument("--expectations", action="append", metavar="FILE",
                     help="known failures of this backend (JSON, harness/schema/expectations.schema.json; repeatable)")
    run.add_argument("--update-expectations", metavar="FILE",
                     help="after the run, write FILE from its failures (keeping entries that still apply)")

    ops = sub.add_parser("ops", help=COMMANDS["ops"][1])
    ops.add_argument("--json", action="store_true", help="print the catalog as JSON instead of text")
    ops.add_argument("op", nargs="*", help="only these operators")

    bk = sub.add_parser("backends", help=COMMANDS["backends"][1])
    bk.add_argument("--json", action="store_true", help="print the backends as JSON (name, version, device, settings, entry point)")

    pr = sub.add_parser("probe", help=COMMANDS["probe"][1])
    pr.add_argument("--backend", "-b", required=True, help="backend name (or package.module:factory)")
    pr.add_argument("-o", "--option", action="append", metavar="KEY=VALUE", help="backend option")
    pr.add_argument("--out", default="out/probe", help="output folder (default: out/probe)")
    pr.add_argument("--overwrite", action="store_true", help="replace this backend's probe already in --out")
    pr.add_argument("--op", action="append", help="only this operator (repeatable; default: all)")
    pr.add_argument("--max-bytes", type=positive_int, default=1 << 30,
                    help="memory budget of the maxTensorByteLength search (default 1 GiB; not run's --max-case-bytes, "
                         "which refuses cases)")
    pr.add_argument("--compare", metavar="FILE", help="diff against a declared opSupportLimits JSON")
    pr.add_argument("--workers", type=positive_int, default=os.cpu_count() or 1, help="worker processes (default: cores)")
    pr.add_argument("--timeout", type=positive_seconds, default=20.0, help="seconds per combination before it counts as a timeout (default 20)")
    pr.add_argument("--batch-size", type=positive_int, default=64, help="combinations per worker batch (default 64)")
    pr.add_argument("--no-layout", action="store_true", help="skip the preferredInputLayout timing")
    _add_executor_arguments(pr)
    pr.add_argument("--no-bytes", action="store_true", help="skip the maxTensorByteLength search")
    pr.add_argument("--quiet", "-q", action="store_true", help="no progress as it runs (the bar); the summary still prints")

    fz = sub.add_parser("fuzz", help=COMMANDS["fuzz"][1])
    fz.add_argument("--backend", "-b", required=True, help="backend name (or package.module:factory)")
    fz.add_argument("-o", "--option", action="append", metavar="KEY=VALUE", help="backend option")
    fz.add_argument("--op", action="append", help="only this operator (repeatable; default: all)")
    fz.add_argument("--time", type=positive_seconds, default=60.0, help="seconds of searching (default 60; shrinking a late finding may add half, at least 30 s)")
    fz.add_argument("--seed", type=int, default=None,
                    help="seed of the search: the same seed draws the same graphs, and no example database is used "
                         "(default: new graphs each run, failing ones kept in OUT/hypothesis)")
    fz.add_argument("--max-ops", type=positive_int, default=2, help="longest chain of operators in a graph (default 2)")
    fz.add_argument("--timeout", type=positive_seconds, default=30.0, help="seconds per graph before it counts as a hang (default 30)")
    fz.add_argument("--shrink-cap", type=positive_seconds, help="seconds of shrinking per finding (default: 5%% of --time, at least 10)")
    fz.add_argument("--probe", help="probe folder (or BACKEND-probe.json) to check findings against: the probe's verdict per op "
                                    "and data type; what it already found wrong is known")
    fz.add_argument("--out", default="out/fuzz", help="output folder (default: out/fuzz)")
    fz.add_argument("--overwrite", action="store_true", help="reuse an --out that holds a fuzz run (its example database is replayed)")
    fz.add_argument("--quiet", "-q", action="store_true", help="no progress as it runs (a line per finding); the summary still prints")
    fz.epilog = ("exit 1 when a finding is new and caused by the backend; precision effects (the spec's formula "
                 "in the operand's type gives the same) and known failures are reported but exit 0")

    ac = sub.add_parser("accuracy", help=COMMANDS["accuracy"][1])
    ac.add_argument("--backend", "-b", required=True, help="backend name (or package.module:factory)")
    ac.add_argument("-o", "--option", action="append", metavar="KEY=VALUE", help="backend option")
    ac.add_argument("--op", action="append", help="only this operator (repeatable; default: matmul, gemm, conv2d, "
                                                  "convTranspose2d, reduceSum, reduceMean)")
    ac.add_argument("--data-type", action="append", choices=("float32", "float16"), help="only this data type (repeatable)")
    ac.add_argument("--timeout", type=positive_seconds, default=60.0, help="seconds per case before it counts as a hang")
    ac.add_argument("--workers", type=positive_int, default=1, help="worker processes (default 1)")
    ac.add_argument("--out", default="out/accuracy", help="output folder (default: out/accuracy); refused when it holds "
                    "an earlier accuracy run, unless --overwrite")
    ac.add_argument("--overwrite", action="store_true", help="replace an earlier accuracy run in --out (only its files)")
    ac.add_argument("--quiet", "-q", action="store_true", help="no line per case")
    ac.epilog = ("exit 1 when a case does not comply or crashes, hangs or errs; a case the backend refuses is "
                 "recorded as not checked and is no failure")

    rp = sub.add_parser("report", help=COMMANDS["report"][1])
    rp.add_argument("inputs", nargs="*", metavar="INPUT",
                    help="run folder (results.jsonl, summary.json), probe output (*-opSupportLimits.json, *-probe.json), "
                         "bench folder (bench.jsonl), fuzz folder, or a folder of them")
    rp.add_argument("--out", default="out/site", help="site folder (default: out/site)")
    rp.add_argument("--archive", metavar="ARCHIVE", help="build the site from an archive (archive add): every "
                    "backend version a column, a changes page and per-op history")
    rp.add_argument("--stale-days", type=positive_int, default=30,
                    help="with --archive: mark a column stale when last run this many days before (default 30)")

    be = sub.add_parser("bench", help=COMMANDS["bench"][1])
    be.add_argument("--backend", "-b", action="append",
                    help="backend name (repeatable; default: the installed default backends but the reference)")
    be.add_argument("-o", "--option", action="append", metavar="KEY=VALUE", help="backend option, e.g. threads=2")
    be.add_argument("--suite", default="default", help="built-in suite name (default, seed, ops, peaks) or a suite JSON file")
    be.add_argument("--out", default="out/bench", help="output folder (default: out/bench)")
    be.add_argument("--overwrite", action="store_true", help="replace a bench already in --out")
    be.add_argument("--filter", type=regex, help="only benchmarks whose id matches this regular expression")
    be.add_argument("--threads", type=positive_int, help="backend threads (same as -o threads=N; default: every usable core)")
    be.add_argument("--min-time", type=positive_seconds, default=0.5, help="seconds of timed samples per variant at least (default 0.5)")
    be.add_argument("--min-samples", type=positive_int, default=10, help="timed samples per variant at least (default 10)")
    be.add_argument("--max-time", type=positive_seconds, default=10.0, help="stop sampling a variant after this many seconds (default 10)")
    be.add_argument("--timeout", type=positive_seconds, default=300.0, help="seconds per variant before it counts as a timeout (default 300)")
    be.add_argument("--no-artifacts", action="store_true", help="do not save the timed models under DIR/artifacts")
    be.add_argument("--baseline", metavar="DIR", help="bench folder to compare with; exit 1 on a regression")
    be.add_argument("--threshold", type=fraction, default=0.05, help="relative slowdown that counts with --baseline (default 0.05)")
    be.add_argument("--quiet", "-q", action="store_true", help="no progress as it runs (a line per record); the summary still prints")
    be.add_argument("--profile", type=positive_int, nargs="?", const=10, metavar="RUNS",
                    help="after the timed runs, run each variant with the backend's profiler on at least RUNS "
                         "times (default 10) and for --min-time, in blocks between runs of the timed graph, and "
                         "record per-node times and the profiler's cost (ORT session profiling, OpenVINO PERF_COUNT)")
    _add_executor_arguments(be)

    df = sub.add_parser("diff", help=COMMANDS["diff"][1])
    df.add_argument("base", metavar="BASE", help="the baseline run or bench folder (e.g. the last main run)")
    df.add_argument("new", metavar="NEW", help="the run or bench folder to judge")
    df.add_argument("--format", choices=("text", "json", "markdown"), default="text",
                    help="text (default), json, or markdown (a pull-request comment)")
    df.add_argument("--out", metavar="FILE", help="write the output here instead of stdout")
    df.add_argument("--threshold", type=fraction, default=0.05,
                    help="bench folders: relative slowdown that counts as a regression (default 0.05)")

    mg = sub.add_parser("merge", help=COMMANDS["merge"][1])
    mg.add_argument("folders", nargs="+", metavar="DIR", help="the shards' --out folders (every shard once)")
    mg.add_argument("--out", default="out/run", help="the merged run folder (default: out/run, as run's; must not hold a run)")

    ar = sub.add_parser("archive", help=COMMANDS["archive"][1])
    ar_sub = ar.add_subparsers(dest="action", required=True)
    ar_add = ar_sub.add_parser("add", help="store output folders as entries (the same folder again adds nothing)")
    ar_add.add_argument("archive", metavar="ARCHIVE", help="the archive folder (created when new)")
    ar_add.add_argument("folders", nargs="+", metavar="DIR", help="run, probe, bench or fuzz output folders")
    ar_list = ar_sub.add_parser("list", help="list the entries")
    ar_list.add_argument("archive", metavar="ARCHIVE")
    ar_list.add_argument("--json", action="store_true")

    ju = sub.add_parser("junit", help=COMMANDS["junit"][1])
    ju.add_argument("run", metavar="RUN", help="a run folder")
    ju.add_argument("--out", "--junit", required=True, metavar="FILE",
                    help="the JUnit XML file to write (--junit FILE as with run)")
    return p


# What the interrupt line says of continuing, per command that has a way to.
CONTINUING = {
    "run": " (run --resume continues the run)",
    "fuzz": " (fuzz --overwrite into the same --out replays its example database)",
}


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    args.argv = ["webnn-harness", *(sys.argv[1:] if argv is None else argv)]  # what summaries record
    fn, _ = COMMANDS[args.command]
    try:
        with sigterm_raises():
            return fn(args)
    except UsageError as exc:
        print(f"webnn-harness {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (KeyboardInterrupt, Terminated) as exc:
        what = "interrupted" if isinstance(exc, KeyboardInterrupt) else f"stopped by {exc}"
        print(f"webnn-harness {args.command}: {what}; what was written so far is kept"
              f"{CONTINUING.get(args.command, '')}", file=sys.stderr)
        return 128 + (exc.signum if isinstance(exc, Terminated) else 2)
    except BrokenPipeError:
        # The reader went away (`ops --json | head`): stop quietly. Point stdout at
        # devnull so the interpreter's own flush at exit does not raise again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FAILURES
    except OSError as exc:
        # A full disk, a read-only file system, a name too long, met while writing: the records written
        # so far are whole (each file is appended a line at a time or replaced atomically) and the summary
        # written first still says the output is incomplete.
        from webnn_harness.outputs.writing import describe_write_error

        print(f"webnn-harness {args.command}: error: {describe_write_error(exc)}; what was written so far is kept",
              file=sys.stderr)
        return EXIT_FAILURES


if __name__ == "__main__":
    sys.exit(main())
