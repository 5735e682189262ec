"""``lexicons/polarity.yaml``: negation words, read and validated; consolidation keeps a
negated restatement apart from what it negates (:mod:`memtracks.upkeep.consolidation`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from memtracks.data.files import bundled, read_yaml
from memtracks.errors import DataFileError


@dataclass(frozen=True)
class Polarity:
    """Negation words (``lexicons/polarity.yaml``)."""

    en: tuple[str, ...]
    zh: tuple[str, ...]

    def marks(self, text: str) -> frozenset[str]:
        """The negation words in ``text``."""
        lowered = text.lower().replace("’", "'")
        found = {w for w in self.en if re.search(rf"(?<![a-z']){re.escape(w)}(?![a-z])", lowered)}
        if "n't" in self.en and "n't" in lowered:
            found.add("n't")
        found |= {w for w in self.zh if w in text}
        return frozenset(found)


def load_polarity(path: Path) -> Polarity:
    doc = read_yaml(path)
    problems = []
    lists: dict[str, tuple[str, ...]] = {}
    for lang in ("en", "zh"):
        items = doc.get(lang) if isinstance(doc, dict) else None
        if not isinstance(items, list) or not all(isinstance(w, str) and w.strip() for w in items):
            problems.append(f"field '{lang}': must be a list of non-empty strings")
            continue
        lists[lang] = tuple(w.strip().lower() for w in items)
    if problems:
        raise DataFileError(str(path), problems)
    return Polarity(lists["en"], lists["zh"])


@lru_cache(maxsize=1)
def default_polarity() -> Polarity:
    return load_polarity(bundled("lexicons", "polarity.yaml"))
