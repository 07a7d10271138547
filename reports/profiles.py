"""Per-node profiles of benchmarks (``bench --profile``, harness/bench/profile.py)
-> what the performance page says about them: which nodes the backend ran,
fused or not, their share of the graph's time, which ran on a fallback path,
and for the layout workloads what the transposes cost from inside the graph
(or that the backend removed them).

The record's ``profile`` is read as any input is: every field checked,
bounded in count, a malformed one a one-line error naming the file, the line
and the field."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from webnn_harness.reports.common import ReportInputError

MAX_NODES = 10_000  # per record: a graph of the bench's suites has tens
# Node types, as the backends name them, that are a transpose and that are
# the backend's own layout conversion (ORT's NCHWc ReorderInput/Output,
# OpenVINO CPU's Reorder between blocked layouts).
TRANSPOSE_OPS = frozenset(("Transpose",))
LAYOUT_OPS = frozenset(("ReorderInput", "ReorderOutput", "Reorder"))
# Graph variants whose transposes the page accounts for (the layout workloads).
LAYOUT_VARIANTS = ("nchw", "nhwc", "nhwcTransposed")
# The variants that run a graph one op per session, set beside the same
# benchmark's fused graph: what fusing the graph changed inside the backend.
OP_BY_OP_VARIANTS = ("opByOp", "deviceTensor")
FUSED_VARIANT = "fused"
# What a node's seconds measure (harness/bench/profile.py "nodeTimes").
NODE_TIMES = ("kernel", "launch")


@dataclass(frozen=True)
class ProfiledNode:
    name: str
    op: str
    kernel: str
    seconds: float
    fallback: bool = False  # OpenVINO exec type ref; an ORT node on another provider than the one asked for
    fused: tuple[str, ...] = ()  # our model's nodes the backend ran as this one (when more than itself)
    part: int | None = None  # the session, in a variant of one session per op

    @property
    def role(self) -> str:
        return "transpose" if self.op in TRANSPOSE_OPS else "layout" if self.op in LAYOUT_OPS else ""


@dataclass(frozen=True)
class RemovedNode:
    op: str
    name: str  # "" where the backend names none (ORT: counted by op type)
    part: int | None = None


@dataclass(frozen=True)
class NodeProfile:
    """One record's profile, as read; ``problem`` instead where there is none."""

    runs: int = 0
    nodes: tuple[ProfiledNode, ...] = ()
    removed: tuple[RemovedNode, ...] = ()
    node_seconds: float = 0.0  # the nodes' medians summed
    run_seconds: float | None = None  # a profiled run's median wall time (profiler on)
    run_node_seconds: float | None = None  # the median over the profiled runs of their nodes' sum
    plain_seconds: float | None = None  # the timed sessions' median run, in blocks between the profiled runs
    launch_times: bool = False  # node times are the host's launches on an asynchronous device (ORT on CUDA)
    problem: str = ""  # "unavailable: ..." | "error: ..."


def _field(value: Any, kind: type, where: str, field: str, optional: bool = False):
    """``value`` when it is a ``kind`` (a number: finite, not negative; never a
    bool standing for a number), else a one-line error naming the field."""
    if value is None and optional:
        return None
    number = kind in (int, float)
    ok = isinstance(value, (int, float) if kind is float else kind) and (kind is bool) == isinstance(value, bool)
    if not ok or (number and (not math.isfinite(value) or value < 0)):
        what = "a non-negative number" if number else {str: "a string", bool: "true or false"}[kind]
        raise ReportInputError(f"{where}: profile field {field!r} is missing or not {what}")
    return value


def _list(raw: Mapping, key: str, where: str) -> list:
    items = raw.get(key, [])
    if not isinstance(items, list) or not all(isinstance(i, Mapping) for i in items):
        raise ReportInputError(f"{where}: profile field {key!r} is not a list of objects")
    if len(items) > MAX_NODES:
        raise ReportInputError(f"{where}: profile field {key!r} has {len(items)} entries, over {MAX_NODES}")
    return items


def read_profile(raw: Any, where: str) -> NodeProfile | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise ReportInputError(f"{where}: field 'profile' is not an object")
    for key in ("unavailable", "error"):
        if key in raw:
            return NodeProfile(problem=f"{key}: {raw[key]}")
    nodes = []
    for i, n in enumerate(_list(raw, "nodes", where)):
        at = f"nodes[{i}]"
        fused = n.get("fused") or []
        if not isinstance(fused, list) or not all(isinstance(f, str) for f in fused):
            raise ReportInputError(f"{where}: profile field '{at}.fused' is not a list of names")
        nodes.append(ProfiledNode(
            name=_field(n.get("name"), str, where, f"{at}.name"), op=_field(n.get("op"), str, where, f"{at}.op"),
            kernel=_field(n.get("kernel"), str, where, f"{at}.kernel"),
            seconds=float(_field(n.get("seconds"), float, where, f"{at}.seconds")),
            fallback=bool(_field(n.get("fallback", False), bool, where, f"{at}.fallback")), fused=tuple(fused),
            part=_field(n.get("part"), int, where, f"{at}.part", optional=True)))
    removed = [RemovedNode(op=_field(r.get("op"), str, where, f"removed[{i}].op"),
                           name=_field(r.get("name", ""), str, where, f"removed[{i}].name"),
                           part=_field(r.get("part"), int, where, f"removed[{i}].part", optional=True))
               for i, r in enumerate(_list(raw, "removed", where))]
    seconds = {key: _field(raw.get(key), float, where, key, optional=True)
               for key in ("runSeconds", "runNodeSeconds", "plainSeconds")}
    seconds = {key: float(value) if value is not None else None for key, value in seconds.items()}
    node_times = raw.get("nodeTimes", "kernel")
    if node_times not in NODE_TIMES:
        raise ReportInputError(f"{where}: profile field 'nodeTimes' is not one of {', '.join(NODE_TIMES)}")
    return NodeProfile(runs=_field(raw.get("runs"), int, where, "runs"), nodes=tuple(nodes), removed=tuple(removed),
                       node_seconds=sum(n.seconds for n in nodes), run_seconds=seconds["runSeconds"],
                       run_node_seconds=seconds["runNodeSeconds"], plain_seconds=seconds["plainSeconds"],
                       launch_times=node_times == "launch")


@dataclass(frozen=True)
class ProfileView:
    """One profiled record on the page."""

    benchmark: str
    variant: str
    column: str
    median: float  # the timed median (profiling never ran during it)
    profile: NodeProfile
    # The layout workloads' transposed graph: its median less the nchw
    # graph's, what the transposes cost by subtraction, beside the profile's own figure.
    by_subtraction: float | None = None

    @property
    def share_of_median(self) -> float:
        """How much of the timed median the profiled nodes account for."""
        return self.profile.node_seconds / self.median

    @property
    def share_of_run(self) -> float | None:
        """The same, run by run: a profiled run's nodes over its own wall
        time (medians over the runs), taken at the same moment, so on a busy
        machine it tells the profile's gaps (the backend's work between
        nodes) from load that came and went."""
        run, nodes = self.profile.run_seconds, self.profile.run_node_seconds
        return nodes / run if run and nodes is not None else None

    @property
    def share_of_plain(self) -> float | None:
        """The nodes' sum over the graph's own runs without the profiler,
        taken in blocks between the profiled ones: the same moments, so the
        machine's changes since the timed runs drop out."""
        plain = self.profile.plain_seconds
        return self.profile.node_seconds / plain if plain else None

    @property
    def profiler_cost(self) -> float | None:
        """What the profiler itself added to a run: a profiled run's median
        over the graph's runs without it, taken in blocks between them."""
        run, plain = self.profile.run_seconds, self.profile.plain_seconds
        return run / plain - 1 if run and plain else None

    def node_share(self, node: ProfiledNode) -> float | None:
        return node.seconds / self.profile.node_seconds if self.profile.node_seconds > 0 else None

    @property
    def ran_as(self) -> str:
        """The node types the backend ran, in order: what the graph became."""
        return " → ".join(n.op for n in self.profile.nodes)

    @property
    def fallbacks(self) -> tuple[ProfiledNode, ...]:
        return tuple(n for n in self.profile.nodes if n.fallback)

    @property
    def fused(self) -> tuple[ProfiledNode, ...]:
        return tuple(n for n in self.profile.nodes if n.fused)

    def _seconds(self, role: str) -> float:
        return sum(n.seconds for n in self.profile.nodes if n.role == role)

    @property
    def transpose_seconds(self) -> float:
        return self._seconds("transpose")

    @property
    def layout_seconds(self) -> float:
        return self._seconds("layout")

    @property
    def transposes_ran(self) -> int:
        return sum(1 for n in self.profile.nodes if n.role == "transpose")

    @property
    def transposes_removed(self) -> int:
        return sum(1 for r in self.profile.removed if r.op in TRANSPOSE_OPS)

    @property
    def is_layout(self) -> bool:
        return self.variant in LAYOUT_VARIANTS

    @property
    def transpose_note(self) -> str:
        """What became of the model's transposes, in words."""
        ran, removed = self.transposes_ran, self.transposes_removed
        if not ran and not removed:
            return "no transpose in the model the backend was given"
        if not ran:
            return f"the backend removed or folded all {removed} transposes: none ran"
        if self.profile.launch_times:
            text = f"{ran} ran (the profile has their launch on the host, not their time on the device)"
        else:
            text = f"{ran} ran ({self.transpose_seconds / self.median:.1%} of the median)"
        return text + (f"; {removed} removed or folded" if removed else "")


@dataclass(frozen=True)
class FusionPair:
    """A benchmark's op-by-op variant and its fused graph, profiled on one column."""

    op_by_op: ProfileView
    fused: ProfileView


def fusion_pairs(views: Iterable[ProfileView]) -> tuple[FusionPair, ...]:
    profiled = {(v.column, v.benchmark, v.variant): v for v in views if not v.profile.problem}
    pairs = []
    for (column, benchmark, variant), fused in profiled.items():
        if variant != FUSED_VARIANT:
            continue
        op_by_op = next((profiled[(column, benchmark, v)] for v in OP_BY_OP_VARIANTS
                         if (column, benchmark, v) in profiled), None)
        if op_by_op is not None:
            pairs.append(FusionPair(op_by_op, fused))
    return tuple(pairs)


def profile_views(records: Iterable[Any]) -> tuple[ProfileView, ...]:
    """The profiled, timed records (performance.BenchResult), in order."""
    records = list(records)
    nchw = {(r.column, r.benchmark): r.seconds for r in records if r.variant == LAYOUT_VARIANTS[0] and r.is_speed}
    return tuple(ProfileView(r.benchmark, r.variant, r.column, r.seconds, r.profile,
                             r.seconds - nchw[(r.column, r.benchmark)]
                             if r.variant == LAYOUT_VARIANTS[-1] and (r.column, r.benchmark) in nchw else None)
                 for r in records if r.profile is not None and r.is_speed)
