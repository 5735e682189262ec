"""Fusion: the track retrievers' hits merged into one ranking.

    score = relevance x confidence weight x source weight x recency

- confidence weights by how a memory was found: fact by slot 0.9, fact by meaning 0.7,
  temporal 0.8, inference 0.6;
- source weights: what the user stated > what was inferred > what was imported;
- recency: ``floor + (1 - floor) * exp(-age / tau)`` with tau 180 days for facts, 7 for
  events, 3 for inferences; age from the question's ``now``, or from the time it names;
- the latest word leads: for a question about how things are now, the newest of several
  memories about the same thing takes the best place of them (``retrieval/latest.py``);
- semantic dedup: near-identical memories merge into one card (keeping every source turn),
  but never two that differ in a number, a date or an entity — "meeting on Tuesday" and
  "meeting on Thursday" look alike to any embedder and must both stay;
- session diversity: past the first few events of a conversation, each further one counts a
  little less, so the cards are not all turns of one chat; for questions whose answer is
  spread over conversations ("how many...", 哪些) from the second event on;
- threads: an event ranked below the first few that is about the same thing as a higher
  event — same speaker, close in meaning, nearly as relevant, said in another session or
  about another time — is folded into that event's card as a further part instead of taking
  a slot of its own (a card of several parts cites every part's turn); later slots go to
  other memories. Which questions get it, and the parts' and tokens' caps, are in the config.

All numbers are named in :class:`~memtracks.config.FusionConfig`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from memtracks.config import FusionConfig
from memtracks.records import Event, Fact, Inference
from memtracks.retrieval.hits import Hit
from memtracks.retrieval.latest import latest_first
from memtracks.retrieval.query import Query
from memtracks.retrieval.substance import content_free, substance
from memtracks.tracks import named, track_of

_DISTINCT = re.compile(
    r"\d+(?:[.:/-]\d+)*|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|"
    r"\b(?:january|february|march|april|may|june|july|august|september|october|november|december)\b|"
    r"(?:周|星期|礼拜)[一二三四五六日天]|[一二三四五六七八九十]+[月日号点]|[上下这本]周|[去今明]年",
    re.IGNORECASE,
)


@dataclass
class Ranked:
    """A hit with its fused score; ``merged`` are duplicates folded into it."""

    hit: Hit
    score: float
    explain: dict[str, float]
    merged: list[Hit] = field(default_factory=list)
    parts: list[Ranked] = field(default_factory=list)  # a thread's further events, in rank order


def confidence_weight(hit: Hit, config: FusionConfig) -> float:
    return named(hit.track).weight(hit.how, config)


def memory_interval(hit: Hit) -> tuple[datetime, datetime]:
    """The time a memory is about, for measuring its age."""
    return track_of(hit.record).interval(hit.record)


def age_days(interval: tuple[datetime, datetime], reference: tuple[datetime, datetime]) -> float:
    """Days between two intervals; 0 when they overlap."""
    (a, b), (c, d) = interval, reference
    if a <= d and c <= b:
        return 0.0
    gap = (c - b) if b < c else (a - d)
    return abs(gap.total_seconds()) / 86400.0


def recency(hit: Hit, query: Query, config: FusionConfig) -> float:
    reference = query.window or (query.now, query.now)
    if named(hit.track).keeps_history and query.wants_history:
        return 1.0  # a question about the past does not penalise what held in the past
    age = age_days(memory_interval(hit), reference)
    tau = config.decay_days(hit.track)
    return config.decay_floor + (1 - config.decay_floor) * math.exp(-age / tau)


def distinctive(text: str, keys: Sequence[str] = ()) -> frozenset[str]:
    """Numbers, dates, weekdays and entity keys: what two lookalike memories may differ in."""
    return frozenset(m.group().lower() for m in _DISTINCT.finditer(text)) | frozenset(keys)


def content(hit: Hit) -> tuple[str, tuple[str, ...]]:
    return track_of(hit.record).content(hit.record)


def fuse(
    hits: Sequence[Hit],
    query: Query,
    config: FusionConfig,
    vectors: Callable[[str, list[int]], dict[int, np.ndarray]],
    top_n: int,
    tokens: Callable[[Ranked, bool], int] | None = None,
    ended: Callable[[], Sequence[Fact]] | None = None,
) -> list[Ranked]:
    """Score, sort, dedup, thread and cut ``hits`` to ``top_n``. ``tokens(r, as_part)`` is
    what a memory costs on its card (as the card's first part, or as a further part); without
    it no thread is made. A turn that says nothing takes no card (``config.content_free``).
    ``ended``: reads the facts a later turn ended, replaced or put right, for :func:`~memtracks.retrieval.latest.latest_first`."""
    if config.content_free == "drop":
        hits = [h for h in hits if not says_nothing(h)]
    ranked = []
    for hit in hits:
        weight = confidence_weight(hit, config)
        source = config.source_weight(hit.record.source if not isinstance(hit.record, Inference) else "inferred")
        fresh = recency(hit, query, config)
        score = hit.relevance * weight * source * fresh
        explain = {
            **{f"{hit.track}.{k}": v for k, v in hit.explain.items()},
            "confidence_weight": weight,
            "source_weight": source,
            "recency": fresh,
            "score": score,
        }
        ranked.append(Ranked(hit, score, explain))
    ranked.sort(key=lambda r: -r.score)
    ranked = latest_first(ranked, query, config, ended)
    free = config.aggregate_session_free if query.aggregate else config.session_free
    stored = _stored(ranked, vectors)
    kept = _diversify(_dedup(ranked, config, stored), config, free)
    if tokens is not None and threads_for(query, config):
        kept = _thread(kept, config, stored, tokens, top_n)
    kept = kept[:top_n]
    floor = kept[0].score * config.min_score_ratio if kept else 0.0
    return [r for r in kept if r.score >= floor]


def says_nothing(hit: Hit) -> bool:
    """An event whose turn is content-free (thanks, a greeting, an acknowledgement)."""
    return isinstance(hit.record, Event) and content_free(hit.record.text)


def _diversify(ranked: list[Ranked], config: FusionConfig, free: int) -> list[Ranked]:
    """Spread events over conversations: each further event from a session already shown is
    scaled by ``session_diversity`` (a prompt gains little from five turns of one chat)."""
    if config.session_diversity >= 1.0:
        return ranked
    shown: dict[str, int] = {}

    def extra(r: Ranked) -> int:  # how many times the session's discount applies
        session = r.hit.record.session_id if isinstance(r.hit.record, Event) else None
        return max(0, shown.get(session, 0) - free + 1) if session else 0

    pending = list(ranked)
    out: list[Ranked] = []
    while pending:
        best = max(pending, key=lambda r: r.score * config.session_diversity ** extra(r))
        pending.remove(best)
        if isinstance(best.hit.record, Event):
            if times := extra(best):
                best.explain["diversity"] = config.session_diversity**times
            shown[best.hit.record.session_id] = shown.get(best.hit.record.session_id, 0) + 1
        out.append(best)
    return out


def _stored(
    ranked: list[Ranked], vectors: Callable[[str, list[int]], dict[int, np.ndarray]]
) -> dict[tuple[str, int], np.ndarray]:
    """The stored vector of every candidate, by (track, id)."""
    by_track: dict[str, list[int]] = {}
    for r in ranked:
        by_track.setdefault(r.hit.track, []).append(r.hit.item_id)
    return {(track, i): v for track, ids in by_track.items() for i, v in vectors(track, ids).items()}


def threads_for(query: Query, config: FusionConfig) -> bool:
    """Does this question get thread cards (``FusionConfig.threads``)?"""
    return config.threads == "always" or (config.threads == "aggregate" and query.aggregate)


def _thread(
    ranked: list[Ranked],
    config: FusionConfig,
    stored: dict[tuple[str, int], np.ndarray],
    tokens: Callable[[Ranked, bool], int],
    top_n: int,
) -> list[Ranked]:
    """Fold each event ranked at ``thread_from`` or below into the highest of the first
    ``top_n`` cards (at most ``thread_hosts``) that it continues (:func:`continues`), has fewer than ``thread_parts``
    parts and stays within ``thread_tokens`` with it; a folded event leaves the ranking.
    Only the shown cards take parts, in rank order, so the first cards do not depend on how
    many are asked for."""
    out: list[Ranked] = []
    cost: dict[int, int] = {}  # id(card) -> its tokens so far
    for rank, r in enumerate(ranked):
        vec = stored.get((r.hit.track, r.hit.item_id))
        if rank < config.thread_from or vec is None or not isinstance(r.hit.record, Event):
            out.append(r)
            continue
        extra = None  # what the event costs as a part, once
        for host in out[: min(top_n, config.thread_hosts)]:
            if len(host.parts) + 1 >= config.thread_parts or not continues(r, host, vec, stored, config):
                continue
            total = cost.get(id(host))
            total = tokens(host, False) if total is None else total
            cost[id(host)] = total
            if total >= config.thread_tokens:
                continue
            extra = tokens(r, True) if extra is None else extra
            if total + extra <= config.thread_tokens:
                host.parts.append(r)
                cost[id(host)] = total + extra
                break
        else:
            out.append(r)
    return out


def continues(
    part: Ranked, host: Ranked, vec: np.ndarray, stored: dict[tuple[str, int], np.ndarray], config: FusionConfig
) -> bool:
    """Is event ``part`` a further mention of what event card ``host`` is about: the same
    speaker and language, a cosine of at least ``thread_similarity`` between the two memories' vectors,
    at least ``thread_share`` of the host's score, at least ``thread_min_substance`` content
    words of its own (a reaction or a question mentions nothing), and another session or another time
    (two turns of one chat about one moment are context, not a second mention)."""
    a, b = part.hit.record, host.hit.record
    other = stored.get((host.hit.track, host.hit.item_id))
    if not isinstance(a, Event) or not isinstance(b, Event) or other is None:
        return False
    if (
        a.speaker.casefold() != b.speaker.casefold()
        or a.lang != b.lang
        or part.score < config.thread_share * host.score
        or substance(a.text) < config.thread_min_substance
    ):
        return False
    if a.session_id == b.session_id and (a.start is None or b.start is None or a.start == b.start):
        return False
    seen = [b, *(p.hit.record for p in host.parts)]
    if any(isinstance(s, Event) and s.turn_id == a.turn_id for s in seen):
        return False
    return float(vec @ other) >= config.thread_similarity


def _dedup(ranked: list[Ranked], config: FusionConfig, stored: dict[tuple[str, int], np.ndarray]) -> list[Ranked]:
    kept: list[Ranked] = []
    for r in ranked:
        vec = stored.get((r.hit.track, r.hit.item_id))
        twin = next((k for k in kept if _duplicates(r, k, vec, stored, config)), None) if vec is not None else None
        if twin is None:
            kept.append(r)
        else:
            twin.merged.append(r.hit)
    return kept


def _duplicates(a: Ranked, b: Ranked, vec: np.ndarray, stored: dict, config: FusionConfig) -> bool:
    other = stored.get((b.hit.track, b.hit.item_id))
    if other is None or float(vec @ other) < config.dedup_similarity:
        return False
    (text_a, keys_a), (text_b, keys_b) = content(a.hit), content(b.hit)
    return distinctive(text_a, keys_a) == distinctive(text_b, keys_b)
