"""What time expressions mean, independent of the language they were said in.

A *mode* says which occurrence of a weekday, month, date, weekend or season is meant:

* an int: a fixed shift in weeks/years/seasons ("last" -1, "this" 0, "next" 1, 上上 -2);
* "future": the next occurrence not yet over (a plan, a deadline, a start date, future tense,
  "moved to", 改到, 入职 ... near the mention);
* "past": the latest occurrence already begun (narration: past tense, 了, 已经);
* None: no cue. A weekday: the one in the current week; a date or month without its year:
  the nearest occurrence.
"""

from __future__ import annotations

from calendar import monthrange
from collections.abc import Callable
from datetime import date, datetime, timedelta, tzinfo

from memtracks.pipeline.timenorm import calendar as cal
from memtracks.pipeline.timenorm.calendar import Interval
from memtracks.pipeline.timenorm.engine import Mode

# Confidence by kind of expression.
ABSOLUTE = 0.95  # a full date or month with its year
INFERRED_YEAR = 0.85  # a date without its year
RELATIVE = 0.9  # today, 昨天, last week, three days ago, next Wednesday
TENSE_GUESS = 0.8  # bare weekday / month / weekend resolved by a tense cue
NO_CUE = 0.7  # bare weekday / month with no tense cue
FUZZY = 0.8  # end of the month, seasons, "the past two weeks"
APPROXIMATE = 0.7  # fractional amounts: "half a year ago", 一个半月前
WEAK = 0.6  # a part of the day on its own ("in the morning"), a bare day of the month

# An open side of "before 2018" / "since March" is this far from the known one.
OPEN_YEARS = 100


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
    if 1 <= year <= 9999 and 1 <= month <= 12 and 1 <= day <= monthrange(year, month)[1]:
        return date(year, month, day)
    return None


def occurrence(ref: datetime, build: Callable[[int], Interval | None], mode: Mode) -> Interval | None:
    """The year rule for a date, month or date range said without its year.

    ``build(year)`` is the interval in a given year. "future": the first occurrence not yet
    over; "past": the latest already begun; None: the nearest (the one containing the
    reference, else the closer one; a tie goes to the future). Years up to four away are tried,
    so February 29 finds a leap year.
    """
    moment = ref.timestamp()
    candidates = [iv for year in range(ref.year - 4, ref.year + 5) if (iv := build_in(build, year))]
    if not candidates:
        return None
    if mode == "future":
        return next((iv for iv in candidates if iv.end.timestamp() > moment), candidates[-1])
    if mode == "past":
        return next((iv for iv in reversed(candidates) if iv.start.timestamp() <= moment), candidates[0])
    return min(candidates, key=lambda iv: (_gap(iv, moment), -iv.start.timestamp()))


def build_in(build: Callable[[int], Interval | None], year: int) -> Interval | None:
    """``build(year)``, or None where that year cannot hold it."""
    try:
        return build(year)
    except (ValueError, OverflowError):
        return None


def _gap(iv: Interval, moment: float) -> float:
    if iv.start.timestamp() <= moment < iv.end.timestamp():
        return 0.0
    return min(abs(iv.start.timestamp() - moment), abs(iv.end.timestamp() - moment))


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


def year_for_month(today: date, month: int, shift: int) -> int:
    """Year of "last / this / next <month>": -1 = the latest strictly before the current
    month, +1 = the first strictly after it, 0 = this year's."""
    if shift < 0:
        return today.year if month < today.month else today.year - 1
    if shift > 0:
        return today.year if month > today.month else today.year + 1
    return today.year


def month_for_day(today: date, day: int, mode: Mode) -> tuple[int, int]:
    """(year, month) of a day of the month said alone (15号, "the 17th"): this month unless
    the tense says it already passed ("past" and day > today) or is still to come ("future"
    and day < today)."""
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
    "decade": ("year", 10.0),
    "year": ("month", 12.0),
    "half_year": ("month", 6.0),
    "quarter": ("month", 3.0),
    "month": ("day", 30.0),
    "week": ("day", 7.0),
    "weekend": ("day", 7.0),
    "day": ("hour", 24.0),
    "hour": ("minute", 60.0),
    "minute": ("second", 60.0),
}


def whole_units(amount: float, unit: str) -> tuple[int, str]:
    """``amount`` of ``unit`` as a whole count, moving to a smaller unit for fractions."""
    while amount != int(amount) and unit in _FRACTION:
        unit, factor = _FRACTION[unit][0], _FRACTION[unit][1]
        amount *= factor
    return round(amount), unit


def moved(moment: datetime, count: int, unit: str) -> datetime:
    """``moment`` moved by ``count`` units: wall-clock days, weeks, months, years (month ends
    clamped); elapsed hours, minutes, seconds."""
    if unit in ("hour", "minute", "second"):
        return cal.later(moment, timedelta(**{unit + "s": count}))
    if unit == "half_year":
        count, unit = count * 6, "month"
    day = cal.shift_date(moment.date(), count, unit)
    return moment.replace(year=day.year, month=day.month, day=day.day)


def offset_interval(
    ref: datetime, unit: str, low: float, high: float, sign: int, more: tuple[tuple[int, str], ...] = ()
) -> Interval:
    """ "3 weeks ago", 两周后, "in 2 hours": the day (the minute for hours and minutes) that
    ``low``..``high`` units before (sign -1) or after (+1) the reference land on. Vague
    amounts ("a few days ago") cover every day from ``low`` to ``high`` units away; ``more``
    are further parts ("2 weeks and 2 days ago")."""
    first, first_unit = whole_units(low, unit)
    last, last_unit = whole_units(high, unit)
    a, b = moved(ref, sign * first, first_unit), moved(ref, sign * last, last_unit)
    for count, extra in more:
        a, b = moved(a, sign * count, extra), moved(b, sign * count, extra)
        first_unit = extra if extra in ("hour", "minute", "second") else first_unit
    a, b = min(a, b), max(a, b)
    if first_unit in ("hour", "minute", "second"):  # the minute from that instant on
        start, final = a.replace(microsecond=0), b.replace(microsecond=0)
        return Interval(start, cal.later(final, timedelta(minutes=1)), "minute")
    tz = zone(ref)
    return Interval(cal.local(tz, a.date()), cal.days(tz, b.date()).end, "day")


def shifted_day(tz: tzinfo, day: date, count: float, unit: str, sign: int) -> Interval:
    """ "3 days after January 12th", "2 weeks before Christmas": the day ``count`` units from
    ``day``."""
    whole, unit = whole_units(count, unit)
    moment = cal.local(tz, day)
    return cal.days(tz, moved(moment, sign * whole, unit).date())


def range_interval(ref: datetime, unit: str, count: int, sign: int, within: bool = False) -> Interval:
    """ "the past / next ``count`` units": whole units before the current one (after it, for
    next): "the last 3 days" = the 3 days before today, "the next 2 weeks" = the 14 days after
    today, "the past 2 quarters" = the two quarters before this one. Hours and minutes count
    from the reference itself. ``within`` ("within 9 months") starts today instead of
    tomorrow."""
    tz = zone(ref)
    if unit in ("hour", "minute", "second"):
        other = moved(ref, sign * count, unit)
        start, end = (other, ref) if sign < 0 else (ref, other)
        return Interval(start.replace(microsecond=0), end.replace(microsecond=0), unit)
    if unit in ("quarter", "decade", "half_year"):
        current = cal.unit_at(ref, unit if unit != "half_year" else "quarter", 0)
        if unit == "half_year":
            count, unit = count * 2, "quarter"
        if sign < 0:
            return Interval(cal.unit_at(ref, unit, -count).start, current.start, unit)
        return Interval(current.end, cal.unit_at(ref, unit, count).end, unit)
    today = ref.date()
    if sign < 0:
        return Interval(cal.local(tz, cal.shift_date(today, -count, unit)), cal.local(tz, today), unit)
    first = today if within else today + timedelta(days=1)
    return Interval(cal.local(tz, first), cal.local(tz, cal.shift_date(first, count, unit)), unit)


def period_of_month(ref: datetime, year: int, month: int, part: str, thirds: bool = False) -> Interval:
    """Early / mid / late part of a month (see calendar.month_part)."""
    return cal.month_part(zone(ref), year, month, part, thirds)


def part_of_unit(ref: datetime, unit: str, shift: int, part: str, narrow: bool = False) -> Interval:
    """ "the end of the week", "early next month", "late this year", 月底, 年初."""
    tz = zone(ref)
    day = cal.shift_date(ref.date(), shift, unit)
    if unit == "week":
        return cal.week_part(tz, day, part)
    if unit == "month":
        return cal.month_part(tz, day.year, day.month, part)
    return cal.year_part(tz, day.year, part, narrow)


def earlier_later(ref: datetime, unit: str, shift: int, later: bool) -> Interval:
    """ "earlier this week" = from the week's start to the earlier of today and its middle;
    "later this month" = from the later of today and the month's middle to its end. The middle
    of a week is Thursday, of a month the 16th, of a year July 1."""
    tz = zone(ref)
    whole = cal.unit_at(ref, unit, shift)
    first = whole.start.date()
    if unit == "week":
        middle = first + timedelta(days=3)
    elif unit == "month":
        middle = first.replace(day=16)
    else:
        middle = first.replace(month=7)
    today = ref.date()
    if later:
        start = max(middle, today) if shift == 0 else middle
        return Interval(cal.local(tz, start), whole.end, unit if unit != "year" else "season")
    end = min(middle, today) if shift == 0 else middle
    if end <= first:
        end = middle
    return Interval(whole.start, cal.local(tz, end), unit if unit != "year" else "season")


def open_interval(known: Interval, side: str, edge: datetime) -> Interval:
    """``(-inf, edge)`` (side "start": the start is open) or ``[edge, +inf)`` (side "end"),
    the open side ``OPEN_YEARS`` away."""
    far = _years_away(edge, -OPEN_YEARS if side == "start" else OPEN_YEARS)
    return Interval(far, edge, known.granularity) if side == "start" else Interval(edge, far, known.granularity)


def _years_away(moment: datetime, years: int) -> datetime:
    year = min(9999, max(1, moment.year + years))
    return moment.replace(year=year, day=min(moment.day, monthrange(year, moment.month)[1]))
