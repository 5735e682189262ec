"""Reading a model's answer: the JSON array out of whatever wraps it (a markdown fence, a
sentence before it), then each item checked field by field. A malformed item is dropped and
counted, never guessed at; an answer with no array at all is an :class:`LLMError`."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from memtracks.errors import LLMError

TYPES = ("fact", "preference", "decision")
ACTIONS = ("keep", "skip", "merge_into")
_FENCE = re.compile(r"```(?:json)?\s*([\s\S]*?)```")


@dataclass(frozen=True)
class ExtractedFact:
    """One thing phase 1 found worth remembering (``turn``: 0-based index in its batch)."""

    turn: int
    type: str
    slot: str
    value: str
    content: str
    tags: tuple[str, ...]
    confidence: float

    @property
    def importance(self) -> float:
        """0.3 + 0.5 x confidence, +0.1 for a preference, +0.05 for a decision."""
        bonus = {"preference": 0.1, "decision": 0.05}.get(self.type, 0.0)
        return round(0.3 + 0.5 * self.confidence + bonus, 4)


@dataclass(frozen=True)
class MergeDecision:
    fact: int
    action: str
    existing: int | None = None
    value: str | None = None


def json_array(text: str) -> list[Any]:
    """The JSON array in a model's answer: inside a fenced block, else from the first ``[`` to
    the last ``]``."""
    fenced = _FENCE.search(text)
    candidates = [fenced.group(1).strip()] if fenced else []
    start, end = text.find("["), text.rfind("]")
    if start != -1 and end > start:
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            found = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(found, list):
            return found
    raise LLMError(f"the answer holds no JSON array: {text[:120]!r}")


def _text(item: dict[str, Any], key: str) -> str | None:
    value = item.get(key)
    return value.strip() if isinstance(value, str) and value.strip() else None


def facts(text: str, turns: int, slots: frozenset[str]) -> tuple[list[ExtractedFact], int]:
    """Phase 1 items, and how many were malformed (unknown slot or type, no value, a turn
    number outside the batch, a confidence outside 0..1)."""
    out, bad = [], 0
    for item in json_array(text):
        try:
            turn = int(item["turn"]) - 1
            confidence = float(item["confidence"])
        except (KeyError, TypeError, ValueError):
            bad += 1
            continue
        kind, slot, value = item.get("type"), _text(item, "slot"), _text(item, "value")
        tags = item.get("tags") or []
        if (
            kind not in TYPES
            or slot not in slots
            or value is None
            or not 0 <= turn < turns
            or not 0.0 <= confidence <= 1.0
            or not isinstance(tags, list)
        ):
            bad += 1
            continue
        content = _text(item, "content") or value
        out.append(ExtractedFact(turn, kind, slot, value, content, tuple(str(t) for t in tags), confidence))
    return out, bad


def decisions(text: str, count: int) -> tuple[dict[int, MergeDecision], int]:
    """Phase 2 decisions by new-fact index, and how many were malformed."""
    out: dict[int, MergeDecision] = {}
    bad = 0
    for item in json_array(text):
        try:
            index = int(item["fact"])
        except (KeyError, TypeError, ValueError):
            bad += 1
            continue
        action = item.get("action")
        existing = item.get("existing")
        value = _text(item, "value")
        if action not in ACTIONS or not 0 <= index < count or (action == "merge_into" and value is None):
            bad += 1
            continue
        out[index] = MergeDecision(index, action, existing if isinstance(existing, int) else None, value)
    return out, bad
