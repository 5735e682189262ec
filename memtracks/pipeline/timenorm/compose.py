"""Units combined across connector words (the third pass; see engine.py).

In order, each pass looking at neighbouring units and the text between them:

1. a year lent to a date, month or range said without one: "28 June in 2020", "2017 april",
   明年九月;
2. a part picked out of a period: "the first Tuesday of October", "the last week of July",
   "the 15th day of next month", 十月的第一周, 去年的前10天;
3. offsets from an anchor: "3 days after January 12th", "two weeks before Christmas";
4. a weekday in the week of a unit: "1st week of Oct. on Friday", "Monday two weeks from now";
5. ranges (spans.py), one interval covering both ends: "from X to Y", "between X and Y", "X-Y", X到Y,
   X和Y之间. The end is included (memtracks reads "July 13-15" as three days; Recognizers
   ends ranges at the start of the last named day), except a clock time or "now", which ends
   the range at its own instant ("5 to 6pm" ends at 18:00); then a bare day listed next to a
   date is a day of that date's month: "June 18th or the 19th", "the 18th and 19th of June",
   6月18日和19日 (two mentions);
6. a length from an anchor: "for 3 days from today", "2 weeks starting May 20th";
7. open bounds (spans.py): "before 2018", "since March", "2015年以后", "1/1/2016 and later". A day or
   a clock time counts as a point: "after January 1" starts on January 1, "after 2018" on
   January 1, 2019; "before" / "until" / "by" end at the anchor's start ("before the end of
   the month", 月底之前: at the month's end).

A weak unit (a bare day of the month, "the first week of", "for two weeks") that nothing
composed with is dropped, unless it has an interval of its own to fall back on.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from typing import Any

from memtracks.pipeline.timenorm import calendar as cal
from memtracks.pipeline.timenorm import resolve as rv
from memtracks.pipeline.timenorm.calendar import Interval
from memtracks.pipeline.timenorm.engine import Context, Floating, Found, Selector, representable
from memtracks.pipeline.timenorm.spans import Connectors, bounds, moved_to, on_day, ranges


def compose(units: list[Found], ctx: Context, conn: Connectors) -> list[Found]:
    """All passes, then the weak units left alone dropped (or given their own interval)."""
    for step in (
        _lend_years,
        _dated,
        _select_parts,
        _anchor_offsets,
        _weekday_in_week,
        ranges,
        _listed_days,
        _lengths,
        _on_days,
        bounds,
    ):
        units = step(units, ctx, conn)
    out = []
    for u in units:
        if u.strong:
            out.append(u)
        elif u.piece.alone is not None:
            out.append(replace(u, interval=u.piece.alone, strong=True))
        elif u.piece.length is not None and (duration := representable(_as_duration, u, ctx)) is not None:
            out.append(duration)  # "for 99999 years" reaches past the calendar: no time
    return out


Combine = Callable[[Found, Found, str], Found | None]


def _pairwise(units: list[Found], text: str, combine: Combine) -> list[Found]:
    out: list[Found] = []
    for unit in units:
        if out:
            joined = representable(combine, out[-1], unit, text[out[-1].span[1] : unit.span[0]])  # or past the calendar
            if joined is not None:
                out[-1] = joined
                continue
        out.append(unit)
    return out


def _listed_days(units: list[Found], ctx: Context, conn: Connectors) -> list[Found]:
    """A bare day of the month (a weak day selector) listed next to a one-day date takes that
    date's month: left to right ("June 18th, 19th or 20th"), then right to left ("the 18th and
    19th of June")."""
    out = list(units)
    for order in (range(1, len(out)), range(len(out) - 2, -1, -1)):
        for i in order:
            j = i - 1 if order.step == 1 else i + 1
            near, bare = out[j], out[i]
            gap = ctx.text[min(near.span[1], bare.span[1]) : max(near.span[0], bare.span[0])]
            if _is_bare_day(bare) and _is_one_day(near) and conn.list_gap.fullmatch(gap):
                out[i] = _in_month_of(bare, near, ctx) or bare
    return out


def _is_bare_day(u: Found) -> bool:
    sel = u.piece.selector
    return not u.strong and sel is not None and sel.unit == "day" and sel.index is not None and sel.index > 0


def _is_one_day(u: Found) -> bool:
    iv = u.interval
    return u.strong and iv.granularity == "day" and iv.end - iv.start <= timedelta(hours=25)


def _in_month_of(bare: Found, date: Found, ctx: Context) -> Found | None:
    assert bare.piece.selector is not None and bare.piece.selector.index is not None
    start = date.interval.start
    day = rv.safe_date(start.year, start.month, bare.piece.selector.index)
    if day is None:
        return None
    piece = replace(bare.piece, selector=None, alone=None, floating=None)
    return replace(bare, interval=cal.days(ctx.tz, day), piece=piece, strong=True, confidence=date.confidence)


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
        if gap.strip(" ,") or not on_day(a, b, b, ctx.text):
            return None
        return moved_to(a, b, b, ctx)

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
