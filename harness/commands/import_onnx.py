"""``webnn-harness import-onnx``: ONNX models as WebNN graph cases (harness/loading/onnx_import.py)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from webnn_harness.commands.common import (
    EXIT_FAILURES, EXIT_OK, UsageError, add_out_argument, add_overwrite_argument, add_quiet_argument, folder_mode,
)

def _seed(text: str) -> int:
    """``--seed``: a whole number from 0 (numpy's generators take no negative seed)."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a whole number from 0")
    return int(text)


HELP = "turn ONNX models into WebNN graph cases (one case file per model, expected outputs from the reference)"


def add_arguments(im: argparse.ArgumentParser) -> None:
    im.add_argument("models", metavar="MODEL.onnx", nargs="+", help="ONNX model files (external data is not read)")
    add_out_argument(im, "out/onnx-import", help="output folder (default: out/onnx-import): <stem>.json per model, "
                     "<stem>.weights.bin where it has weights to keep, and INDEX.json")
    add_overwrite_argument(im, "replace an earlier import in --out (only the files this import writes)")
    im.add_argument("--seed", type=_seed, default=None, metavar="N",
                    help="replace constant-filled weights (ConstantOfShape, one value repeated) with seeded values "
                         "of the same shape, written as generate specs (default: keep them as written)")
    im.add_argument("--no-ort-check", dest="check_ort", action="store_false",
                    help="do not run each original model in ONNX Runtime on the case's inputs to compare")
    add_quiet_argument(im, help="no line per model imported (a refused model is always said)")
    im.epilog = ("exit 1 when a model was refused (its line names model, node and op; the others are imported); "
                 "exit 2 when no model file was given that exists")


def handle(args) -> int:
    from webnn_harness.outputs.onnx_import_folder import import_models
    from webnn_harness.files.writes import OutputFolderError

    models = [Path(m) for m in args.models]
    for m in models:
        if not m.is_file():  # a folder, a named pipe or device is never opened (opening a pipe could hang)
            raise UsageError(f"{m}: {'not a regular file' if m.exists() else 'no such model file'}")

    def show(result) -> None:
        if result.refused:
            print(f"refused: {result.refused}", file=sys.stderr)
        elif not args.quiet:
            e = result.entry
            print(f"{result.stem}.json: {e['nodes']} nodes, {sum(e['webnnOps'].values())} WebNN ops, "
                  f"reference {e['referenceSeconds']:.1f} s, peak {e['referencePeakBytes'] / 2**20:.0f} MiB",
                  file=sys.stderr)

    try:
        summary = import_models(models, Path(args.out), folder_mode(args), args.seed, args.check_ort, on_model=show)
    except (ValueError, OutputFolderError) as exc:
        raise UsageError(str(exc)) from None
    print(f"{summary.imported} models imported, {len(summary.refused)} refused; written to {args.out}")
    return EXIT_FAILURES if summary.refused else EXIT_OK
