"""Stage 1b: slot values — "I live in Shanghai" gives ``{subject: user, slot: lives_in}``.

Patterns come from ``rules/slot_patterns.yaml`` and run in file order; when two matches
overlap, the earlier pattern wins (negations are listed first). Questions are skipped: "Do
you live in Paris?" states nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..lexicon import Lexicons
from ..records import Entity, SlotValue, TimeMention
from .matching import (
    SubjectResolver,
    at_clause_start,
    clean_value,
    cut_before_times,
    entities_in,
    find_all,
    sentence_at,
    sentences,
    subject_is_filler,
    value_key,
)
from .numerals import parse_number
from .patterns import Compiled, group

_SPLIT = re.compile(r"\s*(?:,|、|，|\band\b|\bor\b|和|以及|还有)\s*", re.IGNORECASE)
_MAX_ITEM_WORDS = 5
_NOT_ITEM_START = frozenset(
    "i i'm it it's me you us them him her that this those these there here was is are were be been being "
    "have has had do does did can could will would should may might especially also so too very how "
    "what when where why who which both every all any some such as like just really "
    "for to in on at of with about from by into".split()
)
_NEEDS_OBJECT = frozenset(
    "making doing having getting seeing being trying going taking coming using giving putting "
    "bringing keeping finding telling showing working playing watching learning sharing".split()
)
_SINCE = re.compile(r"(?:\bsince|\bfrom|自从|从|自)\s*$", re.IGNORECASE)


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
    """
    opposites = opposites or {}
    sents = sentences(text)
    found: list[_Found] = []
    last_subject: dict[int, str] = {}
    for pattern in patterns:
        if pattern.spec.lang != lang:
            continue
        family = {pattern.spec.slot, opposites.get(pattern.spec.slot)}

        def build(m: re.Match[str]) -> list[_Found] | None:
            sent = sentence_at(sents, m.start())
            if sent.question or any(f.value.slot in family and _overlaps(m.span(), f.span) for f in found):  # noqa: B023
                return None
            subject = resolver.resolve(m)
            if subject is None and pattern.optional_subject and subject_is_filler(m, times):  # noqa: B023
                subject = ""
            if subject is None or (subject == "" and not at_clause_start(text, m.start())):
                return None
            subject = subject or last_subject.get(sent.start, resolver.speaker)
            values = _values(m, pattern, subject, resolver.entities, lexicons, times, text)  # noqa: B023
            return [_Found(v, m.span()) for v in values] or None

        for items in find_all(pattern.regex, text, build):
            found.extend(items)
            last_subject[sentence_at(sents, items[0].span[0]).start] = items[0].value.subject
    found.sort(key=lambda f: f.span)
    return tuple(f.value for f in found)


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
    raw, start = _raw_value(m)
    kind = group(m, "kind")
    if raw is None and kind is None:
        return [_slot_value(spec, subject, "", "", m.span(), None, times, text)] if spec.negate else []
    if raw is not None:
        raw = clean_value(raw if spec.keep_times else cut_before_times(raw, start, times))
        if not raw or (pattern.reject is not None and pattern.reject.search(raw)):
            return []
    parts = _split(raw, start) if (spec.split_list and raw) else [(raw, start)]
    out = []
    for part, part_start in parts:
        value, key = _resolve_value(part, part_start, kind, spec, entities, lexicons)
        if value is None:
            continue
        out.append(_slot_value(spec, subject, value, key, m.span(), _qualifier(kind, lexicons), times, text))
    return out


def _raw_value(m: re.Match[str]) -> tuple[str | None, int]:
    for name in ("value", "value2", "value3"):
        if name in m.re.groupindex and m.group(name):
            return m.group(name), m.start(name)
    return None, -1


def _split(raw: str, start: int) -> list[tuple[str, int]]:
    """Items of a list value; an item that does not read as a thing ("it looks", "was there
    to celebrate us", "especially nature") is dropped rather than stored as a value."""
    parts, pos = [], 0
    for piece in _SPLIT.split(raw):
        offset = raw.find(piece, pos)
        pos = offset + len(piece)
        item = piece.strip()
        if item and _reads_as_item(item):
            parts.append((item, start + offset))
    return parts


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
        return _with_kind(ent.text, kind, spec), ent.key
    return _with_kind(raw, kind, spec), value_key(raw)


def _with_kind(raw: str, kind: str | None, spec) -> str:
    if not kind:
        return raw
    if spec.lang == "zh":
        return f"{raw}（{kind}）" if spec.slot != "likes" else f"{raw}（最喜欢的{kind}）"
    return f"{raw} ({kind})" if spec.slot != "likes" else f"{raw} (favourite {kind})"


def _qualifier(kind: str | None, lexicons: Lexicons) -> str | None:
    if not kind:
        return None
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
