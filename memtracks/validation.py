"""Checking and normalising turns at the public edge, before anything is stored.

Each problem either gets fixed in a way the caller would expect (lone surrogates and control
characters are replaced, a missing timestamp becomes "now", a missing turn id is derived from
the content) and reported as a warning, or raises an :class:`~memtracks.errors.InvalidTurnError`
that says what was wrong.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import fields, replace
from datetime import datetime
from typing import Any

from .errors import InvalidTurnError, UnsupportedLanguageError
from .pipeline.language import check_language
from .records import SOURCES, Turn

MAX_TURN_CHARS = 5_000_000
MAX_ID_CHARS = 256
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_TURN_FIELDS = {f.name for f in fields(Turn)}


def coerce_turn(item: Turn | Mapping[str, Any]) -> Turn:
    """A :class:`Turn` from a Turn or a mapping with Turn's field names."""
    if isinstance(item, Turn):
        return item
    if isinstance(item, Mapping):
        unknown = set(item) - _TURN_FIELDS
        if unknown:
            raise InvalidTurnError(f"unknown turn field(s) {sorted(unknown)}; fields are {sorted(_TURN_FIELDS)}")
        return Turn(**item)
    raise InvalidTurnError(f"expected a Turn or a mapping, found {type(item).__name__}")


def clean_text(text: Any) -> tuple[str, list[str]]:
    """Text safe to store: no lone surrogates, no control characters. Returns warnings."""
    if not isinstance(text, str):
        raise InvalidTurnError(f"turn text must be a string, found {type(text).__name__}")
    warnings = []
    if _SURROGATE.search(text):
        text = _SURROGATE.sub("\ufffd", text)
        warnings.append("text had lone surrogate code points; replaced with U+FFFD")
    if _CONTROL.search(text):
        text = _CONTROL.sub("", text)
        warnings.append("text had control characters; removed")
    text = unicodedata.normalize("NFC", text)
    if not text.strip():
        raise InvalidTurnError("turn text is empty or only whitespace; nothing to remember")
    if len(text) > MAX_TURN_CHARS:
        raise InvalidTurnError(
            f"turn text has {len(text):,} characters; the limit is {MAX_TURN_CHARS:,}. Split it into several turns."
        )
    return text, warnings


def check_timestamp(value: Any, now: Callable[[], datetime]) -> tuple[datetime, list[str]]:
    if value is None:
        return now(), ["turn had no timestamp; used the time of writing"]
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise InvalidTurnError(
                f"timestamp {value!r} is not ISO 8601 (expected e.g. '2024-06-10T10:00:00+08:00')"
            ) from None
    if not isinstance(value, datetime):
        raise InvalidTurnError(f"timestamp must be a timezone-aware datetime, found {type(value).__name__}")
    if value.tzinfo is None or value.utcoffset() is None:
        raise InvalidTurnError(
            f"timestamp {value.isoformat()} has no timezone; relative times ('yesterday') "
            "resolve against the turn's own timezone, so pass an aware datetime "
            "(e.g. datetime(..., tzinfo=timezone.utc) or ZoneInfo('Asia/Shanghai'))"
        )
    return value, []


def _check_id(value: Any, name: str, *, required: bool) -> str | None:
    if value is None:
        if required:
            raise InvalidTurnError(f"{name} is required: every memory belongs to one user")
        return None
    if not isinstance(value, str) or not value.strip():
        raise InvalidTurnError(f"{name} must be a non-empty string, found {value!r}")
    value = value.strip()
    if len(value) > MAX_ID_CHARS or _CONTROL.search(value) or _SURROGATE.search(value):
        raise InvalidTurnError(f"{name} must be at most {MAX_ID_CHARS} printable characters")
    return value


def content_hash(turn: Turn) -> str:
    assert turn.timestamp is not None
    payload = "\x1f".join([turn.session_id or "", turn.speaker, turn.timestamp.isoformat(), turn.text])
    return hashlib.sha1(payload.encode("utf-8")).hexdigest()


def prepare_turn(item: Turn | Mapping[str, Any], now: Callable[[], datetime]) -> tuple[Turn, list[str]]:
    """Validate and normalise one turn; returns the turn to store and warnings."""
    turn = coerce_turn(item)
    text, warnings = clean_text(turn.text)
    timestamp, more = check_timestamp(turn.timestamp, now)
    warnings += more
    user_id = _check_id(turn.user_id, "user_id", required=True)
    session_id = _check_id(turn.session_id, "session_id", required=False) or "default"
    speaker = _check_id(turn.speaker, "speaker", required=False) or "user"
    agent_id = _check_id(turn.agent_id, "agent_id", required=False)
    try:
        lang = check_language(turn.lang)
    except UnsupportedLanguageError as exc:
        raise InvalidTurnError(str(exc)) from None
    if turn.source not in SOURCES:
        raise InvalidTurnError(f"source {turn.source!r} is not one of {', '.join(SOURCES)}")
    if not isinstance(turn.metadata, Mapping):
        raise InvalidTurnError(f"metadata must be a mapping, found {type(turn.metadata).__name__}")
    try:
        json.dumps(dict(turn.metadata), default=str)
    except (TypeError, ValueError) as exc:
        raise InvalidTurnError(f"metadata cannot be stored as JSON: {exc}") from None
    turn = replace(
        turn,
        text=text,
        timestamp=timestamp,
        user_id=user_id,
        session_id=session_id,
        speaker=speaker,
        lang=lang,
        metadata=dict(turn.metadata),
        agent_id=agent_id,
    )
    turn_id = _check_id(turn.turn_id, "turn_id", required=False) or f"t-{content_hash(turn)[:16]}"
    return replace(turn, turn_id=turn_id), warnings
