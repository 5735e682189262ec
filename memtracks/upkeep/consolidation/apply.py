"""Carrying out a consolidation plan, and taking it back.

Nothing is deleted. A folded fact stays, ended with reason "merged" and ``superseded_by``
pointing at the fact that now carries its value, time and turns; a superseded one goes
through the fact track's supersede machinery. A folded event stays in its table and is only
left out of search, its turn credited to the event it was folded into, whose metadata gains
a ``consolidated_from`` trail (metadata merges the seed's way: newer values win, tags are
united). Before anything is written, the whole rows it will touch are kept as a preimage;
``undo`` checks nothing changed them since and writes the preimage back.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memtracks.errors import ConsolidationError, NotFoundError
from memtracks.pipeline.conflicts import FactChanges, supersede
from memtracks.records import Event, Fact
from memtracks.storage import consolidations as sql
from memtracks.tracks import FACTS, TEMPORAL
from memtracks.upkeep.consolidation.plan import Action

if TYPE_CHECKING:
    from memtracks.parts import Parts

ORIGIN = "memtracks.consolidate"  # stands in for a turn id in what consolidation derives


def merge_metadata(older: dict[str, Any], newer: dict[str, Any]) -> dict[str, Any]:
    """Newer values win; ``tags`` lists are united (order kept, older first)."""
    merged = {**older, **newer}
    tags = [*_tags(older), *_tags(newer)]
    if tags:
        merged["tags"] = list(dict.fromkeys(tags))
    return merged


def _tags(meta: dict[str, Any]) -> list[Any]:
    tags = meta.get("tags")
    return list(tags) if isinstance(tags, list | tuple) else ([tags] if tags is not None else [])


def _folded_fact(target: Fact, member: Fact, value: str, value_key: str) -> Fact:
    turns = tuple(dict.fromkeys((*target.source_turn_ids, *member.source_turn_ids)))
    return replace(
        target,
        value=value,
        value_key=value_key,
        valid_from=min(target.valid_from, member.valid_from),
        recorded_at=min(target.recorded_at, member.recorded_at),
        last_seen=max(target.last_seen, member.last_seen),
        mention_count=target.mention_count + member.mention_count,
        source_turn_ids=turns,
        confidence=max(target.confidence, member.confidence),
    )


def _fact_changes(facts: dict[int, Fact], actions: Sequence[Action], at: datetime) -> tuple[FactChanges, list[Fact]]:
    """The fact rows the plan writes, and the survivors whose value changed (to embed again)."""
    updated: dict[int, Fact] = {}
    reworded = []
    touched: list[int] = []
    for a in actions:
        member_id = a.members[0]
        target, member = facts[a.target], facts[member_id]
        if a.kind == "replace":
            start = max(target.valid_from, member.valid_from)
            updated[member_id] = supersede(member, start, a.target, reason="replaced", learned=at)
            continue
        source = member if a.after == member.value else target
        survivor = _folded_fact(target, member, source.value, source.value_key)
        updated[a.target] = survivor
        updated[member_id] = supersede(member, member.valid_from, a.target, reason="merged", learned=at)
        touched.append(a.target)
        if survivor.value != target.value:
            reworded.append(survivor)
    ended = tuple(a.members[0] for a in actions)
    return FactChanges(updated=tuple(updated.values()), touched=tuple(touched), ended=ended), reworded


def _image(parts: Parts, scope: str, fact_ids: Sequence[int], event_ids: Sequence[int]) -> dict[str, Any]:
    store = parts.store
    return {
        "facts": {str(k): v for k, v in sql.rows(store, scope, "fact", fact_ids).items()},
        "inferences": {str(k): v for k, v in sql.rows(store, scope, "inference").items()},
        "events": {str(k): v for k, v in sql.event_metadata(store, scope, event_ids).items()},
        "vectors": {str(k): list(v) for k, v in sql.vectors(store, scope, "fact", fact_ids).items()},
    }


def apply(parts: Parts, scope: str, actions: Sequence[Action], at: datetime) -> str:
    """Write the plan's changing actions in one transaction; returns the operation id."""
    store = parts.store
    operation_id = f"cons-{uuid.uuid4().hex[:12]}"
    doing = [a for a in actions if a.kind != "keep_separate"]
    fact_ids = sorted({i for a in doing if a.track == FACTS.stored for i in (a.target, *a.members)})
    event_ids = sorted({a.target for a in doing if a.track == TEMPORAL.stored})
    with store.transaction():
        before = _image(parts, scope, fact_ids, event_ids)
        first_new_fact = store.next_id("facts")
        facts = {f.id: f for f in store.facts_by_id(scope, fact_ids) if f.id is not None}
        changes, reworded = _fact_changes(facts, [a for a in doing if a.track == FACTS.stored], at)
        if changes.updated:
            parts.writer.apply_changes(scope, changes, at, ORIGIN)
        _embed(parts, scope, reworded)
        _fold_events(parts, scope, [a for a in doing if a.track == TEMPORAL.stored], operation_id)
        after = _image(parts, scope, fact_ids, event_ids)
        created = sorted(set(after["inferences"]) - set(before["inferences"]), key=int)
        changed = [
            k
            for k in after["inferences"]
            if k in before["inferences"] and after["inferences"][k] != before["inferences"][k]
        ]
        before["inferences"] = {k: before["inferences"][k] for k in changed}
        after["inferences"] = {k: after["inferences"][k] for k in [*changed, *created]}
        after["created_inferences"] = [int(k) for k in created]
        after["created_facts"] = [f.id for f in store.facts(scope, after=first_new_fact - 1)]
        sql.record_run(store, operation_id, scope, at.isoformat(), [a.to_dict() for a in doing], before, after)
        store.bump_generation(scope)
    _rewritten(parts, scope)
    return operation_id


def _embed(parts: Parts, scope: str, facts: Sequence[Fact]) -> None:
    """A survivor that took a new wording is searched by it: embed it again."""
    pending = [parts.writer.pending(FACTS, scope, f) for f in facts]
    parts.writer.embed(pending)
    parts.store.save_vectors(scope, FACTS.stored, [(p.item_id, p.content_hash, p.vector) for p in pending])  # type: ignore[misc]


def _fold_events(parts: Parts, scope: str, actions: Sequence[Action], operation_id: str) -> None:
    if not actions:
        return
    store = parts.store
    ids = sorted({i for a in actions for i in (a.target, *a.members)})
    events = {e.id: e for e in store.events(scope, ids=ids)}
    trails: dict[int, list[Event]] = {}
    for a in actions:
        trails.setdefault(a.target, []).extend(events[m] for m in a.members)
    sql.merge_events(store, scope, [(m, a.target) for a in actions for m in a.members], operation_id)
    for target_id, folded in trails.items():
        target = events[target_id]
        meta = dict(target.metadata)
        for e in sorted([target, *folded], key=lambda e: (e.mentioned_at, e.id)):
            meta = merge_metadata(meta, e.metadata) if e is not target else merge_metadata(meta, target.metadata)
        trail = [*meta.get("consolidated_from", []), *(f"event:{e.id}" for e in folded)]
        meta["consolidated_from"] = list(dict.fromkeys(trail))
        sql.set_event_metadata(store, scope, target_id, json.dumps(meta, ensure_ascii=False, default=str))


def _rewritten(parts: Parts, scope: str) -> None:
    parts.indexes.evict(scope)
    parts.writer.reset_caches()


# ---------------------------------------------------------------------- undo


def undo(parts: Parts, operation_id: str, at: datetime) -> dict[str, Any]:
    """Put back exactly what run ``operation_id`` changed; refuses if anything changed since."""
    store = parts.store
    with store.transaction():
        run = sql.run(store, operation_id)
        if run is None:
            raise NotFoundError(f"no consolidation {operation_id!r} (ids look like 'cons-…'; an erasure drops them)")
        if run["undone_at"] is not None:
            raise ConsolidationError(f"consolidation {operation_id} was already undone at {run['undone_at']}")
        scope, before, after = run["user_id"], run["preimage"], run["after"]
        now = _image(parts, scope, [int(k) for k in after["facts"]], [int(k) for k in after["events"]])
        now_inferences = sql.rows(store, scope, "inference", [int(k) for k in after["inferences"]])
        stale = [f"fact:{k}" for k, v in after["facts"].items() if now["facts"].get(k) != v]
        stale += [f"event:{k}" for k, v in after["events"].items() if now["events"].get(k) != v]
        stale += [f"inference:{k}" for k, v in after["inferences"].items() if now_inferences.get(int(k)) != v]
        if stale:
            raise ConsolidationError(
                f"cannot undo {operation_id}: {', '.join(stale[:5])} changed since it ran; nothing was undone"
            )
        sql.put_rows(store, "fact", before["facts"].values())
        sql.put_rows(store, "inference", before["inferences"].values())
        sql.delete_created(store, scope, "inference", after["created_inferences"])
        sql.delete_created(store, scope, "fact", after["created_facts"])
        for event_id, meta in before["events"].items():
            sql.set_event_metadata(store, scope, int(event_id), meta)
        sql.put_vectors(store, scope, "fact", {int(k): (v[0], v[1]) for k, v in before["vectors"].items()})
        sql.unmerge(store, scope, operation_id)
        sql.mark_undone(store, scope, operation_id, at.isoformat())
        store.bump_generation(scope)
    _rewritten(parts, scope)
    return run
