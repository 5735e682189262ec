"""The fact track: the as-of rule, reason codes, how facts read as text and on a card,
supersede chains, and :data:`FACTS`, the track object the rest of memtracks asks about a fact.

**The as-of rule** (written once, used by ``Memory.facts()``, ``retrieve()``, the cards and
the CLI). Facts are bi-temporal: ``valid_from``/``valid_to`` say when a value held in the
world, ``recorded_at``/``superseded_at`` when memtracks learned it began and ended. Asked
about world time ``at`` with what was known at ``known_at`` (``None``: everything stored):

1. a fact recorded after ``known_at`` is unknown; an end learned after ``known_at`` is not
   seen, and an ending rewritten later (a correction or retraction by hand, a predecessor
   reopened) is read as it stood then (``Fact.revisions``): the fact is as it was known then;
2. a fact whose value was never true — corrected, retracted, or a plan that was cancelled
   (``REASONS`` in :mod:`memtracks.records`) —
   is void;
3. a fact that starts after ``at`` is planned (never current before then);
4. a fact that ended at or before ``at`` is past;
5. anything else is current.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memtracks.data.catalogue import Catalogue
from memtracks.records import Fact, FactRevision
from memtracks.storage.codec import dt_text
from memtracks.tracks.base import SNIPPET_TOKENS, Rendering, Track, confidence_note, day, noted

if TYPE_CHECKING:
    from memtracks.config import FusionConfig, WriterConfig
    from memtracks.storage.base import Storage

# Reasons (memtracks.records.REASONS) that say the value was never true, or never came to be,
# or that another fact stands for it ("merged": a near-duplicate carries its time and turns).
VOID_REASONS = frozenset({"corrected", "retracted", "cancelled", "merged"})


class FactState(enum.StrEnum):
    UNKNOWN = "unknown"
    VOID = "void"
    PLANNED = "planned"
    CURRENT = "current"
    PAST = "past"


def as_known(fact: Fact, known_at: datetime | None) -> Fact | None:
    """``fact`` as memtracks knew it at ``known_at``: None if it was not yet recorded, its
    ending as it stood then, hidden if that was learned later."""
    if known_at is None:
        return fact
    if fact.recorded_at > known_at:
        return None
    earlier = next((r for r in fact.revisions if known_at < r.until), None)
    if earlier is not None:
        fact = replace(
            fact,
            valid_to=earlier.valid_to,
            superseded_by=earlier.superseded_by,
            reason=earlier.reason,
            superseded_at=earlier.superseded_at,
            revisions=(),
        )
    if fact.superseded_at is not None and fact.superseded_at > known_at:
        return replace(fact, valid_to=None, superseded_by=None, reason=None, superseded_at=None)
    return fact


def revise(
    fact: Fact,
    learned: datetime,
    *,
    valid_to: datetime | None,
    superseded_by: int | None,
    reason: str | None,
) -> Fact:
    """``fact`` with a new ending, learned at ``learned`` (pure). The ending it had, if any,
    is kept as a revision, so the as-of rule still reads it for earlier knowledge."""
    had_end = fact.valid_to is not None or fact.superseded_by is not None or fact.reason is not None
    revisions = fact.revisions
    if had_end:
        revisions = (
            *revisions,
            FactRevision(learned, fact.valid_to, fact.superseded_by, fact.reason, fact.superseded_at),
        )
    ends = valid_to is not None or superseded_by is not None or reason is not None
    return replace(
        fact,
        valid_to=valid_to,
        superseded_by=superseded_by,
        reason=reason,
        superseded_at=learned if ends else None,
        revisions=revisions,
    )


def fact_state(fact: Fact, at: datetime, known_at: datetime | None = None) -> FactState:
    """The state of ``fact`` at world time ``at``, as known at ``known_at`` (the as-of rule)."""
    known = as_known(fact, known_at)
    if known is None:
        return FactState.UNKNOWN
    if known.reason in VOID_REASONS:
        return FactState.VOID
    if known.valid_from > at:
        return FactState.PLANNED
    if known.valid_to is not None and known.valid_to <= at:
        return FactState.PAST
    if known.superseded_by is not None and known.valid_to is None:
        return FactState.PAST  # history filed out of order: no end date, but not current
    return FactState.CURRENT


def facts_at(
    facts: Iterable[Fact],
    at: datetime,
    known_at: datetime | None = None,
    states: frozenset[FactState] = frozenset({FactState.CURRENT}),
) -> list[Fact]:
    """The facts in one of ``states`` at ``at``, each as it was known at ``known_at``."""
    out = []
    for f in facts:
        if fact_state(f, at, known_at) in states:
            out.append(as_known(f, known_at))
    return out  # type: ignore[return-value]


def years_between(start: datetime, end: datetime) -> int:
    """Whole years from ``start`` to ``end`` (birthday arithmetic; 29 Feb counts as 28 Feb)."""
    years = end.year - start.year
    if (end.month, end.day) < (start.month, min(start.day, 28 if start.month == 2 else start.day)):
        years -= 1
    return max(0, years)


def value_at(fact: Fact, at: datetime) -> str:
    """The fact's value at ``at``: an age keeps ageing (whole years since it was said)."""
    if fact.slot == "age" and fact.value.isdigit():
        return str(int(fact.value) + years_between(fact.valid_from, at))
    return fact.value


def fact_sentence(fact: Fact, catalogue: Catalogue) -> str:
    """A fact as a short sentence, in its own language: "user lives in: Shanghai"."""
    label = catalogue.label(fact.slot, fact.lang)
    value = fact.value or ("—" if fact.negated else "")
    if fact.lang == "zh":
        return f"{fact.subject} {'不再是' if fact.negated else ''}{label}：{value}"
    return f"{fact.subject} {'no longer ' if fact.negated else ''}{label}: {value}"


_REASON_EN = {"replaced": "superseded", "merged": "merged into a duplicate"}  # how a card says it
_REASON_ZH = {
    "replaced": "已被取代",
    "ended": "已结束",
    "corrected": "已更正",
    "retracted": "已撤回",
    "cancelled": "已取消",
    "merged": "已合并",
}


def _month_or_day(moment: datetime) -> str:
    return f"{moment:%Y-%m}" if moment.day == 1 and moment.hour == 0 else day(moment)


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


class FactTrack(Track[Fact]):
    """Facts: slot values of a subject, kept with their history (the as-of rule above)."""

    name = "fact"
    stored = "fact"
    record = Fact
    table = "facts"
    label = {"en": "[fact]", "zh": "[事实]"}
    keeps_history = True

    def weight(self, how: str, config: FusionConfig) -> float:
        return config.fact_slot if how in ("slot", "entity") else config.fact_semantic

    def indexed(self, record: Fact, catalogue: Catalogue, config: WriterConfig) -> tuple[str, tuple[str, ...]]:
        return fact_sentence(record, catalogue), (record.value_key,)

    def words(self, record: Fact) -> str:
        return f"{record.subject} {record.slot.replace('_', ' ')} {record.value}"

    def person(self, record: Fact) -> str | None:
        return record.subject

    def holds(self, record: Fact) -> tuple[str, str] | None:
        return record.slot, record.value

    def ahead(self, record: Fact, now: datetime) -> bool:
        return record.planned or record.valid_from > now

    def content(self, record: Fact) -> tuple[str, tuple[str, ...]]:
        return f"{record.subject} {record.slot} {record.value}", (record.value_key,)

    def turn_ids(self, record: Fact) -> tuple[str, ...]:
        return record.source_turn_ids

    def said_at(self, record: Fact) -> datetime:
        return record.last_seen

    def visible_at(self, record: Fact, moment: datetime | None) -> Fact | None:
        return as_known(record, moment)

    def card_text(self, record: Fact, ctx: Rendering, budget: int = SNIPPET_TOKENS, relevance: Any = None) -> str:
        """The fact as it stands at ``ctx.at`` (the as-of rule; None: at its own end)."""
        fact, at = record, ctx.at
        zh = fact.lang == "zh"
        label = ctx.catalogue.label(fact.slot, fact.lang)
        state = fact_state(fact, at) if at is not None else (FactState.CURRENT if fact.is_current else FactState.PAST)
        value = value_at(fact, at) if at is not None and state is FactState.CURRENT else fact.value
        if value != fact.value:
            value = (
                f"{value}（{day(fact.valid_from)} 时 {fact.value}）"
                if zh
                else f"{value} ({fact.value} on {day(fact.valid_from)})"
            )
        if fact.negated:
            value = (f"不再是{value}" if zh else f"not {value}") if value else ("无" if zh else "none")
        reason = fact.reason or ("superseded" if fact.superseded_by else "ended")
        if state is FactState.PLANNED:
            when = _month_or_day(fact.valid_from)
            since = f"计划 {when} 起" if zh else f"planned from {when}"
        elif state is FactState.CURRENT:
            since = f"自 {day(fact.valid_from)}" if zh else f"since {day(fact.valid_from)}"
            if fact.valid_to is not None:
                since += f"，至 {day(fact.valid_to)}" if zh else f", until {day(fact.valid_to)}"
        elif zh:
            since = f"{day(fact.valid_from)} 至 {day(fact.valid_to)}，{_REASON_ZH.get(reason, reason)}"
        elif state is FactState.VOID:
            since = f"said {day(fact.recorded_at)}, {reason}"
        else:
            since = f"{day(fact.valid_from)} → {day(fact.valid_to)}, {_REASON_EN.get(reason, reason)}"
        origin = ("推断" if zh else "inferred") if fact.source == "inferred" else None
        notes = noted([confidence_note(fact.confidence, zh), since, origin or ""], zh)
        if zh:
            return f"{self.label['zh']} {fact.subject} {label}：{value}{notes}"
        return f"{self.label['en']} {fact.subject} {label}: {value}{notes}"

    def card_confidence(self, record: Fact, ctx: Rendering) -> float:
        return record.confidence

    def card_interval(self, record: Fact) -> tuple[datetime | None, datetime | None]:
        return record.valid_from, record.valid_to

    def premise_name(self, record: Fact, lang: str) -> str:
        return f"{record.slot}事实" if lang == "zh" else f"{record.slot} fact"

    def interval(self, record: Fact) -> tuple[datetime, datetime]:
        return record.last_seen, record.last_seen

    def json(self, record: Fact) -> dict[str, Any]:
        return {
            "ref": f"fact:{record.id}",
            "id": record.id,
            "subject": record.subject,
            "slot": record.slot,
            "value": record.value,
            "negated": record.negated,
            "current": record.is_current,
            "valid_from": dt_text(record.valid_from),
            "valid_to": dt_text(record.valid_to),
            "superseded_by": record.superseded_by,
            "reason": record.reason,
            "source": record.source,
            "confidence": record.confidence,
            "mention_count": record.mention_count,
            "source_turn_ids": list(record.source_turn_ids),
        }

    def by_ids(self, store: Storage, scope: str, ids: Sequence[int]) -> list[Fact]:
        return store.facts_by_id(scope, list(ids))

    def after(self, store: Storage, scope: str, after: int) -> list[Fact]:
        return store.facts(scope, after=after)


FACTS = FactTrack()
