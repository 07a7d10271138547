"""The machine a command runs on, as every output describes it: its CPU model,
the cores this process may use, the instruction-set features its kernels can
use, and the settings in force that change which kernels run (issue #47: one
machine's results are not the backend's). Outside the stage packages, so that
run, probe and bench (outputs/records.py, bench/machine.py) name one machine
alike without one stage importing another for it.

Features come from /proc/cpuinfo (x86 ``flags``, ARM ``Features``), as the
kernel reports them; only those that pick kernels in the runtimes we drive are
kept (``TRACKED``), so two machines of one class record the same set.

oneDNN (OpenVINO's CPU plugin) reads ``ONEDNN_MAX_CPU_ISA`` and then uses no
instruction above that level, while a library with its own dispatch
(XNNPACK in LiteRT, MLAS in ONNX Runtime) ignores it: what a backend's
kernels can use is the hardware's features, less those above the cap of the
variable the backend declares it honours (backends/base.py, BackendFacts
``isa_cap_variable``): ``kernel_features``.
"""
from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from typing import Iterable, Mapping

# The features that choose kernels in oneDNN, XNNPACK and MLAS, by /proc/cpuinfo's names.
X86_TRACKED = ("sse4_1", "sse4_2", "avx", "f16c", "fma", "avx2", "avx_vnni", "avx_vnni_int8", "avx_ne_convert",
               "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl", "avx512ifma", "avx512vbmi", "avx512_vbmi2",
               "avx512_vnni", "avx512_bitalg", "avx512_vpopcntdq", "avx512_bf16", "avx512_fp16",
               "amx_tile", "amx_int8", "amx_bf16", "amx_fp16")
ARM_TRACKED = ("asimd", "asimdhp", "asimddp", "fphp", "i8mm", "bf16", "sve", "sve2", "sme", "sme2")
TRACKED = frozenset(X86_TRACKED + ARM_TRACKED)

# oneDNN's ONEDNN_MAX_CPU_ISA levels, lowest first, each with the x86 features it
# adds (dnnl_cpu_isa_t; AVX10_1_512 is AVX512_CORE_FP16's newer name).
ONEDNN_ISA_LEVELS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("SSE41", ("sse4_1", "sse4_2")),
    ("AVX", ("avx",)),
    ("AVX2", ("avx2", "fma", "f16c")),
    ("AVX2_VNNI", ("avx_vnni",)),
    ("AVX2_VNNI_2", ("avx_vnni_int8", "avx_ne_convert")),
    ("AVX512_CORE", ("avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl", "avx512ifma", "avx512vbmi",
                     "avx512_vbmi2", "avx512_bitalg", "avx512_vpopcntdq")),
    ("AVX512_CORE_VNNI", ("avx512_vnni",)),
    ("AVX512_CORE_BF16", ("avx512_bf16",)),
    ("AVX10_1_512", ("avx512_fp16",)),
    ("AVX10_1_512_AMX", ("amx_tile", "amx_int8", "amx_bf16")),
    ("AVX10_1_512_AMX_FP16", ("amx_fp16",)),
)
ISA_ALIASES = {"AVX512_CORE_FP16": "AVX10_1_512", "AVX512_CORE_AMX": "AVX10_1_512_AMX",
               "AVX512_CORE_AMX_FP16": "AVX10_1_512_AMX_FP16"}
# The settings read from the environment that change kernels or their threads, recorded with every output.
KERNEL_ENVIRONMENT = ("ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA", "ONEDNN_DEFAULT_FPMATH_MODE", "OMP_NUM_THREADS")


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def parse_cpuinfo_features(text: str) -> frozenset[str]:
    """The tracked features of the first processor in a /proc/cpuinfo text (x86 ``flags``, ARM ``Features``)."""
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            return frozenset(value.split()) & TRACKED
    return frozenset()


def cpu_features() -> frozenset[str]:
    """This machine's tracked features (empty where /proc/cpuinfo cannot be read: not Linux)."""
    try:
        with open("/proc/cpuinfo") as f:
            return parse_cpuinfo_features(f.read(1 << 20))
    except OSError:
        return frozenset()


def kernel_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The settings of KERNEL_ENVIRONMENT in force (those set, with their values)."""
    environ = os.environ if environ is None else environ
    return {k: environ[k] for k in KERNEL_ENVIRONMENT if environ.get(k)}


def isa_level_index(name: str) -> int | None:
    """The position of a oneDNN ISA name in ONEDNN_ISA_LEVELS (None: not a level; ALL is past the last)."""
    name = ISA_ALIASES.get(name.upper(), name.upper())
    if name == "ALL":
        return len(ONEDNN_ISA_LEVELS)
    return next((i for i, (level, _) in enumerate(ONEDNN_ISA_LEVELS) if level == name), None)


def capped_features(features: Iterable[str], cap: str | None) -> frozenset[str]:
    """``features`` less every x86 feature above the oneDNN level ``cap`` (unchanged: no cap, or an
    unknown name, which oneDNN itself ignores)."""
    features = frozenset(features)
    top = isa_level_index(cap) if cap else None
    if top is None:
        return features
    above = {f for _, added in ONEDNN_ISA_LEVELS[top + 1:] for f in added}
    return features - above


def isa_class(features: Iterable[str]) -> str:
    """The machine class of a feature set: the highest oneDNN level it has whole on x86 (``AVX512_CORE_BF16``),
    ``ARM64`` with its SVE / SME / BF16 on ARM, ``unknown`` where nothing is known."""
    features = frozenset(features)
    best = None
    for level, added in ONEDNN_ISA_LEVELS:  # a level's first feature stands for it (avx512f, avx2, ...);
        if added[0] in features:  # not cumulative: AMD's AVX-512 parts have no AVX2_VNNI (avx_vnni)
            best = level
    if best:
        return best
    arm = [f for f in ("sve2", "sve", "sme", "bf16", "i8mm") if f in features]
    if "asimd" in features:
        return "ARM64" + "".join(f"+{f.upper()}" for f in arm)
    return "unknown"


@dataclass(frozen=True)
class MachineFacts:
    """What a record says about the CPU: features, and the settings in force that change kernels."""

    features: frozenset[str] = frozenset()
    environment: Mapping[str, str] = None  # type: ignore[assignment]  # KERNEL_ENVIRONMENT values set

    def __post_init__(self):
        object.__setattr__(self, "environment", dict(self.environment or {}))

    @classmethod
    def here(cls) -> "MachineFacts":
        return cls(cpu_features(), kernel_environment())

    @classmethod
    def from_json(cls, machine: Mapping) -> "MachineFacts":
        """From a header's ``machine`` (``to_json``'s keys); unknown where a file does not say."""
        features = machine.get("cpuFeatures") if isinstance(machine, Mapping) else None
        env = machine.get("kernelEnvironment") if isinstance(machine, Mapping) else None
        return cls(frozenset(f for f in features if isinstance(f, str)) if isinstance(features, list) else frozenset(),
                   {k: v for k, v in env.items() if isinstance(v, str)} if isinstance(env, Mapping) else {})

    def kernel_features(self, cap_variable: str | None) -> frozenset[str]:
        """The features a backend's kernels can use: all, less those above the cap of the variable it honours."""
        if not cap_variable:
            return self.features
        # oneDNN also reads the variable's older name (DNNL_MAX_CPU_ISA) when the new one is not set
        cap = self.environment.get(cap_variable) or self.environment.get(cap_variable.replace("ONEDNN_", "DNNL_", 1))
        return capped_features(self.features, cap)

    def to_json(self) -> dict:
        return {"cpuFeatures": sorted(self.features), "isaClass": isa_class(self.features),
                "kernelEnvironment": dict(self.environment)}


def machine_summary(facts: MachineFacts | None = None, model: str | None = None) -> str:
    """This machine in one line for a console: CPU model, class, the tracked features and the kernel settings in
    force (``AMD EPYC 9R14, AVX512_CORE_BF16 (avx avx2 ... avx512f ...), ONEDNN_MAX_CPU_ISA=AVX2``)."""
    facts = facts or MachineFacts.here()
    env = "".join(f", {k}={v}" for k, v in sorted(facts.environment.items()))
    features = f" ({' '.join(sorted(facts.features))})" if facts.features else ""
    return f"{model or cpu_model()}, {isa_class(facts.features)}{features}{env}"


def machine_class(machine: Mapping) -> str:
    """A header's machine in a few words for a page or a diff: its ISA class and any cap in force
    (``AVX512_CORE_BF16``, ``AVX512_CORE_BF16, ONEDNN_MAX_CPU_ISA=AVX2``); ``unknown`` for an output
    written before features were recorded."""
    facts = MachineFacts.from_json(machine if isinstance(machine, Mapping) else {})
    env = ", ".join(f"{k}={v}" for k, v in sorted(facts.environment.items()) if k.endswith("MAX_CPU_ISA"))
    return isa_class(facts.features) + (f", {env}" if env else "")


def machine_changes(base: Mapping | None, new: Mapping | None) -> tuple[str, ...]:
    """``what: base -> new`` for each fact of two runs' machines (their headers' ``machine``) that
    differs: the CPU model, its ISA class, its features, and each kernel setting in force. Facts one
    of them does not record (an output written before they were) are not compared."""
    base = base if isinstance(base, Mapping) else {}
    new = new if isinstance(new, Mapping) else {}
    out = [f"{key}: {base[key]} -> {new[key]}" for key in ("cpu", "isaClass")
           if key in base and key in new and base[key] != new[key]]
    b, n = base.get("cpuFeatures"), new.get("cpuFeatures")
    if isinstance(b, list) and isinstance(n, list) and set(b) != set(n):
        gained, lost = sorted(set(n) - set(b)), sorted(set(b) - set(n))
        out.append("cpuFeatures: " + " ".join([*(f"+{f}" for f in gained), *(f"-{f}" for f in lost)]))
    b, n = base.get("kernelEnvironment"), new.get("kernelEnvironment")
    if isinstance(b, Mapping) and isinstance(n, Mapping):
        out += [f"{k}: {b.get(k, '(not set)')} -> {n.get(k, '(not set)')}" for k in sorted({*b, *n})
                if b.get(k) != n.get(k)]
    return tuple(out)
