"""The backend protocol: a few methods, the same for every backend, ours or
a vendor's. This docstring is the reference for writing one; a complete
out-of-tree example (a package with its own pyproject.toml, about 100 lines)
is in ``examples/numpy_float32`` of the repository.

Registration
    A package registers a factory in the entry-point group
    ``webnn_harness.backends``; ``webnn-harness backends`` lists it::

        [project.entry-points."webnn_harness.backends"]
        mybackend = "mypackage.webnn:create"

    ``--backend package.module:factory`` runs one without registering it.

    create(options: dict[str, str]) -> Backend
        ``options`` are the ``-o key=value`` pairs of the command line (pytest:
        ``--webnn-option``), values as strings. Reject an unknown key or a bad
        value by raising ``ValueError`` (or ``BackendError`` when the backend
        cannot be made at all: library missing, no such device): the command
        prints that one line and exits 2, never a traceback. The factory is
        called once in the parent process (for ``info()``) and once in each
        worker process (spawned, so nothing is shared: open devices there).

Facts (optional): create.facts = BackendFacts(...)
    What the harness needs to know about a backend before it makes one, said
    by the backend (the harness keeps no table of backends): the factory's
    ``facts`` attribute, read by importing the entry point's module without
    calling the factory (``declared_facts``; ``webnn_harness.backends.facts``
    by name). The fork server reads them, and so do the bench and the report
    pages (for a backend a record names: a registered name only). Keep that
    module's import light: import the runtime (onnxruntime, openvino,
    ai_edge_litert) inside functions, as ours do, so reading a backend's
    facts costs no more than numpy and the harness's own modules (about 0.3
    CPU-s, which every command imports anyway) and the module itself (ours:
    0.01 to 0.04 CPU-s). Without ``facts`` every field is its default
    (nothing preloaded, no threads set, no options repeated)::

        create.facts = BackendFacts(
            preload=("mylib", "mypackage.webnn.lower"),
            threads_option=True,
            bench_options={"spinning": "0"},
            rerun_options=(SettingOption("device", "device", "CPU"),))

    preload: tuple of module names
        what the fork server imports before it forks this backend's workers
        (harness/execution/forkserver.py): the heavy runtime, so each worker
        does not import it again. A module missing here is skipped.
    threads_option: bool
        the backend takes ``-o threads=N``, the threads it computes on; the
        bench sets it (to every usable core unless ``-o threads=`` or
        ``bench --threads`` says otherwise).
    bench_options: {option: value}
        options the bench sets unless ``-o`` gives them (ONNX Runtime:
        ``spinning=0``, so idle sessions' threads leave the cores to the one
        being timed).
    rerun_options: tuple of SettingOption(setting, option, default)
        how ``info().settings[setting]`` maps back to ``-o option=value``, so
        that the re-run command printed for a record (report pages, JUnit)
        repeats the options it ran with when the run's command line is not
        recorded; a value equal to ``default`` is not repeated.
    unready: () -> str | None
        why the backend cannot be made on this machine, found cheaply without
        making it (the chromium backend: no browser installed), else None.
        A default run or bench leaves such a backend out with that one line
        and goes on with the others; a backend named with ``--backend`` is
        made, and its factory's BackendError is the usage error it always was.
    installed_variants: () -> tuple of {option: value}
        the options that pick each build of the backend installed side by
        side (the chromium backend: ``{"version": "143.0.4"}`` per installed
        browser); ``webnn-harness backends`` makes and lists one backend per
        variant. None (the default): one build, made without options.
    runtime: str | None
        the backend (by its registered name) whose runtime this one runs on
        underneath, where it is another: Chromium's WebNN on the CPU runs on
        LiteRT (``"litert"``). The performance page sets the two side by side
        to show the browser's own cost. None: it is its own runtime.
    thread_settings, precision_settings: tuple of setting names
        the keys of ``info().settings`` that hold its thread count and its
        precision, first found first (OpenVINO: ``inference_num_threads``,
        ``inference_precision_hint``): what the pages and the archive read
        for an output written before BackendInfo had ``threads`` and
        ``precision``, or when those are None.
    isa_cap_variable: str | None
        the environment variable that caps the instruction set its CPU
        kernels use, when it honours one (OpenVINO's oneDNN:
        ``"ONEDNN_MAX_CPU_ISA"``). Every output records the CPU's features and
        that variable's value (harness/cpu.py); expectation entries scoped by
        ``cpu`` are matched against the features its kernels can use under
        the cap. None: its kernels see the CPU's features whatever is set
        (XNNPACK and MLAS dispatch on CPUID alone).

Methods
    backend.info() -> BackendInfo(name, version, device, settings, host_cpu, threads, precision)
        Named in every record, report, capability file and JUnit suite.
        ``version`` is matched by expectation entries' ``versions`` ranges;
        ``settings`` should hold every option in force, defaults included
        (precision, threads, provider), so two runs can be told apart.
        ``threads`` (the threads it computes on) and ``precision`` (a short
        label of the precision it computes in, e.g. ``float32``) are what the
        performance pages show beside each backend's figures; None where it
        has nothing to say (the pages then look in ``settings`` under the
        usual keys, ``threads`` and ``precision``, else show the bench's
        thread count and "as authored"). ``host_cpu`` is False for an
        accelerator (a GPU, an NPU): the performance page draws no roofline
        of the host's peaks for it.

    backend.build(graph) -> compiled
        ``graph`` (webnn_harness.spec.graph.Graph, also importable as webnn_harness.graph.Graph) has every operand's descriptor
        and every node's options resolved to concrete values by the spec's
        create steps; constants carry their values. Return anything
        ``compute`` understands.

    backend.compute(compiled, inputs) -> {output name: numpy array}
        ``inputs`` holds the graph's non-constant inputs as numpy arrays of
        their descriptors' data types. Return every name in
        ``graph.outputs``.

What each outcome becomes (the record's status; harness/execution/worker.py):
    build raises Unsupported          unsupported (the message is kept: say why)
    build raises BuildFailure         error  ("build failed: ...": a backend bug, see below)
    build raises any other exception  error  ("build raised ...": a backend bug)
    compute raises Unsupported        unsupported
    compute raises BuildFailure       error  ("build failed: ...": a backend that builds as it computes)
    compute raises any other exception  fail ("compute raised ...")
    an output missing                 fail ("backend returned no output ...")
    an output of another shape or data type   fail (say which)
    values beyond the tolerance       fail, with the worst element and the budget
    the process dies (segfault, abort, exit) in build or compute   crash
    build or compute runs past --timeout      timeout
    otherwise                         pass
    ``fail``, ``error``, ``crash`` and ``timeout`` of a required case make
    ``run`` exit 1 unless an expectation lists the case.

Refusal or failure
    ``Unsupported`` is a refusal: the backend lacks what the graph needs (an
    op or kernel, a data type, a rank, an option). A spec-valid graph that
    the backend has everything for but still fails to build (its optimizer
    or compiler breaks on it) is not a refusal: raise ``BuildFailure`` with
    the backend's message, and in ``settings`` what the failure depends on.
    ONNX Runtime: a graph its session refuses at the requested optimization
    level but builds at a lower one (``builds_at_opt_level``); OpenVINO: a
    model whose every node validated but whose compile_model fails for
    another reason than a missing implementation.

Output data types
    An output array must have exactly the output operand's numpy dtype
    (``webnn_harness.spec.dtypes.numpy_dtype``: float32, float16, int32, uint32,
    int64, uint64, int8, uint8; logical ops produce uint8, not bool) and
    exactly its shape (0-D outputs as 0-D arrays). Nothing is cast for you:
    a float64 result for a float32 output is a fail, because casting would
    hide a backend that computes in the wrong precision. Floats are compared
    in ULP (on bit patterns, +0 == -0, NaN == NaN) or absolute error with the
    spec's per-op budgets; integers exactly. Elements the spec leaves to the
    implementation (relu of NaN, integer division by zero) are not compared.

Optional methods
    info().settings["preferred_batch_size"] -> int
        cases per worker batch when the run does not set one (``--batch-size``;
        default 16). A backend whose ``build_batch`` compiles a batch as one
        model asks for more (OpenVINO: 64), since each compiled model has a
        fixed cost.
    backend.build_batch(graphs) -> [compiled | BaseException, ...]
        build several graphs at once (OpenVINO compiles them into one model);
        an exception in the list is classified as ``build`` raising it. The
        default builds them one by one.
    backend.compute_batch(compiled, inputs) -> [outputs | BaseException | None, ...]
        compute several built cases at once (one run of a merged model);
        None where a case was not built. Called inside the build phase, so a
        crash there splits the batch and isolates the case at fault.
    backend.emulations() -> {op: how it is composed}
        ops the adapter composes from others instead of mapping natively;
        ``probe`` reports them as ``emulated`` rather than ``supported``.
    backend.build_settings(compiled) -> {setting: value}
        settings chosen per build (ONNX Runtime: the opset a graph was
        emitted at); each record keeps them beside the backend's info().
    backend.device_session(graph)   -> DeviceSession
        the graph built for repeated runs on tensors that stay in the
        backend's own memory (ORT OrtValue, OpenVINO ov.Tensor), and able to
        save the exact model it runs. The default (``device_session``
        below) wraps build/compute.
    backend.timed_plan(plan: TimedPlan) -> TimedVariant
        for a backend whose calls cannot be timed from Python (the chromium
        backend: a Playwright round trip around each would be most of what
        is timed): the bench variant's step built where it runs, and its
        timed loop run there too with the harness's TimingPolicy (warm-up,
        block sizing, stopping rules: harness/bench/measure.py's algorithm),
        the per-call seconds of each sample handed back as ``Samples``. The
        harness summarises them as every other backend's (the same
        statistics, outliers, load average and machine header) and records
        where they were timed and which calls. Raise Unsupported for a plan
        it cannot run. Without it the bench times ``device_session`` from
        Python.

Known failures (expectations)
    A genuine deviation is data, not code: an entry in a JSON list naming a
    case file (its stable id or a tail of it, e.g. ``"elementwise/gelu.json"``),
    an exact ``case`` name or a ``match`` regex, a ``reason``, and optionally
    the backend ``options`` and ``versions`` (e.g. ``"<2.0"``) it applies to
    (harness/verdict/expectations.py; JSON Schema
    harness/schema/expectations.schema.json). Our backends ship theirs as
    ``backends/<name>/known_failures.json``; a vendor keeps one beside their
    package and passes it with ``run --expectations FILE`` (pytest:
    ``--webnn-expectations FILE``); ``run --update-expectations FILE`` starts
    one from a run. A listed non-pass keeps its real status but does not count
    against the exit code; an entry whose cases ran and all passed is reported
    stale (under pytest: a strict XPASS, a failure).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol, Sequence, runtime_checkable

import numpy as np

from webnn_harness.spec.graph import Graph


class Unsupported(Exception):
    """The backend refuses the graph (an op, data type, rank or option it does
    not have). Raised from ``build`` (or ``compute``) it makes the case
    ``unsupported``, not a failure; the message is shown: say what is missing."""


class BuildFailure(Exception):
    """The backend fails to build a graph it does not refuse (see "Refusal or
    failure" above): a backend bug, so the case is ``error``, counted against
    the exit code when required. ``settings`` (e.g. ``{"builds_at_opt_level":
    "basic"}``) is kept in the record's build settings."""

    def __init__(self, message: str, settings: Mapping[str, Any] | None = None):
        super().__init__(message)
        self.settings = dict(settings or {})


class BackendError(RuntimeError):
    """The backend cannot be created (not installed, no such device): a usage
    error, one line, exit 2. A bad option may also be a ``ValueError``."""


@dataclass(frozen=True)
class BackendInfo:
    """Who ran the cases: named in every record, report and capability file."""

    name: str
    version: str
    device: str
    settings: Mapping[str, Any] = field(default_factory=dict)
    # False when the graphs run on an accelerator (a GPU, an NPU) rather than
    # the host CPU: the bench's measured peaks are the host's, so the
    # performance page draws no roofline for it. Written only when False.
    host_cpu: bool = True
    # The threads it computes on and a label of the precision it computes in,
    # as the performance pages show them. Written only when said, so records
    # of a backend that says neither are as they were.
    threads: int | None = None
    precision: str | None = None

    def __post_init__(self) -> None:
        # A plugin's info is written into every record: a number for its version would make a run whose
        # records no report or archive reads. Refused here, when the backend is described, before any case.
        for name in ("name", "version", "device"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"its info() gives {name} {str(getattr(self, name))[:60]!r} "
                                f"({type(getattr(self, name)).__name__}), not a string")
        if not isinstance(self.settings, Mapping):
            raise TypeError(f"its info() gives settings of type {type(self.settings).__name__}, not a mapping")

    def to_json(self) -> dict:
        out = {"name": self.name, "version": self.version, "device": self.device, "settings": dict(self.settings)}
        if not self.host_cpu:
            out["hostCpu"] = False
        if self.threads is not None:
            out["threads"] = self.threads
        if self.precision is not None:
            out["precision"] = self.precision
        return out


@dataclass(frozen=True)
class SettingOption:
    """One ``-o`` option as the backend's info() reports it: ``setting``, the
    key in ``info().settings``; ``option``, the ``-o`` key that chose it;
    ``default``, its value when not given (not repeated in a re-run command)."""

    setting: str
    option: str
    default: str


@dataclass(frozen=True)
class BackendFacts:
    """What a backend says about itself before one is made: its factory's
    ``facts`` attribute (see "Facts" in the module's docstring)."""

    preload: tuple[str, ...] = ()
    threads_option: bool = False
    bench_options: Mapping[str, str] = field(default_factory=dict)
    rerun_options: tuple[SettingOption, ...] = ()
    unready: Callable[[], str | None] | None = None
    installed_variants: Callable[[], tuple[Mapping[str, str], ...]] | None = None
    runtime: str | None = None
    thread_settings: tuple[str, ...] = ("threads",)
    precision_settings: tuple[str, ...] = ("precision",)
    isa_cap_variable: str | None = None


def declared_facts(factory: Any) -> BackendFacts:
    """The facts a backend factory declares (its ``facts`` attribute; the
    defaults without one), read without calling it. Facts of another type
    are the backend's bug: TypeError."""
    facts = getattr(factory, "facts", BackendFacts())
    if not isinstance(facts, BackendFacts):
        raise TypeError(f"backend factory {getattr(factory, '__qualname__', factory)!r}: "
                        f"its facts are a {type(facts).__name__}, not a BackendFacts")
    return facts


@runtime_checkable
class Backend(Protocol):
    """What ``create(options)`` returns; see the module docstring for what
    each exception becomes."""

    def info(self) -> BackendInfo:
        """Name, version, device and the settings in force."""
        ...

    def build(self, graph: Graph) -> Any:
        """Compile ``graph``; raise ``Unsupported`` (with why) for what the backend lacks."""
        ...

    def compute(self, compiled: Any, inputs: Mapping[str, np.ndarray]) -> Mapping[str, np.ndarray]:
        """Every output of the graph, each of exactly its operand's shape and numpy dtype."""
        ...


DEFAULT_BATCH_SIZE = 16


def preferred_batch_size(info: Mapping[str, Any]) -> int:
    """Cases per worker batch that a backend asks for (its info's
    ``settings["preferred_batch_size"]``), else DEFAULT_BATCH_SIZE."""
    preferred = (info.get("settings") or {}).get("preferred_batch_size")
    return preferred if isinstance(preferred, int) and not isinstance(preferred, bool) and preferred > 0 \
        else DEFAULT_BATCH_SIZE


def build_batch(backend: Backend, graphs: Sequence[Graph]) -> list[Any]:
    """Build graphs with the backend's batch builder when it has one. An exception in the list
    comes without its traceback (``without_traceback``)."""
    batch = getattr(backend, "build_batch", None)
    if batch is not None:
        return [without_traceback(c) if isinstance(c, BaseException) else c for c in batch(graphs)]
    out: list[Any] = []
    for graph in graphs:
        try:
            out.append(backend.build(graph))
        except Exception as exc:  # noqa: BLE001 - the caller classifies it
            out.append(without_traceback(exc))
    return out


def without_traceback(exc: BaseException) -> BaseException:
    """``exc`` and the exceptions chained to it with no traceback. A caught exception's traceback
    holds the frame that caught it, whose locals hold the list it is put in: a reference cycle
    that kept every compiled graph of the batch, and the threads of its runtime's session (ONNX
    Runtime's intra-op pool: threads - 1 each), alive until the garbage collector's next full
    pass, which graphs with few Python objects seldom trigger. A worker then held thousands of
    threads (issue 42). The records need only the message."""
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        link.__traceback__ = None
        link = link.__cause__ or link.__context__
    return exc


def compute_batch(backend: Backend, compiled: Sequence[Any], inputs: Sequence[Mapping[str, np.ndarray]]) -> list[Any]:
    """Outputs or exception per built case from the backend's batch compute;
    ``None`` for each case when it has none (the caller computes one by one)."""
    batch = getattr(backend, "compute_batch", None)
    if batch is None:
        return [None] * len(compiled)
    return [without_traceback(o) if isinstance(o, BaseException) else o for o in batch(compiled, inputs)]


class DeviceSession(Protocol):
    """One built graph whose inputs and outputs are backend-owned tensors:
    ``upload`` copies a host array into one, ``run`` consumes and produces
    them without a host copy, ``download`` copies one back to a new host
    array. ``save(stem)`` writes the model it runs for replay by the
    backend's own tools and returns the files written (none if it cannot).
    Optional: ``build_settings()`` -> settings chosen for this build, as
    ``backend.build_settings`` gives them; ``share(name, array)`` -> a tensor
    reading the host array in place where the device can, as the backend's
    own sync call does with host inputs (without it the bench uploads);
    ``run_to_host(inputs)`` -> the outputs as host arrays the session owns
    and the next call rewrites, written there by the backend itself (without
    it the bench runs and downloads each output). A backend whose profiler
    the harness reads also has ``profiling_session(graph)``: see
    ``profiling_session`` below (``bench --profile``)."""

    def save(self, stem: str) -> Sequence[str]: ...

    def upload(self, name: str, array: np.ndarray) -> Any: ...

    def run(self, inputs: Mapping[str, Any]) -> Mapping[str, Any]: ...

    def download(self, tensor: Any) -> np.ndarray: ...


class HostSession:
    """The fallback DeviceSession for a backend without device tensors: its
    "tensors" are host arrays and every run goes through ``compute``."""

    def __init__(self, backend: Backend, graph: Graph):
        self.backend, self.compiled = backend, backend.build(graph)

    def save(self, stem: str) -> Sequence[str]:
        return ()

    def upload(self, name: str, array: np.ndarray) -> np.ndarray:
        return np.array(array, copy=True)

    def run(self, inputs: Mapping[str, Any]) -> Mapping[str, Any]:
        return self.backend.compute(self.compiled, inputs)

    def download(self, tensor: Any) -> np.ndarray:
        return np.array(tensor, copy=True)


@dataclass(frozen=True)
class TimedPlan:
    """What one step of a bench variant does, for ``backend.timed_plan``:
    ``parts``, the graphs it runs in order (one per op for the op-by-op
    variants, else the whole graph), a name two parts share being one tensor;
    ``inputs``, the graph's host inputs; ``outputs``, the graph's outputs.
    ``kind`` is one of

        perOp     every part's inputs written from the host and its outputs
                  read back to it (every intermediate crosses the host)
        chain     the graph's inputs written, every part run on tensors that
                  stay on the device, the graph's outputs read back
        dispatch  every part run on tensors written once, before timing; a
                  sample ends with one wait for the last results (the
                  device's own rate, as the resident peak variant)
        upload    the one input written to a device tensor
        download  the one output, computed once, read back to the host
    """

    kind: str
    parts: tuple[Graph, ...]
    inputs: Mapping[str, np.ndarray]
    outputs: tuple[str, ...]


@dataclass(frozen=True)
class Samples:
    """Seconds per call of each sample, timed where the calls ran;
    ``number`` calls a sample; ``stopped_by`` as harness/bench/measure.py's
    (``minimums``, ``maxSamples``, ``maxTime``); ``timer``: where and with
    which clock (e.g. ``"page performance.now()"``); ``timed_calls``: exactly
    which calls a sample times, in the backend's API."""

    times: tuple[float, ...]
    number: int
    stopped_by: str
    timer: str
    timed_calls: str
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TimedVariant:
    """A bench variant built where it runs (``backend.timed_plan``):
    ``step()`` runs one step there and returns the graph's outputs as host
    arrays (the first run, verified); ``measure(policy)`` runs the timed loop
    there with ``policy`` (TimingPolicy.to_json()'s keys) and returns its
    Samples. ``build_seconds``: the graphs' build, as timed there."""

    step: Callable[[], Mapping[str, np.ndarray]]
    measure: Callable[[Mapping[str, Any]], Samples]
    build_seconds: float | None = None


def device_session(backend: Backend, graph: Graph) -> DeviceSession:
    """The backend's own device session when it has one, else a HostSession."""
    fn = getattr(backend, "device_session", None)
    if fn is not None:
        return fn(graph)
    return HostSession(backend, graph)


@dataclass(frozen=True)
class NodeTime:
    """One node of the backend's own graph (after its optimisations) in one
    profiled run: ``op`` its type as the backend names it (ORT op type,
    OpenVINO layer type), ``kernel`` the implementation that ran (ORT
    provider, OpenVINO exec type). ``fallback``: it ran on a slow or
    fallback path (OpenVINO exec type ``ref``; an ORT node on the CPU
    provider when another was asked for). ``fused``: the nodes of the model
    we gave the backend that it ran as this one, where the backend says
    (OpenVINO's originalLayersNames), more than itself only when it fused."""

    name: str
    op: str
    kernel: str
    seconds: float
    fallback: bool = False
    fused: tuple[str, ...] = ()


@dataclass(frozen=True)
class SessionProfile:
    """What a profiling session saw: one tuple of NodeTime per run, in run
    order, and the (op, name) of each node of the model we gave the backend
    that never ran (removed, constant-folded or fused away; name "" where the
    backend gives none). ``node_times``: what a node's seconds measure,
    ``"kernel"`` (its kernel's run, which ends when its work is done) or
    ``"launch"`` (the host's time to enqueue it on an asynchronous device,
    which runs it later: ORT's profiler on CUDA times Compute() on the host,
    and its pip builds carry no CUDA profiling)."""

    runs: tuple[tuple[NodeTime, ...], ...]
    removed: tuple[tuple[str, str], ...] = ()
    node_times: str = "kernel"


def profiling_session(backend: Backend, graph: Graph) -> DeviceSession:
    """A device session with the backend's profiler on: a DeviceSession with
    ``profile() -> SessionProfile`` (every run since it was built; call it
    once, after the last run). Profiling costs time: never time one. Raises
    Unsupported for a backend without a profiler the harness reads."""
    fn = getattr(backend, "profiling_session", None)
    if fn is None:
        raise Unsupported(f"{backend.info().name}: no profiler the harness reads")
    return fn(graph)


def share(session, name: str, array: np.ndarray) -> Any:
    """A host input as the session's tensor, read in place where the session
    can (a session without ``share``, e.g. HostSession, uploads it)."""
    return getattr(session, "share", session.upload)(name, array)


def to_host(session, feeds: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Run ``session`` on ``feeds`` with every output read back to the host:
    written there by the backend where the session has ``run_to_host``, else
    one ``download`` per output."""
    run_to_host = getattr(session, "run_to_host", None)
    if run_to_host is not None:
        return run_to_host(feeds)
    return {name: session.download(tensor) for name, tensor in session.run(feeds).items()}


def emulations(backend: Backend) -> Mapping[str, str]:
    fn = getattr(backend, "emulations", None)
    return dict(fn()) if fn else {}


def build_settings(backend: Backend, compiled: Any) -> Mapping[str, Any]:
    fn = getattr(backend, "build_settings", None)
    return dict(fn(compiled)) if fn else {}


def thread_count(text: str, backend: str) -> int:
    """``-o threads=N`` of any backend: a whole number from 1 to ``options.MAX_PARALLEL``, else a
    BackendError (exit 2 before any case): 99999999999999999999 threads is no count a runtime takes."""
    from webnn_harness.options import MAX_PARALLEL

    value = int(text) if text.isascii() and text.isdigit() and len(text) <= 9 else 0
    if not 1 <= value <= MAX_PARALLEL:
        raise BackendError(f"{backend}: threads must be a whole number from 1 to {MAX_PARALLEL}, got {text[:40]!r}")
    return value


def reject_unknown_options(backend: str, options: Mapping[str, str], known: Sequence[str],
                           also_known: Callable[[str], bool] = lambda key: False) -> None:
    """A BackendError naming every ``-o`` key the backend does not take (``also_known``: keys of a
    family, such as ONNX Runtime's provider options), with the keys it does take."""
    unknown = sorted(k for k in options if k not in known and not also_known(k))
    if unknown:
        raise BackendError(f"{backend}: unknown option(s) {', '.join(unknown)} (known: {', '.join(known)})")


def parse_options(pairs: Sequence[str]) -> dict[str, str]:
    """``-o key=value`` pairs to a dict; a pair without '=' is a usage error."""
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"backend option {pair!r} is not key=value")
        out[key.strip()] = value.strip()
    return out
