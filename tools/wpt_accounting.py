"""Account for every non-pass of one or more run folders (issue #40): per
backend, its pass/fail/unsupported/error counts per corpus, and each non-pass
in one category (harness/verdict/accounting.py): a WPT case that disagrees
with the spec, a backend deviation listed with evidence and versions, a
refusal in the backend's own words, or unaccounted. Prints markdown; exit 1
when anything is unaccounted.

    webnn-harness run --backend onnxruntime --cases ../shared/wpt --cases ../shared/wpt-extra --out out/ort
    .venv/bin/python tools/wpt_accounting.py out/ort
"""
from __future__ import annotations

import argparse
import sys

from webnn_harness.verdict.accounting import account, markdown
from webnn_harness.outputs.run_folder import RunFolderError, backend_groups, read_run_folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", metavar="RUN", help="run folders (results.jsonl)")
    args = parser.parse_args(argv)
    try:
        runs = [read_run_folder(run) for run in args.runs]
    except RunFolderError as exc:  # one line naming the file and line, as every command says it
        parser.error(str(exc))
    accounts = [account(records, str(b.get("name")), str(b.get("version")))
                for run in runs for b, records in backend_groups(run)]
    print(markdown(accounts))
    unaccounted = [i for a in accounts for i in a.unaccounted]
    for i in unaccounted:
        print(f"unaccounted: {i.id}: {i.status}: {i.reason}", file=sys.stderr)
    return 1 if unaccounted else 0


if __name__ == "__main__":
    sys.exit(main())
