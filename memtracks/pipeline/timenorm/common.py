"""Shared by the English and Chinese grammars: numeric dates, 24-hour clocks, regex helpers."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from string import Template

from .engine import DIGITS, Clock, Context, Piece, Rule
from .resolve import ABSOLUTE, RELATIVE, safe_date
from .tense import literal


def key(text: str) -> str:
    """Lookup key of a matched phrase: lower case, single spaces, straight apostrophes."""
    return " ".join(text.lower().replace("’", "'").split())


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
    requires: Mapping[str, tuple[str, ...]],
) -> list[Rule]:
    """Rules from (name, handler, pattern) rows; ``$name`` in a pattern is a fragment."""
    return [
        Rule(
            name,
            re.compile(Template(pattern).substitute(fragments)),
            handler,
            requires.get(name, ()),
        )
        for name, handler, pattern in table
    ]


def _iso_date(match: re.Match[str], ctx: Context) -> Piece | None:
    day = safe_date(int(match["y"]), int(match["m"]), int(match["d"]))
    return Piece(match.span(), ABSOLUTE, day=day) if day else None


def _clock_24(match: re.Match[str], ctx: Context) -> Piece | None:
    return Piece(match.span(), RELATIVE, clock=Clock(int(match["h"]), int(match["mi"])))


ISO_DATE = Rule(
    "iso_date",
    re.compile(r"(?<![\d/.-])(?P<y>(?:19|20)\d\d)([-/.])(?P<m>[01]?\d)\2(?P<d>[0-3]?\d)(?![\d/.-])"),
    _iso_date,
    DIGITS,
)
CLOCK_24 = Rule(
    "clock_24",
    re.compile(r"(?<![\d:.])(?P<h>[01]?\d|2[0-3]):(?P<mi>[0-5]\d)(?![\d:.]|\s*(?i:[ap]\.?m\b))"),
    _clock_24,
    DIGITS,
)
