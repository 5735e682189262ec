"""Memories as plain JSON-ready data, for the command line, the MCP server and adapters."""

from __future__ import annotations

from typing import Any

from .records import Event, Fact, Inference, Turn
from .storage.codec import dt_text


def fact_json(f: Fact) -> dict[str, Any]:
    return {
        "ref": f"fact:{f.id}",
        "id": f.id,
        "subject": f.subject,
        "slot": f.slot,
        "value": f.value,
        "negated": f.negated,
        "current": f.is_current,
        "valid_from": dt_text(f.valid_from),
        "valid_to": dt_text(f.valid_to),
        "superseded_by": f.superseded_by,
        "reason": f.reason,
        "source": f.source,
        "confidence": f.confidence,
        "mention_count": f.mention_count,
        "source_turn_ids": list(f.source_turn_ids),
    }


def event_json(e: Event) -> dict[str, Any]:
    return {
        "ref": f"event:{e.id}",
        "id": e.id,
        "turn_id": e.turn_id,
        "session_id": e.session_id,
        "speaker": e.speaker,
        "text": e.text,
        "mentioned_at": dt_text(e.mentioned_at),
        "start": dt_text(e.start),
        "end": dt_text(e.end),
        "granularity": e.granularity,
        "kinds": list(e.kinds),
        "metadata": e.metadata,
        "times": [
            {"text": t.text, "start": dt_text(t.start), "end": dt_text(t.end), "granularity": t.granularity}
            for t in e.times
        ],
    }


def inference_json(i: Inference) -> dict[str, Any]:
    return {
        "ref": f"inference:{i.id}",
        "id": i.id,
        "rule": i.rule_id,
        "text": i.text,
        "confidence": i.confidence,
        "status": i.status,
        "retracted_because": i.retracted_because,
        "premises": [[p.track, p.id] for p in i.premises],
        "valid_from": dt_text(i.valid_from),
        "valid_to": dt_text(i.valid_to),
        "source_turn_ids": list(i.source_turn_ids),
    }


def turn_json(t: Turn) -> dict[str, Any]:
    return {
        "ref": f"turn:{t.turn_id}",
        "turn_id": t.turn_id,
        "session_id": t.session_id,
        "speaker": t.speaker,
        "text": t.text,
        "timestamp": dt_text(t.timestamp),
        "lang": t.lang,
        "source": t.source,
        "metadata": t.metadata,
    }


def record_json(record: Turn | Fact | Event | Inference) -> dict[str, Any]:
    """Any memory record as JSON-ready data, with a ``ref`` that :meth:`Memory.get` takes."""
    if isinstance(record, Fact):
        return fact_json(record)
    if isinstance(record, Event):
        return event_json(record)
    if isinstance(record, Inference):
        return inference_json(record)
    return turn_json(record)
