"""Chinese relative times, parts of the day and clock times (the rules ``Chinese`` inherits):
三天前, 两周后, 过两天, 最近三天, 持续三天 / 五年没 (durations), 今晚, 明天, 下午, 三点半, 五到六点.
"""

from __future__ import annotations

import re
from typing import Any

from memtracks.pipeline.timenorm import calendar as cal
from memtracks.pipeline.timenorm import pieces as pc
from memtracks.pipeline.timenorm import resolve as rv
from memtracks.pipeline.timenorm.common import Handler
from memtracks.pipeline.timenorm.engine import Context, Piece

HALF = "半"
_SHORT_PARTS = {"早": "早上", "晚": "晚上"}  # 五号早, 五号晚
_PAST_WINDOW = ("过去", "最近", "近", "之前", "以前")


class DayRules:
    """Relative, part-of-day and clock rules of the Chinese grammar (uses ``Chinese``'s tables)."""

    units: dict[str, Any]
    vague: dict[str, Any]
    phrases: dict[str, Any]
    directions: dict[str, int]
    fused: dict[str, tuple[int, tuple[int, int]]]
    parts: dict[str, tuple[int, int]]
    days: dict[str, int]

    def number(self, text: str) -> int | None:  # from Chinese
        raise NotImplementedError

    def relative_rules(self) -> list[tuple[str, Handler, str]]:
        amount = r"(?P<q>$qty)(?P<ge>个)?(?P<half>$half)?(?P<u>$unit)(?P<half2>$half)?"
        return [
            ("relative", self.relative, r"(?<![\d$n])" + amount + r"(?P<dir>$dir)(?![往进])"),
            ("after_pass", self.relative, r"(?<![超通经不难度路错])(?:再)?过" + amount),
            ("vague_phrase", self.vague_phrase, r"(?P<w>$phrase)"),
            (
                "rolling",
                self.rolling,
                r"(?P<w>过去|最近|近|未来|接下来|今后|之后|之前|以后|以前|还剩|还有|(?<![\d$n年月天周])后)(?:的)?\s*"
                + amount,
            ),
            (
                "duration",
                self.duration,
                r"(?P<pre>$dur)?\s*(?<![\d$n])" + amount + r"(?P<post>没|未|不|之久|多了|都没|了)?(?![岁前后$n\d])",
            ),
        ]

    def day_rules(self) -> list[tuple[str, Handler, str]]:
        minutes = r"(?:(?P<half>$half)|(?P<quarter>一刻|三刻)|(?P<mi>[0-5]?\d分|[0-5]\d|[$n]{1,3}分|[$n]?十[$n]?|零[$n])|(?P<whole>整|钟))?"
        return [
            ("fused_day_part", self.fused_day_part, r"(?P<w>$fused)"),
            ("day_word", self.day_word, r"(?P<w>$day_word)"),
            ("now", self.now, r"(?P<w>$now)"),
            ("part_of_day", self.part, r"(?P<w>$part)(?P<alone>(?![好\d$n]))?"),
            # 五号早 / 五号晚 / 周日晚: the morning / evening of that day (not 晚饭, 晚点, 天晚了)
            (
                "part_after_date",
                self.part_after_date,
                r"(?:(?<=[日号])|(?<=[今明昨前后周期拜]天))(?P<w>早(?![饭餐点上晨就已])|晚(?![饭餐点上会安了到些辈年期霞报间走来回起睡去]))",
            ),
            (
                "clock_range",
                self.clock_range,
                r"(?:[从自]\s*)?(?<![\d$n])(?P<h1>\d{1,2}|[$n]{1,3})(?:[点时](?P<mi1>半|[0-5]?\d分|[$n]{1,3}分))?\s*(?:到|至|-|~)\s*"
                r"(?P<h2>\d{1,2}|[$n]{1,3})[点时](?P<mi2>半|[0-5]?\d分|[0-5]\d|[$n]{1,3}分)?",
            ),
            ("clock", self.clock, r"(?<![\d$n])(?P<h>\d{1,2}|[$n]{1,3})[点时]" + minutes + r"(?![都也儿多])"),
        ]

    def amount(self, m: re.Match[str]) -> tuple[float, float, float] | None:
        """(low, high, confidence) of the quantity, halves included; None if malformed."""
        q, unit, has_ge = m["q"], self.units[m["u"]], bool(m["ge"])
        if (unit.measure == "required" and not has_ge) or (unit.measure == "none" and has_ge):
            return None  # 三个月 / 三天, not 三月前 / 三个天
        if q in self.vague:
            e = self.vague[q]
            return (e.low, e.high, e.confidence) if not (m["half"] or m["half2"]) else None
        value = 0.5 if q == HALF else (float(q) if "." in q else self.number(q))
        if not value or (q == HALF and (m["half"] or m["half2"])):
            return None
        value = (value + (0.5 if (m["half"] or m["half2"]) else 0)) * unit.size
        return value, value, rv.RELATIVE if value == int(value) else rv.APPROXIMATE

    def relative(self, m: re.Match[str], ctx: Context) -> Piece | None:
        amount = self.amount(m)
        if amount is None:
            return None
        low, high, confidence = amount
        sign = self.directions[m["dir"]] if "dir" in m.re.groupindex else 1
        return pc.offset_piece(ctx, m.span(), low, high, self.units[m["u"]].unit, sign, confidence)

    def rolling(self, m: re.Match[str], ctx: Context) -> Piece | None:
        amount = self.amount(m)
        if amount is None:
            return None
        sign = -1 if m["w"] in _PAST_WINDOW else 1
        within = m["w"] in ("之后", "以后", "还剩", "还有")
        return pc.rolling_piece(ctx, m.span(), amount[1], self.units[m["u"]].unit, sign, within)

    def duration(self, m: re.Match[str], ctx: Context) -> Piece | None:
        if not (m["pre"] or m["post"]):
            return None
        amount = self.amount(m)
        if amount is None:
            return None
        return pc.length_piece(m.span(), amount[1], self.units[m["u"]].unit)

    def vague_phrase(self, m: re.Match[str], ctx: Context) -> Piece:
        e = self.phrases[m["w"]]
        return pc.offset_piece(ctx, m.span(), e.low, e.high, e.unit, e.sign, e.confidence)

    def fused_day_part(self, m: re.Match[str], ctx: Context) -> Piece:
        offset, window = self.fused[m["w"]]
        return Piece(m.span(), rv.RELATIVE, day=cal.shift_date(ctx.today, offset, "day"), part=window)

    def day_word(self, m: re.Match[str], ctx: Context) -> Piece:
        return Piece(m.span(), rv.RELATIVE, day=cal.shift_date(ctx.today, self.days[m["w"]], "day"))

    def now(self, m: re.Match[str], ctx: Context) -> Piece:
        return pc.now_piece(ctx, m.span())

    def part(self, m: re.Match[str], ctx: Context) -> Piece:
        """下午 with a day or a clock; alone (下午开会), today's, with low confidence; never
        in a greeting (下午好)."""
        window = self.parts[m["w"]]
        alone = m.groupdict().get("alone") is not None
        return Piece(m.span(), rv.WEAK if alone else rv.RELATIVE, part=window, strong=alone, cyclic=True)

    def part_after_date(self, m: re.Match[str], ctx: Context) -> Piece:
        """五号早 / 5号晚 / 周日晚: the part of the day of the date right before it."""
        return Piece(m.span(), rv.RELATIVE, part=self.parts[_SHORT_PARTS[m["w"]]], cyclic=True)

    def clock_range(self, m: re.Match[str], ctx: Context) -> Piece | None:
        first = self._clock(m["h1"], m["mi1"])
        last = self._clock(m["h2"], m["mi2"])
        if first is None or last is None:
            return None
        return Piece(m.span(), rv.RELATIVE, clock=first, until=last, cyclic=True)

    def _clock(self, hour_text: str, minute_text: str | None) -> pc.Clock | None:
        hour = self.number(hour_text)
        if hour is None:
            return None
        minute = 0
        if minute_text:
            minute = 30 if minute_text == HALF else (self.number(minute_text.rstrip("分")) or 0)
        return pc.make_clock(hour, minute)

    def clock(self, m: re.Match[str], ctx: Context) -> Piece | None:
        hour = self.number(m["h"])
        minute = 30 if m["half"] else 0
        if m["quarter"]:
            minute = 15 if m["quarter"] == "一刻" else 45
        if m["mi"]:
            minute = self.number(m["mi"].rstrip("分")) or 0
        if hour is None or hour > 24 or minute > 59:
            return None
        told = bool(m["half"] or m["quarter"] or m["mi"] or m["whole"])
        strong = told or hour != 1  # 一点 alone is "a little"
        # 三点一刻 is spoken, so 12-hour like 三点 (afternoon when alone); "3:15" is written
        return pc.clock_piece(m.span(), hour, minute, None, None, strong=strong)
