"""The time words: the schemas of ``lexicons/time_en.yaml`` / ``time_zh.yaml`` and their loader.

A time-word file is a mapping of sections, each a list of entries. Every entry is validated
against a pydantic model (unknown fields are errors); every problem, naming the file, the entry
and the field, is collected and raised once as :class:`~memtracks.errors.DataFileError`. The
grammars of :mod:`memtracks.pipeline.timenorm` are compiled from what they hold; the
:class:`~memtracks.toolkit.Toolkit` carries the pair a memory reads (:class:`TimeWords`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from memtracks.data.files import Strict, bundled, read_yaml, validate_entries
from memtracks.errors import DataFileError, UnsupportedLanguageError

Unit = Literal["second", "minute", "hour", "day", "week", "weekend", "month", "quarter", "half_year", "year", "decade"]
Tense = Literal["past", "future"]
Part = Literal["early", "mid", "late"]


class Word(Strict):
    word: str = Field(min_length=1)


class NumberWord(Word):
    value: float = Field(gt=0, le=1000)


class VagueWord(Word):
    low: int = Field(ge=0)
    high: int = Field(ge=0)
    confidence: float = Field(gt=0, le=1)

    @model_validator(mode="after")
    def _ordered(self) -> VagueWord:
        if self.low > self.high:
            raise ValueError(f"field 'high' ({self.high}) must be >= field 'low' ({self.low})")
        return self


class VaguePhrase(VagueWord):
    unit: Unit
    sign: Literal[-1, 1]


class UnitWord(Word):
    unit: Unit
    size: float = Field(default=1, gt=0, le=100)  # "fortnight" = 2 weeks, "century" = 10 decades
    measure: Literal["required", "optional", "none"] = "optional"  # Chinese 个


class DayWord(Word):
    offset: int = Field(ge=-7, le=7)
    not_after: str = ""  # characters that must not come right before the word


class PartWindow(Strict):
    name: str = Field(min_length=1)
    start_hour: int = Field(ge=0, le=23)
    end_hour: int = Field(ge=1, le=30)

    @model_validator(mode="after")
    def _ordered(self) -> PartWindow:
        if self.end_hour <= self.start_hour:
            raise ValueError("field 'end_hour' must be greater than field 'start_hour'")
        return self


class PartWord(Word):
    part: str
    meal: bool = False  # "dinner": a time only after at / around / before / after


class FusedWord(Word):
    offset: int = Field(ge=-7, le=7)
    part: str


class WeekdayWord(Word):
    index: int = Field(ge=0, le=6)
    abbreviation: bool = False
    ambiguous: bool = False  # also a common word ("sat", "wed"): needs a date context


class OrdinalWord(Word):
    value: int = Field(ge=1, le=31)


class HolidayWord(Word):
    """A fixed date (month, day), the ``nth`` ``weekday`` of a month (plus ``after`` days:
    Black Friday), ``easter`` days from Easter Sunday, or ``dates`` by year ("MM-DD": a day of
    the lunar calendar, 春节 or 中秋, falls on another day each year; none beyond the table)."""

    month: int | None = Field(default=None, ge=1, le=12)
    day: int | None = Field(default=None, ge=1, le=31)
    weekday: int | None = Field(default=None, ge=0, le=6)
    nth: int = Field(default=1, ge=-1, le=5)
    after: int = Field(default=0, ge=-7, le=7)
    easter: int | None = Field(default=None, ge=-60, le=60)
    dates: dict[int, str] | None = None

    @model_validator(mode="after")
    def _one_rule(self) -> HolidayWord:
        rules = [self.day is not None, self.weekday is not None, self.easter is not None, self.dates is not None]
        if sum(rules) != 1 or (self.easter is None and self.dates is None and self.month is None):
            raise ValueError("give exactly one of: month and day, month and weekday, easter, dates")
        for year, day in (self.dates or {}).items():
            try:
                date.fromisoformat(f"{year:04d}-{day}")
            except (TypeError, ValueError):
                raise ValueError(f"dates[{year}]: {day!r} is no 'MM-DD' day of {year}") from None
        return self


class ZoneWord(Word):
    """A fixed offset ("PST") or an IANA zone that knows its daylight saving ("pacific")."""

    offset_minutes: int | None = Field(default=None, ge=-720, le=840)
    iana: str | None = None

    @model_validator(mode="after")
    def _one_of(self) -> ZoneWord:
        if (self.offset_minutes is None) == (self.iana is None):
            raise ValueError("exactly one of field 'offset_minutes' or field 'iana' must be set")
        if self.iana is not None:
            from zoneinfo import ZoneInfo

            try:
                ZoneInfo(self.iana)
            except (KeyError, ValueError) as exc:
                raise ValueError(f"field 'iana': unknown time zone {self.iana!r}") from exc
        return self


class RangeWord(Word):
    role: Literal["open", "between", "infix", "pair", "close"]


class BoundWord(Word):
    kind: Literal["before", "on_or_before", "after", "since", "on_or_after"]
    place: Literal["prefix", "suffix", "paired"] = "prefix"  # paired: a prefix only with a suffix (从…起)


class MonthWord(Word):
    number: int = Field(ge=1, le=12)
    ambiguous: bool = False  # also a common word ("may"): needs a capital and a date context
    abbreviation: bool = False


class SeasonWord(Word):
    start_month: Literal[3, 6, 9, 12]


class ShiftWord(Word):
    shift: int | None = Field(default=None, ge=-3, le=3)
    tense: Tense | None = None

    @model_validator(mode="after")
    def _one_of(self) -> ShiftWord:
        if (self.shift is None) == (self.tense is None):
            raise ValueError("exactly one of field 'shift' or field 'tense' must be set")
        return self


class PeriodWord(Word):
    part: Part
    thirds: bool = False  # 上旬 / 中旬 / 下旬: exact thirds of a month (days 1-10 / 11-20 / 21-)
    narrow: bool = False  # "the end of the year", 年底: December (not Sep-Dec)
    form: Literal["prefix", "of", "suffix"] = "prefix"


class ClockWord(Word):
    hour: int = Field(ge=0, le=23)
    minute: int = Field(default=0, ge=0, le=59)


class SignWord(Word):
    sign: Literal[-1, 1]


class TenseCue(Strict):
    text: str = Field(min_length=1)
    tense: Tense
    regex: bool = False
    weak: bool = False  # used only when no ordinary cue is in the clause


class HabitWord(Strict):
    """A word that makes the times around it a habit (habits.py): ``lead`` governs the
    repeatable time right after it ("every", 每, 逢), ``trail`` the one right before it (周三晚上都),
    ``own`` is itself a repeating time or a habit ("daily", "Mondays", 每天, 平时); ``weak``: only
    when its clause has no tense cue (周末我们都去了 is one weekend); ``sentence``: it governs its
    whole sentence, not its clause ("whenever ..., ...", 每当…，…)."""

    text: str = Field(min_length=1)
    place: Literal["lead", "trail", "own"]
    regex: bool = False
    weak: bool = False
    sentence: bool = False


class Numeral(Strict):
    char: str = Field(min_length=1, max_length=1)
    value: int = Field(ge=0, le=10)


# section name -> (model, field naming an entry in messages)
_COMMON: dict[str, tuple[type[BaseModel], str]] = {
    "vague_quantities": (VagueWord, "word"),
    "vague_phrases": (VaguePhrase, "word"),
    "units": (UnitWord, "word"),
    "day_words": (DayWord, "word"),
    "part_windows": (PartWindow, "name"),
    "day_parts": (PartWord, "word"),
    "fused_day_parts": (FusedWord, "word"),
    "seasons": (SeasonWord, "word"),
    "shifts": (ShiftWord, "word"),
    "periods": (PeriodWord, "word"),
    "tense_cues": (TenseCue, "text"),
    "not_cues": (Word, "word"),
    "clause_breaks": (Word, "word"),
    "now_words": (Word, "word"),
    "holidays": (HolidayWord, "word"),
    "range_words": (RangeWord, "word"),
    "list_words": (Word, "word"),
    "bounds": (BoundWord, "word"),
    "duration_cues": (Word, "word"),
    "habits": (HabitWord, "text"),
    "habit_links": (Word, "word"),
}
SCHEMAS: dict[str, dict[str, tuple[type[BaseModel], str]]] = {
    "en": {
        **_COMMON,
        "numbers": (NumberWord, "word"),
        "weekdays": (WeekdayWord, "word"),
        "months": (MonthWord, "word"),
        "clock_words": (ClockWord, "word"),
        "date_prefixes": (Word, "word"),
        "postfix_shifts": (ShiftWord, "word"),
        "ordinals": (OrdinalWord, "word"),
        "zones": (ZoneWord, "word"),
    },
    "zh": {
        **_COMMON,
        "numerals": (Numeral, "char"),
        "weekday_nouns": (Word, "word"),
        "weekday_chars": (WeekdayWord, "word"),
        "year_words": (DayWord, "word"),
        "directions": (SignWord, "word"),
    },
}


@dataclass(frozen=True, eq=False)
class Lexicon:
    """A validated time-word file: ``lexicon["months"]`` is the tuple of that section's
    entries. Compared (and hashed) by identity: a grammar is compiled once per lexicon."""

    language: str
    path: Path
    sections: dict[str, tuple[Any, ...]]

    def __getitem__(self, section: str) -> tuple[Any, ...]:
        return self.sections[section]

    def words(self, section: str, **where: Any) -> list[str]:
        """Words of a section, optionally only entries whose fields equal ``where``."""
        return [e.word for e in self[section] if all(getattr(e, k) == v for k, v in where.items())]

    def table(self, section: str, field: str) -> dict[str, Any]:
        """``{word (lower-cased): entry.field}`` for a section."""
        return {e.word.lower(): getattr(e, field) for e in self[section]}


def load_lexicon(path: str | Path, language: str) -> Lexicon:
    """Read and validate a time lexicon file for ``language`` ("en" or "zh").

    Raises:
        DataFileError: listing every problem as file, entry and field.
        UnsupportedLanguageError: ``language`` has no schema.
    """
    if language not in SCHEMAS:
        raise UnsupportedLanguageError(
            f"no time lexicon schema for language {language!r}; expected one of {sorted(SCHEMAS)}"
        )
    path = Path(path)
    schema = SCHEMAS[language]
    doc = read_yaml(path)
    if not isinstance(doc, dict):
        raise DataFileError(str(path), ["top level must be a mapping of sections"])
    problems = [
        f"unknown section '{name}' (expected one of: {', '.join(schema)})" for name in doc if name not in schema
    ]
    sections: dict[str, tuple[Any, ...]] = {}
    for name, (model, id_field) in schema.items():
        if name not in doc:
            problems.append(f"missing section '{name}'")
            continue
        try:
            entries = validate_entries(path, doc[name], model, section=name, id_field=id_field, check=_check_entry)
        except DataFileError as exc:
            problems.extend(exc.problems)
            continue
        sections[name] = tuple(entries)
    problems.extend(_unknown_parts(sections))
    if problems:
        raise DataFileError(str(path), problems)
    return Lexicon(language, path, sections)


def _check_entry(entry: BaseModel) -> Iterator[str]:
    if isinstance(entry, TenseCue | HabitWord) and entry.regex:
        try:
            re.compile(entry.text)
        except re.error as exc:
            yield f"field 'text': not a valid regular expression: {exc}"


def _unknown_parts(sections: dict[str, tuple[Any, ...]]) -> Iterable[str]:
    """Every part-of-day word must name a window defined under ``part_windows``."""
    known = {w.name for w in sections.get("part_windows", ())}
    if not known:
        return
    for section in ("day_parts", "fused_day_parts"):
        for index, entry in enumerate(sections.get(section, ())):
            if entry.part not in known:
                yield (
                    f"{section}[{index}] '{entry.word}': field 'part': unknown part "
                    f"'{entry.part}' (defined in part_windows: {', '.join(sorted(known))})"
                )


@dataclass(frozen=True, eq=False)
class TimeWords:
    """The time words of both grammars: ``time_words["en"]`` is the English lexicon."""

    en: Lexicon
    zh: Lexicon

    def __getitem__(self, language: str) -> Lexicon:
        if language not in SCHEMAS:
            raise UnsupportedLanguageError(
                f"no time words for language {language!r}; expected one of {sorted(SCHEMAS)}"
            )
        return self.en if language == "en" else self.zh


def load_time_words(directory: str | Path | None = None) -> TimeWords:
    """``time_en.yaml`` and ``time_zh.yaml`` from ``directory`` (default: the bundled ``lexicons/``)."""

    def path(language: str) -> Path:
        name = f"time_{language}.yaml"
        return Path(directory) / name if directory is not None else bundled("lexicons", name)

    return TimeWords(load_lexicon(path("en"), "en"), load_lexicon(path("zh"), "zh"))


@lru_cache(maxsize=1)
def default_time_words() -> TimeWords:
    """The bundled time words, loaded and validated once (the toolkit's, and the grammars'
    for a caller with no toolkit)."""
    return load_time_words()
