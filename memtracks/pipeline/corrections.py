"""Bare corrections: "Actually, I meant Cambridge", "sorry, I meant Tuesday", 不对，是杭州.

A bare correction gives only the right value, with no slot word; what it corrects is the
most recent value of a compatible kind that the same speaker said, in the turn or the turns
just before it: a place corrects a place ("I live in Boston." → "I meant Cambridge"), a
number a number (an age), a time a dated happening or a date ("my appointment is on Monday"
→ "sorry, I meant Tuesday"). "Cambridge, not Boston" names the value it rejects, and only a
value with that key is corrected. With nothing compatible nearby, the sentence corrects
nothing: precision first.

:func:`find_bare_corrections` finds the sentences (regexes in ``lexicons/statements.yaml``,
section ``bare_corrections``); :func:`pick_target` chooses what one corrects among the
candidates the writer gathers (both pure).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from memtracks.pipeline.language import has_han
from memtracks.pipeline.numerals import counted_number
from memtracks.pipeline.text import clean_value, names_part, sentences, value_key, whole_words
from memtracks.records import Entity, Event, Fact, Happening, SlotValue, TimeMention

_MAX_WORDS = 5
# the kinds of slot value an entity label can be (rules/slots.yaml value_type)
_LABEL_KINDS = {
    "place": {"place"},
    "org": {"org"},
    "person": {"person", "pet"},
    "pet": {"pet", "person"},
    "product": {"product", "car"},
    "language": {"language"},
}
_CLAUSE_BREAK = re.compile(r"[,;:，；：]\s*|\s+-+\s+")
_WEEKDAY = re.compile(
    r"^(?:on )?(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?$|^(?:周|星期|礼拜)[一二三四五六日天]$",
    re.IGNORECASE,
)
_SYMBOLS_AFTER = re.compile(r"[^\w\s)）]+$")  # an emoji or a marker after a value: "Pistachio*", 糯米🤣
_QUALIFIED = re.compile(r"^(?P<value>.+?)(?P<qualifier> \([^()]+\)|（[^（）]+）)$")


@dataclass(frozen=True)
class BareCorrection:
    """A sentence that gives only the right value."""

    value: str  # as written
    span: tuple[int, int]  # of the value in the turn's text
    rejected: str | None = None  # "Cambridge, not Boston": "Boston"
    time: TimeMention | None = None  # the value is a time ("Tuesday", 周二)
    number: int | None = None  # the value is a number ("43", 四十三岁)
    label: str | None = None  # the value's entity label, if it is a named entity
    key: str = ""  # the value's comparison key (an entity's key where known)
    rejected_entity: str | None = None  # the rejected value's entity key, where it is one


@dataclass(frozen=True)
class Candidate:
    """Something said earlier that a bare correction may correct.

    ``kind`` is the slot's value kind, or "time" for a dated happening; ``recency`` orders
    candidates (larger = said later). It is the turn's own value or happening number
    ``index`` (``event`` and ``fact`` None), a stored ``fact``, or happening ``index`` of an
    earlier ``event``."""

    kind: str
    value: str
    value_key: str
    recency: tuple[int, int]
    index: int = -1
    fact: Fact | None = None
    event: Event | None = None


def find_bare_corrections(
    text: str,
    lang: str,
    patterns: dict[str, tuple[re.Pattern[str], ...]],
    times: Sequence[TimeMention] = (),
    entities: Sequence[Entity] = (),
    search: str | None = None,
    claimed: Sequence[tuple[int, int]] = (),
) -> tuple[BareCorrection, ...]:
    """The bare corrections of ``text`` (pure). ``claimed``: spans slot patterns already
    matched — a correction whose words hold a slot value of their own is not bare (what a
    later clause of its sentence states is another matter: "說錯了，是韓文啦，去交換的是首爾")."""
    search = search if search is not None else text
    out = []
    for sent in sentences(text):
        if sent.question:
            continue
        # the whole sentence, or its tail from a clause on ("on Friday, no wait, I meant Thursday")
        starts = [sent.start] + [m.end() for m in _CLAUSE_BREAK.finditer(search, sent.start, sent.end)]
        for start in starts:
            found = _match(search, text, start, sent.end, patterns.get(lang, ()), times, entities)
            if found is not None and not any(start <= s < found.span[1] for s, _ in claimed):
                out.append(found)
                break
    return tuple(out)


def _match(search, text, start, end, patterns, times, entities) -> BareCorrection | None:
    piece = search[start:end].strip()
    offset = start + search[start:end].find(piece)
    for rx in patterns:  # the first pattern that reads a value: one that matches but finds none gives way
        m = rx.match(piece)
        if m is not None and (found := _correction(m, offset, text, times, entities)) is not None:
            return found
    return None


def _correction(
    m: re.Match[str], offset: int, text: str, times: Sequence[TimeMention], entities: Sequence[Entity]
) -> BareCorrection | None:
    start = offset + m.start("value")
    raw = text[start : offset + m.end("value")]
    value = _SYMBOLS_AFTER.sub("", clean_value(raw))  # "Pistachio* not Pistacio", 糯米🤣
    if not value or len(value.split()) > _MAX_WORDS:
        return None
    start += raw.find(value)
    span = (start, start + len(value))
    rejected = rejected_key = None
    if "rejected" in m.re.groupindex and m.group("rejected"):
        r_start = offset + m.start("rejected")
        rejected = _SYMBOLS_AFTER.sub("", clean_value(text[r_start : offset + m.end("rejected")])) or None
        named = next(
            (e for e in entities if e.span[0] >= r_start and value_key(e.text) == value_key(rejected or "")), None
        )
        rejected_key = named.key if named else None
    time = next((t for t in times if t.span[0] < span[1] and span[0] < t.span[1]), None)
    number = counted_number(re.sub(r"(?:岁|歲|years? old)$", "", value).strip()) if time is None else None
    ent = next((e for e in entities if e.span[0] <= span[0] and span[1] <= e.span[1]), None)
    if ent is None:
        ent = next((e for e in entities if span[0] <= e.span[0] and e.span[1] <= span[1]), None)
        if ent is not None and value_key(ent.text) != value_key(value):
            ent = None
    key = ent.key if ent is not None else (str(number) if number is not None else value_key(value))
    key = _SYMBOLS_AFTER.sub("", key)
    return BareCorrection(value, span, rejected, time, number, ent.label if ent else None, key, rejected_key)


def compatible(correction: BareCorrection, kind: str, check: Callable[[str, str], bool]) -> bool:
    """Can ``correction``'s value be a value of ``kind``? ``check(value, kind)`` is the typed
    value check (:func:`memtracks.pipeline.values.check_value`)."""
    if correction.time is not None:
        return kind in ("time", "date")
    if correction.number is not None:
        return kind == "number"
    if kind in ("time", "date", "number"):
        return False
    if correction.label is not None and correction.label in _LABEL_KINDS:
        return kind in _LABEL_KINDS[correction.label]
    if kind == "pet" and correction.label is None and re.fullmatch(r"[A-Z][\w'-]+", correction.value):
        return check(correction.value, kind)  # "*Baxter": a pet's name the recogniser knows no label for
    if kind in ("place", "org", "person", "pet", "language", "product", "car") and correction.label is None:
        # a Latin place or name is one the entity recogniser sees; a Chinese one often is not
        # (圆通, 糯糯, 南亞科): it must pass the typed check of the slot's kind
        return has_han(correction.value) and check(correction.value, kind)
    return check(correction.value, kind)


def rejected_key(correction: BareCorrection) -> str | None:
    if correction.rejected is None:
        return None
    if correction.rejected_entity:
        return correction.rejected_entity
    number = counted_number(re.sub(r"(?:岁|歲|years? old)$", "", correction.rejected).strip())
    return str(number) if number is not None and correction.number is not None else value_key(correction.rejected)


def pick_target(
    correction: BareCorrection, candidates: Sequence[Candidate], check: Callable[[str, str], bool]
) -> Candidate | None:
    """The most recent candidate ``correction`` can correct, or None."""
    rejected = rejected_key(correction)
    for cand in sorted(candidates, key=lambda c: c.recency, reverse=True):
        base = _QUALIFIED.match(cand.value)
        own_key = value_key(base.group("value")) if base else cand.value_key
        count = counted_number(cand.value) if cand.kind == "number" else None
        keys = (cand.value_key, own_key, str(count) if count is not None else own_key)
        if correction.key in keys and correction.time is None:
            continue  # saying the same value again corrects nothing
        if rejected is not None:
            named = rejected in keys or (cand.kind == "car" and names_part(rejected, cand.value_key))
            if named or (cand.kind == "time" and _same_time_words(rejected, cand)):
                # a number is put right by a number ("I'm 34, not 43, I'm not that old yet"), a
                # name by a name ("not Rufus, my phone hates his name" names no dog)
                if cand.kind == "number":
                    return cand if correction.number is not None else None
                typed = cand.kind != "time" and correction.time is None
                return None if typed and not (_a_name(correction) or check(correction.value, cand.kind)) else cand
            continue
        if compatible(correction, cand.kind, check):
            return cand
    return _misread_name(correction, candidates, check) if rejected is None else None


def _a_name(correction: BareCorrection) -> bool:
    """Is the value a name, whatever the recogniser took it for ("Batley not Bath": a firm)?"""
    return (
        correction.label is not None
        or re.fullmatch(r"[A-Z][\w'&-]*(?: [A-Z][\w'&-]*){0,3}", correction.value) is not None
    )


# the recogniser's labels for a lone capitalised name are often swapped ("I meant Porto": person)
_NAME_KINDS = frozenset({"place", "org", "person"})


def _misread_name(
    correction: BareCorrection, candidates: Sequence[Candidate], check: Callable[[str, str], bool]
) -> Candidate | None:
    """When no candidate takes the value as labelled, a lone Latin name labelled a place, a firm
    or a person may still correct the most recent value of another of those kinds that it
    passes the typed check of ("I live in Lisbon" … "I meant Porto", Porto read as a person)."""
    value = correction.value.strip()
    if correction.label not in _NAME_KINDS or not re.fullmatch(r"[A-Z][\w'-]+", value):
        return None
    for cand in sorted(candidates, key=lambda c: c.recency, reverse=True):
        if cand.kind in _NAME_KINDS and correction.key != cand.value_key:
            return cand if check(value, cand.kind) else None
    return None


def _same_time_words(rejected: str, cand: Candidate) -> bool:
    """Does a rejected time ("Tuesday", 周三) name the time a dated happening was said with
    ("next Tuesday", 下周三)?"""
    said = cand.value_key or cand.value.lower()
    return bool(said) and bool(rejected) and (rejected in said or said in rejected)


def corrected_value(correction: BareCorrection, target: Candidate) -> tuple[str, str]:
    """The new value and key for ``target``: a qualifier it carried ("Luna (cat)") stays."""
    if correction.number is not None:
        said = counted_number(target.value)
        if said is None or target.value.strip() == str(said):  # a number alone (an age)
            return str(correction.number), str(correction.number)
        if " " in correction.value.strip() or not target.value.strip().count(" "):  # "two kids"
            return correction.value, value_key(correction.value)
        rest = target.value.strip().split(" ", 1)[1]  # "three kids" corrected by "two": two kids
        return f"{correction.value} {rest}", value_key(f"{correction.value} {rest}")
    m = _QUALIFIED.match(target.value)
    if m and correction.time is None:
        return correction.value + m.group("qualifier"), correction.key
    if target.kind == "car" and correction.rejected and correction.time is None:
        # "I mean Sportage, not Sorento" of a Kia Sorento: the model is put right, the make stays
        whole = _replace_part(target.value, correction.rejected, correction.value)
        if whole is not None:
            return whole, value_key(whole)
    return correction.value, correction.key


def _replace_part(value: str, part: str, new: str) -> str | None:
    """``value`` with the words ``part`` replaced by ``new`` ("Kia Sorento", "Sorento",
    "Sportage": "Kia Sportage"; 丰田卡罗拉, 卡罗拉, 凯美瑞: 丰田凯美瑞); None when ``part`` is
    not a part of it."""
    m = re.search(whole_words(part), value, re.IGNORECASE)
    if m is None or m.group() == value:
        return None
    return value[: m.start()] + new + value[m.end() :]


def redated(time: TimeMention, original: datetime | None) -> TimeMention:
    """A bare weekday correcting a dated happening ("Monday" → "I meant Tuesday") is the
    occurrence nearest to the date it corrects, not to the day it was said."""
    if original is None or time.granularity != "day" or not _WEEKDAY.match(time.text.strip()):
        return time
    weeks = round((original - time.start) / timedelta(days=7))
    shift = timedelta(days=7 * weeks)
    return replace(time, start=time.start + shift, end=time.end + shift)


Check = Callable[[str, str, tuple[int, int]], bool]  # (value, kind, span) -> well formed?
BARE_PATTERN = "correction.bare"


def correct_within_turn(
    bare: Sequence[BareCorrection],
    values: tuple[SlotValue, ...],
    happenings: tuple[Happening, ...],
    kinds: dict[str, str],
    subject: str,
    check: Check,
) -> tuple[tuple[SlotValue, ...], tuple[Happening, ...], tuple[BareCorrection, ...]]:
    """ "I'm 29. Sorry, I mean 28.": bare corrections of what the turn itself said before
    them (pure). Returns the values (with the corrections added) and happenings (re-dated),
    and the corrections left for earlier turns."""
    left = []
    for c in bare:
        cands = [
            Candidate(kinds.get(v.slot, "text"), v.value, v.value_key, (1, v.span[0]), index=i)
            for i, v in enumerate(values)
            if v.span[0] < c.span[0] and not v.negated and v.subject == subject and v.pattern_id != BARE_PATTERN
        ]
        timed = [
            Candidate("time", "", "", (1, h.span[0]), index=i)
            for i, h in enumerate(happenings)
            if h.span[0] < c.span[0] and h.start is not None and h.subject == subject
        ]
        target = pick_target(c, cands + timed, lambda value, kind: check(value, kind, c.span))  # noqa: B023
        if target is None:
            left.append(c)
        elif target.kind == "time":
            assert c.time is not None
            t = redated(c.time, happenings[target.index].start)
            moved = replace(happenings[target.index], start=t.start, end=t.end, granularity=t.granularity)
            happenings = tuple(moved if j == target.index else h for j, h in enumerate(happenings))
        else:
            old = values[target.index]
            value, key = corrected_value(c, target)
            new = replace(old, value=value, value_key=key, span=c.span, pattern_id=BARE_PATTERN)
            values = (*values, replace(new, correction=True, rejected_key=old.value_key))
    return values, happenings, tuple(left)


def earlier_candidates(
    recent: Sequence[Event], facts: Sequence[Fact], kinds: dict[str, str], subject: str
) -> list[Candidate]:
    """What a bare correction may correct in the speaker's ``recent`` turns (latest first):
    the current ``facts`` those turns stated, and their dated happenings (pure)."""
    rank = {e.turn_id: len(recent) - n for n, e in enumerate(recent)}
    cands = [
        Candidate(
            kinds.get(f.slot, "text"),
            f.value,
            f.value_key,
            (0, max(rank.get(t, 0) for t in f.source_turn_ids)),
            fact=f,
        )
        for f in facts
        if not f.negated and any(t in rank for t in f.source_turn_ids)
    ]
    for e in recent:
        for i, h in enumerate(e.happenings):
            if h.start is not None and h.status != "cancelled" and h.subject == subject:
                said = next((t.text for t in e.times if t.start == h.start), "")
                cands.append(Candidate("time", said, value_key(said), (0, rank[e.turn_id]), index=i, event=e))
    return cands


def correction_of(c: BareCorrection, target: Candidate) -> SlotValue:
    """The slot value that corrects the stored fact ``target`` (pure)."""
    f = target.fact
    assert f is not None
    value, key = corrected_value(c, target)
    return SlotValue(
        subject=f.subject,
        slot=f.slot,
        value=value,
        value_key=key,
        span=c.span,
        pattern_id=BARE_PATTERN,
        lang=f.lang,
        confidence=f.confidence,
        correction=True,
        rejected_key=f.value_key,
    )


def redating(c: BareCorrection, target: Candidate, subject: str) -> Happening:
    """The change that re-dates ``target``'s happening to ``c``'s time (as a postponement)."""
    assert c.time is not None and target.event is not None
    t = redated(c.time, target.event.happenings[target.index].start)
    return Happening("postpone", subject, {}, c.span, BARE_PATTERN, t.start, t.end, t.granularity)
