"""English time expressions: patterns built from ``lexicons/time_en.yaml`` and their handlers
(dates and relative times here; clock times and parts of the day in ``english_clock.py``).

Words match case-insensitively ("march 3", "fri", "next tues"). Words that are also ordinary
English words count only in a date context: the months March, May and August alone need a
capital and must not read as a verb ("May I", "march on"); month abbreviations need a day, a
year or a date word next to them ("in dec", "Jan 5"); the weekday abbreviations mon, wed,
sat and sun need on / next / last ... before them or a date or clock time after them.
"every Monday" is a habit and not a time (habits.py).
"""

from __future__ import annotations

import re
from functools import lru_cache

from memtracks.data.time_words import Lexicon
from memtracks.pipeline.timenorm import pieces as pc
from memtracks.pipeline.timenorm import resolve as rv
from memtracks.pipeline.timenorm.common import (
    NUMERIC_RULES,
    Handler,
    alt,
    bound_pattern,
    compile_rules,
    full_year,
    key,
    stems,
    tokens,
)
from memtracks.pipeline.timenorm.compose import Connectors
from memtracks.pipeline.timenorm.engine import Context, Grammar, Piece, Rule, phrase_span
from memtracks.pipeline.timenorm.english_clock import ClockRules
from memtracks.pipeline.timenorm.english_periods import DECADE_WORDS, PeriodRules
from memtracks.pipeline.timenorm.english_relative import ORDINAL_SELECT, RelativeRules
from memtracks.pipeline.timenorm.habits import compile_habits
from memtracks.pipeline.timenorm.tense import compile_cues

YEAR = r"(?:19|20)\d{2}"
HALF = r"and\s+a\s+half"  # "two and a half years", "a year and a half"
JOINER = re.compile(r"(?:\s*,)?\s*(?:(?:at|on|in|the|around|about|of|for|@|circa)\s*){0,2}\s*", re.IGNORECASE)
# The word classes (and "digit") one of which a text must hold for a rule to run at all.
_NEEDS = {
    **dict.fromkeys(
        (
            "md_range",
            "dm_range",
            "month_day",
            "day_month",
            "month_year",
            "month_year2",
            "shifted_month",
            "month_in_context",
            "month_after_word",
            "month_range_left",
            "month",
            "month_capitalised",
        ),
        ("mon",),
    ),
    **dict.fromkeys(
        (
            "weekday_of_week",
            "week_weekday",
            "weekday_dom",
            "shifted_weekday",
            "weekday",
            "weekday_context",
            "weekday_before",
            "weekday_range_start",
            "weekday_range_end",
            "weekday_loose",
        ),
        ("wd",),
    ),
    **dict.fromkeys(("shifted_season", "season_year", "season"), ("season",)),
    **dict.fromkeys(("year", "bare_year", "dom_range"), ("digit",)),
    "selector": ("unit", "wd"),
    "neighbour": ("anchor",),
    **dict.fromkeys(
        ("count_selector", "the_unit", "shifted_unit", "in", "length", "length_starting", "rolling", "postfix_shift"),
        ("unit",),
    ),
    **dict.fromkeys(("clock_range", "clock_at", "clock_before_part"), ("digit", "hour")),
    **dict.fromkeys(("clock_words_meridiem", "clock_hour_minute", "clock_words_weak"), ("hour",)),
    **dict.fromkeys(("fused_modified", "fused_day_part", "part_in_the", "part_modified", "part_of_day"), ("part",)),
    "holiday": ("holiday",),
    "period": ("period",),
    "quarter": ("quarter",),
    "decade": ("digit", "decade"),
    "century": ("century",),
    "year_named": ("year",),
    "week_of": ("week",),
    "week_number": ("week",),
    "dom_of_month": ("month",),
    "dom": ("digit", "ordinal"),
    "year_to_date": ("date",),
    "till_date": ("date",),
    "shifted_small": ("unit",),
    "weekend": ("weekend",),
    "ago": ("ago",),
    "later": ("later",),
    "anchored": ("anchor",),
    "past_unit": ("past",),
    "vague_phrase": ("phrase",),
    "earlier_later": ("later",),
    "day_word": ("day_word",),
    "clock_relative": ("clock_rel",),
    "clock_oclock": ("clock",),
    "clock_ish": ("ish",),
    "clock_word": ("clock_word",),
    "zone": ("zone",),
    "now": ("now",),
    "part_meal": ("meal",),
}
_CALENDAR_UNITS = ("week", "weekend", "month", "quarter", "year", "decade")
_TENS = {"twenty": 20, "thirty": 30}


class English(PeriodRules, ClockRules, RelativeRules):
    """Lexicon tables and the handler of each English rule."""

    def __init__(self, lex: Lexicon):
        super().__init__(lex)
        self.days = {key(e.word): e.offset for e in lex["day_words"]}
        self.weekdays = lex.table("weekdays", "index")
        self.months = lex.table("months", "number")
        self.ordinals = lex.table("ordinals", "value")
        self.vague = {key(e.word): e for e in lex["vague_quantities"]}
        self.phrases = {key(e.word): e for e in lex["vague_phrases"]}
        self.units = {key(e.word): e for e in lex["units"]}
        self.seasons = lex.table("seasons", "start_month")
        self.shifts = {key(e.word): e.shift if e.tense is None else e.tense for e in lex["shifts"]}
        self.postfix = lex.table("postfix_shifts", "shift")
        self.periods = {key(e.word): e for e in lex["periods"]}
        self.holidays = {key(e.word): e for e in lex["holidays"]}
        self.duration_cue = re.compile(alt(lex.words("duration_cues")), re.IGNORECASE)
        self.f = self.fragments()
        self._amount_part = re.compile(
            rf"({self.f['qty']})\s*(?P<h1>{HALF}\s+)?({self.f['unit']})\b(?P<h2>\s+{HALF}\b)?", re.IGNORECASE
        )

    # -- patterns ---------------------------------------------------------------------------

    def fragments(self) -> dict[str, str]:
        """Named regex fragments built from the lexicon, used as ``$name`` in the rules."""
        lex = self.lex
        units = [w for w in self.units]
        cal_units = [
            w for w, e in self.units.items() if e.unit in _CALENDAR_UNITS and e.size == 1 and not w.endswith("s")
        ]
        small = alt(w for w, v in self.ordinals.items() if v < 10)
        ones = alt(w for w, v in self.numbers.items() if v == int(v) and 1 <= v <= 9 and " " not in w and len(w) > 2)
        cardinal = alt(
            w for w, v in self.numbers.items() if v == int(v) and 1 <= v <= 31 and " " not in w and len(w) > 2
        )
        ordinal_words = f"(?:twenty|thirty)[- ]?(?:{small})|{alt(self.ordinals)}"
        f = {
            **self.clock_fragments(),
            "year": YEAR,
            "dnum": r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?",
            "oword": rf"(?:{ordinal_words}|(?:twenty|thirty)[- ](?:{ones})|{cardinal})",
            "ordsel": rf"(?:{alt(ORDINAL_SELECT)}|[1-5](?:st|nd|rd|th))",
            "wd_full": alt(lex.words("weekdays", abbreviation=False)),
            "wd_free": alt([*lex.words("weekdays", abbreviation=False), *lex.words("weekdays", ambiguous=False)]),
            "wd_amb": alt(lex.words("weekdays", ambiguous=True)),
            "mon_full": alt(lex.words("months", ambiguous=False, abbreviation=False)),
            "mon_amb": alt(lex.words("months", ambiguous=True)),
            "mon": alt(lex.words("months")),
            "unit": alt(units),
            "cal_unit": alt(cal_units),
            "shift": alt(self.shifts),
            "postfix": alt(self.postfix),
            "prefix": alt(lex.words("date_prefixes")),
            "season": alt(self.seasons),
            "of_period": alt(lex.words("periods", form="of")),
            "pre_period": alt(lex.words("periods", form="prefix")),
            "day_word": alt(self.days),
            "phrase": alt(self.phrases),
            "holiday": alt(self.holidays),
            "vague": alt(self.vague),
        }
        amb_ok = r"(?=\s*(?:[.,!?;:)\"']|$|\d|of\b|and\b|to\b|through\b|till\b|until\b|-|–|this\b|last\b|next\b))"
        f["mon_ctx"] = f"{f['mon_full']}|{alt(lex.words('months', abbreviation=True))}|(?:{f['mon_amb']}){amb_ok}"
        f = {name: f"(?:{body})" for name, body in f.items()}
        f["wd"] = f"(?:{f['wd_free']}|{f['wd_amb']})"
        f["wd_opt"] = f"(?:(?P<wd>{f['wd']})\\.?,?\\s+)?"
        f["qty"] = f"(?:{f['vague']}|{f['num']})"
        f["amount"] = r"(?:$qty$unit(?:\s*,?\s*(?:and\s+)?$qty$unit)*)".replace(
            "$qty", rf"(?:\d+(?:\.\d+)?\s*|{f['qty']}\s+(?:{HALF}\s+)?)"
        ).replace("$unit", f"(?:{f['unit']})\\b(?:\\s+{HALF}\\b)?")
        f["dany"] = f"(?:{f['dnum']}|{f['oword']})"
        f["y_tail"] = rf"(?:(?:\s*,\s*|\s+|-)(?:of\s+)?(?P<y>{YEAR})\b|\s+of\s+(?P<y2>'?\d\d)\b)?"
        return f

    def rules(self) -> tuple[Rule, ...]:
        """Every English rule; for equal spans the earlier rule wins."""
        table = [*self._date_rules(), *self.relative_rules(), *self.clock_rules()]
        compiled = compile_rules(table, self.fragments(), _NEEDS, self.classes(), re.IGNORECASE)
        exact = {
            r.name: r
            for r in compile_rules(
                [row for row in table if row[0] in self.case_sensitive], self.fragments(), _NEEDS, self.classes()
            )
        }
        return (*NUMERIC_RULES, *(exact.get(r.name, r) for r in compiled))

    case_sensitive = frozenset({"month_capitalised"})

    def classes(self) -> dict[str, frozenset[str]]:
        """The gate words of each word class (see ``_NEEDS``)."""
        lex = self.lex
        hours = [w for w, v in self.numbers.items() if v == int(v) and 1 <= v <= 59 and len(w) > 2]
        return {
            "mon": tokens(lex.words("months")),
            "wd": tokens(lex.words("weekdays")),
            "season": tokens(self.seasons),
            "unit": tokens(self.units) | {"workweek"},
            "hour": tokens(hours),
            "part": tokens([*self.parts, *self.fused, "tonight", "tonite"]),
            "meal": tokens(self.meals),
            "holiday": tokens(self.holidays) | {"july"},
            "period": tokens(self.periods),
            "quarter": frozenset({"quarter", "half"}),
            "decade": tokens(DECADE_WORDS),
            "century": frozenset({"century"}),
            "year": frozenset({"year"}),
            "week": frozenset({"week", "weekend", "w"}),
            "month": frozenset({"month"}),
            "ordinal": tokens(self.ordinals) | frozenset(_TENS),
            "date": frozenset({"date"}),
            "weekend": frozenset({"weekend"}),
            "ago": frozenset({"ago", "back", "earlier"}),
            "later": frozenset({"later", "hence", "earlier"}),
            "anchor": frozenset({"before", "after", "from", "prior"}),
            "past": frozenset({"past"}),
            "phrase": tokens(self.phrases),
            "day_word": tokens(self.days),
            "clock_rel": frozenset({"half", "quarter", "past", "min", "mins", "minute", "minutes"}),
            "clock": frozenset({"clock", "oclock"}),
            "ish": frozenset({"ish", "noonish", "middayish"}),
            "clock_word": tokens(self.clock_words) | frozenset({"mid"}),
            "zone": tokens(self.zones),
            "now": tokens(lex.words("now_words")),
        }

    def _date_rules(self) -> list[tuple[str, Handler, str]]:
        not_clock = r"(?![:.]\d|\s*(?:[ap]\.?m\b|o'?clock))"
        return [
            (
                "md_range",
                self.md_range,
                r"\b(?:(?:from|between)\s+)?(?P<mon>$mon)\.?\s*(?:the\s+)?(?P<d>$dany)\s*(?:-|–|to|through|thru|till|until|and)\s*"
                r"(?:the\s+)?(?P<d2>$dany)\b" + not_clock + r"(?!\s*(?:$mon)\b)(?:,?\s+(?P<y>$year)\b)?",
            ),
            (
                "dm_range",
                self.md_range,
                r"\b(?:(?:from\s+)?(?:the\s+)?(?P<d>$dany)\s*(?:-|–|to|through|thru|till|until)|between\s+(?:the\s+)?(?P<db>$dany)\s*(?:and|-|to))\s*(?:the\s+)?"
                r"(?P<d2>$dany)\s+(?:of\s+)?(?P<mon>$mon)\b\.?(?:,?\s+(?P<y>$year)\b)?",
            ),
            (
                "month_day",
                self.date,
                r"\b${wd_opt}(?P<mon>$mon)\.?(?:\s+|-|(?<=[a-z])(?=\d)|,\s*(?=\d{1,2}(?:st|nd|rd|th)))(?:the\s+)?(?P<d>$dany)\b"
                + not_clock
                + r"(?!\s*(?:-|–|to|through|till|until)\s*\d{1,2}\b)$y_tail",
            ),
            (
                "day_month",
                self.date,
                r"(?<![$$£€¥\d.,])(?<![$$£€¥] )\b${wd_opt}(?:the\s+)?(?P<d>$dany)(?:\s+day)?(?:\s+of\s+|\s+|-)(?P<mon>$mon)\b\.?$y_tail",
            ),
            ("month_year", self.month_year, r"\b(?P<mon>$mon)\.?(?:\s*,\s*|\s+|-)(?:of\s+)?(?P<y>$year)\b"),
            ("month_year2", self.month_year, r"\b(?P<mon>$mon)\s+of\s+(?P<y2>'?\d\d)\b"),
            *self.period_rules(),
            ("shifted_month", self.month, r"\b(?P<shift>$shift)\s+(?P<mon>$mon_ctx)\b"),
            (
                "month_in_context",
                self.month,
                r"\b(?:in|since|until|till|by|during|before|after|around|of|early|late|mid|from|through)\s+(?P<phrase>(?P<mon>$mon))\b\.?(?!\s*\d)",
            ),
            ("month_after_word", self.month, r"\b(?:$prefix|to)\s+(?P<phrase>(?P<mon>$mon_ctx))\b\.?(?!\s*\d)"),
            ("month_range_left", self.month, r"\b(?P<mon>$mon)\b(?=\s*(?:-|–|to)\s*(?:$mon)\b)"),
            ("month", self.month, r"\b(?P<mon>$mon_full)\b"),
            (
                "month_capitalised",
                self.month,
                r"(?<![\w'])(?P<mon>March|May|August)(?![\w'-])(?!\s+(?:I|i|you|we|they|he|she|it|be|have|not|the|a|an|on|in|"
                r"into|to|through|forward|down|over|past|back|along|up|out|off|against|with)\b)",
            ),
            ("year_named", self.year, r"\b(?:the\s+)?(?:calendar\s+)?year\s+(?P<y>$year)\b"),
            ("year", self.year, r"\b(?:$prefix)\s+(?P<phrase>(?P<y>$year))\b(?![-/.,:]?\d|s\b|\s*%)"),
            (
                "bare_year",
                self.bare_year,
                r"(?<![\w$$£€¥.])(?P<y>$year)\b(?!(?:[/.:]|-(?!(?:19|20)\d\d))?\d|s\b|\s*%|\s*[a-z]*\s*(?:steps|people|km|miles))",
            ),
        ]

    def trigger(self) -> re.Pattern[str]:
        """Cheap pre-check on the lower-cased text: without any of these stems (or a digit) the
        text cannot hold an English time."""
        lex = self.lex
        words = [*self.days, *self.units, *self.seasons, *self.phrases, *self.holidays, *self.clock_trigger_words()]
        words += [*lex.words("weekdays"), *lex.words("months"), *lex.words("now_words"), "tmrw"]
        return re.compile(r"\d|" + alt(stems(words)))

    def connectors(self) -> Connectors:
        lex = self.lex
        roles = {r: [e.word for e in lex["range_words"] if e.role == r] for r in ("open", "between", "infix", "pair")}
        return Connectors(
            year_gap=re.compile(r"\s*,?\s*(?:(?:in|of)\s+)?(?:the\s+year\s+)?", re.IGNORECASE),
            year_first=True,
            selector_gap=re.compile(r"\s*,?\s*(?:(?:of|in)\s+)?", re.IGNORECASE),
            selector_after=False,
            offset_gap=re.compile(r"\s*(?:the\s+)?", re.IGNORECASE),
            week_gap=re.compile(r"\.?\s*(?:,|-|on|of|of\s+the|in|in\s+the)?\s*", re.IGNORECASE),
            range_open=re.compile(
                rf"(?<![\w'])(?:{alt(roles['open'])}|(?P<pair>{alt(roles['between'])}))\s+$", re.IGNORECASE
            ),
            range_infix=re.compile(rf"\s*(?:{alt(roles['infix'])})\s*", re.IGNORECASE),
            pair_infix=re.compile(rf"\s*(?:{alt(roles['pair'])})\s*", re.IGNORECASE),
            list_gap=re.compile(rf"\s*(?:{alt(lex.words('list_words'))})\s*", re.IGNORECASE),
            range_close=re.compile(r"(?!)"),
            length_gap=re.compile(
                r"\s*,?\s*(?:(?:starting|beginning|commencing)(?:\s+(?:on|from|at))?|from|on|at)?\s*", re.IGNORECASE
            ),
            bound_prefix=bound_pattern(
                lex["bounds"],
                "prefix",
                r"(?<![\w'])(?:{})\s*(?:(?:around|about|approximately|roughly)\s+)?$",
                re.IGNORECASE,
            ),
            bound_paired=bound_pattern(lex["bounds"], "paired", r"(?<![\w'])(?:{})\s+$", re.IGNORECASE),
            bound_suffix=bound_pattern(
                lex["bounds"],
                "suffix",
                r"\s*,?\s*(?:{})(?![\w'])(?!\s+(?:than|my|your|his|her|our|their|the|a|an|i|we|you|he|she|they|it)\b)",
                re.IGNORECASE,
            ),
        )

    # -- helpers ----------------------------------------------------------------------------

    def mode(self, word: str | None, match: re.Match[str], ctx: Context) -> rv.Mode:
        """A shift word's mode, or the tense around the match when there is none."""
        if word is None:
            return ctx.tense(phrase_span(match))
        return self.shifts.get(key(word), 0)

    def day_number(self, text: str) -> int | None:
        """17, 17th, seventeenth, twenty-seventh, twenty nine."""
        k = key(text).replace("-", " ")
        digits = re.match(r"(\d{1,2})", k)
        if digits:
            return int(digits.group(1))
        if k in self.ordinals:
            return self.ordinals[k]
        parts = k.split()
        if len(parts) == 2 and parts[0] in _TENS:
            rest = self.ordinals.get(parts[1]) or self.numbers.get(parts[1])
            return _TENS[parts[0]] + int(rest) if rest and rest < 10 else None
        value = self.numbers.get(k)
        return int(value) if value and value == int(value) and value <= 31 else None

    # -- date handlers ----------------------------------------------------------------------

    def date(self, m: re.Match[str], ctx: Context) -> Piece | None:
        month, day = self.months[key(m["mon"])], self.day_number(m["d"])
        if day is None:
            return None
        year = int(m["y"]) if m["y"] else (int(_full(m["y2"], ctx)) if m.groupdict().get("y2") else None)
        return pc.day_piece(ctx, m.span(), month, day, year, ctx.tense(m.span()))

    def md_range(self, m: re.Match[str], ctx: Context) -> Piece | None:
        month = self.months[key(m["mon"])]
        first, last = self.day_number(m["d"] or m.groupdict().get("db") or ""), self.day_number(m["d2"])
        if first is None or last is None or last < first:
            return None
        if re.search(r"\band\b", m.group(), re.IGNORECASE) and not key(m.group()).startswith("between"):
            return None  # "18 and 19 June": two days, not a range
        return pc.day_range_piece(ctx, m.span(), month, first, last, int(m["y"]) if m["y"] else None)

    def month_year(self, m: re.Match[str], ctx: Context) -> Piece | None:
        year = int(m["y"]) if m.groupdict().get("y") else _full(m["y2"], ctx)
        return pc.month_piece(ctx, m.span(), self.months[key(m["mon"])], year)

    def month(self, m: re.Match[str], ctx: Context) -> Piece | None:
        mode = self.mode(m["shift"] if "shift" in m.re.groupindex else None, m, ctx)
        return pc.month_piece(ctx, phrase_span(m), self.months[key(m["mon"])], None, mode)

    def year(self, m: re.Match[str], ctx: Context) -> Piece | None:
        return pc.year_piece(ctx, phrase_span(m), int(m["y"]))

    def bare_year(self, m: re.Match[str], ctx: Context) -> Piece | None:
        return pc.year_piece(ctx, m.span(), int(m["y"]), strong=False)


def _full(two: str, ctx: Context) -> int:

    return full_year(two, ctx)


@lru_cache(maxsize=4)
def grammar(lex: Lexicon) -> Grammar:
    """The English grammar compiled from the time words ``lex`` (once for each lexicon)."""
    english = English(lex)
    connectors = english.connectors()
    return Grammar(
        english.rules(),
        JOINER,
        english.trigger(),
        compile_cues(lex, word_bounded=True),
        connectors,
        compile_habits(lex, True, connectors),
        _blank_cjk,
    )


_CJK = re.compile(r"[\u3000-\u9fff\uf900-\uffef]")


def _blank_cjk(text: str) -> str:
    """Chinese characters as spaces, so English word boundaries hold inside Chinese text
    ("我tomorrow去") and no span moves."""
    return _CJK.sub(" ", text) if _CJK.search(text) else text
