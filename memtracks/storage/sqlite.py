"""The SQLite store: every table, every query, always scoped by ``user_id``.

One :meth:`Store.transaction` wraps each write; if anything inside raises, the database is
rolled back and left exactly as it was. Queries are parameterised; no method reads data
without a ``user_id``.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from memtracks.config import StorageConfig
from memtracks.errors import ReadOnlyError, StorageError
from memtracks.records import Event, Fact, Inference, Turn
from memtracks.storage import codec
from memtracks.storage.connection import (
    MEMORY,
    Closed,
    backup,
    check_config,
    check_not_empty,
    check_sqlite_file,
    connect,
    create_atomically,
    open_read_only,
    retrying,
    translate,
    use_wal,
    writable,
)
from memtracks.storage.dialect import marks
from memtracks.storage.schema import SCHEMA_VERSION, identify, migrate

log = logging.getLogger(__name__)
MAX_EVENT_SPAN_DAYS = 370  # the longest interval matched against a time window (a year)


@dataclass(frozen=True)
class EventHead:
    """An event's ranking columns."""

    id: int
    subject: str
    speaker: str
    mentioned_epoch: float
    dated: bool
    entity_keys: tuple[str, ...]
    question: bool = False  # the turn asks something; the answer is the turn after it
    session_id: str = ""
    text: str = ""


@dataclass(frozen=True)
class EventSpan:
    """When an event was said, and the time it is about (``start`` None: none)."""

    id: int
    mentioned_at: datetime
    start: datetime | None
    end: datetime | None


def identify_or_close(db: sqlite3.Connection, path: str) -> int:
    try:
        return identify(db, path)
    except BaseException:
        db.close()
        raise


class Store:
    """SQLite-backed storage of turns, facts, events, inferences and vectors.

    Args:
        path: a database file, or ":memory:" (the default) for a store that lives with the process.
        read_only: open an existing file for reading only; every write raises ReadOnlyError.
        config: durability (``synchronous``), busy timeout and lock retries.
    """

    searches_in_database = False  # vectors and words are searched in memory (memtracks.retrieval.indexes)
    database_errors: tuple[type[BaseException], ...] = (sqlite3.Error,)

    def __init__(self, path: str | Path = ":memory:", *, read_only: bool = False, config: StorageConfig | None = None):
        self.path = str(path)
        self.config = config or StorageConfig()
        self.read_only = read_only
        check_config(self.config)
        self.lock = threading.RLock()
        self._depth = 0
        try:
            self.db = self._open()
        except sqlite3.Error as exc:
            if not read_only and self.path != MEMORY and Path(self.path).is_file() and not writable(self.path):
                raise ReadOnlyError(
                    f"{self.path} cannot be written here (a read-only file or folder); "
                    "open it with read_only=True (--read-only) to read it"
                ) from exc
            raise translate(exc, self.path, self.config.busy_timeout) from exc

    def _open(self) -> sqlite3.Connection:
        check_sqlite_file(self.path)
        if self.read_only:
            db = open_read_only(self.path, self.config)
            self.db = db
            version = identify_or_close(db, self.path)
            if version < SCHEMA_VERSION:
                db.close()
                raise StorageError(
                    f"{self.path} was written by an older memtracks (schema {version} of {SCHEMA_VERSION}); "
                    "open it once without read_only=True to upgrade it"
                )
            return db
        if self.path != MEMORY:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            check_not_empty(self.path)
            if not Path(self.path).exists():
                create_atomically(self.path, self.config, self._initialise)
        db = connect(self.path, self.config, read_only=False)
        try:
            self._initialise(db)
        except BaseException:
            db.close()
            raise
        return db

    def _initialise(self, db: sqlite3.Connection) -> None:
        self.db = db
        identify(db, self.path)  # before anything is written: refuse another application's file
        use_wal(db, self.path, self.config)
        migrate(db, self.path, self.transaction)

    def close(self) -> None:
        db, self.db = self.db, Closed(self.path)  # type: ignore[assignment]
        db.close()

    @property
    def closed(self) -> bool:
        return isinstance(self.db, Closed)

    def backup(self, target: str | Path, *, overwrite: bool = False) -> int:
        """A consistent copy of the whole file at ``target`` (see :func:`connection.backup`)."""
        with self.lock:
            try:
                return backup(self.db, str(target), overwrite=overwrite)
            except sqlite3.Error as exc:
                raise translate(exc, self.path, self.config.busy_timeout) from exc

    # ---------------------------------------------------------------- transactions

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """All-or-nothing: commit when the block ends, roll back if it raises. A transaction
        opened inside another joins it (only the outermost commits); a read-only store refuses
        to open one. What opening, committing and rolling back mean is the backend's
        :meth:`_outermost`."""
        with self.lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            if self.read_only:
                raise ReadOnlyError(f"{self.path} was opened read-only; open it without read_only=True to write")
            try:
                with self._outermost():
                    yield
            finally:
                self._depth = 0

    @contextmanager
    def _outermost(self) -> Iterator[None]:
        """The outermost transaction on SQLite: ``BEGIN IMMEDIATE`` takes the file's write lock
        (waiting for another writer is bounded by the busy timeout, with retries); a SQLite
        failure inside leaves as a StorageError."""
        try:
            retrying(lambda: self.db.execute("BEGIN IMMEDIATE"), self.config)
        except sqlite3.Error as exc:
            raise translate(exc, self.path, self.config.busy_timeout) from exc
        self._depth = 1
        try:
            yield
        except BaseException as exc:
            self._rollback()
            if isinstance(exc, sqlite3.Error):
                raise translate(exc, self.path, self.config.busy_timeout, rolled_back=True) from exc
            raise
        else:
            try:
                self.db.execute("COMMIT")
            except sqlite3.Error as exc:
                self._rollback()
                raise translate(exc, self.path, self.config.busy_timeout, rolled_back=True) from exc

    @contextmanager
    def bulk_load(self) -> Iterator[None]:
        """Many memories written at once (an import, a large synthetic memory): one transaction,
        as :meth:`transaction`, in which a store that keeps indexes in the database builds them
        once at the end rather than row by row (:meth:`PostgresStore.bulk_load`). It leaves
        exactly what the same writes in a :meth:`transaction` leave; SQLite has nothing to defer."""
        with self.transaction():
            yield

    @contextmanager
    def overwriting(self) -> Iterator[None]:
        """Deleted content is overwritten with zeros while the block runs (``secure_delete``)."""
        before = self.execute("PRAGMA secure_delete").fetchone()[0]
        self.execute("PRAGMA secure_delete = ON")
        try:
            yield
        finally:
            self.execute(f"PRAGMA secure_delete = {int(before)}")

    def scrub(self, *, vacuum: bool = False) -> None:
        """Make deleted content unrecoverable from the file: truncate the write-ahead log (which
        may still hold old pages) and, if asked, rewrite the file without free pages."""
        if self.path == MEMORY:
            return
        if vacuum:
            self.execute("VACUUM")
        self.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def integrity_errors(self, *, quick: bool = False) -> list[str]:
        """SQLite's ``integrity_check`` (``quick_check``): what it found wrong, nothing if sound."""
        rows = self._rows("PRAGMA quick_check" if quick else "PRAGMA integrity_check")
        return [r[0] for r in rows if r[0] != "ok"]

    schema_version = SCHEMA_VERSION  # the version this memtracks writes, for the check's header

    def header(self) -> tuple[int, int]:
        """(application_id, schema version) of the file."""
        return self._rows("PRAGMA application_id")[0][0], self._rows("PRAGMA user_version")[0][0]

    def _rollback(self) -> None:
        try:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # SQLite already rolled back (a full disk, an I/O error)

    def execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        """One statement; outside a transaction, a failure leaves as a StorageError."""
        with self.lock:
            if self._depth:
                return self.db.execute(sql, params)  # the transaction translates what fails
            try:
                return retrying(lambda: self.db.execute(sql, params), self.config)
            except sqlite3.Error as exc:
                raise translate(exc, self.path, self.config.busy_timeout) from exc

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self.lock:
            if self._depth:
                return self.db.execute(sql, params).fetchall()
            try:
                return retrying(lambda: self.db.execute(sql, params).fetchall(), self.config)
            except sqlite3.Error as exc:
                raise translate(exc, self.path, self.config.busy_timeout) from exc

    def next_id(self, table: str) -> int:
        """The id for a new row: above every id ever used, erased ones included, so an id
        that another process saw erased is never given to something else."""
        track = {"facts": "fact", "events": "event", "inferences": "inference"}[table]
        row = self._rows(
            f"SELECT MAX(COALESCE((SELECT MAX(id) FROM {table}), 0), "
            "COALESCE((SELECT MAX(item_id) FROM erased_items WHERE track = ?), 0))",
            (track,),
        )
        return row[0][0] + 1

    # ---------------------------------------------------------------- change tracking

    def data_version(self) -> int:
        """Changes whenever another connection (another process) commits to the file."""
        return self._rows("PRAGMA data_version")[0][0]

    def generation(self, user_id: str) -> int:
        """How many times ``user_id``'s memories were rewritten rather than appended to
        (erased, rebuilt): an index built before must be rebuilt, not extended."""
        return int(self.meta(f"generation:{user_id}") or 0)

    def bump_generation(self, user_id: str) -> None:
        self.set_meta(f"generation:{user_id}", str(self.generation(user_id) + 1))

    def record_erased(self, user_id: str, items: Mapping[str, Iterable[int]]) -> None:
        """Log the ids of erased memories per track ("fact", "event", "inference"), so other
        connections take them out of their indexes instead of rebuilding them."""
        self.db.executemany(
            "INSERT INTO erased_items (user_id, track, item_id) VALUES (?, ?, ?)",
            [(user_id, track, int(i)) for track, ids in items.items() for i in ids],
        )

    def erased(self, user_id: str, after: int = 0) -> tuple[int, dict[str, set[int]]]:
        """(the newest log position, {track: ids}) of ``user_id``'s memories erased after
        log position ``after`` (0: all that were ever erased)."""
        rows = self._rows(
            "SELECT seq, track, item_id FROM erased_items WHERE user_id = ? AND seq > ? ORDER BY seq", (user_id, after)
        )
        out: dict[str, set[int]] = {}
        for _, track, item_id in rows:
            out.setdefault(track, set()).add(item_id)
        return (rows[-1][0] if rows else after), out

    def erased_seq(self, user_id: str) -> int:
        """The log position of ``user_id``'s latest erasure (0: none)."""
        return self._rows("SELECT COALESCE(MAX(seq), 0) FROM erased_items WHERE user_id = ?", (user_id,))[0][0]

    def remembered(self, key: tuple[Any, ...], read: Callable[[], Any]) -> Any:
        """What ``read()`` returns: a store whose round trips cost (Postgres) keeps small
        per-scope reads until the next write, its own or another process's; SQLite reads again."""
        return read()

    # ---------------------------------------------------------------- meta

    def meta(self, key: str) -> str | None:
        rows = self._rows("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    # ---------------------------------------------------------------- items (the LangGraph store's)

    def put_item(
        self,
        user_id: str,
        namespace: str,
        key: str,
        value: str,
        indexed: bool,
        at: datetime,
        since: tuple[str | None, int | None] | None = None,
    ) -> None:
        """Store an item's value (JSON) under ``namespace`` and ``key``: a new one takes the
        next place in the order; one put again keeps its place and creation time (``since``:
        the creation time and place of an item being put again, when its row was removed)."""
        created, seq = since if since is not None else (codec.dt_text(at), None)
        crc = codec.item_checksum(user_id, namespace, key, value, indexed)
        self.db.execute(
            "INSERT INTO items (user_id, namespace, key, value, indexed, created_at, updated_at, seq, crc) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, COALESCE(?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM items)), ?) "
            "ON CONFLICT (user_id, namespace, key) DO UPDATE SET value = excluded.value, "
            "indexed = excluded.indexed, updated_at = excluded.updated_at, crc = excluded.crc",
            (user_id, namespace, key, value, int(indexed), created, codec.dt_text(at), seq, crc),
        )

    def item(self, user_id: str, namespace: str, key: str) -> sqlite3.Row | None:
        rows = self._rows(
            "SELECT * FROM items WHERE user_id = ? AND namespace = ? AND key = ?", (user_id, namespace, key)
        )
        for row in rows:
            codec.verify_item(row)
        return rows[0] if rows else None

    def items(self, user_id: str | None = None) -> list[sqlite3.Row]:
        """The items of ``user_id`` (None: of every scope), in the order they were first put."""
        if user_id is None:
            rows = self._rows("SELECT * FROM items ORDER BY seq")
        else:
            rows = self._rows("SELECT * FROM items WHERE user_id = ? ORDER BY seq", (user_id,))
        for row in rows:
            codec.verify_item(row)
        return rows

    def delete_item(self, user_id: str, namespace: str, key: str) -> bool:
        cursor = self.db.execute(
            "DELETE FROM items WHERE user_id = ? AND namespace = ? AND key = ?", (user_id, namespace, key)
        )
        return bool(cursor.rowcount)

    # ---------------------------------------------------------------- turns

    def turn(self, user_id: str, turn_id: str) -> sqlite3.Row | None:
        rows = self._rows("SELECT * FROM turns WHERE user_id = ? AND turn_id = ?", (user_id, turn_id))
        return rows[0] if rows else None

    def insert_turn(self, turn: Turn, lang: str, content_hash: str, seq: int) -> None:
        assert turn.timestamp is not None and turn.user_id and turn.turn_id
        self.db.execute(
            f"INSERT INTO turns ({codec.TURN_COLUMNS}) VALUES ({codec.marks(codec.TURN_COLUMNS)})",
            codec.turn_row(turn, lang, content_hash, seq),
        )

    def next_seq(self, user_id: str, session_id: str) -> int:
        rows = self._rows(
            "SELECT COALESCE(MAX(seq), -1) FROM turns WHERE user_id = ? AND session_id = ?", (user_id, session_id)
        )
        return rows[0][0] + 1

    def turns(self, user_id: str) -> list[sqlite3.Row]:
        return self._rows("SELECT * FROM turns WHERE user_id = ? ORDER BY ts_epoch, session_id, seq", (user_id,))

    def turns_written(self, user_id: str) -> list[sqlite3.Row]:
        """``user_id``'s turns in the order they were written."""
        return self._rows("SELECT * FROM turns WHERE user_id = ? ORDER BY rowid", (user_id,))

    def turn_ids_where(
        self,
        user_id: str,
        *,
        session_id: str | None = None,
        start: datetime | None = None,
        end: datetime | None = None,
        metadata: Mapping[str, Any] | None = None,
        turn_ids: Sequence[str] | None = None,
    ) -> set[str]:
        """Ids of ``user_id``'s turns said in ``session_id``, within ``[start, end)``, whose
        metadata holds every key of ``metadata`` with that value (all given conditions)."""
        sql = "SELECT turn_id FROM turns WHERE user_id = ?"
        params: list[Any] = [user_id]
        if session_id is not None:
            sql += " AND session_id = ?"
            params.append(session_id)
        if start is not None:
            sql += " AND ts_epoch >= ?"
            params.append(start.timestamp())
        if end is not None:
            sql += " AND ts_epoch < ?"
            params.append(end.timestamp())
        if turn_ids is not None:
            sql += f" AND turn_id IN ({marks(turn_ids)})"
            params += list(turn_ids)
        for key, value in (metadata or {}).items():
            condition, values = self._metadata_holds(key, value)
            sql += f" AND {condition}"
            params += values
        return {r[0] for r in self._rows(sql, params)}

    def _metadata_holds(self, key: str, value: Any) -> tuple[str, list[Any]]:
        """The condition "the turn's metadata has ``key`` = ``value``" (a scalar: str, number, bool, None)."""
        return "json_extract(metadata, ?) IS ?", [_json_path(key), value]

    def turn_metadata(self, user_id: str, turn_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
        ids = list(dict.fromkeys(turn_ids))
        if not ids:
            return {}
        rows = self._rows(
            f"SELECT turn_id, metadata FROM turns WHERE user_id = ? AND turn_id IN ({marks(ids)})",
            (user_id, *ids),
        )
        return {r[0]: json.loads(r[1]) for r in rows}

    def turn_texts(self, user_id: str, turn_ids: Iterable[str]) -> dict[str, str]:
        ids = list(dict.fromkeys(turn_ids))
        if not ids:
            return {}
        placeholders = marks(ids)
        rows = self._rows(
            f"SELECT turn_id, text FROM turns WHERE user_id = ? AND turn_id IN ({placeholders})", (user_id, *ids)
        )
        return {r[0]: r[1] for r in rows}

    def speakers(self, user_id: str) -> list[str]:
        return [r[0] for r in self._rows("SELECT DISTINCT speaker FROM turns WHERE user_id = ?", (user_id,))]

    def users(self) -> list[str]:
        """Every storage scope (a user, or a user and an agent) that holds turns or store items."""
        return [r[0] for r in self._rows("SELECT user_id FROM turns UNION SELECT user_id FROM items ORDER BY user_id")]

    # ---------------------------------------------------------------- facts

    def facts(
        self,
        user_id: str,
        *,
        subjects: Sequence[str] | None = None,
        slots: Sequence[str] | None = None,
        current_only: bool = False,
        after: int = 0,
        ended_only: bool = False,
    ) -> list[Fact]:
        """Facts of ``user_id`` in id order; ``after``: only those with a larger id;
        ``ended_only``: only those a later statement ended, replaced or put right."""
        sql = "SELECT * FROM facts WHERE user_id = ?"
        params: list[Any] = [user_id]
        if after:
            sql += " AND id > ?"
            params.append(after)
        if subjects is not None:
            sql += f" AND subject IN ({marks(subjects)})"
            params += list(subjects)
        if slots is not None:
            sql += f" AND slot IN ({marks(slots)})"
            params += list(slots)
        if current_only:
            sql += " AND superseded_by IS NULL AND valid_to IS NULL AND reason IS NULL"
        if ended_only:
            sql += " AND superseded_at IS NOT NULL AND reason IN ('ended', 'replaced', 'corrected')"
        return [codec.row_fact(r) for r in self._rows(sql + " ORDER BY id", params)]

    def count_stale_facts(self, user_id: str, *, subjects: Sequence[str] | None, slots: Sequence[str]) -> int:
        """How many superseded or ended facts there are for these subjects and slots."""
        sql = (
            f"SELECT COUNT(*) FROM facts WHERE user_id = ? AND slot IN ({marks(slots)}) "
            "AND (superseded_by IS NOT NULL OR valid_to IS NOT NULL OR reason IS NOT NULL)"
        )
        params: list[Any] = [user_id, *slots]
        if subjects is not None:
            sql += f" AND subject IN ({marks(subjects)})"
            params += list(subjects)
        return self._rows(sql, params)[0][0]

    def facts_by_id(self, user_id: str, ids: Iterable[int]) -> list[Fact]:
        ids = list(ids)
        if not ids:
            return []
        rows = self._rows(f"SELECT * FROM facts WHERE +user_id = ? AND id IN ({marks(ids)})", (user_id, *ids))
        return [codec.row_fact(r) for r in rows]

    def save_facts(self, facts: Iterable[Fact]) -> None:
        self.db.executemany(
            f"INSERT OR REPLACE INTO facts ({codec.FACT_COLUMNS}) VALUES ({codec.FACT_MARKS})",
            [codec.fact_row(f) for f in facts],
        )

    # ---------------------------------------------------------------- events

    def save_event(self, event: Event) -> None:
        self.save_events([event])

    def save_events(self, events: Sequence[Event]) -> None:
        """New events (with their entity and kind rows), as many as given, in one go."""
        self.db.executemany(
            f"INSERT INTO events ({codec.EVENT_COLUMNS}) VALUES ({codec.marks(codec.EVENT_COLUMNS)})",
            [codec.event_row(e) for e in events],
        )
        self.db.executemany("INSERT OR IGNORE INTO event_entities VALUES (?, ?, ?)", codec.event_entity_rows(events))
        self.db.executemany("INSERT OR IGNORE INTO event_kinds VALUES (?, ?, ?)", codec.event_kind_rows(events))

    def events(
        self,
        user_id: str,
        *,
        ids: Sequence[int] | None = None,
        kinds: Sequence[str] | None = None,
        subjects: Sequence[str] | None = None,
        limit: int | None = None,
        after: int = 0,
    ) -> list[Event]:
        if ids is not None and not ids:
            return []
        # "+user_id": with ids given (or a tail after an id), look them up by primary key
        # instead of scanning the user's events through a user_id index
        by_id = ids is not None or after
        sql = f"SELECT * FROM events WHERE {'+' if by_id else ''}user_id = ?"
        params: list[Any] = [user_id]
        if kinds is not None:
            sql = (
                "SELECT e.* FROM event_kinds k JOIN events e ON e.user_id = k.user_id AND e.id = k.event_id "
                f"WHERE k.user_id = ? AND k.kind IN ({marks(kinds)}) AND e.user_id = ?"
            )
            params = [user_id, *kinds, user_id]
        if ids is not None:
            sql += f" AND id IN ({marks(ids)})"
            params += list(ids)
        if subjects is not None:
            sql += f" AND subject IN ({marks(subjects)})"
            params += list(subjects)
        if after:
            sql += " AND id > ?"
            params.append(after)
        sql += " ORDER BY mentioned_epoch DESC, id DESC" if limit else " ORDER BY mentioned_epoch, id"
        if limit:
            sql += f" LIMIT {int(limit)}"
        return [codec.row_event(r) for r in self._rows(sql, params)]

    def events_between(self, user_id: str, start: datetime, end: datetime, limit: int = 200) -> list[Event]:
        """Events said in, or about a time overlapping, ``[start, end)``, in the order said."""
        return self.events(user_id, ids=self.event_ids_between(user_id, start, end, limit))

    def event_ids_between(self, user_id: str, start: datetime, end: datetime, limit: int = 300) -> list[int]:
        """Ids of events said in, or about a time overlapping, ``[start, end)``, in the order said
        (the first ``limit``)."""
        return [span.id for span in self.event_spans_between(user_id, [(start, end)], limit)[0]]

    def event_spans_between(
        self, user_id: str, windows: Sequence[tuple[datetime, datetime]], limit: int = 300
    ) -> list[list[EventSpan]]:
        """For each ``[start, end)`` of ``windows``, the first ``limit`` events said in it, or
        about a time overlapping it, in the order said, with their times: one statement for all.

        Two index range scans a window (no OR, which would scan every event): said in the
        window, or about an interval overlapping it — intervals longer than
        ``MAX_EVENT_SPAN_DAYS`` ("the last four years") are left to the other retrievers, which
        bounds the second scan.
        """
        if not windows:
            return []
        parts, params = [], []
        for n, (start, end) in enumerate(windows):
            s, e = start.timestamp(), end.timestamp()
            parts.append(
                f"SELECT {n} AS n, id, mentioned_epoch FROM (SELECT id, mentioned_epoch FROM events "
                "WHERE user_id = ? AND mentioned_epoch >= ? AND mentioned_epoch < ? "
                "UNION SELECT id, mentioned_epoch FROM events WHERE user_id = ? AND start_epoch > ? "
                f"AND start_epoch < ? AND end_epoch > ? ORDER BY 2, 1 LIMIT ?) AS w{n}"
            )
            params += [user_id, s, e, user_id, s - MAX_EVENT_SPAN_DAYS * 86400, e, s, limit]
        rows = self._rows(
            'SELECT w.n, e.id, e.mentioned_at, e.start, e."end" FROM ('
            + " UNION ALL ".join(parts)
            + ") AS w JOIN events e ON e.user_id = ? AND e.id = w.id ORDER BY w.n, w.mentioned_epoch, w.id",
            (*params, user_id),
        )
        found: list[list[EventSpan]] = [[] for _ in windows]
        for r in rows:
            found[r[0]].append(EventSpan(r[1], codec.text_dt(r[2]), codec.text_dt(r[3]), codec.text_dt(r[4])))
        return found

    def ids_said_since(self, user_id: str, track: str, since: datetime, after: int = 0) -> list[int]:
        """Ids (above ``after``) of the events said, or conclusions drawn, at or after ``since``:
        what a live index of tiered storage holds (``memtracks/retrieval/tiers.py``)."""
        table, column = {"event": ("events", "mentioned_epoch"), "inference": ("inferences", "created_epoch")}[track]
        rows = self._rows(
            f"SELECT id FROM {table} WHERE user_id = ? AND {column} >= ? AND id > ? ORDER BY id",
            (user_id, since.timestamp(), after),
        )
        return [r[0] for r in rows]

    def event_heads(self, user_id: str, ids: Sequence[int]) -> dict[int, EventHead]:
        """The few columns ranking needs, without decoding whole events."""
        if not ids:
            return {}
        rows = self._rows(
            "SELECT id, subject, speaker, mentioned_epoch, start_epoch, entity_keys, "
            "(rtrim(text) LIKE '%?' OR rtrim(text) LIKE '%？'), session_id, text FROM events "
            f"WHERE +user_id = ? AND id IN ({marks(ids)})",
            (user_id, *ids),
        )
        return {
            r[0]: EventHead(r[0], r[1], r[2], r[3], r[4] is not None, tuple(json.loads(r[5])), bool(r[6]), r[7], r[8])
            for r in rows
        }

    def events_in_session(self, user_id: str, session_id: str, limit: int) -> list[Event]:
        """The latest ``limit`` events of a session, latest first."""
        rows = self._rows(
            "SELECT * FROM events WHERE user_id = ? AND session_id = ? ORDER BY seq DESC, id DESC LIMIT ?",
            (user_id, session_id, limit),
        )
        return [codec.row_event(r) for r in rows]

    def last_event_in_session(self, user_id: str, session_id: str) -> Event | None:
        rows = self._rows(
            "SELECT * FROM events WHERE user_id = ? AND session_id = ? ORDER BY seq DESC, id DESC LIMIT 1",
            (user_id, session_id),
        )
        return codec.row_event(rows[0]) if rows else None

    def last_events_with(self, user_id: str, keys: Sequence[str]) -> dict[str, int]:
        """For each entity key, the id of the latest event that mentions it."""
        if not keys:
            return {}
        rows = self._rows(
            f"SELECT key, MAX(event_id) FROM event_entities WHERE user_id = ? AND key IN ({marks(keys)}) GROUP BY key",
            (user_id, *keys),
        )
        return {r[0]: r[1] for r in rows}

    def save_links(self, user_id: str, links: Iterable[tuple[int, int, str, str]]) -> None:
        self.db.executemany(
            "INSERT OR IGNORE INTO event_links VALUES (?, ?, ?, ?, ?)", [(user_id, *link) for link in links]
        )

    def links(self, user_id: str, after: int = 0) -> list[tuple[int, int, str, str]]:
        """Chain links ``(src, dst, kind, key)``; ``after``: only links into events after that id."""
        rows = self._rows("SELECT src, dst, kind, key FROM event_links WHERE user_id = ? AND dst > ?", (user_id, after))
        return [tuple(r) for r in rows]  # type: ignore[misc]

    def update_happenings(self, event: Event) -> None:
        """Store an event's changed happenings (cancelled, re-dated) and its resolved time:
        the whole row again, so its checksum is of what it now holds."""
        self.db.execute(
            f"INSERT OR REPLACE INTO events ({codec.EVENT_COLUMNS}) VALUES ({codec.marks(codec.EVENT_COLUMNS)})",
            codec.event_row(event),
        )

    # ---------------------------------------------------------------- savepoints

    @contextmanager
    def savepoint(self, name: str) -> Iterator[None]:
        """Inside a transaction: undo only this block's writes if it raises."""
        self.db.execute(f"SAVEPOINT {name}")
        try:
            yield
        except BaseException:
            self.db.execute(f"ROLLBACK TO {name}")
            self.db.execute(f"RELEASE {name}")
            raise
        else:
            self.db.execute(f"RELEASE {name}")

    # ---------------------------------------------------------------- relations

    def save_relations(self, user_id: str, relations: Iterable[tuple[str, str, str]]) -> None:
        """``(owner, relation, name)``: "my brother Tom" said by ``owner``."""
        self.db.executemany("INSERT OR IGNORE INTO relations VALUES (?, ?, ?, ?)", [(user_id, *r) for r in relations])

    def relations(self, user_id: str) -> list[tuple[str, str, str]]:
        rows = self.remembered(
            ("relations", user_id),
            lambda: self._rows("SELECT owner, relation, name FROM relations WHERE user_id = ?", (user_id,)),
        )
        return [tuple(r) for r in rows]  # type: ignore[misc]

    # ---------------------------------------------------------------- names

    def save_names(self, user_id: str, names: Iterable[tuple[str, str, str]]) -> None:
        self.db.executemany(
            "INSERT OR REPLACE INTO names (user_id, surface, key, label, crc) VALUES (?, ?, ?, ?, ?)",
            [codec.sealed((user_id, *n)) for n in names],
        )

    def names(self, user_id: str) -> dict[str, tuple[str, str]]:
        rows = self.remembered(
            ("names", user_id),
            lambda: self._rows("SELECT user_id, surface, key, label, crc FROM names WHERE user_id = ?", (user_id,)),
        )
        for row in rows:
            codec.verify("names", row, codec.COLUMNS["names"])
        return {r["surface"]: (r["key"], r["label"]) for r in rows}

    # ---------------------------------------------------------------- inferences

    def save_inferences(self, inferences: Iterable[Inference]) -> None:
        items = list(inferences)
        self.db.executemany(
            f"INSERT OR REPLACE INTO inferences ({codec.INFERENCE_COLUMNS}) VALUES ({codec.marks(codec.INFERENCE_COLUMNS)})",
            [codec.inference_row(i) for i in items],
        )
        self.db.executemany(
            "INSERT OR IGNORE INTO inference_premises VALUES (?, ?, ?, ?)",
            [(i.user_id, p.track, p.id, i.id) for i in items for p in i.premises],
        )

    def inferences(
        self,
        user_id: str,
        *,
        active_only: bool = False,
        ids: Sequence[int] | None = None,
        kinds: Sequence[str] | None = None,
        limit: int | None = None,
        after: int = 0,
    ) -> list[Inference]:
        if ids is not None and not ids:
            return []
        sql = f"SELECT * FROM inferences WHERE {'+' if ids is not None else ''}user_id = ?"
        params: list[Any] = [user_id]
        if after:
            sql += " AND id > ?"
            params.append(after)
        if active_only:
            sql += " AND status = 'active'"
        if kinds is not None:
            sql += f" AND kind IN ({marks(kinds)})"
            params += list(kinds)
        if ids is not None:
            sql += f" AND id IN ({marks(ids)})"
            params += list(ids)
        if limit is not None:
            rows = self._rows(sql + f" ORDER BY id DESC LIMIT {int(limit)}", params)[::-1]
        else:
            rows = self._rows(sql + " ORDER BY id", params)
        return [codec.row_inference(r) for r in rows]

    def inferences_resting_on(self, user_id: str, fact_ids: Sequence[int], track: str = "fact") -> list[Inference]:
        """Active inferences with one of ``fact_ids`` (event ids with ``track="event"``) among their premises."""
        if not fact_ids:
            return []
        rows = self._rows(
            "SELECT i.* FROM inferences i JOIN inference_premises p ON p.inference_id = i.id "
            "AND p.user_id = i.user_id WHERE i.user_id = ? AND i.status = 'active' AND p.track = ? "
            f"AND p.premise_id IN ({marks(fact_ids)})",
            (user_id, track, *fact_ids),
        )
        seen: dict[int, Inference] = {}
        for r in rows:
            seen.setdefault(r["id"], codec.row_inference(r))
        return list(seen.values())

    def inference_ids_on(self, user_id: str, fact_ids: Sequence[int]) -> list[int]:
        """Ids of every inference, active or retracted, with one of ``fact_ids`` among its premises."""
        if not fact_ids:
            return []
        rows = self._rows(
            "SELECT DISTINCT inference_id FROM inference_premises WHERE user_id = ? AND track = 'fact' "
            f"AND premise_id IN ({marks(fact_ids)})",
            (user_id, *fact_ids),
        )
        return [r[0] for r in rows]

    def known_inference_keys(self, user_id: str, keys: Sequence[str]) -> set[str]:
        if not keys:
            return set()
        rows = self._rows(f"SELECT key FROM inferences WHERE user_id = ? AND key IN ({marks(keys)})", (user_id, *keys))
        return {r[0] for r in rows}

    # ---------------------------------------------------------------- vectors

    def save_vectors(self, user_id: str, track: str, items: Sequence[tuple[int, str, np.ndarray]]) -> None:
        rows = []
        for item_id, content_hash, vector in items:
            blob = np.asarray(vector, dtype=np.float32).tobytes()
            rows.append(
                (user_id, track, item_id, content_hash, blob, codec.vector_checksum(user_id, track, item_id, blob))
            )
        self.db.executemany(
            "INSERT OR REPLACE INTO vectors (user_id, track, item_id, content_hash, vector, checksum) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            rows,
        )

    def vectors(self, user_id: str, track: str, after: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """(ids, matrix) of the vectors stored for ``user_id`` on ``track`` (with ids above ``after``).

        A vector whose checksum does not match is left out (and logged): a damaged vector is
        never served; ``memtracks check`` lists it and ``memtracks check --repair`` embeds it again.
        """
        rows = self._rows(
            "SELECT item_id, vector, checksum FROM vectors WHERE user_id = ? AND track = ? AND item_id > ? "
            "ORDER BY item_id",
            (user_id, track, after),
        )
        return self._checked_vectors(user_id, track, rows)

    def vector_chunks(
        self, user_id: str, track: str, after: int = 0, size: int = 50_000
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """:meth:`vectors` in chunks of at most ``size`` rows, in id order: an index of a
        million vectors is built without holding them all twice (the rows read and the matrix)."""
        while True:
            rows = self._rows(
                "SELECT item_id, vector, checksum FROM vectors WHERE user_id = ? AND track = ? AND item_id > ? "
                "ORDER BY item_id LIMIT ?",
                (user_id, track, after, size),
            )
            if not rows:
                return
            after, full = rows[-1][0], len(rows) == size
            ids, matrix = self._checked_vectors(user_id, track, rows)
            del rows
            if len(ids):
                yield ids, matrix
            if not full:
                return

    def _checked_vectors(self, user_id: str, track: str, rows: list[Any]) -> tuple[np.ndarray, np.ndarray]:
        good = [r for r in rows if codec.vector_checksum(user_id, track, r[0], r[1]) == r[2]]
        if len(good) < len(rows):
            damaged = sorted({r[0] for r in rows} - {r[0] for r in good})
            log.warning(
                "%s: %d damaged %s vector(s) left out of the index: %s", self.path, len(damaged), track, damaged[:20]
            )
        if not good:
            return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
        ids = np.fromiter((r[0] for r in good), dtype=np.int64, count=len(good))
        matrix = np.vstack([np.frombuffer(r[1], dtype=np.float32) for r in good])
        return ids, matrix

    def vector_items(self, user_id: str) -> list[tuple[str, int, str, np.ndarray]]:
        """Every stored vector of ``user_id`` as ``(track, item id, content hash, vector)``, by track and id."""
        rows = self._rows(
            "SELECT track, item_id, content_hash, vector FROM vectors WHERE user_id = ? ORDER BY track, item_id",
            (user_id,),
        )
        return [(r[0], r[1], r[2], np.frombuffer(r[3], dtype=np.float32)) for r in rows]

    def vector_hashes(self, user_id: str, track: str, item_ids: Sequence[int]) -> dict[int, str]:
        if not item_ids:
            return {}
        rows = self._rows(
            f"SELECT item_id, content_hash FROM vectors WHERE user_id = ? AND track = ? "
            f"AND item_id IN ({marks(item_ids)})",
            (user_id, track, *item_ids),
        )
        return {r[0]: r[1] for r in rows}

    def vector_count(self, user_id: str, track: str, upto: int | None = None) -> int:
        """How many vectors ``user_id`` has on ``track`` (with ids up to ``upto``)."""
        rows = self._rows(
            "SELECT COUNT(*) FROM vectors WHERE user_id = ? AND track = ? AND item_id <= ?",
            (user_id, track, upto if upto is not None else 1 << 62),
        )
        return rows[0][0]

    def item_count(self, user_id: str, track: str, upto: int) -> int:
        """How many facts, events or inferences (``track``) ``user_id`` has with ids up to ``upto``."""
        table = {"fact": "facts", "event": "events", "inference": "inferences"}[track]
        return self._rows(f"SELECT COUNT(*) FROM {table} WHERE user_id = ? AND id <= ?", (user_id, upto))[0][0]

    def item_ids(self, user_id: str, track: str, after: int = 0) -> list[int]:
        """The ids of ``user_id``'s facts, events or inferences (``track``) above ``after``, in id order."""
        table = {"fact": "facts", "event": "events", "inference": "inferences"}[track]
        # "+user_id" after an id: the few rows written since, read by primary key, not every one of the user's
        scope = "+user_id" if after else "user_id"
        sql = f"SELECT id FROM {table} WHERE {scope} = ? AND id > ? ORDER BY id"
        return [r[0] for r in self._rows(sql, (user_id, after))]

    def scopes_written_from(self, first_ids: Mapping[str, int]) -> list[str]:
        """The scopes that hold a row of a numbered table ("facts", "events", "inferences")
        with an id at or above ``first_ids[table]``: who a load wrote to."""
        if not set(first_ids) <= {"facts", "events", "inferences"}:
            raise ValueError(f"not tables of numbered memories: {sorted(first_ids)}")
        if not first_ids:
            return []
        union = " UNION ".join(f"SELECT user_id FROM {table} WHERE id >= ?" for table in first_ids)
        return [
            r[0]
            for r in self._rows(
                f"SELECT DISTINCT user_id FROM ({union}) AS written ORDER BY user_id", tuple(first_ids.values())
            )
        ]

    def any_id_taken(self, table: str, ids: Sequence[int]) -> bool:
        """Is one of ``ids`` already used in ``table`` ("facts", "events", "inferences"), by any user?"""
        if table not in ("facts", "events", "inferences"):
            raise ValueError(f"not a table of numbered memories: {table!r}")
        if not ids:
            return False
        return bool(self._rows(f"SELECT 1 FROM {table} WHERE id IN ({marks(ids)}) LIMIT 1", ids))

    def counts(self, user_id: str) -> dict[str, int]:
        out = {}
        for table in ("turns", "facts", "events", "inferences", "vectors", "items"):
            out[table] = self._rows(f"SELECT COUNT(*) FROM {table} WHERE user_id = ?", (user_id,))[0][0]
        return out


def _json_path(key: str) -> str:
    """A JSON path for one top-level metadata key (quoted, so any key is safe)."""
    return '$."' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'
