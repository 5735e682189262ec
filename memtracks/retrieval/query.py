"""Query analysis: what a question asks about, and when.

From "Where do I live now?" / 我住哪 it finds the slot intent (lives_in); from "my car" /
我开什么车 the slot and the subject; from "last week" / 上周 / "on January 17" / 1月17日 a
time window resolved against ``now``; from "before", "used to", 之前, 以前, 原来 that the
question is about the past, so superseded facts may answer it; from "how many", 哪些, "which
... first?", "most recently", 最近一次, 先…还是… that its answer is spread over conversations
(``Query.aggregate``, its cues data: ``lexicons/history.yaml``; ``Query.compares`` for a
comparison over time); from "would", "might",
"likely", 可能, 会不会 that it is a conjecture about someone (``Query.conjecture``; the cues are
data: ``lexicons/conjecture.yaml``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache

import numpy as np

from memtracks.data.lexicons import Category, Lexicons
from memtracks.data.stopwords import Stopwords
from memtracks.pipeline.entities import extract_entities
from memtracks.pipeline.language import has_han
from memtracks.pipeline.nlp import Token
from memtracks.pipeline.subjects.self_words import ASKS_OF_SELF_EN, ASKS_OF_SELF_ZH
from memtracks.pipeline.timenorm import normalize_time
from memtracks.records import Entity, TimeMention
from memtracks.retrieval.embedders import Embedder
from memtracks.retrieval.lexical import tokenize
from memtracks.toolkit import Toolkit

_HAN = re.compile(r"[\u4e00-\u9fff]")
_RELATION = re.compile(
    r"\bmy\s+((?:best |close |older |younger |little |big )?[a-z]+)(?:'s)?|我(?:的)?([\u4e00-\u9fff]{1,3})",
    re.IGNORECASE,
)
# A Chinese question that opens with a relation speaks of the speaker's ("同事在哪上班？").
_RELATION_ZH_BARE = re.compile(r"(?:^|[，,。？?！!、\s])([\u4e00-\u9fff]{1,3})")


# How long one unit of a mention's granularity is, for the windows of open and approximate times.
_UNIT = {
    "second": timedelta(seconds=1),
    "minute": timedelta(minutes=1),
    "hour": timedelta(hours=1),
    "part_of_day": timedelta(hours=6),
    "day": timedelta(days=1),
    "weekend": timedelta(days=2),
    "week": timedelta(days=7),
    "month": timedelta(days=31),
    "quarter": timedelta(days=92),
    "season": timedelta(days=92),
    "half_year": timedelta(days=183),
    "year": timedelta(days=366),
    "decade": timedelta(days=3653),
    "century": timedelta(days=36525),
}


def search_span(t: TimeMention, now: datetime) -> tuple[datetime, datetime]:
    """The part of time a question's time expression searches. An open bound searches around
    its known edge ("before July 10": the unit around July 10; "since March": from March to
    now), not the century its open side reaches; an approximate offset ("4 years ago") its day
    widened by a sixth of its distance from now, since the speaker meant about then."""
    unit = _UNIT.get(t.granularity, timedelta(days=1))
    if t.unbounded == "start":
        return t.end - unit, t.end + unit
    if t.unbounded == "end":
        return t.start, max(t.start + unit, now)
    if t.approximate:
        slack = max(abs(now - t.start) / 6, timedelta(days=1))
        return t.start - slack, t.end + slack
    return t.start, t.end


def search_leeway(t: TimeMention, now: datetime) -> timedelta:
    """How loosely a time expression is meant, the scale of how far outside its span it still
    points in part (the retriever takes a configured share of it): an offset counted from now
    ("two weeks ago", 大概两周前, "a few days ago") by its distance from now, since people
    round such times the more the further back they are; a named period ("last week", 上上周,
    "in March") by its own length."""
    if t.approximate:
        return max(abs(now - t.start), timedelta(days=1))
    return _UNIT.get(t.granularity, timedelta(days=1))


def _without_spans(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """``text`` with the characters of ``spans`` blanked (offsets stay valid)."""
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


@dataclass(frozen=True)
class Query:
    """A question after analysis."""

    text: str
    lang: str
    now: datetime
    subjects: tuple[str, ...]  # whom it asks about; empty = anyone
    slots: tuple[str, ...]  # slot intents
    entities: tuple[Entity, ...]  # what the question is about, not who (participants left out)
    times: tuple[TimeMention, ...]
    past: bool  # asks about how things were before
    asks_when: bool  # "when...?", 什么时候: dated events answer it
    aggregate: bool  # "how many...?", 哪些, "which ... first?": the answer is spread over conversations
    as_of: datetime | None
    terms: tuple[str, ...]
    vector: np.ndarray
    kinds: tuple[str, ...] = ()  # happenings an aggregate question counts or lists ("how many trips")
    compares: bool = False  # "which ... most recently?", 先…还是…: a comparison over time (also aggregate)
    conjecture: bool = False  # "would/might/likely...?", 可能/会不会: asks what someone would or probably does
    # the members of the categories it names ("martial arts": kickboxing, 跆拳道...), as groups of
    # search terms; those of categories it names beside one of their members apart
    expansions: tuple[tuple[str, ...], ...] = ()
    sibling_expansions: tuple[tuple[str, ...], ...] = ()
    # per category of each: the question's terms that name it and its members' groups, so a turn
    # that names a member ("Instagram") holds those terms ("social", "media"; the ranker's coverage)
    category_terms: tuple[tuple[tuple[str, ...], tuple[tuple[str, ...], ...]], ...] = ()
    sibling_category_terms: tuple[tuple[tuple[str, ...], tuple[tuple[str, ...], ...]], ...] = ()
    categories: tuple[str, ...] = ()  # the categories it names
    # "What's my sister's name?", 我表姐叫什么: (whose, the words such a relative is shown with in
    # a fact's value: sister, sis, 姐姐, 妹妹...), so "family: Leah (sister)" answers it
    kin: tuple[tuple[str, tuple[str, ...]], ...] = ()
    present: bool = False  # in the present tense or says "now", "still", 现在, 还…吗 (lexicons/history.yaml)
    # the single-valued slots it asks about, each with the words by which a turn speaks of it
    # (rules/slots.yaml ``about``): two turns that both speak of it are about the same thing
    topics: tuple[tuple[str, re.Pattern[str]], ...] = ()
    stopwords: Stopwords | None = None  # what its terms leave out (the toolkit's); a text's words met with them too

    @property
    def window(self) -> tuple[datetime, datetime] | None:
        """The time the question points at: the span of its time expressions ("for two
        weeks" and "now" point at no time of their own; see ``search_span``)."""
        spans = [search_span(t, self.now) for t in self.times if t.dated]
        if not spans:
            return None
        return min(s for s, _ in spans), max(e for _, e in spans)

    @property
    def leeway(self) -> timedelta | None:
        """How loosely the question's time is meant (``search_leeway``); None without one."""
        spans = [search_leeway(t, self.now) for t in self.times if t.dated]
        return max(spans) if spans else None

    @property
    def entity_keys(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(e.key for e in self.entities))

    @property
    def about_now(self) -> bool:
        """Does it ask how things are now ("Where do I work?", "Am I still…", 我现在住哪？), so
        the newest word on a thing should lead? Not a question about the past or a fixed time,
        a "when", a count or a comparison, or a conjecture."""
        return self.present and not (self.wants_history or self.asks_when or self.aggregate or self.conjecture)

    @property
    def wants_history(self) -> bool:
        """Superseded facts may answer: a question about the past or about a fixed time."""
        return self.past or self.as_of is not None or (self.window is not None and self.window[1] <= self.now)


def analyze_query(
    text: str,
    *,
    now: datetime,
    toolkit: Toolkit,
    embedder: Embedder,
    speaker: str = "user",
    known: Mapping[str, tuple[str, str]] | None = None,
    people: frozenset[str] = frozenset(),
    as_of: datetime | None = None,
    relations: Sequence[tuple[str, str, str]] = (),
    speakers: frozenset[str] | None = None,
) -> Query:
    """Analyse ``text`` asked at ``now`` by ``speaker``.

    Args:
        known: names already known for the user (pets, people), to recognise them.
        people: names that are people (conversation participants, fact subjects).
        speakers: the people who talk in this memory (default: all of ``people``). Their names
            are matched through who said a turn, so they leave the search words; a third
            person ("my cousin Alex") is found by the turns that name them.
    """
    analysis = toolkit.nlp.analyze([text])[0]
    entities = extract_entities(analysis, toolkit.lexicons, known)
    lang = analysis.lang if analysis.lang in ("en", "zh", "mixed") else "en"
    times = tuple(normalize_time(text, now, lang=lang, time_words=toolkit.time_words))
    subjects = _subjects(text, entities, speaker, toolkit, people, relations)
    named = (speakers if speakers is not None else people) & set(subjects)
    as_one = toolkit.lexicons.to_simplified  # 黃志明 and 黄志明 are one person
    named = named | {as_one(p) for p in named if has_han(p)}
    participants = {as_one(p).lower() for p in named}
    topical = tuple(e for e in entities if as_one(e.text).lower() not in participants and e.key not in participants)
    simplified = toolkit.lexicons.to_simplified(text)  # 最後一次 as 最后一次, character for character
    compares = toolkit.history.compares(simplified)
    aggregate = toolkit.history.asks_aggregate(simplified) or compares
    # the form of a count or a comparison is no topic ("how many" would find every turn that
    # says "many", "most recently" every turn that says "recently"); a time expression stays a
    # topic too: people repeat the words of the turn they mean
    form = toolkit.history.form_spans(simplified, "quantity") + (
        toolkit.history.form_spans(simplified, "order") if compares else []
    )
    topic = _without_spans(text, form)
    topic = topic if topic.strip() else text
    stop = toolkit.stopwords
    terms = _terms(topic, topical, named, stop)
    alone, beside, naming = _categories(text, toolkit.lexicons, analysis.tokens, stop)
    slots = _slots(text, toolkit, analysis.tokens)
    about = toolkit.catalogue.about_patterns
    return Query(
        text=text,
        lang=analysis.primary if analysis.primary in ("en", "zh") else "en",
        now=now,
        subjects=subjects,
        slots=slots,
        entities=topical,
        times=times,
        past=toolkit.history.asks(simplified),
        asks_when=toolkit.history.asks_when(simplified),
        aggregate=aggregate,
        as_of=as_of,
        terms=terms,
        vector=embedder.embed_batch([without_names(topic, named)])[0],
        kinds=_kinds(text, toolkit) if aggregate else (),
        compares=compares,
        conjecture=toolkit.conjecture.asks(simplified),
        expansions=_member_groups(alone, terms, known, stop),
        sibling_expansions=_member_groups(beside, terms, known, stop),
        category_terms=_category_terms(alone, naming, terms, known, stop),
        sibling_category_terms=_category_terms(beside, naming, terms, known, stop),
        categories=tuple(c.key for c in (*alone, *beside)),
        kin=_kin(subjects, toolkit.lexicons),
        present=toolkit.history.asks_now(simplified, "zh" if analysis.primary == "zh" else "en"),
        topics=tuple((slot, about[slot]) for slot in slots if slot in about),
        stopwords=stop,
    )


def _kin(subjects: Sequence[str], lexicons: Lexicons) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """For each relative the question asks about ("user's sister"): whose relative, and every
    word (English, Chinese, Traditional) a fact's value may show that relation with."""
    traditional = {simple: trad for trad, simple in lexicons.traditional.items()}
    out = []
    for subject in subjects:
        owner, sep, rel = subject.rpartition("'s ")
        spec = next((s for s in lexicons.relations.specs if s.key == rel), None) if sep else None
        if spec is None:
            continue
        forms = {f.lower() for f in (*spec.en, *spec.zh)}
        forms |= {"".join(traditional.get(ch, ch) for ch in f) for f in spec.zh}
        out.append((owner, tuple(sorted(forms))))
    return tuple(out)


def _categories(
    text: str, lexicons: Lexicons, words: Sequence[Token], stop: Stopwords | None = None
) -> tuple[list[Category], list[Category], dict[str, tuple[str, ...]]]:
    """The categories ``text`` names ("martial arts", 乐器; ``lexicons/categories.yaml``), split
    into those it names alone and those it names beside one of their members ("sports besides
    tennis"), and the terms of the names by which it names each. A Chinese name must be whole
    words of the question: 车 in 开什么车 names vehicles, 车 in 车站 does not."""
    simplified = lexicons.to_simplified(text)
    starts, ends = {w.start for w in words}, {w.end for w in words}
    found: dict[str, list[tuple[int, int]]] = {}
    for category in lexicons.categories:
        names = [m.span() for m in category.named_en.finditer(text) if _asks_members_en(text, m)]
        names += [
            m.span()
            for m in category.named_zh.finditer(simplified)
            if (not words or (m.start() in starts and m.end() in ends)) and _asks_members_zh(simplified, m)
        ]
        if names:
            found[category.key] = names
    spans = [span for names in found.values() for span in names]
    alone: list[Category] = []
    beside: list[Category] = []
    named: dict[str, tuple[str, ...]] = {}
    for category in lexicons.categories:
        # a name inside a longer name of another category is that one's ("martial arts" is no art)
        names = [
            (s, e)
            for s, e in found.get(category.key, [])
            if not any(a <= s and e <= b and b - a > e - s for a, b in spans)
        ]
        if not names:
            continue
        members = [*category.member_en.finditer(text), *category.member_zh.finditer(simplified)]
        named_member = any(not any(s <= m.start() and m.end() <= e for s, e in names) for m in members)
        (beside if named_member else alone).append(category)
        named[category.key] = tuple(dict.fromkeys(t for s, e in names for t in tokenize(simplified[s:e], stop=stop)))
    return alone, beside, named


# "what sports", "which European countries", "any pets", "kinds of music": the question asks
# which members; "her book", "John's car", "a basketball career" speak of one thing.
_ASKS_BEFORE_EN = re.compile(r"\b(?:what|which|any|kinds?\s+of|types?\s+of|sorts?\s+of)\s+(?:[\w'-]+\s+){0,2}$", re.I)
_ASKS_BEFORE_ZH = re.compile(r"(?:什么|哪些|哪种|哪类|哪个|哪几种|哪几个|几种|啥|何种|什么样的?)[\u4e00-\u9fff]{0,2}$")
_ASKS_AFTER_ZH = re.compile(r"^(?:是什么|是啥|有哪些|有什么|有啥|都有|怎么样|如何|是哪)")


def _asks_members_en(text: str, match: re.Match[str]) -> bool:
    """An English category name asks for its members when it is plural ("martial arts",
    "pets") or follows "what", "which", "any", "kind of" (up to two words between)."""
    said = match.group().lower()
    plural = said.endswith("s") and not said.endswith("ss")  # "sports", not "stress" or "fitness"
    return plural or _ASKS_BEFORE_EN.search(text[: match.start()]) is not None


def _asks_members_zh(text: str, match: re.Match[str]) -> bool:
    """A Chinese one when 什么 / 哪些 / 哪种 come just before it (什么武术, 哪些城市) or 是什么 /
    有哪些 / 怎么样 just after (爱好是什么, 感情状况怎么样)."""
    return bool(_ASKS_BEFORE_ZH.search(text[: match.start()]) or _ASKS_AFTER_ZH.match(text[match.end() :]))


def _member_groups(
    categories: Sequence[Category],
    terms: tuple[str, ...],
    known: Mapping[str, tuple[str, str]] | None = None,
    stop: Stopwords | None = None,
) -> tuple[tuple[str, ...], ...]:
    """The search-term groups of the categories' members, less those the question holds. The
    names the memory knows with a category's ``known`` labels are members too (the pets' names
    for "pets": a turn about Bailey may never say "dog")."""
    own = set(terms)
    groups = [g for c in categories for g in _groups_of(c.members_en + c.members_zh, stop)]
    labels = {label for c in categories for label in c.known}
    for surface, (key, label) in (known or {}).items() if labels else ():
        if label in labels:
            groups += [*_groups_of((surface,), stop), (f"ent:{key}",)]
    return tuple(g for g in dict.fromkeys(groups) if not set(g) <= own)


def _category_terms(
    categories: Sequence[Category],
    named: Mapping[str, tuple[str, ...]],
    terms: tuple[str, ...],
    known: Mapping[str, tuple[str, str]] | None = None,
    stop: Stopwords | None = None,
) -> tuple[tuple[tuple[str, ...], tuple[tuple[str, ...], ...]], ...]:
    """Per category: the question's terms of the names it is named by and its members' search
    groups (``_member_groups``)."""
    own = set(terms)
    out = []
    for category in categories:
        held = tuple(t for t in named.get(category.key, ()) if t in own)
        groups = _member_groups([category], terms, known, stop)
        if held and groups:
            out.append((held, groups))
    return tuple(out)


@lru_cache(maxsize=256)
def _groups_of(forms: tuple[str, ...], stop: Stopwords | None = None) -> tuple[tuple[str, ...], ...]:
    """Each member as the terms a turn must all hold to name it: a phrase's words ("ice
    hockey"), a Chinese word's character bigrams (跆拳道: 跆拳 + 拳道; a one-character word its
    character)."""
    out = []
    for form in forms:
        words = tokenize(form, stop=stop)
        if _HAN.search(form):
            pairs = tuple(t for t in words if len(t) == 2 and _HAN.match(t))
            words = list(pairs) if pairs else words
        if words:
            out.append(tuple(dict.fromkeys(words)))
    return tuple(dict.fromkeys(out))


def without_names(text: str, names: Set[str]) -> str:
    """The question as embedded: about what, not about whom (the speaker is matched apart).
    A Chinese name is cut wherever it stands: no space sets it off (吳佳穎的婚禮)."""
    for name in names:
        bounded = "" if has_han(name) else r"(?<![\w])"
        after = "" if has_han(name) else r"(?:'s)?(?![\w])"
        text = re.sub(rf"{bounded}{re.escape(name)}{after}", "", text, flags=re.IGNORECASE)
    return " ".join(text.split()) or text


def _terms(
    text: str, entities: tuple[Entity, ...], participants: Set[str], stop: Stopwords | None = None
) -> tuple[str, ...]:
    """Search terms of the question, without the names of the people talking: they are in
    nearly every turn of their conversation and would drown the words that matter. Who is
    asked about is matched through the speaker instead (see the temporal retriever); the
    question is embedded without those names for the same reason."""
    names = {t for p in participants for t in tokenize(p, stop=stop)}
    said = without_names(text, participants)  # no pair of characters across a name (颖的)
    return tuple(t for t in tokenize(said, [e.key for e in entities], stop) if t not in names)


def _kinds(text: str, toolkit: Toolkit) -> tuple[str, ...]:
    """Happening kinds the question names by one of their nouns (``changes`` in
    rules/happenings.yaml): "how many trips" -> trip, 去过几次出差 -> trip."""
    lowered = toolkit.lexicons.to_simplified(text.lower())
    found = []
    for kind, words in toolkit.change_words.items():
        for word in words:
            hit = word in lowered if _HAN.search(word) else re.search(rf"\b{re.escape(word)}(?:e?s)?\b", lowered)
            if hit:
                found.append(kind)
                break
    return tuple(found)


def _slots(text: str, toolkit: Toolkit, words: Sequence[Token] = ()) -> tuple[str, ...]:
    """Slot intents: the slots whose question patterns match (Chinese ones on the Simplified
    question, so 在哪裡上班 asks where one works). A Chinese pattern must match whole words of the question, or lie inside a noun or at the start of a word (爱 in 可爱 is
    not love; 猫 in 小猫 and in 猫叫 is a cat)."""
    found: list[str] = []
    simplified = toolkit.lexicons.to_simplified(text)  # character for character: the words still line up
    for lang in ("en", "zh"):
        for slot, regex in toolkit.catalogue.ask_patterns[lang]:
            if slot in found:
                continue
            matches = regex.finditer(simplified if lang == "zh" else text)
            if any(lang == "en" or _whole_words(m, words) for m in matches):
                found.append(slot)
    return tuple(found)


def _whole_words(match: re.Match[str], words: Sequence[Token]) -> bool:
    """The match covers a whole word, lies inside a noun (小猫, 猫咪), or starts a word (猫叫)."""
    if not words:
        return True
    if any(match.start() <= w.start and w.end <= match.end() for w in words):
        return True
    inside = next((w for w in words if w.start <= match.start() and match.end() <= w.end), None)
    return inside is not None and (inside.tag.startswith("n") or inside.start == match.start())


def _subjects(
    text: str,
    entities: tuple[Entity, ...],
    speaker: str,
    toolkit: Toolkit,
    people: frozenset[str],
    named: Sequence[tuple[str, str, str]] = (),
) -> tuple[str, ...]:
    """Whom the question asks about: "my brother" (我哥, or 哥哥 opening a Chinese question) is
    the speaker's brother and every brother the speaker has named ("my brother Tom" -> Tom); a
    name is that person (and their relation)."""
    subjects: list[str] = []
    for m in _RELATION.finditer(text):
        words = m.group(1) or m.group(2) or ""
        relations = toolkit.lexicons.relations
        rel = relations.key(words) if m.group(1) else relations.key_of_prefix(toolkit.lexicons.to_simplified(words))
        if rel:
            subjects.append(f"{speaker}'s {rel}")
            subjects += [name for owner, r, name in named if owner == speaker and r == rel and name not in subjects]
    if not subjects:
        for m in _RELATION_ZH_BARE.finditer(text):
            rel = toolkit.lexicons.relations.key_of_prefix(toolkit.lexicons.to_simplified(m.group(1)))
            if rel and f"{speaker}'s {rel}" not in subjects:
                subjects.append(f"{speaker}'s {rel}")
                subjects += [name for owner, r, name in named if owner == speaker and r == rel and name not in subjects]
    lowered = {p.lower(): p for p in people}
    for e in entities:
        name = lowered.get(e.text.lower()) or (e.text if e.label == "person" else None)
        if name and name not in subjects:
            subjects.append(name)
    simplified = toolkit.lexicons.to_simplified(text)
    for p in people:
        if p in subjects:
            continue
        if has_han(p):  # 黃志明為什麼…: Chinese puts no space after a name (either script)
            if toolkit.lexicons.to_simplified(p) in simplified:
                subjects.append(p)
        elif re.search(rf"(?<![\w]){re.escape(p)}(?![\w])", text, re.IGNORECASE):
            subjects.append(p)
    own = ASKS_OF_SELF_EN.search(text) or ASKS_OF_SELF_ZH.search(text)
    if own and not any(s.startswith(f"{speaker}'s ") for s in subjects):
        subjects.append(speaker)
    return tuple(subjects)
