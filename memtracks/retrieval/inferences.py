"""The inference track's retriever: conclusions that match the question.

A conclusion matches by kind (a question about where someone lives meets a ``lives_in``
conclusion) or by its text. Retracted conclusions never come back; expired ones (a trip that
is over) are held back unless the question is about the past or names their time. A
conclusion that became a fact ("Jake lives in Austin", from his move) holds as long as that
fact does: once a later move replaces it, the conclusion is as stale as the fact (the same
as-of rule, :func:`~memtracks.tracks.facts.fact_state`).
"""

from __future__ import annotations

from memtracks.config import RetrievalConfig
from memtracks.records import Fact, Inference
from memtracks.retrieval.hits import Hit, Search, SearchContext, held_back, search_both
from memtracks.retrieval.query import Query
from memtracks.tracks.facts import FactState, fact_state
from memtracks.tracks.inferences import INFERENCES

KIND_MATCH = 0.9
KIND_LIMIT = 20  # the latest conclusions of a kind the question asks about


def search_of(query: Query, config: RetrievalConfig, k: int) -> Search:
    """What the inference track searches for ``k`` hits: enough for the retracted and stale
    conclusions set aside after."""
    return Search("inference", query.terms, 4 * k + 4)


def retrieve_inferences(query: Query, ctx: SearchContext, k: int) -> tuple[list[Hit], int]:
    """Up to ``k`` inference hits, and how many stale ones were held back."""
    scored = search_both(ctx, search_of(query, ctx.config, k), query.vector)
    records = {i.id: i for i in ctx.store.inferences(ctx.user_id, ids=list(scored))}
    by_kind = (
        ctx.store.inferences(ctx.user_id, active_only=True, kinds=list(query.slots), limit=KIND_LIMIT)
        if query.slots
        else []
    )
    for inference in by_kind:
        assert inference.id is not None
        records.setdefault(inference.id, inference)
        scored.setdefault(inference.id, {"semantic": 0.0, "lexical": 0.0, "relevance": 0.0})
    derived = {
        f.id: f
        for f in ctx.store.facts_by_id(ctx.user_id, [i.derived_fact_id for i in records.values() if i.derived_fact_id])
    }
    hits: list[Hit] = []
    stale: list[float] = []
    for item, parts in scored.items():
        found = records.get(item)
        seen = INFERENCES.visible_at(found, query.as_of) if found is not None else None
        if seen is None:
            continue
        inference = seen
        if query.subjects and inference.subject not in query.subjects:
            continue
        explain = dict(parts)
        relevance, how = parts["relevance"], "semantic" if parts["semantic"] >= parts["lexical"] else "lexical"
        if inference.kind in query.slots:
            relevance, how = max(relevance, KIND_MATCH), "slot"
            explain["slot"] = KIND_MATCH
        explain["relevance"] = relevance
        if not inference.is_active or not _current(inference, query, derived.get(inference.derived_fact_id or -1)):
            stale.append(relevance)
        elif relevance >= ctx.config.min_relevance:
            hits.append(Hit("inference", inference, relevance, how, explain))
    hits = sorted(ctx.admitted_hits("inference", hits), key=lambda h: -h.relevance)[:k]
    return hits, held_back(stale, hits, ctx.config.min_relevance)


def _current(inference: Inference, query: Query, fact: Fact | None = None) -> bool:
    """Does the conclusion hold at the question's time (or is the question about the past)?"""
    if fact is not None and fact_state(fact, query.as_of or query.now, query.as_of) in (FactState.PAST, FactState.VOID):
        return query.wants_history
    if inference.valid_to is None or inference.valid_to > query.now:
        return True
    return query.wants_history
