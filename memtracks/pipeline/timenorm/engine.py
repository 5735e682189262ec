"""The recogniser machinery shared by English and Chinese.

Three passes over a text:

1. **rules**: a language's regexes (built from its lexicon) turn matches into :class:`Piece`:
   a finished interval, or a day, a part of the day and/or a clock time (or clock range), with
   hints for the next passes (a weekday, a bare day of the month, a date without its year ...);
2. **join**: overlapping pieces are resolved (earlier start wins, then the longer one), and
   adjacent day / part-of-day / clock pieces are joined, so "tomorrow at 3pm", "Friday night",
   "Monday 8-9am" and 明天下午三点 each become one; every piece is then resolved to a
   :class:`Found` interval;
3. **compose** (``compose.py``): neighbouring units combine across connector words: ranges
   ("from X to Y"), open bounds ("since X"), "the first Monday of X", "3 days after X", a year
   lent to a date without one ("26 June ... in 2020").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta, tzinfo
from typing import Any, TypeVar

from memtracks.pipeline.timenorm import calendar as cal
from memtracks.pipeline.timenorm.calendar import Interval
from memtracks.pipeline.timenorm.tense import Cues, tense_near

Mode = int | str | None  # see resolve.py


@dataclass(frozen=True)
class Clock:
    """A clock time as said. ``meridiem`` is "am", "pm", None (not said) or "24h" (written as
    a 24-hour time, 13:05, or already resolved: the hour is final)."""

    hour: int
    minute: int = 0
    second: int | None = None
    meridiem: str | None = None
    minutes_written: bool = False  # digits "4:23" (read as a 24-hour time), not spoken "half past 4"

    @property
    def grain(self) -> str:
        if self.second is not None:
            return "second"
        return "minute" if self.minutes_written or self.minute else "hour"


@dataclass(frozen=True)
class Floating:
    """A date said without its year: ``build(year)`` is its interval in a given year (None if
    it does not exist that year: February 29); ``mode`` chooses the year (resolve.occurrence)."""

    build: Callable[[int], Interval | None]
    mode: Mode


@dataclass(frozen=True)
class Selector:
    """ "the first Tuesday of", "the last week of", 第一周, 前10天: a part picked out of the
    period next to it. ``unit`` is "week", "day", "month", "quarter", "half", "weekday" or
    "weekend"; ``index`` 1-based (negative from the end) or None with ``count`` ("the first
    2 weeks", 前10天)."""

    unit: str
    index: int | None = None
    count: int = 1
    weekday: int | None = None


@dataclass(frozen=True)
class Piece:
    """What one rule found at ``span``; ``strong`` False: only counts when composed."""

    span: tuple[int, int]
    confidence: float
    interval: Interval | None = None
    day: date | None = None
    part: tuple[int, int] | None = None  # (start_hour, end_hour) window
    clock: Clock | None = None
    until: Clock | None = None  # a clock range "3-4pm": clock .. until
    zone: tzinfo | None = None  # a time zone named with the clock ("4pm CET")
    strong: bool = True
    weekday: int | None = None  # the piece is a weekday name
    dom: int | None = None  # a bare day of the month ("the 17th", 15号)
    floating: Floating | None = None
    year: int | None = None  # the piece names a year it can lend to a neighbour
    selector: Selector | None = None
    offset: tuple[float, float, str, int, str | None] | None = None  # "3 days after": low, high, unit, sign, more/less
    length: tuple[float, str] | None = None  # "for 3 days": amount, unit
    neighbour: tuple[str, int, int | None] | None = None  # "the Monday before": unit, sign, weekday
    approximate: bool = False
    tail: bool = False  # the end of a period ("the end of the month", 月底)
    moved: bool = False  # a day reached by an offset ("two months from today"): a week to name a weekday in
    point: bool = False  # "now": an instant, like a clock time
    open_side: str | None = None  # the piece is already an open interval ("to date")
    alone: Interval | None = None  # the interval of a weak piece left on its own
    cyclic: bool = False  # a time that comes round again, named with no anchor: a bare weekday,
    # part of the day, clock time, weekend, month, date or holiday without its year (habits.py)


@dataclass(frozen=True)
class Found:
    """A resolved unit: a mention before it becomes a ``TimeMention``."""

    span: tuple[int, int]
    interval: Interval
    confidence: float
    lang: str
    piece: Piece
    strong: bool = True
    approximate: bool = False
    unbounded: str | None = None
    duration: timedelta | None = None

    @property
    def point(self) -> bool:
        """A clock time or "now": counts as an instant at its start in ranges and bounds."""
        return self.piece.point or self.interval.granularity in ("second", "minute", "hour")


@dataclass
class Context:
    """The text being read and its reference time."""

    text: str
    ref: datetime
    cues: Cues
    date_order: str = "mdy"
    today: date = field(init=False)

    def __post_init__(self) -> None:
        self.today = self.ref.date()

    @property
    def tz(self) -> tzinfo:
        assert self.ref.tzinfo is not None
        return self.ref.tzinfo

    def tense(self, span: tuple[int, int]) -> str | None:
        """ "past" / "future" / None from the cues around ``span``."""
        return tense_near(self.text, span, self.cues)


@dataclass(frozen=True)
class Rule:
    """A pattern and its handler. A rule runs only on a text that has one of its ``words``
    (lower-case words, or characters for Chinese) or, with ``digits``, a digit; a rule with
    neither always runs. Most turns hold no time, and this keeps them cheap."""

    name: str
    pattern: re.Pattern[str]
    handler: Callable[[re.Match[str], Context], Piece | None]
    words: frozenset[str] = frozenset()
    digits: bool = False

    def wanted(self, tokens: frozenset[str], has_digit: bool) -> bool:
        if not self.words and not self.digits:
            return True
        return (self.digits and has_digit) or not self.words.isdisjoint(tokens)


_WORD = re.compile(r"[a-z]+")
_HAN = re.compile(r"[\u3400-\u9fff]")
_DIGIT = re.compile(r"\d")


def tokens_of(lower: str) -> frozenset[str]:
    """The lower-case words and the Chinese characters of a text (what rules are gated on)."""
    return frozenset(_WORD.findall(lower)) | frozenset(_HAN.findall(lower))


@dataclass(frozen=True)
class Grammar:
    """A language's compiled rules, joiner, connectors (compose.py), pre-check, tense cues and
    habit words (habits.py). ``prepare`` maps the text before matching without moving any
    character (Traditional Chinese onto simplified; Chinese characters blanked for the English
    rules)."""

    rules: tuple[Rule, ...]
    joiner: re.Pattern[str]
    trigger: re.Pattern[str]
    cues: Cues
    connectors: Any
    habits: Any
    prepare: Callable[[str], str] = str


def phrase_span(match: re.Match[str]) -> tuple[int, int]:
    """Span of the ``phrase`` group if the rule has one and it matched, else the whole match."""
    if "phrase" in match.re.groupindex and match.group("phrase") is not None:
        return match.span("phrase")
    return match.span()


_NUMERAL = frozenset("0123456789０１２３４５６７８９〇零一二三四五六七八九十百千万亿两壹贰叁肆伍陆柒捌玖拾佰仟萬億兩")
_BEFORE_THE_ERA = "公元前"  # 公元前221年: 221 BC, before any year a datetime holds


def _cuts_a_number(text: str, span: tuple[int, int]) -> bool:
    """Does a match start or end inside a number ("九十九年后" inside 九千九百九十九年后, "21年"
    inside 221年)? Then it reads part of a number as the whole: no time. A year before the
    common era (公元前) is none either."""
    start, end = span
    if 0 < start < len(text) and text[start] in _NUMERAL and text[start - 1] in _NUMERAL:
        return True
    if 0 < end < len(text) and text[end - 1] in _NUMERAL and text[end] in _NUMERAL:
        return True
    return text[:start].endswith(_BEFORE_THE_ERA[:-1]) and text[start : start + 1] == _BEFORE_THE_ERA[-1]


def pieces_of(rules: Sequence[Rule], ctx: Context, joiner: re.Pattern[str]) -> list[Piece]:
    """Run ``rules`` over ``ctx.text``: the non-overlapping pieces in text order, adjacent day /
    part / clock pieces joined ("Friday night", 明天下午三点)."""
    lower = ctx.text.lower()
    tokens, has_digit = tokens_of(lower), _DIGIT.search(lower) is not None
    found = [
        piece
        for rule in rules
        if rule.wanted(tokens, has_digit)
        for match in rule.pattern.finditer(ctx.text)
        if not _cuts_a_number(ctx.text, phrase_span(match))
        and (piece := representable(rule.handler, match, ctx)) is not None
    ]
    return _join(select(found), ctx.text, joiner)


def units_of(pieces: Iterable[Piece], ctx: Context, lang: str) -> list[Found]:
    """Resolve each (joined) piece to a unit."""
    units = []
    for piece in pieces:
        interval = representable(resolve_piece, piece, ctx)
        if interval is not None:
            units.append(
                Found(
                    piece.span,
                    interval,
                    round(_confidence(piece), 3),
                    lang,
                    piece,
                    piece.strong,
                    piece.approximate,
                    piece.open_side,
                )
            )
    return units


AMBIGUOUS_CLOCK = 0.7  # "at 4", 三点: no am/pm and no part of the day


def _confidence(piece: Piece) -> float:
    clock = piece.clock
    if clock and clock.meridiem is None and piece.part is None and 1 <= clock.hour <= 12:
        return min(piece.confidence, AMBIGUOUS_CLOCK)
    return piece.confidence


def representable(function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)``, or None when the time falls outside the years 1-9999 that
    ``datetime`` can hold ("in 999 years" from a reference in 9500, "in 99999999999999999999
    days": a number no calendar reaches is no time). Other errors propagate."""
    try:
        return function(*args)
    except OverflowError:  # a count too large for the C types under datetime and timedelta
        return None
    except ValueError as exc:
        if "out of range" not in str(exc) and "must be in" not in str(exc):
            raise
        return None


Spanned = TypeVar("Spanned", Piece, Found)


def select(items: Iterable[Spanned]) -> list[Spanned]:
    """Drop overlaps: the earlier start wins, then the longer span, then the earlier rule."""
    ordered = sorted(items, key=lambda p: (p.span[0], p.span[0] - p.span[1]))
    kept: list[Spanned] = []
    for item in ordered:
        if not kept or item.span[0] >= kept[-1].span[1]:
            kept.append(item)
    return kept


def _join(pieces: list[Piece], text: str, joiner: re.Pattern[str]) -> list[Piece]:
    joined: list[Piece] = []
    for piece in pieces:
        last = joined[-1] if joined else None
        if last is not None and _joinable(last, piece, text, joiner):
            joined[-1] = _merge(last, piece)
        else:
            joined.append(piece)
    return joined


_PARTS = ("day", "part", "clock")


def _joinable(left: Piece, right: Piece, text: str, joiner: re.Pattern[str]) -> bool:
    if right.zone is not None and right.clock is None and left.clock is not None and left.zone is None:
        return text[left.span[1] : right.span[0]].strip() == ""  # "4pm CET"
    if left.interval or right.interval:
        return False
    if any(p.selector is not None and p.day is None for p in (left, right)):
        return False
    if not any(getattr(left, n) is not None for n in _PARTS):
        return False
    if not any(getattr(right, n) is not None for n in _PARTS):
        return False
    if any(getattr(left, n) is not None and getattr(right, n) is not None for n in _PARTS):
        return False
    return joiner.fullmatch(text, left.span[1], right.span[0]) is not None


def _merge(left: Piece, right: Piece) -> Piece:
    has_part = left.part is not None or right.part is not None
    has_clock = left.clock is not None or right.clock is not None
    dated = left.day or right.day
    return replace(
        left,
        span=(left.span[0], right.span[1]),
        confidence=min(left.confidence, right.confidence),
        day=dated,
        part=left.part or right.part,
        clock=left.clock or right.clock,
        until=left.until or right.until,
        zone=left.zone or right.zone,
        strong=left.strong or right.strong or (has_part and has_clock),
        weekday=None,
        dom=None,
        floating=None if has_part or has_clock else (left.floating or right.floating),
        year=None,
        selector=None,
        alone=None,
        cyclic=left.cyclic and right.cyclic,  # "Friday night" comes round again, "tomorrow night" not
    )


def resolve_piece(piece: Piece, ctx: Context) -> Interval:
    """The interval of a joined piece: its own, or its clock (range) / part of day on its day
    (today when it names none)."""
    if piece.interval is not None:
        return piece.interval
    day = piece.day or ctx.today
    if piece.clock is not None:
        tz = piece.zone or ctx.tz
        if piece.until is not None:
            return _clock_range(tz, day, piece.clock, piece.until, piece.part, ctx.tz)
        hour = clock_hour(piece.clock, piece.part)
        c = piece.clock
        return _in_zone(cal.clock(tz, day, hour, c.minute, c.second or 0, c.grain), ctx.tz)
    if piece.part is not None:
        return cal.hours(ctx.tz, day, *piece.part)
    return cal.days(ctx.tz, day)


def _clock_range(
    tz: tzinfo, day: date, first: Clock, last: Clock, part: tuple[int, int] | None, home: tzinfo
) -> Interval:
    """ "3-4pm", 下午两点到四点: the end read first (it usually carries am/pm), then the start
    as the latest reading not after it; an end not after the start is on the next day."""
    if last.meridiem is None and first.meridiem is not None:
        start_hour = clock_hour(first, part)
        end_hour = min(_readings(last, part), key=lambda h: (h < start_hour, h))
    else:
        end_hour = clock_hour(last, part)
        start_hour = max(
            (h for h in _readings(first, part) if (h, first.minute) <= (end_hour, last.minute)),
            default=clock_hour(first, part),
        )
    start = cal.local(tz, day, start_hour, first.minute)
    end = cal.local(tz, day, end_hour, last.minute)
    if end <= start:
        end = cal.local(tz, day, end_hour + 24, last.minute)
    grain = "minute" if first.grain != "hour" or last.grain != "hour" else "hour"
    return _in_zone(Interval(start, end, grain), home)


def _readings(clock: Clock, part: tuple[int, int] | None) -> list[int]:
    if clock.meridiem or part is not None or clock.hour > 12 or clock.hour == 0:
        return [clock_hour(clock, part)]
    return [clock.hour % 12, clock.hour % 12 + 12]


def _in_zone(interval: Interval, home: tzinfo) -> Interval:
    if interval.start.tzinfo is home:
        return interval
    return Interval(interval.start.astimezone(home), interval.end.astimezone(home), interval.granularity)


def clock_hour(clock: Clock, part: tuple[int, int] | None) -> int:
    """24-hour value of ``clock`` on its day, read to fit the part of day it sits in.

    Without am/pm a clock may mean h, h+12 or h+24 (past midnight); with a part of day the
    reading closest to the part's window wins: "8" in the evening is 20, 晚上十二点 is 24
    (the midnight ending that day), "2am" last night (window 20-24) is 26 = 02:00 next day.
    With neither, a bare hour 1-6 is read as afternoon ("Friday at 5", 明天三点) and 7-12 as
    said; a time written with minutes ("4:23") is read as a 24-hour time.
    """
    if clock.meridiem == "24h":
        return clock.hour
    hour = clock.hour % 12 if clock.meridiem else clock.hour
    if clock.meridiem == "pm":
        hour += 12
    if part is None:
        bare = clock.meridiem is None and not clock.minutes_written
        return hour + 12 if bare and 1 <= hour <= 6 else hour
    steps = (0, 24) if clock.meridiem else (0, 12, 24)
    start, end = part  # read in a wider window: "3 in the morning" 03:00, 晚上十二点 24:00,
    # "in the afternoon at 7" 19:00, "tonight around 3" 03:00 next morning
    window = (0 if start <= 8 else start - 1, 30 if start >= 20 else 24 if start >= 12 else end)
    return min((hour + step for step in steps), key=lambda h: (_distance(h, window), h))


def _distance(hour: int, window: tuple[int, int]) -> int:
    start, end = window
    if hour < start:
        return start - hour
    return max(0, hour - end + 1)
