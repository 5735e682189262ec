"""Reading around folded events: an event consolidation folded into a near-duplicate is not
searched on its own; a hit on it counts for the event it was folded into, and that event's
card credits the folded turns too (so provenance, and recall by turn, lose nothing)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, cast

from ..retrieval.hits import Hit
from ..storage import consolidations as sql
from ..storage.base import SQLStorage, Storage


def survivor(event_id: int, folded: dict[int, int]) -> int:
    seen = set()
    while event_id in folded and event_id not in seen:
        seen.add(event_id)
        event_id = folded[event_id]
    return event_id


def fold_hits(store: Storage, scope: str, hits: Sequence[Hit], folded: dict[int, int]) -> list[Hit]:
    """Hits on folded events become hits on their survivors (the stronger relevance wins)."""
    out: dict[tuple[str, int], Hit] = {}
    wanted = {survivor(h.item_id, folded) for h in hits if h.track == "temporal" and h.item_id in folded}
    loaded = {e.id: e for e in store.events(scope, ids=sorted(wanted))} if wanted else {}
    for hit in hits:
        if hit.track == "temporal" and hit.item_id in folded:
            target = loaded.get(survivor(hit.item_id, folded))
            if target is None:
                continue
            hit = replace(hit, record=target)
        key = (hit.track, hit.item_id)
        if key not in out or hit.relevance > out[key].relevance:
            out[key] = hit
    return list(out.values())


def credit_folded(store: Storage, scope: str, cards: Sequence[Any], folded: dict[int, int]) -> list[Any]:
    """Temporal cards whose event absorbed others list the folded events' turns too."""
    members: dict[int, list[int]] = {}
    for event_id in folded:
        members.setdefault(survivor(event_id, folded), []).append(event_id)
    shown = [c for c in cards if c.track == "temporal" and c.memory_id in members]
    if not shown:
        return list(cards)
    ids = sorted({m for c in shown for m in members[c.memory_id]})
    turns: dict[int, str] = {e.id: e.turn_id for e in store.events(scope, ids=ids)}  # type: ignore[misc]
    out = []
    for card in cards:
        extra = [turns[m] for m in members.get(card.memory_id, []) if m in turns] if card in shown else []
        extra = [t for t in extra if t not in card.source_turn_ids]
        out.append(replace(card, source_turn_ids=(*card.source_turn_ids, *extra)) if extra else card)
    return out


def folded_events(store: Storage, scope: str) -> dict[int, int]:
    return sql.merged_events(cast(SQLStorage, store), scope)  # both stores run the consolidation SQL


__all__ = ["credit_folded", "fold_hits", "folded_events", "survivor"]
