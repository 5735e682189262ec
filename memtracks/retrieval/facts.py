"""The fact track's retriever: slot match first, then entities, then semantic and lexical.

Superseded and ended facts are held back (and counted) unless the question is about the
past or names a time; then they come too, with their validity, and for a question about the
past ("where did I live before?") they rank above the current value.
"""

from __future__ import annotations

from dataclasses import replace

from ..records import Fact
from ..storage.vectors import similarity
from .hits import Hit, SearchContext, held_back, search_both
from .lexical import tokenize
from .query import Query

SLOT_MATCH = 1.0
MANY_SLOT_BASE = 0.5
MANY_SLOT_SPAN = 0.3
ENTITY_MATCH = 0.85
CURRENT_IN_PAST_QUESTION = 0.7  # a current fact still answers "before?" questions, less well


def retrieve_facts(query: Query, ctx: SearchContext, k: int) -> tuple[list[Hit], int]:
    """Up to ``k`` fact hits, and how many stale facts were held back."""
    subjects = list(query.subjects) or None
    facts: dict[int, Fact] = {}
    evidence: dict[int, dict[str, float]] = {}
    unread = 0  # stale facts of the asked slots, counted without being read
    if query.slots:
        current_only = not query.wants_history
        slot_facts = ctx.store.facts(ctx.user_id, subjects=subjects, slots=list(query.slots), current_only=current_only)
        if current_only:  # stale ones are not even read, only counted
            unread = ctx.store.count_stale_facts(ctx.user_id, subjects=subjects, slots=list(query.slots))
        sims = similarity(ctx.vectors("fact"), [f.id for f in slot_facts], query.vector)  # type: ignore[misc]
        for fact in slot_facts:
            facts[fact.id] = fact  # type: ignore[index]
            evidence[fact.id] = {"slot": _slot_match(fact, sims, ctx)}  # type: ignore[index]
    mixed = search_both(ctx, "fact", query.vector, query.terms, 4 * k)
    for fact in ctx.store.facts_by_id(ctx.user_id, list(mixed)):
        if not subjects or fact.subject in subjects:
            facts[fact.id] = fact  # type: ignore[index]
            evidence.setdefault(fact.id, {}).update(mixed[fact.id])  # type: ignore[index, arg-type]
    keys = set(query.entity_keys)
    for item, fact in facts.items():
        if fact.value_key in keys:
            evidence[item]["entity"] = ENTITY_MATCH
        elif _value_named(fact, query):
            evidence[item]["value"] = SLOT_MATCH
    visible = _as_of(list(facts.values()), query, ctx)
    hits: list[Hit] = []
    stale: list[float] = []
    for item, fact in visible.items():
        explain = evidence[item]
        relevance = max(explain.get(key, 0.0) for key in ("slot", "value", "entity", "relevance"))
        relevance *= _history_factor(fact, query)
        explain["relevance"] = relevance
        if not _wanted(fact, query):
            if not (unread and fact.slot in query.slots):  # counted already
                stale.append(relevance)
        elif relevance >= ctx.config.min_relevance:
            hits.append(Hit("fact", fact, relevance, _how(fact, explain, ctx), explain))
    hits = sorted(hits, key=lambda h: -h.relevance)[:k]
    return hits, unread + held_back(stale, hits, ctx.config.min_relevance)


def _how(fact: Fact, explain: dict[str, float], ctx: SearchContext) -> str:
    """How a fact was found, which decides its confidence weight in fusion: by slot (a
    single-valued slot, or the value named in the question), by entity, or by meaning."""
    if "value" in explain or ("slot" in explain and ctx.catalogue.is_single(fact.slot)):
        return "slot"
    if "entity" in explain:
        return "entity"
    return "semantic" if explain.get("semantic", 0.0) >= explain.get("lexical", 0.0) else "lexical"


def _as_of(facts: list[Fact], query: Query, ctx: SearchContext) -> dict[int, Fact]:
    """The facts as they stood at ``as_of``: those recorded later are left out, and one
    superseded by a fact recorded later is still current. Without ``as_of``: all of them."""
    if query.as_of is None:
        return {f.id: f for f in facts}  # type: ignore[misc]
    later = {f.superseded_by for f in facts if f.superseded_by is not None}
    superseders = {f.id: f for f in ctx.store.facts_by_id(ctx.user_id, list(later))}
    out = {}
    for f in facts:
        if f.recorded_at > query.as_of:
            continue
        by = superseders.get(f.superseded_by)  # type: ignore[arg-type]
        if by is not None and by.recorded_at > query.as_of:
            f = replace(f, superseded_by=None, valid_to=None)
        out[f.id] = f
    return out  # type: ignore[return-value]


def _value_named(fact: Fact, query: Query) -> bool:
    """The question names the fact's value ("Do I like coffee?" and likes: coffee)."""
    words = tokenize(fact.value_key)
    return bool(words) and set(words) <= set(query.terms)


def _slot_match(fact: Fact, sims: dict[int, float], ctx: SearchContext) -> float:
    """A single-valued slot answers the question outright; among the many values of a
    multi-valued slot (likes, pets), the ones closer to the question rank higher."""
    if ctx.catalogue.is_single(fact.slot):
        return SLOT_MATCH
    return MANY_SLOT_BASE + MANY_SLOT_SPAN * max(0.0, sims.get(fact.id, 0.0))  # type: ignore[arg-type]


def _wanted(fact: Fact, query: Query) -> bool:
    if fact.is_current:
        return True
    if not query.wants_history:
        return False
    moment = query.as_of or (query.window[0] if query.window and not query.past else None)
    if moment is None:
        return True
    return fact.valid_from <= moment and (fact.valid_to is None or moment < fact.valid_to)


def _history_factor(fact: Fact, query: Query) -> float:
    if query.past and not query.as_of and fact.is_current:
        return CURRENT_IN_PAST_QUESTION
    return 1.0
