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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields, replace
from datetime import datetime
from typing import Any

from memtracks.config import Limits
from memtracks.errors import (
    DuplicateTurnError,
    InvalidTimeError,
    InvalidTurnError,
    LimitError,
    UnsupportedLanguageError,
)
from memtracks.pipeline.language import check_language
from memtracks.records import SOURCES, Turn, WriteResult
from memtracks.scopes import check_id

MAX_METADATA_DEPTH = 32  # nesting of metadata values (SQLite's JSON functions stop at 1000)
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
        try:
            return Turn(**item)
        except TypeError as exc:  # a missing "text"
            raise InvalidTurnError(f"not a turn: {exc}") from None
    raise InvalidTurnError(f"expected a Turn or a mapping, found {type(item).__name__}")


def clean_text(text: Any, max_chars: int = Limits.max_turn_chars) -> tuple[str, list[str]]:
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
    if len(text) > max_chars:
        raise LimitError(
            f"turn text has {len(text):,} characters; the limit is {max_chars:,}. Split it into several turns."
        )
    return text, warnings


def clean_question(question: Any, max_chars: int = Limits.max_question_chars) -> str:
    """A question safe to analyse: lone surrogates replaced, control characters removed."""
    if not isinstance(question, str) or not question.strip():
        raise InvalidTurnError(f"question must be a non-empty string, found {question!r:.80}")
    if len(question) > max_chars:
        raise LimitError(f"the question has {len(question):,} characters; the limit is {max_chars:,}")
    question = _CONTROL.sub("", _SURROGATE.sub("\ufffd", question))
    if not question.strip():
        raise InvalidTurnError("question must be a non-empty string")
    return question


def check_metadata(
    metadata: Any, max_bytes: int = Limits.max_metadata_bytes, notes: list[str] | None = None
) -> dict[str, Any]:
    """A turn's metadata as it will be stored: a mapping with text keys that SQLite's JSON can
    hold. A value JSON has no type for (a datetime, a set, a Decimal) is stored as its text;
    ``notes`` is told which, so the caller's warnings say so."""
    if not isinstance(metadata, Mapping):
        raise InvalidTurnError(f"metadata must be a mapping, found {type(metadata).__name__}")
    if not all(isinstance(k, str) for k in metadata):
        raise InvalidTurnError(f"metadata keys must be strings, found {sorted(map(repr, metadata))[:5]}")
    if _depth(metadata) > MAX_METADATA_DEPTH:
        raise InvalidTurnError(f"metadata is nested more than {MAX_METADATA_DEPTH} levels deep")

    def as_text(value: Any) -> str:
        if notes is not None:
            notes.append(f"metadata value {str(value)[:40]!r} ({type(value).__name__}) is not JSON; stored as text")
        return str(value)

    try:
        encoded = json.dumps(dict(metadata), ensure_ascii=False, default=as_text, allow_nan=False).encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidTurnError("metadata holds text that is not valid Unicode (a lone surrogate)") from None
    except (TypeError, ValueError) as exc:
        raise InvalidTurnError(f"metadata cannot be stored as JSON: {exc}") from None
    if len(encoded) > max_bytes:
        raise LimitError(f"metadata takes {len(encoded):,} bytes as JSON; the limit is {max_bytes:,}")
    return json.loads(encoded)


def _depth(value: Any, level: int = 1) -> int:
    if level > MAX_METADATA_DEPTH:
        return level
    if isinstance(value, Mapping):
        return max((_depth(v, level + 1) for v in value.values()), default=level)
    if isinstance(value, list | tuple):
        return max((_depth(v, level + 1) for v in value), default=level)
    return level


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
    return check_id(value, name)


def already_written(turn: Turn, stored_hash: str, where: str = "") -> WriteResult:
    """The result of writing a turn that is stored already: nothing changes. A turn id stored
    with other content is a :class:`DuplicateTurnError` (turn ids are unique per user)."""
    if stored_hash != content_hash(turn):
        raise DuplicateTurnError(
            f"{where}turn_id {turn.turn_id!r} was already written for user {turn.user_id!r} with different "
            "content; turn ids must be unique per user"
        )
    return WriteResult(
        turn=turn, lang=turn.lang or "", duplicate=True, warnings=("turn was already written; nothing changed",)
    )


def content_hash(turn: Turn) -> str:
    assert turn.timestamp is not None
    payload = "\x1f".join([turn.session_id or "", turn.speaker, turn.timestamp.isoformat(), turn.text])
    return hashlib.sha1(payload.encode("utf-8")).hexdigest()


def prepare_turn(
    item: Turn | Mapping[str, Any], now: Callable[[], datetime], limits: Limits | None = None
) -> tuple[Turn, list[str]]:
    """Validate and normalise one turn; returns the turn to store and warnings."""
    limits = limits or Limits()
    turn = coerce_turn(item)
    text, warnings = clean_text(turn.text, limits.max_turn_chars)
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
    if not isinstance(turn.source, str) or turn.source not in SOURCES:
        raise InvalidTurnError(f"source {turn.source!r} is not one of {', '.join(SOURCES)}")
    metadata = check_metadata(turn.metadata, limits.max_metadata_bytes, warnings)
    turn = replace(
        turn,
        text=text,
        timestamp=timestamp,
        user_id=user_id,
        session_id=session_id,
        speaker=speaker,
        lang=lang,
        metadata=metadata,
        agent_id=agent_id,
    )
    turn_id = _check_id(turn.turn_id, "turn_id", required=False) or f"t-{content_hash(turn)[:16]}"
    return replace(turn, turn_id=turn_id), warnings


MAX_STORED_INT = (1 << 63) - 1  # SQLite's INTEGER
MAX_CARDS = 1_000


def check_count(value: Any, name: str, *, minimum: int = 1, maximum: int = MAX_CARDS) -> int:
    """An int argument (not a bool, not a float) within ``[minimum, maximum]``."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidTurnError(f"{name} must be an integer, found {value!r}")
    if not minimum <= value <= maximum:
        raise InvalidTurnError(f"{name} must be between {minimum} and {maximum:,}, found {value:,}")
    return value


def check_k(k: Any, tracks: Sequence[str]) -> dict[str, int] | None:
    """Candidates per track for ``retrieve(k=...)``: a mapping of track names to counts."""
    if k is None:
        return None
    if not isinstance(k, Mapping):
        raise InvalidTurnError(f"k must map tracks to counts, e.g. {{'fact': 5}}; found {k!r}")
    unknown = sorted(str(t) for t in k if t not in tracks)
    if unknown:
        raise InvalidTurnError(f"k names unknown track(s) {unknown}; tracks are {', '.join(tracks)}")
    return {t: check_count(n, f"k[{t!r}]", minimum=0) for t, n in k.items()}


def check_item_id(value: Any, name: str) -> int | None:
    """A memory id as given by a caller; None when it is an int no store can hold (so nothing has it)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidTurnError(f"{name} must be an integer, found {value!r}")
    return value if 0 < value <= MAX_STORED_INT else None


def check_aware(value: Any, name: str) -> datetime:
    if not isinstance(value, datetime) or value.tzinfo is None or value.utcoffset() is None:
        raise InvalidTimeError(f"{name} must be a timezone-aware datetime, found {value!r}")
    return value
