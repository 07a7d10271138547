"""The validators of command-line values, shared by every command and the
pytest plugin (argparse ``type=`` callables: a wrong value is one usage line,
exit 2, before any work)."""
from __future__ import annotations

import argparse
import math
import re


MAX_WHOLE = 2 ** 53  # a count, a size in bytes: JSON (a summary records it) holds whole numbers exactly up to here
MAX_DAYS = 36_525  # a hundred years: datetime.timedelta overflows at 999,999,999 days
MAX_PARALLEL = 4_096  # worker processes, backend threads


def _whole(text: str, limit: int) -> int:
    try:
        value = int(text)
    except ValueError:  # also 5,000 digits: int() refuses more than 4,300
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    if value > limit:
        raise argparse.ArgumentTypeError(f"must be at most {limit:,}, not {text[:40]}")
    return value


def positive_int(text: str) -> int:
    return _whole(text, MAX_WHOLE)


def positive_days(text: str) -> int:
    """A number of days (``--stale-days``): 1 to a hundred years."""
    return _whole(text, MAX_DAYS)


def parallelism(text: str) -> int:
    """Worker processes or threads (``--workers``, ``--threads``): 1 to ``MAX_PARALLEL``."""
    return _whole(text, MAX_PARALLEL)


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
