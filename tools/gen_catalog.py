"""Generate harness/spec/data/operators.json: the WebNN operator catalog as data.

Inputs are the spec's own words: the WebIDL blocks of ``index.bs`` (method
signatures, options dictionaries with defaults, MLOpSupportLimits members) and
the spec's tensor-limit tables as extracted to ``spec_tensor_limits.json``.
The output is normalised (no "same as input", no "1 to N") so that nothing
else in the harness parses prose.

    python tools/gen_catalog.py PATH/TO/index.bs PATH/TO/spec_tensor_limits.json
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

DATA_TYPES = ["float32", "float16", "int32", "uint32", "int64", "uint64", "int8", "uint8"]
OUT = Path(__file__).resolve().parents[1] / "harness" / "spec" / "data" / "operators.json"

# The tables name outputs as the spec text does; MLOpSupportLimits members differ.
TABLE_TO_MEMBER = {
    "inputs's list/items": "inputs",
    "outputs[0]": "output0",
    "outputs[1]": "output1",
    "outputs[1]* if returnSequence is true": "output1",
    "outputs[2]* if returnSequence is true": "output2",
}


def idl_blocks(index_bs: str) -> list[str]:
    return re.findall(r"<script type=\"?idl\"?>(.*?)</script>", index_bs, re.S)


def parse_dictionaries(idl: str) -> dict[str, dict]:
    dicts = {}
    for name, parent, body in re.findall(
        r"dictionary (\w+)(?:\s*:\s*(\w+))?\s*\{(.*?)\};", idl, re.S
    ):
        members = {}
        for line in body.split(";"):
            line = re.sub(r"//.*", "", line).strip()
            line = re.sub(r"\[EnforceRange\]\s*", "", line)
            if not line:
                continue
            m = re.match(r"(required\s+)?(.+?)\s+(\w+)(?:\s*=\s*(.+))?$", line, re.S)
            if not m:
                raise ValueError(f"cannot parse member {line!r} of {name}")
            _, typ, member, default = m.groups()
            members[member] = {"type": " ".join(typ.split()), "default": parse_default(default)}
        dicts[name] = {"parent": parent or None, "members": members}
    return dicts


def parse_default(text: str | None):
    if text is None:
        return None
    text = text.strip()
    if text.startswith('"'):
        return text.strip('"')
    if text in ("true", "false"):
        return text == "true"
    if text == "{}":
        return {}
    return json.loads(text) if re.fullmatch(r"-?\d+", text) else float(text)


def parse_methods(idl: str) -> dict[str, dict]:
    methods = {}
    for body in re.findall(r"partial interface MLGraphBuilder\s*\{(.*?)\};", idl, re.S):
        for decl in body.split(";"):
            decl = " ".join(re.sub(r"//.*", "", decl).split())
            decl = re.sub(r"\[EnforceRange\]\s*", "", decl)
            m = re.match(r"(sequence<MLOperand>|MLOperand) (\w+)\((.*)\)$", decl)
            if not m:
                continue
            returns, name, params = m.groups()
            signature, options_type = [], None
            for param in split_params(params):
                pm = re.match(r"(optional )?(.+) (\w+)(?: = \{\})?$", param)
                optional, typ, pname = pm.groups()
                if pname == "options":
                    options_type = typ
                else:
                    signature.append({"name": pname, "type": typ})
            methods[name] = {"returns": returns, "signature": signature, "optionsType": options_type}
    return methods


def split_params(params: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in params:
        depth += ch in "<(" and 1 or 0
        depth -= ch in ">)" and 1 or 0
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def parse_limit_members(idl: str, dicts: dict) -> dict[str, list[str]]:
    limits = {}
    for body in re.findall(r"partial dictionary MLOpSupportLimits\s*\{(.*?)\};", idl, re.S):
        for typ, op in re.findall(r"(\w+) (\w+);", body):
            limits[op] = list(dicts[typ]["members"])
    return limits


def options_of(dicts: dict, typ: str | None) -> dict:
    members = {}
    while typ:
        d = dicts[typ]
        members = {**d["members"], **members}
        typ = d["parent"]
    members.pop("label", None)
    return {
        name: {"type": m["type"], "default": m["default"], "operand": m["type"] == "MLOperand"}
        for name, m in members.items()
    }


def parse_types(text: str, resolved: dict[str, dict]) -> tuple[list[str], str | None]:
    if text == "any":
        return list(DATA_TYPES), None
    m = re.fullmatch(r"same as (.+)", text)
    if m:
        ref = TABLE_TO_MEMBER.get(m.group(1), m.group(1))
        return list(resolved[ref]["allowedDataTypes"]), ref
    types = [t.strip() for t in text.split(",")]
    unknown = set(types) - set(DATA_TYPES)
    if unknown:
        raise ValueError(f"unknown data types {unknown}")
    return [t for t in DATA_TYPES if t in types], None


def parse_ranks(text: str, resolved: dict[str, dict]) -> tuple[dict, str | None]:
    m = re.fullmatch(r"same rank as (.+)", text)
    if m:
        ref = TABLE_TO_MEMBER.get(m.group(1), m.group(1))
        return dict(resolved[ref]["allowedRanks"]), ref
    if text == "N":
        return {"min": 0, "max": None}, None
    m = re.fullmatch(r"(\d+) to (N|\d+)", text)
    if m:
        hi = m.group(2)
        return {"min": int(m.group(1)), "max": None if hi == "N" else int(hi)}, None
    if re.fullmatch(r"\d+", text):
        return {"min": int(text), "max": int(text)}, None
    raise ValueError(f"cannot parse rank {text!r}")


def normalise_operands(table: dict, members: list[str]) -> dict:
    resolved: dict[str, dict] = {}
    for table_name, limits in table.items():
        member = TABLE_TO_MEMBER.get(table_name, table_name)
        allowed, same_type = parse_types(limits["allowedDataTypes"], resolved)
        ranks, same_rank = parse_ranks(limits["allowedRanks"], resolved)
        required_ranks, _ = parse_ranks(limits["requiredRanks"], resolved)
        entry = {
            "allowedDataTypes": allowed,
            "requiredDataTypes": [t for t in DATA_TYPES if t in limits["requiredDataTypes"]],
            "allowedRanks": ranks,
            "requiredRanks": required_ranks,
        }
        if same_type:
            entry["sameDataTypeAs"] = same_type
        if same_rank:
            entry["sameRankAs"] = same_rank
        if table_name.endswith("if returnSequence is true"):
            entry["onlyWhen"] = "returnSequence"
        resolved[member] = entry
    if list(resolved) != members and set(resolved) != set(members):
        raise ValueError(f"tables name {list(resolved)} but MLOpSupportLimits has {members}")
    return {m: resolved[m] for m in members}


def main(index_bs: str, limits_json: str) -> None:
    idl = "\n".join(idl_blocks(Path(index_bs).read_text()))
    dicts = parse_dictionaries(idl)
    methods = parse_methods(idl)
    limit_members = parse_limit_members(idl, dicts)
    tables = json.loads(Path(limits_json).read_text())
    ops = {}
    for op in tables:
        method = methods[op]
        ops[op] = {
            "returns": method["returns"],
            "signature": method["signature"],
            "options": options_of(dicts, method["optionsType"]),
            "operands": normalise_operands(tables[op], limit_members[op]),
        }
    enums = {
        name: re.findall(r'"([^"]+)"', body)
        for name, body in re.findall(r"enum (\w+)\s*\{(.*?)\};", idl, re.S)
    }
    catalog = {
        "source": "webmachinelearning/webnn index.bs",
        "dataTypes": DATA_TYPES,
        "enums": enums,
        "ops": ops,
    }
    OUT.write_text(json.dumps(catalog, indent=1) + "\n")
    print(f"wrote {OUT} with {len(ops)} operators")


if __name__ == "__main__":
    main(*sys.argv[1:3])
