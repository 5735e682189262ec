"""English weekdays, holidays, seasons, parts of periods, quarters and decades (the rules
``English`` inherits): "next tues", "Friday 31", "Christmas", "last summer", "the end of next
month", "the first quarter of 2013", "the 90s".
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from memtracks.pipeline.timenorm import calendar as cal
from memtracks.pipeline.timenorm import pieces as pc
from memtracks.pipeline.timenorm import resolve as rv
from memtracks.pipeline.timenorm.common import Handler, key
from memtracks.pipeline.timenorm.engine import Context, Piece, phrase_span
from memtracks.pipeline.timenorm.english_relative import ORDINAL_SELECT, as_shift

DECADE_WORDS = {
    "twenties": 2,
    "thirties": 3,
    "forties": 4,
    "fifties": 5,
    "sixties": 6,
    "seventies": 7,
    "eighties": 8,
    "nineties": 9,
}
_NOT_BEFORE_WEEKDAY = frozenset(
    "i you we they he she it who that which and had has have was were just then got get be been the a an "
    "this his her my our their your its morning setting rising hot".split()
)


class PeriodRules:
    """Weekday, holiday, season and period rules of the English grammar (uses ``English``'s tables)."""

    weekdays: dict[str, int]
    months: dict[str, int]
    seasons: dict[str, int]
    shifts: dict[str, Any]
    periods: dict[str, Any]
    holidays: dict[str, Any]
    ordinals: dict[str, int]

    def mode(self, word: str | None, match: re.Match[str], ctx: Context) -> rv.Mode:  # from English
        raise NotImplementedError

    def day_number(self, text: str) -> int | None:  # from English
        raise NotImplementedError

    def period_rules(self) -> list[tuple[str, Handler, str]]:
        return [
            (
                "holiday",
                self.holiday,
                r"\b(?:(?P<shift>$shift)\s+)?(?P<h>$holiday)(?![\w'])(?:,?\s+(?P<y>$year)\b)?(?:\s+(?P<we>weekend)\b)?"
                r"(?:\s+(?P<y3>$year)\b)?",
            ),
            (
                "period",
                self.period,
                r"\b(?:(?:the\s+)?(?P<of>$of_period)\s+of|(?P<pre>$pre_period))(?:\s+|-)(?:(?P<mon>$mon)\b(?:,?\s+(?P<y>$year)\b)?"
                r"|(?:(?P<shift>$shift|the)\s+)?(?P<u>week|month|year|day)\b|(?P<yr>$year)\b|(?P<dw>today|tomorrow|tonight)"
                r"|(?:(?P<wshift>$shift|the)\s+)?(?P<wd>$wd_full))",
            ),
            (
                "weekday_of_week",
                self.weekday,
                r"\b(?:on\s+)?(?P<wd>$wd)\.?,?\s+(?:of\s+)?(?:the\s+)?(?P<shift>$shift)\s+week\b",
            ),
            ("week_weekday", self.weekday, r"\b(?P<shift>$shift)\s+week\s*(?:-\s*|,\s*|on\s+)?(?P<wd>$wd)\b"),
            (
                "weekday_dom",
                self.weekday_dom,
                r"\b(?P<wd>$wd)\.?,?\s+(?:the\s+)?(?P<d>$dany)\b(?![:./]\d|\s*(?:[ap]\.?m\b|$mon\b|-|–|to\b|o'?clock))",
            ),
            # not "the last Friday of every month": a habit (habits.py), no past Friday
            ("shifted_weekday", self.weekday, r"\b(?P<shift>$shift)\s+(?P<wd>$wd)\b(?!\s+of\s+(?:every|each)\b)"),
            ("weekday", self.weekday, r"\b(?P<wd>$wd_free)\b(?!')"),
            (
                "weekday_context",
                self.weekday,
                r"\b(?:on|by|until|till|from|before|after|this|next|last|coming)\s+(?P<phrase>(?P<wd>$wd_amb))\b",
            ),
            (
                "weekday_before",
                self.weekday,
                r"\b(?P<wd>$wd_amb)\b(?=\.?,?\s+(?:\d{1,2}(?:st|nd|rd|th|:\d\d|\s*[ap]\.?m\b|/)|morning|afternoon|evening|night|$mon\b))",
            ),
            (  # "mon-wed", "sat to sun": a weekday range makes both ends weekdays
                "weekday_range_start",
                self.weekday,
                r"\b(?P<wd>$wd_amb)\b(?=\.?\s*(?:-|–|to|thru|through|till|until)\s*$wd\b)",
            ),
            (
                "weekday_range_end",
                self.weekday,
                r"\b$wd\.?\s*(?:-|–|to|thru|through|till|until)\s*(?P<phrase>(?P<wd>$wd_amb))\b",
            ),
            (
                "weekday_loose",
                self.weekday_loose,
                r"\b(?P<wd>$wd_amb)\b(?=\s*(?:[?!.,;:)]|$$|\s+(?:works?|ok|okay|good|fine|then|is\s+fine)\b))",
            ),
            ("shifted_season", self.season, r"\b(?P<shift>$shift)\s+(?P<s>$season)\b"),
            ("season_year", self.season, r"\b(?:the\s+)?(?P<s>$season)\s+(?:of\s+)?(?P<y>$year)\b"),
            ("season", self.season, r"\b$prefix\s+(?P<phrase>(?:the\s+)?(?P<s>$season))\b"),
            ("quarter", self.quarter, r"\b(?:the\s+)?(?P<n>$ordsel)\s+(?P<u>quarter|half)\s+of\b"),
            (
                "decade",
                self.decade,
                r"\b(?:the\s+)?(?:(?P<c>19|20)(?P<d>\d)0\s?'?s|'?(?P<d2>\d)0'?s|(?P<w>twenties|thirties|forties|fifties|sixties|"
                r"seventies|eighties|nineties))\b",
            ),
            ("century", self.century, r"\b(?:the\s+)?(?P<n>\d{1,2})(?:st|nd|rd|th)\s+century\b"),
        ]

    def holiday(self, m: re.Match[str], ctx: Context) -> Piece | None:
        entry = self.holidays[key(m["h"])]
        mode = self.mode(m["shift"], m, ctx)
        year = m["y"] or m["y3"]
        piece = pc.holiday_piece(ctx, m.span(), entry, int(year) if year else None, mode)
        if piece is None or not m["we"] or piece.interval is None:
            return piece
        return Piece(m.span(), piece.confidence, interval=cal.weekend_of(ctx.tz, piece.interval.start.date()))

    def period(self, m: re.Match[str], ctx: Context) -> Piece | None:
        entry = self.periods[key(m["of"] or m["pre"])]
        part = entry.part
        if m["mon"]:
            month = self.months[key(m["mon"])]
            return pc.month_piece(ctx, m.span(), month, int(m["y"]) if m["y"] else None, ctx.tense(m.span()), part)
        if m["yr"]:
            return pc.year_piece(ctx, m.span(), int(m["yr"]), part)
        if m["dw"] or m["wd"] or (m["u"] and key(m["u"]) == "day"):
            if part != "late":
                return None
            if m["wd"]:
                mode = self.mode(m["wshift"] if key(m["wshift"] or "the") != "the" else None, m, ctx)
                day = rv.weekday_date(ctx.today, self.weekdays[key(m["wd"])], mode)
            else:
                day = ctx.today + timedelta(days={"tomorrow": 1}.get(key(m["dw"] or "today"), 0))
            end = cal.days(ctx.tz, day).end
            return Piece(
                m.span(), rv.FUZZY, interval=cal.Interval(end - timedelta(seconds=1), end, "second"), tail=True
            )
        shift = as_shift(self.shifts.get(key(m["shift"] or "this"), 0))
        interval = rv.part_of_unit(ctx.ref, key(m["u"]), shift, part, entry.narrow)
        return Piece(m.span(), rv.FUZZY, interval=interval, tail=part == "late")

    def weekday(self, m: re.Match[str], ctx: Context) -> Piece:
        mode = self.mode(m["shift"] if "shift" in m.re.groupindex else None, m, ctx)
        shifted = m.groupdict().get("shift") is not None
        index = self.weekdays[key(m["wd"]).rstrip(".")]
        if mode == 0 and rv.weekday_date(ctx.today, index, 0) > ctx.today and ctx.tense(phrase_span(m)) == "past":
            mode = "past"  # "we went hiking this Saturday", said on a Thursday: the Saturday gone
        return pc.weekday_piece(ctx, phrase_span(m), index, mode, shifted)

    def weekday_loose(self, m: re.Match[str], ctx: Context) -> Piece | None:
        """ "lunch sat?", "wed works": an ambiguous abbreviation at the end of a clause, unless
        the word before makes it the verb or noun ("I sat.", "the sun.", "they wed.")."""
        before = re.search(r"([a-z']+)\s*$", ctx.text[max(0, m.start() - 12) : m.start()].lower())
        if before and before.group(1) in _NOT_BEFORE_WEEKDAY:
            return None
        return self.weekday(m, ctx)

    def weekday_dom(self, m: re.Match[str], ctx: Context) -> Piece | None:
        dom = self.day_number(m["d"])
        the = re.search(r"the\s", m.group(), re.IGNORECASE) is not None
        bare = m["d"].isdigit() and not the
        spelled = not m["d"][0].isdigit() and not the and key(m["d"]).split("-")[-1].split()[-1] not in self.ordinals
        if dom is None or (bare and dom <= 12) or spelled:
            return None  # "Monday two weeks from now", "on Monday 3 people came"
        return pc.weekday_dom_piece(ctx, m.span(), self.weekdays[key(m["wd"])], dom, ctx.tense(m.span()))

    def season(self, m: re.Match[str], ctx: Context) -> Piece:
        start_month = self.seasons[key(m["s"])]
        if "y" in m.re.groupindex:
            return Piece(m.span(), rv.ABSOLUTE, interval=rv.season_of_year(ctx.ref, start_month, int(m["y"])))
        mode = self.mode(m["shift"] if "shift" in m.re.groupindex else None, m, ctx)
        interval = rv.season_for(ctx.ref, start_month, mode)
        confidence = min(rv.FUZZY, rv.mode_confidence(mode))
        shifted = m.groupdict().get("shift") is not None
        return Piece(phrase_span(m), confidence, interval=interval, cyclic=not shifted)

    def quarter(self, m: re.Match[str], ctx: Context) -> Piece:
        n = ORDINAL_SELECT.get(key(m["n"])) or int(m["n"][0])
        return pc.selector_piece(m.span(), "quarter" if key(m["u"]) == "quarter" else "half", n)

    def decade(self, m: re.Match[str], ctx: Context) -> Piece:
        if m["c"]:
            first = int(m["c"]) * 100 + int(m["d"]) * 10
        else:
            digit = int(m["d2"]) if m["d2"] else DECADE_WORDS[key(m["w"])]
            century = ctx.today.year // 100 * 100
            first = century + digit * 10 if century + digit * 10 <= ctx.today.year else century - 100 + digit * 10
        return Piece(m.span(), rv.RELATIVE, interval=cal.decade(ctx.tz, first))

    def century(self, m: re.Match[str], ctx: Context) -> Piece | None:
        n = int(m["n"])
        return Piece(m.span(), rv.ABSOLUTE, interval=cal.decade(ctx.tz, (n - 1) * 100, 100)) if 1 <= n <= 99 else None
