"""English date formats the rules leave alone: numeric dates and a bare day of the month.

Numeric dates ("5/8/2023", "on 5/8", read month first) go to dateparser with
``RELATIVE_BASE`` set to the turn's own local time and the clause's tense choosing past or
future. A day of the month said alone ("on the 17th") resolves like 17号: this month, unless
the tense says it already passed or is still to come. Both run only when such a span is
present, so turns without one pay nothing.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from functools import lru_cache
from typing import Any

from . import calendar as cal
from .engine import Found, _representable
from .resolve import month_for_day, safe_date
from .tense import Cues, tense_near

_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
_NUMERIC = re.compile(r"\b\d{1,2}/\d{1,2}/(?:\d{4}|\d{2})\b(?!/)|(?<=\bon )\d{1,2}/\d{1,2}\b(?!/)", re.IGNORECASE)
_ORDINAL = re.compile(rf"\b(?:on\s+)?the\s+(\d{{1,2}})(?:st|nd|rd|th)\b(?!\s+of\s+(?:{_MONTHS}))", re.IGNORECASE)
CONFIDENCE = 0.75


@lru_cache(maxsize=1)
def _parser() -> Any:
    import dateparser

    return dateparser


def find(text: str, ref: datetime, cues: Cues, taken: list[tuple[int, int]]) -> list[Found]:
    """Dates in spans no rule claimed (``taken``)."""
    out = []
    for regex, resolve in ((_NUMERIC, _numeric), (_ORDINAL, _ordinal)):
        for m in regex.finditer(text):
            span = m.span()
            if any(span[0] < e and s < span[1] for s, e in taken):
                continue
            day = resolve(m, ref, tense_near(text, span, cues))
            interval = _representable(cal.days, ref.tzinfo, day) if day is not None else None
            if interval is not None:  # None also for a day at the edge of what datetime holds (9999-12-31)
                out.append(Found(span, interval, CONFIDENCE, "en"))
                taken = [*taken, span]
    return out


def _numeric(m: re.Match[str], ref: datetime, tense: str | None) -> date | None:
    settings = {
        "RELATIVE_BASE": ref.replace(tzinfo=None),
        "PREFER_DATES_FROM": {"past": "past", "future": "future"}.get(tense or "", "current_period"),
        "DATE_ORDER": "MDY",
        "RETURN_AS_TIMEZONE_AWARE": False,
    }
    parsed = _parser().parse(m.group(), languages=["en"], settings=settings)
    return parsed.date() if parsed is not None else None


def _ordinal(m: re.Match[str], ref: datetime, tense: str | None) -> date | None:
    day = int(m.group(1))
    year, month = month_for_day(ref.date(), day, tense)
    return safe_date(year, month, day)
