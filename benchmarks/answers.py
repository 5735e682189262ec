"""Is a gold answer in a context? Text after normalisation, or the same dates at any precision.

A gold answer that is only dates and qualifiers ("7 May 2023", "June 2023", "in 2022", "the
week before 9 June 2023", "2023年6月") is a *date answer*: it is found when the context names
every period the gold names, at the same or a finer precision, in any common form — "June
2023" is found in ``2023-06``, ``[2023-06]`` or ``2023-06-14``; "in 2022" in ``[2022]`` or
``2022-03-04``; "7 May 2023" in ``2023-05-07`` (a coarser mention, ``2023-05``, does not give
the day). Qualifiers ("the week before", "early", "last week of") are not checked, as a reader
would work them out from the date. Any other answer must appear as text: "Paris in 2019" is
not found by a context that only says 2019.

Chinese: text is compared with Traditional characters read as Simplified, and a Chinese gold
matches inside a run of characters (Chinese has no spaces between words); a Chinese gold of
key terms separated by 、 ("乐乐、六岁") is found when every term is.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from memtracks.interfaces.io import MONTH_NAMES

_MONTH_RE = "|".join(m[:3] + f"(?:{m[3:]})?" for m in MONTH_NAMES)
_ORD = r"(?:st|nd|rd|th)?"
_FULL = (  # (regex, group of year, month, day)
    (re.compile(rf"\b(\d{{1,2}}){_ORD}\s*(?:of\s+)?({_MONTH_RE})\b\.?,?\s*(\d{{4}})(?!\d)", re.I), (3, 2, 1)),
    (re.compile(rf"\b({_MONTH_RE})\b\.?\s*(\d{{1,2}}){_ORD},?\s+(\d{{4}})(?!\d)", re.I), (3, 1, 2)),
    (re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)"), (1, 2, 3)),
    (re.compile(r"(?<!\d)(\d{4})/(\d{1,2})/(\d{1,2})(?!\d)"), (1, 2, 3)),
    (re.compile(r"(?<!\d)(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]"), (1, 2, 3)),
)
_MONTH_YEAR = (  # (regex, group of year, month)
    (re.compile(rf"\b({_MONTH_RE})\b[.,]?\s*(?:of\s+)?(\d{{4}})(?!\d)", re.I), (2, 1)),
    (re.compile(r"(?<!\d)(\d{4})-(\d{2})(?![\d-])"), (1, 2)),
    (re.compile(r"(?<!\d)(\d{4})/(\d{1,2})(?![\d/])"), (1, 2)),
    (re.compile(r"(?<!\d)(\d{4})\s*年\s*(\d{1,2})\s*月"), (1, 2)),
)
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d{2})(?!\d)(?:\s*年)?")
# Words a date answer may carry besides its dates; the gold is a date answer if nothing else is left.
_QUALIFIERS = frozenset(
    "in on at around about approximately roughly circa during since by before after of the a an "
    "and to from between until till some sometime time week weekend weekends month year day days night "
    "weeks months years few couple first second third fourth last next end beginning start middle "
    "early mid late spring summer fall autumn winter monday tuesday wednesday thursday friday "
    "saturday sunday morning afternoon evening".split()
)
_ZH_QUALIFIERS = re.compile(
    r"大约|大概|左右|前后|上旬|中旬|下旬|月初|月底|月中|年初|年底|年中|的时候|期间|"
    r"之前|之后|以前|以后|[在于约初底前后的]"
)


@dataclass(frozen=True)
class Period:
    """A year, a month of a year, or a day."""

    year: int
    month: int | None = None
    day: int | None = None

    def within(self, other: Period) -> bool:
        """Is this period inside ``other`` (the same, or finer)?"""
        return (
            self.year == other.year
            and (other.month is None or self.month == other.month)
            and (other.day is None or self.day == other.day)
        )


def _month(name: str) -> int:
    return next(i for i, m in enumerate(MONTH_NAMES, start=1) if m.startswith(name.lower()[:3]))


def _number_or_month(text: str) -> int:
    return int(text) if text.isdigit() else _month(text)


def _periods_and_rest(text: str) -> tuple[set[Period], str]:
    """The periods named in ``text`` (each mention once, at its own precision) and the text
    left once they are taken out."""
    found: set[Period] = set()
    rest = text

    def take(regex: re.Pattern, groups: tuple[int, ...]) -> None:
        nonlocal rest

        def one(m: re.Match) -> str:
            values = [_number_or_month(m.group(g)) for g in groups]
            period = _valid(*values)
            if period is None:
                return m.group()
            found.add(period)
            return " "

        rest = regex.sub(one, rest)

    for regex, groups in _FULL + _MONTH_YEAR:
        take(regex, groups)
    take(_YEAR, (1,))
    return found, rest


def _valid(year: int, month: int | None = None, day: int | None = None) -> Period | None:
    try:
        date(year, month or 1, day or 1)
    except ValueError:
        return None
    return Period(year, month, day)


def periods_in(text: str) -> set[Period]:
    """Every year, month and day ``text`` names: "June 2023", "2023-06", "in 2022", 2023年6月5日."""
    return _periods_and_rest(text)[0]


def dates_in(text: str) -> set[date]:
    """Calendar days written in any common format: 7 May 2023, May 7, 2023, 2023-05-07, 2023/5/7."""
    return {date(p.year, p.month, p.day) for p in periods_in(text) if p.day is not None and p.month}


def date_answer(answer: str) -> set[Period]:
    """The periods of a date answer ("June 2023", "in 2022", "the Friday before 14 September
    2022"); empty when the answer says anything besides dates and qualifiers."""
    periods, rest = _periods_and_rest(answer)
    if not periods:
        return set()
    words = normalize(_ZH_QUALIFIERS.sub(" ", rest)).split()
    return periods if all(w in _QUALIFIERS for w in words) else set()


def normalize(text: str) -> str:
    """Lower case, punctuation to spaces, articles dropped, single spaces (also for Chinese)."""
    text = text.lower()
    text = "".join(" " if ch in string.punctuation or ch in "，。！？；：、（）【】“”‘’" else ch for ch in text)
    text = re.sub(r"\b(?:a|an|the)\b", " ", text)
    return " ".join(text.split())


@lru_cache(maxsize=16)
def _normalized_context(context: str) -> str:
    return f" {normalize(_simplified(context))} "


def _simplified(text: str) -> str:
    from memtracks.data.lexicons import default_lexicons

    return default_lexicons().to_simplified(text)


@lru_cache(maxsize=16)
def _context_periods(context: str) -> frozenset[Period]:
    return frozenset(periods_in(context))


_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def answer_in_context(answer: str, context: str) -> bool:
    """Does the gold ``answer`` appear in ``context`` — as text after normalisation, or, for a
    date answer, as the same periods at the same or a finer precision (see the module doc)?"""
    answer = str(answer)
    if _HAN.search(answer):
        answer = _simplified(answer)
        if "、" in answer:
            return all(answer_in_context(part, context) for part in answer.split("、") if part.strip())
    gold = normalize(answer)
    if not gold:
        return False
    if f" {gold} " in _normalized_context(context):
        return True
    if _HAN.search(gold) and gold in _normalized_context(context):
        return True
    wanted = date_answer(str(answer))
    if not wanted:
        return False
    named = _context_periods(context)
    return all(any(p.within(w) for p in named) for w in wanted)
