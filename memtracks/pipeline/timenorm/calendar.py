"""Interval arithmetic on local wall-clock time.

Every interval is ``[start, end)`` built from *local* calendar values (a date, an hour) and then
attached to the reference's tzinfo, so a day always runs from local midnight to the next local
midnight, even across a DST change. Weeks start on Monday (ISO).
"""

from __future__ import annotations

from calendar import monthrange
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo


@dataclass(frozen=True)
class Interval:
    """A resolved time: ``[start, end)`` with a granularity name."""

    start: datetime
    end: datetime
    granularity: str


def local(tz: tzinfo, day: date, hour: int = 0, minute: int = 0) -> datetime:
    """Aware datetime for wall-clock ``day hour:minute`` in ``tz``; hours past 23 roll over.

    A wall time skipped by a DST change (02:30 on a spring-forward night) becomes the real
    instant it names, shown in the new offset (03:30).
    """
    naive = datetime(day.year, day.month, day.day) + timedelta(hours=hour, minutes=minute)
    localize = getattr(tz, "localize", None)  # pytz zones must be localized, not replaced
    if localize is not None:
        return tz.normalize(localize(naive))  # type: ignore[attr-defined]
    return naive.replace(tzinfo=tz).astimezone(UTC).astimezone(tz)


def later(moment: datetime, delta: timedelta) -> datetime:
    """``moment`` plus an elapsed ``delta`` (not wall-clock: an hour is 60 real minutes)."""
    assert moment.tzinfo is not None
    return (moment.astimezone(UTC) + delta).astimezone(moment.tzinfo)


def days(tz: tzinfo, first: date, count: int = 1, granularity: str = "day") -> Interval:
    """``count`` whole local days starting at ``first``."""
    return Interval(local(tz, first), local(tz, first + timedelta(days=count)), granularity)


def monday(day: date) -> date:
    """Monday of the ISO week containing ``day``."""
    return day - timedelta(days=day.weekday())


def week(tz: tzinfo, day: date) -> Interval:
    """The Monday-to-Monday week containing ``day``."""
    return days(tz, monday(day), 7, "week")


def weekend(tz: tzinfo, day: date) -> Interval:
    """Saturday 00:00 to Monday 00:00 of the week containing ``day``."""
    return days(tz, monday(day) + timedelta(days=5), 2, "weekend")


def add_months(year: int, month: int, count: int) -> tuple[int, int]:
    """(year, month) ``count`` months after the given month (negative goes back)."""
    index = year * 12 + (month - 1) + count
    return index // 12, index % 12 + 1


def month(tz: tzinfo, year: int, month_no: int) -> Interval:
    """The whole calendar month."""
    next_year, next_month = add_months(year, month_no, 1)
    return Interval(local(tz, date(year, month_no, 1)), local(tz, date(next_year, next_month, 1)), "month")


def months(tz: tzinfo, year: int, first: int, count: int, granularity: str) -> Interval:
    """``count`` months starting with ``first`` of ``year``."""
    end_year, end_month = add_months(year, first, count)
    return Interval(local(tz, date(year, first, 1)), local(tz, date(end_year, end_month, 1)), granularity)


def year(tz: tzinfo, year_no: int) -> Interval:
    """The whole calendar year."""
    return Interval(local(tz, date(year_no, 1, 1)), local(tz, date(year_no + 1, 1, 1)), "year")


def shift_date(day: date, count: int, unit: str) -> date:
    """``day`` moved by ``count`` days, weeks, months, quarters, years or decades (month ends
    are clamped)."""
    if unit == "day":
        return day + timedelta(days=count)
    if unit in ("week", "weekend"):
        return day + timedelta(weeks=count)
    if unit in ("month", "quarter"):
        new_year, new_month = add_months(day.year, day.month, count * (3 if unit == "quarter" else 1))
    else:
        new_year, new_month = day.year + count * (10 if unit == "decade" else 1), day.month
    return date(new_year, new_month, min(day.day, monthrange(new_year, new_month)[1]))


def unit_at(ref: datetime, unit: str, count: int) -> Interval:
    """The calendar ``unit`` (minute … year) containing ``ref`` moved by ``count`` units."""
    tz = ref.tzinfo
    assert tz is not None
    if unit in ("minute", "hour"):
        step = timedelta(**{unit + "s": 1})
        moved = later(ref, step * count)
        start = moved.replace(second=0, microsecond=0, minute=moved.minute * (unit == "minute"))
        return Interval(start, later(start, step), unit)
    day = shift_date(ref.date(), count, unit)
    if unit == "day":
        return days(tz, day)
    if unit == "week":
        return week(tz, day)
    if unit == "weekend":
        return weekend(tz, day)
    if unit == "month":
        return month(tz, day.year, day.month)
    if unit == "quarter":
        return quarter(tz, day.year, (day.month - 1) // 3 + 1)
    if unit == "decade":
        return decade(tz, day.year - day.year % 10)
    return year(tz, day.year)


def span(first: Interval, last: Interval, granularity: str | None = None) -> Interval:
    """From the start of ``first`` to the end of ``last``."""
    return Interval(first.start, last.end, granularity or first.granularity)


def hours(tz: tzinfo, day: date, start_hour: int, end_hour: int) -> Interval:
    """A part of the day: ``start_hour`` to ``end_hour`` (values over 24 reach the next day)."""
    return Interval(local(tz, day, start_hour), local(tz, day, end_hour), "part_of_day")


def clock(tz: tzinfo, day: date, hour: int, minute: int = 0, second: int = 0, grain: str | None = None) -> Interval:
    """One ``grain`` (second, minute or hour; by default minute if ``minute`` is set, else
    hour) from ``day hour:minute:second``; ``hour`` may exceed 23."""
    grain = grain or ("minute" if minute else "hour")
    start = local(tz, day, hour, minute) + timedelta(seconds=second)
    return Interval(start, later(start, timedelta(**{grain + "s": 1})), grain)


# Parts of a period (early / mid / late), as fractions of it. Months and weeks use Recognizers'
# windows (early = first half, mid = the middle, late = second half); a year is cut in thirds
# (Jan-Apr, May-Aug, Sep-Dec); Chinese 上旬 / 中旬 / 下旬 are exact thirds of a month.
_MONTH_PARTS = {"early": (1, 16), "mid": (10, 21), "late": (16, 32)}
_THIRDS = {"early": (1, 11), "mid": (11, 21), "late": (21, 32)}
_WEEK_PARTS = {"early": (0, 3), "mid": (1, 5), "late": (3, 7)}  # day offsets from Monday
_YEAR_PARTS = {"early": (1, 4), "mid": (5, 4), "late": (9, 4)}  # first month, months


def month_part(tz: tzinfo, year_no: int, month_no: int, part: str, thirds: bool = False) -> Interval:
    """Early / mid / late part of a month, granularity "week": days 1-15 / 10-20 / 16-end, or
    with ``thirds`` 1-10 / 11-20 / 21-end."""
    first, stop = (_THIRDS if thirds else _MONTH_PARTS)[part]
    start = local(tz, date(year_no, month_no, first))
    if stop > monthrange(year_no, month_no)[1]:
        end = month(tz, year_no, month_no).end
    else:
        end = local(tz, date(year_no, month_no, stop))
    return Interval(start, end, "week")


def week_part(tz: tzinfo, day: date, part: str) -> Interval:
    """Early (Mon-Wed), mid (Tue-Fri) or late (Thu-Sun) part of the week containing ``day``."""
    first, stop = _WEEK_PARTS[part]
    return Interval(
        local(tz, monday(day) + timedelta(days=first)), local(tz, monday(day) + timedelta(days=stop)), "week"
    )


def year_part(tz: tzinfo, year_no: int, part: str, narrow: bool = False) -> Interval:
    """Early / mid / late third of a year: Jan-Apr, May-Aug, Sep-Dec (granularity "season");
    ``narrow`` ("the end of the year", 年底): January / June-July / December ("month")."""
    if narrow:
        first, count = {"early": (1, 1), "mid": (6, 2), "late": (12, 1)}[part]
        return months(tz, year_no, first, count, "month")
    first, count = _YEAR_PARTS[part]
    return months(tz, year_no, first, count, "season")


def quarter(tz: tzinfo, year_no: int, number: int) -> Interval:
    """Calendar quarter 1-4 of ``year_no`` (granularity "quarter")."""
    return months(tz, year_no, 3 * (number - 1) + 1, 3, "quarter")


def half(tz: tzinfo, year_no: int, number: int) -> Interval:
    """First (1) or second (2) half of a year (granularity "half_year")."""
    return months(tz, year_no, 6 * (number - 1) + 1, 6, "half_year")


def decade(tz: tzinfo, first_year: int, years: int = 10) -> Interval:
    """The ``years`` (10: a decade, 100: a century) starting with ``first_year``."""
    return Interval(
        local(tz, date(first_year, 1, 1)),
        local(tz, date(first_year + years, 1, 1)),
        "decade" if years == 10 else "century",
    )


def weeks_of(first: date, last: date) -> list[date]:
    """Mondays of the weeks belonging to ``[first, last]``: a Monday-start week belongs to the
    month or year that holds its Thursday (the ISO rule; week 1 of 2021 starts on January 4)."""
    thursday = first + timedelta(days=(3 - first.weekday()) % 7)
    mondays = []
    while thursday <= last:
        mondays.append(thursday - timedelta(days=3))
        thursday += timedelta(weeks=1)
    return mondays


def nth_weekday(year_no: int, month_no: int, weekday: int, n: int) -> date | None:
    """The ``n``-th (1-based; -1 = last) ``weekday`` of a month, None if there is none."""
    first = date(year_no, month_no, 1)
    days_in = monthrange(year_no, month_no)[1]
    if n < 0:
        last = date(year_no, month_no, days_in)
        return last - timedelta(days=(last.weekday() - weekday) % 7 + 7 * (-n - 1))
    day = first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (n - 1))
    return day if day.month == month_no else None


def easter(year_no: int) -> date:
    """Western Easter Sunday (anonymous Gregorian algorithm)."""
    a, b, c = year_no % 19, year_no // 100, year_no % 100
    d, e = divmod(b, 4)
    g = (8 * b + 13) // 25
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    el = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * el) // 451
    month_no, day_no = divmod(h + el - 7 * m + 114, 31)
    return date(year_no, month_no, day_no + 1)


def season_index(day: date) -> int:
    """Running season number: year * 4 + (0 spring, 1 summer, 2 autumn, 3 winter).

    Seasons are meteorological, northern hemisphere: spring Mar-May, summer Jun-Aug, autumn
    Sep-Nov, winter Dec-Feb; January and February belong to the winter that began in December.
    """
    if day.month < 3:
        return (day.year - 1) * 4 + 3
    return day.year * 4 + day.month // 3 - 1


def season(tz: tzinfo, index: int) -> Interval:
    """The three months of season number ``index`` (see :func:`season_index`)."""
    return months(tz, index // 4, (index % 4 + 1) * 3, 3, "season")


def part_of(
    tz: tzinfo, whole: Interval, unit: str, index: int | None, count: int = 1, weekday: int | None = None
) -> Interval | None:
    """The part of ``whole`` named by ``unit`` ("day", "week", "weekday", "weekend", "month",
    "quarter", "half", "week_of", "weekend_of"), ``index`` (1-based, negative from the end)
    and ``count``; None if there is no such part."""
    first, last = whole.start.date(), (whole.end - timedelta(microseconds=1)).date()
    if unit == "day":
        start = _nth(first, last, index, count, timedelta(days=1))
        return days(tz, start, count) if start else None
    if unit == "week":
        mondays = weeks_of(first, last)
        index = (index or 1) - 1 if (index or 1) > 0 else len(mondays) + (index or 0) - count + 1
        if not 0 <= index <= len(mondays) - count:
            return None
        return days(tz, mondays[index], 7 * count, "week")
    if unit == "week_of":
        return week(tz, first)
    if unit == "weekend_of":
        return weekend_of(tz, first)
    if unit in ("weekday", "weekend"):
        weekday = 5 if unit == "weekend" else weekday
        if weekday is None or whole.granularity not in ("month", "week"):
            return None
        if whole.granularity == "week":
            return days(tz, first + timedelta(days=weekday))
        day = nth_weekday(first.year, first.month, weekday, index or 1)
        if day is None:
            return None
        return weekend(tz, day) if unit == "weekend" else days(tz, day)
    if unit in ("month", "quarter", "half"):
        if whole.granularity != "year":
            return None
        size = {"month": 1, "quarter": 3, "half": 6}[unit]
        index = (index or 1) if (index or 1) > 0 else 12 // size + (index or 0) - count + 2
        if not 1 <= index <= 12 // size - count + 1:
            return None
        grain = {"month": "month", "quarter": "quarter", "half": "half_year"}[unit]
        return months(tz, first.year, (index - 1) * size + 1, size * count, grain)
    return None


def _nth(first: date, last: date, index: int | None, count: int, step: timedelta) -> date | None:
    total = (last - first).days + 1
    index = index or 1
    offset = index - 1 if index > 0 else total + index - count + 1
    if not 0 <= offset <= total - count:
        return None
    return first + step * offset


def weekend_of(tz: tzinfo, day: date) -> Interval:
    """The weekend a holiday falls in or next to: Saturday-Monday of its week, stretched to
    take in the holiday itself (a Monday holiday: Saturday-Tuesday; Thanksgiving: Thursday on)."""
    if day.weekday() == 0:
        return days(tz, day - timedelta(days=2), 3, "weekend")
    saturday = monday(day) + timedelta(days=5)
    first = min(day, saturday)
    return days(tz, first, (saturday - first).days + 2, "weekend")


def next_to(tz: tzinfo, anchor: Interval, unit: str, sign: int, weekday: int | None) -> Interval | None:
    """The ``unit`` right before (sign -1) or after (+1) ``anchor``: "the Monday before July 24"
    (the latest Monday before it), "the week before X" (the seven days before), "the weekend
    after X", "the day / month / year before X"."""
    first = anchor.start.date()
    last = (anchor.end - timedelta(microseconds=1)).date()
    if unit == "weekday" and weekday is not None:
        if sign < 0:
            return days(tz, first - timedelta(days=(first.weekday() - weekday) % 7 or 7))
        return days(tz, last + timedelta(days=(weekday - last.weekday()) % 7 or 7))
    if unit == "day":
        return days(tz, first - timedelta(days=1) if sign < 0 else last + timedelta(days=1))
    if unit == "week":
        return (
            days(tz, first - timedelta(days=7), 7, "week")
            if sign < 0
            else days(tz, last + timedelta(days=1), 7, "week")
        )
    if unit == "weekend":
        if sign < 0:
            sunday = first - timedelta(days=(first.weekday() + 1) % 7 or 7)
            return days(tz, sunday - timedelta(days=1), 2, "weekend")
        saturday = last + timedelta(days=(5 - last.weekday()) % 7 or 7)
        return days(tz, saturday, 2, "weekend")
    if unit == "month":
        year_no, month_no = (
            add_months(first.year, first.month, -1) if sign < 0 else add_months(last.year, last.month, 1)
        )
        return month(tz, year_no, month_no)
    if unit == "year":
        return year(tz, first.year - 1 if sign < 0 else last.year + 1)
    return None
