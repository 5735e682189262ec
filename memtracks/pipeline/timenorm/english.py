"""English time expressions: patterns built from ``lexicons/time_en.yaml`` and their handlers.

Month names that are also common words (May, March, August) count only when capitalised and in
a date context ("in May", "May 3", "May 2023", "last May", "early May"); weekday abbreviations
only when capitalised after on/last/next/this or inside a date. "every Monday" is habitual and
not a time. A part of the day ("morning") or "at 9" on its own is not a mention: it only refines
an adjacent day ("Friday morning", "tomorrow at 9").
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date
from functools import cache

from . import calendar as cal
from . import resolve as rv
from .common import CLOCK_24, ISO_DATE, Handler, alt, compile_rules, key, stems
from .engine import DIGITS, Clock, Context, Grammar, Piece, Rule, phrase_span
from .lexicon import Lexicon, lexicon
from .tense import compile_cues

YEAR = r"(?:19|20)\d{2}"
JOINER = re.compile(r"(?:\s*,)?\s*(?:(?:at|on|in|the|around|about|of|by)\s+){0,2}", re.IGNORECASE)
# Substrings one of which a text must contain for a rule to be tried (speed only).
_REQUIRES = {
    **dict.fromkeys(("month_day", "day_month", "month_year", "year", "clock_meridiem"), DIGITS),
    "season_year": DIGITS,
    "ago": ("ago", "back"),
    "from_now": ("from",),
    "clock_oclock": ("clock",),
    "postfix_shift": ("before", "after"),
    "earlier_later": ("earlier", "later"),
    "past_unit": ("past",),
    "range": ("past", "last", "previous", "next", "coming"),
}
_CALENDAR_UNITS = ("week", "weekend", "month", "year")
_RANGE_WORDS = {"past": -1, "last": -1, "previous": -1, "next": 1, "coming": 1}


class English:
    """Lexicon tables and the handler of each English rule."""

    def __init__(self, lex: Lexicon):
        self.lex = lex
        windows = {w.name: (w.start_hour, w.end_hour) for w in lex["part_windows"]}
        self.parts = {key(e.word): windows[e.part] for e in lex["day_parts"]}
        self.fused = {key(e.word): (e.offset, windows[e.part]) for e in lex["fused_day_parts"]}
        self.days = {key(e.word): e.offset for e in lex["day_words"]}
        self.weekdays = lex.table("weekdays", "index")
        self.months = lex.table("months", "number")
        self.numbers = lex.table("numbers", "value")
        self.vague = {key(e.word): e for e in lex["vague_quantities"]}
        self.phrases = {key(e.word): e for e in lex["vague_phrases"]}
        self.units = lex.table("units", "unit")
        self.seasons = lex.table("seasons", "start_month")
        self.shifts = {key(e.word): e.shift if e.tense is None else e.tense for e in lex["shifts"]}
        self.postfix = lex.table("postfix_shifts", "shift")
        self.periods = {key(e.word): e for e in lex["periods"]}
        self.clock_words = {key(e.word): (e.hour, e.minute) for e in lex["clock_words"]}

    # -- patterns ---------------------------------------------------------------------------

    def fragments(self) -> dict[str, str]:
        """Named regex fragments built from the lexicon, used as ``$name`` in the rules."""
        lex = self.lex
        hours = [w for w, v in self.numbers.items() if v == int(v) and 1 <= v <= 12 and len(w) > 2]
        cal_units = [w for w, u in self.units.items() if u == w and u in _CALENDAR_UNITS]
        number = alt(self.numbers)
        f = {
            "year": YEAR,
            "wd_full": f"(?i:{alt(lex.words('weekdays', abbreviation=False))})",
            "wd_abbr": alt(lex.words("weekdays", abbreviation=True), capitalise=True),
            "mon_full": f"(?i:{alt(lex.words('months', ambiguous=False, abbreviation=False))})",
            "mon_amb": alt(lex.words("months", ambiguous=True), capitalise=True),
            "mon_abbr": alt(lex.words("months", abbreviation=True), capitalise=True),
            "num": rf"(?:\d{{1,3}}|(?i:(?:{number})(?:-(?:{number}))?))",
            "vague": f"(?i:{alt(self.vague)})",
            "unit": f"(?i:{alt(self.units)})",
            "cal_unit": f"(?i:{alt(cal_units)})",
            "my_unit": f"(?i:{alt(w for w in cal_units if w in ('month', 'year'))})",
            "shift": f"(?i:{alt(self.shifts)})",
            "postfix": f"(?i:{alt(self.postfix)})",
            "prefix": f"(?i:{alt(lex.words('date_prefixes'))})",
            "season": f"(?i:{alt(self.seasons)})",
            "hour_word": f"(?i:{alt(hours)})",
            "of_period": f"(?i:{alt(lex.words('periods', form='of'))})",
            "pre_period": f"(?i:{alt(lex.words('periods', form='prefix'))})",
            "range_dir": f"(?i:{alt(_RANGE_WORDS)})",
            "fused": f"(?i:{alt(self.fused)})",
            "day_word": f"(?i:{alt(self.days)})",
            "phrase": f"(?i:{alt(self.phrases)})",
            "clock_word": f"(?i:{alt(self.clock_words)})",
            "part": f"(?i:{alt(self.parts)})",
        }
        f["wd"] = f"(?:{f['wd_full']}|{f['wd_abbr']})"
        f["mon_ctx"] = f"(?:{f['mon_full']}|{f['mon_amb']})"
        f["mon_date"] = f"(?:{f['mon_full']}|{f['mon_amb']}|{f['mon_abbr']})"
        f["qty"] = f"(?:{f['vague']}|{f['num']})"
        f["wd_opt"] = f"(?:(?P<wd>{f['wd']}),?\\s+)?"
        return f

    def rules(self) -> tuple[Rule, ...]:
        """Every English rule; for equal spans the earlier rule wins."""
        table = [*self._date_rules(), *self._relative_rules(), *self._clock_rules()]
        return (ISO_DATE, *compile_rules(table, self.fragments(), _REQUIRES), CLOCK_24)

    def _date_rules(self) -> list[tuple[str, Handler, str]]:
        return [
            (
                "month_day",
                self.date,
                r"\b${wd_opt}(?P<mon>$mon_date)\b\.?\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?\b(?![:.]\d)"
                r"(?:,?\s+(?P<y>$year)\b)?",
            ),
            (
                "day_month",
                self.date,
                r"\b${wd_opt}(?:(?i:the)\s+)?(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?:(?i:of)\s+)?"
                r"(?P<mon>$mon_date)\b\.?(?:,?\s+(?P<y>$year)\b)?",
            ),
            (
                "month_year",
                self.month_year,
                r"\b(?P<mon>$mon_date)\b\.?,?\s+(?:(?i:of)\s+)?(?P<y>$year)\b",
            ),
            (
                "period",
                self.period,
                r"\b(?:(?:(?i:the)\s+)?(?P<of>$of_period)\s+(?i:of)|(?P<pre>$pre_period))(?:\s+|-)"
                r"(?:(?P<mon>$mon_ctx)\b(?:,?\s+(?P<y>$year)\b)?"
                r"|(?:(?P<shift>$shift|(?i:the))\s+)?(?P<u>$my_unit)\b|(?P<yr>$year)\b)",
            ),
            (
                "weekday_of_week",
                self.weekday,
                r"\b(?P<wd>$wd)\s+(?:(?i:of)\s+)?(?P<shift>$shift)\s+(?i:week)\b",
            ),
            ("shifted_weekday", self.weekday, r"\b(?P<shift>$shift)\s+(?P<wd>$wd)\b"),
            ("weekday", self.weekday, r"(?<![Ee]very )\b(?P<wd>$wd_full)\b"),
            ("on_weekday_abbr", self.weekday, r"\b(?i:on)\s+(?P<phrase>(?P<wd>$wd_abbr))\b"),
            ("fused_day_part", self.fused_day_part, r"\b(?P<w>$fused)\b"),
            ("day_word", self.day_word, r"\b(?P<w>$day_word)\b"),
            ("shifted_season", self.season, r"\b(?P<shift>$shift)\s+(?P<s>$season)\b"),
            (
                "season_year",
                self.season,
                r"\b(?:(?i:the)\s+)?(?P<s>$season)\s+(?:(?i:of)\s+)?(?P<y>$year)\b",
            ),
            ("season", self.season, r"\b$prefix\s+(?P<phrase>(?:(?i:the)\s+)?(?P<s>$season))\b"),
            ("shifted_month", self.month, r"\b(?P<shift>$shift)\s+(?P<mon>$mon_ctx)\b"),
            ("month_in_context", self.month, r"\b$prefix\s+(?P<phrase>(?P<mon>$mon_ctx))\b"),
            ("month", self.month, r"\b(?P<mon>$mon_full)\b"),
            ("year", self.year, r"\b$prefix\s+(?P<phrase>(?P<y>$year))\b(?![-/.,:]?\d|s\b|\s*%)"),
        ]

    def _relative_rules(self) -> list[tuple[str, Handler, str]]:
        return [
            (
                "postfix_shift",
                self.postfix_shift,
                r"\b(?i:the)\s+(?P<u>$cal_unit)\s+(?P<post>$postfix)\b",
            ),
            ("shifted_unit", self.shifted_unit, r"\b(?P<shift>$shift)\s+(?P<u>$cal_unit)\b"),
            ("weekend", self.weekend, r"\b(?:(?i:the)\s+)?(?i:weekend)\b"),
            ("ago", self.ago, r"\b(?P<q>$qty)\s+(?P<u>$unit)\s+(?i:ago|back)\b"),
            ("in", self.within, r"\b(?i:in)\s+(?P<q>$qty)\s+(?P<u>$unit)\b(?!\s+(?i:ago|back))"),
            ("from_now", self.ahead, r"\b(?P<q>$qty)\s+(?P<u>$unit)\s+(?i:from\s+(?:now|today))\b"),
            (
                "range",
                self.range,
                r"\b(?:(?i:the|these)\s+)?(?P<dir>$range_dir)\s+(?P<q>$qty)\s+(?P<u>$unit)\b",
            ),
            ("past_unit", self.past_unit, r"\b(?:(?i:the)\s+)?(?i:past)\s+(?P<u>$unit)\b"),
            ("vague_phrase", self.vague_phrase, r"\b(?P<w>$phrase)\b"),
            (
                "earlier_later",
                self.earlier_later,
                r"\b(?P<el>(?i:earlier|later))\s+(?i:this)\s+(?P<u>$cal_unit)\b",
            ),
        ]

    def _clock_rules(self) -> list[tuple[str, Handler, str]]:
        return [
            (
                "clock_meridiem",
                self.clock,
                r"\b(?P<h>\d{1,2})(?::(?P<mi>[0-5]\d))?\s*(?P<mer>(?i:[ap]\.m\.|[ap]\.?m\b))",
            ),
            ("clock_oclock", self.clock, r"\b(?P<h>\d{1,2}|$hour_word)\s+(?i:o['’]clock)\b"),
            ("clock_word", self.clock_word, r"\b(?P<w>$clock_word)\b"),
            (
                "clock_at",
                self.weak_clock,
                r"(?<=\b[Aa]t )(?P<h>\d{1,2}|$hour_word)\b(?!\s*(?:%|[:.,]\d))",
            ),
            ("part_of_day", self.part, r"\b(?P<w>$part)\b"),
        ]

    def trigger(self) -> re.Pattern[str]:
        """Cheap pre-check on the lower-cased text: without any of these stems (or a digit) the
        text cannot hold an English time."""
        lex = self.lex
        words = [*self.days, *self.fused, *self.parts, *self.units, *self.seasons]
        words += [*self.clock_words, *self.phrases, *lex.words("weekdays"), *lex.words("months")]
        words.append("o'clock")
        return re.compile(r"\d|" + alt(stems(words)))  # searched in the lower-cased text

    # -- helpers ----------------------------------------------------------------------------

    def mode(self, word: str | None, match: re.Match[str], ctx: Context) -> rv.Mode:
        """A shift word's mode, or the tense around the match when there is none."""
        if word is None:
            return ctx.tense(phrase_span(match))
        return self.shifts.get(key(word), 0)

    def quantity(self, text: str) -> tuple[float, float, float]:
        """(low, high, confidence) of a number or vague quantity."""
        k = key(text)
        if k in self.vague:
            entry = self.vague[k]
            return entry.low, entry.high, entry.confidence
        value = int(k) if k.isdigit() else sum(self.numbers[p] for p in k.split("-"))
        return value, value, rv.RELATIVE if value == int(value) else rv.APPROXIMATE

    # -- handlers ---------------------------------------------------------------------------

    def date(self, m: re.Match[str], ctx: Context) -> Piece | None:
        month, day = self.months[key(m["mon"])], int(m["d"])
        if m["y"]:
            return _day_piece(m, rv.safe_date(int(m["y"]), month, day), rv.ABSOLUTE)
        year = rv.year_for_day(ctx.today, month, day, ctx.tense(m.span()))
        return _day_piece(m, rv.safe_date(year, month, day), rv.INFERRED_YEAR)

    def month_year(self, m: re.Match[str], ctx: Context) -> Piece:
        interval = cal.month(ctx.tz, int(m["y"]), self.months[key(m["mon"])])
        return Piece(m.span(), rv.ABSOLUTE, interval=interval)

    def period(self, m: re.Match[str], ctx: Context) -> Piece:
        entry = self.periods[key(m["of"] or m["pre"])]
        if m["mon"]:
            month = self.months[key(m["mon"])]
            year = int(m["y"]) if m["y"] else rv.year_for_month(ctx.today, month, ctx.tense(m.span()))
            interval = rv.period_of_month(ctx.ref, year, month, entry.part)
        elif m["u"]:
            shift = _as_shift(self.shifts.get(key(m["shift"] or "this"), 0))
            if self.units[key(m["u"])] == "month":
                year, month = cal.add_months(ctx.today.year, ctx.today.month, shift)
                interval = rv.period_of_month(ctx.ref, year, month, entry.part)
            else:
                interval = cal.year_part(ctx.tz, ctx.today.year + shift, entry.part, entry.narrow)
        else:
            interval = cal.year_part(ctx.tz, int(m["yr"]), entry.part, entry.narrow)
        return Piece(m.span(), rv.FUZZY, interval=interval)

    def weekday(self, m: re.Match[str], ctx: Context) -> Piece:
        mode = self.mode(m["shift"] if "shift" in m.re.groupindex else None, m, ctx)
        day = rv.weekday_date(ctx.today, self.weekdays[key(m["wd"])], mode)
        return Piece(phrase_span(m), rv.mode_confidence(mode), day=day)

    def fused_day_part(self, m: re.Match[str], ctx: Context) -> Piece:
        offset, window = self.fused[key(m["w"])]
        return Piece(m.span(), rv.RELATIVE, day=cal.shift_date(ctx.today, offset, "day"), part=window)

    def day_word(self, m: re.Match[str], ctx: Context) -> Piece:
        day = cal.shift_date(ctx.today, self.days[key(m["w"])], "day")
        return Piece(m.span(), rv.RELATIVE, day=day)

    def postfix_shift(self, m: re.Match[str], ctx: Context) -> Piece:
        unit = self.units[key(m["u"])]
        interval = cal.unit_at(ctx.ref, unit, self.postfix[key(m["post"])])
        return Piece(m.span(), rv.RELATIVE, interval=interval)

    def shifted_unit(self, m: re.Match[str], ctx: Context) -> Piece:
        unit, mode = self.units[key(m["u"])], self.shifts[key(m["shift"])]
        if unit == "weekend":
            return Piece(m.span(), rv.RELATIVE, interval=rv.weekend_for(ctx.ref, mode))
        return Piece(m.span(), rv.RELATIVE, interval=cal.unit_at(ctx.ref, unit, _as_shift(mode)))

    def weekend(self, m: re.Match[str], ctx: Context) -> Piece:
        mode = ctx.tense(m.span())
        return Piece(m.span(), rv.mode_confidence(mode), interval=rv.weekend_for(ctx.ref, mode))

    def ago(self, m: re.Match[str], ctx: Context) -> Piece:
        interval, confidence = self._offset(m, ctx, -1)
        return Piece(m.span(), confidence, interval=interval)

    def ahead(self, m: re.Match[str], ctx: Context) -> Piece:
        interval, confidence = self._offset(m, ctx, 1)
        return Piece(m.span(), confidence, interval=interval)

    def within(self, m: re.Match[str], ctx: Context) -> Piece | None:
        """ "in three days": ahead, unless a past cue makes it a duration ("did it in 3 days")."""
        return None if ctx.tense(m.span()) == "past" else self.ahead(m, ctx)

    def _offset(self, m: re.Match[str], ctx: Context, sign: int) -> tuple[cal.Interval, float]:
        low, high, confidence = self.quantity(m["q"])
        unit = self.units[key(m["u"])]
        if low == high:
            count, unit = rv.whole_units(low, unit)
            low = high = count
        return rv.offset_interval(ctx.ref, unit, int(low), int(high), sign), confidence

    def range(self, m: re.Match[str], ctx: Context) -> Piece:
        _, high, _ = self.quantity(m["q"])
        count, unit = rv.whole_units(high, self.units[key(m["u"])])
        interval = rv.range_interval(ctx.ref, unit, count, _RANGE_WORDS[key(m["dir"])])
        return Piece(m.span(), rv.FUZZY, interval=interval)

    def past_unit(self, m: re.Match[str], ctx: Context) -> Piece:
        """ "the past week": the last seven days up to the end of today."""
        interval = rv.range_interval(ctx.ref, self.units[key(m["u"])], 1, -1)
        return Piece(m.span(), rv.FUZZY, interval=interval)

    def vague_phrase(self, m: re.Match[str], ctx: Context) -> Piece:
        e = self.phrases[key(m["w"])]
        interval = rv.offset_interval(ctx.ref, e.unit, e.low, e.high, e.sign)
        return Piece(m.span(), e.confidence, interval=interval)

    def earlier_later(self, m: re.Match[str], ctx: Context) -> Piece:
        later = key(m["el"]) == "later"
        interval = rv.earlier_later(ctx.ref, self.units[key(m["u"])], later)
        return Piece(m.span(), rv.FUZZY, interval=interval)

    def season(self, m: re.Match[str], ctx: Context) -> Piece:
        start_month = self.seasons[key(m["s"])]
        if "y" in m.re.groupindex:
            return Piece(m.span(), rv.ABSOLUTE, interval=rv.season_of_year(ctx.ref, start_month, int(m["y"])))
        mode = self.mode(m["shift"] if "shift" in m.re.groupindex else None, m, ctx)
        interval = rv.season_for(ctx.ref, start_month, mode)
        return Piece(phrase_span(m), min(rv.FUZZY, rv.mode_confidence(mode)), interval=interval)

    def month(self, m: re.Match[str], ctx: Context) -> Piece:
        mode = self.mode(m["shift"] if "shift" in m.re.groupindex else None, m, ctx)
        month = self.months[key(m["mon"])]
        year = rv.year_for_month(ctx.today, month, mode)
        return Piece(phrase_span(m), rv.mode_confidence(mode), interval=cal.month(ctx.tz, year, month))

    def year(self, m: re.Match[str], ctx: Context) -> Piece:
        return Piece(phrase_span(m), rv.RELATIVE, interval=cal.year(ctx.tz, int(m["y"])))

    def clock(self, m: re.Match[str], ctx: Context) -> Piece | None:
        hour = int(m["h"]) if m["h"].isdigit() else int(self.numbers[key(m["h"])])
        minute = int(m["mi"]) if "mi" in m.re.groupindex and m["mi"] else 0
        meridiem = m["mer"][0].lower() + "m" if "mer" in m.re.groupindex else None
        if hour > (12 if meridiem else 23) or (meridiem and hour == 0):
            return None
        return Piece(m.span(), rv.RELATIVE, clock=Clock(hour, minute, meridiem))

    def weak_clock(self, m: re.Match[str], ctx: Context) -> Piece | None:
        """ "at 9": a clock only when joined to a day or part of day."""
        piece = self.clock(m, ctx)
        return replace(piece, strong=False) if piece else None

    def clock_word(self, m: re.Match[str], ctx: Context) -> Piece:
        hour, minute = self.clock_words[key(m["w"])]
        meridiem = "pm" if hour >= 12 else "am"  # noon is not ambiguous
        return Piece(m.span(), rv.RELATIVE, clock=Clock(hour, minute, meridiem))

    def part(self, m: re.Match[str], ctx: Context) -> Piece:
        return Piece(m.span(), rv.RELATIVE, part=self.parts[key(m["w"])], strong=False)


def _day_piece(m: re.Match[str], day: date | None, confidence: float) -> Piece | None:
    return Piece(m.span(), confidence, day=day) if day else None


def _as_shift(mode: rv.Mode) -> int:
    """A tense used as a shift: "this coming month" = next month."""
    if isinstance(mode, int):
        return mode
    return -1 if mode == "past" else 1


@cache
def grammar() -> Grammar:
    """The compiled English grammar (built once)."""
    lex = lexicon("en")
    english = English(lex)
    return Grammar(english.rules(), JOINER, english.trigger(), compile_cues(lex, word_bounded=True))
