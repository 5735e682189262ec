"""Reading conversations: JSONL turns, OpenAI-style message lists and LoCoMo conversations.

JSONL: one JSON object per line with Turn's fields (``text`` required; ``timestamp`` as ISO
8601 with an offset). Messages: a JSON list of ``{"role": ..., "content": ...}`` (or an
object with such a list under "messages"), as chat APIs take them. LoCoMo: the benchmark's
JSON (a list of samples, or one sample), with session dates like "1:56 pm on 8 May, 2023";
each speaker's name becomes the subject of what they say, and ``dia_id`` ("D3:7") becomes
the turn id. :func:`read_conversation` tells them apart by their content.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any

from memtracks.errors import InvalidInputError, InvalidTurnError
from memtracks.records import Turn

_LOCOMO_DATE = re.compile(
    r"^\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$", re.IGNORECASE
)
MONTH_NAMES = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTHS = {m: i for i, m in enumerate(MONTH_NAMES, start=1)}


def parse_locomo_date(text: str, tz: tzinfo) -> datetime:
    """ "1:56 pm on 8 May, 2023" -> an aware datetime in ``tz``."""
    m = _LOCOMO_DATE.match(text)
    month = _MONTHS.get(m.group(5).lower()) if m else None
    if m is None or month is None:
        raise InvalidTurnError(f"not a LoCoMo session date: {text!r} (expected e.g. '1:56 pm on 8 May, 2023')")
    hour = int(m.group(1)) % 12 + (12 if m.group(3).lower() == "pm" else 0)
    try:
        return datetime(int(m.group(6)), month, int(m.group(4)), hour, int(m.group(2)), tzinfo=tz)
    except ValueError as exc:  # "30 February", "25:61 pm"
        raise InvalidTurnError(f"not a date: {text!r} ({exc})") from None


def _session_keys(conversation: dict[str, Any]) -> list[str]:
    keys = [k for k in conversation if re.fullmatch(r"session_\d+", k) and isinstance(conversation[k], list)]
    return sorted(keys, key=lambda k: int(k.split("_")[1]))


def locomo_turn_text(turn: dict[str, Any]) -> str:
    """A LoCoMo turn's text, with the caption of a shared photo when there is one."""
    text = str(turn.get("text", ""))
    caption = turn.get("blip_caption")
    return f"{text} [shares a photo: {caption}]" if caption else text


def locomo_turns(sample: dict[str, Any], tz: tzinfo, user_id: str | None = None) -> Iterator[Turn]:
    """The turns of one LoCoMo sample, sessions in order, stamped with their session time;
    each turn's language is detected when it is written."""
    try:
        yield from _locomo_turns(sample, tz, user_id)
    except (KeyError, TypeError, AttributeError) as exc:
        raise InvalidInputError(
            f"not a LoCoMo sample {str(sample.get('sample_id', '?')) if isinstance(sample, dict) else ''}: "
            f"missing or malformed field {exc}"
        ) from None


def _locomo_turns(sample: dict[str, Any], tz: tzinfo, user_id: str | None) -> Iterator[Turn]:
    conv = sample["conversation"]
    user = user_id or str(sample.get("sample_id", "locomo"))
    for key in _session_keys(conv):
        when = parse_locomo_date(conv[f"{key}_date_time"], tz)
        for turn in conv[key]:
            yield Turn(
                text=locomo_turn_text(turn),
                speaker=turn["speaker"],
                timestamp=when,
                user_id=user,
                session_id=key,
                turn_id=turn["dia_id"],
                lang=None,  # detected per turn: a LoCoMo-format file may be Chinese, or mixed
            )


def read_locomo(path: str | Path, tz: tzinfo, user_id: str | None = None) -> Iterator[Turn]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    samples = data if isinstance(data, list) else [data]
    for sample in samples:
        yield from locomo_turns(sample, tz, user_id)


def read_jsonl(
    path: str | Path, user_id: str | None = None, default_time: datetime | None = None
) -> Iterator[dict[str, Any]]:
    """Turn mappings from a JSONL file (one JSON object per line; the fields are listed in the
    README, "Files memtracks reads"). ``user_id`` fills in where a line has none. A line with
    no ``timestamp`` is an error naming the file and line — a turn dated the moment it was
    read would resolve its "yesterday" wrongly and could supersede what was said after it —
    unless ``default_time`` says when such turns were said."""
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidTurnError(f"{path}:{number}: not valid JSON: {exc.msg}") from None
            if not isinstance(item, dict):
                raise InvalidTurnError(f"{path}:{number}: expected a JSON object per line")
            if user_id and not item.get("user_id"):
                item["user_id"] = user_id
            if item.get("timestamp") is None:
                if default_time is None:
                    raise InvalidTurnError(
                        f'{path}:{number}: no "timestamp" (when the turn was said, ISO 8601 with an offset, e.g. '
                        "2024-06-10T10:00:00+08:00); give every line one, or say when such turns were said "
                        "(ingest --at TIME, or --at now)"
                    )
                item["timestamp"] = default_time
            yield item


def is_locomo(path: str | Path) -> bool:
    """Does ``path`` look like a LoCoMo JSON file (rather than JSONL turns)?"""
    with open(path, encoding="utf-8") as fh:
        head = fh.read(4096).lstrip()
    return head.startswith("[") or (head.startswith("{") and '"conversation"' in head)


# ---------------------------------------------------------------------- chat messages

CONVERSATION_ROLES = {"user": "user", "human": "user", "assistant": "assistant", "ai": "assistant"}
INSTRUCTION_ROLES = frozenset({"system", "developer", "tool", "function"})


def message_text(content: Any) -> str:
    """The text of a message's content: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        parts = [p.get("text", "") if isinstance(p, Mapping) else p if isinstance(p, str) else "" for p in content]
        return "\n".join(p for p in parts if p)
    return ""


def messages_to_turns(
    messages: Sequence[Mapping[str, Any]],
    *,
    user_id: str,
    session_id: str | None,
    timestamp: datetime,
    agent_id: str | None = None,
) -> list[Turn]:
    """Turns from an OpenAI-style message list (see :meth:`memtracks.Memory.write_messages`)."""
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        raise InvalidTurnError("messages must be a list of {'role': ..., 'content': ...} mappings")
    session = session_id or "default"
    turns = []
    for position, message in enumerate(messages):
        if not isinstance(message, Mapping) or "role" not in message:
            raise InvalidTurnError(f"message #{position}: expected a mapping with 'role' and 'content'")
        role = str(message["role"]).lower()
        if role in INSTRUCTION_ROLES:
            continue
        if role not in CONVERSATION_ROLES:
            raise InvalidTurnError(
                f"message #{position}: unknown role {message['role']!r}; expected "
                f"one of {', '.join(sorted({*CONVERSATION_ROLES, *INSTRUCTION_ROLES}))}"
            )
        text = message_text(message.get("content"))
        if not text.strip():
            continue  # a tool call or an image with no text: nothing to remember
        speaker = CONVERSATION_ROLES[role]
        digest = hashlib.sha1(f"{session}\x1f{position}\x1f{role}\x1f{text}".encode()).hexdigest()[:16]
        turn_id = str(message.get("id") or f"m-{digest}")
        turns.append(
            Turn(
                text,
                speaker=speaker,
                timestamp=timestamp,
                user_id=user_id,
                session_id=session,
                turn_id=turn_id,
                agent_id=agent_id,
            )
        )
    return turns


# ---------------------------------------------------------------------- telling formats apart

FORMATS = ("jsonl", "messages", "locomo")


def detect_format(path: str | Path) -> str:
    """ "jsonl", "messages" or "locomo", from what the file holds; a clear
    :class:`~memtracks.errors.InvalidInputError` for anything else."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except IsADirectoryError:
        raise InvalidInputError(f"{path} is a folder, not a conversation file") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidInputError(
            f"{path} is not UTF-8 text (a binary file?); expected JSONL turns, "
            "a JSON list of chat messages or LoCoMo JSON"
        ) from None
    if not text.strip():
        raise InvalidInputError(f"{path} is empty")
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return _jsonl_kind(path, text)
    if isinstance(data, dict) and "messages" in data:
        data = data["messages"]
    if isinstance(data, dict):
        data = [data]
    if isinstance(data, list) and data and all(isinstance(x, dict) for x in data):
        if all("conversation" in x for x in data):
            return "locomo"
        if all("role" in x for x in data):
            return "messages"
        if all("text" in x for x in data):
            return "jsonl"
    raise InvalidInputError(_unknown(path))


def _jsonl_kind(path: Path, text: str) -> str:
    first = next(line for line in text.splitlines() if line.strip())
    try:
        item = json.loads(first)
    except json.JSONDecodeError:
        raise InvalidInputError(_unknown(path)) from None
    if isinstance(item, dict) and "text" in item:
        return "jsonl"
    if isinstance(item, dict) and "role" in item:
        return "messages"
    raise InvalidInputError(_unknown(path))


def _unknown(path: Path) -> str:
    return (
        f"{path}: not a format memtracks ingests. Expected one of: JSONL turns (one object per "
        'line with "text", e.g. {"text": "I live in Paris.", "user_id": "u1"}); chat messages '
        '(a JSON list of {"role": "user", "content": ...}, or JSONL of them); LoCoMo JSON '
        '(samples with "conversation").'
    )


def read_messages(path: str | Path, *, user_id: str, session_id: str | None, timestamp: datetime) -> list[Turn]:
    """Turns from a file of chat messages: a JSON list, {"messages": [...]}, or JSONL."""
    text = Path(path).read_text(encoding="utf-8-sig")
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = [json.loads(line) for line in text.splitlines() if line.strip()]
    if isinstance(data, dict):
        data = data.get("messages", [data])
    session = session_id or Path(path).stem
    return messages_to_turns(data, user_id=user_id, session_id=session, timestamp=timestamp)
