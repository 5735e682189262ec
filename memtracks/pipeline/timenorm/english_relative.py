"""English relative times (the rules ``English`` inherits): offsets ("two weeks ago", "in 3
days", "3 days after X"), rolling windows ("the past 3 days"), durations ("for two weeks",
"haven't ... in five years"), parts picked out of a period ("the first Monday of"), calendar
units ("next week", "the week before last").
"""

from __future__ import annotations

import re
from datetime import date

from memtracks.pipeline.timenorm import calendar as cal
from memtracks.pipeline.timenorm import pieces as pc
from memtracks.pipeline.timenorm import resolve as rv
from memtracks.pipeline.timenorm.common import Handler, key
from memtracks.pipeline.timenorm.engine import Context, Piece, phrase_span

_ROLLING = {"past": -1, "last": -1, "previous": -1, "next": 1, "coming": 1, "following": 1, "upcoming": 1}
ORDINAL_SELECT = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "last": -1, "final": -1}


_NOT_A_DAY = re.compile(
    r"\s*(?:-\s*)?(?:birthday|bday|anniversary|century|floor|place|row|time|street|st\b|avenue|ave\b|grade|round|"
    r"minute|hour|amendment|precinct|ward|district|level|lap|inning|season|edition|generation|percentile|attempt|try)",
    re.IGNORECASE,
)


class RelativeRules:
    """Relative-time rules of the English grammar (uses the tables ``English`` builds)."""

    units: dict
    vague: dict
    phrases: dict
    shifts: dict
    postfix: dict
    weekdays: dict
    duration_cue: re.Pattern[str]
    _amount_part: re.Pattern[str]
    days: dict[str, int]

    def count(self, text: str) -> float:  # from ClockRules
        raise NotImplementedError

    def day_number(self, text: str) -> int | None:  # from English
        raise NotImplementedError

    def relative_rules(self) -> list[tuple[str, Handler, str]]:
        return [
            (
                "neighbour",
                self.neighbour,
                r"\b(?:on\s+)?(?!(?:the\s+)?day\s+(?:after\s+tomorrow|before\s+yesterday)\b)"  # day words
                r"(?:the\s+)?(?P<what>$wd_full|week|weekend|day|month|year)\s+(?P<dir>before|after|prior\s+to|following)\b"
                r"(?=\s+(?:the\s+)?(?:$mon|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?$mon|\d{1,2}[/.-]\d|(?:19|20)\d\d|$wd|$holiday"
                r"|last\b|next\b|this\b|yesterday\b|today\b|tomorrow\b))",
            ),
            ("postfix_shift", self.postfix_shift, r"\b(?:the\s+)?(?P<u>$cal_unit)\s+(?P<post>$postfix)\b"),
            (
                "selector",
                self.selector,
                r"\b(?:the\s+)?(?P<n>$ordsel|(?:[1-9]|[1-4]\d|5[0-3])(?:st|nd|rd|th)|$oword)\s+"
                r"(?P<what>week|weekend|month|day|$wd_full)\s+(?:of|in)\b(?=\s+(?:the\s+)?(?:$mon|$shift|$year|\d|$holiday|this\b|year\b|month\b|week\b|it\b))",
            ),
            (
                "count_selector",
                self.count_selector,
                r"\b(?:the\s+)?(?P<n>first|last|final)\s+(?P<q>$num)\s+(?P<what>days|weeks|months)\s+(?:of|in)\b"
                r"(?=\s+(?:the\s+)?(?:$mon|$shift|$year|\d|$holiday|this\b|year\b|month\b|week\b|it\b))",
            ),
            (
                "week_of",
                self.week_of,
                r"\b(?:(?:the\s+)?(?P<what>week|weekend)\s+(?:of|starting(?:\s+on)?|beginning(?:\s+on)?|commencing(?:\s+on)?)|w/c)\b",
            ),
            ("week_number", self.week_number, r"\b(?:the\s+)?week\s+(?P<n>[1-9]|[1-4]\d|5[0-3])\b"),
            (
                "dom_range",
                self.dom_range,
                r"\b(?:from\s+)?(?P<d>\d{1,2})\s*-\s*(?P<d2>\d{1,2})\b(?=\s+(?:in|of)\s+(?:the\s+)?(?:$shift)\s+month)",
            ),
            ("dom_of_month", self.dom, r"\b(?P<d>$dany)(?=\s+of\s+(?:the\s+)?(?:$shift)\s+month)"),
            (
                "dom",
                self.dom,
                r"(?:\b(?P<the>the\s+))?\b(?P<d>(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)|(?<=\bon the )(?:[12]\d|3[01]|0?[1-9])(?![\d:./])"
                r"|$oword(?=\s*[.,!?]|\s*$$)"
                r"|(?:[12]\d|3[01]|0?[1-9])(?=\s*(?:,|and|or|&)\s*$dnum\s+$mon\b))\b",  # "18 and 19 June"
            ),
            (
                "the_unit",
                self.the_unit,
                r"(?:(?<=\bof )|(?<=\bfor )|(?<=\bin )|(?<=\bduring ))the\s+(?P<u>day|week|month|year)\b(?!\s+(?:of|before|after|that|when|we|i|you|he|she|they)\b)",
            ),
            ("year_to_date", self.year_to_date, r"\b(?:the\s+)?year\s+to\s+date\b"),
            (
                "till_date",
                self.till_date,
                r"\b(?:till|to|until|up\s+to)\s+(?P<phrase>(?:the\s+)?(?:current\s+)?date)\b(?=\s*(?:[.,!?;)]|$$))",
            ),
            (
                "shifted_small",
                self.shifted_small,
                r"\b(?P<shift>next|last|past|previous|this|coming)\s+(?P<u>hour|minute)\b",
            ),
            (
                "shifted_unit",
                self.shifted_unit,
                r"\b(?P<shift>$shift)\s+(?:calendar\s+|(?P<work>business\s+|working\s+|work\s*))?(?P<u>$cal_unit)\b",
            ),
            ("weekend", self.weekend, r"\b(?:(?P<the>the|that)\s+)?weekend\b"),
            ("ago", self.ago, r"(?<!last )(?<!past )(?<!next )\b(?P<a>$amount)\s+(?:ago|back|earlier)\b"),
            ("later", self.later, r"\b(?P<a>$amount)\s+(?:later|hence)\b(?!\s+(?:this|in\s+the|next)\b)"),
            (
                "anchored",
                self.anchored,
                r"\b(?:(?P<mod>more\s+than|over|at\s+least|less\s+than|under|within)\s+)?(?P<a>$amount)\s+(?P<dir>before|after|from|prior\s+to)\b",
            ),
            (
                "in",
                self.within,
                r"\b(?P<w>in|within)\s+(?P<next>(?:the\s+)?(?:next|coming|following)\s+)?(?:another\s+|just\s+|about\s+|around\s+|over\s+)?(?P<a>$amount)\b",
            ),
            (
                "length",
                self.length,
                r"\bfor\s+(?:another\s+|about\s+|around\s+|almost\s+|nearly\s+|over\s+|only\s+|just\s+)?(?P<a>$amount)\b",
            ),
            ("length_starting", self.length, r"\b(?P<a>$amount)(?=\s*,?\s*(?:starting|beginning|commencing)\b)"),
            (
                "rolling",
                self.rolling,
                r"\b(?:(?:the|these|this|over\s+the)\s+)?(?P<dir>past|last|previous|next|coming|following|upcoming)\s+(?P<q>$qty)\s+"
                r"(?:business\s+|working\s+)?(?P<u>$unit)\b",
            ),
            ("past_unit", self.past_unit, r"\b(?:the\s+)?past\s+(?P<u>$cal_unit|day|hour|minute)\b"),
            ("vague_phrase", self.vague_phrase, r"\b(?P<w>$phrase)\b"),
            (
                "earlier_later",
                self.earlier_later,
                r"\b(?P<el>earlier|later)\s+(?:in\s+)?(?P<shift>this|the|next|last|previous)\s+(?P<u>week|month|year)\b",
            ),
            ("day_word", self.day_word, r"\b(?P<w>$day_word)\b"),
        ]

    def amounts(self, text: str) -> list[tuple[float, float, float, str]]:
        """ "2 weeks and 2 days" -> [(2, 2, conf, "week"), (2, 2, conf, "day")]."""
        out = []
        for m in self._amount_part.finditer(text):
            low, high, confidence = self.quantity(m.group(1))
            if m["h1"] or m["h2"]:  # "two and a half years", "a year and a half"
                low, high, confidence = low + 0.5, high + 0.5, rv.APPROXIMATE
            entry = self.units[key(m.group(3))]
            out.append((low * entry.size, high * entry.size, confidence, entry.unit))
        return out

    def quantity(self, text: str) -> tuple[float, float, float]:
        """(low, high, confidence) of a number or vague quantity."""
        k = key(text)
        if k in self.vague:
            entry = self.vague[k]
            return entry.low, entry.high, entry.confidence
        value = self.count(k)
        return value, value, rv.RELATIVE if value == int(value) else rv.APPROXIMATE

    def single_amount(self, m: re.Match[str]) -> tuple[float, float, float, str, tuple[tuple[int, str], ...]] | None:
        """The amount of an offset: the first part, and any further parts ("2 weeks and 2
        days") as whole moves applied after it."""
        parts = self.amounts(m["a"])
        if not parts or parts[0][1] <= 0:
            return None
        low, high, confidence, unit = parts[0]
        more = tuple(rv.whole_units(p[0], p[3]) for p in parts[1:])
        return low, high, confidence, unit, more

    # -- relative handlers ------------------------------------------------------------------

    def postfix_shift(self, m: re.Match[str], ctx: Context) -> Piece:
        unit = self.units[key(m["u"])].unit
        return pc.unit_piece(ctx, m.span(), unit, self.postfix[key(m["post"])])

    def neighbour(self, m: re.Match[str], ctx: Context) -> Piece:
        """ "the Monday before July 24", "the week before X", "the weekend after Christmas"."""
        what = key(m["what"])
        sign = 1 if key(m["dir"]) in ("after", "following") else -1
        weekday = self.weekdays.get(what)
        unit = "weekday" if weekday is not None else what
        return Piece(m.span(), rv.RELATIVE, neighbour=(unit, sign, weekday), strong=False)

    def selector(self, m: re.Match[str], ctx: Context) -> Piece | None:
        n_text, what = key(m["n"]), key(m["what"])
        index = ORDINAL_SELECT.get(n_text) or self.day_number(n_text)
        if index is None:
            return None
        if what in self.weekdays:
            return pc.selector_piece(m.span(), "weekday", index, weekday=self.weekdays[what])
        return pc.selector_piece(m.span(), what, index)

    def count_selector(self, m: re.Match[str], ctx: Context) -> Piece | None:
        count = self.count(key(m["q"]))
        if count != int(count) or count < 1:
            return None
        index = 1 if key(m["n"]) == "first" else -1
        return pc.selector_piece(m.span(), key(m["what"]).rstrip("s"), index, int(count))

    def week_of(self, m: re.Match[str], ctx: Context) -> Piece:
        return pc.selector_piece(m.span(), "weekend_of" if key(m["what"] or "") == "weekend" else "week_of")

    def week_number(self, m: re.Match[str], ctx: Context) -> Piece | None:
        n = int(m["n"])
        mondays = cal.weeks_of(date(ctx.today.year, 1, 1), date(ctx.today.year, 12, 31))
        alone = cal.days(ctx.tz, mondays[n - 1], 7, "week") if n <= len(mondays) else None
        return pc.selector_piece(m.span(), "week", n, alone=alone)

    def dom_range(self, m: re.Match[str], ctx: Context) -> Piece | None:
        first, last = int(m["d"]), int(m["d2"])
        if not 1 <= first < last <= 31:
            return None
        return pc.selector_piece(m.span(), "day", first, last - first + 1)

    def dom(self, m: re.Match[str], ctx: Context) -> Piece | None:
        dom = self.day_number(m["d"])
        if dom is None:
            return None
        before = ctx.text[max(0, m.start() - 7) : m.start()]
        strong = re.search(r"\bon\s+$", before[-4:], re.IGNORECASE) is not None or (
            # "pushed to the 21st", "until the 3rd", "it's the 21st": a day of the month after a
            # word that takes a date (not "the 21st birthday", "to the 3rd floor")
            bool(m.groupdict().get("the"))
            and re.search(r"\b(?:to|until|till|by|for|from|before|after|is|was|'s)\s+$", before, re.IGNORECASE)
            is not None
            and _NOT_A_DAY.match(ctx.text, m.end()) is None
        )
        return pc.dom_piece(ctx, m.span(), dom, ctx.tense(m.span()), strong)

    def the_unit(self, m: re.Match[str], ctx: Context) -> Piece:
        """ "for the day", "in the year", "of the month": the current one (weakly)."""
        piece = pc.unit_piece(ctx, m.span(), key(m["u"]), 0)
        return Piece(piece.span, rv.WEAK, interval=piece.interval)

    def year_to_date(self, m: re.Match[str], ctx: Context) -> Piece:
        start = cal.year(ctx.tz, ctx.today.year).start
        return Piece(m.span(), rv.RELATIVE, interval=cal.Interval(start, cal.local(ctx.tz, ctx.today), "day"))

    def till_date(self, m: re.Match[str], ctx: Context) -> Piece:
        """ "to date": up to today; the end of a range after "from X"."""
        today = cal.days(ctx.tz, ctx.today)
        if re.search(r"\bfrom\b", ctx.text[max(0, m.start() - 40) : m.start()], re.IGNORECASE):
            return Piece(phrase_span(m), rv.RELATIVE, interval=today, point=True)
        return Piece(m.span(), rv.RELATIVE, interval=rv.open_interval(today, "start", today.start), open_side="start")

    def shifted_unit(self, m: re.Match[str], ctx: Context) -> Piece:
        unit, mode = self.units[key(m["u"])].unit, self.shifts[key(m["shift"])]
        if unit == "week" and m["work"]:
            return pc.work_week_piece(ctx, m.span(), as_shift(mode))
        if unit == "weekend":
            if mode == 0 and ctx.today.weekday() < 5 and ctx.tense(m.span()) == "past":
                mode = "past"  # "we tied the knot this weekend", said on a Thursday: the one gone
            return Piece(m.span(), rv.RELATIVE, interval=rv.weekend_for(ctx.ref, mode))
        return pc.unit_piece(ctx, m.span(), unit, as_shift(mode))

    def shifted_small(self, m: re.Match[str], ctx: Context) -> Piece:
        """ "the next hour", "last minute": the hour (minute) from (up to) now."""
        sign = -1 if key(m["shift"]) in ("last", "past", "previous") else 1
        return pc.rolling_piece(ctx, m.span(), 1, key(m["u"]), sign)

    def weekend(self, m: re.Match[str], ctx: Context) -> Piece:
        that = key(m["the"] or "") == "that"  # "that weekend": one already spoken of
        mode = None if that else ctx.tense(m.span())
        return Piece(m.span(), rv.mode_confidence(mode), interval=rv.weekend_for(ctx.ref, mode), cyclic=not that)

    def ago(self, m: re.Match[str], ctx: Context) -> Piece | None:
        amount = self.single_amount(m)
        if amount is None:
            return None
        low, high, confidence, unit, more = amount
        return pc.offset_piece(ctx, m.span(), low, high, unit, -1, confidence, more)

    def later(self, m: re.Match[str], ctx: Context) -> Piece | None:
        amount = self.single_amount(m)
        if amount is None:
            return None
        low, high, confidence, unit, more = amount
        return pc.offset_piece(ctx, m.span(), low, high, unit, 1, confidence, more)

    def anchored(self, m: re.Match[str], ctx: Context) -> Piece | None:
        amount = self.single_amount(m)
        if amount is None:
            return None
        low, high, _, unit, _ = amount
        sign = -1 if key(m["dir"]).startswith(("before", "prior")) else 1
        mod = key(m["mod"] or "")
        kind = "more" if mod in ("more than", "over", "at least") else "less" if mod else None
        return pc.anchored_offset_piece(m.span(), low, high, unit, sign, kind)

    def within(self, m: re.Match[str], ctx: Context) -> Piece | None:
        """ "in three days": three days ahead; a duration after a past or negated verb ("did it
        in 3 days", "haven't eaten meat in five years"); "within 9 months": from today on."""
        amount = self.single_amount(m)
        if amount is None:
            return None
        low, high, confidence, unit, more = amount
        if key(m["w"]) == "within":
            return pc.rolling_piece(ctx, m.span(), high, unit, 1, within=True)
        if m["next"]:  # "in the next two days": the two days after today
            return pc.rolling_piece(ctx, m.span(), high, unit, 1)
        if self._duration_context(m, ctx):
            return pc.length_piece(m.span(), high, unit)
        return pc.offset_piece(ctx, m.span(), low, high, unit, 1, confidence, more)

    def _duration_context(self, m: re.Match[str], ctx: Context) -> bool:
        start = max(0, m.start() - 60)
        clause = re.split(r"[.!?;]|\band\b|\bbut\b", ctx.text[start : m.start()])[-1]
        return ctx.tense(m.span()) == "past" or self.duration_cue.search(clause) is not None

    def length(self, m: re.Match[str], ctx: Context) -> Piece | None:
        amount = self.single_amount(m)
        if amount is None:
            return None
        return pc.length_piece(m.span(), amount[1], amount[3])

    def rolling(self, m: re.Match[str], ctx: Context) -> Piece | None:
        _, high, _ = self.quantity(m["q"])
        if high <= 0:
            return None  # "the last 0 days" is no stretch of time
        entry = self.units[key(m["u"])]
        return pc.rolling_piece(ctx, m.span(), high * entry.size, entry.unit, _ROLLING[key(m["dir"])])

    def past_unit(self, m: re.Match[str], ctx: Context) -> Piece:
        """ "the past week": the last seven days before today."""
        return pc.rolling_piece(ctx, m.span(), 1, self.units[key(m["u"])].unit, -1)

    def vague_phrase(self, m: re.Match[str], ctx: Context) -> Piece:
        e = self.phrases[key(m["w"])]
        return pc.offset_piece(ctx, m.span(), e.low, e.high, e.unit, e.sign, e.confidence)

    def earlier_later(self, m: re.Match[str], ctx: Context) -> Piece:
        shift = {"next": 1, "last": -1, "previous": -1}.get(key(m["shift"]), 0)
        interval = rv.earlier_later(ctx.ref, key(m["u"]), shift, key(m["el"]) == "later")
        return Piece(m.span(), rv.FUZZY, interval=interval)

    def day_word(self, m: re.Match[str], ctx: Context) -> Piece:
        return Piece(m.span(), rv.RELATIVE, day=cal.shift_date(ctx.today, self.days[key(m["w"])], "day"))


def as_shift(mode: rv.Mode) -> int:
    """A tense used as a shift: "this coming month" = next month."""
    if isinstance(mode, int):
        return mode
    return -1 if mode == "past" else 1
