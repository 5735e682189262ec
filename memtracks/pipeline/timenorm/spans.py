"""Ranges and open bounds (passes 5 and 7 of compose.py): one interval between two times
("from X to Y", X到Y), or reaching beyond one ("before 2018", 2015年以后)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import timedelta

from memtracks.pipeline.timenorm import calendar as cal
from memtracks.pipeline.timenorm import resolve as rv
from memtracks.pipeline.timenorm.calendar import Interval
from memtracks.pipeline.timenorm.engine import Context, Floating, Found

# Every granularity a mention can have (a bare duration is "duration"), finest first.
GRANULARITIES = (
    "second",
    "minute",
    "hour",
    "part_of_day",
    "day",
    "weekend",
    "week",
    "month",
    "quarter",
    "season",
    "half_year",
    "year",
    "decade",
    "century",
)


@dataclass(frozen=True)
class Connectors:
    """Compiled connector patterns of one language (built from its lexicon)."""

    year_gap: re.Pattern[str]  # between a date and the year lent to it
    year_first: bool  # the year may come first (明年九月, "2017 april")
    selector_gap: re.Pattern[str]  # between a selector and its period
    selector_after: bool  # Chinese: the selector follows the period (十月的第一周)
    offset_gap: re.Pattern[str]
    week_gap: re.Pattern[str]
    range_open: re.Pattern[str]  # "from" / "between" / 从, ending where the first unit starts
    range_infix: re.Pattern[str]
    pair_infix: re.Pattern[str]  # the infix after "between" ("and")
    range_close: re.Pattern[str]  # after the second unit: 之间
    list_gap: re.Pattern[str]  # between listed days: "June 18th or the 19th", 6月18日和19日
    length_gap: re.Pattern[str]
    bound_prefix: re.Pattern[str]  # named groups: the bound kinds
    bound_suffix: re.Pattern[str]
    bound_paired: re.Pattern[str]  # a prefix that counts only with a suffix: 从…起, "from X onwards"


# -- 5. ranges --------------------------------------------------------------------------------


def ranges(units: list[Found], ctx: Context, conn: Connectors) -> list[Found]:
    text = ctx.text
    out: list[Found] = []
    for unit in units:
        if out and (joined := _range(out[-1], unit, text, conn, ctx, out[-2].span[1] if len(out) > 1 else 0)):
            out[-1] = joined
        else:
            out.append(unit)
    return out


def _range(a: Found, b: Found, text: str, conn: Connectors, ctx: Context, floor: int) -> Found | None:
    if any(u.piece.selector is not None and u.piece.selector.unit != "day" for u in (a, b)):
        return None
    gap = text[a.span[1] : b.span[0]]
    opener = conn.range_open.search(text, floor, a.span[0])
    between = opener is not None and opener.groupdict().get("pair") is not None
    close = conn.range_close.match(text, b.span[1])
    paired = conn.pair_infix.fullmatch(gap) is not None and (between or close is not None)
    if not paired and conn.range_infix.fullmatch(gap) is None:
        return None
    if (
        (a.point or b.point)
        and not (a.point and b.point)
        and not (a.piece.point or b.piece.point)  # "between Jan 2019 and now" is one range
        and max(GRANULARITIES.index(a.interval.granularity), GRANULARITIES.index(b.interval.granularity))
        >= GRANULARITIES.index("week")
    ):
        return None  # "3pm - this week" is two times
    left, right = _range_ends(a, b, ctx)
    if left is None or right is None:
        return None
    (first, first_unit), (last, last_unit) = left, right
    first, last = _now_as_day(first, first_unit, last_unit, ctx), _now_as_day(last, last_unit, first_unit, ctx)
    if last_unit.point and last_unit.piece.day is None and first_unit.point and not last_unit.piece.point:
        last = _clock_after(first, last, last_unit)
    end = last.start if last_unit.point else last.end
    if end <= first.start:
        return None
    grain = min(first.granularity, last.granularity, key=GRANULARITIES.index)
    start_at = opener.start() if opener else a.span[0]
    end_at = close.end() if close else b.span[1]
    span = (start_at, end_at)
    piece = replace(a.piece, span=span, floating=None, selector=None, alone=None, weekday=None)
    return Found(
        span,
        Interval(first.start, end, grain),
        min(a.confidence, b.confidence),
        a.lang,
        piece,
        True,
        a.approximate or b.approximate,
    )


def _range_ends(
    a: Found, b: Found, ctx: Context
) -> tuple[tuple[Interval, Found] | None, tuple[Interval, Found] | None]:
    """Both ends, the year (and month) of an end said without them taken from the other."""
    fa, fb = a.piece.floating, b.piece.floating
    ia, ib = a.interval, b.interval
    if b.piece.selector is not None:  # "April 9th through 17th": the month of the left end
        if fa is None or a.piece.selector is not None:
            return None, None
        later = 1 if (b.piece.selector.index or 1) < ia.start.day else 0  # "April 27th to the 3rd": May 3
        fb = _dom_floating(b, ia.start.month, later, fa, ctx)
    elif a.piece.selector is not None:  # "from the 9th till the 17th of April"
        if fb is None:
            return None, None
        earlier = -1 if (a.piece.selector.index or 1) > ib.start.day else 0
        fa = _dom_floating(a, ib.start.month, earlier, fb, ctx)
    if fa and fb:  # both without a year: the range as a whole follows the year rule

        def whole(year: int) -> Interval | None:
            x = fa.build(year)
            if x is None:
                return None
            y = next((iv for yy in (year, year + 1) if (iv := fb.build(yy)) and iv.end > x.start), None)
            return Interval(x.start, y.end, x.granularity) if y else None

        found = rv.occurrence(ctx.ref, whole, fa.mode or fb.mode)
        if found is None:
            return None, None
        ia = rv.build_in(fa.build, found.start.year) or ia
        ib = next((iv for yy in (ia.start.year, ia.start.year + 1) if (iv := fb.build(yy)) and iv.end > ia.start), ib)
    elif fa:  # "from May to Oct 2020": the latest such start not after the end
        ia = next((iv for yy in (ib.start.year, ib.start.year - 1) if (iv := fa.build(yy)) and iv.start < ib.end), ia)
    elif fb:  # "from 2019-05-01 to May 7": the first such end not before the start
        ib = next((iv for yy in (ia.start.year, ia.start.year + 1) if (iv := fb.build(yy)) and iv.end > ia.start), ib)
    if b.piece.weekday is not None:  # "from next monday to friday": the friday after it
        while ib.start < ia.start:
            ib = Interval(ib.start + timedelta(weeks=1), ib.end + timedelta(weeks=1), ib.granularity)
    return (ia, a), (ib, b)


def _clock_after(first: Interval, last: Interval, unit: Found) -> Interval:
    """The end of "下午5:00到6:00", "from 2pm till 4": a clock said without its day or part of
    day is on the start's day, at the first reading after the start (6:00 -> 18:00)."""
    clock = unit.piece.clock
    bare = clock is not None and clock.meridiem is None and unit.piece.part is None and clock.hour <= 12
    day_shift = first.start.date() - last.start.date()
    steps = (0, 12, 24) if bare else (0, 24)
    for hours in steps:
        delta = day_shift + timedelta(hours=hours)
        if last.start + delta > first.start:
            return Interval(last.start + delta, last.end + delta, last.granularity)
    return last


def _now_as_day(iv: Interval, unit: Found, other: Found, ctx: Context) -> Interval:
    """ "between Jan 2019 and now": next to a day or a longer period, "now" is today."""
    if (
        unit.piece.point
        and unit.interval.granularity == "second"
        and other.interval.granularity not in ("second", "minute", "hour", "part_of_day")
    ):
        return cal.Interval(cal.local(ctx.tz, ctx.today), cal.local(ctx.tz, ctx.today), "day")
    return iv


def _dom_floating(u: Found, month: int, shift: int, other: Floating, ctx: Context) -> Floating:
    """A bare day of the month in a range, in the month of the other end (``shift`` months
    away), following the other end's year."""
    assert u.piece.selector is not None
    day = u.piece.selector.index or 1

    def build(year: int) -> Interval | None:
        y, m = cal.add_months(year, month, shift)
        found = rv.safe_date(y, m, day)
        return cal.days(ctx.tz, found) if found else None

    return Floating(build, other.mode)


# -- 7. open bounds ---------------------------------------------------------------------------


def bounds(units: list[Found], ctx: Context, conn: Connectors) -> list[Found]:
    text = ctx.text
    out: list[Found] = []
    floor = 0
    for i, u in enumerate(units):
        following = units[i + 1].span[0] if i + 1 < len(units) else None
        if _boundable(u):
            bounded = _bounded(u, text, conn, floor, following)
            day = out[-1] if out else None
            if bounded is not u and day is not None and on_day(day, bounded, u, text):
                bounded = moved_to(day, bounded, u, ctx)  # "tomorrow before 5pm"
                out.pop()
            u = bounded
        floor = u.span[1]
        out.append(u)
    return out


def _boundable(u: Found) -> bool:
    """Strong units, and weak ones a bound makes a time: "later than 2020", "before lunch".
    Not offsets from the reference: 半年前开始学画画 is "started half a year ago"."""
    if u.unbounded is not None or u.duration is not None or u.approximate:
        return False
    return u.strong or u.piece.year is not None or (u.piece.part is not None and u.piece.day is None)


def _bounded(u: Found, text: str, conn: Connectors, floor: int, following: int | None) -> Found:
    before = conn.bound_prefix.search(text, floor, u.span[0])
    after = conn.bound_suffix.match(text, u.span[1])
    if after is not None and following is not None and not text[after.end() : following].strip():
        after = None  # "from 2010 to 2018 or before 2000": the "before" is 2000's
    if before is None and after is not None:
        before = conn.bound_paired.search(text, floor, u.span[0])
    found = before or after
    if found is None:
        return u
    paired = before is not None and before.re is conn.bound_paired
    kind = (after.lastgroup if paired and after else found.lastgroup) or ""
    iv = u.interval
    point = u.point or iv.granularity == "day"
    if kind == "before":
        side, edge = "start", iv.end if u.piece.tail else iv.start
    elif kind == "on_or_before":
        side, edge = "start", iv.start if point else iv.end
    elif kind == "after":
        side, edge = "end", iv.start if point else iv.end
    else:  # since, on_or_after
        side, edge = "end", iv.start
    span = (found.start(), u.span[1]) if before else (u.span[0], found.end())
    if before and after is not None and (after.lastgroup == kind or paired):
        span = (found.start(), after.end())  # 自2018年以来, 从2016年3月1日开始, "from 2019 onwards"
    return replace(u, span=span, interval=rv.open_interval(iv, side, edge), unbounded=side, strong=True)


def on_day(day: Found, bounded: Found, clock: Found, text: str) -> bool:
    """A day right before "before 5pm" / "after 2:00" sets the clock's day."""
    return (
        day.strong
        and day.unbounded is None
        and day.interval.granularity == "day"
        and clock.point
        and clock.piece.day is None
        and not text[day.span[1] : bounded.span[0]].strip(" ,")
    )


def moved_to(day: Found, bounded: Found, clock: Found, ctx: Context) -> Found:
    shift = day.interval.start.date() - ctx.today
    iv = bounded.interval
    moved = Interval(iv.start + shift, iv.end + shift, iv.granularity)
    return replace(
        bounded, span=(day.span[0], bounded.span[1]), interval=moved, confidence=min(day.confidence, bounded.confidence)
    )
