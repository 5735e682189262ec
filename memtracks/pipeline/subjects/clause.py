"""Whom an English clause is about, read from its dependency parse.

A pattern may match a clause without capturing its subject ("He's working as a nurse": the
job pattern starts at "working"; "He got a job as a paramedic" at "job"). Such a match used
to fall back to the speaker, so a fact about someone else became the speaker's. The parse
knows the clause's grammatical subject: the subject of the verb the match hangs from (or of
the verb that one is joined to: "I moved to Denver and work as a nurse"), the noun a
relative clause describes ("my brother, who works as a nurse"), or, for a predicate that
describes its object ("they hired me as a nurse"), that object.

:func:`clause_subject` is pure; :class:`~memtracks.pipeline.subjects.resolver.SubjectResolver`
turns what it finds into a fact's subject.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memtracks.pipeline.nlp import ParsedToken, fronted_clause, opens_sentence

_SUBJECT_DEPS = ("nsubj", "nsubjpass")
_SHARES_SUBJECT = ("xcomp", "conj", "advcl", "pcomp", "ccomp")  # a verb that may take its head's subject
_RELATIVE = frozenset({"who", "that", "which", "whom"})
_OBJECT_PRONOUNS = frozenset({"me", "us", "him", "her", "them"})
_PHRASE_DEPS = frozenset({"det", "poss", "compound", "amod", "appos", "nummod", "case", "punct"})
_MAX_CLIMB = 6


@dataclass(frozen=True)
class ClauseSubject:
    """The subject of a clause: its words, its head word, and whose it is when a possessive
    leads it ("his job": his)."""

    span: tuple[int, int]  # the subject phrase in the turn's text
    head: ParsedToken
    owner: ClauseSubject | None = None  # who leads it with a possessive: "his" of "his job"
    others: tuple[ParsedToken, ...] = ()  # the heads joined to it ("my brother and I": I)


def clause_subject(parsed: Sequence[ParsedToken], start: int, end: int) -> ClauseSubject | None:
    """The subject of the clause a match at ``start:end`` belongs to, or None when the parse
    (only sentences that may state a fact are parsed) names none there."""
    by_i = {t.i: t for t in parsed}
    inside = [t for t in parsed if start <= t.idx < end and t.pos != "PUNCT"]
    if not inside:
        return None
    verb = next((t for t in inside if t.pos in ("VERB", "AUX")), inside[0])
    if verb is inside[0] and verb.pos not in ("VERB", "AUX") and _fragment_opens(parsed, inside):
        return None  # "Scratch Montreal, they postponed the wedding": chat's clause without a verb parsed as one
    for _ in range(_MAX_CLIMB):  # from a noun or an auxiliary up to the verb it hangs from
        if verb.pos in ("VERB", "AUX") and verb.dep not in ("aux", "auxpass"):
            break
        if verb.head == verb.i or verb.head not in by_i:
            break
        verb = by_i[verb.head]
    subject, own_verb = None, verb
    for _ in range(_MAX_CLIMB):
        obj = _described_object(parsed, verb)
        if obj is not None:
            subject = obj
            break
        subject = next((t for t in parsed if t.head == verb.i and t.i != verb.i and t.dep in _SUBJECT_DEPS), None)
        if subject is not None:
            break
        if verb.dep not in _SHARES_SUBJECT or verb.head == verb.i or verb.head not in by_i:
            subject = _leading_name(inside, own_verb)
            break
        if verb.dep == "advcl" and fronted_clause(parsed, verb, by_i[verb.head]):
            return None  # "Picked up an Ioniq yesterday, the Golf is gone": the chat's elided "I"
        verb = by_i[verb.head]
    if subject is None or _interjection(parsed, subject):
        return None
    if subject.lower in _RELATIVE and verb.dep == "relcl" and verb.head in by_i:
        subject = by_i[verb.head]  # "my brother, who works as a nurse": the brother
    others = tuple(t for t in parsed if t.dep == "conj" and _joined_to(by_i, t, subject))
    return ClauseSubject(_phrase(parsed, subject), subject, _owner(parsed, subject), others)


def verb_at(parsed: Sequence[ParsedToken], start: int) -> bool:
    """Is the capitalised word at ``start`` a verb ("Started eating meat again", "Moved back
    to Ohio"): a clause that drops its "I", not one about a person of that name?"""
    token = next((t for t in parsed if t.idx == start), None)
    return token is not None and token.pos == "VERB" and token.text[:1].isupper()


def _leading_name(inside: Sequence[ParsedToken], verb: ParsedToken) -> ParsedToken | None:
    """The name a clause opens with when the parser hung it elsewhere and gave the verb no
    subject ("Still not over that finale, Jonah and Tess got divorced!": Jonah, read as an
    apposition of "finale")."""
    for t in inside:
        if t.i >= verb.i:
            return None
        if t.pos == "PROPN":
            return t
        if t.pos not in ("ADV", "PART", "CCONJ", "INTJ", "PUNCT"):
            return None
    return None


def _fragment_opens(parsed: Sequence[ParsedToken], inside: Sequence[ParsedToken]) -> bool:
    """Does a match with no verb of its own open its sentence and end at a comma (the rest of
    the sentence a clause of its own)?"""
    first, last = inside[0], inside[-1]
    before = [t for t in parsed if t.i < first.i]
    opens = not before or before[-1].text in (".", "!", "?", "\n")
    after = next((t for t in parsed if t.i == last.i + 1), None)
    return opens and after is not None and after.text in (",", ";", "—")


def _joined_to(by_i: dict[int, ParsedToken], token: ParsedToken, head: ParsedToken) -> bool:
    """Is ``token`` a conjunct of ``head`` ("my brother and I", "Jake, Anna and I")?"""
    for _ in range(_MAX_CLIMB):
        if token.head == head.i:
            return True
        nxt = by_i.get(token.head)
        if nxt is None or nxt.dep != "conj" or nxt.i == token.i:
            return False
        token = nxt
    return False


def _interjection(parsed: Sequence[ParsedToken], token: ParsedToken) -> bool:
    """ "Ugh, got diagnosed with ...", "Lol, got a job at Google": a lone word opening the
    sentence and cut off by a comma is an interjection the parser took for the subject."""
    after = next((t for t in parsed if t.i == token.i + 1), None)
    alone = not any(t.head == token.i and t.i != token.i and t.dep != "punct" for t in parsed)
    return opens_sentence(parsed, token) and alone and after is not None and after.text == ","


def _described_object(parsed: Sequence[ParsedToken], verb: ParsedToken) -> ParsedToken | None:
    """ "They hired me as a nurse", "promoted him to manager": a personal pronoun object the
    predicate ("as ...", "to ...") describes is whom the clause says it of."""
    obj = next((t for t in parsed if t.head == verb.i and t.dep == "dobj" and t.lower in _OBJECT_PRONOUNS), None)
    if obj is None:
        return None
    as_phrase = any(t.head == verb.i and t.dep == "prep" and t.lower in ("as", "to") for t in parsed)
    return obj if as_phrase else None


def _phrase(parsed: Sequence[ParsedToken], head: ParsedToken) -> tuple[int, int]:
    """The span of the noun phrase ``head`` heads: its determiners, possessives, compounds and
    appositions ("my brother Jake"), without clauses or attachments."""
    words = {head.i}
    grown = True
    while grown:
        grown = False
        for t in parsed:
            if t.i not in words and t.head in words and t.dep in _PHRASE_DEPS:
                words.add(t.i)
                grown = True
    # a "subject" the parse makes of markup ("**Prune regularly:** Prune your mint"): itself
    members = [t for t in parsed if t.i in words and t.pos != "PUNCT"] or [head]
    first = min(members, key=lambda t: t.idx)
    last = max(members, key=lambda t: t.idx)
    return (first.idx, last.idx + len(last.text))


def _owner(parsed: Sequence[ParsedToken], head: ParsedToken) -> ClauseSubject | None:
    """The possessive leading a noun phrase ("his job", "my sister's trip", "Jake's car")."""
    poss = next((t for t in parsed if t.head == head.i and t.dep == "poss"), None)
    return ClauseSubject(_phrase(parsed, poss), poss) if poss is not None else None
