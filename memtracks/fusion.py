"""Fusion: the track retrievers' hits merged into one ranking.

    score = relevance x confidence weight x source weight x recency

- confidence weights by how a memory was found: fact by slot 0.9, fact by meaning 0.7,
  temporal 0.8, inference 0.6;
- source weights: what the user stated > what was inferred > what was imported;
- recency: ``floor + (1 - floor) * exp(-age / tau)`` with tau 180 days for facts, 7 for
  events, 3 for inferences; age from the question's ``now``, or from the time it names;
- semantic dedup: near-identical memories merge into one card (keeping every source turn),
  but never two that differ in a number, a date or an entity — "meeting on Tuesday" and
  "meeting on Thursday" look alike to any embedder and must both stay;
- session diversity: past the first few events of a conversation, each further one counts a
  little less, so the cards are not all turns of one chat; for questions whose answer is
  spread over conversations ("how many...", 哪些) from the second event on.

All numbers are named in :class:`~memtracks.config.FusionConfig`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from .config import FusionConfig
from .records import Event, Fact, Inference
from .retrieval.hits import Hit
from .retrieval.query import Query

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


def confidence_weight(hit: Hit, config: FusionConfig) -> float:
    if hit.track == "fact":
        return config.fact_slot if hit.how in ("slot", "entity") else config.fact_semantic
    return config.temporal if hit.track == "temporal" else config.inference


def memory_interval(hit: Hit) -> tuple[datetime, datetime]:
    """The time a memory is about, for measuring its age."""
    r = hit.record
    if isinstance(r, Fact):
        return r.last_seen, r.last_seen
    if isinstance(r, Event):
        return (r.start, r.end or r.start) if r.start else (r.mentioned_at, r.mentioned_at)
    assert isinstance(r, Inference)
    start = r.valid_from or r.created_at
    return start, r.valid_to or start


def age_days(interval: tuple[datetime, datetime], reference: tuple[datetime, datetime]) -> float:
    """Days between two intervals; 0 when they overlap."""
    (a, b), (c, d) = interval, reference
    if a <= d and c <= b:
        return 0.0
    gap = (c - b) if b < c else (a - d)
    return abs(gap.total_seconds()) / 86400.0


def recency(hit: Hit, query: Query, config: FusionConfig) -> float:
    reference = query.window or (query.now, query.now)
    if hit.track == "fact" and query.wants_history:
        return 1.0  # a question about the past does not penalise what held in the past
    age = age_days(memory_interval(hit), reference)
    tau = config.decay_days(hit.track)
    return config.decay_floor + (1 - config.decay_floor) * math.exp(-age / tau)


def distinctive(text: str, keys: Sequence[str] = ()) -> frozenset[str]:
    """Numbers, dates, weekdays and entity keys: what two lookalike memories may differ in."""
    return frozenset(m.group().lower() for m in _DISTINCT.finditer(text)) | frozenset(keys)


def content(hit: Hit) -> tuple[str, tuple[str, ...]]:
    r = hit.record
    if isinstance(r, Fact):
        return f"{r.subject} {r.slot} {r.value}", (r.value_key,)
    if isinstance(r, Event):
        when = r.start.date().isoformat() if r.start else ""
        return f"{r.text} {when}", r.entity_keys
    assert isinstance(r, Inference)
    return r.text, tuple(r.args.values())


def fuse(
    hits: Sequence[Hit],
    query: Query,
    config: FusionConfig,
    vectors: Callable[[str, list[int]], dict[int, np.ndarray]],
    top_n: int,
) -> list[Ranked]:
    """Score, sort, dedup and cut ``hits`` to ``top_n``."""
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
    free = config.aggregate_session_free if query.aggregate else config.session_free
    kept = _diversify(_dedup(ranked, config, vectors), config, free)[:top_n]
    floor = kept[0].score * config.min_score_ratio if kept else 0.0
    return [r for r in kept if r.score >= floor]


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


def _dedup(
    ranked: list[Ranked], config: FusionConfig, vectors: Callable[[str, list[int]], dict[int, np.ndarray]]
) -> list[Ranked]:
    by_track: dict[str, list[int]] = {}
    for r in ranked:
        by_track.setdefault(r.hit.track, []).append(r.hit.item_id)
    stored = {(track, i): v for track, ids in by_track.items() for i, v in vectors(track, ids).items()}
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
