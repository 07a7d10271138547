"""What an OpenVINO exception says, in one line, and what it means for a
case: a refusal (``Unsupported``), OpenVINO failing to compile a model it
validated (``BuildFailure``), or an adapter bug (raised as it is). Shared by
the backend's batched build and its device sessions."""
from __future__ import annotations

import re

from webnn_harness.backends.base import BuildFailure, Unsupported
from webnn_harness.backends.lowering import LoweringMismatch, Unlowerable


def first_line(exc: BaseException) -> str:
    """OpenVINO's message without its source-location preamble: messages read
    "Check '...' failed at src/...cpp:N:", "While validating node ...", then
    the reason."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    noise = ("Exception from", "Check '", "While validating node", "[ GENERAL_ERROR ]", "[ NOT_IMPLEMENTED ]")
    reasons = [line for line in lines if not line.startswith(noise)]
    node = next((line for line in lines if line.startswith("While validating node")), "")
    text = " ".join(reasons) or (lines[-1] if lines else type(exc).__name__)
    if node:
        text += f" ({node.split(' with friendly_name')[0].replace('While validating node ', '')})"
    # Auto-generated node names count nodes per process (MatMul_3, Negative_33995): without the
    # counter the same refusal reads the same in every run and every worker.
    return _NODE_COUNTER.sub(r"\1", text)[:800]


_NODE_COUNTER = re.compile(r"\b([A-Z][a-z][A-Za-z0-9]*)_\d+\b")


def classify(exc: BaseException) -> BaseException:
    """Lowering errors: OpenVINO rejecting an op (its shape/type inference
    raises RuntimeError) or an option this adapter cannot express is
    'unsupported'; anything else (an adapter bug) stays as it is."""
    if isinstance(exc, LoweringMismatch):
        return exc
    if isinstance(exc, Unlowerable):
        return Unsupported(str(exc))
    if isinstance(exc, RuntimeError):
        return Unsupported(f"OpenVINO rejected the graph: {first_line(exc)}")
    return exc


# What a plugin says when it lacks an implementation (a kernel, a precision,
# a layout): the CPU plugin's "[ NOT_IMPLEMENTED ]" and "Unsupported operation
# of type ...", "... doesn't support ..." from its nodes' support checks.
_REFUSAL_WORDS = re.compile(r"NOT_IMPLEMENTED|[Uu]nsupported|not supported|doesn't support|does not support|"
                            r"[Nn]ot implemented")


def compile_failure(exc: BaseException) -> Exception:
    """compile_model failing on a model whose every node OpenVINO created and
    validated: a refusal where the plugin says it lacks an implementation,
    else a build failure of a graph it accepted (a plugin bug: ``error``)."""
    message = f"OpenVINO compile_model failed: {first_line(exc)}"
    if _REFUSAL_WORDS.search(str(exc)):
        return Unsupported(message)
    return BuildFailure(message)
