"""Shared by the English and Chinese grammars: written dates and clock times in digits (ISO
dates, 5/8/2023, 13:05, 3pm, 8:00 a.m.), with boundaries that work next to Chinese characters
too ("2:00pm的时候", 在12：00之后), and the regex helpers.

Numeric dates: ``Y-M-D`` / ``Y/M/D`` always; ``a/b/Y`` and ``a/b`` read month first by
default (``date_order="mdy"``; pass "dmy" to ``normalize_time`` for day first), and day first
whenever the first number cannot be a month (23/12). A two-digit year is the one within 20
years ahead of the reference or else the century before ("03/18/40" said in 2016 is 1940).
A date with no year and no other date cue ("on", "by", a weekday ...) needs a two-digit part
or a day over 12 (11/20, 2/15), so fractions like "3/4" stay numbers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from string import Template
from typing import Any

from memtracks.pipeline.text import phrase_key
from memtracks.pipeline.timenorm import pieces as pc
from memtracks.pipeline.timenorm.engine import Context, Piece, Rule
from memtracks.pipeline.timenorm.resolve import ABSOLUTE, INFERRED_YEAR, safe_date
from memtracks.pipeline.timenorm.tense import literal

B = r"(?<![A-Za-z0-9])"  # a boundary that also holds next to Chinese characters
E = r"(?![A-Za-z0-9])"


key = phrase_key  # the lookup key of a matched phrase (pipeline/text.py)


def alt(words: Iterable[str], capitalise: bool = False) -> str:
    """Regex alternation of literal phrases, longest first (spaces match any whitespace)."""
    forms = {w.capitalize() if capitalise else w for w in words}
    return "|".join(literal(w, False) for w in sorted(forms, key=lambda w: (-len(w), w)))


def stems(words: Iterable[str]) -> list[str]:
    """The fewest words such that every word contains one of them (for a cheap pre-check)."""
    kept: list[str] = []
    for word in sorted({w.lower() for w in words}, key=len):
        if not any(k in word for k in kept):
            kept.append(word)
    return kept


Handler = Callable[[re.Match[str], Context], Piece | None]


def compile_rules(
    table: Iterable[tuple[str, Handler, str]],
    fragments: Mapping[str, str],
    needs: Mapping[str, Iterable[str]],
    classes: Mapping[str, frozenset[str]],
    flags: int = 0,
) -> list[Rule]:
    """Rules from (name, handler, pattern) rows; ``$name`` in a pattern is a fragment.
    ``needs[name]`` lists the word classes (keys of ``classes``, or "digit") one of which a
    text must hold for the rule to run; a rule not listed always runs."""
    rules = []
    for name, handler, pattern in table:
        wanted = list(needs.get(name, ()))
        words = frozenset().union(*(classes[c] for c in wanted if c != "digit"))
        rules.append(
            Rule(name, re.compile(Template(pattern).substitute(fragments), flags), handler, words, "digit" in wanted)
        )
    return rules


def tokens(words: Iterable[str]) -> frozenset[str]:
    """The gate words of lexicon phrases: the longest lower-case word of each ("christmas eve"
    -> "christmas", "o'clock" -> "clock")."""
    found = set()
    for phrase in words:
        parts = re.findall(r"[a-z]+", phrase.lower())
        if parts:
            found.add(max(parts, key=len))
    return frozenset(found)


def bound_pattern(bounds: Iterable[Any], place: str, template: str, flags: int = 0) -> re.Pattern[str]:
    """One named group per bound kind ("before", "since" ...) of the lexicon's ``bounds`` placed
    at ``place``, inside ``template`` (its ``{}``)."""
    groups: dict[str, list[str]] = {}
    for e in bounds:
        if e.place == place:
            groups.setdefault(e.kind, []).append(e.word)
    return re.compile(template.format("|".join(f"(?P<{k}>{alt(w)})" for k, w in groups.items())), flags)


def full_year(text: str, ctx: Context) -> int:
    """A written year; two digits: within 20 years ahead of the reference, else the century
    before."""
    year = int(text.lstrip("'’"))
    if len(text.lstrip("'’")) > 2:
        return year
    pivot = ctx.today.year + 20
    year += pivot // 100 * 100
    return year if year <= pivot else year - 100


# Words before a numeric date that make it a date even when it could be a fraction.
_DATE_CUE = re.compile(
    r"(?:\b(?:on|by|until|till|from|since|before|after|due|dated?|starting|this|next|last|to|"
    r"mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun|[a-z]+day)|[,(]|[-–~到至和或])\s*$",
    re.IGNORECASE,
)


def _numeric_date(m: re.Match[str], ctx: Context) -> Piece | None:
    a, b, sep = m["a"], m["b"], m["sep"]
    first, second = int(a), int(b)
    if ctx.date_order == "dmy" and second <= 12 or first > 12:
        day, month = first, second
    else:
        month, day = first, second
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    if m["y"]:
        return pc.day_piece(ctx, m.span(), month, day, full_year(m["y"], ctx))
    if sep == "-" or re.match(r"\s+of\b", ctx.text[m.end() :]):  # "4-23" (a range), "2/3 of them"
        return None
    cued = _DATE_CUE.search(ctx.text, max(0, m.start() - 12), m.start()) is not None
    if not cued and (sep != "/" or (len(a) < 2 and len(b) < 2 and day <= 12)):
        return None
    piece = pc.day_piece(ctx, m.span(), month, day, None, ctx.tense(m.span()))
    if piece is None:
        return None
    return Piece(piece.span, INFERRED_YEAR, day=piece.day, floating=piece.floating, cyclic=piece.cyclic)


def _iso_date(m: re.Match[str], ctx: Context) -> Piece | None:
    day = safe_date(int(m["y"]), int(m["m"]), int(m["d"]))
    return Piece(m.span(), ABSOLUTE, day=day) if day else None


def _iso_month(m: re.Match[str], ctx: Context) -> Piece | None:
    month = int(m["m"])
    return pc.month_piece(ctx, m.span(), month, int(m["y"])) if 1 <= month <= 12 else None


def _clock_24(m: re.Match[str], ctx: Context) -> Piece | None:
    second = int(m["s"]) if m["s"] else None
    return pc.clock_piece(m.span(), int(m["h"]), int(m["mi"]), second, None, minutes_written=True)


def _clock_meridiem(m: re.Match[str], ctx: Context) -> Piece | None:
    minute = int(m["mi"]) if m["mi"] else 0
    second = int(m["s"]) if m["s"] else None
    meridiem = m["mer"][0].lower() + "m"
    return pc.clock_piece(m.span(), int(m["h"]), minute, second, meridiem, minutes_written=bool(m["mi"]))


MERIDIEM = r"(?P<mer>(?:[aApP]\s?\.\s?[mM]\.?|[aApP][mM]\b|[aApP]\s[mM]\b)|[aApP](?![A-Za-z.]))"

NUMERIC_RULES = (
    Rule(
        "iso_date",
        re.compile(r"(?<![\d/.])(?<!\d-)(?P<y>(?:19|20)\d\d)([-/.])(?P<m>[01]?\d)\2(?P<d>[0-3]?\d)(?![\d/]|[.-]\d)"),
        _iso_date,
        digits=True,
    ),
    Rule(
        "iso_month",
        re.compile(r"(?<![\d/.-])(?P<y>(?:19|20)\d\d)-(?P<m>0?[1-9]|1[0-2])(?![\d/-]|\.\d)"),
        _iso_month,
        digits=True,
    ),
    Rule(
        "numeric_date",
        re.compile(
            r"(?<![A-Za-z0-9/.:])(?P<a>\d{1,2})(?P<sep>[/.-])(?P<b>\d{1,2})(?:(?P=sep)(?P<y>\d{4}|'?\d{2}))?"
            r"(?![A-Za-z0-9/]|[.:]\d|-\d{1,2}(?![\d/.-]))"
        ),
        _numeric_date,
        digits=True,
    ),
    Rule(
        "clock_meridiem",
        re.compile(B + r"(?P<h>[01]?\d)(?:[:.：](?P<mi>[0-5]\d)(?:[:.](?P<s>[0-5]\d))?)?\.?\s*" + MERIDIEM),
        _clock_meridiem,
        digits=True,
    ),
    Rule(
        "clock_24",
        re.compile(
            r"(?<![\d:.])(?P<h>[01]?\d|2[0-4])[:：](?P<mi>[0-5]\d)(?::(?P<s>[0-5]\d))?(?![\d:]|\.\d|\s*[aApP]\.?\s?[mM]\b)"
        ),
        _clock_24,
        digits=True,
    ),
)
