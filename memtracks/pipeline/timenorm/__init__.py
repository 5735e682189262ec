"""Relative-time normalization: every time expression in a turn, resolved against the turn's
own timestamp and timezone into an interval ``[start, end)``.

    >>> from zoneinfo import ZoneInfo
    >>> ref = datetime(2024, 1, 10, 10, tzinfo=ZoneInfo("Asia/Shanghai"))  # a Wednesday
    >>> [(m.text, m.span, m.start.isoformat(), m.granularity, m.direction)
    ...  for m in normalize_time("我下周三要去北京出差", ref)]
    [('下周三', (1, 4), '2024-01-17T00:00:00+08:00', 'day', 'future')]

The conventions (weeks, parts of the day, the year rule for a date said without one, offsets,
ranges, open bounds, durations, and where memtracks differs from Microsoft Recognizers-Text)
are written down once, in ``docs/time.md``. The grammars are data: ``lexicons/time_en.yaml``
and ``lexicons/time_zh.yaml``, loaded by :mod:`memtracks.data.time_words`; a memory reads the
time words its :class:`~memtracks.toolkit.Toolkit` holds, a caller with none the bundled ones.
"""

from __future__ import annotations

import re
from datetime import datetime

from memtracks.data.time_words import TimeWords, default_time_words, load_lexicon
from memtracks.errors import InvalidTimeError, UnsupportedLanguageError
from memtracks.pipeline.timenorm.compose import compose
from memtracks.pipeline.timenorm.engine import Context, Found, Grammar, pieces_of, select, units_of
from memtracks.pipeline.timenorm.habits import Run, without_habits
from memtracks.pipeline.timenorm.spans import GRANULARITIES
from memtracks.records import TimeMention

__all__ = ["DATE_ORDERS", "GRANULARITIES", "LANGUAGES", "load_lexicon", "normalize_time"]

LANGUAGES = (None, "en", "zh", "mixed")
DATE_ORDERS = ("mdy", "dmy")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")
_DIGIT = re.compile(r"\d")


def normalize_time(
    text: str,
    reference_time: datetime,
    lang: str | None = None,
    date_order: str = "mdy",
    time_words: TimeWords | None = None,
) -> list[TimeMention]:
    """Find the time expressions in ``text`` and resolve them against ``reference_time``.

    Args:
        text: one conversation turn.
        reference_time: when the turn was said; must be timezone-aware. All arithmetic happens
            in its zone and the results carry its tzinfo.
        lang: "en", "zh", "mixed" or None (detect). The language of the turn; an English
            phrase inside a Chinese turn ("3pm", "tomorrow") and Chinese inside an English one
            are read too, by the other grammar, whatever ``lang`` says.
        date_order: how ``5/8/2023`` is read: "mdy" (month first, the default) or "dmy".
            Day first is used anyway where the first number cannot be a month (23/12).
        time_words: the time words the grammars are compiled from (a toolkit's
            ``time_words``); None: the bundled ones.

    Returns:
        The mentions in text order; where two readings overlap, the earlier (then longer)
        span wins.

    Raises:
        InvalidTimeError: ``reference_time`` is not an aware datetime.
        UnsupportedLanguageError: ``lang`` is not one of None, "en", "zh", "mixed", or
            ``date_order`` not "mdy" / "dmy".
    """
    _check_reference(reference_time)
    if date_order not in DATE_ORDERS:
        raise UnsupportedLanguageError(f"unsupported date_order {date_order!r}; expected 'mdy' or 'dmy'")
    read: list[tuple[str, Grammar, Context]] = []
    runs: list[Run] = []
    for code, grammar in _grammars(text, lang, time_words or default_time_words()):
        prepared = grammar.prepare(text)
        if grammar.trigger.search(prepared.lower()):
            ctx = Context(prepared, reference_time, grammar.cues, date_order)
            read.append((code, grammar, ctx))
            runs.append(Run(grammar.habits, ctx, pieces_of(grammar.rules, ctx, grammar.joiner)))
    found: list[Found] = []
    for (code, grammar, ctx), pieces in zip(read, without_habits(text, runs), strict=True):
        found.extend(compose(units_of(pieces, ctx, code), ctx, grammar.connectors))
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


def _grammars(text: str, lang: str | None, words: TimeWords) -> list[tuple[str, Grammar]]:
    if lang not in LANGUAGES:
        raise UnsupportedLanguageError(
            f"unsupported language {lang!r} for time normalization; expected one of None (detect), 'en', 'zh', 'mixed'"
        )
    from memtracks.pipeline.timenorm import chinese, english

    has_cjk = _CJK.search(text) is not None
    use_zh = has_cjk or lang in ("zh", "mixed") and _DIGIT.search(text) is not None
    use_en = (
        _LATIN.search(text) is not None
        or (not has_cjk and lang != "zh")
        or (lang != "zh" and _DIGIT.search(text) is not None)
    )
    chosen = []
    if use_zh:
        chosen.append(("zh", chinese.grammar(words.zh)))
    if use_en:
        chosen.append(("en", english.grammar(words.en)))
    return chosen


def _mention(text: str, item: Found, ref: datetime) -> TimeMention:
    start, end = item.interval.start, item.interval.end
    if item.duration is not None or start.timestamp() <= ref.timestamp() < end.timestamp():
        direction = "present"
    elif end.timestamp() <= ref.timestamp():
        direction = "past"
    else:
        direction = "future"
    return TimeMention(
        text=text[item.span[0] : item.span[1]],
        start=start,
        end=end,
        granularity=item.interval.granularity,
        span=item.span,
        lang=item.lang,
        confidence=item.confidence,
        direction=direction,
        approximate=item.approximate,
        unbounded=item.unbounded,
        duration=item.duration,
    )
