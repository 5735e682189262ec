"""``lexicons/statements.yaml``: the markers that say how a clause is said (negated, ceased,
asked, wished, reported, past, planned...), the patterns of a bare correction ("sorry, I
meant Tuesday", 不对，是周二) and, per slot, the words that end a held value ("sold", 卖掉) and
those of a value had only for a while ("test drove", 试驾), compiled and validated: a bad regex
fails naming the file, the section and the entry. How they are read:
:mod:`memtracks.pipeline.statements`, :mod:`memtracks.pipeline.corrections` and
:mod:`memtracks.write.stages`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from memtracks.data.files import bundled, read_yaml
from memtracks.errors import DataFileError

CATEGORIES = (
    "negated",
    "ceased",
    "question",
    "hypothetical",
    "wish",
    "planned",
    "reported",
    "past",
    "correction",
    "addition",
)  # (the parse adds "done": a finished act, in the past tense; "occasion": a past progressive)


@dataclass(frozen=True)
class Markers:
    """Compiled marker regexes per language and category."""

    by_lang: dict[str, dict[str, tuple[re.Pattern[str], ...]]]

    def found(self, lang: str, text: str) -> frozenset[str]:
        table = self.by_lang.get(lang, {})
        return frozenset(c for c, regexes in table.items() if any(r.search(text) for r in regexes))

    def without(self, lang: str, category: str, text: str) -> str:
        """``text`` with what its ``category`` markers match taken out ("we didn't split up"
        without "negated": "we did split up"; 我们没分手: 我们分手)."""
        for r in self.by_lang.get(lang, {}).get(category, ()):
            text = r.sub("", text)
        return re.sub(r"\s{2,}", " ", text)


def _compiled(regexes: list, lang: str, where: str, problems: list[str]) -> tuple[re.Pattern[str], ...]:
    """``regexes`` compiled (English ones ignoring case); each bad one is a problem at ``where[i]``."""
    out = []
    for i, rx in enumerate(regexes):
        try:
            out.append(re.compile(rx, re.IGNORECASE if lang == "en" else 0))
        except (re.error, TypeError) as exc:
            problems.append(f"{where}[{i}]: bad regex {rx!r}: {exc}")
    return tuple(out)


def load_markers(path: Path | None = None) -> Markers:
    path = path or bundled("lexicons", "statements.yaml")
    doc = read_yaml(path)
    section = doc.get("markers") if isinstance(doc, dict) else None
    if not isinstance(section, dict):
        raise DataFileError(str(path), ["missing top-level section 'markers' (language -> category -> regexes)"])
    problems: list[str] = []
    out: dict[str, dict[str, tuple[re.Pattern[str], ...]]] = {}
    for lang, table in section.items():
        if not isinstance(table, dict):
            problems.append(f"markers.{lang}: must map a category to a list of regexes")
            continue
        out[lang] = {}
        for category, regexes in table.items():
            if category not in CATEGORIES:
                problems.append(f"markers.{lang}.{category}: unknown category; known: {', '.join(CATEGORIES)}")
                continue
            out[lang][category] = _compiled(regexes or [], lang, f"markers.{lang}.{category}", problems)
    if problems:
        raise DataFileError(str(path), problems)
    return Markers(out)


@lru_cache(maxsize=1)
def default_markers() -> Markers:
    return load_markers()


def load_bare_corrections(path: Path | None = None) -> dict[str, tuple[re.Pattern[str], ...]]:
    path = path or bundled("lexicons", "statements.yaml")
    doc = read_yaml(path)
    section = doc.get("bare_corrections") if isinstance(doc, dict) else None
    if not isinstance(section, dict):
        raise DataFileError(str(path), ["missing section 'bare_corrections' (language -> list of regexes)"])
    problems: list[str] = []
    out: dict[str, tuple[re.Pattern[str], ...]] = {}
    for lang, regexes in section.items():
        compiled = []
        for i, rx in enumerate(regexes or []):
            try:
                pattern = re.compile(rx, re.IGNORECASE if lang == "en" else 0)
            except re.error as exc:
                problems.append(f"bare_corrections.{lang}[{i}]: bad regex {rx!r}: {exc}")
                continue
            if "value" not in pattern.groupindex:
                problems.append(f"bare_corrections.{lang}[{i}]: needs a (?P<value>...) group")
                continue
            compiled.append(pattern)
        out[str(lang)] = tuple(compiled)
    if problems:
        raise DataFileError(str(path), problems)
    return out


@lru_cache(maxsize=1)
def default_bare_corrections() -> dict[str, tuple[re.Pattern[str], ...]]:
    return load_bare_corrections()


@dataclass(frozen=True)
class Endings:
    """Per slot and language, words said of a held value: those that say it is over ("sold",
    "a write-off", 卖掉, 没醒过来; ``endings``, read by :func:`memtracks.write.stages.read_changes`)
    or that it is had only for a while ("test drove", 试驾; ``passing``, read by
    :func:`memtracks.write.stages.set_aside_passing`). The ``rumours`` section has the same
    shape, keyed by :data:`RUMOUR_PARTS` instead of slots (read by
    :func:`memtracks.write.stages.set_aside_rumours`)."""

    by_slot: dict[str, dict[str, tuple[re.Pattern[str], ...]]]

    def find(self, slot: str, lang: str, text: str) -> list[re.Match[str]]:
        """Every ending of ``slot`` in ``text`` (Chinese: as Simplified), in order."""
        found = [m for r in self.by_slot.get(slot, {}).get(lang, ()) for m in r.finditer(text)]
        return sorted(found, key=lambda m: m.start())


def load_endings(path: Path | None = None, slots: frozenset[str] | None = None, name: str = "endings") -> Endings:
    """The ``endings`` section (or another section of per-slot words, ``name``: ``passing``);
    ``slots``, when given, are the slot names an entry may use."""
    path = path or bundled("lexicons", "statements.yaml")
    doc = read_yaml(path)
    section = doc.get(name, {}) if isinstance(doc, dict) else None
    if not isinstance(section, dict):
        raise DataFileError(str(path), [f"section {name!r} must map a slot to language -> list of regexes"])
    problems: list[str] = []
    out: dict[str, dict[str, tuple[re.Pattern[str], ...]]] = {}
    for slot, table in section.items():
        if slots is not None and slot not in slots:
            problems.append(f"{name}.{slot}: unknown slot; known: {', '.join(sorted(slots))}")
            continue
        if not isinstance(table, dict):
            problems.append(f"{name}.{slot}: must map a language (en, zh) to a list of regexes")
            continue
        out[str(slot)] = {}
        for lang, regexes in table.items():
            if lang not in ("en", "zh"):
                problems.append(f"{name}.{slot}.{lang}: unknown language; known: en, zh")
                continue
            if not isinstance(regexes, list):
                problems.append(f"{name}.{slot}.{lang}: must be a list of regexes")
                continue
            out[str(slot)][str(lang)] = _compiled(regexes, lang, f"{name}.{slot}.{lang}", problems)
    if problems:
        raise DataFileError(str(path), problems)
    return Endings(out)


@lru_cache(maxsize=1)
def default_endings() -> Endings:
    return load_endings()


@lru_cache(maxsize=1)
def default_passing() -> Endings:
    """Per slot, the words of a value had for a while and not owned (a test drive, a loan)."""
    return load_endings(name="passing")


RUMOUR_PARTS = frozenset({"told", "denied"})  # what someone else tells of the speaker; the denial


@lru_cache(maxsize=1)
def default_rumours() -> Endings:
    """What someone else tells of the speaker (``told``) and the speaker's denial of it (``denied``)."""
    return load_endings(name="rumours", slots=RUMOUR_PARTS)
