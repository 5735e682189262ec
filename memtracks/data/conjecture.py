"""``lexicons/conjecture.yaml``: the cues of a conjecture question ("Would Melanie enjoy...",
他可能...), read and validated; :mod:`memtracks.retrieval.query` asks it of every question."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

from memtracks.data.files import bundled, read_yaml, string_list
from memtracks.errors import DataFileError


@dataclass(frozen=True)
class Conjecture:
    """The cues of a conjecture question (``lexicons/conjecture.yaml``): one that asks what
    someone would, might or probably does ("Would Melanie enjoy Vivaldi?", 他可能学的什么专业？).
    A cue next to an addressee asks the assistant instead ("Could you remind me...")."""

    en: tuple[str, ...]
    zh: tuple[str, ...]
    addressee_en: tuple[str, ...]
    addressee_zh: tuple[str, ...]

    @cached_property
    def _en(self) -> re.Pattern[str] | None:
        return re.compile(rf"\b(?:{_alternatives(self.en)})\b", re.IGNORECASE) if self.en else None

    @cached_property
    def _zh(self) -> re.Pattern[str] | None:
        return re.compile(_alternatives(self.zh)) if self.zh else None

    def asks(self, text: str) -> bool:
        """Whether ``text`` (Simplified, for Chinese) is a conjecture question: it holds a cue
        that no addressee stands right before or after ("Would Tim enjoy..." but not "Could
        you...", "...if you could remind me", 你会不会...)."""
        en, zh = self._en, self._zh
        text = text.replace("’", "'")
        for m in en.finditer(text) if en else ():
            before, after = _WORD.findall(text[: m.start()])[-1:], _WORD.findall(text[m.end() :])[:1]
            if not any(w.lower() in self.addressee_en for w in before + after):
                return True
        for m in zh.finditer(text) if zh else ():
            if (
                text[m.start() - 1 : m.start()] not in self.addressee_zh
                and text[m.end() : m.end() + 1] not in self.addressee_zh
            ):
                return True
        return False


_WORD = re.compile(r"[A-Za-z']+")


def _alternatives(words: Iterable[str]) -> str:
    """One regex alternation of ``words``, the longest first."""
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


def load_conjecture(path: Path) -> Conjecture:
    """The conjecture cues of ``path``, validated: a bad file fails naming it and the field."""
    doc = read_yaml(path)
    if not isinstance(doc, dict):
        raise DataFileError(str(path), ["must be a mapping with 'en', 'zh' and 'addressee'"])
    addressee = doc.get("addressee", {})
    problems: list[str] = []
    lists: dict[str, tuple[str, ...]] = {}
    fields: list[tuple[str, object]] = [("en", doc.get("en")), ("zh", doc.get("zh"))]
    if not isinstance(addressee, dict):
        problems.append("field 'addressee': must be a mapping with 'en' and 'zh' lists")
        addressee = {}
    fields += [("addressee.en", addressee.get("en", [])), ("addressee.zh", addressee.get("zh", []))]
    for name, items in fields:
        lists[name] = tuple(w.lower() for w in string_list(name, items, problems))
    if problems:
        raise DataFileError(str(path), problems)
    return Conjecture(lists["en"], lists["zh"], lists["addressee.en"], lists["addressee.zh"])


@lru_cache(maxsize=1)
def default_conjecture() -> Conjecture:
    return load_conjecture(bundled("lexicons", "conjecture.yaml"))
