"""Stage 1a: named entities in a turn, with language-independent keys.

Sources, merged by span (lexicon first, then longer spans):
- the entity lexicon (``lexicons/entities.yaml``): gives canonical keys, 上海 = Shanghai;
- names the store already knows for this user (a pet called 豆豆, a friend called Tom);
- English: spaCy NER. Chinese: jieba part-of-speech tags (nr person, ns place, nt org), or
  HanLP NER when configured, plus runs of Latin text such as "Model 3" kept whole.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from memtracks.data.lexicons import Lexicons
from memtracks.pipeline.nlp import Analysis
from memtracks.pipeline.text import entity_key
from memtracks.records import Entity

_SPACY_LABELS = {
    "PERSON": "person",
    "GPE": "place",
    "LOC": "place",
    "FAC": "place",
    "ORG": "org",
    "PRODUCT": "product",
    "WORK_OF_ART": "work",
    "EVENT": "event",
    "LANGUAGE": "language",
    "NORP": "group",
}
_HANLP_LABELS = {
    "NR": "person",
    "NS": "place",
    "NT": "org",
    "PERSON": "person",
    "LOCATION": "place",
    "ORGANIZATION": "org",
    "GPE": "place",
    "ORG": "org",
    "LOC": "place",
}
_JIEBA_LABELS = {"nr": "person", "ns": "place", "nt": "org"}
_LATIN_RUN = re.compile(r"[A-Za-z][\w.+-]*(?:[ \t]+[A-Za-z0-9][\w.+-]*)*")
_NOT_NAMES = {"ok", "okay", "app", "wifi", "deadline", "vs", "ps", "lol", "ai", "it", "pm", "am"}
_LEAD = re.compile(r"(?:a|an|the|my|our)\s+", re.IGNORECASE)
_TRAIL = " .,;:!?'\"”’)"
_SOURCE_RANK = {"lexicon": 0, "known": 1, "ner": 2, "tagger": 3}


def _ner_entities(analysis: Analysis) -> list[Entity]:
    labels = _SPACY_LABELS if analysis.primary == "en" else _HANLP_LABELS
    out = []
    for text, label, start, _end in analysis.ents:
        mapped = labels.get(label)
        if not mapped:
            continue
        lead = _LEAD.match(text)
        cut = len(lead.group()) if lead else 0
        text = text[cut:].rstrip(_TRAIL)
        if text:
            out.append(Entity(text, mapped, entity_key(text), (start + cut, start + cut + len(text)), "ner"))
    return out


def _tagger_entities(analysis: Analysis, lexicons: Lexicons) -> list[Entity]:
    out = []
    for tok in analysis.tokens:
        label = _JIEBA_LABELS.get(tok.tag)
        if label == "person" and not lexicons.is_chinese_name(tok.text):
            continue
        if label and len(tok.text) >= 2 and not tok.text.isascii():
            out.append(Entity(tok.text, label, tok.text, (tok.start, tok.end), "tagger"))
    if analysis.primary == "zh":
        for m in _LATIN_RUN.finditer(analysis.text):
            text = m.group().strip()
            if text.lower() in _NOT_NAMES or not re.search(r"[A-Z0-9]", text):
                continue
            label = "product" if re.search(r"\d", text) else "other"
            out.append(Entity(text, label, entity_key(text), (m.start(), m.start() + len(text)), "tagger"))
    return out


def _known_entities(text: str, known: Mapping[str, tuple[str, str]]) -> list[Entity]:
    out = []
    lowered = text.lower()
    for name, (key, label) in known.items():
        start = lowered.find(name.lower())
        while start >= 0:
            end = start + len(name)
            if name.isascii() and not _word_bounded(text, start, end):
                start = lowered.find(name.lower(), end)
                continue
            out.append(Entity(text[start:end], label, key, (start, end), "known"))
            start = lowered.find(name.lower(), end)
    return out


def _word_bounded(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not (before.isalnum() or after.isalnum())


def merge(entities: list[Entity]) -> tuple[Entity, ...]:
    """Keep one entity per span: lexicon, known names, NER, tagger; longer spans first."""
    ranked = sorted(
        entities,
        key=lambda e: (_SOURCE_RANK.get(e.source, 9), -(e.span[1] - e.span[0]), e.span[0]),
    )
    kept: list[Entity] = []
    for ent in ranked:
        if all(ent.span[1] <= k.span[0] or ent.span[0] >= k.span[1] for k in kept):
            kept.append(ent)
    return tuple(sorted(kept, key=lambda e: e.span))


def extract_entities(
    analysis: Analysis,
    lexicons: Lexicons,
    known: Mapping[str, tuple[str, str]] | None = None,
) -> tuple[Entity, ...]:
    """Entities in ``analysis.text``.

    Args:
        analysis: the turn after :meth:`memtracks.pipeline.nlp.NLP.analyze`.
        lexicons: entity lexicon with canonical keys.
        known: names already known for this user, ``{surface: (key, label)}``.
    """
    # the lexicon is Simplified; a Traditional text is looked up through its Simplified copy
    found = [
        Entity(analysis.text[e.span[0] : e.span[1]], e.label, e.key, e.span, e.source)
        for e in lexicons.entities.find(lexicons.to_simplified(analysis.text))
    ]
    found += _known_entities(analysis.text, known or {})
    ner = [_as_place(e, analysis.text, lexicons) for e in _ner_entities(analysis)]
    found += [_simplified_key(e, lexicons) for e in ner + _tagger_entities(analysis, lexicons)]
    return merge(found)


# words before a name that say it is a place: a move, a home, a stay, a trip ("moved to Eugene",
# "a lease in Asheville", "grew up in Chattanooga"), and after it ("we're Tucson people now")
_PLACE_BEFORE = re.compile(
    r"\b(?:mov(?:e|ed|es|ing)|relocat(?:e|ed|es|ing)|liv(?:e|es|ed|ing)|based|settled|stay(?:s|ed|ing)?|"
    r"lease|apartment|flat|condo|house|place|home|back|grew up|born|raised|visit(?:s|ed|ing)?|trip|"
    r"flights?|fl(?:y|ies|ew|ying)|dr(?:ove|ive|iving)|head(?:ed|ing)|went|going|commute)\b"
    r"[\w' ,]{0,25}?\b(?:to|in|into|near|outside|from|around)\s+$",
    re.IGNORECASE,
)
_PLACE_AFTER = re.compile(r"^\s+(?:people|folks|residents|locals|natives?)\b", re.IGNORECASE)


def _as_place(entity: Entity, text: str, lexicons: Lexicons) -> Entity:
    """A town the recogniser took for a person, firm or product ("moving to Eugene",
    "Asheville" as a firm) is a place where its name is one (``places_en.yaml``) and the words
    around it say so."""
    if entity.label not in ("person", "org", "product") or entity.text not in lexicons.places_en:
        return entity
    start, end = entity.span
    if _PLACE_BEFORE.search(text[max(0, start - 60) : start]) or _PLACE_AFTER.match(text[end : end + 20]):
        return Entity(entity.text, "place", entity.key, entity.span, entity.source)
    return entity


def _simplified_key(entity: Entity, lexicons: Lexicons) -> Entity:
    """A Chinese name keyed in Simplified characters, so 王麗 and 王丽 are one person."""
    key = lexicons.to_simplified(entity.key)
    return entity if key == entity.key else Entity(entity.text, entity.label, key, entity.span, entity.source)


def add_names(
    text: str,
    entities: tuple[Entity, ...],
    names: Sequence[tuple[str, str, str]],
) -> tuple[Entity, ...]:
    """``entities`` plus the names slot extraction found ("猫叫豆豆": 豆豆 is a pet), so the
    event that introduces a pet or a person is linked to the later ones that mention it."""
    found = list(entities)
    for surface, key, label in names:
        start = text.find(surface)
        if start >= 0:
            found.append(Entity(surface, label, key, (start, start + len(surface)), "known"))
    return merge(found)
