"""What time expressions mean, independent of the language they were said in.

A *mode* says which occurrence of a weekday, month, weekend or season is meant:

* an int: a fixed shift in weeks/years/seasons ("last" -1, "this" 0, "next" 1, 上上 -2);
* "past": the most recent occurrence (a past-tense cue is near the mention);
* "future": the next occurrence (a future-tense cue is near);
* None: no cue, the occurrence in the current week / year.
"""

from __future__ import annotations

from calendar import monthrange
from datetime import date, datetime, timedelta, tzinfo

from . import calendar as cal
from .calendar import Interval

Mode = int | str | None

# Confidence by kind of expression.
ABSOLUTE = 0.95  # a full date or month with its year
INFERRED_YEAR = 0.85  # a date without its year
RELATIVE = 0.9  # today, 昨天, last week, three days ago, next Wednesday
TENSE_GUESS = 0.8  # bare weekday / month / weekend resolved by a tense cue
NO_CUE = 0.7  # bare weekday / month with no tense cue: the current week's / year's
FUZZY = 0.8  # end of the month, seasons, "the past two weeks"
APPROXIMATE = 0.7  # fractional amounts: "half a year ago", 一个半月前


def zone(ref: datetime) -> tzinfo:
    """The reference's tzinfo (references are checked to be aware before any of this runs)."""
    assert ref.tzinfo is not None
    return ref.tzinfo


def mode_confidence(mode: Mode) -> float:
    """Confidence of an occurrence chosen by ``mode``."""
    if isinstance(mode, int):
        return RELATIVE
    return TENSE_GUESS if mode else NO_CUE


def safe_date(year: int, month: int, day: int) -> date | None:
    """The date, or None if it does not exist (February 30)."""
    if 1 <= month <= 12 and 1 <= day <= monthrange(year, month)[1]:
        return date(year, month, day)
    return None


def weekday_date(today: date, index: int, mode: Mode) -> date:
    """The weekday ``index`` (0 = Monday) meant by ``mode``.

    Shifts count whole Monday-start weeks ("next Wednesday" = Wednesday of next week). "past"
    is the latest such weekday strictly before today, "future" the first strictly after it,
    None the one in the current week.
    """
    if mode == "past":
        return today - timedelta(days=(today.weekday() - index) % 7 or 7)
    if mode == "future":
        return today + timedelta(days=(index - today.weekday()) % 7 or 7)
    shift = mode if isinstance(mode, int) else 0
    return cal.monday(today) + timedelta(weeks=shift, days=index)


def weekend_for(ref: datetime, mode: Mode) -> Interval:
    """Saturday-Monday interval meant by ``mode``; "past" is the last weekend already begun."""
    today = ref.date()
    if isinstance(mode, int):
        return cal.weekend(zone(ref), today + timedelta(weeks=mode))
    if mode == "past" and today.weekday() < 5:
        return cal.weekend(zone(ref), today - timedelta(weeks=1))
    return cal.weekend(zone(ref), today)


def year_for_month(today: date, month: int, mode: Mode) -> int:
    """Year of the month ``month`` meant by ``mode``.

    "past" = the latest such month that has begun (this year if month <= today's month);
    "future" = the first one not yet over (this year if month >= today's month);
    -1 ("last May") = the latest strictly before the current month; +1 = the first strictly
    after it; 0 and None = the current year's.
    """
    year = today.year
    if mode == "past" or mode == -1:
        limit = today.month if mode == "past" else today.month - 1
        return year if month <= limit else year - 1
    if mode == "future" or mode == 1:
        limit = today.month if mode == "future" else today.month + 1
        return year if month >= limit else year + 1
    return year


def year_for_day(today: date, month: int, day: int, mode: Mode) -> int:
    """Year of a month-day said without one: "past" = the latest not after today,
    "future" = the first not before today, None = this year."""
    if mode == "past":
        return today.year if (month, day) <= (today.month, today.day) else today.year - 1
    if mode == "future":
        return today.year if (month, day) >= (today.month, today.day) else today.year + 1
    return today.year


def month_for_day(today: date, day: int, mode: Mode) -> tuple[int, int]:
    """(year, month) of a day of the month said alone (15号): this month unless the tense says
    it already passed ("past" and day > today) or is still to come ("future" and day < today)."""
    if mode == "past" and day > today.day:
        return cal.add_months(today.year, today.month, -1)
    if mode == "future" and day < today.day:
        return cal.add_months(today.year, today.month, 1)
    return today.year, today.month


def season_for(ref: datetime, start_month: int, mode: Mode) -> Interval:
    """The season starting in ``start_month`` meant by ``mode``.

    0 / None: this year's (for winter: the one running now in Jan-Feb, else the one starting
    this December); -1 / +1: the latest before / the first after the current season;
    "past": the latest already begun; "future": the first not yet over.
    """
    current = cal.season_index(ref.date())
    kind = start_month // 3 - 1
    if mode == -1:
        index = current - ((current - kind) % 4 or 4)
    elif mode == 1:
        index = current + ((kind - current) % 4 or 4)
    elif mode == "past":
        index = current - (current - kind) % 4
    elif mode == "future":
        index = current + (kind - current) % 4
    elif kind == 3 and ref.month < 3:
        index = current
    else:
        index = ref.year * 4 + kind
    return cal.season(zone(ref), index)


def season_of_year(ref: datetime, start_month: int, year: int) -> Interval:
    """The season starting in ``start_month`` of ``year`` (winter 2023 = Dec 2023-Feb 2024)."""
    return cal.season(zone(ref), year * 4 + start_month // 3 - 1)


# How a fractional amount of a unit is counted in a smaller one ("half a year" = 6 months).
_FRACTION = {
    "year": ("month", 12.0),
    "month": ("week", 30 / 7),
    "week": ("day", 7.0),
    "weekend": ("day", 7.0),
    "day": ("hour", 24.0),
    "hour": ("minute", 60.0),
}


def whole_units(amount: float, unit: str) -> tuple[int, str]:
    """``amount`` of ``unit`` as a whole count, moving to a smaller unit for fractions."""
    if amount != int(amount) and unit in _FRACTION:
        smaller, factor = _FRACTION[unit]
        return round(amount * factor), smaller
    return round(amount), unit


def offset_interval(ref: datetime, unit: str, low: int, high: int, sign: int) -> Interval:
    """The ``unit`` (minute ... year) ``low``..``high`` units before (sign -1) or after (+1)
    the reference: "3 weeks ago" is the Monday-start week containing ref - 21 days."""
    first, last = sorted((sign * low, sign * high))
    return cal.span(cal.unit_at(ref, unit, first), cal.unit_at(ref, unit, last))


def range_interval(ref: datetime, unit: str, count: int, sign: int) -> Interval:
    """ "the past / next ``count`` units": from ``count`` units back (or now) to the end of the
    current day (hour for hours and minutes), granularity = the unit."""
    small = unit in ("minute", "hour")
    step = unit if small else "day"
    now = cal.unit_at(ref, step, 0)
    if sign < 0:
        if small:
            start = cal.unit_at(ref, unit, -count).start
        else:
            start = cal.days(zone(ref), cal.shift_date(ref.date(), -count, unit)).start
        return Interval(start, now.end, unit)
    if small:
        end = cal.unit_at(ref, unit, count).end
    else:
        end = cal.days(zone(ref), cal.shift_date(ref.date(), count, unit)).end
    return Interval(now.start, end, unit)


def period_of_month(ref: datetime, year: int, month: int, part: str) -> Interval:
    """Early / mid / late thirds of a month (days 1-10, 11-20, 21-end)."""
    return cal.month_part(zone(ref), year, month, part)


def earlier_later(ref: datetime, unit: str, later: bool) -> Interval:
    """ "earlier this week" = from the unit's start to today; "later this week" = from tomorrow
    to the unit's end. Falls back to the whole unit when that is empty."""
    whole = cal.unit_at(ref, unit, 0)
    today = cal.unit_at(ref, "day", 0)
    part = Interval(today.end, whole.end, unit) if later else Interval(whole.start, today.start, unit)
    return part if part.start < part.end else whole
