"""Backends: the registry of everything the harness can run cases on.

Backends are found through the entry-point group ``webnn_harness.backends``
(ours are declared in pyproject.toml; an installed third-party package adds
its own the same way). Each entry point names a factory
``create(options: dict[str, str]) -> Backend``. A backend can also be named
directly as ``package.module:factory``, which is how tests load the faulty
test backend without installing anything.
"""
from __future__ import annotations

import functools
import importlib
from importlib.metadata import entry_points
from typing import Any, Callable, Mapping

from webnn_harness.backends.base import Backend, BackendError, BackendFacts, BackendInfo, Unsupported, declared_facts

ENTRY_POINT_GROUP = "webnn_harness.backends"
DEFAULT_BACKENDS = ("reference", "onnxruntime", "openvino", "litert", "chromium")

BackendFactory = Callable[[Mapping[str, str]], Backend]


class UnknownBackend(LookupError):
    pass


def available() -> dict[str, str]:
    """Registered backend names -> entry-point target ('module:attr')."""
    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}


def factory(name: str) -> BackendFactory:
    target = available().get(name)
    if target is None:
        if ":" not in name:
            known = ", ".join(sorted(available())) or "none"
            raise UnknownBackend(f"unknown backend {name!r} (installed: {known})")
        target = name
    module_name, _, attr = target.partition(":")
    if not module_name or not attr.isidentifier():
        raise UnknownBackend(f"backend {name!r}: not an installed name or package.module:factory")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        hint = f"; install it with pip install 'webnn-harness[{name}]'" if name in DEFAULT_BACKENDS else ""
        raise BackendError(f"backend {name!r} cannot be loaded: {exc}{hint}") from exc
    made = getattr(module, attr, None)
    if not callable(made):
        raise UnknownBackend(f"backend {name!r}: {module_name} has no factory {attr!r}")
    return made


def create(name: str, options: Mapping[str, str] | None = None) -> Backend:
    return factory(name)(dict(options or {}))


def facts(name: str) -> BackendFacts:
    """What backend ``name`` (registered, or package.module:factory) says
    about itself (base.py, "Facts"): its module is imported, its factory not
    called. Raises as ``factory`` does."""
    return declared_facts(factory(name))


def facts_or_defaults(name: str) -> BackendFacts:
    """``facts``, or the defaults for a backend that cannot be loaded: for a
    caller that goes on to make it, which then says why, as it always has."""
    try:
        return facts(name)
    except (BackendError, UnknownBackend):
        return BackendFacts()


@functools.lru_cache(maxsize=None)
def recorded_facts(name: str) -> BackendFacts:
    """``facts`` of a backend named by a file we read (a record): a
    registered one only, since a ``module:factory`` written in a file is never
    imported (data does not choose code); the defaults for one not installed
    here or that cannot be loaded (a page still renders)."""
    return facts_or_defaults(name) if name in available() else BackendFacts()


def known_failures(name: str, version: str, options: Mapping[str, str], files=(), *, recorded: bool = False,
                   machine=None):
    """The expectations in force for backend ``name`` (verdict/expectations.py's ``ExpectationSet``): its
    shipped known failures, WPT's case notes and ``files``, at ``version`` with ``options``, on ``machine``
    (this one by default) as the backend's kernels see it, through the ISA cap its facts declare.
    ``recorded``: ``name`` was read from a file (``recorded_facts``: no module a file names is imported)."""
    from webnn_harness.verdict.expectations import ExpectationSet

    cap = (recorded_facts(name) if recorded else facts_or_defaults(name)).isa_cap_variable
    return ExpectationSet.for_backend(name, version, options, files, machine=machine, isa_cap_variable=cap)


def default_backends(exclude: tuple[str, ...] = ()) -> tuple[list[str], list[str]]:
    """The backends a command runs when none is named: the installed
    DEFAULT_BACKENDS (but ``exclude``) that can be made here, and one line
    for each left out (its module does not import, or its facts' ``unready``
    says why: the chromium backend without a browser installed)."""
    usable, left_out = [], []
    for name in DEFAULT_BACKENDS:
        if name in exclude or name not in available():
            continue
        try:
            declared = facts(name)
            why = declared.unready() if declared.unready else None
        except (BackendError, UnknownBackend) as exc:
            why = str(exc)
        if why:
            left_out.append(f"{name} not used: {why}")
        else:
            usable.append(name)
    return usable, left_out


def options_from_settings(backend: Mapping[str, Any]) -> list[str]:
    """When a run's command line is not recorded, the options a backend was
    made with, recovered from the settings its info() reported (a record's
    ``backend``), as the backend maps them back (its facts' ``rerun_options``);
    a default is not repeated, nor a setting that is null (not in force)."""
    settings = backend.get("settings") or {}
    return [f"{known.option}={settings[known.setting]}"
            for known in recorded_facts(str(backend.get("name", ""))).rerun_options
            if settings.get(known.setting) is not None and str(settings[known.setting]) != known.default]


__all__ = [
    "Backend",
    "BackendError",
    "BackendFacts",
    "BackendInfo",
    "DEFAULT_BACKENDS",
    "Unsupported",
    "UnknownBackend",
    "available",
    "create",
    "default_backends",
    "factory",
    "facts",
    "facts_or_defaults",
    "options_from_settings",
    "recorded_facts",
]
