"""The inference rules' data: ``rules/inference.yaml`` read into validated :class:`RuleSpec`
entries (premises, constraints, conclusions); how they are applied: :mod:`memtracks.pipeline.inference`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field

from memtracks.data.catalogue import Catalogue, default_catalogue
from memtracks.data.files import Strict, bundled, load_section

_VAR = re.compile(r"\{([a-z_]+)(?:\.([a-z_]+))?\}")


_BUILTIN_ARGS = {"when", "date", "end_date", "value"}


class PremiseSpec(Strict):
    name: str = Field(pattern=r"^[a-z_]+$")
    event: str | None = None
    fact: str | None = None
    needs: list[str] = Field(default_factory=list)
    upcoming: bool = False


class ConstraintSpec(Strict):
    left: str
    op: Literal["eq", "ne", "matches"]
    right: str


class FactConclusionSpec(Strict):
    slot: str
    value: str | dict[Literal["en", "zh"], str]
    key: str | None = None


class ConclusionSpec(Strict):
    kind: str
    text: dict[Literal["en", "zh"], str]
    valid: str | None = None
    until: str | None = None
    since: str | None = None
    fact: FactConclusionSpec | None = None


class RuleSpec(Strict):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    description: str
    premises: list[PremiseSpec] = Field(min_length=1)
    where: list[ConstraintSpec] = Field(default_factory=list)
    conclusion: ConclusionSpec
    confidence: float = Field(0.6, ge=0.0, le=1.0)


def _check_rule(rule: RuleSpec, catalogue: Catalogue) -> Iterator[str]:
    names = {p.name: p for p in rule.premises}
    for i, p in enumerate(rule.premises):
        if (p.event is None) == (p.fact is None):
            yield f"field 'premises[{i}]': give exactly one of 'event' or 'fact'"
        if p.fact and p.fact not in catalogue:
            yield f"field 'premises[{i}].fact': unknown slot {p.fact!r}"
    for lang, template in rule.conclusion.text.items():
        yield from _check_template(template, names, f"conclusion.text.{lang}")
    if rule.conclusion.fact:
        fact = rule.conclusion.fact
        if fact.slot not in catalogue:
            yield f"field 'conclusion.fact.slot': unknown slot {fact.slot!r}"
        values: list[tuple[str, str]] = (
            [(str(k), v) for k, v in fact.value.items()] if isinstance(fact.value, dict) else [("value", fact.value)]
        )
        for where, template in values:
            yield from _check_template(template, names, f"conclusion.fact.value.{where}")
    refs = [f for f in ("valid", "until", "since") if getattr(rule.conclusion, f)]
    if len(refs) > 1:
        yield f"fields 'conclusion.{refs[0]}'/'conclusion.{refs[1]}': give at most one of valid, until, since"
    for field_name in refs:
        ref = getattr(rule.conclusion, field_name)
        if ref not in names:
            yield f"field 'conclusion.{field_name}': no premise named {ref!r}"
    for i, c in enumerate(rule.where):
        yield from _check_template(c.left, names, f"where[{i}].left")
        if c.op == "matches":
            try:
                re.compile(c.right)
            except re.error as exc:
                yield f"field 'where[{i}].right': bad regex: {exc}"
        else:
            yield from _check_template(c.right, names, f"where[{i}].right")


def _check_template(template: str, premises: dict[str, PremiseSpec], where: str) -> Iterator[str]:
    for name, arg in _VAR.findall(template):
        if name == "subject" and not arg:
            continue
        if name not in premises:
            yield f"field '{where}': {{{name}.{arg}}} names no premise"
        elif premises[name].event and arg not in _BUILTIN_ARGS and arg not in premises[name].needs:
            yield f"field '{where}': uses {{{name}.{arg}}} but premise '{name}' does not need '{arg}'"


def load_rules(path: Path | None = None, catalogue: Catalogue | None = None) -> tuple[RuleSpec, ...]:
    """Load and validate inference rules; a bad file fails naming the rule and field."""
    catalogue = catalogue or default_catalogue()
    path = path or bundled("rules", "inference.yaml")
    return tuple(load_section(path, "rules", RuleSpec, check=lambda r: _check_rule(r, catalogue)))


@lru_cache(maxsize=1)
def default_rules() -> tuple[RuleSpec, ...]:
    return load_rules()
