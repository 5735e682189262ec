"""Units combined across connector words (the third pass; see engine.py).

In order, each pass looking at neighbouring units and the text between them:

1. a year lent to a date, month or range said without one: "28 June in 2020", "2017 april",
   明年九月;
2. a part picked out of a period: "the first Tuesday of October", "the last week of July",
   "the 15th day of next month", 十月的第一周, 去年的前10天;
3. offsets from an anchor: "3 days after January 12th", "two weeks before Christmas";
4. a weekday in the week of a unit: "1st week of Oct. on Friday", "Monday two weeks from now";
5. ranges, one interval covering both ends: "from X to Y", "between X and Y", "X-Y", X到Y,
   X和Y之间. The end is included (memtracks reads "July 13-15" as three days; Recognizers
   ends ranges at the start of the last named day), except a clock time or "now", which ends
   the range at its own instant ("5 to 6pm" ends at 18:00);
6. a length from an anchor: "for 3 days from today", "2 weeks starting May 20th";
7. open bounds: "before 2018", "since March", "2015年以后", "1/1/2016 and later". A day or
   a clock time counts as a point: "after January 1" starts on January 1, "after 2018" on
   January 1, 2019; "before" / "until" / "by" end at the anchor's start ("before the end of
   the month", 月底之前: at the month's end).

A weak unit (a bare day of the month, "the first week of", "for two weeks") that nothing
composed with is dropped, unless it has an interval of its own to fall back on.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from . import calendar as cal
from . import resolve as rv
from .calendar import Interval
from .engine import Context, Floating, Found, Selector

_GRAIN_ORDER = (
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
    length_gap: re.Pattern[str]
    bound_prefix: re.Pattern[str]  # named groups: the bound kinds
    bound_suffix: re.Pattern[str]
    bound_paired: re.Pattern[str]  # a prefix that counts only with a suffix: 从…起, "from X onwards"


def compose(units: list[Found], ctx: Context, conn: Connectors) -> list[Found]:
    """All passes, then the weak units left alone dropped (or given their own interval)."""
    for step in (
        _lend_years,
        _dated,
        _select_parts,
        _anchor_offsets,
        _weekday_in_week,
        _ranges,
        _lengths,
        _on_days,
        _bounds,
    ):
        units = step(units, ctx, conn)
    out = []
    for u in units:
        if u.strong:
            out.append(u)
        elif u.piece.alone is not None:
            out.append(replace(u, interval=u.piece.alone, strong=True))
        elif u.piece.length is not None:
            out.append(_as_duration(u, ctx))
    return out


Combine = Callable[[Found, Found, str], Found | None]


def _pairwise(units: list[Found], text: str, combine: Combine) -> list[Found]:
    out: list[Found] = []
    for unit in units:
        if out:
            joined = combine(out[-1], unit, text[out[-1].span[1] : unit.span[0]])
            if joined is not None:
                out[-1] = joined
                continue
        out.append(unit)
    return out


def _grown(
    a: Found,
    b: Found,
    interval: Interval,
    *,
    floating: Floating | None | object = ...,
    year: int | None | object = ...,
    weekday: int | None | object = ...,
    point: bool | object = ...,
    moved: bool | object = ...,
) -> Found:
    """``a`` grown over ``b`` with ``interval``; the piece fields given (not ``...``) are set."""
    span = (min(a.span[0], b.span[0]), max(a.span[1], b.span[1]))
    changes: dict[str, Any] = {"floating": floating, "year": year, "weekday": weekday, "point": point, "moved": moved}
    piece = replace(a.piece, span=span, selector=None, length=None, offset=None, alone=None)
    for name, value in changes.items():
        if value is not ...:
            piece = replace(piece, **{name: value})
    return replace(
        a,
        span=span,
        interval=interval,
        confidence=min(a.confidence, b.confidence),
        piece=piece,
        strong=True,
        approximate=a.approximate or b.approximate,
    )


# -- 1. years ---------------------------------------------------------------------------------


def _lend_years(units: list[Found], ctx: Context, conn: Connectors) -> list[Found]:
    def combine(a: Found, b: Found, gap: str) -> Found | None:
        if conn.year_gap.fullmatch(gap) is None:
            return None
        if a.piece.floating and b.piece.year is not None and b.interval.granularity == "year":
            dated, year = a, b.piece.year
        elif conn.year_first and a.piece.year is not None and b.piece.floating and a.interval.granularity == "year":
            dated, year = b, a.piece.year
        else:
            return None
        assert dated.piece.floating is not None
        interval = rv.build_in(dated.piece.floating.build, year)
        if interval is None:
            return None
        return _grown(a, b, interval, floating=None, year=year)

    return _pairwise(units, ctx.text, combine)


_DATE_GAP = re.compile(r"\s*[-,(]?\s*")
_SHIFTED_DATE = re.compile(r"\b(?P<w>this|next|last)\s+$", re.IGNORECASE)


def _dated(units: list[Found], ctx: Context, conn: Connectors) -> list[Found]:
    """ "this Friday 5/12", "Friday (Jun-15)": the date wins over the weekday next to it;
    "next 5/12" is next year's 5/12."""

    def combine(a: Found, b: Found, gap: str) -> Found | None:
        if a.piece.weekday is None or b.piece.weekday is not None or b.interval.granularity != "day":
            return None
        if not b.piece.floating and b.piece.day is None or _DATE_GAP.fullmatch(gap) is None:
            return None
        close = 1 if ctx.text[b.span[1] : b.span[1] + 1] == ")" and "(" in gap else 0
        grown = _grown(b, a, b.interval, weekday=None)
        return replace(
            grown, span=(a.span[0], b.span[1] + close), piece=replace(grown.piece, span=(a.span[0], b.span[1] + close))
        )

    units = _pairwise(units, ctx.text, combine)
    out = []
    for u in units:
        floating = u.piece.floating
        if floating and u.interval.granularity == "day" and u.piece.weekday is None:
            u = _this_year(u, floating, ctx)
        out.append(u)
    return out


def _this_year(u: Found, floating: Floating, ctx: Context) -> Found:
    """ "next 5/12" is next year's; "this 5/12" and "this friday 5/12" (a date pinned by a
    weekday of this week) this year's."""
    before = _SHIFTED_DATE.search(ctx.text, max(0, u.span[0] - 6), u.span[0])
    inside = re.match(r"(?:this|next|last|coming)\s", ctx.text[u.span[0] :], re.IGNORECASE)
    if before is None and inside is None:
        return u
    shift = {"this": 0, "next": 1, "last": -1}[before.group("w").lower()] if before else 0
    interval = rv.build_in(floating.build, ctx.today.year + shift)
    if interval is None:
        return u
    start = before.start() if before else u.span[0]
    return replace(u, span=(start, u.span[1]), interval=interval, piece=replace(u.piece, floating=None))


# -- 2. selectors -----------------------------------------------------------------------------


def _select_parts(units: list[Found], ctx: Context, conn: Connectors) -> list[Found]:
    def combine(a: Found, b: Found, gap: str) -> Found | None:
        chooser, period = (b, a) if conn.selector_after else (a, b)
        sel = chooser.piece.selector
        if sel is None or conn.selector_gap.fullmatch(gap) is None:
            return None
        inner = period.piece.selector
        if inner is not None and inner.unit == "day" and inner.count == 1 and sel.unit in ("week_of", "weekend_of"):
            year, month = rv.month_for_day(ctx.today, inner.index or 1, ctx.tense(period.span))
            day = rv.safe_date(year, month, inner.index or 1)  # "the week of the 18th"
            week = pick(cal.days(ctx.tz, day), sel, ctx) if day else None
            return _grown(a, b, week, floating=None) if week else None
        if inner is not None or not period.strong:
            return None
        floating = period.piece.floating
        if floating is not None:
            build = floating.build

            def picked(year: int) -> Interval | None:
                whole = build(year)
                return pick(whole, sel, ctx) if whole else None

            interval = rv.occurrence(ctx.ref, picked, floating.mode)
            keep = Floating(picked, floating.mode)
        else:
            interval, keep = pick(period.interval, sel, ctx), None
        if interval is None:
            return None
        return _grown(a, b, interval, floating=keep, year=None)

    return _pairwise(units, ctx.text, combine)


def pick(whole: Interval, sel: Selector, ctx: Context) -> Interval | None:
    """The part of ``whole`` that ``sel`` names (None if there is no such part)."""
    return cal.part_of(ctx.tz, whole, sel.unit, sel.index, sel.count, sel.weekday)


# -- 3. offsets from an anchor ----------------------------------------------------------------


def _anchor_offsets(units: list[Found], ctx: Context, conn: Connectors) -> list[Found]:
    def combine(a: Found, b: Found, gap: str) -> Found | None:
        if a.piece.neighbour is not None and b.strong and conn.offset_gap.fullmatch(gap):
            interval = cal.next_to(ctx.tz, b.interval, *a.piece.neighbour)
            return _grown(a, b, interval, floating=None, moved=False) if interval else None
        off = a.piece.offset
        if off is None or not b.strong or b.piece.offset is not None:
            return None
        if conn.offset_gap.fullmatch(gap) is None:
            return None
        low, high, unit, sign, mod = off
        if b.point or b.piece.point:  # "two weeks from now": about that day, as "in two weeks"
            interval = rv.offset_interval(b.interval.start, unit, low, high, sign)
            return replace(_grown(a, b, interval, point=False), approximate=True)
        interval = rv.shifted_day(ctx.tz, b.interval.start.date(), low, unit, sign)
        if high != low:
            other = rv.shifted_day(ctx.tz, b.interval.start.date(), high, unit, sign)
            interval = cal.span(
                min(interval, other, key=lambda i: i.start), max(interval, other, key=lambda i: i.start)
            )
        grown = _grown(a, b, interval, floating=None, moved=True)
        if mod == "more":  # "more than 2 weeks before today": open beyond that day
            side = "start" if sign < 0 else "end"
            return replace(grown, interval=rv.open_interval(interval, side, interval.start), unbounded=side)
        if mod == "less":  # "less than 3 days after tomorrow": between the anchor and that day
            edges = sorted((b.interval.start, interval.start))
            return replace(grown, interval=Interval(edges[0], edges[1], "day"))
        return grown

    return _pairwise(units, ctx.text, combine)


# -- 4. a weekday in the week of a unit -------------------------------------------------------


def _weekday_in_week(units: list[Found], ctx: Context, conn: Connectors) -> list[Found]:
    def combine(a: Found, b: Found, gap: str) -> Found | None:
        for wd, week in ((a, b), (b, a)):
            index = wd.piece.weekday
            if index is None or week.piece.weekday is not None or not week.strong:
                continue
            if week.interval.granularity != "week" and not (week.approximate or week.piece.moved):
                continue
            if conn.week_gap.fullmatch(gap) is None:
                return None
            day = cal.monday(week.interval.start.date()) + timedelta(days=index)
            return _grown(a, b, cal.days(ctx.tz, day), weekday=None, floating=None)
        return None

    return _pairwise(units, ctx.text, combine)


# -- 5. ranges --------------------------------------------------------------------------------


def _ranges(units: list[Found], ctx: Context, conn: Connectors) -> list[Found]:
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
        and max(_GRAIN_ORDER.index(a.interval.granularity), _GRAIN_ORDER.index(b.interval.granularity))
        >= _GRAIN_ORDER.index("week")
    ):
        return None  # "3pm - this week" is two times
    left, right = _range_ends(a, b, ctx)
    if left is None or right is None:
        return None
    (first, first_unit), (last, last_unit) = left, right
    first, last = _now_as_day(first, first_unit, last_unit, ctx), _now_as_day(last, last_unit, first_unit, ctx)
    if last_unit.point and last_unit.piece.day is None and first_unit.point:
        last = _clock_after(first, last, last_unit)
    end = last.start if last_unit.point else last.end
    if end <= first.start:
        return None
    grain = min(first.granularity, last.granularity, key=_GRAIN_ORDER.index)
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
        fb = _dom_floating(b, ia.start.month, 0, fa, ctx)
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


# -- 6. lengths from an anchor ----------------------------------------------------------------


def _lengths(units: list[Found], ctx: Context, conn: Connectors) -> list[Found]:
    def combine(a: Found, b: Found, gap: str) -> Found | None:
        for length, anchor in ((a, b), (b, a)):
            if length.piece.length is None or anchor.piece.length is not None:
                continue
            if anchor is a and not anchor.point and not gap.strip(" ,"):
                continue  # "on 14th Feb for 7 hours" says the day, not when the 7 hours start
            if not (anchor.strong or anchor.piece.clock is not None) or anchor.interval.granularity == "second":
                continue  # "for two years now" is a duration
            if conn.length_gap.fullmatch(gap) is None:
                return None
            amount, unit = length.piece.length
            count, unit = rv.whole_units(amount, unit)
            end = rv.moved(anchor.interval.start, count, unit)
            grown = _grown(
                a, b, Interval(anchor.interval.start, end, anchor.interval.granularity), floating=None, point=False
            )
            opener = _LENGTH_OPEN.search(ctx.text, max(0, a.span[0] - 20), a.span[0]) if anchor is a else None
            if opener is not None:  # "from 2pm for 2 hours": the "from" starts the range, no bound
                grown = replace(grown, span=(opener.start(), grown.span[1]))
            return grown
        return None

    return _pairwise(units, ctx.text, combine)


def _on_days(units: list[Found], ctx: Context, conn: Connectors) -> list[Found]:
    """A day right before a composed clock time sets its day ("14th Feb from 9:30am for 7 hours")."""

    def combine(a: Found, b: Found, gap: str) -> Found | None:
        if gap.strip(" ,") or not _on_day(a, b, b, ctx.text):
            return None
        return _moved_to(a, b, b, ctx)

    return _pairwise(units, ctx.text, combine)


_LENGTH_OPEN = re.compile(
    r"(?<![\w'])(?:from|starting(?:\s+(?:on|from|at))?|beginning(?:\s+on)?|从)\s*$", re.IGNORECASE
)


def _as_duration(u: Found, ctx: Context) -> Found:
    assert u.piece.length is not None
    amount, unit = u.piece.length
    count, unit = rv.whole_units(amount, unit)
    length = rv.moved(ctx.ref, count, unit) - ctx.ref
    return replace(u, interval=Interval(ctx.ref, ctx.ref, "duration"), strong=True, duration=length)


# -- 7. open bounds ---------------------------------------------------------------------------


def _bounds(units: list[Found], ctx: Context, conn: Connectors) -> list[Found]:
    text = ctx.text
    out: list[Found] = []
    floor = 0
    for i, u in enumerate(units):
        following = units[i + 1].span[0] if i + 1 < len(units) else None
        if _boundable(u):
            bounded = _bounded(u, text, conn, floor, following)
            day = out[-1] if out else None
            if bounded is not u and day is not None and _on_day(day, bounded, u, text):
                bounded = _moved_to(day, bounded, u, ctx)  # "tomorrow before 5pm"
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


def _on_day(day: Found, bounded: Found, clock: Found, text: str) -> bool:
    """A day right before "before 5pm" / "after 2:00" sets the clock's day."""
    return (
        day.strong
        and day.unbounded is None
        and day.interval.granularity == "day"
        and clock.point
        and clock.piece.day is None
        and not text[day.span[1] : bounded.span[0]].strip(" ,")
    )


def _moved_to(day: Found, bounded: Found, clock: Found, ctx: Context) -> Found:
    shift = day.interval.start.date() - ctx.today
    iv = bounded.interval
    moved = Interval(iv.start + shift, iv.end + shift, iv.granularity)
    return replace(
        bounded, span=(day.span[0], bounded.span[1]), interval=moved, confidence=min(day.confidence, bounded.confidence)
    )
