"""The stop words: ``lexicons/stopwords.yaml`` read into :class:`Stopwords`.

What lexical search (BM25) leaves out of a text's terms, in English and Chinese, and the small
talk a turn's substance does not count (:mod:`memtracks.retrieval.lexical`,
:mod:`memtracks.retrieval.substance`). The file is a mapping of fields; a bad one fails naming
the file, the entry (the word and its place in its list) and the field.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from memtracks.data.files import Strict, bundled, read_yaml
from memtracks.errors import DataFileError
from memtracks.pipeline.text import stem

HAN_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_CHINESE_WORDS = ("zh_words", "chitchat_zh", "pleasantries_zh")


class StopwordSpec(Strict):
    en: str
    zh_chars: str
    zh_words: list[str]
    chitchat_en: str = ""
    chitchat_zh: list[str] = []
    pleasantries_en: list[str] = []
    pleasantries_zh: list[str] = []


def _problems(spec: StopwordSpec) -> Iterator[str]:
    """A Chinese word list holds function words of two or more Chinese characters."""
    for name in _CHINESE_WORDS:
        for i, word in enumerate(getattr(spec, name)):
            if len(word) < 2 or not HAN_RUN.fullmatch(word):
                yield f"{name}[{i}] {word!r}: field '{name}': a function word of two or more Chinese characters"


@dataclass(frozen=True, eq=False)
class Stopwords:
    en: frozenset[str]
    zh_chars: frozenset[str]
    zh_words: re.Pattern[str]  # longest first
    chitchat_en: frozenset[str] = frozenset()  # stemmed
    chitchat_zh: re.Pattern[str] = re.compile("(?!)")
    pleasantries_en: re.Pattern[str] = re.compile("(?!)")  # whole words and phrases, lower case
    pleasantries_zh: re.Pattern[str] = re.compile("(?!)")  # with the function words and chitchat

    def fingerprint(self) -> str:
        """A digest of what the stop words leave out (saved BM25 indexes are stamped with it)."""
        parts = (
            " ".join(sorted(self.en)),
            "".join(sorted(self.zh_chars)),
            self.zh_words.pattern,
            " ".join(sorted(self.chitchat_en)),
            self.chitchat_zh.pattern,
            self.pleasantries_en.pattern,
            self.pleasantries_zh.pattern,
        )
        return hashlib.sha1("\n".join(parts).encode("utf-8")).hexdigest()[:12]


def _alternation(words: Iterable[str]) -> re.Pattern[str]:
    return re.compile("|".join(sorted(set(words), key=len, reverse=True)) or "(?!)")


def _phrases(phrases: Iterable[str]) -> re.Pattern[str]:
    """Whole-word phrases, longest first, with any run of spaces between their words."""
    words = sorted({" ".join(p.lower().split()) for p in phrases if p.strip()}, key=len, reverse=True)
    if not words:
        return re.compile("(?!)")
    return re.compile(r"(?<![\w'])(?:" + "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in words) + r")(?![\w'])")


def load_stopwords(path: str | Path) -> Stopwords:
    """Read and validate a stop-word file.

    Raises:
        DataFileError: listing every problem as file, entry and field.
    """
    path = Path(path)
    doc = read_yaml(path)
    if not isinstance(doc, dict):
        raise DataFileError(str(path), ["top level must be a mapping of fields (en, zh_chars, zh_words...)"])
    try:
        spec = StopwordSpec(**doc)
    except ValidationError as exc:
        raise DataFileError(str(path), [_describe(e) for e in exc.errors()]) from None
    problems = list(_problems(spec))
    if problems:
        raise DataFileError(str(path), problems)
    return Stopwords(
        frozenset(spec.en.split()),
        frozenset(spec.zh_chars),
        _alternation(spec.zh_words),
        frozenset(stem(w) for w in spec.chitchat_en.lower().split()),
        _alternation(spec.zh_words + spec.chitchat_zh),
        _phrases(spec.pleasantries_en),
        _alternation(spec.zh_words + spec.chitchat_zh + spec.pleasantries_zh),
    )


def _describe(error: Any) -> str:
    """A pydantic error as entry and field: ``zh_words[3]: field 'zh_words': ...``."""
    loc = list(error["loc"])
    field = str(loc[0]) if loc else "(file)"
    entry = "".join(f"[{p}]" for p in loc[1:])
    where = f"{field}{entry}: " if entry else ""
    value = f" (got {error['input']!r})" if entry else ""
    return f"{where}field '{field}': {error['msg']}{value}"


@lru_cache(maxsize=1)
def default_stopwords() -> Stopwords:
    """The bundled stop words, loaded and validated once (the toolkit's, and the tokenizer's
    for a caller with no toolkit)."""
    return load_stopwords(bundled("lexicons", "stopwords.yaml"))
