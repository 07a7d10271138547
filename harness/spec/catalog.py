"""The WebNN operator catalog: the spec as data.

Loaded once from ``harness/spec/data/operators.json`` (generated from the spec by
``tools/gen_catalog.py``). Every operator, its builder-method signature, its
options with IDL defaults, and each operand's allowed and required data types
and ranks under the exact MLOpSupportLimits member names.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from importlib import resources
from typing import Any, Mapping


@dataclass(frozen=True)
class RankRange:
    min: int
    max: int | None  # None: no upper bound in the spec ("N")

    def contains(self, rank: int) -> bool:
        return rank >= self.min and (self.max is None or rank <= self.max)

    def to_json(self) -> dict:
        return {"min": self.min, "max": self.max}


@dataclass(frozen=True)
class OperandLimits:
    member: str
    allowed_data_types: tuple[str, ...]
    required_data_types: tuple[str, ...]
    allowed_ranks: RankRange
    required_ranks: RankRange
    same_data_type_as: str | None = None
    same_rank_as: str | None = None
    only_when: str | None = None  # e.g. "returnSequence": present only with that option

    def to_json(self) -> dict:
        out = {
            "allowedDataTypes": list(self.allowed_data_types),
            "requiredDataTypes": list(self.required_data_types),
            "allowedRanks": self.allowed_ranks.to_json(),
            "requiredRanks": self.required_ranks.to_json(),
        }
        if self.same_data_type_as:
            out["sameDataTypeAs"] = self.same_data_type_as
        if self.same_rank_as:
            out["sameRankAs"] = self.same_rank_as
        return out


@dataclass(frozen=True)
class Parameter:
    name: str
    type: str  # WebIDL type as the spec writes it

    @property
    def is_operand(self) -> bool:
        return self.type == "MLOperand"

    @property
    def is_operand_list(self) -> bool:
        return self.type == "sequence<MLOperand>"


@dataclass(frozen=True)
class Option:
    name: str
    type: str
    default: Any
    is_operand: bool


@dataclass(frozen=True)
class OperatorSpec:
    name: str
    returns_sequence: bool
    signature: tuple[Parameter, ...]  # positional parameters, options excluded
    options: Mapping[str, Option] = field(default_factory=dict)
    operands: Mapping[str, OperandLimits] = field(default_factory=dict)

    # cached_property writes the instance's __dict__, which a frozen dataclass
    # allows: the probe asks these about 27,000 times per run.
    @cached_property
    def input_members(self) -> tuple[str, ...]:
        """Limits members that name inputs (positional operands and operand options)."""
        names = {p.name for p in self.signature} | {o.name for o in self.options.values() if o.is_operand}
        return tuple(m for m in self.operands if m in names)

    @cached_property
    def output_members(self) -> tuple[str, ...]:
        return tuple(m for m in self.operands if m not in self.input_members)

    def options_json(self) -> dict:
        return {
            name: {"type": o.type, "default": o.default, **({"operand": True} if o.is_operand else {})}
            for name, o in self.options.items()
        }


@lru_cache(maxsize=1)
def _raw() -> dict:
    text = resources.files("webnn_harness.spec").joinpath("data/operators.json").read_text()
    return json.loads(text)


def _limits(member: str, raw: dict) -> OperandLimits:
    return OperandLimits(
        member=member,
        allowed_data_types=tuple(raw["allowedDataTypes"]),
        required_data_types=tuple(raw["requiredDataTypes"]),
        allowed_ranks=RankRange(**raw["allowedRanks"]),
        required_ranks=RankRange(**raw["requiredRanks"]),
        same_data_type_as=raw.get("sameDataTypeAs"),
        same_rank_as=raw.get("sameRankAs"),
        only_when=raw.get("onlyWhen"),
    )


@lru_cache(maxsize=1)
def operators() -> Mapping[str, OperatorSpec]:
    """All MLGraphBuilder operators, keyed by method name, in the spec's table order."""
    out = {}
    for name, raw in _raw()["ops"].items():
        out[name] = OperatorSpec(
            name=name,
            returns_sequence=raw["returns"] == "sequence<MLOperand>",
            signature=tuple(Parameter(p["name"], p["type"]) for p in raw["signature"]),
            options={
                k: Option(k, o["type"], o["default"], o["operand"]) for k, o in raw["options"].items()
            },
            operands={m: _limits(m, lim) for m, lim in raw["operands"].items()},
        )
    return out


def operator(name: str) -> OperatorSpec:
    try:
        return operators()[name]
    except KeyError:
        raise KeyError(f"unknown WebNN operator {name!r}") from None


def enum_values(enum_name: str) -> tuple[str, ...]:
    return tuple(_raw()["enums"][enum_name])


def catalog_json() -> dict:
    """The catalog in the shape `webnn-harness ops --json` prints."""
    return {
        "ops": {
            name: {
                "operands": {m: lim.to_json() for m, lim in spec.operands.items()},
                "options": spec.options_json(),
                "signature": [{"name": p.name, "type": p.type} for p in spec.signature],
            }
            for name, spec in operators().items()
        }
    }
