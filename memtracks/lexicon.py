"""Bilingual word lists from ``lexicons/``: named entities, relations, animals, jobs,
activities, health conditions.

Each list maps surface forms in English and Chinese to one canonical key, so 上海 and
Shanghai are the same entity and 姐姐 and "sister" the same relation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field

from .datafiles import Strict, bundled, load_section, read_yaml
from .errors import DataFileError
from .records import Entity


class TermSpec(Strict):
    key: str = Field(min_length=1)
    en: list[str] = Field(default_factory=list)
    zh: list[str] = Field(default_factory=list)
    gender: Literal["f", "m"] | None = None  # relations: who "she" / 她 can refer to
    parents_say: str | None = None  # relations: the child a parent means by the bare word (哥哥: son)


class EntitySpec(TermSpec):
    label: Literal["place", "org", "product", "language", "person"]


def _problems(spec: TermSpec):
    if not spec.en and not spec.zh:
        yield "fields 'en'/'zh': give at least one surface form"
    for lang in ("en", "zh"):
        for form in getattr(spec, lang):
            if not form.strip():
                yield f"field '{lang}': empty surface form"


def surface_key(text: str) -> str:
    """Normal form used to look surface forms up: lower case, no spaces."""
    return re.sub(r"\s+", "", text).lower()


def alternation(forms: list[str]) -> str:
    """A regex alternation of ``forms``, longest first, tolerant of inner whitespace."""
    escaped = sorted({re.escape(f).replace(r"\ ", r"\s*") for f in forms}, key=len, reverse=True)
    return "|".join(escaped)


@dataclass(frozen=True)
class TermList:
    """Surface forms -> canonical key, for one kind of term."""

    name: str
    specs: tuple[TermSpec, ...]

    @cached_property
    def lookup(self) -> dict[str, str]:
        return {surface_key(f): s.key for s in self.specs for f in (*s.en, *s.zh)}

    def forms(self, lang: str) -> list[str]:
        return [f for s in self.specs for f in getattr(s, lang)]

    def key(self, text: str) -> str | None:
        return self.lookup.get(surface_key(text))

    @cached_property
    def genders(self) -> dict[str, str]:
        return {s.key: s.gender for s in self.specs if s.gender}

    @cached_property
    def parents_say(self) -> dict[str, str]:
        """Relation -> the child a parent calls by its bare word (brother -> son: 哥哥三年级了)."""
        return {s.key: s.parents_say for s in self.specs if s.parents_say}

    def key_of_prefix(self, text: str) -> str | None:
        """The key of the longest surface form ``text`` starts with ("朋友开" -> friend)."""
        for end in range(len(text), 0, -1):
            found = self.key(text[:end])
            if found:
                return found
        return None


@dataclass(frozen=True)
class EntityLexicon(TermList):
    """Named entities with labels, found in text by one compiled regex."""

    @cached_property
    def labels(self) -> dict[str, str]:
        return {s.key: s.label for s in self.specs}  # type: ignore[attr-defined]

    @cached_property
    def _regex(self) -> re.Pattern[str]:
        latin = alternation(self.forms("en") + [f for f in self.forms("zh") if f.isascii()])
        han = alternation([f for f in self.forms("zh") if not f.isascii()])
        return re.compile(rf"(?<![A-Za-z0-9])(?:{latin})(?![A-Za-z0-9])|{han}", re.IGNORECASE)

    def find(self, text: str) -> list[Entity]:
        found = []
        for m in self._regex.finditer(text):
            key = self.key(m.group())
            if key is not None:
                found.append(Entity(m.group(), self.labels[key], key, m.span(), "lexicon"))
        return found


@dataclass(frozen=True)
class Lexicons:
    entities: EntityLexicon
    relations: TermList
    animals: TermList
    jobs: TermList
    activities: TermList = field(default_factory=lambda: TermList("activities", ()))
    conditions: TermList = field(default_factory=lambda: TermList("conditions", ()))
    surnames: frozenset[str] = frozenset()
    traditional: dict[str, str] = field(default_factory=dict)  # Traditional -> Simplified character

    @cached_property
    def _to_simplified(self) -> dict[int, str]:
        return str.maketrans(self.traditional)

    def to_simplified(self, text: str) -> str:
        """``text`` with Traditional characters mapped to Simplified, one for one (same length)."""
        return text.translate(self._to_simplified) if self.traditional else text

    def is_chinese_name(self, text: str) -> bool:
        """A jieba "nr" word counts as a name only when it starts with a common surname."""
        return 2 <= len(text) <= 4 and (text[0] in self.surnames or text[:2] in self.surnames)


def _load_terms(path: Path, section: str) -> tuple[TermSpec, ...]:
    return tuple(load_section(path, section, TermSpec, id_field="key", check=_problems))


def load_entities(path: Path) -> EntityLexicon:
    specs = load_section(path, "entities", EntitySpec, id_field="key", check=_problems)
    return EntityLexicon("entities", tuple(specs))


def load_surnames(path: Path) -> frozenset[str]:
    doc = read_yaml(path)
    items = doc.get("surnames") if isinstance(doc, dict) else None
    if not isinstance(items, list):
        raise DataFileError(str(path), ["section 'surnames' must be a list of strings"])
    bad = [
        f"surnames[{i}]: must be a non-empty string"
        for i, x in enumerate(items)
        if not isinstance(x, str) or not x.strip()
    ]
    if bad:
        raise DataFileError(str(path), bad)
    return frozenset(items)


def load_traditional(path: Path) -> dict[str, str]:
    doc = read_yaml(path)
    pairs = doc.get("pairs") if isinstance(doc, dict) else None
    if not isinstance(pairs, str):
        raise DataFileError(str(path), ["field 'pairs': a string of Traditional/Simplified character pairs"])
    out, bad = {}, []
    for i, pair in enumerate(pairs.split()):
        if len(pair) != 2:
            bad.append(f"pairs[{i}] {pair!r}: must be exactly two characters (Traditional, Simplified)")
        elif pair[0] != pair[1]:
            out[pair[0]] = pair[1]
    if bad:
        raise DataFileError(str(path), bad)
    return out


def load_lexicons(directory: Path | None = None) -> Lexicons:
    """Load every lexicon from ``directory`` (default: the bundled ``lexicons/``)."""

    def path(name: str) -> Path:
        return directory / name if directory else bundled("lexicons", name)

    return Lexicons(
        entities=load_entities(path("entities.yaml")),
        relations=TermList("relations", _load_terms(path("relations.yaml"), "relations")),
        animals=TermList("animals", _load_terms(path("animals.yaml"), "animals")),
        jobs=TermList("jobs", _load_terms(path("jobs.yaml"), "jobs")),
        activities=TermList("activities", _load_terms(path("activities.yaml"), "activities")),
        conditions=TermList("conditions", _load_terms(path("conditions.yaml"), "conditions")),
        surnames=load_surnames(path("surnames_zh.yaml")),
        traditional=load_traditional(path("traditional.yaml")),
    )


@lru_cache(maxsize=1)
def default_lexicons() -> Lexicons:
    return load_lexicons()
