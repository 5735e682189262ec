"""Relative-time normalization: every time expression in a turn, resolved against the turn's
own timestamp and timezone into an interval ``[start, end)``.

    >>> from zoneinfo import ZoneInfo
    >>> ref = datetime(2024, 1, 10, 10, tzinfo=ZoneInfo("Asia/Shanghai"))  # a Wednesday
    >>> [(m.text, m.span, m.start.isoformat(), m.granularity, m.direction)
    ...  for m in normalize_time("我下周三要去北京出差", ref)]
    [('下周三', (1, 4), '2024-01-17T00:00:00+08:00', 'day', 'future')]

Conventions (English and Chinese agree):

* Days run from local midnight to local midnight in the reference's zone (DST-safe).
* Weeks start on Monday. "next Wednesday" / 下周三 = Wednesday of next week; "last Friday" /
  上周五 = Friday of last week; "this Wednesday" / 这周三 = Wednesday of the current week.
* A bare weekday, month, weekend or season takes its tense from cues in the clause around
  it (English: -ed and irregular past verbs, "ago" vs will / 'll / going to / am + -ing ...;
  Chinese: 了 过 已经 刚 vs 要 会 将 打算 准备 想 计划). Past: the latest one before today
  (a month or season: the latest one already begun); future: the next one after today (not
  yet over); no cue: the one in the current week / year.
* "N days ago" is that day; "N weeks ago" the Monday-start week containing ref - 7N days;
  "N months ago" the month containing ref - N months; "N years ago" that year. Vague
  quantities ("a few days ago", 几天前) cover a range of units with lower confidence.
* Beginning / middle / end of a month (月初 / 月中旬 / 月底, "early / mid / late May") are the
  thirds of the month: days 1-10, 11-20, 21-end, granularity "week" (they are about a week and
  a half long and not Monday-aligned; "day" would claim one day). "End of the year" / 年底 is
  December and "beginning of the year" / 年初 January (granularity "month"); "late 2023" is
  Sep-Dec (granularity "season").
* Parts of the day: morning 06-12, afternoon 12-18, evening 18-24, night 18-06 ("last night"
  reaches into today's small hours). A clock time with minutes is granularity "minute", a
  whole hour "hour" ("3pm" = 15:00-16:00).
* Written calendar formats the rules do not cover ("5/8/2023" read month first, "on the 17th")
  go to dateparser with ``RELATIVE_BASE`` = the reference's local time (see ``fallback``).
* Seasons are northern-hemisphere meteorological: spring Mar-May, summer Jun-Aug, autumn
  Sep-Nov, winter Dec-Feb.
"""

from __future__ import annotations

import re
from datetime import datetime

from ...errors import InvalidTimeError, UnsupportedLanguageError
from ...records import TimeMention
from . import chinese, english, fallback
from .engine import Context, Found, Grammar, recognise, select
from .lexicon import load_lexicon

__all__ = ["LANGUAGES", "load_lexicon", "normalize_time"]

LANGUAGES = (None, "en", "zh", "mixed")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")
_DIGIT = re.compile(r"\d")


def normalize_time(text: str, reference_time: datetime, lang: str | None = None) -> list[TimeMention]:
    """Find the time expressions in ``text`` and resolve them against ``reference_time``.

    Args:
        text: one conversation turn.
        reference_time: when the turn was said; must be timezone-aware. All arithmetic happens
            in its zone and the results carry its tzinfo.
        lang: None to detect (Chinese recogniser if the text has CJK characters, English if it
            has Latin letters), "en", "zh", or "mixed" for both.

    Returns:
        The mentions in text order; where two recognisers overlap, the earlier (then longer)
        span wins.

    Raises:
        InvalidTimeError: ``reference_time`` is not an aware datetime.
        UnsupportedLanguageError: ``lang`` is not one of None, "en", "zh", "mixed".
    """
    _check_reference(reference_time)
    found: list[Found] = []
    lower = text.lower()
    for code, grammar in _grammars(text, lang):
        if grammar.trigger.search(lower):
            found.extend(recognise(grammar.rules, grammar.joiner, Context(text, reference_time, grammar.cues), code))
        if code == "en" and _DIGIT.search(text):
            found.extend(fallback.find(text, reference_time, grammar.cues, [f.span for f in found]))
    return [_mention(text, item, reference_time) for item in select(found)]


def _check_reference(reference_time: object) -> None:
    if not isinstance(reference_time, datetime):
        raise InvalidTimeError(
            "reference_time must be a timezone-aware datetime, "
            f"found {type(reference_time).__name__}: {reference_time!r}"
        )
    if reference_time.tzinfo is None or reference_time.utcoffset() is None:
        raise InvalidTimeError(
            "reference_time must be a timezone-aware datetime, found a naive datetime "
            f"{reference_time.isoformat()}; attach a zone, e.g. .replace(tzinfo=ZoneInfo(...))"
        )


def _grammars(text: str, lang: str | None) -> list[tuple[str, Grammar]]:
    if lang not in LANGUAGES:
        raise UnsupportedLanguageError(
            f"unsupported language {lang!r} for time normalization; expected one of None (detect), 'en', 'zh', 'mixed'"
        )
    if lang is None:
        has_cjk = _CJK.search(text) is not None
        use_en, use_zh = _LATIN.search(text) is not None or not has_cjk, has_cjk
    else:
        use_en, use_zh = lang in ("en", "mixed"), lang in ("zh", "mixed")
    chosen = []
    if use_zh:
        chosen.append(("zh", chinese.grammar()))
    if use_en:
        chosen.append(("en", english.grammar()))
    return chosen


def _mention(text: str, item: Found, ref: datetime) -> TimeMention:
    start, end = item.interval.start, item.interval.end
    if end.timestamp() <= ref.timestamp():
        direction = "past"
    elif start.timestamp() > ref.timestamp():
        direction = "future"
    else:
        direction = "present"
    return TimeMention(
        text=text[item.span[0] : item.span[1]],
        start=start,
        end=end,
        granularity=item.interval.granularity,
        span=item.span,
        lang=item.lang,
        confidence=item.confidence,
        direction=direction,
    )
