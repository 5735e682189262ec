"""The Postgres schema as numbered migrations, counted in ``memtracks_schema``.

The tables and columns are SQLite's (:mod:`.schema`) at its version 8, so the SQL shared by
both stores reads and writes the same rows; the types are Postgres's (``BIGINT``, ``DOUBLE
PRECISION``, ``BYTEA``; text compared byte-wise, ``COLLATE "C"``, as SQLite does). Beside
them, what the database needs to search by itself: the vectors in a pgvector ``vector``
column (its HNSW index is made once the embedder's dimension is known, see
:func:`ensure_vector_index`), the postings of the lexical index, and a change counter
standing in for SQLite's ``data_version``.

Every table of a user's memories (:data:`USER_TABLES`) is keyed by ``user_id`` first, so its
rows can be split by user; a new database can be made with them split into hash partitions of
``user_id`` (:func:`partition`). The tables of :data:`GLOBAL_TABLES` are one for all users.

Add a change as a new function at the end of ``MIGRATIONS`` (and, for a change both stores
share, one in :mod:`.schema` too); never edit one that shipped. A change to a table's columns
or indexes reaches its partitions by itself; a new per-user table is keyed by ``user_id``
first, and in a partitioned database (:func:`partition_count`) partitioned as the others
(:func:`partition_table`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memtracks.errors import NotAMemoryFileError, SchemaVersionError, StorageError
from memtracks.storage import codec
from memtracks.storage.tables import TABLES

APPLICATION_ID = 0x6D656D74  # "memt", as in the SQLite header
WRITE_LOCK = APPLICATION_ID  # pg_advisory_xact_lock key held by every write transaction
TEXT = 'TEXT COLLATE "C"'
K1, B = 1.2, 0.75  # BM25, as memtracks.retrieval.lexical.LexicalIndex


def _run(db: Any, script: str) -> None:
    for statement in script.replace("{TEXT}", TEXT).split(";"):
        if statement.strip():
            db.execute(statement)


def m001_initial(db: Any) -> None:
    """SQLite's tables at its schema version 8."""
    _run(
        db,
        """
        CREATE TABLE meta (key {TEXT} PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE turns (
            user_id {TEXT} NOT NULL, turn_id {TEXT} NOT NULL, session_id {TEXT} NOT NULL,
            speaker {TEXT} NOT NULL, text TEXT NOT NULL, lang {TEXT} NOT NULL,
            ts TEXT NOT NULL, ts_epoch DOUBLE PRECISION NOT NULL, source {TEXT} NOT NULL,
            metadata TEXT NOT NULL, content_hash TEXT NOT NULL, seq BIGINT NOT NULL,
            rowid BIGSERIAL UNIQUE,
            PRIMARY KEY (user_id, turn_id)
        );
        CREATE INDEX turns_session ON turns (user_id, session_id, seq);
        CREATE INDEX turns_time ON turns (user_id, ts_epoch);
        CREATE INDEX turns_written ON turns (user_id, rowid);
        CREATE TABLE facts (
            id BIGINT PRIMARY KEY, user_id {TEXT} NOT NULL, subject {TEXT} NOT NULL,
            slot {TEXT} NOT NULL, value TEXT NOT NULL, value_key {TEXT} NOT NULL,
            negated BIGINT NOT NULL, source {TEXT} NOT NULL, confidence DOUBLE PRECISION NOT NULL,
            valid_from TEXT NOT NULL, valid_to TEXT, recorded_at TEXT NOT NULL,
            last_seen TEXT NOT NULL, last_seen_epoch DOUBLE PRECISION NOT NULL, superseded_by BIGINT,
            mention_count BIGINT NOT NULL, source_turn_ids TEXT NOT NULL,
            lang {TEXT} NOT NULL, origin {TEXT} NOT NULL, reason {TEXT}, superseded_at TEXT,
            planned BIGINT NOT NULL DEFAULT 0, revisions TEXT NOT NULL DEFAULT '[]'
        );
        CREATE INDEX facts_subject_slot ON facts (user_id, subject, slot);
        CREATE INDEX facts_slot ON facts (user_id, slot);
        CREATE INDEX facts_user_id ON facts (user_id, id);
        CREATE TABLE events (
            id BIGINT PRIMARY KEY, user_id {TEXT} NOT NULL, session_id {TEXT} NOT NULL,
            turn_id {TEXT} NOT NULL, speaker {TEXT} NOT NULL, subject {TEXT} NOT NULL,
            text TEXT NOT NULL, lang {TEXT} NOT NULL, mentioned_at TEXT NOT NULL,
            mentioned_epoch DOUBLE PRECISION NOT NULL, start TEXT, start_epoch DOUBLE PRECISION, "end" TEXT,
            end_epoch DOUBLE PRECISION, granularity {TEXT}, times TEXT NOT NULL, happenings TEXT NOT NULL,
            kinds TEXT NOT NULL, entity_keys TEXT NOT NULL, source {TEXT} NOT NULL,
            seq BIGINT NOT NULL, metadata TEXT NOT NULL DEFAULT '{}'
        );
        CREATE INDEX events_mentioned ON events (user_id, mentioned_epoch);
        CREATE INDEX events_start ON events (user_id, start_epoch);
        CREATE INDEX events_turn ON events (user_id, turn_id);
        CREATE INDEX events_session ON events (user_id, session_id, seq);
        CREATE INDEX events_user_id ON events (user_id, id);
        CREATE TABLE event_entities (
            user_id {TEXT} NOT NULL, key {TEXT} NOT NULL, event_id BIGINT NOT NULL,
            PRIMARY KEY (user_id, key, event_id)
        );
        CREATE TABLE event_kinds (
            user_id {TEXT} NOT NULL, kind {TEXT} NOT NULL, event_id BIGINT NOT NULL,
            PRIMARY KEY (user_id, kind, event_id)
        );
        CREATE TABLE event_links (
            user_id {TEXT} NOT NULL, src BIGINT NOT NULL, dst BIGINT NOT NULL,
            kind {TEXT} NOT NULL, key {TEXT} NOT NULL DEFAULT '',
            PRIMARY KEY (user_id, src, dst, kind, key)
        );
        CREATE INDEX event_links_dst ON event_links (user_id, dst);
        CREATE TABLE names (
            user_id {TEXT} NOT NULL, surface {TEXT} NOT NULL, key {TEXT} NOT NULL,
            label {TEXT} NOT NULL, PRIMARY KEY (user_id, surface)
        );
        CREATE TABLE relations (
            user_id {TEXT} NOT NULL, owner {TEXT} NOT NULL, relation {TEXT} NOT NULL, name {TEXT} NOT NULL,
            PRIMARY KEY (user_id, owner, relation, name)
        );
        CREATE TABLE inferences (
            id BIGINT PRIMARY KEY, user_id {TEXT} NOT NULL, rule_id {TEXT} NOT NULL,
            subject {TEXT} NOT NULL, kind {TEXT} NOT NULL, text TEXT NOT NULL, lang {TEXT} NOT NULL,
            created_at TEXT NOT NULL, created_epoch DOUBLE PRECISION NOT NULL, premises TEXT NOT NULL,
            confidence DOUBLE PRECISION NOT NULL, valid_from TEXT, valid_to TEXT, status {TEXT} NOT NULL,
            retracted_at TEXT, retracted_because TEXT, source_turn_ids TEXT NOT NULL,
            derived_fact_id BIGINT, args TEXT NOT NULL, key {TEXT} NOT NULL,
            UNIQUE (user_id, key)
        );
        CREATE INDEX inferences_kind ON inferences (user_id, kind, status, id);
        CREATE TABLE inference_premises (
            user_id {TEXT} NOT NULL, track {TEXT} NOT NULL, premise_id BIGINT NOT NULL,
            inference_id BIGINT NOT NULL,
            PRIMARY KEY (user_id, track, premise_id, inference_id)
        );
        CREATE TABLE vectors (
            user_id {TEXT} NOT NULL, track {TEXT} NOT NULL, item_id BIGINT NOT NULL,
            content_hash TEXT NOT NULL, vector vector NOT NULL, checksum BIGINT,
            PRIMARY KEY (user_id, track, item_id)
        );
        CREATE TABLE erasures (
            id BIGSERIAL PRIMARY KEY, user_id {TEXT} NOT NULL, at TEXT NOT NULL,
            selector TEXT NOT NULL, counts TEXT NOT NULL
        );
        CREATE TABLE erased_items (
            seq BIGSERIAL PRIMARY KEY, user_id {TEXT} NOT NULL, track {TEXT} NOT NULL, item_id BIGINT NOT NULL
        );
        CREATE INDEX erased_items_user ON erased_items (user_id, seq);
        CREATE INDEX erased_items_id ON erased_items (track, item_id);
        CREATE TABLE consolidations (
            id {TEXT} PRIMARY KEY, user_id {TEXT} NOT NULL, at TEXT NOT NULL, actions TEXT NOT NULL,
            preimage TEXT NOT NULL, after TEXT NOT NULL, undone_at TEXT
        );
        CREATE INDEX consolidations_user ON consolidations (user_id, at);
        CREATE TABLE merged_events (
            user_id {TEXT} NOT NULL, event_id BIGINT NOT NULL, into_id BIGINT NOT NULL,
            operation_id {TEXT} NOT NULL, PRIMARY KEY (user_id, event_id)
        );
        """,
    )


def m002_search(db: Any) -> None:
    """What the database searches by itself: the postings of each scope's lexical index (one
    row per term and memory, with the memory's length, for BM25), the state of each index
    (how far it has read, how many memories, their total length), and the change counter."""
    _run(
        db,
        """
        CREATE TABLE lexical_postings (
            user_id {TEXT} NOT NULL, track {TEXT} NOT NULL, term {TEXT} NOT NULL, item_id BIGINT NOT NULL,
            tf REAL NOT NULL, length REAL NOT NULL,
            PRIMARY KEY (user_id, track, term, item_id)
        );
        CREATE INDEX lexical_postings_item ON lexical_postings (user_id, track, item_id);
        CREATE TABLE lexical_state (
            user_id {TEXT} NOT NULL, track {TEXT} NOT NULL, synced BIGINT NOT NULL, generation BIGINT NOT NULL,
            erased BIGINT NOT NULL, documents BIGINT NOT NULL, total_length DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (user_id, track)
        );
        CREATE TABLE changes (id INT PRIMARY KEY, version BIGINT NOT NULL);
        INSERT INTO changes VALUES (1, 0)
        """,
    )


def m003_lexical_tokenizer(db: Any) -> None:
    """Which tokenizer made each lexical index's postings: an index made by another one (an
    earlier memtracks) is made again at its next search."""
    db.execute(f"ALTER TABLE lexical_state ADD COLUMN tokenizer {TEXT} NOT NULL DEFAULT ''")


def m004_store_items(db: Any) -> None:
    """The LangGraph store's items as they were put (SQLite's ``m010_store_items``)."""
    _run(
        db,
        """
        CREATE TABLE items (
            user_id {TEXT} NOT NULL, namespace {TEXT} NOT NULL, key {TEXT} NOT NULL, value TEXT NOT NULL,
            indexed BIGINT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, seq BIGINT NOT NULL,
            PRIMARY KEY (user_id, namespace, key)
        );
        CREATE INDEX items_order ON items (user_id, seq)
        """,
    )


def m005_row_checksums(db: Any) -> None:
    """SQLite's ``m011_row_checksums``: a checksum per row of the record tables, computed for
    the rows already stored, and the quarantine."""
    for table in codec.COLUMNS:
        db.execute(f"ALTER TABLE {table} ADD COLUMN crc BIGINT")
    _run(
        db,
        """
        CREATE TABLE quarantine (
            id BIGSERIAL PRIMARY KEY, user_id {TEXT} NOT NULL, source {TEXT} NOT NULL, item TEXT NOT NULL,
            row TEXT NOT NULL, reason TEXT NOT NULL, at TEXT NOT NULL
        );
        CREATE INDEX quarantine_user ON quarantine (user_id, source)
        """,
    )
    for table, columns in codec.COLUMNS.items():
        keys = codec.ROW_KEYS[table]
        listed = ", ".join(f'"{c}"' for c in (*keys, *columns))
        rows = db.execute(f"SELECT {listed} FROM {table}").fetchall()
        where = " AND ".join(f'"{k}" = %s' for k in keys)
        with db.cursor() as cursor:
            cursor.executemany(
                f"UPDATE {table} SET crc = %s WHERE {where}",
                [(codec.checksum(r[len(keys) :]), *r[: len(keys)]) for r in rows],
            )


def m006_lexical_impacts(db: Any) -> None:
    """Lexical search that reads no more postings than it needs: each posting's BM25 weight
    (its saturated, length-normalised term frequency at the average length of when it was
    written), indexed per term from the heaviest down, and each term's document frequency.
    Postings already stored get their weight at their index's current average length."""
    _run(
        db,
        f"""
        ALTER TABLE lexical_postings ADD COLUMN impact REAL NOT NULL DEFAULT 0;
        UPDATE lexical_postings p SET impact = p.tf * {K1 + 1} / (p.tf + {K1} * (1 - {B} + {B} * p.length
            / GREATEST(s.total_length / GREATEST(s.documents, 1), 1e-9)))
            FROM lexical_state s WHERE s.user_id = p.user_id AND s.track = p.track;
        CREATE INDEX lexical_postings_impact ON lexical_postings (user_id, track, term, impact DESC)
            INCLUDE (item_id, tf, length);
        CREATE TABLE lexical_terms (
            user_id {{TEXT}} NOT NULL, track {{TEXT}} NOT NULL, term {{TEXT}} NOT NULL, df BIGINT NOT NULL,
            PRIMARY KEY (user_id, track, term)
        );
        INSERT INTO lexical_terms SELECT user_id, track, term, COUNT(*) FROM lexical_postings
            GROUP BY user_id, track, term
        """,
    )


def m007_user_keys(db: Any) -> None:
    """Every table of a user's memories keyed by ``user_id`` first, so its rows can be split by
    user (hash partitions, or the shards of a distributed Postgres): Postgres and Citus want
    the key they split by in every unique key. The numbered memories, erasures, erased items,
    quarantined rows and consolidation runs were keyed by their id alone, and a turn's row
    number was unique on its own. Ids stay unique across users — they are handed out under the
    write lock, above every id ever used (:meth:`~.postgres.PostgresStore.next_id`) — but no
    constraint says so any more; an index on the id alone serves what looks across users (the
    next id, whether an id is taken, an undo named by its run). Every row stays."""
    _run(
        db,
        """
        ALTER TABLE turns DROP CONSTRAINT turns_rowid_key;
        ALTER TABLE facts DROP CONSTRAINT facts_pkey, ADD CONSTRAINT facts_pkey PRIMARY KEY (user_id, id);
        DROP INDEX facts_user_id;
        CREATE INDEX facts_id ON facts (id);
        ALTER TABLE events DROP CONSTRAINT events_pkey, ADD CONSTRAINT events_pkey PRIMARY KEY (user_id, id);
        DROP INDEX events_user_id;
        CREATE INDEX events_id ON events (id);
        ALTER TABLE inferences DROP CONSTRAINT inferences_pkey,
            ADD CONSTRAINT inferences_pkey PRIMARY KEY (user_id, id);
        CREATE INDEX inferences_id ON inferences (id);
        ALTER TABLE erasures DROP CONSTRAINT erasures_pkey, ADD CONSTRAINT erasures_pkey PRIMARY KEY (user_id, id);
        ALTER TABLE erased_items DROP CONSTRAINT erased_items_pkey,
            ADD CONSTRAINT erased_items_pkey PRIMARY KEY (user_id, seq);
        DROP INDEX erased_items_user;
        ALTER TABLE quarantine DROP CONSTRAINT quarantine_pkey,
            ADD CONSTRAINT quarantine_pkey PRIMARY KEY (user_id, id);
        ALTER TABLE consolidations DROP CONSTRAINT consolidations_pkey,
            ADD CONSTRAINT consolidations_pkey PRIMARY KEY (user_id, id);
        CREATE INDEX consolidations_id ON consolidations (id)
        """,
    )


MIGRATIONS: list[Callable[[Any], None]] = [
    m001_initial,
    m002_search,
    m003_lexical_tokenizer,
    m004_store_items,
    m005_row_checksums,
    m006_lexical_impacts,
    m007_user_keys,
]
SCHEMA_VERSION = len(MIGRATIONS)
GLOBAL_TABLES = ("meta", "changes", "memtracks_schema")  # one for every user: not split by user
# every table of a user's memories, keyed by user_id first: those both stores keep, and the
# lexical index's own; what hash partitioning (partition) or a distributed Postgres splits by user
USER_TABLES = tuple(name for name in TABLES if name not in GLOBAL_TABLES) + (
    "lexical_postings",
    "lexical_state",
    "lexical_terms",
)


def version(db: Any, where: str) -> int:
    """The schema version of the memtracks tables in this database (0: none yet). A database
    holding other tables of the same names, or a newer memtracks schema, is refused."""
    found = db.execute("SELECT to_regclass('memtracks_schema') IS NOT NULL").fetchone()[0]
    if not found:
        clash = db.execute("SELECT to_regclass('facts') IS NOT NULL OR to_regclass('turns') IS NOT NULL").fetchone()[0]
        if clash:
            raise NotAMemoryFileError(
                f"{where} already has tables named like memtracks' (turns, facts) that memtracks did not make; "
                "use another database or schema (options=-csearch_path=...)"
            )
        return 0
    row = db.execute("SELECT version, application_id FROM memtracks_schema").fetchone()
    if row is None or row[1] != APPLICATION_ID:
        raise NotAMemoryFileError(f"{where}: memtracks_schema does not belong to memtracks")
    if row[0] > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"{where} has schema version {row[0]}, newer than this memtracks understands ({SCHEMA_VERSION}); "
            "upgrade memtracks to open it"
        )
    return int(row[0])


def migrate(db: Any, where: str, partitions: int | None = None) -> None:
    """Bring the database up to :data:`SCHEMA_VERSION` in one transaction under the write lock,
    so several processes opening a new database at once create its tables exactly once. A new
    database is made with its per-user tables split into ``partitions`` (:func:`partition`);
    an existing one keeps its layout, and one that does not have the layout asked for is
    refused (:func:`check_layout`)."""
    with db.transaction():
        db.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
        db.execute("CREATE EXTENSION IF NOT EXISTS vector")
        current = version(db, where)
        if current == 0:
            db.execute("CREATE TABLE memtracks_schema (version INT NOT NULL, application_id BIGINT NOT NULL)")
            db.execute("INSERT INTO memtracks_schema VALUES (0, %s)", (APPLICATION_ID,))
        for step in MIGRATIONS[current:]:
            step(db)
        if current == 0 and partitions:
            partition(db, partitions)
        check_layout(db, where, partitions)
        db.execute("UPDATE memtracks_schema SET version = %s", (SCHEMA_VERSION,))


def partition(db: Any, modulus: int) -> None:
    """A new database's per-user tables (:data:`USER_TABLES`) made again, while they are empty,
    as tables partitioned by the hash of ``user_id`` into ``modulus`` partitions (``facts_p0``
    to ``facts_p<modulus-1>``). They keep their columns, keys, indexes and names, so every
    statement reads and writes them as before; all of one user's rows lie in one partition of
    each table, the one a statement naming the user is narrowed to."""
    for table in USER_TABLES:
        partition_table(db, table, modulus)


def partition_table(db: Any, table: str, modulus: int) -> None:
    """``table`` (empty) made again as ``PARTITION BY HASH (user_id)``: its definition is read
    from the catalog (keys, indexes, the sequences its defaults draw from), the table dropped,
    and the same made on the partitioned one, whose partitions inherit the indexes."""
    keys = db.execute(
        "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = %s::regclass "
        "AND contype IN ('p', 'u') ORDER BY conname",
        (table,),
    ).fetchall()
    indexes = db.execute(
        "SELECT pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = %s::regclass "
        "AND indexrelid NOT IN (SELECT conindid FROM pg_constraint) ORDER BY indexrelid",
        (table,),
    ).fetchall()
    sequences = db.execute(
        "SELECT attname, pg_get_serial_sequence(%s, attname) FROM pg_attribute WHERE attrelid = %s::regclass "
        "AND attnum > 0 AND NOT attisdropped AND pg_get_serial_sequence(%s, attname) IS NOT NULL",
        (table, table, table),
    ).fetchall()
    db.execute(f"ALTER TABLE {table} RENAME TO {table}_unpartitioned")
    db.execute(f"CREATE TABLE {table} (LIKE {table}_unpartitioned INCLUDING DEFAULTS) PARTITION BY HASH (user_id)")
    for column, sequence in sequences:
        db.execute(f"ALTER SEQUENCE {sequence} OWNED BY {table}.{column}")
    db.execute(f"DROP TABLE {table}_unpartitioned")
    for name, definition in keys:
        db.execute(f"ALTER TABLE {table} ADD CONSTRAINT {name} {definition}")
    for (definition,) in indexes:
        db.execute(definition)
    for remainder in range(modulus):
        db.execute(
            f"CREATE TABLE {table}_p{remainder} PARTITION OF {table} "
            f"FOR VALUES WITH (MODULUS {modulus}, REMAINDER {remainder})"
        )


def partition_count(db: Any) -> int:
    """How many hash partitions each per-user table is split into (0: not partitioned)."""
    return int(db.execute("SELECT COUNT(*) FROM pg_inherits WHERE inhparent = to_regclass('facts')").fetchone()[0])


def check_layout(db: Any, where: str, partitions: int | None) -> None:
    """Refuse to open a database that is not split into the ``partitions`` asked for: the
    setting shapes a new database only, and an existing one is never re-laid silently (with
    ``None``, whatever it has is opened)."""
    if partitions is None:
        return
    found = partition_count(db)
    if found != partitions:
        has = f"has its tables split into {found} partitions" if found else "has unpartitioned tables"
        raise StorageError(
            f"{where} {has}; StorageConfig.partitions={partitions} applies only to a new database: "
            "open this one without it, or export its memories into a new database made with it"
        )


def ensure_vector_index(db: Any, dim: int) -> None:
    """The HNSW index over the vectors (inner product: memtracks' vectors are unit length), on
    the column cast to the embedder's dimension; made once, under the write lock."""
    db.execute(
        f"CREATE INDEX IF NOT EXISTS vectors_hnsw_{int(dim)} ON vectors "
        f"USING hnsw ((vector::vector({int(dim)})) vector_ip_ops)"
    )
