"""The inference track: conclusions the rules drew from facts and events (``rules/``), each
with its premises, kept until a premise ends or is corrected (then retracted, never deleted).
:data:`INFERENCES` is the track object the rest of memtracks asks about a conclusion."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memtracks.records import Inference
from memtracks.storage.codec import dt_text
from memtracks.tracks.base import SNIPPET_TOKENS, Rendering, Track, confidence_note, noted, track_of

if TYPE_CHECKING:
    from memtracks.config import FusionConfig, WriterConfig
    from memtracks.data.catalogue import Catalogue
    from memtracks.storage.base import Storage


class InferenceTrack(Track[Inference]):
    """Conclusions: a rule's reading of facts and events ("likely a pet owner")."""

    name = "inference"
    stored = "inference"
    record = Inference
    table = "inferences"
    label = {"en": "[inference]", "zh": "[推理]"}

    def weight(self, how: str, config: FusionConfig) -> float:
        return config.inference

    def indexed(self, record: Inference, catalogue: Catalogue, config: WriterConfig) -> tuple[str, tuple[str, ...]]:
        return record.text, tuple(record.args.values())

    def words(self, record: Inference) -> str:
        return record.text

    def content(self, record: Inference) -> tuple[str, tuple[str, ...]]:
        return record.text, tuple(record.args.values())

    def turn_ids(self, record: Inference) -> tuple[str, ...]:
        return record.source_turn_ids

    def said_at(self, record: Inference) -> datetime:
        return record.created_at

    def interval(self, record: Inference) -> tuple[datetime, datetime]:
        start = record.valid_from or record.created_at
        return start, record.valid_to or start

    def visible_at(self, record: Inference, moment: datetime | None) -> Inference | None:
        """Unknown when drawn after ``moment``; still active then when retracted after it."""
        if moment is None:
            return record
        if record.created_at > moment:
            return None
        if record.retracted_at is not None and record.retracted_at > moment:
            return replace(record, status="active", retracted_at=None, retracted_because=None)
        return record

    def card_text(self, record: Inference, ctx: Rendering, budget: int = SNIPPET_TOKENS, relevance: Any = None) -> str:
        """The conclusion, its confidence (where it is not sure) and what it was drawn from (its premises, by name)."""
        named = (track_of(p).premise_name(p, record.lang) for p in map(ctx.lookup, record.premises) if p is not None)
        premises = ", ".join(n for n in named if n) or record.rule_id
        zh = record.lang == "zh"
        source = f"来源：{premises}" if zh else f"from: {premises}"
        return f"{self.label['zh' if zh else 'en']} {record.text}{noted([confidence_note(record.confidence, zh), source], zh)}"

    def card_confidence(self, record: Inference, ctx: Rendering) -> float:
        return record.confidence

    def card_interval(self, record: Inference) -> tuple[datetime | None, datetime | None]:
        return record.valid_from, record.valid_to

    def json(self, record: Inference) -> dict[str, Any]:
        return {
            "ref": f"inference:{record.id}",
            "id": record.id,
            "rule": record.rule_id,
            "text": record.text,
            "confidence": record.confidence,
            "status": record.status,
            "retracted_because": record.retracted_because,
            "premises": [[p.track, p.id] for p in record.premises],
            "valid_from": dt_text(record.valid_from),
            "valid_to": dt_text(record.valid_to),
            "source_turn_ids": list(record.source_turn_ids),
        }

    def by_ids(self, store: Storage, scope: str, ids: Sequence[int]) -> list[Inference]:
        return store.inferences(scope, ids=list(ids))

    def after(self, store: Storage, scope: str, after: int) -> list[Inference]:
        return store.inferences(scope, after=after)


INFERENCES = InferenceTrack()
