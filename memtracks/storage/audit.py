"""What ``memtracks check`` reads from the file, below the records: SQLite's own integrity
check, the header, every scope that has rows anywhere, the stored vectors with their
checksums verified, and the lookup tables (entity keys, happening kinds, premises) as stored.
:mod:`memtracks.integrity` compares them with the records."""

from __future__ import annotations

from collections import defaultdict

from . import codec
from .base import SQLStorage

TABLES = ("turns", "facts", "events", "inferences", "vectors")


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
