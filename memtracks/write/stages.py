"""The writer's extraction as a list of stages over one per-turn document.

A :class:`TurnDoc` starts with the turn, its language analysis and whom its "I" is; each
stage of :data:`STAGES` reads what the stages before it wrote and adds its own part, in order:

    entities -> times -> subjects -> statements -> values -> happenings
             -> the assistant's own words set aside -> bare corrections
             -> changes the statement reader finds (to a value named, then to one not named)
             -> names

A stage may end the extraction early (a turn in no language memtracks reads has entities
only; what the assistant says about itself is not the user's), by setting ``doc.done``. The
stages ask the store only through :class:`Sources` (names known for the user, the turns
just before, relatives named before, who speaks in this memory), so they can be read, and
run, without a database. :func:`extract` runs them and returns the :class:`Extraction` the
writer lands on the tracks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Protocol

from memtracks.data.lexicons import Lexicons
from memtracks.pipeline.corrections import BareCorrection, Check, correct_within_turn, find_bare_corrections
from memtracks.pipeline.entities import add_names, extract_entities
from memtracks.pipeline.happenings import extract_happenings
from memtracks.pipeline.nlp import Analysis
from memtracks.pipeline.numerals import counted_number, recount
from memtracks.pipeline.slots import ValueContext, extract_slots
from memtracks.pipeline.statement_reader import NO_SLOT, Reading
from memtracks.pipeline.statements import analyze_statements
from memtracks.pipeline.subjects.resolver import SubjectResolver, earlier_mentions, talks_of_children
from memtracks.pipeline.subjects.topics import asks_about_other
from memtracks.pipeline.text import names_value, sentence_at, sentences, unqualified, value_key
from memtracks.pipeline.timenorm import normalize_time
from memtracks.pipeline.values import check_value
from memtracks.records import Entity, Fact, Happening, SlotValue, TimeMention, Turn
from memtracks.toolkit import Toolkit

_ASKS_ON = re.compile(r"\b(?:he|she|him|her|his)\b", re.IGNORECASE)
_NAMED_SLOTS = {"pets": "pet", "children": "person", "partner": "person", "name": "person", "family": "person"}


class Sources(Protocol):
    """What the stages read from the memory beside the turn (the writer answers from the store)."""

    def known_names(self, user_id: str) -> dict[str, tuple[str, str]]: ...
    def turns_before(self, turn: Turn) -> list[tuple[str, str]]: ...
    def known_relations(self, user_id: str) -> list[tuple[str, str, str]]: ...
    def speakers(self, user_id: str) -> set[str]: ...
    def held_values(self, user_id: str, subject: str, slots: Sequence[str]) -> list[Fact]: ...


@dataclass(frozen=True)
class Extraction:
    """What the language stages found in one turn."""

    entities: tuple[Entity, ...] = ()
    times: tuple[TimeMention, ...] = ()
    values: tuple[SlotValue, ...] = ()
    happenings: tuple[Happening, ...] = ()
    corrections: tuple[BareCorrection, ...] = ()  # bare corrections of what earlier turns said
    check: Check | None = None  # the typed value check, with the turn's parse and entities


@dataclass
class TurnDoc:
    """One turn as the stages read and extend it."""

    turn: Turn
    analysis: Analysis
    subject: str  # whom the turn's "I" is: the speaker, or "assistant"
    toolkit: Toolkit
    sources: Sources
    # written by the stages, in order
    known: dict[str, tuple[str, str]] = field(default_factory=dict)  # names known for the user
    entities: tuple[Entity, ...] = ()
    search: str = ""  # the text the Chinese patterns run on (Traditional read as Simplified)
    times: tuple[TimeMention, ...] = ()
    people: frozenset[str] = frozenset()
    before: list[tuple[str, str]] = field(default_factory=list)  # (subject, text) of the turns just before
    resolver: SubjectResolver | None = None
    statements: Any = ()  # the statement of each clause (pipeline/statements.py)
    values: tuple[SlotValue, ...] = ()
    happenings: tuple[Happening, ...] = ()
    corrections: tuple[BareCorrection, ...] = ()
    check: Check | None = None
    done: bool = False  # a stage ended the extraction
    # the statement reader over clauses (kind -> probability each, and the slot's), with its
    # threshold; None: off
    read: Callable[[list[str]], list[Reading]] | None = None
    min_probability: float = 0.6
    unnamed_min_probability: float = 0.9  # to end a held value the clause does not name
    held: list[Fact] | None = None  # the speaker's values of slots read for change, once asked

    @property
    def lang(self) -> str:
        return self.analysis.primary

    @property
    def said(self) -> str:
        """The turn as the patterns read it (Chinese: Traditional read as Simplified)."""
        return self.search if self.lang == "zh" and self.search else self.analysis.text

    def extraction(self) -> Extraction:
        return Extraction(self.entities, self.times, self.values, self.happenings, self.corrections, self.check)


def find_entities(doc: TurnDoc) -> None:
    """Entities: NER, the entity lexicon and the names already known for the user."""
    assert doc.turn.user_id
    doc.known = doc.sources.known_names(doc.turn.user_id)
    doc.entities = extract_entities(doc.analysis, doc.toolkit.lexicons, {**_held_names(doc), **doc.known})
    if doc.analysis.lang == "other":
        doc.done = True  # a language memtracks does not read: entities only


def find_times(doc: TurnDoc) -> None:
    """Time expressions, resolved against the turn's timestamp."""
    assert doc.turn.timestamp
    lexicons, analysis = doc.toolkit.lexicons, doc.analysis
    doc.search = lexicons.to_simplified(analysis.text) if analysis.primary == "zh" else analysis.text
    doc.times = tuple(
        replace(t, text=analysis.text[t.span[0] : t.span[1]])
        for t in normalize_time(doc.search, doc.turn.timestamp, lang=analysis.lang, time_words=doc.toolkit.time_words)
    )


def find_subjects(doc: TurnDoc) -> None:
    """Whom the turn's statements can be about: the speaker, the people and relatives named
    before, "she" for the one asked about just before; a Chinese clause's topic."""
    turn, lexicons, sources = doc.turn, doc.toolkit.lexicons, doc.sources
    assert turn.user_id
    sources.speakers(turn.user_id).add(turn.speaker)
    doc.people = frozenset(sources.speakers(turn.user_id) - {"user", "assistant"}) | {
        s for s, (_, label) in doc.known.items() if label == "person"
    }
    doc.before = before = sources.turns_before(turn)
    relations = sources.known_relations(turn.user_id)
    earlier = earlier_mentions(before, doc.subject, lexicons, doc.people, relations)
    if doc.lang == "en" and before and before[-1][0] != doc.subject and "?" in before[-1][1]:
        # "How old is Luna?" - "She is five": the pronoun is whoever was asked about; a
        # question that itself says "he" ("What does he do there?") asks on about the same one
        if not _ASKS_ON.search(before[-1][1]):
            earlier = earlier_mentions(before[-1:], doc.subject, lexicons, doc.people, relations)
    parent = doc.lang == "zh" and talks_of_children(
        [doc.search, *(lexicons.to_simplified(t) for s, t in before if s == doc.subject)]
    )
    resolver = SubjectResolver(
        doc.subject,
        lexicons,
        doc.entities,
        doc.people,
        doc.analysis.text,
        earlier=earlier,
        parent=parent,
        tokens=doc.analysis.tokens,
        relatives=tuple(relations),
    )
    if doc.lang == "zh":
        answering = bool(before) and before[-1][0] != doc.subject
        names = doc.people | {s for s, (_, label) in doc.known.items() if label == "pet"}
        answering = answering and asks_about_other(lexicons.to_simplified(before[-1][1]), lexicons, names)
        resolver = resolver.with_topics(doc.search, answering_about_other=answering)
    doc.resolver = resolver


def read_statements(doc: TurnDoc) -> None:
    """Per clause: affirmed, negated or ceased; stated, asked, wished...; past or planned."""
    doc.statements = analyze_statements(
        doc.analysis.text, doc.lang, doc.toolkit.markers, doc.times, doc.analysis.parsed
    )


def find_values(doc: TurnDoc) -> None:
    """Slot values the patterns find, each with its subject and statement."""
    tk, analysis = doc.toolkit, doc.analysis
    assert doc.resolver is not None
    context = ValueContext(doc.statements, analysis.parsed, analysis.tokens, tk.catalogue.kinds, doc.search)
    doc.values = extract_slots(
        analysis.text,
        doc.lang,
        doc.resolver,
        tk.slot_patterns,
        tk.lexicons,
        doc.times,
        {s.name: s.opposite for s in tk.catalogue.slots if s.opposite},
        context,
    )
    if any(v.slot == "pets" and v.subject != doc.subject for v in doc.values):
        _pets_kept_by_the_speaker(doc)
    if doc.lang == "zh" and any(v.slot == "age" and v.subject == doc.subject for v in doc.values):
        _ages_of_pets_are_not_the_speakers(doc)


_SELF_ZH = re.compile(r"我(?![家的们]|養|养)")


def _ages_of_pets_are_not_the_speakers(doc: TurnDoc) -> None:
    """An age said without its subject in a sentence about a pet is the pet's (我家猫叫奶茶，三岁了;
    小米上禮拜走了，十二歲), not the speaker's: the speaker's age is said with 我 or alone."""
    lexicons = doc.toolkit.lexicons
    pets = _pet_names(doc)
    text, sents = doc.search, sentences(doc.analysis.text)
    keep = []
    for v in doc.values:
        if v.slot == "age" and v.subject == doc.subject:
            sent = sentence_at(sents, v.span[0])
            said = text[sent.start : sent.end]
            animal = any(name and name in said for name in (*pets, *lexicons.animals.forms("zh")))
            if animal and not _SELF_ZH.search(text[sent.start : v.span[1]]):
                continue
        keep.append(v)
    doc.values = tuple(keep)


def _pets_kept_by_the_speaker(doc: TurnDoc) -> None:
    """A pet keeps no pet: one said to get a new one (肉鬆多了一個妹妹…叫牠珍奶, "Biscuit has a new
    brother, we adopted Pepper") is the speaker's pet's, so the speaker's."""
    ours = _pet_names(doc)
    doc.values = tuple(
        replace(v, subject=doc.subject)
        if v.slot == "pets" and doc.toolkit.lexicons.to_simplified(v.subject) in ours
        else v
        for v in doc.values
    )


def _pet_names(doc: TurnDoc) -> set[str]:
    """The speaker's pets' names (in Simplified): held, or named as the speaker's in this turn."""
    simplified = doc.toolkit.lexicons.to_simplified
    held = {simplified(unqualified(f.value)) for f in _held(doc) if f.slot == "pets" and not f.negated}
    return held | {
        simplified(unqualified(v.value)) for v in doc.values if v.slot == "pets" and v.subject == doc.subject
    }


def find_happenings(doc: TurnDoc) -> None:
    """Trips, moves, new jobs, appointments... with their time."""
    analysis = doc.analysis
    assert doc.resolver is not None
    doc.happenings = extract_happenings(
        analysis.text,
        doc.lang,
        doc.resolver,
        doc.toolkit.happening_patterns,
        doc.times,
        doc.statements,
        analysis.parsed,
        doc.search,
        said_at=doc.turn.timestamp,
    )


def set_aside_the_assistant(doc: TurnDoc) -> None:
    """The agent's "I" is not the user: keep only what it says about others, and stop."""
    if doc.subject != "assistant":
        return
    doc.values = tuple(v for v in doc.values if v.subject != doc.subject)
    doc.happenings = tuple(h for h in doc.happenings if h.subject != doc.subject)
    doc.entities = add_names(doc.analysis.text, doc.entities, names_of(doc.values, doc.happenings))
    doc.done = True


def find_corrections(doc: TurnDoc) -> None:
    """Bare corrections ("sorry, I meant Tuesday", 不对，是周二): those of a value of this turn
    are applied here; those of earlier turns are kept for the fact stage."""
    analysis, tk = doc.analysis, doc.toolkit
    bare = find_bare_corrections(
        analysis.text,
        doc.lang,
        tk.bare_corrections,
        doc.times,
        doc.entities,
        doc.search if doc.lang == "zh" else None,
        claimed=[v.span for v in doc.values] + [h.span for h in doc.happenings],
    )
    doc.check = value_check(analysis, doc.entities, tk.lexicons)
    doc.values, doc.happenings, doc.corrections = correct_within_turn(
        bare, doc.values, doc.happenings, tk.catalogue.kinds, doc.subject, doc.check
    )


_TYPED = ("place", "org", "car")  # the value types the reader may find a new value of, by type


def read_changes(doc: TurnDoc) -> None:
    """Change in words no rule lists: a stated clause that names a value the speaker holds now
    (or plans) of a slot read for change (``rules/slots.yaml``: a car, a partner, a pet, an
    employer... not tastes or aims), which no rule read, goes to the statement reader with its
    sentence; when it finds the clause or the sentence ends or replaces that value ("Sold the
    Civic last weekend", "Dan and I are getting divorced", 我对花生不过敏了) or calls off the
    plan, and the clause does not state it, the value ends (a negation that ends it and is no
    fact itself). The rules found every value and time; the reader only decides what the
    clause does with the one it names. A sentence that says so in one of the slot's endings
    (``lexicons/statements.yaml``: "the Pacifica is a write-off", 芝士没醒过来) ends it without
    the reader, which may read such a clause as stating something of the value."""
    if doc.subject == "assistant" or not doc.statements:
        return
    held = _held(doc)
    if not held:
        return
    text = doc.said
    sents = sentences(doc.analysis.text)
    found: list[tuple[Any, str, str, list[Fact], tuple[int, int]]] = []
    ended: list[SlotValue] = []
    for st in doc.statements:
        if not st.states:
            continue  # asked, wished, imagined: it ends nothing
        said = (text[st.start : st.end], doc.analysis.text[st.start : st.end])  # as read and as written
        named = [f for f in held if any(_names(clause, f) or _stands_for(doc, clause, f) for clause in said)]
        named = [f for f in named if not _read_by_rules(doc.values, st, f)]
        if named:
            sent = sentence_at(sents, st.start)
            worded = [f for f in named if _ended_in_words(doc, st, f, (sent.start, sent.end))]
            for f in (f for f in worded if not _among(f, ended)):
                # what takes its place in the same sentence ("退租了，现在在珠海租了个两居")
                new = _replacement(doc, f, (sent.start, sent.end), 0.85)
                ended += [_ends(doc, f, st, "ends.worded", 0.85), *([new] if new else [])]
            named = [f for f in named if f not in worded]
        if named and doc.read is not None:
            clause, whole = (
                doc.analysis.text[st.start : st.end].strip(),
                doc.analysis.text[sent.start : sent.end].strip(),
            )
            found.append((st, clause, whole, named, (sent.start, sent.end)))
    if doc.read is not None:
        ended += _replaced_after_rules(doc, held, sents)
    if not found or doc.read is None:
        doc.values = (*doc.values, *ended)
        return
    denials = {id(st): _affirmed(doc, st) for st, *_ in found if st.polarity == "negated"}
    texts = list(
        dict.fromkeys([t for _, clause, whole, _, _ in found for t in (clause, whole)] + list(denials.values()))
    )
    read = dict(zip(texts, doc.read(texts), strict=True))
    for st, clause, whole, named, sentence in found:
        denial = denials.get(id(st))
        if denial and _ending(read[denial]) >= doc.min_probability:
            continue  # the negation denies an ending ("I didn't sell the Duster in the end")
        # the clause, and its sentence ("…totalled my Fit, so I'm carless"): how likely each
        # ends what it names (ends, replaces, or calls off a plan); a clause that states it
        # ("…but I still drive my Civic") ends nothing whatever its sentence does — stating
        # something else of it (年糕上个月查出肾衰竭，没撑过去) weighs less than the ending
        plan = all(f.planned for f in named)
        readings = [read[clause], read[whole]]
        endings = [k["ends"] + k["replaces"] + (k["cancels"] if plan else 0.0) for k in readings]
        kinds = readings[0] if endings[0] >= endings[1] else readings[1]
        ending = max(endings)
        if ending < doc.min_probability or readings[0]["states"] >= max(0.5, ending):
            continue
        if endings[1] > endings[0] and readings[0]["states"] >= 0.5 and _of_another_slot(readings[1], named):
            continue  # the clause states it, its sentence ends something else ("Priya and I are finally under one roof, I gave up the Fresno flat")
        if readings[1]["not_asserted"] >= 0.5:
            continue  # the sentence as a whole asks or imagines (栗子今天不吃东西，是不是病了？)
        kind = max(("ends", "replaces", "cancels"), key=kinds.__getitem__)
        ended += [_ends(doc, f, st, f"reader.{kind}", ending) for f in named]
        if kind == "replaces":
            ended += [v for f in named if (v := _replacement(doc, f, sentence, ending)) is not None]
    doc.values = (*doc.values, *ended)


def _replaced_after_rules(doc: TurnDoc, held: Sequence[Fact], sents: Sequence[Any]) -> list[SlotValue]:
    """A rule read the end of a held value ("离开台积电", "Left Deloitte") and its sentence goes on
    to the new one in words no rule lists (…之后去了联发科, "…and went to KPMG"): when the reader
    finds the clause or the sentence replacing it, the one other value of its type there takes
    its place (see :func:`_replacement`)."""
    assert doc.read is not None
    out: list[SlotValue] = []
    for v in doc.values:
        fact = next(
            (
                f
                for f in held
                if (v.negated or v.historical) and (f.subject, f.slot, f.value_key) == (v.subject, v.slot, v.value_key)
            ),
            None,
        )
        st = next((s for s in doc.statements if s.start <= v.span[0] < s.end), None)
        if fact is None or st is None or not st.states or fact.planned:
            continue
        sent = sentence_at(sents, st.start)
        texts = [doc.analysis.text[st.start : st.end].strip(), doc.analysis.text[sent.start : sent.end].strip()]
        replaces = max(r["replaces"] for r in doc.read(texts))
        if replaces >= doc.min_probability:
            new = _replacement(doc, fact, (sent.start, sent.end), replaces)
            out += [new] if new is not None and not _among(new, out) else []
    return out


def set_aside_passing(doc: TurnDoc) -> None:
    """A value said in a clause that says it is had for a while, not owned (the slot's
    ``passing`` words in ``lexicons/statements.yaml``: "Test drove a Polestar 2", 借咗老豆架平治嚟揸,
    试驾了问界M7) is no value of the slot: whichever rule or reading found it, it is set aside."""
    lang = "zh" if doc.lang == "zh" else "en"
    text = doc.said

    def passing(v: SlotValue) -> bool:
        if v.negated or v.ends_only:
            return False
        st = next((s for s in doc.statements if s.start <= v.span[0] < s.end), None)
        clause = text[st.start : st.end] if st is not None else text[v.span[0] : v.span[1]]
        return bool(doc.toolkit.passing.find(v.slot, lang, clause))

    doc.values = tuple(v for v in doc.values if not passing(v))


def set_aside_rumours(doc: TurnDoc) -> None:
    """What someone else tells of the speaker, in a turn where the speaker denies it ("my aunt
    told the whole family I quit Costco. I did NOT", 我姑姑到处说我辞职了，才没有): a value or
    happening said after the telling, in its sentence, is no word of the speaker's and is set
    aside (``rumours`` in ``lexicons/statements.yaml``), whether it states or ends something."""
    lang = "zh" if doc.lang == "zh" else "en"
    text, rumours = doc.said, doc.toolkit.rumours
    if not rumours.find("denied", lang, text):
        return
    told = []
    for sent in sentences(text):
        for m in rumours.find("told", lang, text[sent.start : sent.end]):
            told.append((sent.start + m.end(), sent.end))

    def rumoured(span: tuple[int, int]) -> bool:
        return any(after <= span[0] < end for after, end in told)

    doc.values = tuple(v for v in doc.values if not rumoured(v.span))
    doc.happenings = tuple(h for h in doc.happenings if not rumoured(h.span))


def _among(item: Fact | SlotValue, values: Sequence[SlotValue]) -> bool:
    """Is the subject's value of ``item`` (a fact held, or a value found) among ``values``?"""
    return any((v.subject, v.slot, v.value_key) == (item.subject, item.slot, item.value_key) for v in values)


def _ends(doc: TurnDoc, fact: Fact, st: Any, origin: str, confidence: float) -> SlotValue:
    """The clause ``st`` ends ``fact`` (a negation that names it and is no fact itself)."""
    return SlotValue(
        subject=fact.subject,
        slot=fact.slot,
        value=fact.value,
        value_key=fact.value_key,
        span=(st.start, st.end),
        pattern_id=origin,
        lang=doc.lang,
        confidence=round(confidence, 3),
        negated=True,
        ends_only=True,
    )


def _ended_in_words(doc: TurnDoc, st: Any, fact: Fact, sentence: tuple[int, int]) -> bool:
    """Does the sentence of a clause naming ``fact`` say, in one of its slot's endings
    (``lexicons/statements.yaml``), that it is over — the clause the speaker's (or the value's
    own: "the Pacifica is a write-off"), not planned, and not denied by a negation outside the
    ending word ("I didn't sell the Duster"; 芝士没醒过来 is no denial)?"""
    if st.planned or fact.planned:
        return False
    said = doc.said
    text = said[sentence[0] : sentence[1]]
    lang = "zh" if doc.lang == "zh" else "en"
    return any(
        _ends_here(doc, st, fact, (sentence[0] + m.start(), sentence[0] + m.end()), lang)
        for m in doc.toolkit.endings.find(fact.slot, lang, text)
        if not _HEDGED[lang].search(text[: m.start()])  # "Biscuit nearly died of boredom", 差点被偷
    )


# an ending word that describes people (坚持不下去的人, 离职的同事): no ending of the speaker's
_OF_OTHERS_ZH = re.compile(
    r"了?的(?:[\u4e00-\u9fff]{0,3}?(?:人|们|朋友|同事|同学|网友|家伙|师傅|员工|前辈|例子)|那些)"
    r"|了?的[^，。！？,.!?]{0,6}?(?:很多|不少|一大堆|好几个)"
)


def _ends_here(doc: TurnDoc, st: Any, fact: Fact, cue: tuple[int, int], lang: str) -> bool:
    """Does the ending word at ``cue`` end ``fact``, named in the clause ``st``?"""
    said = doc.said
    holder = next((s for s in doc.statements if s.start <= cue[0] < s.end), st)
    for clause in {id(st): st, id(holder): holder}.values():
        if not clause.states or clause.planned:
            return False
        rest = (
            said[clause.start : cue[0]] + said[cue[1] : clause.end]
            if clause is holder
            else said[clause.start : clause.end]
        )
        if "negated" in doc.toolkit.markers.found(lang, rest):
            return False
    if lang == "en" and _someone_else(doc, said[holder.start : cue[0]]):
        return False  # "My brother sold his Duster"
    if lang == "zh" and _OF_OTHERS_ZH.match(said, cue[1]):
        return False  # 素食坚持不下去的人很多: the ending describes those people
    span = (holder.start, holder.end)
    who = _who(doc, span)
    if _said_by_speaker(doc, who, span):
        return True
    # said of the value, or of no person and naming it ("the Pacifica is a write-off", 芝士没醒过来,
    # 携程那边被优化了); not of someone else ("My brother sold his Duster")
    clause = said[holder.start : holder.end]
    if _names(who if who is not None else clause, fact) or (who is None and _stands_for(doc, clause, fact)):
        return True
    # the value the topic of the clause naming it, the ending said after it of what it is now
    # (黑糖现在住我表妹家了，……以后就是她的兔子)
    topic = _who(doc, (st.start, st.end)) if holder is not st and cue[0] > st.start else None
    return topic is not None and _names(topic, fact)


def _someone_else(doc: TurnDoc, clause: str) -> bool:
    """Does an English clause speak of another person: a third-person pronoun or a relative
    ("My brother sold his Duster")?"""
    return _others(tuple(doc.toolkit.lexicons.relations.forms("en"))).search(clause) is not None


@lru_cache(maxsize=8)
def _others(relatives: tuple[str, ...]) -> re.Pattern[str]:
    words = "|".join(re.escape(f) for f in sorted(relatives, key=len, reverse=True))
    return re.compile(rf"\b(?:he|she|they|his|her|their|him|them)\b|\b(?:my|our) (?:{words})\b", re.IGNORECASE)


_HEDGED = {
    "en": re.compile(
        r"\b(?:nearly|almost|practically|basically|half|kinda|kind of|sort of|pretty much|as good as)\s+$", re.I
    ),
    "zh": re.compile(r"(?:差点|差一点|几乎|险些|快要?|都快)$"),
}


def _replacement(doc: TurnDoc, fact: Fact, sent: tuple[int, int], confidence: float) -> SlotValue | None:
    """What replaces ``fact`` in the sentence the reader found replacing it: the one other value
    of its slot's type the sentence names — a place for a home, an organisation for an
    employer, a car ("零跑C10开了快两个月了，比之前那台星越L省心多了") — when no rule read one.
    None when the sentence names none or several, the slot holds many values, or the clause
    that names it is not stated as holding now (asked, planned)."""
    catalogue, text = doc.toolkit.catalogue, doc.analysis.text
    kind = catalogue.kinds.get(fact.slot)
    if not catalogue.is_single(fact.slot) or any(
        v.slot == fact.slot and not v.negated and not v.historical for v in doc.values
    ):
        return None
    if kind not in _TYPED:
        return None
    spans = [sp for sp in _typed_spans(doc, kind) if sent[0] <= sp[0] and sp[1] <= sent[1]]
    new = {value_key(text[a:b]): (a, b) for a, b in spans if not _names(text[a:b], fact)}
    if len(new) != 1:
        return None
    ((key, span),) = new.items()
    st = next((s for s in doc.statements if s.start <= span[0] < s.end), None)
    if (
        st is None
        or not st.states
        or st.planned
        or (st.polarity != "affirmed" and not _ceased_before(st, fact, text, span))
        or (doc.check is not None and not doc.check(text[span[0] : span[1]], kind, span))
        or _not_held(doc, fact, st, span)
    ):
        return None
    value = text[span[0] : span[1]]
    return SlotValue(
        subject=fact.subject,
        slot=fact.slot,
        value=value,
        value_key=key,
        span=span,
        pattern_id="reader.replaces.value",
        lang=doc.lang,
        confidence=round(confidence, 3),
        replacement=True,
    )


def _ceased_before(st: Any, fact: Fact, text: str, span: tuple[int, int]) -> bool:
    """The clause's ending is the old value's, named before the new one ("I gave up the Fresno
    apartment and moved into her place in Sacramento", 把Altis卖了换了台RAV4)."""
    return st.polarity == "ceased" and _names(text[st.start : span[0]], fact)


def _not_held(doc: TurnDoc, fact: Fact, st: Any, span: tuple[int, int]) -> bool:
    """Does the reader find the words that name the new value (from its clause's start, or from
    the old value when the clause names both) saying it is not the speaker's now: someone
    else's (以后，我老公去了字节), sought or planned ("Left Google and I'm interviewing at Meta")?"""
    if doc.read is None:
        return False
    text = doc.analysis.text
    start = st.start
    for m in re.finditer(re.escape(unqualified(fact.value)), text[st.start : span[0]]):
        start = st.start + m.end()
    reading = doc.read([text[start : st.end].strip()])[0]
    return reading["not_asserted"] + reading["plans"] >= 0.5


def read_unnamed(doc: TurnDoc) -> None:
    """Change the rules did not read, in a turn that does not name the value held (one that does
    is :func:`read_changes`'s) — said in the speaker's own stated clauses that no rule read, when
    the speaker holds values of slots read for change (``rules/slots.yaml``):

    - a new value ("Home is Valencia now", 总算在合肥安顿下来了, "First week at Mayo done"): a
      present, affirmed clause naming exactly one value of a type — a place, an organisation, a
      car — of which the speaker holds a one-valued slot; when the statement reader finds it
      (or its sentence) states that slot, and the whole sentence holds it, the value becomes
      the slot's new value and the held one ends (a second one, said as added, joins it);
    - an ending ("My contract ran out, the company didn't renew", 车已经过户给别人了): a clause
      not planned, in a sentence all the speaker's that speaks of a one-valued slot of which
      the speaker holds a value (the slot's ``about`` words: company, 车...); when the reader
      finds the clause (or its sentence) ends or replaces that slot, the value ends.

    The rules found the values, their types and how each clause is told; the reader decides
    which slot the clause is about and what it does to it, its kind and its slot both at least
    ``reader_min_probability`` likely (an ending ``reader_unnamed_min_probability``)."""
    if doc.read is None or doc.subject == "assistant" or not doc.statements:
        return
    catalogue = doc.toolkit.catalogue
    held = [f for f in _held(doc) if not f.planned and not any(v.slot == f.slot for v in doc.values)]
    said = doc.said
    held = [f for f in held if not any(_names(t, f) for t in {said, doc.analysis.text})]
    if not held:
        return
    typed = {f.slot: catalogue.kinds[f.slot] for f in held if catalogue.is_single(f.slot)}
    typed = {slot: kind for slot, kind in typed.items() if kind in _TYPED}
    text, sents = doc.analysis.text, sentences(doc.analysis.text)
    # an ending may end the one value held of a slot the sentence speaks of (its ``about`` words)
    about = catalogue.about_patterns
    one = [s for s in {f.slot for f in held} if s in about and sum(f.slot == s for f in held) == 1]
    new: list[tuple[str, list[str], tuple[int, int], bool]] = []  # (value type, texts, value span, added)
    # (clause, its sentence, the clause's span, the clause without its negation)
    told: list[tuple[str, str, tuple[int, int], str | None]] = []
    speakers: dict[int, bool] = {}  # statement start -> is the clause the speaker's (asked once)

    def speakers_clause(o: Any) -> bool:
        if o.start not in speakers:
            speakers[o.start] = _speakers_clause(doc, (o.start, o.end))
        return speakers[o.start]

    for st in doc.statements:
        if st.modality != "stated" or any(
            st.start <= v.span[0] < st.end and v.subject == doc.subject for v in _read_spans(doc)
        ):
            continue  # asked, wished, reported; or a rule read the clause (a value, a move, a new job)
        clause = text[st.start : st.end].strip()
        sent = sentence_at(sents, st.start)
        whole = text[sent.start : sent.end].strip()
        named: list[tuple[str, tuple[int, int]]] = []  # the one new value of each type it names
        if st.polarity == "affirmed" and not st.planned:
            for kind in sorted(set(typed.values())):
                spans = [sp for sp in _typed_spans(doc, kind) if st.start <= sp[0] and sp[1] <= st.end]
                keys = {
                    value_key(text[a:b]): (a, b)
                    for a, b in spans
                    if not any(_names(text[a:b], f) for f in held if typed.get(f.slot) == kind)
                }
                if len(keys) == 1:
                    named += [(kind, span) for span in keys.values()]
        speaks_of = any(about[s].search(w) for s in one for w in {whole, said[sent.start : sent.end]})
        if not named and not speaks_of:
            continue  # nothing the reader could change: no read
        around = [o for o in doc.statements if sent.start <= o.start < sent.end]
        ours = all(speakers_clause(o) for o in around)
        for kind, span in named:
            if _speakers_clause(doc, span, value=True):
                # the clause, and its sentence when all of it is the speaker's ("Just wrapped
                # my first week at Accenture, the onboarding was intense")
                new.append((kind, [clause, whole] if ours else [clause], span, "addition" in st.cues))
        if ours and speaks_of and not any(o.planned for o in around):
            # an ending names nothing to anchor it: its whole sentence must be the speaker's
            # ("Ran into my ex at the dealership, he was trading in his truck" ends nothing),
            # and none of it a plan (下个月去宁德时代上班了，手续都办好了: the new job's paperwork)
            told.append((clause, whole, (st.start, st.end), _affirmed(doc, st) if st.polarity == "negated" else None))
    texts = list(
        dict.fromkeys([t for _, seen, _, _ in new for t in seen] + [t for c, w, _, a in told for t in (c, w, a) if t])
    )
    if not texts:
        return
    read = dict(zip(texts, doc.read(texts), strict=True))
    found: list[SlotValue] = []
    for kind, read_as, span, adds in new:
        value = _new_value(doc, [read[t] for t in read_as], kind, typed, span, adds)
        if value is not None and not any(v.slot == value.slot for v in found):
            found.append(value)
    for clause, whole, span, affirmed in told:
        if affirmed and _ending(read[affirmed]) >= doc.min_probability:
            continue  # the negation denies an ending (我们没分手, "we didn't break up")
        found += _ended(doc, [read[clause], read[whole]], held, found, span)
    doc.values = (*doc.values, *found)


def _read_spans(doc: TurnDoc) -> list[SlotValue | Happening]:
    """What the rules read in the turn: its values and happenings."""
    return [*doc.values, *doc.happenings]


def _ending(reading: Reading) -> float:
    return reading["ends"] + reading["replaces"]


def _of_another_slot(reading: Reading, named: Sequence[Fact]) -> bool:
    """The reading is, likely enough, about a slot none of ``named`` is of."""
    slot, p = reading.slot()
    return slot != NO_SLOT and p >= 0.5 and all(f.slot != slot for f in named)


def _affirmed(doc: TurnDoc, st: Any) -> str:
    """A negated clause with its negation taken out: when that ends something too, the
    negation denies the ending (我们没分手); when it does not, the negation is the ending (公司
    没跟我续签: the contract not renewed)."""
    said = doc.said
    lang = "zh" if doc.lang == "zh" else "en"
    return doc.toolkit.markers.without(lang, "negated", said[st.start : st.end]).strip()


_HELD_LABELS = {"place": "place", "org": "org"}  # value kinds whose held values are names


def _held_names(doc: TurnDoc) -> dict[str, tuple[str, str]]:
    """The place, firm or school the speaker holds, as a name the turn may say again ("I work
    at Peloton" ... "Peloton let me go": the recogniser may not know it for a firm): a Latin
    name as written (Apple is no apple), a Chinese one as it is."""
    kinds = doc.toolkit.catalogue.kinds
    names = {}
    for f in _held(doc):
        label = _HELD_LABELS.get(kinds.get(f.slot, ""))
        surface = unqualified(f.value).strip()
        if label and surface and not f.planned and (not surface.isascii() or surface in doc.analysis.text):
            names[surface] = (f.value_key, label)
    return names


def _held(doc: TurnDoc) -> list[Fact]:
    """What the speaker holds now or plans of the slots read for change (asked once a turn)."""
    if doc.held is None:
        assert doc.turn.user_id
        readable = sorted(doc.toolkit.catalogue.read_for_change)
        found = doc.sources.held_values(doc.turn.user_id, doc.subject, readable)
        doc.held = [f for f in found if not f.negated]
    return doc.held


def _stands_for(doc: TurnDoc, text: str, fact: Fact) -> bool:
    """Does ``text`` speak of ``fact`` by a word standing for the one value the speaker holds:
    its slot's ``referents`` ("the car", 车子卖掉了) or, for a pet, its kind (黑糖（兔子）: 兔子, "the
    cat")? Only when the speaker holds no other such value now."""
    lang = "zh" if doc.lang == "zh" else "en"
    search = doc.toolkit.lexicons.to_simplified(text) if lang == "zh" else text
    same = [f for f in _held(doc) if f.slot == fact.slot and not f.planned]
    rx = doc.toolkit.catalogue.referent_patterns.get((fact.slot, lang))
    if rx is not None and len(same) == 1 and rx.search(search):
        return True
    kind = _kind_of(fact.value)
    if not kind or doc.toolkit.catalogue.kinds.get(fact.slot) != "pet":
        return False
    if sum(_kind_of(f.value) == kind for f in same) != 1:
        return False
    if lang == "en":
        return re.search(rf"\b(?:my|the|our) {re.escape(kind)}\b", text, re.IGNORECASE) is not None
    kind = doc.toolkit.lexicons.to_simplified(kind)
    return re.search(rf"(?:^|(?<=[，。！？,.!?\s]))(?:我的|我家|我们家)?{re.escape(kind)}", search) is not None


def _kind_of(value: str) -> str:
    """The kind in brackets after a value ("Mochi (cat)": cat, 黑糖（兔子）: 兔子), or ""."""
    m = re.search(r"\((.+?)\)$|（(.+?)）$", value.strip())
    return (m.group(1) or m.group(2)) if m else ""


def _names(text: str, fact: Fact) -> bool:
    """Does ``text`` name the fact's value, as said or by its key (南京 or nanjing)?"""
    return names_value(text, fact.value) or names_value(text, fact.value_key)


def _new_value(
    doc: TurnDoc, readings: list[Reading], kind: str, typed: dict[str, str], span: tuple[int, int], adds: bool
) -> SlotValue | None:
    """The value at ``span`` as the new value of the slot the reader finds the clause (or its
    sentence) states — the first reading that states, of a slot of the value's type, both
    likely enough, when the widest reading (the sentence, when all of it is the speaker's)
    holds it too ("I'm in Tokyo now, heading home tomorrow" is a trip); beside the held one
    when the clause says it adds ("picked up a second job at X as well"). A clause read as
    replacing, not stating, adds no value it does not name the old one of ("Had a coffee chat
    with a recruiter from Accenture")."""
    if readings[-1]["states"] + readings[-1]["replaces"] < doc.min_probability:
        return None
    likely = [
        (slot, min(p_slot, r["states"]))
        for r in readings
        for slot, p_slot in [r.slot()]
        if typed.get(slot) == kind and min(p_slot, r["states"]) >= doc.min_probability
    ]
    if not likely:
        return None
    slot, confidence = likely[0]
    value = doc.analysis.text[span[0] : span[1]]
    if doc.check is not None and not doc.check(value, kind, span):
        return None
    return SlotValue(
        subject=doc.subject,
        slot=slot,
        value=value,
        value_key=value_key(value),
        span=span,
        pattern_id=f"reader.{slot}",
        lang=doc.lang,
        confidence=round(confidence, 3),
        replacement=not adds,
        additive=adds,
    )


def _ended(
    doc: TurnDoc, readings: list[Reading], held: list[Fact], found: list[SlotValue], span: tuple[int, int]
) -> list[SlotValue]:
    """The one held value of the slot a clause (or its sentence) ends, by the reader: the
    likelier ending of the two, and the likelier slot."""
    ending = max(_ending(r) for r in readings)
    slot, p_slot = max((r.slot() for r in readings), key=lambda sp: sp[1])
    values = [f for f in held if f.slot == slot]
    if len(values) != 1 or p_slot < doc.min_probability or ending < doc.unnamed_min_probability:
        return []
    if any(v.slot == slot for v in found):
        return []  # a new value of the slot: it ends the held one itself
    (fact,) = values
    return [
        SlotValue(
            subject=fact.subject,
            slot=fact.slot,
            value=fact.value,
            value_key=fact.value_key,
            span=span,
            pattern_id="reader.ends.unnamed",
            lang=doc.lang,
            confidence=round(min(p_slot, ending), 3),
            negated=True,
            ends_only=True,
        )
    ]


def _typed_spans(doc: TurnDoc, kind: str) -> list[tuple[int, int]]:
    """Where the turn names a value of ``kind``: a place or an organisation its entities found,
    a car the vehicle lexicon knows."""
    if kind == "car":
        return doc.toolkit.lexicons.vehicles.cars_in(doc.said, doc.lang)
    return [e.span for e in doc.entities if e.label == kind]


def _speakers_clause(doc: TurnDoc, span: tuple[int, int], value: bool = False) -> bool:
    """Is the clause around ``span`` (a clause, or a ``value`` in one) the speaker's — said of
    "I", of no one (the chat's dropped subject), or of the value itself ("Home is Valencia
    now") — not another person's?"""
    return _said_by_speaker(doc, _who(doc, span, value), span, value)


def _said_by_speaker(doc: TurnDoc, who: str | None, span: tuple[int, int], value: bool = False) -> bool:
    """:func:`_speakers_clause` for a clause whose subject ``who`` is already known."""
    if who in ("", doc.subject):
        return True
    # done to the speaker by someone unnamed ("They let me go", 公司把我优化了): the speaker's;
    # by someone named or known (my sister, 我朋友), theirs
    return not value and who is None and _SELF.search(doc.analysis.text[span[0] : span[1]]) is not None


def _who(doc: TurnDoc, span: tuple[int, int], value: bool = False) -> str | None:
    """Whom the clause around ``span`` is said of: "" (no one named: the speaker), a subject,
    or None (no person)."""
    assert doc.resolver is not None
    if doc.lang == "zh":
        return doc.resolver.without_subject(span[0])
    match = (_VALUE if value else _CLAUSE).match(doc.analysis.text, *span)
    assert match is not None
    return doc.resolver.clause_subject(match, doc.analysis.parsed)


_VALUE, _CLAUSE = re.compile(r"(?P<value>.+)", re.DOTALL), re.compile(r".+", re.DOTALL)
_SELF = re.compile(r"\b(?:me|my|us|our|myself)\b|我(?!们的|們的)", re.IGNORECASE)


def _read_by_rules(values: Sequence[SlotValue], st: Any, fact: Fact) -> bool:
    """Did a rule already read the clause's word on the fact's slot, or read in it a value the
    fact's subject now holds ("Anna and I got married": married, and Anna no one's past)?"""
    return any(
        st.start <= v.span[0] < st.end and (v.slot == fact.slot or (v.subject == fact.subject and not v.negated))
        for v in values
    )


_MULTIPLES = {"twins": 2, "双胞胎": 2, "龙凤胎": 2, "triplets": 3, "三胞胎": 3}


def count_births(doc: TurnDoc) -> None:
    """A child born to the speaker adds to the children the speaker is known to have ("I've
    got one kid" ... "The twins arrived!": three kids; 兩個小孩 ... 老三出生了: 三個小孩), unless the
    turn says how many itself."""
    births = [
        h
        for h in doc.happenings
        if h.kind == "birth" and h.subject == doc.subject and not h.planned and h.status == "active"
    ]
    if not births or any(v.slot == "number_of_children" for v in doc.values):
        return
    assert doc.turn.user_id
    held = [
        f
        for f in doc.sources.held_values(doc.turn.user_id, doc.subject, ["number_of_children"])
        if not (f.negated or f.planned)
    ]
    count = counted_number(held[0].value) if len(held) == 1 else None
    start = births[0].start
    if count is None or (held[0].origin.endswith("+count") and start is not None and held[0].valid_from >= start):
        return  # no count known, or this birth already counted (told again, it adds nothing)
    born = sum(_MULTIPLES.get(doc.toolkit.lexicons.to_simplified(h.args.get("kind", "")), 1) for h in births)
    value = recount(held[0].value, count + born)
    if value is None:
        return
    span = births[0].span
    doc.values = (
        *doc.values,
        SlotValue(
            subject=doc.subject,
            slot="number_of_children",
            value=value,
            value_key=value_key(value),
            span=span,
            pattern_id=f"{births[0].pattern_id}+count",
            lang=doc.lang,
            confidence=0.8,
            valid_from=births[0].start,
        ),
    )


def add_new_names(doc: TurnDoc) -> None:
    """Names of pets and people the turn introduces become entities of the turn."""
    doc.entities = add_names(doc.analysis.text, doc.entities, names_of(doc.values, doc.happenings))


Stage = Callable[[TurnDoc], None]
STAGES: tuple[Stage, ...] = (
    find_entities,
    find_times,
    find_subjects,
    read_statements,
    find_values,
    find_happenings,
    set_aside_the_assistant,
    find_corrections,
    read_changes,
    read_unnamed,
    set_aside_passing,
    set_aside_rumours,
    count_births,
    add_new_names,
)


def extract(doc: TurnDoc, stages: tuple[Stage, ...] = STAGES) -> Extraction:
    """Run ``stages`` over ``doc`` in order until one ends it; what they found."""
    for stage in stages:
        stage(doc)
        if doc.done:
            break
    return doc.extraction()


def names_of(values: Sequence[SlotValue], happenings: Sequence[Happening]) -> list[tuple[str, str, str]]:
    """Names of pets and people the turn introduces: ``(surface, key, label)``."""
    names = []
    for v in values:
        label = _NAMED_SLOTS.get(v.slot)
        if label and v.value and not v.negated and (v.qualifier is not None or v.slot in ("partner", "name")):
            surface = unqualified(v.value).strip()
            if surface and surface.lower() not in ("a", "an", "the"):
                names.append((surface, v.value_key, label))
    for h in happenings:
        if h.args.get("name"):
            names.append((h.args["name"], h.args["name"].lower(), "person"))
    return names


def value_check(analysis: Analysis, entities: tuple[Entity, ...], lexicons: Lexicons) -> Check:
    """The typed value check (:mod:`memtracks.pipeline.values`) with the turn's own parse."""
    lang = "zh" if analysis.primary == "zh" else "en"

    def check(value: str, kind: str, span: tuple[int, int]) -> bool:
        text, parsed, tokens = analysis.text, analysis.parsed, analysis.tokens
        return check_value(value, kind, lang, span, text, entities, parsed, tokens, lexicons=lexicons) is None

    return check


__all__ = ["STAGES", "Extraction", "Sources", "Stage", "TurnDoc", "extract", "names_of", "value_check"]
