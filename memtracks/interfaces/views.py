"""Memories as plain JSON-ready data, for the command line, the MCP server and adapters."""

from __future__ import annotations

from typing import Any

from memtracks.records import Event, Fact, Inference, Turn
from memtracks.storage.codec import dt_text
from memtracks.tracks import FACTS, INFERENCES, TEMPORAL, track_of


def fact_json(f: Fact) -> dict[str, Any]:
    return FACTS.json(f)


def event_json(e: Event) -> dict[str, Any]:
    return TEMPORAL.json(e)


def inference_json(i: Inference) -> dict[str, Any]:
    return INFERENCES.json(i)


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
    return turn_json(record) if isinstance(record, Turn) else track_of(record).json(record)
