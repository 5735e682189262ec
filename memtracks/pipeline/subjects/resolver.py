"""Whom a match is about: the subject phrase a pattern captured, turned into the subject of a fact.

"I" / 我 is the speaker; "my friend" / 我朋友 is the speaker's friend (a fact about them never
fills the speaker's slot); a name is that person, but only if NER (or the caller's list of
participants) agrees it is a person; "she" / 她 is the one woman named just before.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from memtracks.data.lexicons import Lexicons, alternation
from memtracks.pipeline.nlp import ParsedToken, Token
from memtracks.pipeline.subjects.chinese_names import PREDICATE_STARTS, name_end
from memtracks.pipeline.subjects.clause import ClauseSubject, clause_subject, verb_at
from memtracks.pipeline.subjects.self_words import CLAUSE_WORDS_EN, SUBJECT_WORDS_EN, SUBJECT_WORDS_ZH
from memtracks.pipeline.subjects.topics import clause_topics, topic_at
from memtracks.pipeline.text import (
    only_times_and_adverbs,
)
from memtracks.records import Entity, TimeMention

_THIRD_PERSON_EN = {"he": "m", "him": "m", "his": "m", "she": "f", "her": "f", "hers": "f"}
_OTHERS_EN = frozenset({"they", "them", "their", "theirs", "you", "your", "yours", "y'all", "everyone", "everybody"})
_PEOPLE_EN = frozenset(
    "guy guys girl girls man men woman women kid kids boy boys lady ladies dude person people someone somebody "
    "nobody folks family couple baby babies".split()
)
_RELATION_MENTION = re.compile(
    r"(?:\bmy\s+|我(?:的)?)(?P<rel>(?:best |close |older |younger |little |big )?[a-z-]+|[\u4e00-\u9fff]{1,3})",
    re.IGNORECASE,
)


# the speaker joined before a captured subject: "me and my boyfriend Jordan", "I and Anna"
_WITH_SPEAKER = re.compile(r"\b(?:[Mm]e|I),? (?:and|&|n'?) $")


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
    topics: tuple = ()  # Chinese clause topics (pipeline.topics.Topic): who a subject-less clause is about
    earlier: tuple[tuple[str, str | None], ...] = ()  # (subject, gender) named in the turns just before
    parent: bool = False  # the speaker is talking of their children (a bare 哥哥 is their son)
    search: str = ""  # the Chinese text as the topics were read (Traditional mapped to Simplified)
    tokens: tuple = ()  # the Chinese turn's jieba words: where a name after 我弟弟 ends
    relatives: tuple[tuple[str, str, str], ...] = ()  # (owner, relation, name) named before, as stored

    def relative(self, owner: str, rel: str) -> str:
        """ "my brother" said by ``owner``: the one brother they have named ("my brother Jake"
        before: Jake), so a named relative's facts stay one subject; else "owner's brother"."""
        return known_relative(self.relatives, owner, rel, self.lexicons) or f"{owner}'s {rel}"

    def _named_at(self, start: int) -> str | None:
        """The name said right after the relation that starts at ``start`` (我弟弟阿杰, "my brother Jake")."""
        found = relatives_named(self.text, self.lexicons, self.entities, self.tokens)
        return next((name for at, _, name in found if at == start), None)

    def opener_before(self, pos: int, times: Sequence[TimeMention] = ()) -> str | None:
        """Chinese: whom a match at ``pos`` without a subject of its own is about when only
        times and adverbs stand between it and the subject its clause opens with ("我周一开始
        在微软上班", "另外我上周一开始在字节跳动上班了", "小明去年开始在腾讯上班"); else None."""
        for t in self.topics:
            if t.start <= pos < t.end and t.lead is not None and t.lead <= pos:
                if t.subject and only_times_and_adverbs(self.search, t.lead, pos, times):
                    return t.subject
                return None
        return None

    def opener_end(self, pos: int) -> int | None:
        """Where the subject of the clause around ``pos`` ends (see :meth:`opener_before`)."""
        return next((t.lead for t in self.topics if t.start <= pos < t.end), None)

    def without_subject(self, pos: int) -> str | None:
        """Whom a match with no subject of its own at ``pos`` is about: in Chinese its
        clause's topic (None: someone unknown), else the speaker."""
        if not self.topics:
            return self.speaker
        return topic_at(self.topics, pos, self.speaker)

    def with_topics(self, search: str, answering_about_other: bool = False) -> SubjectResolver:
        """This resolver with the clause topics of the Chinese ``search`` text (Simplified)."""

        def named_at(start: int, end: int) -> str | None:
            head = search[start:end].lstrip()
            offset = start + (end - start - len(head))
            for person in self.people:
                if not person.isascii() and head.startswith(person):
                    return person
            for e in self.entities:
                if e.label in ("person", "pet") and e.span[0] == offset:
                    return e.text
            return None

        topics = clause_topics(search, self.speaker, self.lexicons, self._chinese, named_at, answering_about_other)
        return replace(self, topics=topics, search=search)

    def resolve(self, match: re.Match[str], group_name: str = "subj", parsed: Sequence[ParsedToken] = ()) -> str | None:
        """The subject, "" when the pattern captured none, or None when it is not a person.
        With the English ``parsed``, a capitalised word that opens the clause as its verb is
        no name ("Started eating meat again", "Packed up and moved to Ohio"): none captured."""
        names = [n for n in (group_name, f"{group_name}2", f"{group_name}3") if n in match.re.groupindex]
        name = next((n for n in names if match.group(n)), None)  # the arm of an alternation that matched
        if name is None:
            return ""
        raw, span = match.group(name), match.span(name)
        if parsed and verb_at(parsed, span[0]):
            return ""
        if _WITH_SPEAKER.search(match.string, 0, span[0]):
            return self.speaker  # "me and my boyfriend Jordan live in...": the speaker's too
        text = raw.strip().rstrip(",")  # "my sister, Anna, just moved"
        if text.isascii():
            return self._english(text, span)
        return self._chinese(text, span)

    def _english(self, text: str, span: tuple[int, int]) -> str | None:
        lower = re.sub(r"'s$", "", text.lower())
        if lower in SUBJECT_WORDS_EN:
            return self.speaker
        if lower in ("he", "she"):
            return self._antecedent(span[0], "f" if lower == "she" else "m", by_relation_only=True)
        head, _, rest = lower.partition(" ")
        if head in ("my", "our") and rest:
            named = re.match(r"(?P<kind>.+?),? (?P<name>[A-Z][a-z]+)$", text.partition(" ")[2])
            if named:  # "my brother Tom", "my dog Biscuit": the named one is the subject
                kind = named.group("kind").lower()
                if self.lexicons.relations.key(kind) or self.lexicons.animals.key(kind):
                    return named.group("name")
            rel = self.lexicons.relations.key(rest)
            return self.relative(self.speaker, rel) if rel else None
        return self._person(re.sub(r"'s$", "", text), span)

    def clause_subject(self, match: re.Match[str], parsed: Sequence[ParsedToken]) -> str | None:
        """English: whom the clause of a match without a subject of its own is about, from the
        parse (:mod:`memtracks.pipeline.subjects.clause`): the speaker for "I", "my job", "they hired
        me as"; the one a pronoun or name stands for ("He's working as a nurse", "his job");
        None for someone who cannot be placed (an unknown name, "they", "you"): never the
        speaker. "" when the parse names no person, or the subject is what the match captured
        itself ("Rex passed away": the pet that died is the value; the match keeps its default)."""
        found = clause_subject(parsed, match.start(), match.end())
        if found is None:
            return ""
        captured = [
            match.span(g) for g in match.re.groupindex if not g.startswith(("subj", "pname")) and match.group(g)
        ]
        if any(a < found.span[1] and found.span[0] < b for a, b in captured):
            return ""
        if any(t.lower in CLAUSE_WORDS_EN for t in (found.head, *found.others)):
            return self.speaker  # "my brother and I work as nurses": the speaker's too
        if found.others:
            return None  # "Jake and Anna": more than one person
        who = self._phrase_subject(found)
        if who == "" and found.owner is not None:
            return self._phrase_subject(found.owner)  # "his job", "my sister's trip"
        return who

    def _phrase_subject(self, found: ClauseSubject) -> str | None:
        head, span = found.head, found.span
        if head.lower in CLAUSE_WORDS_EN:
            return self.speaker
        if head.lower in _THIRD_PERSON_EN:
            return self._antecedent(head.idx, _THIRD_PERSON_EN[head.lower], by_relation_only=True)
        if head.lower in _OTHERS_EN:
            return None
        if head.lower == "one" and re.search(
            r"\b(?:little|young|youngest|oldest|eldest|middle|baby|big) one\b", self.text[span[0] : span[1]], re.I
        ):
            return None  # "The little one turned 3": a child, not the speaker
        if head.pos == "PRON":
            return ""  # it, this, something: no person
        named = self._english(self.text[span[0] : span[1]], span)
        if named:
            return named
        if head.pos == "PROPN":
            return None  # a name that is no known person (the recogniser may call "Jake" an org): not the speaker
        if self._names_someone(head.lemma or head.lower):
            return None  # "the nurse", "a guy", "the kids"
        return ""

    def _names_someone(self, word: str) -> bool:
        """Is ``word`` (a lemma) a noun for a person or an animal?"""
        lex = self.lexicons
        return word in _PEOPLE_EN or any(
            t.key(word) or t.key(word.rstrip("s")) for t in (lex.relations, lex.jobs, lex.animals)
        )

    def _chinese(self, text: str, span: tuple[int, int]) -> str | None:
        child = self._child_by_kin_word(text) if self.parent else None
        if child is not None:
            return child
        if text in ("他", "她"):
            return self._antecedent(span[0], "f" if text == "她" else "m")
        for pronoun in SUBJECT_WORDS_ZH:
            if text.startswith(pronoun):
                rest = text[len(pronoun) :].lstrip("的")
                if not rest:
                    return self.speaker
                rel = self.lexicons.relations.key(rest)
                if rel:  # 我闺蜜小美: the named one is the subject
                    return self._named_at(span[0]) or self.relative(self.speaker, rel)
                return None
        return self._person(text, span)

    def _child_by_kin_word(self, text: str) -> str | None:
        """哥哥 / 我家妹妹 said by a parent: their son or daughter (我哥哥 stays the brother)."""
        bare = _FAMILY_HOME.sub("", text)
        if (bare == text and text.startswith(("我", "你"))) or len(bare) < 2:
            return None
        kid = self.lexicons.relations.parents_say.get(self.lexicons.relations.key(bare) or "")
        return f"{self.speaker}'s {kid}" if kid else None

    def _antecedent(self, pos: int, gender: str | None = None, by_relation_only: bool = False) -> str | None:
        """Who a third-person pronoun at ``pos`` refers to: the last relation ("my sister",
        我姐姐) or person named before it in the same turn, else in the turns just before
        (``earlier``); one of the other gender ("my brother" for "she") is skipped. None when
        there is none.

        ``by_relation_only`` (English): across turns, only when the nearest one who may be
        meant is a relation of the pronoun's gender ("my sister ..." / "She loves it"). In English chat a "he" or "she"
        opening a turn is as often a pet, a date or a child just asked about as the person
        named turns before."""
        best: tuple[int, str] | None = None
        for m in _RELATION_MENTION.finditer(self.text[:pos]):
            rel = self.lexicons.relations.key_of_prefix(m.group("rel"))
            if rel and _fits(self.lexicons.relations.genders.get(rel), gender):
                best = (m.start(), self._named_at(m.start()) or self.relative(self.speaker, rel))
        for e in self.entities:
            vocative = self.text[e.span[1] : e.span[1] + 1] in ("!", ",") and (
                e.span[0] == 0 or self.text[e.span[0] - 2 : e.span[0]].strip() in ("", ",", "!", ".")
            )  # "That's great, John!": the one spoken to, not the one spoken about
            if e.label == "person" and e.span[1] <= pos and not vocative and (best is None or e.span[0] > best[0]):
                best = (e.span[0], e.text)
        if best is not None:
            return best[1]
        for subject, their_gender in reversed(self.earlier):
            if _fits(their_gender, gender):
                if by_relation_only and (their_gender is None or gender is None):
                    return None  # the nearest who may be meant is not known to be of this gender
                return subject
        return None

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


_FAMILY_HOME = re.compile(r"^(?:我们家|我家|咱家|家里|家)(?:的)?")
_CHILDREN_TALK = re.compile(r"孩子|娃|儿子|女儿|闺女|老大|老二|小孩|宝宝|幼儿园|[一二三四五六]年级|小学|初[一二三]")


def talks_of_children(texts: Iterable[str]) -> bool:
    """Do these (Simplified) turns speak of the speaker's children: where a bare 哥哥 or 妹妹
    is a child, not a sibling?"""
    return any(_CHILDREN_TALK.search(t) for t in texts)


def _fits(theirs: str | None, wanted: str | None) -> bool:
    return theirs is None or wanted is None or theirs == wanted


_MENTION_EN = re.compile(
    r"\b(?P<owner>my|our|your)\s+(?P<rel>(?:best |close |older |younger |little |big )?[a-z-]+)", re.IGNORECASE
)
_MENTION_ZH = re.compile(
    r"(?P<owner>我|你)(?:们)?(?:的|家)?(?:[\u4e00-\u9fff]{0,3}?(?:交了?|有了?|找了?|认识了?)(?:个|一个|一位)?)?"
    r"(?P<rel>[\u4e00-\u9fff]{1,3})"
)


def known_relative(relations: Iterable[tuple[str, str, str]], owner: str, rel: str, lexicons: Lexicons) -> str | None:
    """The one relative of kin or partner relation ``rel`` that ``owner`` has named
    (``relations``: ``(owner, relation, name)``), or None (none named, several, or a friend,
    colleague... of whom one may have many)."""
    spec = next((s for s in lexicons.relations.specs if s.key == rel), None)
    if spec is None or not {"family_member", "relationship_status"} & set(spec.categories):
        return None
    names = {name for o, r, name in relations if o == owner and r == rel}
    return names.pop() if len(names) == 1 else None


def earlier_mentions(
    turns: Sequence[tuple[str, str]],
    speaker: str,
    lexicons: Lexicons,
    people: Iterable[str] = (),
    relations: Iterable[tuple[str, str, str]] = (),
) -> tuple[tuple[str, str | None], ...]:
    """The people named in the turns just before (``(speaker, text)``, oldest first), as
    ``(subject, gender)`` in the order named: what "she" / 她 at the start of the next turn,
    said by ``speaker``, may refer to. "my sister" is the sister of whoever said it; "your
    sister" said to ``speaker`` is ``speaker``'s; a name named by relation ("my brother Tom")
    or known is that person. ``relations`` (``(owner, relation, name)``, as stored) give a
    known name its gender: "Jake called" after "my brother Jake" earlier is a he."""
    names = [p for p in people if p]
    relations = tuple(relations)
    stored = {name: lexicons.relations.genders.get(rel) for _, rel, name in relations}
    out: list[tuple[int, int, str, str | None]] = []
    for n, (said_by, text) in enumerate(turns):
        simplified = lexicons.to_simplified(text)
        named = {name: rel for rel, name in named_relations(text, lexicons)}
        starts = [i for i, ch in enumerate(simplified) if ch in "我你"]
        found = list(_MENTION_EN.finditer(simplified)) + [_MENTION_ZH.match(simplified, i) for i in starts]
        for m in found:
            if m is not None:
                rel = lexicons.relations.key_of_prefix(m.group("rel"))
                if rel is None:
                    continue
                owner = m.group("owner").lower()
                whose = said_by if owner in ("my", "our", "我") else (speaker if said_by != speaker else None)
                if whose is None or whose in ("assistant",):
                    continue
                after = [name for name, r in named.items() if r == rel and simplified.find(name, m.start()) >= 0]
                subject = after[0] if after else known_relative(relations, whose, rel, lexicons) or f"{whose}'s {rel}"
                out.append((n, m.start(), subject, lexicons.relations.genders.get(rel)))
        for name in names:
            hit = re.search(rf"\b{re.escape(name)}\b" if name.isascii() else re.escape(name), simplified)
            pos = hit.start() if hit else -1
            if pos >= 0 and name != said_by and name != speaker:
                gender = lexicons.relations.genders.get(named.get(name, "")) or stored.get(name)
                out.append((n, pos, name, gender))
    out.sort(key=lambda x: (x[0], x[1]))
    return tuple((subject, gender) for _, _, subject, gender in out)


_NAMED_RELATION_EN = re.compile(
    r"\b(?i:my)\s+(?P<rel>(?:best |close |older |younger |little |big )?[a-z-]+),?\s+(?P<name>[A-Z][a-z]+)\b"
)


# 我闺蜜小美, 我哥哥李明上个月…: without the turn's words (an earlier turn), a name is read up to
# where a predicate starts (chinese_names.PREDICATE_STARTS) or the clause ends
_NAMED_RELATION_ZH = r"我(?:的)?(?P<rel>{rels})(?P<name>小[\u4e00-\u9fff]|阿[\u4e00-\u9fff]|[\u4e00-\u9fff]{2,3}?)(?=[，。！？,.!?\s]|$|{starts})"


_RELATION_HEAD_ZH = r"(?<![你他她它])我(?:的)?(?P<rel>{rels})"


def named_relations(
    text: str, lexicons: Lexicons, entities: Sequence[Entity] = (), tokens: Sequence[Token] = ()
) -> list[tuple[str, str]]:
    """``(relation, name)`` for every "my brother Tom" / 我闺蜜小美 in ``text``: the grammar the
    writer records people by and the reader resolves "my brother" with. ``tokens`` (the turn's
    jieba words) say where a Chinese name ends (我弟弟阿杰刚搬到深圳: 阿杰)."""
    return [(rel, name) for _, rel, name in relatives_named(text, lexicons, entities, tokens)]


def relatives_named(
    text: str, lexicons: Lexicons, entities: Sequence[Entity] = (), tokens: Sequence[Token] = ()
) -> list[tuple[int, str, str]]:
    """:func:`named_relations` with where each mention starts: ``(start, relation, name)``."""
    out = []
    for m in _NAMED_RELATION_EN.finditer(text):
        rel = lexicons.relations.key(m.group("rel")) or lexicons.animals.key(m.group("rel"))
        if rel:
            out.append((m.start(), rel, m.group("name")))
    search = lexicons.to_simplified(text)
    by_words: dict[int, str | None] = {}  # where the words decide: the name, or None (no name)
    head, named = _zh_relation_regexes(lexicons)
    for m in head.finditer(search) if tokens else ():
        if any(t.start == m.end() for t in tokens):
            end = name_end(search, m.end(), tokens, lexicons)
            by_words[m.start()] = text[m.end() : end] if end is not None else None
    people = {e.text for e in entities if e.label == "person"}
    for m in named.finditer(search):
        rel = lexicons.relations.key(m.group("rel")) or lexicons.animals.key(m.group("rel"))
        name = by_words.pop(m.start()) if m.start() in by_words else text[m.start("name") : m.end("name")]
        if name is None or not rel:
            continue
        simple = m.group("name")
        doubled = len(simple) == 2 and simple[0] == simple[1]  # 朵朵, 豆豆: a nickname
        if name in people or simple[0] in "小阿" or doubled or lexicons.is_chinese_name(simple):
            out.append((m.start(), rel, name))  # as written (阿傑, not 阿杰)
    for start, found in by_words.items():  # the words found a name the reading up to a predicate missed
        at = head.match(search, start)
        rel = lexicons.relations.key(at.group("rel")) if at else None
        if rel and found:
            out.append((start, rel, found))
    return sorted(out)


_ZH_RELATION_CACHE: dict[int, tuple[re.Pattern[str], re.Pattern[str]]] = {}


def _zh_relation_regexes(lexicons: Lexicons) -> tuple[re.Pattern[str], re.Pattern[str]]:
    key = id(lexicons)
    if key not in _ZH_RELATION_CACHE:
        forms = lexicons.relations.forms("zh") + lexicons.animals.forms("zh")
        starts = "|".join(PREDICATE_STARTS)
        _ZH_RELATION_CACHE[key] = (
            re.compile(_RELATION_HEAD_ZH.replace("{rels}", alternation(lexicons.relations.forms("zh")), 1)),
            re.compile(_NAMED_RELATION_ZH.replace("{rels}", alternation(forms), 1).replace("{starts}", starts, 1)),
        )
    return _ZH_RELATION_CACHE[key]
