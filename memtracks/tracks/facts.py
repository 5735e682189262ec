"""The fact track: how facts read as text, and how their supersede chains are walked."""

from __future__ import annotations

from collections.abc import Iterable

from ..catalogue import Catalogue
from ..records import Fact


def fact_sentence(fact: Fact, catalogue: Catalogue) -> str:
    """A fact as a short sentence, in its own language: "user lives in: Shanghai"."""
    label = catalogue.label(fact.slot, fact.lang)
    value = fact.value or ("—" if fact.negated else "")
    if fact.lang == "zh":
        return f"{fact.subject} {'不再是' if fact.negated else ''}{label}：{value}"
    return f"{fact.subject} {'no longer ' if fact.negated else ''}{label}: {value}"


def supersede_chain(fact: Fact, facts: Iterable[Fact]) -> list[Fact]:
    """The facts ``fact`` descends from and leads to, oldest first, through ``superseded_by``."""
    by_id = {f.id: f for f in facts}
    predecessors = {f.superseded_by: f for f in by_id.values() if f.superseded_by is not None}
    chain = [fact]
    while chain[0].id in predecessors and predecessors[chain[0].id] not in chain:
        chain.insert(0, predecessors[chain[0].id])
    while chain[-1].superseded_by in by_id and by_id[chain[-1].superseded_by] not in chain:
        chain.append(by_id[chain[-1].superseded_by])
    return chain
