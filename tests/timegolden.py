"""The golden-table format of tests/data/time_golden_*.yaml, read and checked in one place.

Each case: ``text``, ``ref`` (the turn's timestamp with its UTC offset), optional ``zone`` (an
IANA zone the ref is converted into, for DST cases) and ``expect``: every mention in text order
with its phrase, start, end (``[start, end)`` in the reference's zone) and granularity, plus
``approximate: true`` (an offset from the turn), ``unbounded: start|end`` (an open interval)
or ``duration: "<seconds>s"`` (a length of time, no point in time) where they apply.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import yaml

from memtracks.pipeline.timenorm import normalize_time


def golden_cases(path: Path) -> list:
    """The cases of a golden table, as pytest params with the text as id."""
    cases = yaml.safe_load(path.read_text(encoding="utf-8"))["cases"]
    return [pytest.param(case, id=case["text"]) for case in cases]


def reference(case: dict) -> datetime:
    ref = datetime.fromisoformat(case["ref"])
    return ref.astimezone(ZoneInfo(case["zone"])) if case.get("zone") else ref


def _duration(text: str | None) -> timedelta | None:
    return timedelta(seconds=int(text.rstrip("s"))) if text else None


def check_golden(case: dict) -> None:
    """Every expected mention, exactly, with the offset the reference zone gives it."""
    got = [
        (m.text, m.start.isoformat(), m.end.isoformat(), m.granularity, m.approximate, m.unbounded, m.duration)
        for m in normalize_time(case["text"], reference(case))
    ]
    want = [
        (
            e["phrase"],
            e["start"],
            e["end"],
            e["granularity"],
            e.get("approximate", False),
            e.get("unbounded"),
            _duration(e.get("duration")),
        )
        for e in case["expect"]
    ]
    assert got == want
