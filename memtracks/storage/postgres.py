"""The Postgres store: many processes (agent workers, servers) sharing one memory.

``Memory("postgresql://user:pass@host/db")`` opens it (the ``memtracks[postgres]`` extra:
psycopg 3 and pgvector; the server needs the ``vector`` extension). It keeps the rows SQLite
keeps, in the same tables (:mod:`.postgres_schema`), and runs the same queries — written once,
in SQLite's dialect, and translated (:mod:`.dialect`) — so both stores behave alike. What
differs:

- **Writes.** Each write batch is one transaction holding a transaction-level advisory lock
  (``pg_advisory_xact_lock``): the lock SQLite's ``BEGIN IMMEDIATE`` takes on the file. Writers
  in several processes queue on it, so ids and per-session sequence numbers are never given
  twice and no write is lost; a turn already stored (primary key ``(user_id, turn_id)``) is
  reported as such. Language analysis runs before the lock, in parallel.
- **Search in the database.** Vectors live in a pgvector ``vector`` column with an HNSW index
  (inner product), and the lexical index's postings in a table, each with its BM25 weight and
  indexed per term from the heaviest down, so a search reads a term's heaviest postings rather
  than all of them and scores its candidates with BM25 as the in-memory index does
  (:meth:`PostgresStore.lexical_search`, :mod:`memtracks.retrieval.database`). One statement
  searches a question's tracks, vectors and words together (:meth:`PostgresStore.hybrid_searches`). Every
  process searches the same index; none builds one in memory.
- **Few round trips.** Small per-scope reads every question makes (names, relations, folded
  events, the lexical index's state) are kept until the change counter moves
  (:meth:`PostgresStore.remembered`); statements are planned for their own parameters.
- **Bulk loads.** :meth:`PostgresStore.bulk_load` writes large batches with ``COPY``
  (:mod:`.postgres_load`) and builds the HNSW index once, at the end of the load, rather than
  inserting into it row by row; what it leaves is what the same writes one by one leave.
- **Change tracking.** A counter bumped by every write transaction stands in for SQLite's
  ``data_version``, so each process's caches (the event chain, speakers) see the others' writes.
- **Erasure.** ``forget`` deletes the rows in one transaction; ``VACUUM`` (``vacuum=True``:
  ``VACUUM FULL``) reclaims them. Backups: ``pg_dump`` (:meth:`PostgresStore.backup` runs it).
- **Split by user.** Every table of a user's memories is keyed by ``user_id`` first and every
  statement on one names its user, so the tables can be split by user: a new database into
  hash partitions (``StorageConfig.partitions``), or across a distributed Postgres's nodes
  (``docs/postgres.md``), each statement then reading one partition or shard.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import subprocess
import threading
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from memtracks.config import StorageConfig
from memtracks.errors import ClosedError, LockTimeoutError, ReadOnlyError, StorageError
from memtracks.records import Event
from memtracks.retrieval.lexical import bm25_tf
from memtracks.storage import codec
from memtracks.storage import postgres_load as load
from memtracks.storage.connection import Closed, check_config
from memtracks.storage.dialect import Tables, to_postgres
from memtracks.storage.postgres_schema import (
    APPLICATION_ID,
    K1,
    SCHEMA_VERSION,
    WRITE_LOCK,
    B,
    check_layout,
    ensure_vector_index,
    migrate,
    version,
)
from memtracks.storage.searches import HybridSearch
from memtracks.storage.sqlite import Store

try:
    import psycopg
    from psycopg.adapt import Loader
    from psycopg.pq import Format
except ImportError:  # pragma: no cover - the extra is not installed
    psycopg = None  # type: ignore[assignment]
    Loader = object  # type: ignore[assignment,misc]

log = logging.getLogger(__name__)
VECTOR_COLUMNS = ("user_id", "track", "item_id", "content_hash", "vector", "checksum")
EVENT_KEYS = {"event_entities": ("user_id", "key", "event_id"), "event_kinds": ("user_id", "kind", "event_id")}


def redact(uri: str) -> str:
    """``uri`` without its password, for messages."""
    parts = urllib.parse.urlsplit(uri)
    if not parts.password:
        return uri
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


class Row(tuple):
    """A result row readable by position and by column name, as ``sqlite3.Row`` is."""

    _names: dict[str, int]

    def __getitem__(self, key: Any) -> Any:  # type: ignore[override]
        if isinstance(key, str):
            return tuple.__getitem__(self, self._names[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self._names)


def _rows_by_name(cursor: Any) -> Any:
    names: dict[str, int] = {}
    for n, column in enumerate(cursor.description or ()):
        names.setdefault(column.name, n)

    def make(values: Sequence[Any]) -> Row:
        row = Row(values)
        row._names = names
        return row

    return make


class _VectorBytes(Loader):  # type: ignore[misc,valid-type]
    """pgvector's text form read as float32 bytes: the shared SQL reads vectors as SQLite's blobs."""

    format = Format.TEXT if psycopg else None  # type: ignore[assignment]

    def load(self, data: Any) -> bytes:
        text = bytes(data).decode("ascii")
        return np.array(text[1:-1].split(","), dtype=np.float32).tobytes()


class _VectorBytesBinary(Loader):  # type: ignore[misc,valid-type]
    """pgvector's binary form (dimension, then big-endian float32) read as float32 bytes: many
    times faster to read than the text form."""

    format = Format.BINARY if psycopg else None  # type: ignore[assignment]

    def load(self, data: Any) -> bytes:
        return np.frombuffer(bytes(data)[4:], dtype=">f4").astype(np.float32).tobytes()


class PgConnection:
    """The psycopg connection, taking SQL in SQLite's dialect (see :mod:`.dialect`)."""

    def __init__(self, conn: Any, tables: Tables):
        self.conn = conn
        self.tables = tables

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.conn.execute(to_postgres(sql, self.tables), list(params))

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> Any:
        rows = [list(r) for r in rows]
        cursor = self.conn.cursor()
        if rows:
            cursor.executemany(to_postgres(sql, self.tables), rows)
        return cursor

    def run(self, sql: str, params: dict[str, Any], binary: bool = False) -> Any:
        """A statement in Postgres's own dialect, with named ``%(name)s`` parameters
        (``binary``: its results in binary form)."""
        return self.conn.execute(sql, params, binary=binary)

    def close(self) -> None:
        self.conn.close()


def translate(exc: BaseException, where: str, rolled_back: bool = False) -> StorageError:
    """The memtracks error for a Postgres failure (the message keeps the server's)."""
    if isinstance(exc, StorageError):
        return exc
    errors = psycopg.errors
    tail = "; the write failed and was rolled back, nothing of it was stored" if rolled_back else ""
    if isinstance(exc, errors.LockNotAvailable | errors.DeadlockDetected | errors.QueryCanceled):
        return LockTimeoutError(f"{where}: waited too long for another writer ({exc}){tail}")
    if isinstance(exc, errors.ReadOnlySqlTransaction):
        return ReadOnlyError(f"{where} cannot be written ({exc}){tail}")
    if isinstance(exc, psycopg.InterfaceError) and "closed" in str(exc):
        return ClosedError(f"{where}: this Memory was closed; open a new one")
    return StorageError(f"{where}: {exc}{tail}")


class PostgresStore(Store):
    """A memtracks store in a Postgres database (see the module docstring).

    Args:
        uri: a libpq connection URI, ``postgresql://user:password@host:port/database``.
        read_only: every write raises ReadOnlyError (and the session is read-only).
        config: ``busy_timeout`` bounds the wait for another process's write lock;
            ``partitions`` splits a new database's per-user tables into that many hash
            partitions of ``user_id`` (:func:`~.postgres_schema.partition`).
    """

    searches_in_database = True
    database_errors: tuple[type[BaseException], ...] = (psycopg.Error,) if psycopg else ()

    def __init__(self, uri: str, *, read_only: bool = False, config: StorageConfig | None = None):
        if psycopg is None:
            raise StorageError(
                "a postgresql:// memory needs the postgres extra: pip install 'memtracks[postgres]' "
                "(psycopg and pgvector)"
            )
        self.uri = uri
        self.path = redact(uri)
        self.config = config or StorageConfig()
        self.read_only = read_only
        check_config(self.config, postgres=True)
        self.lock = threading.RLock()
        self._depth = 0
        self._own_commits = 0
        self._version_read: int | None = None  # the change counter as data_version last read it
        self._reads: dict[tuple[Any, ...], Any] = {}  # see remembered
        self._indexed_dims: set[int] = set()
        self._deferred: set[int] | None = None  # in a bulk load: the dimensions whose HNSW index it builds
        try:
            conn = psycopg.connect(uri, autocommit=True, row_factory=_rows_by_name)
        except psycopg.Error as exc:
            raise StorageError(f"cannot connect to {self.path}: {exc}") from exc
        try:
            self.db = self._prepare(conn)  # type: ignore[assignment]
        except BaseException as exc:
            conn.close()
            if isinstance(exc, psycopg.Error):
                raise translate(exc, self.path) from exc
            raise

    def _prepare(self, conn: Any) -> PgConnection:
        conn.execute("SELECT set_config('lock_timeout', %s, false)", [f"{int(self.config.busy_timeout * 1000)}ms"])
        if self.read_only:
            found = version(conn, self.path)
            if found < SCHEMA_VERSION:
                raise StorageError(
                    f"{self.path} holds no memtracks memory at schema {SCHEMA_VERSION} (found {found}); "
                    "open it once without read_only=True to create or upgrade it"
                )
            check_layout(conn, self.path, self.config.partitions)
            conn.execute("SET default_transaction_read_only = on")
        else:
            migrate(conn, self.path, self.config.partitions)
        from pgvector.psycopg import register_vector

        register_vector(conn)
        oid = conn.execute("SELECT 'vector'::regtype::oid").fetchone()[0]
        conn.adapters.register_loader(oid, _VectorBytes)
        conn.adapters.register_loader(oid, _VectorBytesBinary)
        conn.execute("SET hnsw.iterative_scan = relaxed_order")  # filtered by scope, still k results
        conn.execute("SET hnsw.ef_search = 100")
        # a statement run often is prepared (psycopg), but planned for its own parameters each time:
        # a generic plan of a search does not know how few rows a scope or a term holds
        conn.execute("SET plan_cache_mode = force_custom_plan")
        return PgConnection(conn, _tables(conn))

    @property
    def _conn(self) -> Any:
        if isinstance(self.db, Closed):
            raise ClosedError(f"{self.path}: this Memory was closed; open a new one")
        return self.db.conn  # type: ignore[attr-defined]

    def backup(self, target: str | Path, *, overwrite: bool = False) -> int:
        """A consistent copy of the whole database at ``target``, made by ``pg_dump`` (custom
        format: restore it with ``pg_restore -d postgresql://...``). Returns its size in bytes."""
        dest = Path(target)
        if dest.exists() and not overwrite:
            raise StorageError(f"{target} exists; pass overwrite=True (--force) to replace it")
        if not dest.parent.is_dir():
            raise StorageError(f"folder {dest.parent} does not exist")
        pg_dump = shutil.which("pg_dump")
        if pg_dump is None:
            raise StorageError("pg_dump was not found on PATH: back up a Postgres memory with pg_dump (see the README)")
        partial = dest.with_name(f".{dest.name}.partial-{os.getpid()}")
        try:
            done = subprocess.run(
                [pg_dump, "--format=custom", f"--file={partial}", self.uri], capture_output=True, text=True
            )
            if done.returncode:
                raise StorageError(f"pg_dump of {self.path} failed: {done.stderr.strip()}")
            os.replace(partial, dest)
        finally:
            partial.unlink(missing_ok=True)
        return dest.stat().st_size

    # ---------------------------------------------------------------- transactions

    @contextmanager
    def _outermost(self) -> Iterator[None]:
        """The outermost transaction on Postgres: under the write lock every writer of this
        database takes, and bumping the change counter the other processes watch."""
        self._depth = 1
        self._reads.clear()  # what this transaction writes is read again after it
        try:
            with self._conn.transaction():
                self._conn.execute("SELECT pg_advisory_xact_lock(%s)", [WRITE_LOCK])
                yield
                self._conn.execute("UPDATE changes SET version = version + 1 WHERE id = 1")
            self._own_commits += 1
        except BaseException as exc:
            self._indexed_dims.clear()  # an index made inside was rolled back with the rest
            if isinstance(exc, psycopg.Error):
                raise translate(exc, self.path, rolled_back=True) from exc
            raise

    @contextmanager
    def bulk_load(self, *, index_memory: str | None = None) -> Iterator[None]:
        """Many memories written at once, in one transaction (see :meth:`Store.bulk_load`): the
        HNSW index is dropped when the load begins and built again over every vector when it
        ends — pgvector builds an index many times faster than it inserts into one — and large
        batches go in with ``COPY``. Other processes never see the store without its index:
        their vector searches wait for the load to commit (or roll back, index and all).
        The index is built again over every vector in the database, so a bulk load pays off for
        a load that is large next to what the database holds (a first import, a migration), not
        for a few thousand memories added to a large shared database.

        ``index_memory`` (``maintenance_work_mem`` for the build, e.g. "4GB"): by default what
        the graph of all the vectors needs (:func:`~.postgres_load.index_memory`), or the
        server's setting if that is more. A graph that does not fit is built far more slowly."""
        with self.transaction():
            if self._deferred is not None:  # inside another bulk load: it builds the index
                yield
                return
            self._deferred = load.vector_index_dims(self._conn)
            for dim in sorted(self._deferred):
                self._conn.execute(f"DROP INDEX vectors_hnsw_{int(dim)}")
            self._indexed_dims -= self._deferred
            try:
                yield
                if self._deferred:
                    memory = index_memory or load.index_memory(self._conn, max(self._deferred))
                    self._conn.execute("SELECT set_config('maintenance_work_mem', %s, true)", [memory])
                for dim in sorted(self._deferred):
                    ensure_vector_index(self.db, dim)
                    self._indexed_dims.add(dim)
                for table in load.LOADED:
                    self._conn.execute(f"ANALYZE {table}")
            finally:
                self._deferred = None

    def overwriting(self) -> Any:
        """Postgres frees deleted rows at ``VACUUM`` (see :meth:`scrub`): nothing to switch on."""
        return nullcontext()

    def scrub(self, *, vacuum: bool = False) -> None:
        """Reclaim the space of deleted rows now: ``VACUUM`` of the memory tables, or with
        ``vacuum=True`` ``VACUUM FULL``, which rewrites them so no old row stays on disk."""
        for table in ("turns", "facts", "events", "inferences", "vectors", "lexical_postings"):
            self.execute(f"VACUUM {'FULL ' if vacuum else ''}{table}")

    def integrity_errors(self, *, quick: bool = False) -> list[str]:
        """Postgres checks its own pages (checksums, WAL); memtracks' invariants are checked by
        :mod:`memtracks.upkeep.integrity` as for SQLite. Nothing to add here."""
        return []

    schema_version = SCHEMA_VERSION

    def header(self) -> tuple[int, int]:
        return APPLICATION_ID, version(self._conn, self.path)

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        with self.lock:
            if self._depth:
                return self.db.execute(sql, params)  # the transaction translates what fails
            try:
                return self.db.execute(sql, params)
            except psycopg.Error as exc:
                raise translate(exc, self.path) from exc

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self.execute(sql, params).fetchall()

    def next_id(self, table: str) -> int:
        track = {"facts": "fact", "events": "event", "inferences": "inference"}[table]
        row = self._rows(
            f"SELECT GREATEST(COALESCE((SELECT MAX(id) FROM {table}), 0), "
            "COALESCE((SELECT MAX(item_id) FROM erased_items WHERE track = ?), 0))",
            (track,),
        )
        return int(row[0][0]) + 1

    def data_version(self) -> int:
        """Changes whenever another connection commits a write (this one's own do not count)."""
        seen = int(self._rows("SELECT version FROM changes WHERE id = 1")[0][0])
        if seen != self._version_read:
            self._version_read = seen
            self._reads.clear()
        return seen - self._own_commits

    def remembered(self, key: tuple[Any, ...], read: Callable[[], Any]) -> Any:
        """What ``read()`` returns, read once while nothing is written: kept until
        :meth:`data_version` (which every read of a memory asks first) sees the change counter
        move, or this store writes. Inside a transaction, read afresh."""
        if self._depth or self._version_read is None:
            return read()
        if key not in self._reads:
            self._reads[key] = read()
        return self._reads[key]

    def _metadata_holds(self, key: str, value: Any) -> tuple[str, list[Any]]:
        if value is None:  # SQLite: a JSON null and a missing key both read as NULL
            return "(metadata::jsonb -> ? IS NULL OR metadata::jsonb -> ? = 'null'::jsonb)", [key, key]
        if isinstance(value, bool):  # SQLite reads JSON true as 1
            return "(metadata::jsonb -> ?) IN (?::jsonb, ?::jsonb)", [key, json.dumps(value), json.dumps(int(value))]
        return "(metadata::jsonb -> ?) = ?::jsonb", [key, json.dumps(value)]

    # ---------------------------------------------------------------- vectors

    def save_vectors(self, user_id: str, track: str, items: Sequence[tuple[int, str, np.ndarray]]) -> None:
        rows = []
        for item_id, content_hash, vector in items:
            v = np.asarray(vector, dtype=np.float32).reshape(-1)
            rows.append(
                (user_id, track, item_id, content_hash, v, codec.vector_checksum(user_id, track, item_id, v.tobytes()))
            )
        for dim in {len(r[4]) for r in rows} - self._indexed_dims:
            if self._deferred is not None:
                self._deferred.add(dim)
                continue
            ensure_vector_index(self.db, dim)
            self._indexed_dims.add(dim)
        if len(rows) < load.COPY_FROM:
            self.db.executemany(
                "INSERT OR REPLACE INTO vectors (user_id, track, item_id, content_hash, vector, checksum) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                rows,
            )
            return
        load.insert(
            self._conn,
            "vectors",
            VECTOR_COLUMNS,
            load.last_per_key(rows, slice(0, 3)),
            "ON CONFLICT (user_id, track, item_id) DO UPDATE SET content_hash = EXCLUDED.content_hash, "
            "vector = EXCLUDED.vector, checksum = EXCLUDED.checksum",
            types=("text", "text", "int8", "text", "vector", "int8"),
        )

    def save_events(self, events: Sequence[Event]) -> None:
        """New events, as :meth:`Store.save_events`; a large batch through ``COPY``."""
        if len(events) < load.COPY_FROM:
            super().save_events(events)
            return
        load.insert(self._conn, "events", codec.EVENT_COLUMNS.split(", "), [codec.event_row(e) for e in events])
        load.insert(
            self._conn,
            "event_entities",
            EVENT_KEYS["event_entities"],
            codec.event_entity_rows(events),
            "ON CONFLICT DO NOTHING",
        )
        load.insert(
            self._conn,
            "event_kinds",
            EVENT_KEYS["event_kinds"],
            codec.event_kind_rows(events),
            "ON CONFLICT DO NOTHING",
        )

    def vector_search(self, user_id: str, track: str, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """The ``k`` stored vectors of ``user_id`` on ``track`` with the largest inner product
        with ``query`` (the HNSW index, or an exact scan of a small scope: the planner's choice)."""
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        if k <= 0 or not len(q):
            return []
        dim = len(q)
        rows = self._rows(
            f"SELECT item_id, (vector::vector({dim}) <#> ?::vector({dim})) AS distance FROM vectors "
            f"WHERE user_id = ? AND track = ? ORDER BY vector::vector({dim}) <#> ?::vector({dim}) LIMIT ?",
            (q, user_id, track, q, int(k)),
        )
        found = sorted(((int(r[0]), -float(r[1])) for r in rows), key=lambda pair: -pair[1])
        return found

    def vector_lookup(self, user_id: str, track: str, ids: Sequence[int]) -> dict[int, np.ndarray]:
        """The stored vectors of these items (those that have one)."""
        if not ids:
            return {}
        rows = self._query(
            "SELECT item_id, vector FROM vectors WHERE user_id = %(u)s AND track = %(t)s AND item_id = ANY(%(ids)s)",
            {"u": user_id, "t": track, "ids": [int(i) for i in ids]},
            binary=True,
        )
        return {int(r[0]): np.frombuffer(r[1], dtype=np.float32) for r in rows}

    # ---------------------------------------------------------------- lexical index

    def max_item_id(self, user_id: str, track: str) -> int:
        table = {"fact": "facts", "event": "events", "inference": "inferences"}[track]
        return int(self._rows(f"SELECT COALESCE(MAX(id), 0) FROM {table} WHERE user_id = ?", (user_id,))[0][0])

    def lexical_state(self, user_id: str, track: str) -> Any:
        """(synced, generation, erased, documents, total_length, tokenizer) of a scope's lexical
        index, or None."""
        rows = self._rows(
            "SELECT synced, generation, erased, documents, total_length, tokenizer FROM lexical_state "
            "WHERE user_id = ? AND track = ?",
            (user_id, track),
        )
        return rows[0] if rows else None

    def lexical_status(self, user_id: str, track: str) -> Any:
        """In one statement, what tells whether a scope's lexical index is up to date: its
        state (:meth:`lexical_state`, None when it has none) and the scope's ``now_generation``,
        ``now_erased`` and ``now_max_id``."""
        table = {"fact": "facts", "event": "events", "inference": "inferences"}[track]
        rows = self.remembered(
            ("lexical_status", user_id, track),
            lambda: self._rows(
                "SELECT s.synced, s.generation, s.erased, s.documents, s.total_length, s.tokenizer, "
                "(SELECT value FROM meta WHERE key = ?) AS now_generation, "
                "(SELECT COALESCE(MAX(seq), 0) FROM erased_items WHERE user_id = ?) AS now_erased, "
                f"(SELECT COALESCE(MAX(id), 0) FROM {table} WHERE user_id = ?) AS now_max_id "
                "FROM (SELECT 1) AS one LEFT JOIN lexical_state s ON s.user_id = ? AND s.track = ?",
                (f"generation:{user_id}", user_id, user_id, user_id, track),
            ),
        )
        return rows[0]

    def lexical_reset(self, user_id: str, track: str) -> None:
        for table in ("lexical_postings", "lexical_terms", "lexical_state"):
            self.execute(f"DELETE FROM {table} WHERE user_id = ? AND track = ?", (user_id, track))

    def lexical_remove(self, user_id: str, track: str, ids: Iterable[int]) -> float:
        """Take erased memories' postings out (and their terms' document frequencies down);
        returns their documents' total length."""
        wanted = sorted({int(i) for i in ids})
        if not wanted:
            return 0.0
        rows = self._query(
            "WITH gone AS (DELETE FROM lexical_postings WHERE user_id = %(u)s AND track = %(t)s "
            "AND item_id = ANY(%(ids)s) RETURNING term, item_id, length), "
            "counted AS (SELECT term, COUNT(*) AS n FROM gone GROUP BY term), "
            "lowered AS (UPDATE lexical_terms AS x SET df = x.df - c.n FROM counted c "
            "WHERE x.user_id = %(u)s AND x.track = %(t)s AND x.term = c.term) "
            "SELECT item_id, length FROM gone",
            {"u": user_id, "t": track, "ids": wanted},
        )
        return sum({int(r[0]): float(r[1]) for r in rows}.values())

    def lexical_add(
        self, user_id: str, track: str, documents: Sequence[tuple[int, Sequence[str]]], avg: float
    ) -> float:
        """Postings of new documents ``(item id, terms)``, each with its BM25 weight at the
        average document length ``avg`` (the order lexical search reads a term's postings in),
        and their terms' document frequencies; returns the documents' total length."""
        rows = []
        total = 0.0
        frequencies: dict[str, int] = {}
        for item_id, terms in documents:
            counts: dict[str, int] = {}
            for term in terms:
                counts[term] = counts.get(term, 0) + 1
            total += len(terms)
            for term, tf in counts.items():
                impact = float(bm25_tf(tf, len(terms), avg or 1.0, K1, B))
                rows.append((user_id, track, term, int(item_id), tf, len(terms), impact))
                frequencies[term] = frequencies.get(term, 0) + 1
        with self._conn.cursor().copy(
            "COPY lexical_postings (user_id, track, term, item_id, tf, length, impact) FROM STDIN"
        ) as copy:
            for row in rows:
                copy.write_row(row)
        if frequencies:
            self._query(
                "INSERT INTO lexical_terms (user_id, track, term, df) "
                "SELECT %(u)s, %(t)s, term, n FROM unnest(%(terms)s::text[], %(counts)s::bigint[]) AS x(term, n) "
                "ON CONFLICT (user_id, track, term) DO UPDATE SET df = lexical_terms.df + EXCLUDED.df",
                {"u": user_id, "t": track, "terms": list(frequencies), "counts": list(frequencies.values())},
                fetch=False,
            )
        if len(rows) >= load.ANALYZE_FROM:
            self.execute("ANALYZE lexical_postings")  # see postgres_load.ANALYZE_FROM
        return total

    def set_lexical_state(
        self,
        user_id: str,
        track: str,
        *,
        synced: int,
        generation: int,
        erased: int,
        documents: int,
        total: float,
        tokenizer: str,
    ) -> None:
        self.execute(
            "INSERT OR REPLACE INTO lexical_state "
            "(user_id, track, synced, generation, erased, documents, total_length, tokenizer) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (user_id, track, synced, generation, erased, documents, total, tokenizer),
        )

    def lexical_search(
        self,
        user_id: str,
        track: str,
        terms: Sequence[str],
        k: int,
        documents: int,
        total: float,
        *,
        groups: Sequence[tuple[str, ...]] = (),
        group_weight: float = 0.0,
        group_max_share: float = 1.0,
        allowed: Iterable[int] | None = None,
    ) -> list[tuple[int, float]]:
        """The ``k`` best (item id, BM25 score) for ``terms`` (and ``groups`` at
        ``group_weight``, see :meth:`LexicalIndex.search`), in one statement, scored as the
        in-memory index scores them, at today's document count and average length.

        It reads each term's heaviest postings (:data:`LEXICAL_DEPTH`; a quarter of that for a
        category member; all of a rarer term's) in the order of the weight each was stored with,
        and every memory holding a whole group of several terms. A memory is known exactly when
        every term it was not read for had all its postings read; otherwise its score lies
        between what was read and that plus the most each unread posting could add (the weight
        of the last one read). Those whose most reaches the ``k``-th best known score are scored
        in full (at most :data:`LEXICAL_RESCORE`). A memory none of the postings read holds can
        still belong in the top ``k`` when the unread weights add up to more than the ``k``-th
        score, and stored weights are those of the average length when they were written:
        ``benchmarks/lexical_recall.py`` measures how much of exact BM25's top ``k`` it finds."""
        if not (terms or groups) or k <= 0 or documents <= 0:
            return []
        params = _lexical_params(user_id, track, terms, k, documents, total, groups, group_weight, group_max_share)
        params["allowed"] = None if allowed is None else sorted({int(i) for i in allowed})
        rows = self._query(LEXICAL_SEARCH, params)
        return [(int(r[0]), float(r[1])) for r in rows if r[1] > 0]

    def hybrid_searches(
        self, user_id: str, query: np.ndarray, searches: Sequence[HybridSearch]
    ) -> list[tuple[dict[int, float], dict[int, float]]]:
        """:meth:`vector_search` and :meth:`lexical_search` of one scope, for each of
        ``searches`` (one per track a question searches), all in one statement. For each, in the
        order asked: the ``k`` nearest items by inner product with ``query`` and their cosines,
        with the cosines of the lexical hits the vector search did not find; and the lexical
        hits' BM25 scores."""
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        results: list[tuple[dict[int, float], dict[int, float]]] = [({}, {}) for _ in searches]
        asked = [n for n, s in enumerate(searches) if s.k > 0 and len(q)]
        if not asked:
            return results
        params: dict[str, Any] = {"q": q, "allowed": None}
        parts = []
        for n in asked:
            s = searches[n]
            own = _lexical_params(
                user_id,
                s.track,
                s.terms,
                s.k,
                max(s.documents, 1),
                s.total,
                s.groups,
                s.group_weight,
                s.group_max_share,
            )
            if s.documents <= 0:
                own.update(terms=[], single=[], gno=[], gterms=[])
            params.update({f"{name}_{n}": value for name, value in own.items()})
            parts.append(_hybrid_part(len(q), n))
        rows = self._query("\nUNION ALL\n".join(parts), params)
        for part, source, item_id, value in sorted(rows, key=lambda r: (r[0], r[1] != "s", -r[3], r[2])):
            semantic, lexical = results[part]
            (lexical if source == "l" else semantic)[int(item_id)] = float(value)
        return results

    def lexical_frequencies(self, user_id: str, track: str, terms: Sequence[str]) -> dict[str, int]:
        """How many of the scope's documents hold each of ``terms`` (those that occur)."""
        rows = self._rows(
            "SELECT term, df FROM lexical_terms WHERE user_id = ? AND track = ? AND term = ANY(?) AND df > 0",
            (user_id, track, list(dict.fromkeys(terms))),
        )
        return {r[0]: int(r[1]) for r in rows}

    def _query(self, sql: str, params: dict[str, Any], *, fetch: bool = True, binary: bool = False) -> list[Any]:
        """Rows of a statement in Postgres's own dialect (named ``%(name)s`` parameters;
        ``binary``: read in binary form)."""
        with self.lock:
            try:
                cursor = self.db.run(sql, params, binary)  # type: ignore[attr-defined]
                return cursor.fetchall() if fetch else []
            except psycopg.Error as exc:
                if self._depth:
                    raise
                raise translate(exc, self.path) from exc


def _lexical_params(
    user_id: str,
    track: str,
    terms: Sequence[str],
    k: int,
    documents: int,
    total: float,
    groups: Sequence[tuple[str, ...]],
    group_weight: float,
    group_max_share: float,
) -> dict[str, Any]:
    """The parameters of :data:`LEXICAL_SEARCH`: the question's terms, the expansion groups of
    one term (searched as terms at ``group_weight``) and of more (``gno``: each term's group)."""
    unique = list(dict.fromkeys(terms))
    groups = list(groups) if group_weight > 0 else []
    single = [g[0] for g in groups if len(g) == 1 and g[0] not in unique]
    grouped = [(n, t) for n, g in enumerate(g for g in groups if len(g) > 1) for t in g]
    return {
        "u": user_id,
        "t": track,
        "terms": unique,
        "n": float(documents),
        "avg": total / documents or 1.0,
        "k1": K1,
        "b": B,
        "depth": max(LEXICAL_DEPTH, LEXICAL_DEPTH_PER_HIT * k),
        "rescore": max(LEXICAL_RESCORE, 20 * k),
        "single": single,
        "gno": [n for n, _ in grouped],
        "gterms": [t for _, t in grouped],
        "gweight": group_weight,
        "gmax": max(1.0, group_max_share * documents),
        "k": int(k),
    }


# Lexical search (PostgresStore.lexical_search) reads each term's heaviest postings, at least
# LEXICAL_DEPTH and LEXICAL_DEPTH_PER_HIT per hit asked for, and scores in full the memories
# the postings read leave in doubt, at most LEXICAL_RESCORE.
LEXICAL_DEPTH = 1000
LEXICAL_DEPTH_PER_HIT = 20
LEXICAL_RESCORE = 1000
_BM25 = "{tf} * (%(k1)s + 1) / ({tf} + %(k1)s * (1 - %(b)s + %(b)s * {length} / %(avg)s))"
_IDF = "LN(1 + (%(n)s - {df} + 0.5) / ({df} + 0.5))"
_ALLOWED = "(%(allowed)s::bigint[] IS NULL OR {item} = ANY(%(allowed)s::bigint[]))"
_LEXICAL = f"""
WITH asked AS (
    SELECT x.term COLLATE "C" AS term, 1.0::float8 AS weight, FALSE AS member FROM unnest(%(terms)s::text[]) AS x(term)
    UNION ALL
    SELECT x.term COLLATE "C", %(gweight)s, TRUE FROM unnest(%(single)s::text[]) AS x(term)
),
q AS (
    SELECT a.term, a.weight, {_IDF.format(df="d.df")} AS idf,
        CASE WHEN a.member THEN %(depth)s / 4 ELSE %(depth)s END AS depth
    FROM asked a
    JOIN lexical_terms d ON d.user_id = %(u)s AND d.track = %(t)s AND d.term = a.term AND d.df > 0
    WHERE NOT a.member OR d.df <= %(gmax)s
),
g AS (
    SELECT x.grp, x.term COLLATE "C" AS term, COALESCE(d.df, 0) AS df
    FROM unnest(%(gno)s::int[], %(gterms)s::text[]) AS x(grp, term)
    LEFT JOIN lexical_terms d ON d.user_id = %(u)s AND d.track = %(t)s AND d.term = x.term COLLATE "C"
),
rarest AS (SELECT DISTINCT ON (grp) grp, term FROM g ORDER BY grp, df, term),
held AS (
    SELECT r.grp, p.item_id, MIN(o.tf) AS tf, MIN(o.length) AS length
    FROM rarest r
    JOIN lexical_postings p ON p.user_id = %(u)s AND p.track = %(t)s AND p.term = r.term
    JOIN g ON g.grp = r.grp
    JOIN lexical_postings o ON o.user_id = %(u)s AND o.track = %(t)s AND o.term = g.term AND o.item_id = p.item_id
    WHERE {_ALLOWED.format(item="p.item_id")}
    GROUP BY r.grp, p.item_id
    HAVING COUNT(*) = (SELECT COUNT(*) FROM g AS same WHERE same.grp = r.grp)
),
gdf AS (SELECT grp, COUNT(*) AS df FROM held GROUP BY grp HAVING COUNT(*) <= %(gmax)s),
gscore AS (
    SELECT h.item_id, SUM(%(gweight)s * {_IDF.format(df="d.df")} * {_BM25.format(tf="h.tf", length="h.length")}) AS score
    FROM held h JOIN gdf d ON d.grp = h.grp GROUP BY h.item_id
),
post AS (
    SELECT q.term, q.weight * q.idf AS w, p.item_id, p.impact, {_BM25.format(tf="p.tf", length="p.length")} AS bm
    FROM q CROSS JOIN LATERAL (
        SELECT item_id, tf, length, impact FROM lexical_postings p
        WHERE p.user_id = %(u)s AND p.track = %(t)s AND p.term = q.term AND {_ALLOWED.format(item="p.item_id")}
        ORDER BY p.impact DESC LIMIT q.depth
    ) p
),
rest AS (
    SELECT q.term, CASE WHEN COUNT(post.item_id) < q.depth THEN 0
        ELSE q.weight * q.idf * MIN(post.impact) END AS most
    FROM q LEFT JOIN post ON post.term = q.term GROUP BY q.term, q.weight, q.idf, q.depth
),
found AS (
    SELECT post.item_id, SUM(post.w * post.bm) AS low, SUM(rest.most) AS seen
    FROM post JOIN rest ON rest.term = post.term GROUP BY post.item_id
),
scored AS (
    SELECT item_id, COALESCE(f.low, 0) + COALESCE(g.score, 0) AS low,
        (SELECT COALESCE(SUM(most), 0) FROM rest) - COALESCE(f.seen, 0) AS unseen
    FROM found f FULL JOIN gscore g USING (item_id)
),
bar AS (SELECT COALESCE(MIN(low), 0) AS low FROM (SELECT low FROM scored ORDER BY low DESC LIMIT %(k)s) best),
cand AS (
    SELECT s.item_id, s.low, s.unseen FROM scored s, bar WHERE s.low + s.unseen >= bar.low
    ORDER BY s.low + s.unseen DESC, s.item_id LIMIT %(rescore)s
),
tscore AS (
    SELECT c.item_id, CASE WHEN c.unseen <= 0 THEN c.low ELSE COALESCE(g.score, 0) + COALESCE((
        SELECT SUM(q.weight * q.idf * {_BM25.format(tf="p.tf", length="p.length")})
        FROM lexical_postings p JOIN q ON q.term = p.term
        WHERE p.user_id = %(u)s AND p.track = %(t)s AND p.item_id = c.item_id
    ), 0) END AS score
    FROM cand c LEFT JOIN gscore g ON g.item_id = c.item_id
),
lex AS (SELECT item_id, score FROM tscore ORDER BY score DESC, item_id LIMIT %(k)s)"""

LEXICAL_SEARCH = _LEXICAL + " SELECT item_id, score FROM lex ORDER BY score DESC, item_id"
# {dim}: the query vector's dimension (the HNSW index is on the column cast to it)
_DISTANCE = "vector::vector({dim}) <#> %(q)s::vector({dim})"
HYBRID_SEARCH = (
    _LEXICAL
    + f""",
sem AS (
    SELECT item_id, -({_DISTANCE}) AS cosine FROM vectors WHERE user_id = %(u)s AND track = %(t)s
    ORDER BY {_DISTANCE} LIMIT %(k)s
)
SELECT 's' AS source, item_id, cosine FROM sem
UNION ALL SELECT 'l', item_id, score FROM lex WHERE score > 0
UNION ALL SELECT 'c', v.item_id, -(v.{_DISTANCE}) FROM lex JOIN vectors v
    ON v.user_id = %(u)s AND v.track = %(t)s AND v.item_id = lex.item_id
    WHERE lex.score > 0 AND lex.item_id NOT IN (SELECT item_id FROM sem)
"""
)


# A search's own parameters, numbered per search when several run in one statement (the
# question's vector ``q`` and ``allowed`` are shared).
_OWN_PARAM = re.compile(r"%\((?!q\)|allowed\))(\w+)\)s")


@cache
def _hybrid_part(dim: int, n: int) -> str:
    """:data:`HYBRID_SEARCH` as the ``n``-th part of a statement of several, for vectors of ``dim``."""
    sql = _OWN_PARAM.sub(rf"%(\1_{n})s", HYBRID_SEARCH.replace("{dim}", str(dim)))
    return f"SELECT {n} AS part, source, item_id, cosine FROM ({sql}) AS s{n}"


def _tables(conn: Any) -> Tables:
    """Each memtracks table's columns and primary key, as the database has them."""
    columns: dict[str, list[str]] = {}
    for table, column in conn.execute(
        "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() "
        "ORDER BY table_name, ordinal_position"
    ).fetchall():
        columns.setdefault(table, []).append(column)
    keys: dict[str, list[str]] = {}
    for table, column in conn.execute(
        "SELECT tc.table_name, k.column_name FROM information_schema.table_constraints tc "
        "JOIN information_schema.key_column_usage k ON k.constraint_name = tc.constraint_name "
        "AND k.table_schema = tc.table_schema AND k.table_name = tc.table_name "
        "WHERE tc.constraint_type = 'PRIMARY KEY' AND tc.table_schema = current_schema() "
        "ORDER BY tc.table_name, k.ordinal_position"
    ).fetchall():
        keys.setdefault(table, []).append(column)
    return Tables(columns, keys)
