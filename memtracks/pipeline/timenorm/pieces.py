"""Pieces built from values a rule read, the same for every language: a rule extracts the
numbers and words ("May", 17, future tense); these functions decide what they mean."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from memtracks.pipeline.timenorm import calendar as cal
from memtracks.pipeline.timenorm import resolve as rv
from memtracks.pipeline.timenorm.calendar import Interval
from memtracks.pipeline.timenorm.engine import Clock, Context, Floating, Mode, Piece, Selector

Span = tuple[int, int]


def day_piece(
    ctx: Context,
    span: Span,
    month: int,
    day: int,
    year: int | None = None,
    mode: Mode = None,
    weekday: int | None = None,
) -> Piece | None:
    """A calendar date; without a year the year rule (resolve.occurrence) picks it and the
    piece stays *floating* so a range or a year said next to it can move it."""
    if year is not None:
        found = rv.safe_date(year, month, day)
        return Piece(span, rv.ABSOLUTE, day=found) if found else None
    tz = ctx.tz

    def build(y: int) -> Interval | None:
        found = rv.safe_date(y, month, day)
        return cal.days(tz, found) if found else None

    interval = rv.occurrence(ctx.ref, build, mode)
    if interval is None:
        return None
    return Piece(span, rv.INFERRED_YEAR, day=interval.start.date(), floating=Floating(build, mode), cyclic=True)


def day_range_piece(ctx: Context, span: Span, month: int, first: int, last: int, year: int | None) -> Piece | None:
    """ "July 13-15", 3月3日到5日: the days ``first`` to ``last`` (included) of a month; without
    a year, the year rule picks the range as a whole."""
    tz = ctx.tz

    def build(y: int) -> Interval | None:
        a, b = rv.safe_date(y, month, first), rv.safe_date(y, month, last)
        return cal.days(tz, a, (b - a).days + 1) if a and b else None

    if year is not None:
        interval = build(year)
        return Piece(span, rv.ABSOLUTE, interval=interval) if interval else None
    mode = ctx.tense(span)
    interval = rv.occurrence(ctx.ref, build, mode)
    if interval is None:
        return None
    return Piece(span, rv.INFERRED_YEAR, interval=interval, floating=Floating(build, mode), cyclic=True)


def month_piece(
    ctx: Context,
    span: Span,
    month: int,
    year: int | None = None,
    mode: Mode = None,
    part: str | None = None,
    thirds: bool = False,
) -> Piece | None:
    """A month (or its early / mid / late part); ``mode`` an int is a shift ("last May")."""
    tz = ctx.tz

    def build(y: int) -> Interval:
        if part:
            return cal.month_part(tz, y, month, part, thirds)
        return cal.month(tz, y, month)

    if year is not None:
        return Piece(span, rv.FUZZY if part else rv.ABSOLUTE, interval=build(year), tail=part == "late")
    if isinstance(mode, int):
        return Piece(span, rv.RELATIVE, interval=build(rv.year_for_month(ctx.today, month, mode)), tail=part == "late")
    interval = rv.occurrence(ctx.ref, build, mode)
    assert interval is not None
    confidence = rv.FUZZY if part else rv.mode_confidence(mode)
    return Piece(span, confidence, interval=interval, floating=Floating(build, mode), tail=part == "late", cyclic=True)


def year_piece(
    ctx: Context,
    span: Span,
    year: int,
    part: str | None = None,
    strong: bool = True,
    confidence: float = rv.RELATIVE,
    narrow: bool = False,
) -> Piece | None:
    """A year, or its early / mid / late third (``narrow``: January / June-July / December);
    it can lend its number to a neighbour."""
    if not 1 <= year <= 9999:
        return None
    if part:
        return Piece(span, rv.FUZZY, interval=cal.year_part(ctx.tz, year, part, narrow), tail=part == "late")
    return Piece(span, confidence, interval=cal.year(ctx.tz, year), year=year, strong=strong)


def weekday_piece(ctx: Context, span: Span, index: int, mode: Mode, shifted: bool) -> Piece:
    """A weekday; a bare one ("Friday", 周五; not "next Friday", "the coming Friday") comes
    round every week."""
    day = rv.weekday_date(ctx.today, index, mode)
    return Piece(span, rv.mode_confidence(mode), day=day, weekday=index, cyclic=not shifted)


def weekday_dom_piece(ctx: Context, span: Span, index: int, dom: int, mode: Mode) -> Piece | None:
    """ "Friday 31", "Mon 13th": the month in which that day of the month is that weekday,
    the next one for "future", the latest for "past", else the nearest."""
    today = ctx.today
    months = [cal.add_months(today.year, today.month, k) for k in range(-14, 15)]
    days = [d for y, m in months if (d := rv.safe_date(y, m, dom)) and d.weekday() == index]
    ahead = [d for d in days if d >= today]
    behind = [d for d in days if d < today]
    if mode == "future" or (mode is None and ahead and (not behind or ahead[0] - today <= today - behind[-1])):
        chosen = ahead[0] if ahead else None
    else:
        chosen = behind[-1] if behind else None
    return Piece(span, rv.INFERRED_YEAR, day=chosen) if chosen else None


def dom_piece(ctx: Context, span: Span, dom: int, mode: Mode, strong: bool) -> Piece | None:
    """A day of the month said alone ("the 17th", 15号): weak (a selector of the month next to
    it: "the 20th of next month"), with this month's day to fall back on."""
    if not 1 <= dom <= 31:
        return None
    year, month = rv.month_for_day(ctx.today, dom, mode)
    found = rv.safe_date(year, month, dom)
    alone = cal.days(ctx.tz, found) if found and strong else None
    return Piece(
        span,
        rv.TENSE_GUESS,
        selector=Selector("day", dom),
        strong=False,
        alone=alone,
        day=found if alone else None,
        cyclic=True,
    )


def selector_piece(
    span: Span,
    unit: str,
    index: int | None = None,
    count: int = 1,
    weekday: int | None = None,
    alone: Interval | None = None,
) -> Piece:
    return Piece(span, rv.RELATIVE, selector=Selector(unit, index, count, weekday), strong=False, alone=alone)


def offset_piece(
    ctx: Context,
    span: Span,
    low: float,
    high: float,
    unit: str,
    sign: int,
    confidence: float,
    more: tuple[tuple[int, str], ...] = (),
) -> Piece:
    """ "3 weeks ago", 两周后, "in 2 hours": the day (or minute) that far from the reference,
    approximate: the speaker means about then."""
    interval = rv.offset_interval(ctx.ref, unit, low, high, sign, more)
    return Piece(span, confidence, interval=interval, approximate=True)


def anchored_offset_piece(span: Span, low: float, high: float, unit: str, sign: int, mod: str | None = None) -> Piece:
    """ "3 days after" / "two weeks before" ("more than ..." / "less than ..."): weak until an
    anchor follows."""
    return Piece(span, rv.RELATIVE, offset=(low, high, unit, sign, mod), strong=False)


def length_piece(span: Span, amount: float, unit: str) -> Piece:
    """ "for two weeks", 持续三天: a duration, or the length of a range when an anchor is next
    to it ("for 3 days from today")."""
    return Piece(span, rv.RELATIVE, length=(amount, unit), strong=False)


def rolling_piece(ctx: Context, span: Span, count: float, unit: str, sign: int, within: bool = False) -> Piece:
    whole, unit = rv.whole_units(count, unit)
    return Piece(span, rv.FUZZY, interval=rv.range_interval(ctx.ref, unit, whole, sign, within))


def now_piece(ctx: Context, span: Span) -> Piece:
    """ "now", 现在: the reference instant (one second)."""
    start = ctx.ref.replace(microsecond=0)
    return Piece(
        span, rv.RELATIVE, interval=Interval(start, cal.later(start, timedelta(seconds=1)), "second"), point=True
    )


def unit_piece(ctx: Context, span: Span, unit: str, shift: int) -> Piece:
    """ "last week", 下个月, "this quarter": the calendar unit ``shift`` units from the current."""
    if unit == "weekend":
        return Piece(span, rv.RELATIVE, interval=rv.weekend_for(ctx.ref, shift))
    return Piece(span, rv.RELATIVE, interval=cal.unit_at(ctx.ref, unit, shift))


def work_week_piece(ctx: Context, span: Span, shift: int) -> Piece:
    """ "next working week", "this workweek", 下个工作周: Monday to Friday of that week."""
    first = cal.monday(ctx.today + timedelta(weeks=shift))
    return Piece(span, rv.RELATIVE, interval=cal.days(ctx.tz, first, 5, "week"))


def clock_piece(
    span: Span,
    hour: int,
    minute: int = 0,
    second: int | None = None,
    meridiem: str | None = None,
    minutes_written: bool = False,
    strong: bool = True,
    part: tuple[int, int] | None = None,
    until: Clock | None = None,
    confidence: float = rv.RELATIVE,
) -> Piece | None:
    clock = make_clock(hour, minute, second, meridiem, minutes_written)
    if clock is None:
        return None
    return Piece(span, confidence, clock=clock, strong=strong, part=part, until=until, cyclic=True)


def make_clock(
    hour: int, minute: int = 0, second: int | None = None, meridiem: str | None = None, minutes_written: bool = False
) -> Clock | None:
    if minute > 59 or (second or 0) > 59 or hour > (12 if meridiem in ("am", "pm") else 24):
        return None
    if meridiem in ("am", "pm") and hour == 0:
        return None
    if hour == 24 and (minute or second):
        return None
    if hour > 12 and meridiem is None:
        meridiem = "24h"
    return Clock(hour, minute, second, meridiem, minutes_written)


def holiday_date(entry: Any, year: int) -> date | None:
    """The date of a holiday (a lexicon entry: fixed month/day, nth weekday of a month, a
    number of days from Easter, or a table of dates by year) in ``year``."""
    if entry.easter is not None:
        return cal.easter(year) + timedelta(days=entry.easter)
    if getattr(entry, "dates", None) is not None:
        day = entry.dates.get(year)
        return date.fromisoformat(f"{year:04d}-{day}") if day else None
    if entry.weekday is not None:
        found = cal.nth_weekday(year, entry.month, entry.weekday, entry.nth)
        return found + timedelta(days=entry.after) if found else None
    return rv.safe_date(year, entry.month, entry.day)


def holiday_piece(ctx: Context, span: Span, entry: Any, year: int | None, mode: Mode) -> Piece | None:
    tz = ctx.tz

    def build(y: int) -> Interval | None:
        found = holiday_date(entry, y)
        return cal.days(tz, found) if found else None

    if year is not None:
        interval = build(year)
        return Piece(span, rv.ABSOLUTE, interval=interval) if interval else None
    if isinstance(mode, int):  # "last Easter": already placed, no year left to choose
        interval = _shifted_holiday(ctx, build, mode)
        return Piece(span, rv.RELATIVE, interval=interval) if interval else None
    interval = rv.occurrence(ctx.ref, build, mode)
    if interval is None:
        return None
    return Piece(span, rv.INFERRED_YEAR, interval=interval, floating=Floating(build, mode), cyclic=True)


def _shifted_holiday(ctx: Context, build: Any, shift: int) -> Interval | None:
    """ "last Easter" = the latest one before today; "next Easter" the first after it."""
    moment = ctx.ref.timestamp()
    years = range(ctx.today.year - 2, ctx.today.year + 3)
    found = [iv for y in years if (iv := rv.build_in(build, y))]
    if shift < 0:
        past = [iv for iv in found if iv.end.timestamp() <= moment]
        return past[shift] if len(past) >= -shift else None
    if shift > 0:
        ahead = [iv for iv in found if iv.start.timestamp() > moment]
        return ahead[shift - 1] if len(ahead) >= shift else None
    return next((iv for iv in found if iv.start.year == ctx.today.year), None)
