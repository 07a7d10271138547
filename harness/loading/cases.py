"""Case files: find, read, validate, and turn each case into a ``Case``.

A file is a list of cases or an object with ``tests`` (the WPT conformance
schema, see harness/schema/cases.schema.json). A malformed file or case
becomes a ``CaseError`` naming file, case and field in one line; the other
cases of the file still load.
"""
from __future__ import annotations

import hashlib
import json
import re
import stat
from dataclasses import dataclass, field
from functools import lru_cache, partial
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping

import numpy as np

from webnn_harness.spec.builder import FieldError, build_graph, is_required
from webnn_harness.loading.casesize import check_descriptors, check_graph, default_max_case_bytes
from webnn_harness.loading.caseid import case_id, corpus_root, file_id
from webnn_harness.files.writes import input_problem
from webnn_harness.loading.sidecar import read_sidecar
from webnn_harness.spec.graph import Graph, TensorDesc
from webnn_harness.spec.values import TensorValueError, generate, to_array

if TYPE_CHECKING:
    import jsonschema

# Files in a corpus folder that are not case files (WPT's index and table); nor is a hidden file, such as
# the manifest an importer's output folder holds (.webnn-harness-output.json, harness/outputs/writing.py).
NOT_CASE_FILES = {"INDEX.json", "minimum_datatype_set.json"}


@dataclass(frozen=True)
class Tolerance:
    metric: str  # "ULP" | "ATOL"
    value: float
    reason: str = ""


@dataclass(frozen=True, eq=False)
class Case:
    file: str  # the stable file id, e.g. "wpt/relu.json" (harness/loading/caseid.py)
    name: str
    index: int
    graph: Graph
    inputs: Mapping[str, np.ndarray]  # values of the graph's non-constant inputs
    expected: Mapping[str, np.ndarray]  # literal expected outputs; missing ones come from the reference
    tolerance: Tolerance | None = None  # the case's own override
    file_tolerance: Mapping[str, Any] | None = None  # WPT "fileTolerance"
    required: bool = False
    path: str = ""  # where it was read from on this machine: for local commands, never published
    source_key: str = ""  # file digest, index, name: keys the reference cache (harness/verdict/reference_cache.py)
    dot_product: Any = None  # accuracy cases only: a DotProductCheck (harness/accuracy/check.py)

    @property
    def id(self) -> str:
        return case_id(self.file, self.name)


@dataclass(frozen=True)
class CaseError:
    file: str
    name: str
    index: int
    field: str
    message: str
    path: str = ""

    @property
    def id(self) -> str:
        return case_id(self.file, self.name)

    def __str__(self) -> str:
        where = f'"{self.name}": ' if self.name else ""
        fld = f"{self.field}: " if self.field else ""
        return f"{self.file}: {where}{fld}{self.message}"


@lru_cache(maxsize=1)
def _case_schema() -> dict:
    schema = json.loads(resources.files("webnn_harness").joinpath("schema/cases.schema.json").read_text())
    # Tensor data is checked value by value when it is decoded (harness.values),
    # with messages that say which value is wrong; descending into every number
    # here would triple the load time of the corpus for no extra safety.
    defs = {**schema["$defs"], "nested": {"anyOf": [
        {"type": ["array", "number", "string"]}, {"type": "object", "required": ["bigint"]}]}}
    return {"$defs": defs, "$ref": "#/$defs/case"}


@lru_cache(maxsize=1)
def _validator() -> jsonschema.protocols.Validator:
    import jsonschema  # only for a case the fast check rejects: importing it costs 0.2 s a process

    return jsonschema.Draft202012Validator(_case_schema())


@lru_cache(maxsize=1)
def _is_valid_case():
    """A yes/no check of the same schema, ~400x faster than ``jsonschema``
    (compiled, in Rust); only a case it rejects is validated again by
    ``jsonschema`` for the message that names the field."""
    try:
        import jsonschema_rs
    except ImportError:  # no wheel for this platform: the slow path says yes or no too
        return _validator().is_valid
    return jsonschema_rs.Draft202012Validator(_case_schema()).is_valid


def bundled_corpus() -> Path:
    return Path(str(resources.files("webnn_harness.corpus")))


class DuplicateCaseId(ValueError):
    """Two different files with one stable id: a usage error (exit 2)."""


@dataclass(frozen=True)
class CaseFile:
    path: Path  # as found on this machine
    id: str  # stable: corpus/path inside it
    named_explicitly: bool  # given as a file, not found in a folder


def find_case_files(paths: Iterable[str | Path]) -> list[CaseFile]:
    """Each case file under ``paths`` (folders searched recursively), once,
    with its stable id. Two different files with one id (two corpora whose
    folders have the same name) are a ValueError: their results could not be
    told apart."""
    bundled = bundled_corpus()
    out: dict[str, CaseFile] = {}
    for p in map(Path, paths):
        if input_problem(p):  # said by whoever reads it (_iter_entries)
            out.setdefault(str(p), CaseFile(p, str(p), True))
            continue
        corpus, root = corpus_root(p, bundled)
        # A named pipe or device is listed (and refused unread by load_file: opening one could hang).
        found = ([(f, False) for f in sorted(p.rglob("*.json"))
                  if f.name not in NOT_CASE_FILES and not f.name.startswith(".") and not f.is_dir()]
                 if p.is_dir() else [(p, True)])
        for f, explicit in found:
            fid = file_id(f, corpus, root)
            seen = out.get(fid)
            if seen and seen.path != f and seen.path.resolve() != f.resolve():
                raise DuplicateCaseId(f"{seen.path} and {f} have the same case id {fid}: "
                                 "give corpora with different folder names")
            out.setdefault(fid, CaseFile(f, fid, explicit))
    return list(out.values())


def _most_telling(errors: list[jsonschema.ValidationError]) -> jsonschema.ValidationError:
    """The deepest error names the field that is wrong; but a failed "oneOf"
    at depth only says no alternative fitted, so then the shallowest is clearer."""
    depth = lambda e: len(e.absolute_path)  # noqa: E731
    deepest = max(errors, key=depth)
    return deepest if deepest.validator != "oneOf" else min(errors, key=depth)


def _mentions_op(error: CaseError, ops: set[str]) -> bool:
    """A case that failed to load has no graph to read its ops from; keep it
    under --op when its file or name names one (WPT files are named like the
    op in snake_case: gather_nd.json for gatherND)."""
    stem = error.file.lower().replace("_", "")
    return any(op.lower() in stem or op in error.name for op in ops)


def _schema_error_field(error: jsonschema.ValidationError) -> str:
    parts = []
    for p in error.absolute_path:
        parts.append(f"[{p}]" if isinstance(p, int) else (f".{p}" if parts else str(p)))
    return "".join(parts) or "(case)"


def _tensor(raw: dict, where: str, case_seed: int, path: str = "") -> np.ndarray:
    desc = raw["descriptor"]
    shape = desc.get("shape", desc.get("dimensions"))
    data = raw.get("data")
    try:
        if isinstance(data, dict) and "sidecar" in data:  # import-onnx's weights: bytes beside the case file
            try:
                return read_sidecar(data["sidecar"], Path(path).parent if path else None, shape, desc["dataType"])
            except TensorValueError as exc:
                raise FieldError(f"{where}.data.sidecar", str(exc)) from None
        if isinstance(data, dict) and "generate" in data:
            gen = dict(data["generate"])
            gen.setdefault("seed", case_seed)
            return generate(gen, shape, desc["dataType"])
        return to_array(data, shape, desc["dataType"])
    except TensorValueError as exc:
        raise FieldError(f"{where}.data", str(exc)) from None


def load_case(raw: Any, file: str, index: int, file_tolerance=None, path: str = "",
              file_digest: str = "", max_case_bytes: int | None = None) -> Case | CaseError:
    name = _raw_name(raw)
    errors = [] if _is_valid_case()(raw) else sorted(
        _validator().iter_errors(raw), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        err = _most_telling(errors)
        return CaseError(file, name, index, _schema_error_field(err), err.message[:300], path)
    limit = max_case_bytes or default_max_case_bytes()
    try:
        graph_raw = raw["graph"]
        check_descriptors(graph_raw, limit)  # before anything is allocated
        seed = index + 1
        inputs: dict[str, np.ndarray] = {}
        constants: dict[str, np.ndarray] = {}
        for i, (in_name, tensor) in enumerate(graph_raw["inputs"].items()):
            where = f"inputs.{in_name}"
            if "data" not in tensor:
                raise FieldError(f"{where}.data", "an input needs data (a list, a number, or {\"generate\": ...})")
            value = _tensor(tensor, where, seed * 1000 + i, path)
            (constants if tensor.get("constant") else inputs)[in_name] = value
        expected_raw = graph_raw.get("expectedOutputs")
        graph = build_graph(
            {k: TensorDesc(tuple(v.shape), v.dtype.name) for k, v in inputs.items()},
            constants,
            graph_raw["operators"],
            list(expected_raw) if expected_raw is not None else None,
        )
        check_graph(graph, limit)
        expected: dict[str, np.ndarray] = {}
        for out_name, tensor in (expected_raw or {}).items():
            where = f"expectedOutputs.{out_name}"
            desc = tensor["descriptor"]
            shape = tuple(desc.get("shape", desc.get("dimensions")))
            got = graph.descs[out_name]
            if (shape, desc["dataType"]) != (got.shape, got.data_type):
                raise FieldError(
                    f"{where}.descriptor",
                    f"says {desc['dataType']}{list(shape)} but the graph produces {got}",
                )
            if "data" in tensor:
                expected[out_name] = _tensor(tensor, where, 0, path)
        tol = raw.get("tolerance")
        return Case(
            file=file,
            name=name,
            index=index,
            graph=graph,
            inputs=inputs,
            expected=expected,
            tolerance=Tolerance(tol["metric"], tol["value"], tol.get("reason", "")) if tol else None,
            file_tolerance=file_tolerance,
            required=is_required(graph),
            path=path,
            source_key=f"{file_digest}:{index}:{name}" if file_digest else "",
        )
    except FieldError as exc:
        return CaseError(file, name, index, exc.field, exc.message, path)


def read_case_json(path: Path, file: str, max_bytes: int) -> tuple[Any, str] | CaseError:
    """(the file's JSON, the SHA-256 of its bytes), or a CaseError saying in one line why it cannot be read."""
    local = str(path)
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):
            return CaseError(file, "", -1, "", "not a regular file (a folder, named pipe or device); not read", local)
        if st.st_size > max_bytes:
            return CaseError(file, "", -1, "", f"{st.st_size:,} bytes, over the {max_bytes:,}-byte limit "
                                               "(--max-case-bytes); not read", local)
        data = path.read_bytes()
        return json.loads(data), hashlib.sha256(data).hexdigest()  # bytes: json detects UTF-8/16/32 itself
    except OSError as exc:
        return CaseError(file, "", -1, "", f"cannot read: {exc.strerror or exc}", local)
    except json.JSONDecodeError as exc:
        return CaseError(file, "", -1, "", f"not valid JSON: {exc}", local)
    except UnicodeDecodeError as exc:
        return CaseError(file, "", -1, "", f"not UTF-8 text: byte {exc.start}: {exc.reason}", local)
    except RecursionError:
        return CaseError(file, "", -1, "", "JSON nested too deeply to read", local)


@dataclass(frozen=True)
class PendingCase:
    """A case read from its file but not loaded yet (validated, built, its
    values made): what a selection can decide from the raw JSON alone, its
    id, index and operators, before paying for the rest."""

    file: str
    name: str
    index: int
    ops: frozenset[str] | None  # the operators it names, when its JSON lists them cleanly
    _load: Callable[[], Case | CaseError] = field(repr=False, compare=False)

    @property
    def id(self) -> str:
        return case_id(self.file, self.name)

    def load(self) -> Case | CaseError:
        return self._load()


def read_file(path: Path, named_explicitly: bool = True, file: str | None = None,
              max_case_bytes: int | None = None) -> Iterator[PendingCase | CaseError]:
    """The cases of one file, read but not loaded; a file that cannot be
    read is one CaseError. ``file`` is its stable id (default: from its folder)."""
    if file is None:
        file = find_case_files([path])[0].id
    local = str(path)
    limit = max_case_bytes or default_max_case_bytes()
    read = read_case_json(path, file, limit)
    if isinstance(read, CaseError):
        yield read
        return
    doc, digest = read
    file_tolerance = None
    if isinstance(doc, dict):
        if "tests" not in doc:
            if named_explicitly:
                yield CaseError(file, "", -1, "tests", "a case file is a list of cases or an object with \"tests\"", local)
            return
        file_tolerance = doc.get("fileTolerance")
        doc = doc["tests"]
    if not isinstance(doc, list):
        yield CaseError(file, "", -1, "tests", "must be a list of cases", local)
        return
    seen: set[str] = set()
    for i, raw in enumerate(doc):
        name = _raw_name(raw)
        if name in seen and name:
            duplicate = CaseError(file, name, i, "name", "duplicate case name in this file", local)
            yield PendingCase(file, name, i, _raw_ops(raw), lambda error=duplicate: error)
            continue
        seen.add(name)
        load = partial(_load_raw, raw, file, i, file_tolerance, local, digest, limit)
        yield PendingCase(file, name, i, _raw_ops(raw), load)


def loaded(entry: Case | CaseError | PendingCase) -> Case | CaseError:
    """An entry of ``read_file`` / ``iter_entries`` as a case: a PendingCase
    loaded, anything else as it is."""
    return entry.load() if isinstance(entry, PendingCase) else entry


def _raw_name(raw: Any) -> str:
    """A raw case's name, "" when it has none that is a string."""
    name = raw.get("name", "") if isinstance(raw, dict) else ""
    return name if isinstance(name, str) else ""


def _load_raw(raw: Any, file: str, index: int, file_tolerance, local: str, digest: str,
              limit: int) -> Case | CaseError:
    try:
        return load_case(raw, file, index, file_tolerance, local, digest, limit)
    except (RecursionError, MemoryError, ValueError, TypeError, KeyError, IndexError, OverflowError) as exc:
        # Whatever a malformed case makes the loader raise, it fails alone, named.
        name = _raw_name(raw)
        return CaseError(file, name, index, "", f"cannot load: {type(exc).__name__}: {str(exc)[:300]}", local)


def _raw_ops(raw: Any) -> frozenset[str] | None:
    """The operators a raw case names, as the builder will name its nodes;
    None when its JSON does not list them cleanly (loading will say why)."""
    from webnn_harness.spec.catalog import operator

    try:
        return frozenset(operator(op["name"]).name for op in raw["graph"]["operators"])
    except (KeyError, TypeError, AttributeError):
        return None


def load_file(path: Path, named_explicitly: bool = True, file: str | None = None,
              max_case_bytes: int | None = None) -> Iterator[Case | CaseError]:
    """The cases of one file, loaded; ``file`` is its stable id (default: from its folder)."""
    for entry in read_file(path, named_explicitly, file, max_case_bytes):
        yield loaded(entry)


def iter_cases(
    paths: Iterable[str | Path],
    ops: Iterable[str] | None = None,
    name_filter: str | None = None,
    file_ids: Iterable[str] | None = None,
    max_case_bytes: int | None = None,
) -> Iterator[Case | CaseError]:
    """Every case under ``paths`` as it loads, keeping those that use one of
    ``ops`` (if given), whose name matches ``name_filter`` (a regex, if
    given) and whose file has one of ``file_ids`` (if given; other files are
    not read). The files are found (and a DuplicateCaseId raised) at the
    call, before the first case is read."""
    entries = iter_entries(paths, ops, name_filter, file_ids, max_case_bytes)
    return map(loaded, entries)


def iter_entries(
    paths: Iterable[str | Path],
    ops: Iterable[str] | None = None,
    name_filter: str | None = None,
    file_ids: Iterable[str] | None = None,
    max_case_bytes: int | None = None,
) -> Iterator[Case | CaseError | PendingCase]:
    """``iter_cases``'s selection, each case left unloaded (a PendingCase)
    when the raw JSON already settles that it is selected: a case the
    filters drop is never loaded, and a shard loads only its own cases."""
    wanted_files = set(file_ids) if file_ids is not None else None
    found_files = [f for f in find_case_files(paths) if wanted_files is None or f.id in wanted_files]
    return _iter_entries(found_files, set(ops or ()), re.compile(name_filter) if name_filter else None,
                         max_case_bytes)


def _iter_entries(found_files: list[CaseFile], wanted_ops: set[str], pattern: re.Pattern | None,
                  max_case_bytes: int | None) -> Iterator[Case | CaseError | PendingCase]:
    for found in found_files:
        problem = input_problem(found.path)
        if problem:  # a link loop or a link to nothing is said as such
            yield CaseError(found.id, "", -1, "", problem, str(found.path))
            continue
        for entry in read_file(found.path, found.named_explicitly, found.id, max_case_bytes):
            if pattern and not pattern.search(entry.name):
                continue
            if not wanted_ops:
                yield entry
                continue
            verdict = _op_verdict(entry, wanted_ops) if isinstance(entry, PendingCase) else None
            if verdict is True:
                yield entry
                continue
            if verdict is False:
                continue
            case = loaded(entry)
            if isinstance(case, Case) and not wanted_ops & set(case.graph.ops):
                continue
            if isinstance(case, CaseError) and not _mentions_op(case, wanted_ops):
                continue
            yield case


def _op_verdict(entry: PendingCase, wanted_ops: set[str]) -> bool | None:
    """Whether --op keeps a case, when that does not depend on whether it
    loads: a case that loads is kept when it uses a wanted op, one that fails
    when its file or name names one (``_mentions_op``); None when the two differ."""
    if entry.ops is None:
        return None
    uses, mentions = bool(wanted_ops & entry.ops), _mentions_op(entry, wanted_ops)
    return uses if uses == mentions else None


def load_cases(
    paths: Iterable[str | Path],
    ops: Iterable[str] | None = None,
    name_filter: str | None = None,
    file_ids: Iterable[str] | None = None,
    max_case_bytes: int | None = None,
) -> list[Case | CaseError]:
    """``iter_cases`` as a list: every selected case, loaded."""
    return list(iter_cases(paths, ops, name_filter, file_ids, max_case_bytes))
