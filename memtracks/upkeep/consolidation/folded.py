"""Reading around folded events: an event consolidation folded into a near-duplicate is not
searched on its own; a hit on it counts for the event it was folded into, and that event's
card credits the folded turns too (so provenance, and recall by turn, lose nothing)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, cast

from memtracks.retrieval.hits import Hit
from memtracks.storage import consolidations as sql
from memtracks.storage.base import SQLStorage, Storage
from memtracks.tracks import TEMPORAL


def survivor(event_id: int, folded: dict[int, int]) -> int:
    seen = set()
    while event_id in folded and event_id not in seen:
        seen.add(event_id)
        event_id = folded[event_id]
    return event_id


def fold_hits(store: Storage, scope: str, hits: Sequence[Hit], folded: dict[int, int]) -> list[Hit]:
    """Hits on folded events become hits on their survivors (the stronger relevance wins)."""
    out: dict[tuple[str, int], Hit] = {}
    wanted = {survivor(h.item_id, folded) for h in hits if h.track == TEMPORAL.name and h.item_id in folded}
    loaded = {e.id: e for e in store.events(scope, ids=sorted(wanted))} if wanted else {}
    for hit in hits:
        if hit.track == TEMPORAL.name and hit.item_id in folded:
            target = loaded.get(survivor(hit.item_id, folded))
            if target is None:
                continue
            hit = replace(hit, record=target)
        key = (hit.track, hit.item_id)
        if key not in out or hit.relevance > out[key].relevance:
            out[key] = hit
    return list(out.values())


def credit_folded(store: Storage, scope: str, cards: Sequence[Any], folded: dict[int, int]) -> list[Any]:
    """Temporal cards whose events (a thread card's parts too) absorbed others list the folded
    events' turns too."""
    members: dict[int, list[int]] = {}
    for event_id in folded:
        members.setdefault(survivor(event_id, folded), []).append(event_id)

    def own(card: Any) -> list[int]:  # the card's events that absorbed others
        ids = [card.memory_id, *(p.memory_id for p in card.parts)]
        return [i for i in ids if i in members] if card.track == TEMPORAL.name else []

    ids = sorted({m for c in cards for i in own(c) for m in members[i]})
    if not ids:
        return list(cards)
    turns: dict[int, str] = {e.id: e.turn_id for e in store.events(scope, ids=ids)}  # type: ignore[misc]

    def extra(event_id: int, cited: Sequence[str]) -> tuple[str, ...]:
        found = [turns[m] for m in members.get(event_id, []) if m in turns]
        return tuple(dict.fromkeys(t for t in found if t not in cited))

    out = []
    for card in cards:
        if not own(card):
            out.append(card)
            continue
        parts = tuple(
            replace(p, source_turn_ids=(*p.source_turn_ids, *extra(p.memory_id, p.source_turn_ids))) for p in card.parts
        )
        cited = list(card.source_turn_ids)
        for event_id in (card.memory_id, *(p.memory_id for p in card.parts)):
            cited += [t for t in extra(event_id, cited)]
        out.append(replace(card, source_turn_ids=tuple(cited), parts=parts))
    return out


def folded_events(store: Storage, scope: str) -> dict[int, int]:
    return sql.merged_events(cast(SQLStorage, store), scope)  # both stores run the consolidation SQL


__all__ = ["credit_folded", "fold_hits", "folded_events", "survivor"]
