"""The fact track's retriever: slot match first, then entities, then semantic and lexical.

Superseded and ended facts are held back (and counted) unless the question is about the
past or names a time; then they come too, with their validity, and for a question about the
past ("where did I live before?") they rank above the current value.
"""

from __future__ import annotations

import re

from memtracks.config import RetrievalConfig
from memtracks.records import Fact
from memtracks.retrieval.hits import Hit, Search, SearchContext, held_back, search_both
from memtracks.retrieval.lexical import tokenize
from memtracks.retrieval.query import Query
from memtracks.storage.vectors import similarity
from memtracks.tracks.facts import FACTS, FactState, fact_state

SLOT_MATCH = 1.0
MANY_SLOT_BASE = 0.5
MANY_SLOT_SPAN = 0.3
ENTITY_MATCH = 0.85
CURRENT_IN_PAST_QUESTION = 0.7  # a current fact still answers "before?" questions, less well
PLANNED_FACTOR = 0.8  # a plan answers a question about now, after what holds now


def search_of(query: Query, config: RetrievalConfig, k: int) -> Search:
    """What the fact track searches for ``k`` hits: four times as many, for the subject and
    state filters that follow."""
    return Search("fact", query.terms, 4 * k)


def retrieve_facts(query: Query, ctx: SearchContext, k: int) -> tuple[list[Hit], int]:
    """Up to ``k`` fact hits, and how many stale facts were held back."""
    subjects = list(query.subjects) or None
    facts: dict[int, Fact] = {}
    evidence: dict[int, dict[str, float]] = {}
    if query.slots:
        slot_facts = ctx.store.facts(ctx.user_id, subjects=subjects, slots=list(query.slots))
        sims = similarity(ctx.vectors("fact"), [f.id for f in slot_facts], query.vector)  # type: ignore[misc]
        for fact in slot_facts:
            facts[fact.id] = fact  # type: ignore[index]
            evidence[fact.id] = {"slot": _slot_match(fact, sims, ctx)}  # type: ignore[index]
    for fact in _relatives(query, ctx):  # "What's my sister's name?": family: Leah (sister)
        facts[fact.id] = fact  # type: ignore[index]
        evidence[fact.id] = {"kin": SLOT_MATCH}  # type: ignore[index]
    mixed = search_both(ctx, search_of(query, ctx.config, k), query.vector)
    for fact in ctx.store.facts_by_id(ctx.user_id, list(mixed)):
        if not subjects or fact.subject in subjects:
            facts[fact.id] = fact  # type: ignore[index]
            evidence.setdefault(fact.id, {}).update(mixed[fact.id])  # type: ignore[index, arg-type]
    keys = set(query.entity_keys)
    for item, fact in list(facts.items()):
        if fact.value_key in keys:
            evidence[item]["entity"] = ENTITY_MATCH
        elif _value_named(fact, query):
            evidence[item]["value"] = SLOT_MATCH
        elif not subjects and "slot" not in evidence[item] and _someones_relation(fact):
            del facts[item]  # a question that names no one is not about a cousin's workplace
    moment = query.as_of or query.now
    hits: list[Hit] = []
    stale: list[float] = []
    for item, stored in facts.items():
        state = fact_state(stored, moment, query.as_of)
        if state is FactState.UNKNOWN:
            continue
        fact = FACTS.visible_at(stored, query.as_of) or stored
        explain = evidence[item]
        relevance = max(explain.get(key, 0.0) for key in ("slot", "kin", "value", "entity", "relevance"))
        if not _wanted(fact, state, query):  # type: ignore[arg-type]
            stale.append(relevance)
            continue
        relevance *= _history_factor(state, query) * (PLANNED_FACTOR if state is FactState.PLANNED else 1.0)
        explain["relevance"] = relevance
        if relevance >= ctx.config.min_relevance:
            hits.append(Hit("fact", fact, relevance, _how(fact, explain, ctx), explain))  # type: ignore[arg-type]
    hits = _once_each(sorted(ctx.admitted_hits("fact", hits), key=lambda h: -h.relevance))[:k]
    return hits, held_back(stale, hits, ctx.config.min_relevance)


def _once_each(hits: list[Hit]) -> list[Hit]:
    """The best hit of each thing said of someone: "likes: painting" and "hobbies: painting" (or
    an aim that is also a decision) say one thing, and take one card."""
    seen: set[tuple[str, str, bool]] = set()
    out = []
    for hit in hits:
        fact = hit.record
        key = (fact.subject, fact.value_key, fact.negated)  # type: ignore[union-attr]  # value_key: lower case
        if key not in seen:
            seen.add(key)
            out.append(hit)
    return out


KIN_SLOTS = ("family", "partner", "children")
_SHOWN_AS = re.compile(r"(?: \((?P<en>[^()]+)\)|（(?P<zh>[^（）]+)）)$")


def _relatives(query: Query, ctx: SearchContext) -> list[Fact]:
    """The relatives a question asks about by relation ("my sister", 我表姐), as their owner's
    facts name them: "family: Leah (sister)", "family: 小敏（表姐）", "partner: Anna (wife)"."""
    slots = [s for s in query.slots if s in KIN_SLOTS]
    if not slots or not query.kin:
        return []
    found = ctx.store.facts(ctx.user_id, subjects=sorted({owner for owner, _ in query.kin}), slots=slots)
    return [f for f in found if any(f.subject == owner and _shown_as(f.value, forms) for owner, forms in query.kin)]


def _shown_as(value: str, forms: tuple[str, ...]) -> bool:
    """Is ``value``'s relation ("Tom (older brother)", 阿傑（哥哥）) one of ``forms``?"""
    m = _SHOWN_AS.search(value)
    shown = (m.group("en") or m.group("zh") or "").lower() if m else ""
    return bool(shown) and any(shown == f or shown.endswith(" " + f) for f in forms)


def _how(fact: Fact, explain: dict[str, float], ctx: SearchContext) -> str:
    """How a fact was found, which decides its confidence weight in fusion: by slot (a
    single-valued slot, the value named in the question, or the relative asked about by
    relation), by entity, or by meaning."""
    if "value" in explain or "kin" in explain or ("slot" in explain and ctx.catalogue.is_single(fact.slot)):
        return "slot"
    if "entity" in explain:
        return "entity"
    return "semantic" if explain.get("semantic", 0.0) >= explain.get("lexical", 0.0) else "lexical"


def _someones_relation(fact: Fact) -> bool:
    """The fact is about a relation of someone ("user's cousin"), not a person talking or named."""
    return "'s " in fact.subject


def _value_named(fact: Fact, query: Query) -> bool:
    """The question names the fact's value ("Do I like coffee?" and likes: coffee)."""
    words = tokenize(fact.value_key, stop=query.stopwords)
    return bool(words) and set(words) <= set(query.terms)


def _slot_match(fact: Fact, sims: dict[int, float], ctx: SearchContext) -> float:
    """A single-valued slot answers the question outright; among the many values of a
    multi-valued slot (likes, pets), the ones closer to the question rank higher."""
    if ctx.catalogue.is_single(fact.slot):
        return SLOT_MATCH
    return MANY_SLOT_BASE + MANY_SLOT_SPAN * max(0.0, sims.get(fact.id, 0.0))  # type: ignore[arg-type]


def _wanted(fact: Fact, state: FactState, query: Query) -> bool:
    """What holds at the question's moment (or is planned) answers it; what held before only
    a question about the past or about a named time, when it held then."""
    if state in (FactState.CURRENT, FactState.PLANNED):
        return True
    if state is FactState.VOID or not query.wants_history:
        return False
    moment = query.window[0] if query.window and not query.past and not query.as_of else None
    if moment is None:
        return True
    return fact_state(fact, moment) is FactState.CURRENT


def _history_factor(state: FactState, query: Query) -> float:
    """A question about the past prefers what held before; any other prefers what holds."""
    if query.past and not query.as_of and state is FactState.CURRENT:
        return CURRENT_IN_PAST_QUESTION
    if not query.past and state is FactState.PAST:
        return CURRENT_IN_PAST_QUESTION
    return 1.0
