"""Chinese time expressions: patterns built from ``lexicons/time_zh.yaml`` and their handlers.

Numbers may be digits or Chinese numerals (三, 十五, 二十, 两); 半 is a half (半个月, 一个半月,
两年半). 周 counts as a week only in 上周/下周/本周/这周 (not 周围, 周到, 周年) and as a
weekday only before 一..六/日/天 (周三, not 一周三次; 每周三 is a habit: habits.py). A part of the day (下午) is a
mention only with a day or a clock time; 三点 is one on its own, 一点 (also "a little") only
with a part of the day or minutes. Traditional characters are mapped onto simplified ones
first (後天 reads as 后天), digits and English forms inside Chinese ("3pm", 3/3/2015) are read
by the shared numeric rules and the English grammar.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import timedelta
from functools import lru_cache
from typing import Any

from memtracks.data.files import bundled
from memtracks.data.lexicons import load_traditional
from memtracks.data.time_words import Lexicon, PeriodWord
from memtracks.pipeline.timenorm import calendar as cal
from memtracks.pipeline.timenorm import pieces as pc
from memtracks.pipeline.timenorm import resolve as rv
from memtracks.pipeline.timenorm.chinese_day import HALF, DayRules
from memtracks.pipeline.timenorm.common import (
    NUMERIC_RULES,
    Handler,
    alt,
    bound_pattern,
    compile_rules,
    full_year,
    stems,
)
from memtracks.pipeline.timenorm.compose import Connectors
from memtracks.pipeline.timenorm.engine import Context, Grammar, Piece, Rule
from memtracks.pipeline.timenorm.habits import compile_habits
from memtracks.pipeline.timenorm.tense import compile_cues

JOINER = re.compile(r"\s*的?\s*")
_WEEK_NOT = "末围边到全期岁年转刊长游密报"  # after 上周/这周: 周末, 周围, 周到, 周年 ... are other words
_HALVES = {"上": 1, "前": 1, "下": 2, "后": 2}


_NEEDS = {
    **dict.fromkeys(("ymd", "md_range", "md", "month_day_of_shift"), ("月",)),
    **dict.fromkeys(("ym", "month", "shifted_month", "month_period"), ("月",)),
    **dict.fromkeys(("year", "year_period", "decade"), ("年",)),
    **dict.fromkeys(("weekday", "weekend", "shifted_week"), ("week",)),
    **dict.fromkeys(("day_of_month", "day_of_month_ri"), ("日",)),
    **dict.fromkeys(("clock_range", "clock"), ("clock",)),
    **dict.fromkeys(("relative", "duration"), ("unit",)),
    "half": ("半",),
    "shifted_half": ("半",),
    "quarter": ("季",),
    "shifted_quarter": ("季",),
    "century": ("世",),
    "bare_year": ("digit",),
    "year_word": ("year_word",),
    "shifted_hour": ("unit",),
    "season": ("season",),
    "holiday": ("holiday",),
    "nth_weekday": ("week",),
    "nth": ("第",),
    "first_n": ("first_n",),
    "after_pass": ("过",),
    "vague_phrase": ("phrase",),
    "rolling": ("rolling",),
    "fused_day_part": ("part",),
    "day_word": ("day_word",),
    "now": ("now",),
    "part_of_day": ("part",),
    "part_after_date": ("早",),
}


class Chinese(DayRules):
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
        self.holidays = {e.word: e for e in lex["holidays"]}
        self.simplified = str.maketrans(load_traditional(bundled("lexicons", "traditional.yaml")))

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
            "year2": rf"(?:\d\d|[{single}]{{2}})",
            "qty": rf"(?:{alt(self.vague)}|{HALF}|(?!0\d)\d{{1,3}}(?:\.\d)?|[{numerals}]{{1,3}})",
            "half": HALF,
            "unit": f"(?:{alt(self.units)})",
            "dir": f"(?:{alt(self.directions)})",
            "shift": f"(?:{alt(self.shifts)})",
            "week": f"(?:{alt(self.lex.words('weekday_nouns'))})",
            "wd": weekday if weekday.startswith("(") else f"[{weekday}]",
            "period": f"(?:{alt(self.periods)})",
            "year_period": f"(?:{alt(w for w, e in self.periods.items() if not e.thirds and w != '中')})",
            "season": f"(?:{alt(self.seasons)})",
            "week_not": _WEEK_NOT + "".join(self.weekdays),
            "phrase": f"(?:{alt(self.phrases)})",
            "fused": f"(?:{alt(self.fused)})",
            "part": f"(?:{alt(self.parts)})",
            "holiday": f"(?:{alt(self.holidays)})",
            "now": f"(?:{alt(self.lex.words('now_words'))})",
            "dur": f"(?:{alt(self.lex.words('duration_cues'))})",
            "year_word": "(?:" + "|".join(_guarded(e.word, e.not_after) for e in self._by_length("year_words")) + ")",
            "day_word": "(?:" + "|".join(_guarded(e.word, e.not_after) for e in self._by_length("day_words")) + ")",
        }
        f["mnum"] = rf"(?:\d{{1,2}}|[{numerals}]{{1,3}})"
        f["yany"] = rf"(?:(?P<y>{f['year']})|(?P<y2>{f['year2']}))"
        return f

    def _by_length(self, section: str) -> list[Any]:
        return sorted(self.lex[section], key=lambda e: -len(e.word))

    def rules(self) -> tuple[Rule, ...]:
        """Every Chinese rule; for equal spans the earlier rule wins."""
        table = [*self._calendar_rules(), *self.relative_rules(), *self.day_rules()]
        return (*NUMERIC_RULES, *compile_rules(table, self.fragments(), _NEEDS, self.classes()))

    def classes(self) -> dict[str, frozenset[str]]:
        """Gate characters of the word classes in ``_NEEDS`` (the first character of each word)."""

        def first(words: Any) -> frozenset[str]:
            return frozenset(w[0] for w in words if w)

        return {
            "月": frozenset("月"),
            "年": frozenset("年"),
            "日": frozenset("日号"),
            "week": frozenset("周星礼"),
            "clock": frozenset("点时"),
            "季": frozenset("季"),
            "世": frozenset("世"),
            "半": frozenset("半"),
            "第": frozenset("第"),
            "first_n": frozenset("前最头"),
            "过": frozenset("过"),
            "unit": frozenset("".join(self.units)),
            "part": first([*self.parts, *self.fused]),
            "day_word": first(self.days),
            "year_word": first(self.years) | frozenset("本这"),
            "season": first(self.seasons),
            "holiday": first(self.holidays),
            "now": first(self.lex.words("now_words")),
            "phrase": first(self.phrases),
            "rolling": frozenset("过最近未接今之以还后"),
            "早": frozenset("早晚"),
        }

    def _calendar_rules(self) -> list[tuple[str, Handler, str]]:
        return [
            ("ymd", self.date, r"(?<![\d$n])$yany年\s*(?P<m>$mnum)月\s*(?P<d>$mnum)(?:[日号]|(?![\d$n]))"),
            (
                "md_range",
                self.md_range,
                r"(?:[从自由]\s*)?(?<![\d$n])(?:$yany年)?(?P<m>$mnum)月(?P<d>$mnum)[日号]?\s*(?:到|至|-|~|—)\s*(?P<d2>$mnum)[日号]"
                r"(?!\s*[\d$n]*月)",
            ),
            ("md", self.date, r"(?<![\d$n])(?P<m>$mnum)月(?P<d>$mnum)[日号]"),
            ("month_day_of_shift", self.shifted_month_day, r"(?P<shift>$shift)(?:个)?月(?P<d>$mnum)[日号]"),
            ("ym", self.month, r"(?<![\d$n])$yany年\s*(?P<m>$mnum)月份?(?P<per>$period)?(?![\d$n])"),
            ("month", self.month, r"(?<![\d$n个上下这本每第])(?P<m>$mnum)月份?(?P<per>$period)?(?![\d$n])"),
            (
                "half",
                self.half,
                r"(?:(?P<yw>$year_word)|$yany年|(?P<shift>$shift)个)?的?(?P<h>[上下前后])半(?P<u>年|个?月|周)(?![$n])",
            ),
            ("shifted_half", self.half, r"(?P<shift>$shift)个半(?P<u>年)"),
            ("quarter", self.quarter, r"(?:(?P<yw>$year_word)|(?P<y>$year)年)?的?第?(?P<q>[一二三四1-4])季度"),
            ("shifted_quarter", self.shifted_unit, r"(?P<shift>$shift)(?:个|一)?(?P<u>季度)"),
            ("decade", self.decade, r"(?:(?P<c>[$n]{2,3}|\d{1,2})世纪)?(?P<d>[一二三四五六七八九]十|\d0)年代"),
            ("century", self.century, r"(?P<c>[$n]{2,3}|\d{1,2})世纪(?!\S{0,4}年代)"),
            (
                "year",
                self.year,
                r"(?<![\d$n])(?:(?P<y>$year)|(?P<y2>0\d|[789]\d|零[$n]|[七八九][$n]))年(?P<per>$year_period)?(?![代级龄纪度间])",
            ),
            ("bare_year", self.bare_year, r"(?<![\d.])(?P<y>(?:19|20)\d\d)(?![\d年])"),
            ("year_word", self.year, r"(?P<yw>$year_word)(?:年?(?P<per>$year_period)(?![$n]))?"),
            ("year_period", self.year, r"(?<![\d$n今去明前后来])年(?P<per>$year_period)(?![$n])"),
            ("shifted_month", self.shifted_month, r"(?P<shift>$shift)(?:一?个)?月份?(?P<per>$period)?(?![球亮光饼色])"),
            ("month_period", self.shifted_month, r"(?<![\d$n个上下这本岁每年])月(?P<per>$period)(?![$n])"),
            (
                "weekday",
                self.weekday,
                r"(?:(?<![一两二三四五六七八九十几\d])|(?<=[周期拜][一二三四五六日天]))"  # 一周三次; 周二周四
                r"(?:(?P<shift>$shift)个?)?(?:$week)(?P<wd>$wd)(?![次遍回趟])",
            ),
            ("weekend", self.weekend, r"(?:(?P<shift>$shift)个?)?周末"),
            (
                "shifted_week",
                self.shifted_unit,
                r"(?P<shift>$shift)(?:个|一)?(?P<work>工作)?(?P<u>$week)(?![$week_not])",
            ),
            ("shifted_hour", self.shifted_hour, r"(?P<shift>[上下这])个?(?:小时|钟头)"),
            (
                "season",
                self.season,
                r"(?:(?:(?P<yw>$year_word)|(?P<y>$year)年|(?P<shift>$shift)个?)的?)?(?P<s>$season)",
            ),
            ("holiday", self.holiday, r"(?:(?:(?P<yw>$year_word)|(?P<y>$year)年)的?)?(?P<h>$holiday)"),
            ("nth_weekday", self.nth_weekday, r"(?:第(?P<n>$num)个|(?P<last>最后)一个)(?:$week)(?P<wd>$wd)"),
            ("nth", self.nth, r"第(?P<n>$num)(?:个)?(?P<u>周|星期|礼拜|月|季度|天)"),
            (
                "first_n",
                self.first_n,
                r"(?P<w>前|最后|头)\s*(?P<q>$num)\s*(?P<ge>个)?(?P<u>天|日|周|星期|礼拜|月|年|小时|分钟)",
            ),
            (
                "day_of_month",
                self.day_of_month,
                r"(?<![\d$n月第])(?P<d>\d{1,2}|[$n]{1,3})号(?![线楼房间门床球位台车机厅窗码子院])",
            ),
            ("day_of_month_ri", self.day_of_month, r"(?<![\d月第期])(?P<d>\d{1,2})日(?![本元子常记期语文报])"),
        ]

    def trigger(self) -> re.Pattern[str]:
        """Cheap pre-check: a text matching none of these cannot hold a Chinese time."""
        words = [*self.days, *self.fused, *self.parts, *self.units, *self.years, *self.seasons, *self.holidays]
        words += [*self.phrases, *self.lex.words("weekday_nouns"), *self.lex.words("now_words")]
        words += ["月", "年", "点", "时", "号", "日", "季", "世纪"]
        return re.compile(r"\d|" + alt(stems(words)))

    def connectors(self) -> Connectors:
        lex = self.lex
        roles = {r: [e.word for e in lex["range_words"] if e.role == r] for r in ("open", "infix", "pair", "close")}
        never = re.compile(r"(?!)")
        return Connectors(
            year_gap=re.compile(r"\s*的?\s*"),
            year_first=True,
            selector_gap=re.compile(r"\s*的?\s*"),
            selector_after=True,
            offset_gap=never,
            week_gap=re.compile(r"\s*的?\s*"),
            range_open=re.compile(rf"(?:{alt(roles['open'])})\s*$"),
            range_infix=re.compile(rf"\s*(?:{alt(roles['infix'])})\s*"),
            pair_infix=re.compile(rf"\s*(?:{alt(roles['pair'])})\s*"),
            list_gap=re.compile(rf"\s*(?:{alt(lex.words('list_words'))})\s*"),
            range_close=re.compile(rf"\s*(?:{alt(roles['close'])})"),
            length_gap=never,
            bound_prefix=bound_pattern(lex["bounds"], "prefix", r"(?:{})\s*$"),
            bound_suffix=bound_pattern(lex["bounds"], "suffix", r"\s*(?:{})"),
            bound_paired=bound_pattern(lex["bounds"], "paired", r"(?:{})\s*$"),
        )

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

    def year_of(self, m: re.Match[str], ctx: Context) -> int | None:
        """The year a match names: 4 digits / numerals (1900-2099) or 2 (08年, 零八年)."""
        groups = m.groupdict()
        if groups.get("y"):
            year = self.number(groups["y"])
            return year if year is not None and 1900 <= year <= 2099 else None
        if groups.get("y2"):
            two = self.number(groups["y2"])
            return full_year(f"{two:02d}", ctx) if two is not None else None
        if groups.get("yw"):
            return ctx.today.year + self.years[groups["yw"]]
        return None

    def mode(self, m: re.Match[str], ctx: Context) -> rv.Mode:
        """The shift word's value, or the tense around the match."""
        if m.groupdict().get("shift"):
            return self.shifts[m["shift"]]
        return ctx.tense(m.span())

    def part_of(self, m: re.Match[str]) -> PeriodWord | None:
        """The period suffix (初, 底, 中旬 ...) of the match, if any."""
        return self.periods[m["per"]] if m.groupdict().get("per") else None

    # -- handlers ---------------------------------------------------------------------------

    def date(self, m: re.Match[str], ctx: Context) -> Piece | None:
        month, day = self.number(m["m"]), self.number(m["d"])
        if month is None or day is None:
            return None
        if "y" in m.re.groupindex:
            year = self.year_of(m, ctx)
            return pc.day_piece(ctx, m.span(), month, day, year) if year else None
        return pc.day_piece(ctx, m.span(), month, day, None, ctx.tense(m.span()))

    def md_range(self, m: re.Match[str], ctx: Context) -> Piece | None:
        month, first, last = self.number(m["m"]), self.number(m["d"]), self.number(m["d2"])
        if month is None or first is None or last is None or last < first or not 1 <= month <= 12:
            return None
        return pc.day_range_piece(ctx, m.span(), month, first, last, self.year_of(m, ctx))

    def shifted_month_day(self, m: re.Match[str], ctx: Context) -> Piece | None:
        day = self.number(m["d"])
        year, month = cal.add_months(ctx.today.year, ctx.today.month, self.shifts[m["shift"]])
        found = rv.safe_date(year, month, day) if day else None
        return Piece(m.span(), rv.RELATIVE, day=found) if found else None

    def month(self, m: re.Match[str], ctx: Context) -> Piece | None:
        month = self.number(m["m"])
        if month is None or not 1 <= month <= 12:
            return None
        period = self.part_of(m)
        part, thirds = (period.part, period.thirds) if period else (None, False)
        if "y" in m.re.groupindex:
            year = self.year_of(m, ctx)
            return pc.month_piece(ctx, m.span(), month, year, None, part, thirds) if year else None
        return pc.month_piece(ctx, m.span(), month, None, ctx.tense(m.span()), part, thirds)

    def half(self, m: re.Match[str], ctx: Context) -> Piece | None:
        unit = m["u"].lstrip("个")
        if "h" not in m.re.groupindex:  # 上个半年: the half-year before this one
            return pc.rolling_piece(ctx, m.span(), 1, "half_year", self.shifts[m["shift"]])
        number = _HALVES[m["h"]]
        if unit == "年":
            year = self.year_of(m, ctx) or ctx.today.year + (self.shifts[m["shift"]] if m["shift"] else 0)
            return Piece(m.span(), rv.FUZZY, interval=cal.half(ctx.tz, year, number))
        if unit == "月":
            shift = self.shifts[m["shift"]] if m["shift"] else 0
            y, mo = cal.add_months(ctx.today.year, ctx.today.month, shift)
            return pc.month_piece(ctx, m.span(), mo, y, None, "early" if number == 1 else "late")
        day = ctx.today + timedelta(weeks=self.shifts[m["shift"]] if m["shift"] else 0)
        return Piece(m.span(), rv.FUZZY, interval=cal.week_part(ctx.tz, day, "early" if number == 1 else "late"))

    def quarter(self, m: re.Match[str], ctx: Context) -> Piece | None:
        q = self.number(m["q"]) or 0
        year = self.year_of(m, ctx)
        if year is None:
            return pc.selector_piece(m.span(), "quarter", q, alone=cal.quarter(ctx.tz, ctx.today.year, q))
        return Piece(m.span(), rv.ABSOLUTE, interval=cal.quarter(ctx.tz, year, q))

    def decade(self, m: re.Match[str], ctx: Context) -> Piece | None:
        tens = (self.number(m["d"]) or 0) // 10 if not m["d"].isdigit() else int(m["d"]) // 10
        if m["c"]:
            century = self.number(m["c"])
            if century is None:
                return None
            first = (century - 1) * 100 + tens * 10
        else:
            base = ctx.today.year // 100 * 100
            first = base + tens * 10 if base + tens * 10 <= ctx.today.year else base - 100 + tens * 10
        return Piece(m.span(), rv.RELATIVE, interval=cal.decade(ctx.tz, first))

    def century(self, m: re.Match[str], ctx: Context) -> Piece | None:
        n = self.number(m["c"])
        return Piece(m.span(), rv.ABSOLUTE, interval=cal.decade(ctx.tz, (n - 1) * 100, 100)) if n and n < 100 else None

    def year(self, m: re.Match[str], ctx: Context) -> Piece | None:
        named = bool(set(m.re.groupindex) & {"y", "yw"})
        year = self.year_of(m, ctx) if named else ctx.today.year
        if year is None:
            return None
        period = self.part_of(m)
        piece = pc.year_piece(
            ctx, m.span(), year, period.part if period else None, narrow=bool(period and period.narrow)
        )
        return piece if named or piece is None else replace(piece, cyclic=True)  # 年底: every year has one

    def bare_year(self, m: re.Match[str], ctx: Context) -> Piece | None:
        return pc.year_piece(ctx, m.span(), int(m["y"]), strong=False)

    def shifted_month(self, m: re.Match[str], ctx: Context) -> Piece | None:
        shifted = "shift" in m.re.groupindex
        year, month = cal.add_months(ctx.today.year, ctx.today.month, self.shifts[m["shift"]] if shifted else 0)
        period = self.part_of(m)
        if period:
            piece = pc.month_piece(ctx, m.span(), month, year, None, period.part, period.thirds)
            return piece if shifted or piece is None else replace(piece, cyclic=True)  # 月底: every month has one
        return Piece(m.span(), rv.RELATIVE, interval=cal.month(ctx.tz, year, month))

    def weekday(self, m: re.Match[str], ctx: Context) -> Piece:
        return pc.weekday_piece(ctx, m.span(), self.weekdays[m["wd"]], self.mode(m, ctx), m["shift"] is not None)

    def weekend(self, m: re.Match[str], ctx: Context) -> Piece:
        mode = self.mode(m, ctx)
        interval = rv.weekend_for(ctx.ref, mode)
        return Piece(m.span(), rv.mode_confidence(mode), interval=interval, cyclic=not isinstance(mode, int))

    def shifted_unit(self, m: re.Match[str], ctx: Context) -> Piece:
        unit = "quarter" if m["u"] == "季度" else "week"
        if m.groupdict().get("work"):
            return pc.work_week_piece(ctx, m.span(), self.shifts[m["shift"]])
        return pc.unit_piece(ctx, m.span(), unit, self.shifts[m["shift"]])

    def shifted_hour(self, m: re.Match[str], ctx: Context) -> Piece:
        shift = self.shifts[m["shift"]]
        return pc.rolling_piece(ctx, m.span(), 1, "hour", -1 if shift < 0 else 1)

    def season(self, m: re.Match[str], ctx: Context) -> Piece | None:
        start_month = self.seasons[m["s"]]
        year = self.year_of(m, ctx)
        if year is not None and (m["y"] or self.years.get(m["yw"] or "", 0) != 0):
            return Piece(m.span(), rv.FUZZY, interval=rv.season_of_year(ctx.ref, start_month, year))
        mode = 0 if m["yw"] else self.mode(m, ctx)
        interval = rv.season_for(ctx.ref, start_month, mode)
        confidence = min(rv.FUZZY, rv.mode_confidence(mode))
        return Piece(m.span(), confidence, interval=interval, cyclic=not isinstance(mode, int))

    def holiday(self, m: re.Match[str], ctx: Context) -> Piece | None:
        return pc.holiday_piece(ctx, m.span(), self.holidays[m["h"]], self.year_of(m, ctx), ctx.tense(m.span()))

    def nth_weekday(self, m: re.Match[str], ctx: Context) -> Piece | None:
        index = -1 if m["last"] else self.number(m["n"])
        return pc.selector_piece(m.span(), "weekday", index, weekday=self.weekdays[m["wd"]]) if index else None

    def nth(self, m: re.Match[str], ctx: Context) -> Piece | None:
        n = self.number(m["n"])
        unit = {"周": "week", "星期": "week", "礼拜": "week", "月": "month", "季度": "quarter", "天": "day"}[m["u"]]
        return pc.selector_piece(m.span(), unit, n) if n else None

    def first_n(self, m: re.Match[str], ctx: Context) -> Piece | None:
        """前10天 / 最后3周 of a period (今年的最后3周); 前1周 alone: the past week. 日 counts
        only after 最后 (在汇丰最后一日: the last day, not 后一日, the day after)."""
        count = self.number(m["q"])
        if m["u"] == "日" and m["w"] != "最后":
            return None
        unit = {
            "天": "day",
            "日": "day",
            "周": "week",
            "星期": "week",
            "礼拜": "week",
            "月": "month",
            "年": "year",
            "小时": "hour",
            "分钟": "minute",
        }[m["u"]]
        if not count:
            return None
        alone = rv.range_interval(ctx.ref, unit, count, -1) if m["w"] == "前" else None
        return pc.selector_piece(m.span(), unit, 1 if m["w"] != "最后" else -1, count, alone=alone)

    def day_of_month(self, m: re.Match[str], ctx: Context) -> Piece | None:
        """15号交报告, 29日你来吗: this month's (or by the tense the last / next month's). A
        lone "12号" with nothing around it is as likely a number (a seat, a line) as a date."""
        if ctx.text.strip() == m.group():
            return None
        day = self.number(m["d"])
        return pc.dom_piece(ctx, m.span(), day, ctx.tense(m.span()), True) if day else None


def _guarded(word: str, not_after: str) -> str:
    """``word``, not preceded by any character of ``not_after``."""
    return f"(?<![{re.escape(not_after)}]){re.escape(word)}" if not_after else re.escape(word)


@lru_cache(maxsize=4)
def grammar(lex: Lexicon) -> Grammar:
    """The Chinese grammar compiled from the time words ``lex`` (once for each lexicon)."""
    chinese = Chinese(lex)
    table = chinese.simplified
    connectors = chinese.connectors()
    return Grammar(
        chinese.rules(),
        JOINER,
        chinese.trigger(),
        compile_cues(lex, word_bounded=False),
        connectors,
        compile_habits(lex, False, connectors),
        lambda text: text.translate(table),
    )
