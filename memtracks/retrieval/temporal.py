"""The temporal track's retriever: events inside the question's time window, then the event
chain around the best ones (what came just before and after, and earlier mentions of the
same pet, person or place). Without time words: semantic and lexical search over events.

A turn that asks something ("How long was the trail?") often matches a question best while
the information is in the reply; the turn after a question therefore inherits almost all of
its relevance (``answer_weight``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from memtracks.config import RetrievalConfig
from memtracks.data.ranker import default_ranker
from memtracks.moments import from_epoch, shifted
from memtracks.retrieval.hits import Hit, Search, SearchContext, covered, expansion, mix, search_both
from memtracks.retrieval.query import Query
from memtracks.retrieval.ranker import learned_order
from memtracks.retrieval.substance import evidence_prior
from memtracks.storage.sqlite import EventHead
from memtracks.storage.vectors import similarity
from memtracks.tracks.temporal import answers, neighbourhoods, said_by

WINDOW_LIMIT = 300
KIND_LIMIT = 50  # the latest events of a happening kind an aggregate question names


def retrieve_events(query: Query, ctx: SearchContext, k: int) -> list[Hit]:
    cfg = ctx.config
    ranked, heads = event_pool(query, ctx, k)
    keep = cfg.ranker == "learned" and cfg.hand_sessions > 0
    hand = sorted(ranked, key=lambda i: (-ranked[i][0], i)) if keep else []  # as retrieval/ranker.py orders them
    if cfg.ranker == "learned":
        ranker = ctx.ranker or default_ranker()
        ranked = learned_order(
            ranked, heads, cosines(ranked, query, ctx), query, ranker, covered(cfg, query), ctx.assistants
        )
    order = sorted(ranked, key=lambda i: -ranked[i][0])
    cap = cfg.aggregate_session_cap if query.aggregate else cfg.session_cap
    session_of = {i: heads[i].session_id for i in order}
    top = spread(order, session_of, cap, k)
    if keep:
        kept = keep_sessions(top, hand, session_of, cfg.hand_sessions)
        if kept != top:  # the relevances of the cut, handed out again in its new order
            values = sorted((ranked[i][0] for i in top), reverse=True)
            ranked = {**ranked, **{i: _valued(ranked[i], v) for i, v in zip(kept, values, strict=True)}}
            top = kept
    records = {e.id: e for e in ctx.store.events(ctx.user_id, ids=top)}
    return [Hit("temporal", records[i], ranked[i][0], ranked[i][1], ranked[i][2]) for i in top if i in records]


def keep_sessions(top: list[int], hand: list[int], session_of: Mapping[int, str], sessions: int) -> list[int]:
    """``top`` (the cut of the learned order) with each of the first ``sessions`` sessions of
    the ``hand`` order present: a session the cut leaves out gets its best hand-order
    candidate swapped in, in the place of the lowest-placed item of a session that holds
    more than one (else of the lowest-placed item of a session not kept this way). The
    learned order may move every candidate of the session that tells the story below the
    cut while two other sessions fill it (``RetrievalConfig.hand_sessions``)."""
    if sessions <= 0:
        return list(top)
    wanted: list[int] = []
    seen: set[str] = set()
    for item in hand:
        session = session_of.get(item, "")
        if session not in seen:
            seen.add(session)
            wanted.append(item)
            if len(wanted) == sessions:
                break
    out = list(top)
    count = Counter(session_of.get(i, "") for i in out)
    kept = {session_of.get(i, "") for i in wanted}
    placed: set[int] = set()
    for item in wanted:
        session = session_of.get(item, "")
        if count[session] or item in out:
            continue
        spare = [n for n, i in enumerate(out) if i not in placed and count[session_of.get(i, "")] > 1]
        spare = spare or [n for n, i in enumerate(out) if i not in placed and session_of.get(i, "") not in kept]
        if not spare:
            break
        place = spare[-1]
        count[session_of.get(out[place], "")] -= 1
        out[place] = item
        count[session] = 1
        placed.add(item)
    return out


def _valued(scored: Scored, value: float) -> Scored:
    _, how, explain = scored
    return value, how, {**explain, "relevance": value}


def cosines(ranked: dict[int, Scored], query: Query, ctx: SearchContext) -> dict[int, float]:
    """Every candidate's cosine with the question (those found along the chain have none yet)."""
    known = {i: s[2]["semantic"] for i, s in ranked.items() if "semantic" in s[2]}
    missing = [i for i in ranked if i not in known]
    if missing:
        known.update(similarity(ctx.vectors("event"), missing, query.vector))
    return known


def search_of(query: Query, config: RetrievalConfig, k: int) -> Search:
    """What the temporal track searches for ``k`` hits: a pool of ``event_pool`` times as
    many, with the members of the categories the question names."""
    return Search("event", query.terms, config.event_pool * k, expansion(config, query))


def event_pool(query: Query, ctx: SearchContext, k: int) -> tuple[dict[int, Scored], dict[int, EventHead]]:
    """The scored candidates (hand relevance, how, explain) and their heads, before the cut to
    ``k``: only events the retrieval's filters admit (see :func:`_admitted`)."""
    cfg = ctx.config
    scored = search_both(ctx, search_of(query, cfg, k), query.vector)
    near = _nearness(query, ctx)
    of_kind = (
        {e.id for e in ctx.store.events(ctx.user_id, kinds=list(query.kinds), limit=KIND_LIMIT) if e.id is not None}
        if query.kinds
        else set()
    )
    missing = [i for i in (near.listed.keys() if near else set()) | of_kind if i not in scored]
    scored.update(mix(similarity(ctx.vectors("event"), missing, query.vector), {}, cfg))
    heads = {i: h for i, h in ctx.store.event_heads(ctx.user_id, list(scored)).items() if _visible(h, query, cfg)}
    ranked = {
        i: _score(heads[i], parts, near.of(heads[i]) if near else 0.0, i in of_kind, query, cfg)
        for i, parts in scored.items()
        if i in heads
    }
    best = sorted(ranked, key=lambda i: -ranked[i][0])[:k]
    ranked.update(_expand(best, ranked, heads, query, ctx))
    relevant = _admitted({i for i, scored_i in ranked.items() if scored_i[0] >= cfg.min_relevance}, ctx)
    return {i: _weighed(ranked[i], heads[i], cfg) for i in relevant}, heads  # relevant, then weighed as evidence


Scored = tuple[float, str, dict[str, float]]  # relevance, how, explain


def spread(order: list[int], session_of: dict[int, str], cap: int, k: int) -> list[int]:
    """The first ``k`` of ``order``, taking at most ``cap`` from one session while items of
    other sessions wait; if too few remain, the held-back items fill the slots in order."""
    if cap <= 0:
        return order[:k]
    taken: list[int] = []
    held: list[int] = []
    per_session: dict[str, int] = {}
    for item in order:
        session = session_of.get(item, "")
        if per_session.get(session, 0) < cap:
            per_session[session] = per_session.get(session, 0) + 1
            taken.append(item)
            if len(taken) == k:
                return taken
        else:
            held.append(item)
    chosen = set(taken + held[: k - len(taken)])
    return [i for i in order if i in chosen]


@dataclass(frozen=True)
class Nearness:
    """How close an event is to the question's time window: 1 inside it; just outside,
    ``outside`` (< 1: the window itself comes first), falling linearly to 0 at ``reach`` past
    its edges (see ``RetrievalConfig.time_reach_*``). ``listed``: the events the window's
    index scans found (said in or about a time near it), already weighed."""

    window: tuple[datetime, datetime]
    reach: timedelta
    outside: float
    listed: dict[int, float]

    def fit(self, interval: tuple[datetime, datetime]) -> float:
        gap = _gap(interval, self.window)
        if gap <= timedelta(0):
            return 1.0
        return self.outside * max(0.0, 1.0 - gap / self.reach) if self.reach > timedelta(0) else 0.0

    def of(self, head: EventHead) -> float:
        """Also for an event beyond the scans' limit: when it was said decides then."""
        said = from_epoch(head.mentioned_epoch)
        return max(self.listed.get(head.id, 0.0), self.fit((said, said)))


def _nearness(query: Query, ctx: SearchContext) -> Nearness | None:
    """The events in or near the question's time window (None: the question names no time)."""
    window, leeway = query.window, query.leeway
    if window is None or leeway is None:
        return None
    cfg = ctx.config
    share = cfg.time_reach_offset if any(t.approximate for t in query.times if t.dated) else cfg.time_reach_period
    near = Nearness(window, leeway * share, cfg.time_reach_bonus, {})
    windows = [window]
    if near.reach > timedelta(0):  # and the window widened by its reach, in the same statement
        windows.append((shifted(window[0], -near.reach), shifted(window[1], near.reach)))
    inside, *around = ctx.store.event_spans_between(ctx.user_id, windows, WINDOW_LIMIT)
    near.listed.update(dict.fromkeys((span.id for span in inside), 1.0))
    for span in around[0] if around else ():
        if span.id in near.listed:
            continue
        said = (span.mentioned_at, span.mentioned_at)
        about = (span.start, span.end or span.start) if span.start else said
        if (fit := max(near.fit(said), near.fit(about))) > 0:
            near.listed[span.id] = fit
    return near


def _gap(interval: tuple[datetime, datetime], window: tuple[datetime, datetime]) -> timedelta:
    """The time between an interval and the window (zero when they overlap)."""
    (a, b), (s, e) = interval, window
    if a <= e and s <= b:
        return timedelta(0)
    return s - b if b < s else a - e


def _score(
    head: EventHead, parts: dict[str, float], closeness: float, of_kind: bool, query: Query, cfg: RetrievalConfig
) -> Scored:
    explain = dict(parts)
    relevance = parts["relevance"]
    how = "semantic" if parts["semantic"] >= parts["lexical"] else "lexical"
    if closeness > 0:  # in or near the question's time window: a bonus that grows with relevance
        bonus = cfg.time_match * max(relevance, cfg.time_match_floor) * closeness
        relevance += bonus
        explain["time"] = bonus
        explain["time_closeness"] = closeness
        how = "time" if closeness >= 0.5 else how
    if of_kind:  # a trip, when the question counts trips
        relevance += cfg.kind_boost
        explain["kind"] = cfg.kind_boost
    if query.asks_when and head.dated:
        relevance += cfg.when_boost
        explain["when"] = cfg.when_boost
    if set(head.entity_keys) & set(query.entity_keys):
        relevance += cfg.entity_boost
        explain["entity"] = cfg.entity_boost
    if query.subjects and head.speaker in query.subjects:
        relevance += cfg.speaker_boost
        explain["speaker"] = cfg.speaker_boost
    relevance = min(1.0, relevance)
    explain["relevance"] = relevance
    return relevance, how, explain


def _weighed(scored: Scored, head: EventHead, cfg: RetrievalConfig) -> Scored:
    """Relevance scaled by how much the turn says (questions and reactions say little)."""
    prior = evidence_prior(head.text, cfg.substance_floor, cfg.substance_full)
    if prior >= 1.0:
        return scored
    relevance, how, explain = scored
    return relevance * prior, how, {**explain, "substance": prior, "relevance": relevance * prior}


def _expand(
    best: list[int], ranked: dict[int, Scored], heads: dict[int, EventHead], query: Query, ctx: SearchContext
) -> dict[int, Scored]:
    """Neighbours along the event chain of the best hits, at a discount. ``heads`` holds the
    heads of the ranked events and receives those of the visible neighbours."""
    cfg = ctx.config
    if cfg.chain_hops <= 0 or not best:
        return {}
    graph = ctx.chain()
    near = neighbourhoods(graph, best, cfg.chain_hops)  # the links of all of them read at once
    wanted: dict[int, tuple[float, int]] = {}
    asked: dict[int, set[int]] = {}
    for origin in best:
        after = asked[origin] = answers(graph, origin) if heads[origin].question else set()
        for other in near[origin] | after:
            weight = cfg.answer_weight if other in after else cfg.chain_weight
            score = ranked[origin][0] * weight
            found = ranked.get(other)
            if (found is None or found[0] < score) and score > wanted.get(other, (0.0, 0))[0]:
                wanted[other] = (score, origin)
    new = [i for i in wanted if i not in ranked]
    heads.update((i, h) for i, h in ctx.store.event_heads(ctx.user_id, new).items() if _visible(h, query, cfg))
    out = {}
    for item, (score, origin) in wanted.items():
        if item in heads:
            explain = {
                **(ranked[item][2] if item in ranked else {}),
                "chain": score,
                **({"answer": 1.0} if origin in asked and item in asked[origin] else {}),
                "from_event": float(origin),
                "relevance": score,
            }
            out[item] = (score, "chain", explain)
    return out


def _admitted(ids: set[int], ctx: SearchContext) -> set[int]:
    """The events of ``ids`` the retrieval's filters admit (``SearchContext.admit``: the
    tiers, a session, a time span, metadata). Any visible event may lead the chain to a
    candidate; only admitted ones are weighed, ranked and returned."""
    if ctx.admit is None or not ids:
        return ids
    return {e.id for e in ctx.admit("temporal", ctx.store.events(ctx.user_id, ids=sorted(ids))) if e.id is not None}


def _visible(head: EventHead, query: Query, cfg: RetrievalConfig) -> bool:
    """With ``as_of``, what was said after that time is not known yet (the as-of rule of events)."""
    return said_by(head.mentioned_epoch, query.as_of)
