"""How much a turn says: the content words of its statements.

Most turns that match a question well are not what it asks for: the question turn itself
("What did you do last weekend?" shares every word with "What did Mel do last weekend?") and
reactions ("That's awesome, so happy for you!"). On LoCoMo, a candidate turn whose statements
hold fewer than five content words is evidence under 1% of the time, one with twelve or more
8% of the time. A turn's *substance* counts the distinct content words of its statements —
sentences that are not questions — leaving out stop words and chitchat
(``lexicons/stopwords.yaml``); a Chinese character counts half a word. Retrieval scales a
turn's relevance by :func:`evidence_prior`; the reply to a question still inherits the
question's relevance (see the temporal retriever), so a question stays reachable as the
context of its answer.
"""

from __future__ import annotations

from functools import lru_cache

from memtracks.data.stopwords import HAN_RUN, default_stopwords
from memtracks.pipeline.text import sentences, stem
from memtracks.retrieval.lexical import _simplified, english_words

HAN_WORD_SHARE = 0.5  # a content character counts as half a word
_CACHE = 100_000


@lru_cache(maxsize=_CACHE)
def substance(text: str) -> float:
    """Distinct content words in the statements of ``text`` (questions left out)."""
    stop = default_stopwords()
    words: set[str] = set()
    chars: set[str] = set()
    for sent in sentences(text):
        if sent.question:
            continue
        piece = text[sent.start : sent.end].lower()
        words.update(
            w for w in (stem(x) for x in english_words(piece) if x not in stop.en) if w not in stop.chitchat_en
        )
        for run in HAN_RUN.findall(piece):
            for part in stop.chitchat_zh.split(run.translate(_simplified())):
                chars.update(c for c in part if c not in stop.zh_chars)
    return len(words) + HAN_WORD_SHARE * len(chars)


def evidence_prior(text: str, floor: float, full: float) -> float:
    """``floor`` for a turn that says nothing, rising linearly to 1 at ``full`` content words."""
    if full <= 0:
        return 1.0
    return floor + (1.0 - floor) * min(1.0, substance(text) / full)


_CURLY = str.maketrans({"\u2019": "'", "\u2018": "'"})


@lru_cache(maxsize=_CACHE)
def content_free(text: str) -> bool:
    """Does ``text`` say nothing at all — thanks, a greeting, an acknowledgement, a reaction,
    small talk ("Thanks!", "ok", "Nice to meet you!", 谢谢！, 你好，很高兴认识你)? Questions count
    too ("What did you do last weekend?" says something), and so does any digit. Such a turn
    is kept, but never takes a card's place: there is nothing in it to answer with."""
    stop = default_stopwords()
    lowered = stop.pleasantries_en.sub(" ", text.lower().translate(_CURLY))
    if any(ch.isdigit() for ch in lowered):
        return False
    for word in english_words(lowered):
        if word not in stop.en and stem(word) not in stop.chitchat_en:
            return False
    for run in HAN_RUN.findall(lowered):
        for part in stop.pleasantries_zh.split(run.translate(_simplified())):
            if any(c not in stop.zh_chars for c in part):
                return False
    return True
