"""``lexicons/history.yaml``: the cues of a question about the past ("used to", "ever", 以前,
住过), about now ("still", 现在) and over many conversations ("how many", 几只, 哪些), read and
validated; :mod:`memtracks.retrieval.query` asks it of every question."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

from memtracks.data.files import bundled, read_yaml, string_list
from memtracks.errors import DataFileError


@dataclass(frozen=True)
class History:
    """The cues of a question about how things were before (``lexicons/history.yaml``): "used
    to", "ever", 以前, 住过 — superseded facts and stale conclusions may answer it."""

    en: tuple[str, ...]
    zh: tuple[str, ...]
    now: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())  # (en, zh): asks about the present
    present: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())  # (en, zh): present-tense forms
    then: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())  # (en, zh): a moment that has passed
    aggregate: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())  # (en, zh): a count, a list, an order
    when: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())  # (en, zh) forms: it asks when
    comparison: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())  # (en, zh) forms: first or last of several
    order: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())  # (en, zh) forms: a comparison's own words
    quantity: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())  # (en, zh) forms: a count's own words

    @cached_property
    def _pattern(self) -> re.Pattern[str] | None:
        return _cues(self.en, self.zh)

    @cached_property
    def _now_then(self) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
        return _cues(*self.now), _cues(*self.then)

    @cached_property
    def _present(self) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
        """(English, Chinese) present-tense forms, each matched as written."""
        en, zh = self.present
        return _forms(en), _forms(zh)

    @cached_property
    def _aggregate(self) -> re.Pattern[str] | None:
        return _cues(*self.aggregate)

    @cached_property
    def _question_forms(self) -> dict[str, re.Pattern[str] | None]:
        """Each form section's English and Chinese forms as one pattern, matched as written."""
        sections = {"when": self.when, "comparison": self.comparison, "order": self.order, "quantity": self.quantity}
        return {name: _forms(en + zh) for name, (en, zh) in sections.items()}

    def asks_when(self, text: str) -> bool:
        """Does the question (as Simplified Chinese) ask when ("when", 什么时候, 几号)?"""
        found = self._question_forms["when"]
        return found is not None and found.search(text) is not None

    def compares(self, text: str) -> bool:
        """Does the question (as Simplified Chinese) ask which of several came first or last?"""
        found = self._question_forms["comparison"]
        return found is not None and found.search(text) is not None

    def form_spans(self, text: str, section: str) -> list[tuple[int, int]]:
        """Where the words of a question's form are ("order": a comparison's, "quantity": a
        count's), in the question as Simplified Chinese (character for character the same)."""
        found = self._question_forms[section]
        return [m.span() for m in found.finditer(text)] if found is not None else []

    def asks_aggregate(self, text: str) -> bool:
        """Is the question (as Simplified Chinese) one whose answer is spread over
        conversations: a count, a list, an order ("how many", 几只, 哪些, 顺序)?"""
        return self._aggregate is not None and self._aggregate.search(text) is not None

    def asks(self, text: str) -> bool:
        return self._pattern is not None and self._pattern.search(text) is not None

    def asks_now(self, text: str, lang: str) -> bool:
        """Does the question (as Simplified Chinese) ask how things are now: a `now` cue, or
        the present tense without a `then` cue — and no cue of the past? Chinese marks no
        tense, so a Chinese question is in the present unless a `then` cue says otherwise."""
        if self.asks(text):
            return False
        now, then = self._now_then
        if now is not None and now.search(text):
            return True
        if then is not None and then.search(text):
            return False
        present = self._present[1 if lang == "zh" else 0]
        return present is not None and present.search(text) is not None


def _forms(forms: tuple[str, ...]) -> re.Pattern[str] | None:
    return re.compile("|".join(f"(?:{rx})" for rx in forms), re.IGNORECASE) if forms else None


def _cues(en: tuple[str, ...], zh: tuple[str, ...]) -> re.Pattern[str] | None:
    parts = [rf"\b(?:{'|'.join(en)})\b"] if en else []
    parts += [f"(?:{'|'.join(zh)})"] if zh else []
    return re.compile("|".join(parts), re.IGNORECASE) if parts else None


def load_history(path: Path) -> History:
    """The history cues of ``path``, validated: a bad file fails naming it, the field and the entry."""
    doc = read_yaml(path)
    if not isinstance(doc, dict):
        raise DataFileError(str(path), ["must be a mapping with 'en' and 'zh' lists"])
    problems: list[str] = []
    en, zh = (string_list(name, doc.get(name), problems, regex=True) for name in ("en", "zh"))
    sections = ("now", "present", "then", "aggregate", "when", "comparison", "order", "quantity")
    found = {name: _by_language(name, doc.get(name, {}), problems) for name in sections}
    if problems:
        raise DataFileError(str(path), problems)
    return History(en, zh, **found)


def _by_language(name: str, section: object, problems: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """An optional {en: [...], zh: [...]} section of regular expressions."""
    if not isinstance(section, dict) or set(section) - {"en", "zh"}:
        problems.append(f"field '{name}': must be a mapping with 'en' and 'zh' lists of regular expressions")
        return (), ()
    en, zh = (string_list(f"{name}.{lang}", section.get(lang, []), problems, regex=True) for lang in ("en", "zh"))
    return en, zh


@lru_cache(maxsize=1)
def default_history() -> History:
    return load_history(bundled("lexicons", "history.yaml"))
