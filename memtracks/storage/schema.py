"""The SQLite schema as numbered migrations; ``PRAGMA user_version`` counts those applied.

Add a change as a new function at the end of ``MIGRATIONS``; never edit one that shipped.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager

from memtracks.errors import NotAMemoryFileError, SchemaVersionError
from memtracks.storage import codec


def _run(db: sqlite3.Connection, script: str) -> None:
    """Execute statements one by one (``executescript`` would commit the open transaction)."""
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


def m001_initial(db: sqlite3.Connection) -> None:
    _run(
        db,
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE turns (
            user_id TEXT NOT NULL, turn_id TEXT NOT NULL, session_id TEXT NOT NULL,
            speaker TEXT NOT NULL, text TEXT NOT NULL, lang TEXT NOT NULL,
            ts TEXT NOT NULL, ts_epoch REAL NOT NULL, source TEXT NOT NULL,
            metadata TEXT NOT NULL, content_hash TEXT NOT NULL, seq INTEGER NOT NULL,
            PRIMARY KEY (user_id, turn_id)
        );
        CREATE INDEX turns_session ON turns (user_id, session_id, seq);
        CREATE TABLE facts (
            id INTEGER PRIMARY KEY, user_id TEXT NOT NULL, subject TEXT NOT NULL,
            slot TEXT NOT NULL, value TEXT NOT NULL, value_key TEXT NOT NULL,
            negated INTEGER NOT NULL, source TEXT NOT NULL, confidence REAL NOT NULL,
            valid_from TEXT NOT NULL, valid_to TEXT, recorded_at TEXT NOT NULL,
            last_seen TEXT NOT NULL, last_seen_epoch REAL NOT NULL, superseded_by INTEGER,
            mention_count INTEGER NOT NULL, source_turn_ids TEXT NOT NULL,
            lang TEXT NOT NULL, origin TEXT NOT NULL
        );
        CREATE INDEX facts_subject_slot ON facts (user_id, subject, slot);
        CREATE INDEX facts_slot ON facts (user_id, slot);
        CREATE TABLE events (
            id INTEGER PRIMARY KEY, user_id TEXT NOT NULL, session_id TEXT NOT NULL,
            turn_id TEXT NOT NULL, speaker TEXT NOT NULL, subject TEXT NOT NULL,
            text TEXT NOT NULL, lang TEXT NOT NULL, mentioned_at TEXT NOT NULL,
            mentioned_epoch REAL NOT NULL, start TEXT, start_epoch REAL, "end" TEXT,
            end_epoch REAL, granularity TEXT, times TEXT NOT NULL, happenings TEXT NOT NULL,
            kinds TEXT NOT NULL, entity_keys TEXT NOT NULL, source TEXT NOT NULL,
            seq INTEGER NOT NULL
        );
        CREATE INDEX events_mentioned ON events (user_id, mentioned_epoch);
        CREATE INDEX events_start ON events (user_id, start_epoch);
        CREATE INDEX events_turn ON events (user_id, turn_id);
        CREATE INDEX events_session ON events (user_id, session_id, seq);
        CREATE TABLE event_entities (
            user_id TEXT NOT NULL, key TEXT NOT NULL, event_id INTEGER NOT NULL,
            PRIMARY KEY (user_id, key, event_id)
        );
        CREATE TABLE event_links (
            user_id TEXT NOT NULL, src INTEGER NOT NULL, dst INTEGER NOT NULL,
            kind TEXT NOT NULL, key TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (user_id, src, dst, kind, key)
        );
        CREATE TABLE names (
            user_id TEXT NOT NULL, surface TEXT NOT NULL, key TEXT NOT NULL,
            label TEXT NOT NULL, PRIMARY KEY (user_id, surface)
        );
        CREATE TABLE inferences (
            id INTEGER PRIMARY KEY, user_id TEXT NOT NULL, rule_id TEXT NOT NULL,
            subject TEXT NOT NULL, kind TEXT NOT NULL, text TEXT NOT NULL, lang TEXT NOT NULL,
            created_at TEXT NOT NULL, created_epoch REAL NOT NULL, premises TEXT NOT NULL,
            confidence REAL NOT NULL, valid_from TEXT, valid_to TEXT, status TEXT NOT NULL,
            retracted_at TEXT, retracted_because TEXT, source_turn_ids TEXT NOT NULL,
            derived_fact_id INTEGER, args TEXT NOT NULL, key TEXT NOT NULL,
            UNIQUE (user_id, key)
        );
        CREATE TABLE inference_premises (
            user_id TEXT NOT NULL, track TEXT NOT NULL, premise_id INTEGER NOT NULL,
            inference_id INTEGER NOT NULL,
            PRIMARY KEY (user_id, track, premise_id, inference_id)
        );
        CREATE TABLE vectors (
            user_id TEXT NOT NULL, track TEXT NOT NULL, item_id INTEGER NOT NULL,
            content_hash TEXT NOT NULL, vector BLOB NOT NULL,
            PRIMARY KEY (user_id, track, item_id)
        );
        """,
    )


def m002_event_kinds(db: sqlite3.Connection) -> None:
    """Index events by happening kind, so rules find a user's trips without a full scan."""
    _run(
        db,
        """
        CREATE TABLE event_kinds (
            user_id TEXT NOT NULL, kind TEXT NOT NULL, event_id INTEGER NOT NULL,
            PRIMARY KEY (user_id, kind, event_id)
        );
        """,
    )
    rows = db.execute("SELECT user_id, kinds, id FROM events WHERE kinds != ''").fetchall()
    db.executemany(
        "INSERT OR IGNORE INTO event_kinds VALUES (?, ?, ?)",
        [(user, kind, event_id) for user, kinds, event_id in rows for kind in kinds.split()],
    )


def m003_inference_kind_index(db: sqlite3.Connection) -> None:
    """Find the latest conclusions of a kind without scanning all of a user's inferences."""
    _run(db, "CREATE INDEX inferences_kind ON inferences (user_id, kind, status, id)")


def m004_lifecycle(db: sqlite3.Connection) -> None:
    """Why a fact stopped holding; turn metadata on events; erasure audit; indexes that
    erasure, time filters and the tail refresh of other processes' writes look up by."""
    _run(
        db,
        """
        ALTER TABLE facts ADD COLUMN reason TEXT;
        ALTER TABLE events ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
        CREATE TABLE erasures (
            id INTEGER PRIMARY KEY, user_id TEXT NOT NULL, at TEXT NOT NULL,
            selector TEXT NOT NULL, counts TEXT NOT NULL
        );
        CREATE INDEX turns_time ON turns (user_id, ts_epoch);
        CREATE INDEX event_links_dst ON event_links (user_id, dst);
        """,
    )
    db.execute(
        "UPDATE facts SET reason = CASE WHEN superseded_by IS NULL THEN 'ended' "
        "WHEN (SELECT f.negated FROM facts f WHERE f.id = facts.superseded_by) = 1 THEN 'ended' "
        "ELSE 'replaced' END WHERE superseded_by IS NOT NULL OR valid_to IS NOT NULL"
    )
    db.execute(
        "UPDATE events SET metadata = COALESCE((SELECT t.metadata FROM turns t WHERE t.user_id = events.user_id "
        "AND t.turn_id = events.turn_id), '{}')"
    )


def m005_fact_changes(db: sqlite3.Connection) -> None:
    """When memtracks learned that a fact stopped holding, dated plans, and the people a
    speaker names by their relation ("my brother Tom")."""
    _run(
        db,
        """
        ALTER TABLE facts ADD COLUMN superseded_at TEXT;
        ALTER TABLE facts ADD COLUMN planned INTEGER NOT NULL DEFAULT 0;
        UPDATE facts SET superseded_at = COALESCE((SELECT f.recorded_at FROM facts f WHERE f.id = facts.superseded_by),
                                                  valid_to)
            WHERE valid_to IS NOT NULL OR superseded_by IS NOT NULL;
        CREATE TABLE relations (
            user_id TEXT NOT NULL, owner TEXT NOT NULL, relation TEXT NOT NULL, name TEXT NOT NULL,
            PRIMARY KEY (user_id, owner, relation, name)
        );
        """,
    )


def m006_fact_revisions(db: sqlite3.Connection) -> None:
    """Earlier endings of a fact whose ending was rewritten by hand (a correction, a
    retraction, a predecessor reopened), so the as-of rule reads it as it was known then."""
    _run(db, "ALTER TABLE facts ADD COLUMN revisions TEXT NOT NULL DEFAULT '[]'")


def m007_consolidations(db: sqlite3.Connection) -> None:
    """Consolidation runs with the preimage of every row they changed (so ``undo`` restores
    them exactly), and the events a run folded into a near-duplicate."""
    _run(
        db,
        """
        CREATE TABLE consolidations (
            id TEXT PRIMARY KEY, user_id TEXT NOT NULL, at TEXT NOT NULL, actions TEXT NOT NULL,
            preimage TEXT NOT NULL, after TEXT NOT NULL, undone_at TEXT
        );
        CREATE INDEX consolidations_user ON consolidations (user_id, at);
        CREATE TABLE merged_events (
            user_id TEXT NOT NULL, event_id INTEGER NOT NULL, into_id INTEGER NOT NULL,
            operation_id TEXT NOT NULL, PRIMARY KEY (user_id, event_id)
        );
        """,
    )


def m008_integrity(db: sqlite3.Connection) -> None:
    """A checksum over each stored vector, so a damaged one is noticed rather than served; and
    the log of erased memory ids, so other processes drop them from their indexes in place."""
    _run(
        db,
        """
        ALTER TABLE vectors ADD COLUMN checksum INTEGER;
        CREATE TABLE erased_items (
            seq INTEGER PRIMARY KEY, user_id TEXT NOT NULL, track TEXT NOT NULL, item_id INTEGER NOT NULL
        );
        CREATE INDEX erased_items_user ON erased_items (user_id, seq);
        CREATE INDEX erased_items_id ON erased_items (track, item_id);
        """,
    )
    rows = db.execute("SELECT rowid, user_id, track, item_id, vector FROM vectors").fetchall()
    db.executemany(
        "UPDATE vectors SET checksum = ? WHERE rowid = ?",
        [(codec.vector_checksum(r[1], r[2], r[3], r[4]), r[0]) for r in rows],
    )


def m009_chain_reverse_index(db: sqlite3.Connection) -> None:
    """Walk the event chain backwards from the index alone. Without ``src`` in it, SQLite
    preferred scanning all of a user's links through the primary key (which covers ``src``)
    to looking ``dst`` up: ~10 ms a look-up at 100k memories instead of microseconds."""
    _run(
        db,
        """
        CREATE INDEX event_links_dst_src ON event_links (user_id, dst, src);
        DROP INDEX event_links_dst;
        """,
    )


def m010_store_items(db: sqlite3.Connection) -> None:
    """Items of the LangGraph store kept as they were put: the value as JSON, under its
    namespace and key, whether it is searched (an item put with ``index=False``, or without
    text, is stored and read back but never searched), and the order items were first put."""
    _run(
        db,
        """
        CREATE TABLE items (
            user_id TEXT NOT NULL, namespace TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
            indexed INTEGER NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, seq INTEGER NOT NULL,
            PRIMARY KEY (user_id, namespace, key)
        );
        CREATE INDEX items_order ON items (user_id, seq)
        """,
    )


def m011_row_checksums(db: sqlite3.Connection) -> None:
    """A checksum per stored turn, fact, event, conclusion and store item (``crc``: see
    :mod:`memtracks.storage.codec`), computed here for the rows already stored; and the
    quarantine, where ``check --repair`` sets aside a damaged row (its values as found, when
    and why) instead of deleting it."""
    for table in codec.COLUMNS:
        db.execute(f"ALTER TABLE {table} ADD COLUMN crc INTEGER")
    _run(
        db,
        """
        CREATE TABLE quarantine (
            id INTEGER PRIMARY KEY, user_id TEXT NOT NULL, source TEXT NOT NULL, item TEXT NOT NULL,
            row TEXT NOT NULL, reason TEXT NOT NULL, at TEXT NOT NULL
        );
        CREATE INDEX quarantine_user ON quarantine (user_id, source)
        """,
    )
    seal_all(db)


def seal_all(db: sqlite3.Connection) -> None:
    """Compute every row's checksum from its stored values."""
    for table, columns in codec.COLUMNS.items():
        listed = ", ".join(f'"{c}"' for c in columns)
        rows = db.execute(f"SELECT rowid, {listed} FROM {table}").fetchall()
        db.executemany(f"UPDATE {table} SET crc = ? WHERE rowid = ?", [(codec.checksum(r[1:]), r[0]) for r in rows])


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    m001_initial,
    m002_event_kinds,
    m003_inference_kind_index,
    m004_lifecycle,
    m005_fact_changes,
    m006_fact_revisions,
    m007_consolidations,
    m008_integrity,
    m009_chain_reverse_index,
    m010_store_items,
    m011_row_checksums,
]
SCHEMA_VERSION = len(MIGRATIONS)
APPLICATION_ID = 0x6D656D74  # "memt" in the SQLite header: this file is a memtracks memory
MEMTRACKS_TABLES = frozenset({"meta", "turns", "facts", "events", "vectors"})


def identify(db: sqlite3.Connection, path: str) -> int:
    """The schema version of a memtracks file (0: a new, empty database). Anything else —
    another application's SQLite file, a newer memtracks — is refused before anything is written."""
    application = db.execute("PRAGMA application_id").fetchone()[0]
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if application not in (0, APPLICATION_ID):
        raise NotAMemoryFileError(
            f"{path} belongs to another application (SQLite application_id {application:#010x}); "
            "memtracks will not write to it"
        )
    if application == 0:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if tables and not (MEMTRACKS_TABLES <= tables and version > 0):
            shown = ", ".join(sorted(tables)[:6]) + (", ..." if len(tables) > 6 else "")
            raise NotAMemoryFileError(
                f"{path} is not a memtracks file: it is another application's SQLite database (tables: {shown}); "
                "memtracks will not add its tables to it"
            )
    if version > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"{path} has schema version {version}, newer than this memtracks understands "
            f"({SCHEMA_VERSION}); upgrade memtracks to open it"
        )
    return version


def current(db: sqlite3.Connection, path: str) -> bool:
    """Is ``db`` a memtracks file at this schema version, marked as such (nothing to migrate)?"""
    version = identify(db, path)
    return version == SCHEMA_VERSION and db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID


def migrate(db: sqlite3.Connection, path: str, transaction: Callable[[], AbstractContextManager[None]]) -> None:
    """Bring ``db`` up to :data:`SCHEMA_VERSION`, one ``transaction()`` (a write lock) per
    migration. The version is read again once the lock is held, so several processes opening
    an old file at once each apply a migration at most once."""
    while not current(db, path):
        with transaction():
            version = identify(db, path)
            if db.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
                db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            if version < SCHEMA_VERSION:
                MIGRATIONS[version](db)
                db.execute(f"PRAGMA user_version = {version + 1}")
