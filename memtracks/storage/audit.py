"""What ``memtracks check`` reads from the file, below the records: SQLite's own integrity
check, the header, every scope that has rows anywhere, the stored vectors with their
checksums verified, and the lookup tables (entity keys, happening kinds, premises) as stored.
:mod:`memtracks.upkeep.integrity` compares them with the records."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from memtracks.storage import codec
from memtracks.storage.base import SQLStorage

TABLES = ("turns", "facts", "events", "inferences", "vectors", "items")


def integrity_errors(store: SQLStorage, *, quick: bool = False) -> list[str]:
    """The database's own integrity check: what it found wrong, nothing if sound."""
    return store.integrity_errors(quick=quick)


def header(store: SQLStorage) -> tuple[int, int]:
    """(application id, schema version) of the database."""
    return store.header()


def scopes(store: SQLStorage) -> list[str]:
    """Every scope with a row in any table, orphans included."""
    return sorted({r[0] for table in TABLES for r in store._rows(f"SELECT DISTINCT user_id FROM {table}")})


def vectors(store: SQLStorage, scope: str, track: str) -> list[tuple[int, str, bool]]:
    """(item id, hash of the text it was made from, checksum matches) of each stored vector."""
    rows = store._rows(
        "SELECT item_id, content_hash, vector, checksum FROM vectors WHERE user_id = ? AND track = ?", (scope, track)
    )
    return [
        (i, text_hash, codec.vector_checksum(scope, track, i, blob) == checksum)
        for i, text_hash, blob, checksum in rows
    ]


def event_lookups(store: SQLStorage, scope: str) -> tuple[dict[int, set[str]], dict[int, set[str]]]:
    """({event id: entity keys}, {event id: happening kinds}) as the lookup tables hold them."""
    keys: dict[int, set[str]] = defaultdict(set)
    for key, event_id in store._rows("SELECT key, event_id FROM event_entities WHERE user_id = ?", (scope,)):
        keys[event_id].add(key)
    kinds: dict[int, set[str]] = defaultdict(set)
    for kind, event_id in store._rows("SELECT kind, event_id FROM event_kinds WHERE user_id = ?", (scope,)):
        kinds[event_id].add(kind)
    return keys, kinds


def premise_lookups(store: SQLStorage, scope: str) -> dict[int, set[tuple[str, int]]]:
    """{conclusion id: (track, premise id) pairs} as the premise table holds them."""
    premises: dict[int, set[tuple[str, int]]] = defaultdict(set)
    for track, premise, inference in store._rows(
        "SELECT track, premise_id, inference_id FROM inference_premises WHERE user_id = ?", (scope,)
    ):
        premises[inference].add((track, premise))
    return premises


def damaged_rows(store: SQLStorage, scope: str) -> list[tuple[str, dict[str, Any]]]:
    """(table, the row as stored) of every row of ``scope`` whose values no longer match its
    checksum (:func:`memtracks.storage.codec.checksum`)."""
    out = []
    for table, columns in codec.COLUMNS.items():
        for row in store._rows(f"SELECT * FROM {table} WHERE user_id = ?", (scope,)):
            if row["crc"] is None or codec.checksum(row[c] for c in columns) != row["crc"]:
                out.append((table, {k: row[k] for k in row.keys()}))
    return out


def quarantined(store: SQLStorage, scope: str) -> dict[str, set[str]]:
    """{table: keys} of the rows of ``scope`` set aside in the quarantine (keys as text)."""
    found: dict[str, set[str]] = defaultdict(set)
    for source, item in store._rows("SELECT source, item FROM quarantine WHERE user_id = ?", (scope,)):
        found[source].add(item)
    return found


SATELLITES = {  # what hangs off a row of each table, removed with it
    "facts": [("vectors", "track = 'fact' AND item_id")],
    "events": [
        ("vectors", "track = 'event' AND item_id"),
        ("event_entities", "event_id"),
        ("event_kinds", "event_id"),
        ("event_links", "src"),
        ("event_links", "dst"),
    ],
    "inferences": [("vectors", "track = 'inference' AND item_id"), ("inference_premises", "inference_id")],
}


def quarantine(store: SQLStorage, scope: str, table: str, row: dict[str, Any], reason: str, at: str) -> str:
    """Set a damaged row aside: its values as found go to the quarantine, with when and why,
    and it leaves its table with what hangs off it (its vector, lookups, links). Returns its key."""
    keys = codec.ROW_KEYS[table]
    item = str(row[keys[1]]) if len(keys) == 2 else json.dumps([row[k] for k in keys[1:]], ensure_ascii=False)
    store.db.execute(
        "INSERT INTO quarantine (user_id, source, item, row, reason, at) VALUES (?, ?, ?, ?, ?, ?)",
        (scope, table, item, json.dumps(row, ensure_ascii=False, default=str), reason, at),
    )
    where = " AND ".join(f'"{k}" = ?' for k in keys)
    store.db.execute(f"DELETE FROM {table} WHERE {where}", [row[k] for k in keys])
    for satellite, column in SATELLITES.get(table, []):
        store.db.execute(f"DELETE FROM {satellite} WHERE user_id = ? AND {column} = ?", (scope, row["id"]))
    return item
