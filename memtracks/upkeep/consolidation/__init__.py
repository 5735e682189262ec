"""Consolidation: memory that keeps itself tidy — near-duplicates folded, restatements with
more detail updated in place, contradictions superseded — with nothing deleted and every
run undoable. :mod:`.plan` decides (pure), :mod:`.apply` writes and undoes.

>>> report = mem.consolidate("u1", dry_run=True)   # doctest: +SKIP
>>> print(report.diff())                           # doctest: +SKIP
>>> mem.undo(mem.consolidate("u1").operation_id)   # doctest: +SKIP
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memtracks.config import ConsolidationConfig
from memtracks.errors import InvalidInputError
from memtracks.llm.client import ConsolidationLLM
from memtracks.llm.extractor import LLMExtractor, LLMReport
from memtracks.storage import consolidations as sql
from memtracks.upkeep.consolidation.apply import apply, merge_metadata, undo
from memtracks.upkeep.consolidation.plan import Action, event_actions, fact_actions
from memtracks.upkeep.consolidation.similarity import Relation, relation

if TYPE_CHECKING:
    from memtracks.parts import Parts

__all__ = [
    "Action",
    "ConsolidationReport",
    "Relation",
    "consolidate",
    "live_counts",
    "merge_metadata",
    "relation",
    "undo",
]


@dataclass(frozen=True)
class ConsolidationReport:
    """What a run did (or, with ``dry_run``, would do). ``before``/``after``: live memories
    (current facts, events not folded, active conclusions)."""

    operation_id: str | None
    dry_run: bool
    before: dict[str, int]
    after: dict[str, int]
    actions: tuple[Action, ...] = ()
    thresholds: dict[str, float] = field(default_factory=dict)
    llm: LLMReport | None = None  # what the optional LLM extractor did first, with its cost

    def counts(self) -> dict[str, int]:
        found = Counter(a.kind for a in self.actions)
        return {k: found.get(k, 0) for k in ("merge", "update", "replace", "keep_separate")}

    def diff(self) -> str:
        """The changes as a readable diff: ``-`` what goes out of search, ``+`` what stands."""
        lines = []
        for a in self.actions:
            if a.kind == "keep_separate":
                continue
            lines.append(
                f"{a.kind} {a.track}:{a.target} <- {', '.join(f'{a.track}:{m}' for m in a.members)}"
                f"  (cosine {a.similarity:.3f}, {a.why})"
            )
            lines += [f"  - {t}" for t in a.before]
            lines.append(f"  + {a.after}")
        kept = self.counts()["keep_separate"]
        head = f"{'would change' if self.dry_run else 'changed'} {len(self.actions) - kept} memories' records"
        return "\n".join([f"{head}; {kept} related pairs kept separate", *lines])

    def to_dict(self) -> dict[str, Any]:
        return {
            "operation_id": self.operation_id,
            "dry_run": self.dry_run,
            "before": self.before,
            "after": self.after,
            "counts": self.counts(),
            "thresholds": self.thresholds,
            "actions": [a.to_dict() for a in self.actions],
            "llm": self.llm.to_dict() if self.llm else None,
        }


def live_counts(parts: Parts, scope: str) -> dict[str, int]:
    store = parts.store
    folded = sql.merged_events(store, scope)
    return {
        "facts": len(store.facts(scope, current_only=True)),
        "events": store.counts(scope)["events"] - len(folded),
        "inferences": len(store.inferences(scope, active_only=True)),
    }


def _check(config: ConsolidationConfig) -> None:
    find, replace = config.find_threshold, config.replace_threshold
    if not (0.0 < find <= replace <= 1.0):
        raise InvalidInputError(
            f"thresholds must satisfy 0 < find_threshold <= replace_threshold <= 1; found {find} and {replace}"
        )


def plan(parts: Parts, scope: str, config: ConsolidationConfig) -> list[Action]:
    """The actions a run would take for ``scope`` (nothing is written)."""
    _check(config)
    store = parts.store
    polarity = parts.toolkit.polarity
    folded = sql.merged_events(store, scope)
    events = [e for e in store.events(scope) if e.id not in folded and e.happenings]

    def vectors(track: str, ids: Any) -> Any:
        return sql.matrix(store, scope, track, list(ids))

    facts = fact_actions(store.facts(scope, current_only=True), vectors, parts.toolkit.catalogue, config, polarity)
    return facts + event_actions(events, vectors, config, polarity, parts.toolkit.lexicons.to_simplified)


def consolidate(
    parts: Parts,
    scope: str,
    *,
    dry_run: bool,
    config: ConsolidationConfig,
    at: datetime,
    llm: ConsolidationLLM | LLMExtractor | None = None,
) -> ConsolidationReport:
    extracted = None
    if llm is not None and not dry_run:
        extractor = llm if isinstance(llm, LLMExtractor) else LLMExtractor(llm)
        extracted = extractor.run(parts, scope)
    actions = plan(parts, scope, config)
    before = live_counts(parts, scope)
    thresholds = {"find": config.find_threshold, "replace": config.replace_threshold}
    changing = [a for a in actions if a.kind != "keep_separate"]
    if dry_run or not changing:
        gone = Counter(f"{a.track}s" for a in changing for _ in a.members)
        after = {k: v - gone.get(k, 0) for k, v in before.items()}
        return ConsolidationReport(None, dry_run, before, after, tuple(actions), thresholds, extracted)
    operation_id = apply(parts, scope, actions, at)
    after = live_counts(parts, scope)
    return ConsolidationReport(operation_id, False, before, after, tuple(actions), thresholds, extracted)
