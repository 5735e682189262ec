"""``lexicons/history.yaml``: the cues of a question about the past ("used to", "ever", 以前,
住过), read and validated; :mod:`memtracks.retrieval.query` asks it of every question."""

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

    @cached_property
    def _pattern(self) -> re.Pattern[str] | None:
        parts = [rf"\b(?:{'|'.join(self.en)})\b"] if self.en else []
        parts += [f"(?:{'|'.join(self.zh)})"] if self.zh else []
        return re.compile("|".join(parts), re.IGNORECASE) if parts else None

    def asks(self, text: str) -> bool:
        return self._pattern is not None and self._pattern.search(text) is not None


def load_history(path: Path) -> History:
    """The history cues of ``path``, validated: a bad file fails naming it, the field and the entry."""
    doc = read_yaml(path)
    if not isinstance(doc, dict):
        raise DataFileError(str(path), ["must be a mapping with 'en' and 'zh' lists"])
    problems: list[str] = []
    en, zh = (string_list(name, doc.get(name), problems, regex=True) for name in ("en", "zh"))
    if problems:
        raise DataFileError(str(path), problems)
    return History(en, zh)


@lru_cache(maxsize=1)
def default_history() -> History:
    return load_history(bundled("lexicons", "history.yaml"))
