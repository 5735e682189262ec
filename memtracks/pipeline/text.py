"""The text floor every stage stands on: sentences, match loops, clause openings, the
cleaning and key of a captured value, and the light English stemmer of search words. It knows
nothing of subjects or lexicons."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

from memtracks.pipeline.language import has_han
from memtracks.records import Entity, TimeMention

T = TypeVar("T")
_SENTENCE = re.compile(r"[^.!?。！？\n]+(?:[.!?。！？]+|\n|$)")
# a particle after a value (住在杭州了, 养了只猫呢); not the 的 of a two-character name (美的)
_CUT_VALUE_TAIL = re.compile(
    r"(?:\s+(?:now|too|anymore|any more|again|already|as well|lately|so much|a lot|very much"
    r"|right now|these days|though|haha|lol|together|in|on|at|since|from|by|around|until|this|last|next))+$"
    r"|(?:(?<=[^\u4e00-\u9fff])|(?<=[\u4e00-\u9fff]{2}))[了的呢啊吧呀哦嘛]+$|(?<=^[\u4e00-\u9fff])[了呢啊吧呀哦嘛]+$",
    re.IGNORECASE,
)
_ARTICLE = re.compile(r"^(?:the|a|an|my|our|some)\s+", re.IGNORECASE)


@dataclass(frozen=True)
class Sentence:
    start: int
    end: int
    question: bool


def sentences(text: str) -> list[Sentence]:
    """Split ``text`` into sentences; a sentence ending in ? or ？ is a question, unless the mark
    only follows a word said for effect ("Broke my streak with a burger and honestly? No
    regrets.")."""
    out = []
    for m in _SENTENCE.finditer(text):
        if m.group().strip():
            said = m.group().rstrip()
            out.append(Sentence(m.start(), m.end(), said.endswith(("?", "？")) and not _FOR_EFFECT.search(said)))
    return out or [Sentence(0, len(text), False)]


_FOR_EFFECT = re.compile(r"\b(?:honestly|seriously|tbh|ngl|lol|lmao)\s*[?？]+$", re.IGNORECASE)


def sentence_at(sents: Sequence[Sentence], pos: int) -> Sentence:
    for s in sents:
        if s.start <= pos < s.end:
            return s
    return sents[-1]


def find_all(regex: re.Pattern[str], text: str, build: Callable[[re.Match[str]], T | None]) -> Iterator[T]:
    """Like ``finditer`` followed by ``build``, but a match that ``build`` rejects (None)
    does not hide a later match starting inside it."""
    pos = 0
    while pos <= len(text):
        m = regex.search(text, pos)
        if m is None:
            return
        item = build(m)
        if item is not None:
            yield item
            pos = max(m.end(), m.start() + 1)
        else:
            pos = m.start() + 1


def at_clause_start(text: str, pos: int, times: Sequence[TimeMention] = ()) -> bool:
    """True when nothing but space, punctuation, times and connectives ("最近", "然后",
    "last week") precedes ``pos`` in its clause.

    A match without a subject is only trusted there: in "他不喜欢跑步" the match
    "不喜欢跑步" has an unrecognised subject (他) and must not fall back to the speaker.
    """
    if pos == 0 or not text[pos - 1].isalnum():
        return True
    start = max(text.rfind(mark, 0, pos) for mark in "，。！？；,.!?;\n ") + 1
    return only_times_and_adverbs(text, start, pos, times)


def only_times_and_adverbs(text: str, start: int, end: int, times: Sequence[TimeMention] = ()) -> bool:
    """Is ``text[start:end]`` (Simplified Chinese) nothing but time expressions and the
    connectives and adverbs a clause may put before its predicate (现在, 已经, 开始, 另外…)?
    "我周一开始在微软上班": between 我 and 在微软上班 stand only 周一 and 开始."""
    head = text[start:end]
    for t in times:
        if start <= t.span[0] and t.span[1] <= end:
            head = head.replace(text[t.span[0] : t.span[1]], "")
    head = head.strip()
    while head:
        word = next((w for w in _LEADING_WORDS if head.startswith(w) and not w.isascii()), None)
        if word is None:
            return False
        head = head[len(word) :].lstrip()
    return True


_LEADING_WORDS = (
    "然后",
    "所以",
    "但是",
    "不过",
    "而且",
    "因为",
    "现在",
    "已经",
    "刚刚",
    "最近",
    "开始",
    "另外",
    "其实",
    "正式",
    "目前",
    "如今",
    "一直",
    "终于",
    "总算",
    "索性",
    "干脆",
    "后来",
    "于是",
    "结果",
    "反正",
    "只好",
    "直接",
    "居然",
    "竟然",
    "果然",
    "突然",
    "早就",
    "早已",
    "仍然",
    "依然",
    "依旧",
    "确实",
    "的确",
    "刚好",
    "正好",
    "基本上",
    "还是",
    "将要",
    "就要",
    "快要",
    "马上",
    "即将",
    "打算",
    "准备",
    "计划",
    "要",
    "将",
    "刚",
    "也",
    "还",
    "就",
    "都",
    "又",
    "再",
    "才",
    "已",
    "从",
    "then",
    "so",
    "but",
    "also",
)


def subject_is_filler(match: re.Match[str], times: Sequence[TimeMention]) -> bool:
    """The captured "subject" is really a time or a connective ("下个月入职腾讯"), so the
    match can stand as a clause without a subject."""
    if "subj" not in match.re.groupindex or not match.group("subj"):
        return False
    start, end = match.span("subj")
    if any(t.span[0] < end and start < t.span[1] for t in times):
        return True
    return match.group("subj").lower().startswith(_LEADING_WORDS)


def cut_before_times(value: str, start: int, times: Sequence[TimeMention]) -> str:
    """Drop the part of a captured value that is really a time expression."""
    end = start + len(value)
    for t in times:
        if start < t.span[0] < end:
            value = value[: t.span[0] - start]
            end = t.span[0]
        elif t.span[0] <= start < t.span[1]:
            return ""
    return value


def clean_value(value: str) -> str:
    value = value.strip(" \t,.;:!?，。；：！？、\"'“”")
    previous = None
    while previous != value:
        previous = value
        value = _CUT_VALUE_TAIL.sub("", value).strip(" \t,.;:!?，。；：！？、")
    return value


# ---------------------------------------------------------------------- keys
# The normal forms text is compared and looked up by, side by side: each drops what its
# comparison must not see, and no more (a stored key never changes its form).


def value_key(value: str) -> str:
    """The comparison key of a slot value: lower case, no article or determiner, single spaces,
    no trailing punctuation ("My Golden Retriever!" and "golden retriever" are one value)."""
    key = re.sub(r"\s+", " ", value.strip().lower())
    key = _ARTICLE.sub("", key)
    return key.strip(" .!?'\"")


_VALUE_WORD = re.compile(
    r"[a-z0-9][a-z0-9'-]{2,}|[a-z]\d|\d[a-z]|[\u4e00-\u9fff]{2,}", re.IGNORECASE
)  # a model code too: H6, X5
# words of a value that name nothing on their own ("my old car", "the one in town")
_EMPTY_WORDS = frozenset("the and with from new old one two our his her their its for about".split())


def names_value(text: str, value: str) -> bool:
    """Does ``text`` name ``value`` by one of its words ("Sold the Civic" names "Honda Civic", H6 names 哈弗H6,
    我从阿里辞职了 names 阿里; a Chinese value of four or more characters also by its first or
    last two: 把思域卖了 names 本田思域)? Case is ignored; an English word must stand whole (a
    plural "s" aside: "my egg allergy" names "eggs"); a
    qualifier in brackets is no name ("Dan (husband)" is named by "Dan", not by "husband")."""
    said = text.casefold()
    for word in _VALUE_WORD.findall(re.sub(r"\(.*?\)|（.*?）", " ", value.casefold())):
        if word in _EMPTY_WORDS:
            continue
        if word.isascii():
            stem = re.escape(word[:-1] if word.endswith("s") and len(word) > 3 else word)
            # "my egg allergy" names "eggs"; a Latin word stands whole beside Chinese too (Altis賣掉了)
            if re.search(rf"(?<![a-z0-9]){stem}(?:s|es)?(?![a-z0-9])", said):
                return True
        elif word in said or (len(word) >= 4 and (word[:2] in said or word[-2:] in said)):
            return True
    return False


def whole_words(part: str) -> str:
    """A regex for ``part`` standing whole: Latin words not inside longer ones ("civic" in
    "honda civic"), Chinese as written, since no space sets a Chinese word off (卡罗拉 in
    丰田卡罗拉)."""
    return re.escape(part) if has_han(part) else rf"(?<![\w-]){re.escape(part)}(?![\w-])"


def names_part(part: str, key: str) -> bool:
    """Is ``part`` the key, or words standing whole within it ("not a Civic": honda civic;
    不是宝马: 宝马x5)?"""
    return part == key or re.search(whole_words(part), key) is not None


def entity_key(text: str) -> str:
    """The key of an entity the lexicon does not know: lower case, no article or possessive."""
    key = re.sub(r"\s+", " ", text.strip()).lower()
    key = re.sub(r"^(?:the|a|an) ", "", key)
    return re.sub(r"'s$", "", key)


def unqualified(value: str) -> str:
    """A value without the qualifier in brackets the writer adds ("Max (dog)", 湯圓（猫）: Max, 湯圓)."""
    return value.split(" (")[0].split("（")[0]


def surface_key(text: str) -> str:
    """The form a lexicon's surface forms are looked up by: lower case, no spaces (会计师, "New York")."""
    return re.sub(r"\s+", "", text).lower()


def phrase_key(text: str) -> str:
    """The lookup key of a matched time phrase: lower case, single spaces, straight apostrophes."""
    return " ".join(text.lower().replace("\u2019", "'").split())


def entities_in(entities: Sequence[Entity], start: int, end: int, label: str | None = None) -> list[Entity]:
    return [e for e in entities if e.span[0] >= start and e.span[1] <= end and (label is None or e.label == label)]


def stem(word: str) -> str:
    """A light English stemmer: enough to meet "hiking"/"hike", "cats"/"cat", "moved"/"move"."""
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix, replacement in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + replacement
            if suffix in ("ing", "ed") and word[-1] == word[-2] and word[-1] not in "ls":
                word = word[:-1]  # "stopped" -> "stop"
            break
    return word[:-1] if len(word) > 3 and word.endswith("e") else word
