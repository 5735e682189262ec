"""The recogniser machinery shared by English and Chinese.

A language is a list of :class:`Rule` (a compiled regex and a handler). Each handler turns a
match into a :class:`Piece`: either a finished interval, or a day, a part of the day and/or a
clock time. Overlapping pieces are resolved (earlier start wins, then the longer one), and
adjacent day / part-of-day / clock pieces are joined, so "tomorrow at 3pm", "Friday night" and
明天下午三点 each become one mention.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, tzinfo
from typing import Any, TypeVar

from . import calendar as cal
from .calendar import Interval
from .tense import Cues, tense_near


@dataclass(frozen=True)
class Clock:
    """A clock time as said: hour 0-24, minute, and "am" / "pm" if given."""

    hour: int
    minute: int = 0
    meridiem: str | None = None


@dataclass(frozen=True)
class Piece:
    """What one rule found at ``span``."""

    span: tuple[int, int]
    confidence: float
    interval: Interval | None = None
    day: date | None = None
    part: tuple[int, int] | None = None  # (start_hour, end_hour) window
    clock: Clock | None = None
    strong: bool = True  # False: only counts when joined to another piece


@dataclass(frozen=True)
class Found:
    """A resolved mention before it becomes a ``TimeMention``."""

    span: tuple[int, int]
    interval: Interval
    confidence: float
    lang: str


@dataclass
class Context:
    """The text being read and its reference time."""

    text: str
    ref: datetime
    cues: Cues
    today: date = field(init=False)

    def __post_init__(self) -> None:
        self.today = self.ref.date()

    @property
    def tz(self) -> tzinfo:
        assert self.ref.tzinfo is not None
        return self.ref.tzinfo

    def tense(self, span: tuple[int, int]) -> str | None:
        """ "past" / "future" / None from the cues around ``span``."""
        return tense_near(self.text, span, self.cues)


@dataclass(frozen=True)
class Rule:
    """A pattern and its handler; ``requires`` lists substrings (of the lower-cased text) one
    of which must be present for the rule to run at all, a cheap way to skip costly scans."""

    name: str
    pattern: re.Pattern[str]
    handler: Callable[[re.Match[str], Context], Piece | None]
    requires: tuple[str, ...] = ()


DIGITS = tuple("0123456789")


@dataclass(frozen=True)
class Grammar:
    """A language's compiled rules, joiner, cheap pre-check and tense cues."""

    rules: tuple[Rule, ...]
    joiner: re.Pattern[str]
    trigger: re.Pattern[str]
    cues: Cues


def phrase_span(match: re.Match[str]) -> tuple[int, int]:
    """Span of the ``phrase`` group if the rule has one and it matched, else the whole match."""
    if "phrase" in match.re.groupindex and match.group("phrase") is not None:
        return match.span("phrase")
    return match.span()


def recognise(rules: Sequence[Rule], joiner: re.Pattern[str], ctx: Context, lang: str) -> list[Found]:
    """Run ``rules`` over ``ctx.text`` and return resolved mentions in text order."""
    lower = ctx.text.lower()
    pieces = [
        piece
        for rule in rules
        if not rule.requires or any(part in lower for part in rule.requires)
        for match in rule.pattern.finditer(ctx.text)
        if (piece := _representable(rule.handler, match, ctx)) is not None
    ]
    found = []
    for piece in _join(select(pieces), ctx.text, joiner):
        interval = _representable(_resolve, piece, ctx)
        if interval is not None:
            found.append(Found(piece.span, interval, round(_confidence(piece), 3), lang))
    return found


AMBIGUOUS_CLOCK = 0.7  # "at 4", 三点: no am/pm and no part of the day


def _confidence(piece: Piece) -> float:
    clock = piece.clock
    if clock and clock.meridiem is None and piece.part is None and 1 <= clock.hour <= 12:
        return min(piece.confidence, AMBIGUOUS_CLOCK)
    return piece.confidence


def _representable(function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)``, or None when the time falls outside the years 1-9999 that
    ``datetime`` can hold ("in 999 years" from a reference in 9500). Other errors propagate."""
    try:
        return function(*args)
    except (ValueError, OverflowError) as exc:
        if "out of range" not in str(exc):
            raise
        return None


Spanned = TypeVar("Spanned", Piece, Found)


def select(items: Iterable[Spanned]) -> list[Spanned]:
    """Drop overlaps: the earlier start wins, then the longer span, then the earlier rule."""
    ordered = sorted(items, key=lambda p: (p.span[0], p.span[0] - p.span[1]))
    kept: list[Spanned] = []
    for item in ordered:
        if not kept or item.span[0] >= kept[-1].span[1]:
            kept.append(item)
    return kept


def _join(pieces: list[Piece], text: str, joiner: re.Pattern[str]) -> list[Piece]:
    joined: list[Piece] = []
    for piece in pieces:
        last = joined[-1] if joined else None
        if last is not None and _joinable(last, piece, text, joiner):
            joined[-1] = _merge(last, piece)
        else:
            joined.append(piece)
    return joined


def _joinable(left: Piece, right: Piece, text: str, joiner: re.Pattern[str]) -> bool:
    if left.interval or right.interval:
        return False
    for name in ("day", "part", "clock"):
        if getattr(left, name) is not None and getattr(right, name) is not None:
            return False
    return joiner.fullmatch(text, left.span[1], right.span[0]) is not None


def _merge(left: Piece, right: Piece) -> Piece:
    has_part = left.part is not None or right.part is not None
    has_clock = left.clock is not None or right.clock is not None
    return replace(
        left,
        span=(left.span[0], right.span[1]),
        confidence=min(left.confidence, right.confidence),
        day=left.day or right.day,
        part=left.part or right.part,
        clock=left.clock or right.clock,
        strong=left.strong or right.strong or (has_part and has_clock),
    )


def _resolve(piece: Piece, ctx: Context) -> Interval | None:
    if piece.interval is not None:
        return piece.interval
    if not piece.strong:
        return None
    day = piece.day or ctx.today
    if piece.clock is not None:
        hour = clock_hour(piece.clock, piece.part)
        return cal.clock(ctx.tz, day, hour, piece.clock.minute)
    if piece.part is not None:
        return cal.hours(ctx.tz, day, *piece.part)
    return cal.days(ctx.tz, day)


def clock_hour(clock: Clock, part: tuple[int, int] | None) -> int:
    """24-hour value of ``clock`` on its day, read to fit the part of day it sits in.

    Without am/pm a clock may mean h, h+12 or h+24 (past midnight); with a part of day the
    reading closest to the part's window wins: "8" in the evening is 20, 晚上十二点 is 24
    (the midnight ending that day), "2am" last night (window 18-30) is 26 = 02:00 next day.
    With neither, 1-6 are read as afternoon ("Friday at 5", 明天三点) and 7-12 as said.
    """
    hour = clock.hour % 12 if clock.meridiem else clock.hour
    if clock.meridiem == "pm":
        hour += 12
    if part is None:
        return hour + 12 if clock.meridiem is None and 1 <= hour <= 6 else hour
    steps = (0, 24) if clock.meridiem else (0, 12, 24)
    return min((hour + step for step in steps), key=lambda h: (_distance(h, part), h))


def _distance(hour: int, window: tuple[int, int]) -> int:
    start, end = window
    if hour < start:
        return start - hour
    return max(0, hour - end + 1)
