"""What a run ran with, as its summary records it (``RunSetup``), and as
read back from a summary, or from the command line of a run from before
summaries recorded it: what ``run --rerun-failures`` repeats
(harness/rerun_plan.py). The backends a run is asked for are
``BackendRequest``s (harness/api.py's ``RunRequest``)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from webnn_harness.loading.caseid import BUNDLED_CORPUS, corpus_root
from webnn_harness.loading.cases import bundled_corpus


@dataclass(frozen=True)
class BackendRequest:
    name: str
    options: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class RunSetup:
    """What a run ran with, as its summary records it (``"request"``), so that ``run --rerun-failures``
    runs it again the same way: its backends with their options, its corpora and its expectations
    files, the paths as ``shown_path`` names them (relative to where it ran; () for the bundled corpus)."""
    backends: tuple[BackendRequest, ...]
    cases: tuple[str, ...] = ()
    expectations: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {"backends": [{"name": b.name, "options": dict(b.options)} for b in self.backends],
                "cases": list(self.cases), "expectations": list(self.expectations)}

    @classmethod
    def of_request(cls, request) -> "RunSetup":  # an api.RunRequest (api imports this module)
        from webnn_harness.outputs.rerun_commands import shown_path

        bundled = bundled_corpus()
        cases = tuple(shown_path(p)[0] for p in request.cases if corpus_root(Path(p), bundled)[0] != BUNDLED_CORPUS)
        return cls(tuple(request.backends), cases, tuple(shown_path(p)[0] for p in request.expectations))

    @classmethod
    def from_summary(cls, summary: Mapping) -> "RunSetup | None":
        """The setup a summary records; for a folder from before it did, read from its command line."""
        recorded = summary.get("request")
        if isinstance(recorded, Mapping):
            backends = tuple(BackendRequest(str(b.get("name", "")), {str(k): str(v) for k, v in (b.get("options") or {}).items()})
                             for b in recorded.get("backends") or () if isinstance(b, Mapping))
            return cls(backends, tuple(map(str, recorded.get("cases") or ())),
                       tuple(map(str, recorded.get("expectations") or ())))
        return _setup_from_command(summary)


def _setup_from_command(summary: Mapping) -> RunSetup | None:
    from webnn_harness.backends.base import parse_options
    from webnn_harness.outputs.rerun_commands import option_values, options_from_command, recorded_run_command

    command = recorded_run_command(summary)
    if not command:
        return None
    try:
        options = parse_options(options_from_command(command) or [])
    except ValueError:
        options = {}
    names = option_values(command, ("--backend", "-b"))
    return RunSetup(tuple(BackendRequest(n, options) for n in names), tuple(option_values(command, ("--cases",))),
                    tuple(option_values(command, ("--expectations",))))
