"""Chinese time expressions: patterns built from ``lexicons/time_zh.yaml`` and their handlers.

Numbers may be digits or Chinese numerals (三, 十五, 二十, 两); 半 is a half (半个月, 一个半月,
两年半). 周 counts as a week only in 上周/下周/本周/这周 (not 周围, 周到, 周年) and as a
weekday only before 一..六/日/天 (周三, not 一周三次 or 每周三). A part of the day (下午) or a
bare 三点 is a mention only together with a day or each other: 明天下午三点, 下午三点.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from . import calendar as cal
from . import resolve as rv
from .common import CLOCK_24, ISO_DATE, Handler, alt, compile_rules, stems
from .engine import Clock, Context, Grammar, Piece, Rule
from .lexicon import Lexicon, PeriodWord, lexicon
from .tense import compile_cues

HALF = "半"
JOINER = re.compile(r"\s*的?\s*")
_WEEK_NOT = "末围边到全期岁年转刊长游密报"  # after 上周/这周: 周末, 周围, 周到, 周年 ... are other words


class Chinese:
    """Lexicon tables and the handler of each Chinese rule."""

    def __init__(self, lex: Lexicon):
        self.lex = lex
        windows = {w.name: (w.start_hour, w.end_hour) for w in lex["part_windows"]}
        self.parts = {e.word: windows[e.part] for e in lex["day_parts"]}
        self.fused = {e.word: (e.offset, windows[e.part]) for e in lex["fused_day_parts"]}
        self.days = lex.table("day_words", "offset")
        self.years = lex.table("year_words", "offset")
        self.digits = {e.char: e.value for e in lex["numerals"]}
        self.vague = {e.word: e for e in lex["vague_quantities"]}
        self.phrases = {e.word: e for e in lex["vague_phrases"]}
        self.units = {e.word: e for e in lex["units"]}
        self.weekdays = lex.table("weekday_chars", "index")
        self.shifts = lex.table("shifts", "shift")
        self.periods = {e.word: e for e in lex["periods"]}
        self.seasons = lex.table("seasons", "start_month")
        self.directions = lex.table("directions", "sign")

    # -- patterns ---------------------------------------------------------------------------

    def fragments(self) -> dict[str, str]:
        """Named regex fragments built from the lexicon, used as ``$name`` in the rules."""
        numerals = "".join(self.digits)
        single = "".join(c for c, v in self.digits.items() if v < 10 and c != "两")
        weekday = "".join(c for c in self.weekdays if c != "天")
        if "天" in self.weekdays:  # 周天 is Sunday, but not in 这周天气
            weekday = f"(?:[{weekday}]|天(?![气空色数]))"
        f = {
            "n": numerals,
            "num": rf"(?:\d{{1,3}}|[{numerals}]{{1,3}})",
            "year": rf"(?:(?:19|20)\d\d|[{single}]{{4}})",
            "qty": rf"(?:{alt(self.vague)}|{HALF}|\d{{1,3}}|[{numerals}]{{1,3}})",
            "half": HALF,
            "unit": alt(self.units),
            "dir": alt(self.directions),
            "shift": alt(self.shifts),
            "week": alt(self.lex.words("weekday_nouns")),
            "wd": weekday if weekday.startswith("(") else f"[{weekday}]",
            "period": alt(self.periods),
            "year_period": alt(w for w, e in self.periods.items() if e.narrow),
            "season": alt(self.seasons),
            "week_not": _WEEK_NOT + "".join(self.weekdays),
            "phrase": alt(self.phrases),
            "fused": alt(self.fused),
            "part": alt(self.parts),
            "year_word": "|".join(_guarded(e.word, e.not_after) for e in self._by_length("year_words")),
            "day_word": "|".join(_guarded(e.word, e.not_after) for e in self._by_length("day_words")),
        }
        f["mnum"] = rf"(?:\d{{1,2}}|[{numerals}]{{1,3}})"
        return f

    def _by_length(self, section: str) -> list[Any]:
        return sorted(self.lex[section], key=lambda e: -len(e.word))

    def rules(self) -> tuple[Rule, ...]:
        """Every Chinese rule; for equal spans the earlier rule wins."""
        table = [*self._calendar_rules(), *self._relative_rules(), *self._day_rules()]
        return (ISO_DATE, *compile_rules(table, self.fragments(), {}), CLOCK_24)

    def _calendar_rules(self) -> list[tuple[str, Handler, str]]:
        return [
            ("ymd", self.date, r"(?<!\d)(?P<y>$year)年(?P<m>$mnum)月(?P<d>$mnum)[日号]"),
            ("md", self.date, r"(?<![\d$n])(?P<m>$mnum)月(?P<d>$mnum)[日号]"),
            ("ym", self.month, r"(?<!\d)(?P<y>$year)年(?P<m>$mnum)月份?(?P<per>$period)?"),
            (
                "month",
                self.month,
                r"(?<![\d$n个上下这本每第])(?P<m>$mnum)月份?(?P<per>$period)?(?![\d$n])",
            ),
            ("year", self.year, r"(?<!\d)(?P<y>$year)年(?P<per>$year_period)?(?![代级龄纪])"),
            ("year_word", self.year, r"(?P<yw>$year_word)(?:年?(?P<per>$year_period)(?![$n]))?"),
            ("year_period", self.year, r"(?<![\d$n今去明前后来])年(?P<per>$year_period)(?![$n])"),
            (
                "shifted_month",
                self.shifted_month,
                r"(?P<shift>$shift)(?:一?个)?月份?(?P<per>$period)?(?![球亮光饼色])",
            ),
            (
                "month_period",
                self.shifted_month,
                r"(?<![\d$n个上下这本岁每年])月(?P<per>$period)(?![$n])",
            ),
            (
                "weekday",
                self.weekday,
                r"(?<![每一两二三四五六七八九十几\d])(?:(?P<shift>$shift)个?)?(?:$week)(?P<wd>$wd)"
                r"(?![次遍回趟])",
            ),
            ("weekend", self.weekend, r"(?:(?P<shift>$shift)个?)?周末"),
            (
                "shifted_week",
                self.shifted_week,
                r"(?P<shift>$shift)(?:个|一)?(?:$week)(?![$week_not])",
            ),
            (
                "season",
                self.season,
                r"(?:(?:(?P<yw>$year_word)|(?P<y>$year)年|(?P<shift>$shift)个?)的?)?(?P<s>$season)",
            ),
            (
                "day_of_month",
                self.day_of_month,
                r"(?<![\d$n月第])(?P<d>\d{1,2}|[$n]{1,3})号(?![线楼房间门床球位台车机厅窗码子院])",
            ),
        ]

    def _relative_rules(self) -> list[tuple[str, Handler, str]]:
        amount = r"(?P<q>$qty)(?P<ge>个)?(?P<half>$half)?(?P<u>$unit)(?P<half2>$half)?"
        return [
            ("relative", self.relative, r"(?<![\d$n])" + amount + r"(?P<dir>$dir)(?![往进])"),
            ("after_pass", self.relative, r"(?<![超通经不难度路错])(?:再)?过" + amount),
            ("vague_phrase", self.vague_phrase, r"(?P<w>$phrase)"),
        ]

    def _day_rules(self) -> list[tuple[str, Handler, str]]:
        return [
            ("fused_day_part", self.fused_day_part, r"(?P<w>$fused)"),
            ("day_word", self.day_word, r"(?P<w>$day_word)"),
            ("part_of_day", self.part, r"(?P<w>$part)"),
            (
                "clock",
                self.clock,
                r"(?<![\d$n])(?P<h>\d{1,2}|[$n]{1,3})[点时](?:(?P<half>$half)|(?P<quarter>一刻|三刻)"
                r"|(?P<mi>[0-5]?\d分|[0-5]\d|[$n]{1,3}分|[$n]?十[$n]?|零[$n])|(?P<whole>整|钟))?"
                r"(?![都也儿多])",
            ),
        ]

    def trigger(self) -> re.Pattern[str]:
        """Cheap pre-check: a text matching none of these cannot hold a Chinese time."""
        words = [*self.days, *self.fused, *self.parts, *self.units, *self.years, *self.seasons]
        words += [*self.phrases, *self.lex.words("weekday_nouns"), "月", "年", "点", "时", "号"]
        return re.compile(r"\d|" + alt(stems(words)))

    # -- helpers ----------------------------------------------------------------------------

    def number(self, text: str) -> int | None:
        """Value of digits or Chinese numerals (十五, 二十三, 两, 二〇二三); None if malformed."""
        if text.isdigit():
            return int(text)
        ten = next((c for c, v in self.digits.items() if v == 10), None)
        try:
            if ten and ten in text:
                left, _, right = text.partition(ten)
                if len(left) > 1 or len(right) > 1:
                    return None
                return (self.digits[left] if left else 1) * 10 + (self.digits[right] if right else 0)
            return int("".join(str(self.digits[c]) for c in text))
        except KeyError:
            return None

    def year_number(self, text: str) -> int | None:
        """A year written in digits or numerals, if plausible (1900-2099, like English)."""
        year = self.number(text)
        return year if year is not None and 1900 <= year <= 2099 else None

    def amount(self, m: re.Match[str]) -> tuple[float, float, float] | None:
        """(low, high, confidence) of the quantity, halves included; None if malformed."""
        q, unit, has_ge = m["q"], self.units[m["u"]], bool(m["ge"])
        if (unit.measure == "required" and not has_ge) or (unit.measure == "none" and has_ge):
            return None  # 三个月 / 三天, not 三月前 / 三个天
        if q in self.vague:
            e = self.vague[q]
            return (e.low, e.high, e.confidence) if not (m["half"] or m["half2"]) else None
        value = 0.5 if q == HALF else self.number(q)
        if value is None or (q == HALF and (m["half"] or m["half2"])):
            return None
        value += 0.5 if (m["half"] or m["half2"]) else 0
        return value, value, rv.RELATIVE if value == int(value) else rv.APPROXIMATE

    def mode(self, m: re.Match[str], ctx: Context) -> rv.Mode:
        """The shift word's value, or the tense around the match."""
        if m["shift"]:
            return self.shifts[m["shift"]]
        return ctx.tense(m.span())

    def part_of(self, m: re.Match[str]) -> PeriodWord | None:
        """The period suffix (初, 底, 中旬 ...) of the match, if any."""
        return self.periods[m["per"]] if m["per"] else None

    # -- handlers ---------------------------------------------------------------------------

    def date(self, m: re.Match[str], ctx: Context) -> Piece | None:
        month, day = self.number(m["m"]), self.number(m["d"])
        if month is None or day is None:
            return None
        if "y" in m.re.groupindex:
            year, confidence = self.year_number(m["y"]), rv.ABSOLUTE
        else:
            year = rv.year_for_day(ctx.today, month, day, ctx.tense(m.span()))
            confidence = rv.INFERRED_YEAR
        found = rv.safe_date(year, month, day) if year else None
        return Piece(m.span(), confidence, day=found) if found else None

    def month(self, m: re.Match[str], ctx: Context) -> Piece | None:
        month = self.number(m["m"])
        if month is None or not 1 <= month <= 12:
            return None
        if "y" in m.re.groupindex:
            year, confidence = self.year_number(m["y"]), rv.ABSOLUTE
        else:
            mode = ctx.tense(m.span())
            year, confidence = rv.year_for_month(ctx.today, month, mode), rv.mode_confidence(mode)
        if year is None:
            return None
        period = self.part_of(m)
        if period:
            return Piece(m.span(), rv.FUZZY, interval=rv.period_of_month(ctx.ref, year, month, period.part))
        return Piece(m.span(), confidence, interval=cal.month(ctx.tz, year, month))

    def year(self, m: re.Match[str], ctx: Context) -> Piece | None:
        if "y" in m.re.groupindex:
            year = self.year_number(m["y"])
        else:
            year = ctx.today.year + (self.years[m["yw"]] if "yw" in m.re.groupindex else 0)
        if year is None:
            return None
        period = self.part_of(m)
        if period:
            return Piece(m.span(), rv.FUZZY, interval=cal.year_part(ctx.tz, year, period.part, True))
        return Piece(m.span(), rv.RELATIVE, interval=cal.year(ctx.tz, year))

    def shifted_month(self, m: re.Match[str], ctx: Context) -> Piece:
        shift = self.shifts[m["shift"]] if "shift" in m.re.groupindex else 0
        year, month = cal.add_months(ctx.today.year, ctx.today.month, shift)
        period = self.part_of(m)
        if period:
            return Piece(m.span(), rv.FUZZY, interval=rv.period_of_month(ctx.ref, year, month, period.part))
        return Piece(m.span(), rv.RELATIVE, interval=cal.month(ctx.tz, year, month))

    def weekday(self, m: re.Match[str], ctx: Context) -> Piece:
        mode = self.mode(m, ctx)
        day = rv.weekday_date(ctx.today, self.weekdays[m["wd"]], mode)
        return Piece(m.span(), rv.mode_confidence(mode), day=day)

    def weekend(self, m: re.Match[str], ctx: Context) -> Piece:
        mode = self.mode(m, ctx)
        return Piece(m.span(), rv.mode_confidence(mode), interval=rv.weekend_for(ctx.ref, mode))

    def shifted_week(self, m: re.Match[str], ctx: Context) -> Piece:
        return Piece(m.span(), rv.RELATIVE, interval=cal.unit_at(ctx.ref, "week", self.shifts[m["shift"]]))

    def relative(self, m: re.Match[str], ctx: Context) -> Piece | None:
        amount = self.amount(m)
        if amount is None:
            return None
        low, high, confidence = amount
        sign = self.directions[m["dir"]] if "dir" in m.re.groupindex else 1
        unit = self.units[m["u"]].unit
        if low == high:
            count, unit = rv.whole_units(low, unit)
            low = high = count
        return Piece(
            m.span(),
            confidence,
            interval=rv.offset_interval(ctx.ref, unit, int(low), int(high), sign),
        )

    def vague_phrase(self, m: re.Match[str], ctx: Context) -> Piece:
        e = self.phrases[m["w"]]
        return Piece(
            m.span(),
            e.confidence,
            interval=rv.offset_interval(ctx.ref, e.unit, e.low, e.high, e.sign),
        )

    def season(self, m: re.Match[str], ctx: Context) -> Piece | None:
        start_month = self.seasons[m["s"]]
        if m["y"] or (m["yw"] and self.years[m["yw"]] != 0):
            year = self.year_number(m["y"]) if m["y"] else ctx.today.year + self.years[m["yw"]]
            return Piece(m.span(), rv.FUZZY, interval=rv.season_of_year(ctx.ref, start_month, year)) if year else None
        mode = 0 if m["yw"] else self.mode(m, ctx)
        interval = rv.season_for(ctx.ref, start_month, mode)
        return Piece(m.span(), min(rv.FUZZY, rv.mode_confidence(mode)), interval=interval)

    def day_of_month(self, m: re.Match[str], ctx: Context) -> Piece | None:
        day = self.number(m["d"])
        if day is None:
            return None
        year, month = rv.month_for_day(ctx.today, day, ctx.tense(m.span()))
        found = rv.safe_date(year, month, day)
        return Piece(m.span(), rv.TENSE_GUESS, day=found) if found else None

    def fused_day_part(self, m: re.Match[str], ctx: Context) -> Piece:
        offset, window = self.fused[m["w"]]
        return Piece(m.span(), rv.RELATIVE, day=cal.shift_date(ctx.today, offset, "day"), part=window)

    def day_word(self, m: re.Match[str], ctx: Context) -> Piece:
        return Piece(m.span(), rv.RELATIVE, day=cal.shift_date(ctx.today, self.days[m["w"]], "day"))

    def part(self, m: re.Match[str], ctx: Context) -> Piece:
        return Piece(m.span(), rv.RELATIVE, part=self.parts[m["w"]], strong=False)

    def clock(self, m: re.Match[str], ctx: Context) -> Piece | None:
        hour = self.number(m["h"])
        minute = 30 if m["half"] else 0
        if m["quarter"]:
            minute = 15 if m["quarter"] == "一刻" else 45
        if m["mi"]:
            minute = self.number(m["mi"].rstrip("分")) or 0
        if hour is None or hour > 24 or minute > 59:
            return None
        strong = bool(m["half"] or m["quarter"] or m["mi"] or m["whole"])
        return Piece(m.span(), rv.RELATIVE, clock=Clock(hour, minute), strong=strong)


def _guarded(word: str, not_after: str) -> str:
    """``word``, not preceded by any character of ``not_after``."""
    return f"(?<![{re.escape(not_after)}]){re.escape(word)}" if not_after else re.escape(word)


@cache
def grammar() -> Grammar:
    """The compiled Chinese grammar (built once)."""
    lex = lexicon("zh")
    chinese = Chinese(lex)
    return Grammar(chinese.rules(), JOINER, chinese.trigger(), compile_cues(lex, word_bounded=False))
