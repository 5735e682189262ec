"""Stage 0: which language a turn is in — "en", "zh", "mixed", or "other".

Counting scripts is enough to route a turn to the right extractor: Han characters mean
Chinese, Latin letters mean English. A turn with a real share of both is "mixed"; a turn in
some other script (Cyrillic, Arabic, ...) is "other" and is kept as an event without slot
extraction.
"""

from __future__ import annotations

import re

from memtracks.errors import UnsupportedLanguageError

SUPPORTED = ("en", "zh")
OPTIONS = ("en", "zh", "mixed", None)

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")
_OTHER_LETTER = re.compile(r"[^\W\d_A-Za-z\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")

# A Han character carries roughly as much as half an English word; a turn is "mixed" when
# the minority script holds at least this share of the content (a third).
_MIXED_SHARE = 0.34


def check_language(lang: str | None) -> str | None:
    """Validate a caller-given language code; None means detect."""
    if lang is None:
        return None
    if not isinstance(lang, str):
        raise UnsupportedLanguageError(f"language must be a code like 'en' or 'zh' (or None to detect), found {lang!r}")
    code = lang.lower().replace("_", "-")
    if code in ("zh-cn", "zh-hans", "zh-tw", "zh-hant", "cmn"):
        code = "zh"
    if code in ("en-us", "en-gb", "eng"):
        code = "en"
    if code not in ("en", "zh", "mixed"):
        raise UnsupportedLanguageError(
            f"language {lang!r} is not supported; use one of 'en', 'zh', 'mixed' or None to detect"
        )
    return code


def detect_language(text: str) -> str:
    """Return "en", "zh", "mixed" or "other" for ``text``."""
    han = len(_HAN.findall(text))
    words = len(_LATIN_WORD.findall(text))
    zh_weight, en_weight = han * 0.5, float(words)
    total = zh_weight + en_weight
    if total == 0:
        return "other" if _OTHER_LETTER.search(text) else "en"
    other = len(_OTHER_LETTER.findall(text))
    if other > 2 * (han + sum(map(len, _LATIN_WORD.findall(text)))):
        return "other"
    minority = min(zh_weight, en_weight) / total
    if minority >= _MIXED_SHARE:
        return "mixed"
    return "zh" if zh_weight > en_weight else "en"


def primary_language(lang: str, text: str) -> str:
    """The extractor to use for a detected language: mixed turns go by the larger script."""
    if lang != "mixed":
        return lang
    han = len(_HAN.findall(text))
    latin = _LATIN_WORD.findall(text)
    if han >= 2 and not any(w.lower() in _EN_GRAMMAR for w in latin):
        return "zh"  # 我開一台Honda CR-V: Latin names in a Chinese sentence, no English grammar
    return "zh" if han * 0.5 >= len(latin) else "en"


# English words that make a sentence's grammar English ("I just got a 新车"), not names or codes
_EN_GRAMMAR = frozenset(
    "i i'm me my we our you your he she his her they their it it's the a an is are was were am be been "
    "to of in on at for with from and but or so not don't have has had do did does this that just will "
    "can got get".split()
)


def has_han(text: str) -> bool:
    return _HAN.search(text) is not None
