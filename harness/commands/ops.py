"""``webnn-harness ops``: the operator catalog (harness/spec/catalog.py)."""
from __future__ import annotations

import argparse
import json

from webnn_harness.commands.common import EXIT_OK, check_operator_names

HELP = "print the operator catalog (the spec's tensor limits and options)"


def add_arguments(ops: argparse.ArgumentParser) -> None:
    ops.add_argument("--json", action="store_true", help="print the catalog as JSON instead of text")
    ops.add_argument("op", nargs="*", help="only these operators")


def handle(args) -> int:
    from webnn_harness.spec.catalog import catalog_json, operators

    check_operator_names(args.op)
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
