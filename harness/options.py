"""The validators of command-line values, shared by every command and the
pytest plugin (argparse ``type=`` callables: a wrong value is one usage line,
exit 2, before any work)."""
from __future__ import annotations

import argparse
import math
import re


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def _finite(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be finite, not {text}")
    return value


def positive_seconds(text: str) -> float:
    """A time limit: finite and above 0 (``nan`` would compare false with every clock and run nothing)."""
    value = _finite(text, "a number of seconds")
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds above 0, not {text}")
    return value


def fraction(text: str) -> float:
    """A relative threshold (``--threshold``): finite and not negative."""
    value = _finite(text, "a number")
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
    return value


def regex(text: str) -> str:
    """A regular expression (``--filter``), compiled once here so a wrong one is a usage error."""
    try:
        re.compile(text)
    except re.error as exc:
        raise argparse.ArgumentTypeError(f"not a regular expression: {exc}") from None
    return text
