"""Imported by the fork server (harness/execution/forkserver.py) before it
forks any worker: the modules each backend of the run says its workers need
(``BackendFacts.preload``, backends/base.py), read from the backend's facts
here, in the server, so that the run's own process starts the server before
it imports any backend. The backends are named in the server's environment
(``PRELOAD_BACKENDS``, one a line). Nothing here may raise: the server
imports this once, and an exception would end it before any worker is forked."""
from __future__ import annotations

import importlib
import os
from typing import Iterable

from webnn_harness.backends import facts
from webnn_harness.execution.forkserver import PRELOAD_BACKENDS


def declared_preloads(names: Iterable[str]) -> list[str]:
    """The modules the backends ``names`` declare, in order, each once; none
    for a backend that cannot be loaded (the run says why when it makes it)."""
    modules: list[str] = []
    for name in names:
        try:
            declared = facts(name).preload
        except Exception:  # noqa: BLE001 - anything a vendor's module raises; see the docstring
            continue
        modules += [m for m in declared if m not in modules]
    return modules


def preload(modules: Iterable[str]) -> None:
    """Import each module; one missing or failing here is imported again,
    and reported, by the worker that needs it."""
    for module in modules:
        try:
            importlib.import_module(module)
        except Exception:  # noqa: BLE001 - see the docstring
            pass


preload(declared_preloads(n for n in os.environ.get(PRELOAD_BACKENDS, "").split("\n") if n))
