"""Stage 1b: slot values — "I live in Shanghai" gives ``{subject: user, slot: lives_in}``.

Patterns come from ``rules/slot_patterns.yaml`` and run in file order; when two matches
overlap, the earlier pattern wins (negations are listed first). Questions are skipped: "Do
you live in Paris?" states nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from dataclasses import replace as _replace
from functools import partial

from memtracks.data.lexicons import Lexicons
from memtracks.data.patterns import Compiled, group, present_pieces, written
from memtracks.data.statements import default_markers
from memtracks.pipeline.numerals import parse_number
from memtracks.pipeline.statements import Statement, analyze_statements, asked_at, statement_for
from memtracks.pipeline.subjects.kin import kin_values
from memtracks.pipeline.subjects.resolver import SubjectResolver
from memtracks.pipeline.text import (
    at_clause_start,
    clean_value,
    cut_before_times,
    entities_in,
    find_all,
    sentence_at,
    sentences,
    subject_is_filler,
    unqualified,
    value_key,
)
from memtracks.pipeline.values import check_value, whole_phrase
from memtracks.records import Entity, SlotValue, TimeMention

_SPLIT = re.compile(r"\s*(?:,|、|，|\band\b|\bor\b|和|以及|还有)\s*", re.IGNORECASE)
_MAX_ITEM_WORDS = 5
_NOT_ITEM_START = frozenset(
    "i i'm it it's me you us them him her we they he she that this those these there here was is are were be been being "
    "have has had do does did can could will would should may might especially also so too very how "
    "what when where why who which both every all any some such as like just really "
    "for to in on at of with about from by into".split()
)
_NEEDS_OBJECT = frozenset(
    "making doing having getting seeing being trying going taking coming using giving putting "
    "bringing keeping finding telling showing working playing watching learning sharing".split()
)
_SINCE = re.compile(r"(?:\bsince|\bfrom|自从|从|自)\s*$", re.IGNORECASE)


_PINNED = frozenset({"day", "hour", "minute", "part_of_day"})
_DATES = frozenset({"birthday", "anniversary"})  # a date said ahead is the date, not a plan
_TASTES = frozenset({"likes", "dislikes", "hobbies"})  # lasting preferences: present tense only
_NEGATIVE_SLOTS = frozenset({"dislikes", "avoids"})  # their patterns say the negation themselves
_REJECTED_EN = re.compile(
    r"(?:,\s*|\b)not\s+(?:a |an |the )?(?P<r>[\w$.'-]+(?: [\w'-]+)?)(?=\s*(?:but\b|[,.;!?]|$))", re.IGNORECASE
)
_REJECTED_ZH = re.compile(r"不是(?P<r>[^，。！？,.!?、]{1,8}?)(?=[，。！？,.!?、]|$|而是|是)")
PLAN_CONFIDENCE = 0.7  # a plan is believed this much less than a statement, until confirmed
REPORTED_CONFIDENCE = 0.8


@dataclass(frozen=True)
class ValueContext:
    """What the value checks and the statement analysis need beside the text."""

    statements: tuple[Statement, ...] = ()
    parsed: tuple = ()  # English ParsedTokens
    tokens: tuple = ()  # Chinese jieba Tokens
    kinds: dict[str, str] | None = None  # slot -> value kind
    search: str | None = None  # the text the regexes run on (Traditional mapped to Simplified)


@dataclass(frozen=True)
class _Found:
    value: SlotValue
    span: tuple[int, int]  # the whole match, for overlap checks


def extract_slots(
    text: str,
    lang: str,
    resolver: SubjectResolver,
    patterns: Sequence[Compiled],
    lexicons: Lexicons,
    times: Sequence[TimeMention] = (),
    opposites: dict[str, str] | None = None,
    context: ValueContext | None = None,
) -> tuple[SlotValue, ...]:
    """Slot values stated in ``text`` (a pure function of its inputs).

    Args:
        text: the turn text.
        lang: the extractor language ("en" or "zh"); patterns of other languages are skipped.
        resolver: turns captured subject phrases into subjects.
        patterns: compiled slot patterns, in priority order.
        lexicons: relation / animal / job words, for canonical keys.
        times: time mentions of the text, so values stop where a time expression starts.
        opposites: slot -> opposite slot (likes/dislikes); overlapping matches of a slot and
            its opposite compete, the earlier pattern winning.
        context: statements (how each clause is said), parse and tags for the value checks.
    """
    opposites = opposites or {}
    context = context or ValueContext()
    if not context.statements:
        context = _replace(context, statements=analyze_statements(text, lang, default_markers(), times))
    search = context.search or (lexicons.to_simplified(text) if lang == "zh" else text)
    present = present_pieces(patterns, search.casefold())
    sents = sentences(text)
    found: list[_Found] = []
    last_subject: dict[int, str] = {}
    for pattern in patterns:
        if pattern.spec.lang != lang or not pattern.may_match_given(present):
            continue
        family = {pattern.spec.slot, opposites.get(pattern.spec.slot)}

        def build(m: re.Match[str]) -> list[_Found] | None:
            sent = sentence_at(sents, m.start())
            if asked_at(context.statements, m.start()):
                return None
            if any(f.value.slot in family and _overlaps(m.span(), f.span) for f in found):  # noqa: B023
                return None
            # "my sister's name is Anna" names a sister: not the one sister named before
            naming = pattern.spec.slot == "name"  # noqa: B023
            subject = (replace(resolver, relatives=()) if naming else resolver).resolve(m, parsed=context.parsed)
            if subject == "" and lang == "en" and context.parsed:  # "He's working as a nurse": the clause's own
                subject = resolver.clause_subject(m, context.parsed)
            if subject is None and pattern.optional_subject and subject_is_filler(m, times):  # noqa: B023
                subject = ""
            gap_from = None  # "我周一开始在微软上班": the clause's subject, then only times and adverbs
            if subject == "" and not at_clause_start(text, m.start(), times):
                subject = resolver.opener_before(m.start(), times)
                gap_from = resolver.opener_end(m.start())
            if subject is None or (subject == "" and not at_clause_start(text, m.start(), times)):
                return None
            if (
                subject == ""
                and re.match(r"(?:and|also)\b", m.group(0), re.IGNORECASE)
                and not _subject_given(m, last_subject.get(sent.start), text)
            ):
                return None
            if not subject:
                subject = (
                    resolver.speaker
                    if pattern.spec.speakers  # noqa: B023
                    else resolver.without_subject(m.start())
                    if resolver.topics
                    else last_subject.get(sent.start, resolver.speaker)
                )
                if subject is None:
                    return None  # a clause about someone unknown ("找了个保姆，很喜欢狗")
            topic = (m.groupdict().get("value") or "").strip()
            if topic and _simplified(subject, lexicons) == _simplified(topic, lexicons):
                # 旺财上周去世了 (湯圓去喵星了, the name as written, the value as read): the topic is
                # the value, the speaker its owner
                subject = resolver.speaker
            st = statement_for(context.statements, _said_span(m, pattern), context.parsed, chain_clauses=lang == "zh")  # noqa: B023
            if lang == "zh" and st.polarity == "negated" and not _negated_before_value(m, st, search or text):
                st = replace(st, cues=st.cues - {"negated"})  # 29岁不是27岁: the 不是 is the next value's
            denied = lang == "zh" and pattern.spec.negate and st.polarity == "negated"  # noqa: B023
            if denied and _denied(m, pattern, st, search or text):  # noqa: B023
                return None  # 我不会离职的, 我们没分手: the ending is denied; no ending, and no fact
            if pattern.spec.intent and "ceased" in st.cues and _ceases_only_in_value(m, st, search or text, lang):  # noqa: B023
                st = replace(st, cues=st.cues - {"ceased"})  # "I've decided to quit my job": quitting is the choice
            if pattern.spec.keep_times and _times_only_in_value(st, m, times):  # noqa: B023
                st = replace(st, future_time=False)  # 我最喜欢的季节是夏天: the time is the value, no plan
            if not _stated(st, pattern, times):  # noqa: B023
                return None
            if not _verb_is_verb(m, context.parsed, pattern):  # noqa: B023
                return None
            values = _values(m, pattern, subject, resolver.entities, lexicons, times, text)  # noqa: B023
            values = [_lowered(_whole(v, context, text, times), lexicons) for v in values]
            if not all(_well_formed(v, resolver.entities, context, text, lexicons) for v in values):
                return None  # one item of a list is a fragment: the list was cut wrong, trust none of it
            said = _Said(text, search, times, resolver.entities, lexicons)
            stated = [_with_statement(v, st, pattern, said) for v in values]  # noqa: B023
            if gap_from is not None:  # "我周一开始在微软上班": held from the time before the match
                since = _since((gap_from, m.end()), times, text)
                stated = [replace(v, valid_from=since) if v and since and not v.valid_from else v for v in stated]
            said_as = text[m.start("subj") : m.end("subj")] if "subj" in m.re.groupindex and m.group("subj") else ""
            kept = [_as_relative(v, lexicons, said_as, search != text) for v in stated if v is not None]
            kept = [v for v in kept if not any(_same(v, f, m.span()) for f in found)]
            return [_Found(v, m.span()) for v in kept] or None

        for items in find_all(pattern.regex, search, build):
            found.extend(items)
            last_subject[sentence_at(sents, items[0].span[0]).start] = items[0].value.subject
    asked = partial(asked_at, context.statements)
    for v in kin_values(
        text, lang, resolver.speaker, lexicons, resolver.entities, times, context.tokens, search, asked
    ):
        if not any(
            (f.value.subject, f.value.slot, f.value.value_key) == (v.subject, v.slot, v.value_key) for f in found
        ):
            found.append(_Found(v, v.span))  # "my brother Tom", 我哥哥小明: the speaker has a brother, Tom
    found.sort(key=lambda f: f.span)
    return tuple(f.value for f in found)


def _simplified(text: str | None, lexicons: Lexicons | None) -> str | None:
    return lexicons.to_simplified(text) if text and lexicons is not None else text


def _times_only_in_value(st: Statement, m: re.Match[str], times: Sequence[TimeMention]) -> bool:
    """Do the clause's times all lie inside the value the match captured?"""
    if "value" not in m.re.groupindex or not m.group("value"):
        return False
    start, end = m.span("value")
    return all(start <= t.span[0] < end for t in times if st.start <= t.span[0] < st.end)


def _same(v: SlotValue, f: _Found, span: tuple[int, int]) -> bool:
    """Two patterns read one fact from the same words ("my wife's name is Sarah": partner and
    a relative's name)."""
    w = f.value
    return _overlaps(span, f.span) and (w.subject, w.slot, w.value_key, w.negated) == (
        v.subject,
        v.slot,
        v.value_key,
        v.negated,
    )


_PARTNERS = frozenset({"partner", "wife", "husband", "girlfriend", "boyfriend", "fiance"})
_CHILDREN = frozenset({"son", "daughter", "child"})
_NOT_FAMILY = frozenset({"friend", "boss", "colleague", "roommate", "neighbor", "classmate", "teacher"})


def _as_relative(v: SlotValue, lexicons: Lexicons, said_as: str = "", traditional: bool = False) -> SlotValue:
    """ "My sister's name is Anna", 她叫佳慧 (她: the girlfriend): a name said about a relative
    is a fact about the one whose relative they are — partner, children or family; shown with
    the word the turn calls them by (``said_as``: 我表姐 -> 表姐, not the relation's first word),
    else the relation's word in the turn's script (``traditional``)."""

    owner, sep, rel = v.subject.rpartition("'s ")
    if v.slot != "name" or not sep or v.negated:
        return v
    if rel in _PARTNERS:
        return replace(v, subject=owner, slot="partner", qualifier=None)
    if rel in _NOT_FAMILY:
        return v
    forms = [s for s in lexicons.relations.specs if s.key == rel]
    shown = (
        (forms[0].zh[0] if v.lang == "zh" and forms[0].zh else forms[0].en[0])
        if forms and (forms[0].zh or forms[0].en)
        else rel
    )
    word = re.sub(r"^(?:我们的|我們的|我的|我|my |our )|'s$", "", said_as.strip(), flags=re.I)
    if word and lexicons.relations.key(lexicons.to_simplified(word)) == rel:
        shown = word.lower()  # 表姐, not the first word of cousin (表哥); 女兒 as written
    elif traditional:
        shown = lexicons.to_traditional(shown)  # a Traditional turn: the label in its script
    value = f"{v.value}（{shown}）" if v.lang == "zh" else f"{v.value} ({shown})"
    return replace(v, subject=owner, slot="children" if rel in _CHILDREN else "family", value=value, qualifier=rel)


_TASTE_VERBS = frozenset({"like", "likes", "love", "loves", "enjoy", "enjoys", "adore", "adores"})


def _verb_is_verb(m: re.Match[str], parsed: Sequence, pattern: Compiled) -> bool:
    """ "We're like a family": "like" there is a preposition, not liking."""
    if pattern.spec.slot not in _TASTES or not parsed:
        return True
    words = [t for t in parsed if m.start() <= t.idx < m.end() and t.lower in _TASTE_VERBS]
    # only "like" can be a preposition; "love"/"enjoy" are verbs whatever the tagger says ("I love
    # bowling!" is tagged love/AUX, bowling/VERB)
    return not words or any(t.pos in ("VERB", "AUX") or t.lower not in ("like", "likes") for t in words)


def _subject_given(m: re.Match[str], previous: str | None, text: str) -> bool:
    """A match without a subject of its own ("and enjoy kayaking") takes the subject of the
    clause before it: only trusted when that one was a first-person statement or a match."""
    if previous is not None or not text.isascii():
        return True
    start = max(text.rfind(mark, 0, m.start()) for mark in ".!?\n") + 1
    before = text[max(0, start) : m.start()]
    told = re.search(r"\b(?:i|we|i'm|we're|i've)\b", before, re.IGNORECASE) is not None or _DROPPED_I.match(before)
    return bool(told) and re.search(r"\bto\s+\w+\s*$|\bto\s+\w+\s+\w+\s*$", before, re.IGNORECASE) is None


# a sentence chat opens with a past verb and no "I" ("Sold the CX-5 and bought a Polestar 2")
_DROPPED_I = re.compile(
    r"\W*(?:just |finally |also |then )?(?:[a-z]+ed|sold|got|bought|took|made|left|quit|went|put|gave|found|"
    r"sent|kept|spent|met|had|began|brought|drove|ran|won|lost|swapped|traded)\b",
    re.IGNORECASE,
)


def _lowered(v: SlotValue, lexicons: Lexicons) -> SlotValue:
    """An activity named at the start of a sentence, as the lexicon writes it ("Painting's my
    therapy": painting)."""
    if v.lang == "en" and v.value[:1].isupper() and v.value[1:].islower() and lexicons.activities.key(v.value):
        return replace(v, value=v.value.lower())
    return v


def _said_span(m: re.Match[str], pattern: Compiled) -> tuple[int, int]:
    """Where the clause's verb is sought: an aim's own words name an act not done yet ("my goal
    of having a family", "hoping to open a bakery"), so for an aim it is the words before them."""
    if pattern.spec.intent and "value" in m.re.groupindex and m.start("value") > m.start():
        return m.start(), m.start("value")
    return m.span()


def _ceases_only_in_value(m: re.Match[str], st: Statement, text: str, lang: str) -> bool:
    """Is the clause's word of ending inside the value it names ("decided to quit my job",
    决定辞职了), and nowhere else in the clause?"""
    value = group(m, "value")
    if not value:
        return False
    start = text.find(value, m.start())
    if start < 0:
        return False
    rest = text[st.start : start] + " " + text[start + len(value) : st.end]
    markers = default_markers()
    return "ceased" in markers.found(lang, value) and "ceased" not in markers.found(lang, rest)


def _stated(st: Statement, pattern: Compiled, times: Sequence[TimeMention] = ()) -> bool:
    """Does the clause assert something a fact can come from?"""
    spec = pattern.spec
    if spec.intent:  # "my goal is to...", 我打算考…: the aim is the fact; asked or imagined it is none
        # "I was hoping to open a bakery (but...)": a hope of then, not an aim now
        return st.modality in ("stated", "reported", "wish") and st.polarity == "affirmed" and "occasion" not in st.cues
    if not st.states:
        return False  # a question, a wish, a condition: nothing is stated
    if spec.lasting and any(
        st.start <= t.span[0] < st.end and t.granularity in _PINNED and t.unbounded != "end" for t in times
    ):
        return False  # "今天不吃了", 今天吃素, "I'm not drinking tonight": one day, not a trait (今天开始吃素 is one)
    if spec.lasting and "occasion" in st.cues:
        return False  # "I was playing video games when ...": the scene of one evening, not a hobby
    if spec.slot in _TASTES and not spec.negate and "past" in st.cues and not spec.historical:
        return False  # "I loved the show": an opinion of one occasion, not a lasting taste
    if spec.slot in _TASTES and st.planned and not spec.negate:
        return False
    return True


def _well_formed(v: SlotValue, entities, context: ValueContext, text: str, lexicons: Lexicons | None = None) -> bool:
    if v.negated and (not v.value or v.ends_only):
        return True  # "I quit my job": ends the current value, names none; Focus給我弟開了 ends only the car it names
    kind = (context.kinds or {}).get(v.slot, "text")
    span = _value_span(v, text)
    elided = v.slot in _TASTES and v.qualifier is not None  # "my favourite colour is blue": blue [colour]
    surface = unqualified(v.value)
    return (
        check_value(
            surface,
            kind,
            v.lang,
            span,
            text,
            entities,
            context.parsed,
            context.tokens,
            elided=elided,
            lexicons=lexicons,
            framed=v.framed,
        )
        is None
    )


_PHRASE_KINDS = frozenset({"text"})  # free phrases ("create a safe and loving home"): the regex only finds their start


# a vague "when" the parse hangs on the phrase's verb ("open a bakery one day"): no part of the aim
_VAGUE_WHEN = re.compile(
    r"\s+(?:one day|some ?day|some time|eventually|soon|in the future|down the road|at some point)\s*$", re.I
)


def _whole(v: SlotValue, context: ValueContext, text: str, times: Sequence[TimeMention] = ()) -> SlotValue:
    """A phrase value as the whole phrase the parse reads, not where the regex stopped, up to a
    time it holds ("got engaged last night": engaged)."""

    if v.lang != "en" or not context.parsed or (context.kinds or {}).get(v.slot, "text") not in _PHRASE_KINDS:
        return v
    span = _value_span(v, text)
    if span is None or v.value != text[span[0] : span[1]]:
        return v
    start, end = whole_phrase(span, context.parsed, text)
    if end == span[1]:
        return v
    value = clean_value(_VAGUE_WHEN.sub("", cut_before_times(text[start:end], start, times)))
    if not value:
        return v
    return replace(v, value=value, value_key=value_key(value))


def _value_span(v: SlotValue, text: str) -> tuple[int, int] | None:
    surface = unqualified(v.value)
    start = text.find(surface, v.span[0], v.span[1] + len(surface))
    return (start, start + len(surface)) if start >= 0 else None


@dataclass(frozen=True)
class _Said:
    """The turn a value was said in: its text (and Simplified copy), times, entities, lexicons."""

    text: str
    search: str
    times: Sequence[TimeMention]
    entities: tuple[Entity, ...]
    lexicons: Lexicons


def _with_statement(v: SlotValue, st: Statement, pattern: Compiled, said: _Said) -> SlotValue | None:
    """The value as the clause says it: negated, a dated plan, historical, a correction, an
    addition; None when it is an undated plan (a goal, not a fact)."""

    changes: dict = {}
    if pattern.spec.historical and st.polarity == "negated":
        return None  # 我没有从京东离职: no ending, and no fact either
    if pattern.spec.intent:  # an aim holds as said, whatever its time
        if st.modality == "reported":
            return replace(v, confidence=round(v.confidence * REPORTED_CONFIDENCE, 2))
        return v
    own_polarity = (  # "don't like", 不吃, "I quit my job at X" (an ended fact): the pattern's own
        pattern.spec.negate
        or pattern.spec.slot in _NEGATIVE_SLOTS
        or (pattern.spec.historical and st.polarity == "ceased")
    )
    if st.polarity != "affirmed" and not v.negated and not own_polarity:
        changes["negated"] = True
    planned = st.planned and not v.historical and pattern.spec.slot not in _DATES
    if planned:
        start = _future_start(st, said.times)
        if start is None:
            if not (v.negated or changes.get("negated")):
                return None
        elif v.negated or changes.get("negated"):
            changes.update(planned=True, valid_from=start)  # "I'm leaving at the end of the month"
        else:
            changes.update(planned=True, valid_from=start, confidence=round(v.confidence * PLAN_CONFIDENCE, 2))
    if "past" in st.cues and not planned and v.slot not in _TASTES and not v.negated and not pattern.spec.shown:
        changes["historical"] = True
    rejected = _rejected(st, v.lang, said, right_after="correction" not in st.cues)
    if "correction" in st.cues or rejected:  # "住在深圳，不是广州": the value that follows is rejected
        # ("Actually I'm not vegetarian anymore": what stopped was true until now, no correction)
        changes["correction"] = not ((v.negated or changes.get("negated")) and "ceased" in st.cues and not rejected)
        if rejected and rejected != v.value_key:
            changes["rejected_key"] = rejected
    if "addition" in st.cues:
        changes["additive"] = True
    if st.modality == "reported":
        changes["confidence"] = round(changes.get("confidence", v.confidence) * REPORTED_CONFIDENCE, 2)
    return replace(v, **changes) if changes else v


def _future_start(st: Statement, times: Sequence[TimeMention]):
    ahead = [t for t in times if st.start <= t.span[0] < st.end and t.direction == "future"]
    return ahead[0].start if ahead else None


def _rejected(st: Statement, lang: str, said: _Said, right_after: bool = False) -> str | None:
    """The key of the value a correction rejects ("43, not 34"; "green, not blue" and 是绿色，
    不是蓝色, where it follows in a clause of its own), keyed as values are: an entity's key
    (不是腾讯: tencent), an activity's (不是游泳: swimming), a number. ``right_after``: only a
    rejection that opens the next clause ("I live in Denver, not Boston"), which corrects
    by itself."""
    end = sentence_at(sentences(said.search), st.start).end
    m = (_REJECTED_EN if lang == "en" else _REJECTED_ZH).search(said.search, st.start, end)
    if m is None or (right_after and not st.end - 2 <= m.start() <= st.end + 1):
        return None
    raw = clean_value(said.text[m.start("r") : m.end("r")])
    start = said.text.find(raw, m.start("r"))
    named = [e for e in entities_in(said.entities, start, start + len(raw)) if value_key(e.text) == value_key(raw)]
    if named:
        return named[0].key
    return _term_key(raw, lang, said.lexicons) or value_key(parse_value_key(raw))


def parse_value_key(raw: str) -> str:
    number = parse_number(raw.replace("岁", "").strip())
    return str(number) if number is not None else raw


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _values(
    m: re.Match[str],
    pattern: Compiled,
    subject: str,
    entities: tuple[Entity, ...],
    lexicons: Lexicons,
    times: Sequence[TimeMention],
    text: str,
) -> list[SlotValue]:
    spec = pattern.spec
    raw, start = _raw_value(m, text)
    kind = written(m, "kind", text)  # as the turn writes it: 貓 in a Traditional turn
    traditional = m.string != text
    if raw is None and spec.value:  # a constant value ("谈恋爱了": 恋爱中), in the turn's script
        raw = _constant_as_written(spec.value, m, text, lexicons)
        return [
            _slot_value(
                spec,
                subject,
                _with_kind(raw, kind, spec, traditional),
                value_key(spec.value),
                m.span(),
                None,
                times,
                text,
            )
        ]
    if raw is None and kind is None:
        return [_slot_value(spec, subject, "", "", m.span(), None, times, text)] if spec.negate else []
    if raw is not None:
        said = raw  # a reject reads the value with any time it holds (在匯豐最後一日: the last day)
        raw = clean_value(raw if spec.keep_times else cut_before_times(raw, start, times))
        if not raw or (pattern.reject is not None and any(pattern.reject.search(v) for v in {raw, said})):
            return []
    parts = _split(raw, start) if (spec.split_list and raw) else [(raw, start)]
    out = []
    for part, part_start in parts:
        value, key = _resolve_value(part, part_start, kind, spec, entities, lexicons, traditional)
        if value is None:
            continue
        out.append(_slot_value(spec, subject, value, key, m.span(), _qualifier(kind, lexicons), times, text))
    return out


def _constant_as_written(value: str, m: re.Match[str], text: str, lexicons: Lexicons) -> str:
    """A pattern's constant value as the turn writes it: its words where the match says them
    (我們訂婚了: 訂婚), else in Traditional characters when the turn is (已經離婚了: 離異)."""
    at = m.string.find(value, m.start(), m.end())
    if at >= 0:
        return text[at : at + len(value)]
    if m.string == text:
        return value
    return lexicons.to_traditional(value)


def _raw_value(m: re.Match[str], text: str) -> tuple[str | None, int]:
    """The value as written (``m`` may have matched the Simplified copy of a Traditional turn)."""
    for name in ("value", "value2", "value3"):
        if name in m.re.groupindex and m.group(name):
            return text[m.start(name) : m.end(name)], m.start(name)
    return None, -1


def _split(raw: str, start: int) -> list[tuple[str, int]]:
    """Items of a list value; an item that does not read as a thing ("it looks", "was there
    to celebrate us", "especially nature") is dropped rather than stored as a value."""
    parts, pos = [], 0
    for piece in _SPLIT.split(raw):
        offset = raw.find(piece, pos)
        pos = offset + len(piece)
        item = _activity_alone(clean_value(piece))  # "painting together lately" -> "painting together"
        if item and _reads_as_item(item):
            parts.append((item, start + offset))
    return parts


# where, how or with what an activity is done: "making jewelry [out of recycled stuff]"
_ATTACHED = re.compile(r"\s+(?:out of|on|in|at|with|from|through|by|for|about|into|around|during|after|before)\s", re.I)


def _activity_alone(item: str) -> str:
    """An activity too long for an item, without where, how or with what it is done ("playing
    different songs on the piano": playing different songs)."""
    words = item.split()
    if len(words) <= _MAX_ITEM_WORDS or not item.isascii() or not words[0].lower().endswith("ing"):
        return item
    cut = _ATTACHED.search(item, len(words[0]) + 1)
    return item[: cut.start()] if cut else item


def _reads_as_item(item: str) -> bool:
    words = item.split()
    if len(words) > _MAX_ITEM_WORDS or not item.isascii():
        return len(words) <= _MAX_ITEM_WORDS
    if len(words) == 1 and words[0].lower() in _NEEDS_OBJECT:
        return False  # "I love making ..." cut short: "making" is not a thing one likes
    return words[0].lower() not in _NOT_ITEM_START


def _resolve_value(
    raw: str | None,
    start: int,
    kind: str | None,
    spec,
    entities: tuple[Entity, ...],
    lexicons: Lexicons,
    traditional: bool = False,
) -> tuple[str | None, str]:
    kind_key = _qualifier(kind, lexicons)
    if raw is None:  # "I have a cat": the kind is the value
        return kind, kind_key or ""
    if spec.slot == "age":
        number = parse_number(raw)
        return (str(number), str(number)) if number is not None else (None, "")
    inside = entities_in(entities, start, start + len(raw), spec.require_entity)
    if spec.require_entity and not inside:
        return None, ""
    if spec.require_entity or (len(inside) == 1 and value_key(inside[0].text) == value_key(raw)):
        ent = inside[0]
        return _with_kind(ent.text, kind, spec, traditional), ent.key
    term = _term_key(raw, spec.lang, lexicons)
    return _with_kind(raw, kind, spec, traditional), term or value_key(raw)


def _term_key(raw: str, lang: str, lexicons: Lexicons) -> str | None:
    """An activity's or a condition's key ("瑜伽" and "yoga" are one), modifiers dropped
    ("轻度脂肪肝", "mild asthma")."""
    text = lexicons.to_simplified(raw) if lang == "zh" else raw.lower()
    text = re.sub(r"^(?:轻度|重度|慢性|急性|轻微的?|严重的?|mild |severe |chronic |bad |a |an |the )", "", text)
    return lexicons.activities.key(text) or lexicons.conditions.key(text)


def _with_kind(raw: str, kind: str | None, spec, traditional: bool = False) -> str:
    """The value with its kind in brackets, in the turn's script (``traditional``: 最喜歡的顏色)."""
    if not kind:
        return raw
    if spec.lang == "zh":
        favourite = "最喜歡的" if traditional else "最喜欢的"
        return f"{raw}（{kind}）" if spec.slot != "likes" else f"{raw}（{favourite}{kind}）"
    return f"{raw} ({kind})" if spec.slot != "likes" else f"{raw} (favourite {kind})"


def _qualifier(kind: str | None, lexicons: Lexicons) -> str | None:
    if not kind:
        return None
    kind = lexicons.to_simplified(kind)  # 貓 is 猫
    return lexicons.animals.key(kind) or lexicons.relations.key(kind) or value_key(kind)


def _slot_value(spec, subject, value, key, span, qualifier, times, text) -> SlotValue:
    return SlotValue(
        subject=subject,
        slot=spec.slot,
        value=value,
        value_key=key,
        span=span,
        pattern_id=spec.id,
        lang=spec.lang,
        confidence=spec.confidence,
        negated=spec.negate,
        historical=spec.historical,
        ends_only=spec.ends_only,
        framed=spec.framed,
        one_per_kind=spec.one_per_kind and qualifier is not None,
        valid_from=_since(span, times, text),
        qualifier=qualifier,
    )


def _since(span: tuple[int, int], times: Sequence[TimeMention], text: str):
    """ "I have lived here since 2020": the fact holds from the time after since/从/自从."""
    for t in times:
        opens = t.unbounded == "end" or _SINCE.search(text[max(0, t.span[0] - 8) : t.span[0]])
        if span[0] <= t.span[0] <= span[1] + 20 and opens:
            return t.start
    return None


_ZH_NEGATION = re.compile(r"[不没未非别]|差(?:一)?点|险些")


# 我不会离职的, 我们没分手; 差点就辞职了, 险些分手 (it nearly happened: it did not)
_ZH_DENIAL = re.compile(
    r"并?(?:没有|没|不|未|别)(?:会|要|想|打算|准备|说要|说过要|是要)?|差(?:一)?点(?:儿)?(?:就)?|险些"
)


def _denied(m: re.Match[str], pattern: Compiled, st: Statement, search: str) -> bool:
    """Is the ending a Chinese pattern reads (one that says a value ended: 离职, 分手) denied in
    its clause? It is when a negation there stands outside the pattern's own words: taken out,
    the pattern still reads an ending (我不会离职的, 我们没分手, 我沒有要離職啦) — unlike 工作我不干了,
    whose 不 is the ending itself."""
    start, end = min(st.start, m.start()), max(st.end, m.end())
    clause = search[start:end]
    for neg in _ZH_DENIAL.finditer(clause):
        if pattern.regex.search(clause[: neg.start()] + clause[neg.end() :]):
            return True
    return False


def _negated_before_value(m: re.Match[str], st: Statement, search: str) -> bool:
    """Does a Chinese negation stand before the value, in its clause (我不住在北京, 我没养猫)? A
    negation after it belongs to what follows (记岔了，29岁不是27岁: 29 is affirmed). A match
    without a value keeps its clause's negation."""
    if "value" not in m.re.groupindex or m.start("value") < 0:
        return True
    return _ZH_NEGATION.search(search, min(st.start, m.start()), m.start("value")) is not None
