"""Real deletion: the SQL behind ``Memory.forget`` and ``Memory.rebuild``.

Deleting is the one place memtracks removes rows. What to delete is decided by
:mod:`memtracks.upkeep.lifecycle`; these functions remove the rows of one scope, keep the event
chain walkable across the gap, and make sure the content is gone from the file, not only
unreachable: ``secure_delete`` overwrites freed pages, the write-ahead log is truncated, and
``VACUUM`` (optional) rewrites the whole file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

from memtracks.storage.base import SQLStorage
from memtracks.storage.dialect import marks

CHUNK = 500


def _chunks(items: Sequence[Any]) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), CHUNK):
        yield items[start : start + CHUNK]


def _delete_in(store: SQLStorage, sql: str, scope: str, items: Iterable[Any]) -> None:
    """Run ``sql`` (with ``{marks}`` for the placeholders) over ``items`` in chunks."""
    items = list(items)
    for chunk in _chunks(items):
        store.db.execute(sql.format(marks=marks(chunk)), (scope, *chunk))


def overwriting(store: SQLStorage) -> AbstractContextManager[None]:
    """Deleted content is overwritten while the block runs (the store's own way)."""
    return store.overwriting()


def relink(store: SQLStorage, scope: str, event_ids: set[int]) -> None:
    """Join the "next" chain across removed events: a -> x -> b becomes a -> b."""
    if not event_ids:
        return
    rows = store.db.execute("SELECT src, dst FROM event_links WHERE user_id = ? AND kind = 'next'", (scope,)).fetchall()
    after = {src: dst for src, dst in rows}
    before = {dst: src for src, dst in rows}
    joins = set()
    for gone in event_ids:
        if gone in before and before[gone] in event_ids:
            continue  # handled from the first removed event of the run
        start, end = before.get(gone), after.get(gone)
        while end in event_ids:
            end = after.get(end)
        if start is not None and end is not None and start not in event_ids:
            joins.add((start, end))
    store.db.executemany(
        "INSERT OR IGNORE INTO event_links VALUES (?, ?, ?, 'next', '')", [(scope, a, b) for a, b in sorted(joins)]
    )


def delete_rows(
    store: SQLStorage,
    scope: str,
    *,
    turn_ids: Iterable[str] = (),
    event_ids: Iterable[int] = (),
    fact_ids: Iterable[int] = (),
    inference_ids: Iterable[int] = (),
) -> None:
    """Remove these rows of ``scope`` and everything indexed by them."""
    events, facts, inferences = list(event_ids), list(fact_ids), list(inference_ids)
    turn_ids = list(turn_ids)
    _delete_in(store, "DELETE FROM turns WHERE user_id = ? AND turn_id IN ({marks})", scope, turn_ids)
    _delete_in(store, "DELETE FROM items WHERE user_id = ? AND key IN ({marks})", scope, turn_ids)  # their store items
    for table in ("event_entities", "event_kinds"):
        _delete_in(store, f"DELETE FROM {table} WHERE user_id = ? AND event_id IN ({{marks}})", scope, events)
    for column in ("src", "dst"):
        _delete_in(store, f"DELETE FROM event_links WHERE user_id = ? AND {column} IN ({{marks}})", scope, events)
    _delete_in(store, "DELETE FROM events WHERE user_id = ? AND id IN ({marks})", scope, events)
    for column in ("event_id", "into_id"):  # a folded event whose twin is erased is searched again
        _delete_in(store, f"DELETE FROM merged_events WHERE user_id = ? AND {column} IN ({{marks}})", scope, events)
    # consolidation images hold the content of what they changed: an erasure takes them too
    store.db.execute("DELETE FROM consolidations WHERE user_id = ?", (scope,))
    _delete_in(store, "DELETE FROM facts WHERE user_id = ? AND id IN ({marks})", scope, facts)
    _delete_in(store, "DELETE FROM inferences WHERE user_id = ? AND id IN ({marks})", scope, inferences)
    _delete_in(
        store, "DELETE FROM inference_premises WHERE user_id = ? AND inference_id IN ({marks})", scope, inferences
    )
    for track, ids in (("event", events), ("fact", facts), ("inference", inferences)):
        _delete_in(
            store, f"DELETE FROM vectors WHERE user_id = ? AND track = '{track}' AND item_id IN ({{marks}})", scope, ids
        )


def delete_scope(store: SQLStorage, scope: str, *, keep_turns: bool = False) -> None:
    """Remove every row of ``scope`` (its turns too, unless ``keep_turns``)."""
    tables = [
        "facts",
        "events",
        "event_entities",
        "event_kinds",
        "event_links",
        "names",
        "inferences",
        "inference_premises",
        "vectors",
        "merged_events",
        "consolidations",
    ]
    for table in tables + ([] if keep_turns else ["turns", "items"]):
        store.db.execute(f"DELETE FROM {table} WHERE user_id = ?", (scope,))


def delete_items(store: SQLStorage, scope: str) -> int:
    """Remove every store item of ``scope`` (an erasure of everything); returns how many."""
    return int(store.db.execute("DELETE FROM items WHERE user_id = ?", (scope,)).rowcount)


def prune_names(store: SQLStorage, scope: str) -> int:
    """Forget names no remaining turn of ``scope`` mentions; returns how many."""
    cursor = store.db.execute(
        "DELETE FROM names WHERE user_id = ? AND NOT EXISTS (SELECT 1 FROM turns t WHERE t.user_id = ? "
        "AND instr(lower(t.text), lower(names.surface)) > 0)",
        (scope, scope),
    )
    return cursor.rowcount


def record_erasure(
    store: SQLStorage, scope: str, at: datetime, selector: dict[str, Any], counts: dict[str, int]
) -> None:
    """The audit trail of an erasure: when, how the turns were chosen, how many of each — no content."""
    store.db.execute(
        "INSERT INTO erasures (user_id, at, selector, counts) VALUES (?, ?, ?, ?)",
        (scope, at.isoformat(), json.dumps(selector, sort_keys=True), json.dumps(counts, sort_keys=True)),
    )


def erasures(store: SQLStorage, scope: str) -> list[dict[str, Any]]:
    rows = store.execute("SELECT at, selector, counts FROM erasures WHERE user_id = ? ORDER BY id", (scope,))
    return [{"at": r[0], "selector": json.loads(r[1]), "counts": json.loads(r[2])} for r in rows.fetchall()]


def scrub(store: SQLStorage, *, vacuum: bool = False) -> None:
    """Make deleted content unrecoverable from the database (see the store's ``scrub``)."""
    store.scrub(vacuum=vacuum)
