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
    """``day`` moved by ``count`` days, weeks, months or years (month ends are clamped)."""
    if unit == "day":
        return day + timedelta(days=count)
    if unit in ("week", "weekend"):
        return day + timedelta(weeks=count)
    if unit == "month":
        new_year, new_month = add_months(day.year, day.month, count)
    else:
        new_year, new_month = day.year + count, day.month
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
    return year(tz, day.year)


def span(first: Interval, last: Interval, granularity: str | None = None) -> Interval:
    """From the start of ``first`` to the end of ``last``."""
    return Interval(first.start, last.end, granularity or first.granularity)


def hours(tz: tzinfo, day: date, start_hour: int, end_hour: int) -> Interval:
    """A part of the day: ``start_hour`` to ``end_hour`` (values over 24 reach the next day)."""
    return Interval(local(tz, day, start_hour), local(tz, day, end_hour), "part_of_day")


def clock(tz: tzinfo, day: date, hour: int, minute: int) -> Interval:
    """One minute if ``minute`` is set, else the whole hour; ``hour`` may exceed 23."""
    start = local(tz, day, hour, minute)
    if minute:
        return Interval(start, later(start, timedelta(minutes=1)), "minute")
    return Interval(start, later(start, timedelta(hours=1)), "hour")


def month_part(tz: tzinfo, year_no: int, month_no: int, part: str) -> Interval:
    """Early (days 1-10), mid (11-20) or late (21-end) part of a month, granularity "week"."""
    first = {"early": 1, "mid": 11, "late": 21}[part]
    if part == "late":
        end = month(tz, year_no, month_no).end
    else:
        end = local(tz, date(year_no, month_no, first + 10))
    return Interval(local(tz, date(year_no, month_no, first)), end, "week")


def year_part(tz: tzinfo, year_no: int, part: str, narrow: bool) -> Interval:
    """Part of a year: narrow = January / June-July / December (granularity "month");
    broad = thirds Jan-Apr / May-Aug / Sep-Dec (granularity "season")."""
    if narrow:
        first, count = {"early": (1, 1), "mid": (6, 2), "late": (12, 1)}[part]
        return months(tz, year_no, first, count, "month")
    first = {"early": 1, "mid": 5, "late": 9}[part]
    return months(tz, year_no, first, 4, "season")


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
