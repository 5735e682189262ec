"""The temporal track's retriever: events inside the question's time window, then the event
chain around the best ones (what came just before and after, and earlier mentions of the
same pet, person or place). Without time words: semantic and lexical search over events."""

from __future__ import annotations

from ..config import RetrievalConfig
from ..records import Event
from ..storage.vectors import similarity
from ..tracks.temporal import neighbours
from .hits import Hit, SearchContext, mix, search_both
from .query import Query

ENTITY_BOOST = 0.15
SUBJECT_BOOST = 0.1
WINDOW_LIMIT = 300


def retrieve_events(query: Query, ctx: SearchContext, k: int) -> list[Hit]:
    cfg = ctx.config
    scored = search_both(ctx, "event", query.vector, query.terms, 3 * k)
    in_window: set[int] = set()
    if query.window is not None:
        events = ctx.store.events_between(ctx.user_id, *query.window, limit=WINDOW_LIMIT)
        in_window = {e.id for e in events}  # type: ignore[misc]
        missing = [i for i in in_window if i not in scored]
        sims = similarity(ctx.vectors("event"), missing, query.vector)
        scored.update(mix(sims, {}, cfg))
    records = {e.id: e for e in ctx.store.events(ctx.user_id, ids=list(scored)) if _visible(e, query, cfg)}
    hits = {item: _hit(records[item], parts, item in in_window, query, cfg)
            for item, parts in scored.items() if item in records}
    best = sorted(hits.values(), key=lambda h: -h.relevance)[:k]
    hits.update(_expand(best, hits, query, ctx))
    ranked = sorted((h for h in hits.values() if h.relevance >= cfg.min_relevance), key=lambda h: -h.relevance)
    return ranked[:k]


def _hit(event: Event, parts: dict[str, float], in_window: bool, query: Query, cfg: RetrievalConfig) -> Hit:
    explain = dict(parts)
    relevance = parts["relevance"]
    how = "semantic" if parts["semantic"] >= parts["lexical"] else "lexical"
    if in_window:
        relevance = cfg.time_match + (1 - cfg.time_match) * relevance
        explain["time"] = cfg.time_match
        how = "time"
    if query.asks_when and event.start is not None:
        relevance += cfg.when_boost
        explain["when"] = cfg.when_boost
    shared = set(event.entity_keys) & set(query.entity_keys)
    if shared:
        relevance += ENTITY_BOOST
        explain["entity"] = ENTITY_BOOST
    if query.subjects and (event.subject in query.subjects or event.speaker in query.subjects):
        relevance += SUBJECT_BOOST
        explain["subject"] = SUBJECT_BOOST
    relevance = min(1.0, relevance)
    explain["relevance"] = relevance
    return Hit("temporal", event, relevance, how, explain)


def _expand(best: list[Hit], hits: dict[int, Hit], query: Query, ctx: SearchContext) -> dict[int, Hit]:
    """Neighbours along the event chain of the best hits, at a discount."""
    cfg = ctx.config
    if cfg.chain_hops <= 0 or not best:
        return {}
    graph = ctx.chain()
    wanted: dict[int, tuple[float, int]] = {}
    for hit in best:
        for other in neighbours(graph, hit.item_id, cfg.chain_hops):
            score = hit.relevance * cfg.chain_weight
            found = hits.get(other)
            if (found is None or found.relevance < score) and score > wanted.get(other, (0.0, 0))[0]:
                wanted[other] = (score, hit.item_id)
    if not wanted:
        return {}
    missing = [i for i in wanted if i not in hits]
    records = {i: hits[i].record for i in wanted if i in hits}
    records.update({e.id: e for e in ctx.store.events(ctx.user_id, ids=missing) if _visible(e, query, cfg)})
    out = {}
    for item, (score, origin) in wanted.items():
        if item in records:
            explain = {**(hits[item].explain if item in hits else {}),
                       "chain": score, "from_event": float(origin), "relevance": score}
            out[item] = Hit("temporal", records[item], score, "chain", explain)  # type: ignore[arg-type]
    return out


def _visible(event: Event, query: Query, cfg: RetrievalConfig) -> bool:
    return not cfg.hide_future or event.mentioned_at <= query.now
