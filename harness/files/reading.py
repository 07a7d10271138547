"""One way in: every JSON or JSON-lines file the harness reads that is not a
case file (case files: harness/loading/cases.py) goes through here.

Every such file is untrusted: a bench suite, an expectations file, a run's
results.jsonl and summary.json, a bench.jsonl, a probe or fuzz folder, a
limits file, a cache. So each is read with

- a size limit, checked before the bytes are read (``MAX_FILE_BYTES``, one
  line of a JSON-lines file ``MAX_LINE_BYTES``);
- a nesting limit: ``json`` refuses 200,000 nested brackets with a
  RecursionError, and what it does read is kept within ``MAX_DEPTH`` levels, so
  no code that walks the document (schemas, templates, our own) can recurse
  out of the stack;
- a schema per kind where there is one (compiled with jsonschema-rs; the
  slower ``jsonschema`` runs only to explain a document the compiled check
  refused, as for case files);
- and one-line errors that name the file, the line and the field
  (``ReadError``, a ValueError, so every command's ``except ValueError`` turns it
  into exit 2).

A JSON-lines file in an output folder is read line by line: a line that cannot
be read is skipped and counted (``LinesRead.problems``), the same way in every
command, and the lines after it are still read.
"""
from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar

import numpy as np

MAX_FILE_BYTES = 256 << 20  # a summary, suite or expectations file; results.jsonl is read a line at a time
MAX_LINE_BYTES = 64 << 20  # one record of results.jsonl or bench.jsonl
MAX_DEPTH = 64  # our own files nest a dozen levels at most
MAX_PROBLEMS_SHOWN = 5

T = TypeVar("T")


class ReadError(ValueError):
    """A file (or one line of it) that cannot be read as the kind it should be: one line."""


def where(path: Any, line: int | None = None, field: str = "") -> str:
    """``FILE``, ``FILE: line N``, ``FILE: line N: field``: how every reading error starts."""
    return ": ".join(x for x in (str(path), f"line {line}" if line else "", field) if x)


def _depth(doc: Any) -> int:
    """How deeply ``doc`` nests (a scalar is 0), without recursion."""
    deepest, stack = 0, [(doc, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            node = node.values()
        elif not isinstance(node, list):
            continue
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in node if isinstance(child, (dict, list)))
    return deepest


def _bracket_bound(data: bytes) -> int:
    """An upper bound of the nesting of ``data`` (brackets inside strings count too): cheap, so the exact
    walk of the parsed document runs only for a document that might be too deep."""
    if len(data) < 2 * MAX_DEPTH:
        return 0
    raw = np.frombuffer(data, dtype=np.uint8)
    opens = (raw == ord("[")) | (raw == ord("{"))
    return int(opens.sum())


# JSON's "\ud800" reads as a lone surrogate, which UTF-8 cannot encode: every print, page, hash or
# file of a text holding one fails. Raw UTF-8 cannot hold one, so only such an escape makes one.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _without_surrogates(doc: Any) -> Any:
    """``doc`` with each lone surrogate in its texts (keys too) written as the escape it was read from."""
    def text(s: str) -> str:
        return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", s)

    if isinstance(doc, str):
        return text(doc)
    if isinstance(doc, list):
        return [_without_surrogates(x) for x in doc]
    if isinstance(doc, dict):
        return {text(k): _without_surrogates(v) for k, v in doc.items()}
    return doc


def loads(data: bytes | str, source: str, max_depth: int = MAX_DEPTH) -> Any:
    """``data`` as JSON, or a ReadError starting with ``source``; no text of it holds a lone surrogate."""
    try:
        doc = json.loads(data)
    except RecursionError:
        raise ReadError(f"{source}: JSON nested too deeply to read") from None
    except UnicodeDecodeError as exc:
        raise ReadError(f"{source}: not UTF-8 text: byte {exc.start}: {exc.reason}") from None
    except ValueError as exc:
        raise ReadError(f"{source}: not valid JSON: {exc}") from None
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if _bracket_bound(raw) > max_depth and _depth(doc) > max_depth:
        raise ReadError(f"{source}: JSON nested more than {max_depth} levels deep; not read")
    if _SURROGATE_ESCAPE.search(raw):  # checked within MAX_DEPTH above, so the walk cannot recurse too deep
        doc = _without_surrogates(doc)
    return doc


def _checked_size(path: Path, limit: int) -> None:
    st = path.stat()
    if not stat.S_ISREG(st.st_mode):
        raise ReadError(f"{path}: not a regular file (a folder, named pipe or device); not read")
    if st.st_size > limit:
        raise ReadError(f"{path}: {st.st_size:,} bytes, over the {limit:,}-byte limit; not read")


def read_json(path: str | Path, kind: str | None = None, max_bytes: int = MAX_FILE_BYTES) -> Any:
    """The JSON document at ``path``, checked against the schema of ``kind`` (harness/schema/KIND.schema.json)."""
    path = Path(path)
    try:
        _checked_size(path, max_bytes)
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        raise ReadError(f"{path}: cannot read: {exc.strerror or exc}") from None
    doc = loads(data, str(path))
    if kind is not None:
        check(doc, kind, str(path))
    return doc


# -- schemas ----------------------------------------------------------------------


@lru_cache(maxsize=None)
def schema(kind: str) -> dict:
    """harness/schema/KIND.schema.json; ``KIND#name``: its ``$defs`` entry ``name`` (a part of a file, such as
    one fuzz finding, that is also written alone)."""
    kind, _, part = kind.partition("#")
    doc = json.loads(resources.files("webnn_harness").joinpath(f"schema/{kind}.schema.json").read_text())
    return {"$ref": f"#/$defs/{part}", "$defs": doc["$defs"]} if part else doc


@lru_cache(maxsize=None)
def _is_valid(kind: str) -> Callable[[Any], bool]:
    try:
        import jsonschema_rs
    except ImportError:
        return lambda doc: False  # the full validation in check() says yes or no
    return jsonschema_rs.Draft202012Validator(schema(kind)).is_valid


def field_name(path) -> str:
    """A JSON path as ``a.b[2].c`` (``(document)`` for the whole)."""
    text = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
    return text or "(document)"


def check(doc: Any, kind: str, source: str, one_of: str = "") -> None:
    """A ReadError naming ``source`` and the first wrong field unless ``doc`` is a ``kind`` document
    (``one_of``: what to say of a failed oneOf, which jsonschema explains at length)."""
    if _is_valid(kind)(doc):
        return
    import jsonschema

    errors = list(jsonschema.Draft202012Validator(schema(kind)).iter_errors(doc))
    if not errors:
        return
    # The deepest error names the field that is wrong; for a failed oneOf/anyOf, the shallowest.
    if any(e.validator in ("oneOf", "anyOf") for e in errors):
        err = min(errors, key=lambda e: len(e.absolute_path))
    else:
        err = max(errors, key=lambda e: len(e.absolute_path))
    message = one_of if one_of and err.validator == "oneOf" else " ".join(err.message.split())[:200]
    raise ReadError(f"{source}: {field_name(err.absolute_path)}: {message}")


# -- JSON lines -------------------------------------------------------------------


@dataclass(frozen=True)
class LinesRead:
    items: tuple
    problems: tuple[str, ...]  # "FILE: line N: why", the first MAX_PROBLEMS_SHOWN, then how many more
    skipped: int  # lines that could not be read (blank lines are not counted)
    whole_bytes: int  # length of the file up to the end of its last complete line


def _lines(path: Path, max_line_bytes: int) -> Iterator[tuple[int, bytes | None, int, bool]]:
    """(number, line, length, complete) for each line of ``path``; a line over the limit comes back as
    None, never held in memory whole."""
    with open(path, "rb") as fh:
        number = 0
        while True:
            line = fh.readline(max_line_bytes + 1)
            if not line:
                return
            number += 1
            if len(line) > max_line_bytes:
                length = len(line)
                while line and not line.endswith(b"\n"):  # skip the rest of the long line
                    line = fh.readline(1 << 20)
                    length += len(line)
                yield number, None, length, line.endswith(b"\n")
                continue
            yield number, line, len(line), line.endswith(b"\n")


def read_lines(path: str | Path, parse: Callable[[Any], T], kind: str | None = None,
               max_line_bytes: int = MAX_LINE_BYTES, numbered: bool = False) -> LinesRead:
    """Every line of the JSON-lines file ``path`` that reads as JSON, passes ``kind``'s schema and
    ``parse`` (a ValueError, KeyError or TypeError from it refuses the line); the rest skipped and counted.
    A last line without its newline (a run killed while writing it) is skipped as cut short.
    ``numbered``: each item is (line number, parsed)."""
    path = Path(path)
    items: list = []
    problems: list[str] = []
    skipped = whole = 0
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise ReadError(f"{path}: not a regular file (a folder, named pipe or device); not read")
        for number, line, length, complete in _lines(path, max_line_bytes):
            if line is not None and not line.strip():
                whole += length * complete
                continue
            if line is None:
                why = f"{length:,} bytes, over the {max_line_bytes:,}-byte limit of a line"
            else:
                try:
                    doc = loads(line, "")
                    if kind is not None:
                        check(doc, kind, "")
                    items.append((number, parse(doc)) if numbered else parse(doc))
                    whole += length  # a last record missing only its newline is whole
                    continue
                except (ValueError, KeyError, TypeError, RecursionError) as exc:
                    why = _line_reason(exc)
            skipped += 1
            if complete:
                whole += length
            else:
                why = "cut short (killed while writing it?); the lines before it are read"
            if len(problems) < MAX_PROBLEMS_SHOWN:
                problems.append(f"{where(path, number)}: {why}")
    except OSError as exc:
        raise ReadError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if skipped > MAX_PROBLEMS_SHOWN:
        problems.append(f"{path}: ... and {skipped - MAX_PROBLEMS_SHOWN} more unreadable lines")
    return LinesRead(tuple(items), tuple(problems), skipped, whole)


def _line_reason(exc: BaseException) -> str:
    if isinstance(exc, KeyError):
        return f"no {exc} field"
    if isinstance(exc, RecursionError):
        return "JSON nested too deeply to read"
    return str(exc).lstrip(": ") or type(exc).__name__
