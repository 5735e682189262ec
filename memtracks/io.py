"""Reading conversations from files: JSONL turns and LoCoMo conversations.

JSONL: one JSON object per line with Turn's fields (``text`` required; ``timestamp`` as ISO
8601 with an offset). LoCoMo: the benchmark's JSON (a list of samples, or one sample), with
session dates like "1:56 pm on 8 May, 2023"; each speaker's name becomes the subject of
what they say, and ``dia_id`` ("D3:7") becomes the turn id.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any

from .errors import InvalidTurnError
from .records import Turn

_LOCOMO_DATE = re.compile(
    r"^\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$", re.IGNORECASE
)
_MONTHS = {
    m: i
    for i, m in enumerate(
        [
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
        ],
        start=1,
    )
}


def parse_locomo_date(text: str, tz: tzinfo) -> datetime:
    """ "1:56 pm on 8 May, 2023" -> an aware datetime in ``tz``."""
    m = _LOCOMO_DATE.match(text)
    month = _MONTHS.get(m.group(5).lower()) if m else None
    if m is None or month is None:
        raise InvalidTurnError(f"not a LoCoMo session date: {text!r} (expected e.g. '1:56 pm on 8 May, 2023')")
    hour = int(m.group(1)) % 12 + (12 if m.group(3).lower() == "pm" else 0)
    return datetime(int(m.group(6)), month, int(m.group(4)), hour, int(m.group(2)), tzinfo=tz)


def _session_keys(conversation: dict[str, Any]) -> list[str]:
    keys = [k for k in conversation if re.fullmatch(r"session_\d+", k) and isinstance(conversation[k], list)]
    return sorted(keys, key=lambda k: int(k.split("_")[1]))


def locomo_turn_text(turn: dict[str, Any]) -> str:
    """A LoCoMo turn's text, with the caption of a shared photo when there is one."""
    text = str(turn.get("text", ""))
    caption = turn.get("blip_caption")
    return f"{text} [shares a photo: {caption}]" if caption else text


def locomo_turns(sample: dict[str, Any], tz: tzinfo, user_id: str | None = None) -> Iterator[Turn]:
    """The turns of one LoCoMo sample, sessions in order, stamped with their session time."""
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
                lang="en",
            )


def read_locomo(path: str | Path, tz: tzinfo, user_id: str | None = None) -> Iterator[Turn]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    samples = data if isinstance(data, list) else [data]
    for sample in samples:
        yield from locomo_turns(sample, tz, user_id)


def read_jsonl(path: str | Path, user_id: str | None = None) -> Iterator[dict[str, Any]]:
    """Turn mappings from a JSONL file; ``user_id`` fills in where a line has none."""
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
            yield item


def is_locomo(path: str | Path) -> bool:
    """Does ``path`` look like a LoCoMo JSON file (rather than JSONL turns)?"""
    with open(path, encoding="utf-8") as fh:
        head = fh.read(4096).lstrip()
    return head.startswith("[") or (head.startswith("{") and '"conversation"' in head)
