"""What slot extraction and happening detection share: sentences, subjects, match loops.

Subject attribution is the part that matters most: "I" / 我 is the speaker; "my friend" /
我朋友 is the speaker's friend (a fact about them never fills the speaker's slot); a name is
that person, but only if NER (or the caller's list of participants) agrees it is a person.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

from ..lexicon import Lexicons
from ..records import Entity, TimeMention

T = TypeVar("T")

_SENTENCE = re.compile(r"[^.!?。！？\n]+(?:[.!?。！？]+|\n|$)")
_SELF_EN = {"i", "we", "my", "our", "me", "us"}
_SELF_ZH = ("我们的", "我们", "我的", "我")
_CUT_VALUE_TAIL = re.compile(
    r"(?:\s+(?:now|too|anymore|any more|again|already|as well|lately|so much|a lot|very much"
    r"|right now|these days|though|haha|lol|together|in|on|at|since|from|by|around|until|this|last|next))+$|[了的呢啊吧呀哦嘛]+$",
    re.IGNORECASE,
)
_RELATION_MENTION = re.compile(
    r"(?:\bmy\s+|我(?:的)?)(?P<rel>(?:best |close |older |younger |little |big )?[a-z-]+|[\u4e00-\u9fff]{1,3})",
    re.IGNORECASE,
)
_ARTICLE = re.compile(r"^(?:the|a|an|my|our|some)\s+", re.IGNORECASE)


@dataclass(frozen=True)
class Sentence:
    start: int
    end: int
    question: bool


def sentences(text: str) -> list[Sentence]:
    """Split ``text`` into sentences; a sentence ending in ? or ？ is a question."""
    out = []
    for m in _SENTENCE.finditer(text):
        if m.group().strip():
            out.append(Sentence(m.start(), m.end(), m.group().rstrip().endswith(("?", "？"))))
    return out or [Sentence(0, len(text), False)]


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


def at_clause_start(text: str, pos: int) -> bool:
    """True when nothing but space or punctuation precedes ``pos`` in its clause.

    A match without a subject is only trusted there: in "他不喜欢跑步" the match
    "不喜欢跑步" has an unrecognised subject (他) and must not fall back to the speaker.
    """
    return pos == 0 or not text[pos - 1].isalnum()


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
    "刚",
    "也",
    "还",
    "就",
    "都",
    "又",
    "再",
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


@dataclass(frozen=True)
class SubjectResolver:
    """Turns the captured subject phrase into the subject of a fact.

    ``speaker`` is the speaker's own subject ("user", or a name in two-person chats);
    ``people`` are names known to be people even when NER misses them.
    """

    speaker: str
    lexicons: Lexicons
    entities: tuple[Entity, ...]
    people: frozenset[str] = frozenset()
    text: str = ""  # the turn, for finding who "she" / 她 refers to

    def resolve(self, match: re.Match[str], group_name: str = "subj") -> str | None:
        """The subject, "" when the pattern captured none, or None when it is not a person."""
        raw = match.group(group_name) if group_name in match.re.groupindex else None
        if not raw:
            return ""
        span = match.span(group_name)
        text = raw.strip()
        if text.isascii():
            return self._english(text, span)
        return self._chinese(text, span)

    def _english(self, text: str, span: tuple[int, int]) -> str | None:
        lower = re.sub(r"'s$", "", text.lower())
        if lower in _SELF_EN:
            return self.speaker
        if lower in ("he", "she"):
            return self._antecedent(span[0])
        head, _, rest = lower.partition(" ")
        if head in ("my", "our") and rest:
            named = re.match(r"(?P<kind>.+?),? (?P<name>[A-Z][a-z]+)$", text.partition(" ")[2])
            if named:  # "my brother Tom", "my dog Biscuit": the named one is the subject
                kind = named.group("kind").lower()
                if self.lexicons.relations.key(kind) or self.lexicons.animals.key(kind):
                    return named.group("name")
            rel = self.lexicons.relations.key(rest)
            return f"{self.speaker}'s {rel}" if rel else None
        return self._person(re.sub(r"'s$", "", text), span)

    def _chinese(self, text: str, span: tuple[int, int]) -> str | None:
        if text in ("他", "她"):
            return self._antecedent(span[0])
        for pronoun in _SELF_ZH:
            if text.startswith(pronoun):
                rest = text[len(pronoun) :].lstrip("的")
                if not rest:
                    return self.speaker
                rel = self.lexicons.relations.key(rest)
                if rel:  # 我闺蜜小美: the named one is the subject
                    named = named_relations(self.text[span[0] : span[1] + 4], self.lexicons, self.entities)
                    return named[0][1] if named else f"{self.speaker}'s {rel}"
                return None
        return self._person(text, span)

    def _antecedent(self, pos: int) -> str | None:
        """Who a third-person pronoun at ``pos`` refers to: the last relation ("my sister",
        我姐姐) or person named before it in the same turn; None when there is none."""
        best: tuple[int, str] | None = None
        for m in _RELATION_MENTION.finditer(self.text[:pos]):
            rel = self.lexicons.relations.key_of_prefix(m.group("rel"))
            if rel:
                best = (m.start(), f"{self.speaker}'s {rel}")
        for e in self.entities:
            vocative = self.text[e.span[1] : e.span[1] + 1] in ("!", ",") and (
                e.span[0] == 0 or self.text[e.span[0] - 2 : e.span[0]].strip() in ("", ",", "!", ".")
            )  # "That's great, John!": the one spoken to, not the one spoken about
            if e.label == "person" and e.span[1] <= pos and not vocative and (best is None or e.span[0] > best[0]):
                best = (e.span[0], e.text)
        return best[1] if best else None

    def _person(self, name: str, span: tuple[int, int]) -> str | None:
        """The person (or pet) named at ``span``: a known participant or name, or a person
        entity starting there."""
        lowered = name.lower()
        for person in self.people:
            if lowered == person.lower() or (not name.isascii() and name.startswith(person)):
                return person
        for e in self.entities:
            if e.label in ("person", "pet") and e.span == (span[0], span[0] + len(name)):
                return e.text
        return None


_NAMED_RELATION_EN = re.compile(
    r"\b(?i:my)\s+(?P<rel>(?:best |close |older |younger |little |big )?[a-z-]+),?\s+(?P<name>[A-Z][a-z]+)\b"
)
_NAMED_RELATION_ZH = r"我(?:的)?(?P<rel>{rels})(?P<name>小[\u4e00-\u9fff]|阿[\u4e00-\u9fff]|[\u4e00-\u9fff]{2,3}?)(?=[，。,.\s]|住|在|是|要|下|今|明|去|和|跟|说|结|开|养|喜|最)"


def named_relations(text: str, lexicons: Lexicons, entities: Sequence[Entity] = ()) -> list[tuple[str, str]]:
    """``(relation, name)`` for every "my brother Tom" / 我闺蜜小美 in ``text``: the grammar the
    writer records people by and the reader resolves "my brother" with."""
    out = []
    for m in _NAMED_RELATION_EN.finditer(text):
        rel = lexicons.relations.key(m.group("rel")) or lexicons.animals.key(m.group("rel"))
        if rel:
            out.append((rel, m.group("name")))
    people = {e.text for e in entities if e.label == "person"}
    for m in _zh_relation_regex(lexicons).finditer(lexicons.to_simplified(text)):
        rel = lexicons.relations.key(m.group("rel")) or lexicons.animals.key(m.group("rel"))
        name = m.group("name")
        if rel and (name in people or name[0] in "小阿" or lexicons.is_chinese_name(name)):
            out.append((rel, name))
    return out


_ZH_RELATION_CACHE: dict[int, re.Pattern[str]] = {}


def _zh_relation_regex(lexicons: Lexicons) -> re.Pattern[str]:
    key = id(lexicons)
    if key not in _ZH_RELATION_CACHE:
        from ..lexicon import alternation

        forms = lexicons.relations.forms("zh") + lexicons.animals.forms("zh")
        _ZH_RELATION_CACHE[key] = re.compile(_NAMED_RELATION_ZH.replace("{rels}", alternation(forms), 1))
    return _ZH_RELATION_CACHE[key]


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


def value_key(value: str) -> str:
    """The comparison key of a value: lower case, no article, single spaces."""
    key = re.sub(r"\s+", " ", value.strip().lower())
    key = _ARTICLE.sub("", key)
    return key.strip(" .!?'\"")


def entities_in(entities: Sequence[Entity], start: int, end: int, label: str | None = None) -> list[Entity]:
    return [e for e in entities if e.span[0] >= start and e.span[1] <= end and (label is None or e.label == label)]
