"""English clock times, parts of the day and "now" (the rules ``English`` inherits).

A clock time without am/pm is read to fit the part of the day next to it ("8 in the evening");
alone, a bare hour 1-6 is afternoon ("at 5") and a time with minutes is read as written
("4:23"); a bare hour just before a part of the day counts as a clock ("8 tonight", "9 tomorrow
morning", "7 friday evening"). "3-4pm", "between 9:30 and 11", "from 10am to noon" are one clock range; a part of
the day on its own ("morning") only refines an adjacent day or clock time, except "in the
morning" (today's, low confidence). A time zone after a clock ("4pm CET") is honoured.
"""

from __future__ import annotations

import re
from datetime import timedelta, timezone, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

from memtracks.data.time_words import Lexicon
from memtracks.pipeline.timenorm import pieces as pc
from memtracks.pipeline.timenorm import resolve as rv
from memtracks.pipeline.timenorm.common import Handler, alt, key
from memtracks.pipeline.timenorm.engine import Clock, Context, Piece

AMPM = r"(?:[ap]\s?\.\s?m\b\.?|[ap]\s?m\b|[ap]\.(?!\w))"
_NOT_CLOCK_AFTER = (
    r"(?!\s*(?:%|[:.,]\d|percent|people|persons|times|years?|yrs?|months?|weeks?|days?|hours?|hrs?|minutes?|mins?"
    r"|of\b|out\b|points?|pounds?|lbs?|kgs?|km|miles?|dollars?|euros?|stars?|more|less|other|different|degrees?"
    r"|kids|children|guests|cats|dogs|items|pieces|places|levels|mph|ft|feet|inches|x\b"
    r"|with\b|point\b|stage\b|side\b|another\b|time\b|go\b|once\b|least\b|all\b|first\b|last\b))"
)


class ClockRules:
    """Clock, part-of-day and "now" rules of the English grammar."""

    def __init__(self, lex: Lexicon):
        self.lex = lex
        windows = {w.name: (w.start_hour, w.end_hour) for w in lex["part_windows"]}
        self.parts = {key(e.word): windows[e.part] for e in lex["day_parts"]}
        self.meals = [key(e.word) for e in lex["day_parts"] if e.meal]
        self.fused = {key(e.word): (e.offset, windows[e.part]) for e in lex["fused_day_parts"]}
        self.numbers = lex.table("numbers", "value")
        self.clock_words = {key(e.word): (e.hour, e.minute) for e in lex["clock_words"]}
        self.zones = {key(e.word): _zone(e) for e in lex["zones"]}
        self.now_words = lex.words("now_words")
        self._clock_text = re.compile(
            rf"^(?:(?P<h>\d{{1,2}})(?:[:.](?P<mi>[0-5]\d))?|(?P<hw>{self._hour_words()})(?:[\s-](?P<mw>{self._minute_words()}))?"
            rf"|(?P<cw>noon|midday|midnight))\s*(?P<mer>{AMPM})?$",
            re.IGNORECASE,
        )

    def _hour_words(self) -> str:
        return alt(w for w, v in self.numbers.items() if v == int(v) and 1 <= v <= 12 and len(w) > 2)

    def _minute_words(self) -> str:
        tens = "(?:twenty|thirty|forty|fifty)"
        ones = "(?:one|two|three|four|five|six|seven|eight|nine)"
        teens = "(?:ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)"
        return rf"(?:{tens}(?:[\s-]{ones})?|{teens}|o[\s-]?{ones}|oh[\s-]{ones})"

    def clock_fragments(self) -> dict[str, str]:
        number = alt(self.numbers)
        clock = (
            rf"(?:\d{{1,2}}(?:[:.][0-5]\d)?(?:\s*{AMPM})?|(?:{self._hour_words()})(?:[\s-]{self._minute_words()})?"
            rf"(?:\s*{AMPM})?|noon|midday|midnight)"
        )
        return {  # each body is grouped by English.fragments
            "num": rf"(?:\d+(?:\.\d+)?|(?:{number})(?:[- ](?:{number}))?)",
            "hour_word": self._hour_words(),
            "minute_word": self._minute_words(),
            "ampm": AMPM,
            "clock": clock,
            "part": alt(w for w in self.parts if w not in self.meals),
            "meal": alt(self.meals),
            "fused": alt(self.fused),
            "clock_word": alt(self.clock_words),
            "now_word": alt(self.now_words),
            "zone": alt(self.zones),
            "not_clock_after": _NOT_CLOCK_AFTER,
        }

    def clock_trigger_words(self) -> list[str]:
        return [*self.parts, *self.fused, *self.clock_words, *self.now_words, "clock", "ish"]

    def clock_rules(self) -> list[tuple[str, Handler, str]]:
        return [
            (
                "clock_range",
                self.clock_range,
                r"\b(?:(?P<open>from|between)\s+)?(?P<c1>$clock)\s*(?P<inf>-|–|to|till|until|and|through|thru)\s*"
                r"(?P<c2>$clock)(?![\w:/])(?!\s*(?:-|/)\s*\d)",
            ),
            (
                "clock_words_meridiem",
                self.clock_words_meridiem,
                r"\b(?P<hw>$hour_word)(?:[\s-](?P<mw>$minute_word))?\s*(?P<mer>$ampm)(?![a-z])",
            ),
            (
                "clock_relative",
                self.clock_relative,
                r"\b(?P<rel>half|(?:a\s+)?quarter|(?P<mn>\d{1,2}|$minute_word|$hour_word)(?P<mins>\s+min(?:ute)?s?)?)\s+"
                r"(?P<dir>past|after|to|before|of|till)\s+(?P<h>\d{1,2}|$hour_word)(?:\s*(?P<mer>$ampm)(?![a-z]))?"
                r"(?:\s+o['’]?\s?clock)?\b",
            ),
            ("clock_oclock", self.clock_oclock, r"\b(?P<h>\d{1,2}|$hour_word)\s*o['’]?\s?clock\b"),
            ("clock_ish", self.clock_ish, r"\b(?:(?P<h>\d{1,2})|(?P<noon>noon|midday))\s?-?ish\b"),
            (
                "clock_hour_minute",
                self.clock_hour_minute,
                r"\b(?:at|around|about|by|from|circa|@)\s+(?P<phrase>(?P<hw>$hour_word)[\s-](?P<mw>$minute_word)(?:\s+minutes)?)\b",
            ),
            ("clock_word", self.clock_word, r"\b(?P<w>$clock_word)\b"),
            (
                "clock_at",
                self.clock_at,
                r"(?:\b(?P<at>at|around|about|circa|approximately|by|from|until|till|to|before|after|than)\s+|@\s*)"
                r"(?P<phrase>(?P<h>\d{1,2}|$hour_word)(?:\.(?P<mi>[0-5]\d))?)(?![\w:]|\.\d)$not_clock_after",
            ),
            (
                "clock_words_weak",
                self.clock_hour_minute,
                r"\b(?P<phrase>(?P<hw>$hour_word)[\s-](?P<mw>$minute_word))\b(?!\s*(?:$ampm|o'?clock))",
            ),
            (
                "clock_before_part",
                self.clock_at,
                r"(?<![\d.,])\b(?P<phrase>(?P<h>\d{1,2}|$hour_word))(?=,?\s+(?:in\s+the\s+(?:morning|afternoon|evening|night)|tonight"
                r"|at\s+night|(?:$day_word|$wd_free)\s+(?:$part)\b))",
            ),
            ("zone", self.zone, r"(?<=[\dmM.)\s])\(?(?P<z>$zone)\)?(?![\w'])"),
            ("now", self.now, r"\b(?P<w>$now_word)\b"),
            (
                "fused_modified",
                self.fused_part,
                r"\b(?P<pre>early|late|later)\s+(?:in\s+)?(?P<w>this\s+(?:morning|afternoon|evening)|tonight)\b",
            ),
            ("fused_day_part", self.fused_part, r"\b(?P<w>$fused)\b"),
            (
                "part_in_the",
                self.part_in_the,
                r"\b(?:(?P<pre>early|late|later|mid)\s+)?in\s+(?:the\s+)?(?:(?P<pre2>early|late)\s+)?(?P<w>$part)\b",
            ),
            (
                "part_meal",
                self.part_in_the,
                r"\b(?:around|about|at|by|during|over|before|after)\s+(?P<phrase>(?P<w>$meal))\b(?P<pre>)(?P<pre2>)",
            ),
            ("part_modified", self.part, r"\b(?P<pre>early|late|later)\s+(?P<w>$part)\b"),
            ("part_of_day", self.part, r"\b(?P<w>$part)\b"),
        ]

    # -- helpers ----------------------------------------------------------------------------

    def count(self, text: str) -> float:
        """3, 2.5, three, twenty-five, half a."""
        k = key(text)
        try:
            return float(k)
        except ValueError:
            pass
        if k in self.numbers:
            return float(self.numbers[k])
        return float(sum(self.numbers.get(p, 0) for p in re.split(r"[- ]", k)))

    def minute_value(self, text: str) -> int:
        k = key(text).replace("-", " ")
        if k.startswith(("o ", "oh ", "o")) and not k.startswith("one"):
            k = k.split(" ", 1)[-1] if " " in k else k[1:]
        return int(sum(self.numbers.get(p, 0) for p in k.split()))

    def parse_clock(self, text: str) -> Clock | None:
        m = self._clock_text.match(key(text))
        if m is None:
            return None
        mer = _meridiem(m["mer"])
        if m["cw"]:
            return pc.make_clock(0 if m["cw"] == "midnight" else 12, 0, None, "24h")
        if m["h"]:
            return pc.make_clock(int(m["h"]), int(m["mi"] or 0), None, mer, minutes_written=bool(m["mi"]))
        minute = self.minute_value(m["mw"]) if m["mw"] else 0
        return pc.make_clock(int(self.numbers[m["hw"]]), minute, None, mer)

    def window(self, word: str, *modifiers: str | None) -> tuple[int, int]:
        start, end = self.parts.get(word) or self.fused[word][1]
        return _half((start, end), next((key(x) for x in modifiers if x), None))

    # -- handlers ---------------------------------------------------------------------------

    def clock_range(self, m: re.Match[str], ctx: Context) -> Piece | None:
        if key(m["inf"]) == "and" and key(m["open"] or "") != "between":
            return None
        if m["inf"] in "-–" and not (m["c1"][0].isdigit() and m["c2"][0].isdigit()):
            return None  # "seven twenty-seven" is one time
        first, last = self.parse_clock(m["c1"]), self.parse_clock(m["c2"])
        if first is None or last is None:
            return None
        told = any(c.meridiem or c.minutes_written for c in (first, last)) or m["open"]
        strong = bool(told) and not (first.hour > 24 or last.hour > 24)
        return Piece(m.span(), rv.RELATIVE, clock=first, until=last, strong=strong, cyclic=True)

    def clock_words_meridiem(self, m: re.Match[str], ctx: Context) -> Piece | None:
        minute = self.minute_value(m["mw"]) if m["mw"] else 0
        return pc.clock_piece(m.span(), int(self.numbers[key(m["hw"])]), minute, None, _meridiem(m["mer"]))

    def clock_relative(self, m: re.Match[str], ctx: Context) -> Piece | None:
        """ "half past 7", "a quarter to 4", "20 min past eight", "10 past 9"."""
        rel = key(m["rel"])
        if rel == "half":
            minutes = 30
        elif rel.endswith("quarter"):
            minutes = 15
        else:
            mn = key(m["mn"])
            minutes = int(mn) if mn.isdigit() else self.minute_value(mn) or int(self.numbers.get(mn, 0))
            if key(m["dir"]) in ("to", "before", "of", "till") and not m["mins"]:
                return None  # "five to seven" is a range
        hour = int(m["h"]) if m["h"].isdigit() else int(self.numbers[key(m["h"])])
        if key(m["dir"]) in ("to", "before", "of", "till"):
            hour, minutes = hour - 1, 60 - minutes
        if not 0 < minutes < 60:
            return None
        return pc.clock_piece(m.span(), hour % 24 if hour else 12, minutes, None, _meridiem(m["mer"]))

    def clock_oclock(self, m: re.Match[str], ctx: Context) -> Piece | None:
        hour = int(m["h"]) if m["h"].isdigit() else int(self.numbers[key(m["h"])])
        return pc.clock_piece(m.span(), hour)

    def clock_ish(self, m: re.Match[str], ctx: Context) -> Piece | None:
        if m["noon"]:
            return pc.clock_piece(m.span(), 12, 0, None, "24h", confidence=rv.FUZZY)
        return pc.clock_piece(m.span(), int(m["h"]), confidence=rv.FUZZY)

    def clock_hour_minute(self, m: re.Match[str], ctx: Context) -> Piece | None:
        """ "at seven twenty-seven"; without "at" ("march 18th nine thirty") only next to a day."""
        weak = not m.group().lower().startswith(("at", "around", "about", "by", "from", "circa", "@"))
        return pc.clock_piece(
            m.span("phrase"), int(self.numbers[key(m["hw"])]), self.minute_value(m["mw"]), strong=not weak
        )

    def clock_word(self, m: re.Match[str], ctx: Context) -> Piece | None:
        """noon, midnight (the one starting the day; the coming one in a plan)."""
        hour, minute = self.clock_words[key(m["w"])]
        if hour == 0 and ctx.tense(m.span()) == "future":
            hour = 24
        return pc.clock_piece(m.span(), hour, minute, None, "24h")

    def clock_at(self, m: re.Match[str], ctx: Context) -> Piece | None:
        h = m["h"]
        hour = int(h) if h.isdigit() else int(self.numbers[key(h)])
        if hour > 24:
            return None
        minute = int(m.groupdict().get("mi") or 0)
        at = key(m.groupdict().get("at") or "at")
        strong = at in ("at", "around", "about", "circa", "approximately") or bool(m.groupdict().get("mi"))
        return pc.clock_piece(m.span("phrase"), hour, minute, minutes_written=minute > 0, strong=strong)

    def zone(self, m: re.Match[str], ctx: Context) -> Piece:
        return Piece(m.span(), rv.RELATIVE, zone=self.zones[key(m["z"])], strong=False)

    def now(self, m: re.Match[str], ctx: Context) -> Piece:
        return pc.now_piece(ctx, m.span())

    def fused_part(self, m: re.Match[str], ctx: Context) -> Piece:
        word = key(m["w"])
        offset = 0 if word.startswith("this") else self.fused[word][0]
        window = self.window(word.replace("this ", "") if word.startswith("this ") else word, m.groupdict().get("pre"))
        return Piece(m.span(), rv.RELATIVE, day=ctx.today + timedelta(days=offset), part=window)

    def part_in_the(self, m: re.Match[str], ctx: Context) -> Piece:
        window = self.window(key(m["w"]), m["pre"], m["pre2"])
        span = m.span("phrase") if "phrase" in m.re.groupindex else m.span()
        return Piece(span, rv.WEAK, part=window, alone=None, strong=True, cyclic=True)

    def part(self, m: re.Match[str], ctx: Context) -> Piece:
        window = self.window(key(m["w"]), m.groupdict().get("pre"))
        return Piece(m.span(), rv.RELATIVE, part=window, strong=False, cyclic=True)


def _zone(entry: Any) -> tzinfo:
    if entry.iana:
        return ZoneInfo(entry.iana)
    return timezone(timedelta(minutes=entry.offset_minutes))


def _meridiem(text: str | None) -> str | None:
    if not text:
        return None
    return "am" if text.strip().lower().startswith("a") else "pm"


def _half(window: tuple[int, int], modifier: str | None) -> tuple[int, int]:
    """ "early morning" = the first half of the morning, "late" / "later" the second."""
    start, end = window
    if modifier in ("early",):
        return start, (start + end) // 2
    if modifier in ("late", "later"):
        return (start + end) // 2, end
    return window
