"""Every table both stores keep, declared once: its columns in order, their kinds, and its key.

The declaration is what the rest of storage reads a table's shape from (the column listings
of :mod:`memtracks.storage.codec`), and :func:`ddl` writes it in either dialect. The numbered
migrations (``schema.py`` for SQLite, ``postgres_schema.py``) bring an existing file or
database up to it step by step; ``tests/test_tables.py`` checks that a memory they build, in
SQLite and in Postgres, has exactly the columns declared here, so a new column is one line
here and one migration per dialect, and a missing half fails a test.

Kinds: ``text``; ``key``, text compared byte by byte (``COLLATE "C"`` on Postgres, SQLite's
default); ``int`` (64 bits); ``real``; ``vector`` (a BLOB of float32 on SQLite, pgvector's
``vector`` on Postgres). A column with ``only`` exists in that dialect alone. The Postgres
store's own tables (its search postings, change feed and schema stamp) are declared in
``postgres_schema.py``. The key declared is SQLite's; on Postgres every table with a
``user_id`` is keyed by it first (a numbered memory by ``(user_id, id)``), so its rows can be
split by user (``postgres_schema.USER_TABLES``).
"""

from __future__ import annotations

from dataclasses import dataclass

KINDS = {
    "sqlite": {"text": "TEXT", "key": "TEXT", "int": "INTEGER", "real": "REAL", "vector": "BLOB"},
    "postgres": {
        "text": "TEXT",
        "key": 'TEXT COLLATE "C"',
        "int": "BIGINT",
        "real": "DOUBLE PRECISION",
        "vector": "vector",
    },
}
RESERVED = frozenset({"end"})  # column names that are SQL words: quoted wherever they are listed


@dataclass(frozen=True)
class Column:
    name: str
    kind: str = "text"
    required: bool = True  # NOT NULL
    only: str | None = None  # "postgres": a column of that dialect alone

    @property
    def quoted(self) -> str:
        return f'"{self.name}"' if self.name in RESERVED else self.name


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[Column, ...]
    key: tuple[str, ...]  # the primary key; ("id",) on an int column: a generated row id

    def names(self, dialect: str = "sqlite") -> tuple[str, ...]:
        return tuple(c.name for c in self.in_dialect(dialect))

    def listing(self, dialect: str = "sqlite") -> str:
        """The columns as a statement lists them: ``id, user_id, ..., "end", ...``."""
        return ", ".join(c.quoted for c in self.in_dialect(dialect))

    def in_dialect(self, dialect: str) -> tuple[Column, ...]:
        return tuple(c for c in self.columns if c.only in (None, dialect))


def _table(name: str, key: str, columns: str) -> Table:
    """A table from a compact listing: ``name:kind`` with ``?`` for a column that may be NULL
    and ``@dialect`` for one that exists in that dialect alone; the kind defaults to text."""
    out = []
    for spec in columns.split():
        spec, _, only = spec.partition("@")
        required = not spec.endswith("?")
        column, _, kind = spec.rstrip("?").partition(":")
        out.append(Column(column, kind or "text", required, only or None))
    return Table(name, tuple(out), tuple(key.split(",")))


TABLES: dict[str, Table] = {
    t.name: t
    for t in (
        _table("meta", "key", "key:key value"),
        _table(
            "turns",
            "user_id,turn_id",
            "user_id:key turn_id:key session_id:key speaker:key text lang:key ts ts_epoch:real source:key metadata "
            "content_hash seq:int rowid:int@postgres crc:int?",
        ),
        _table(
            "facts",
            "id",
            "id:int user_id:key subject:key slot:key value value_key:key negated:int source:key confidence:real "
            "valid_from valid_to? recorded_at last_seen last_seen_epoch:real superseded_by:int? mention_count:int "
            "source_turn_ids lang:key origin:key reason:key? superseded_at? planned:int revisions crc:int?",
        ),
        _table(
            "events",
            "id",
            "id:int user_id:key session_id:key turn_id:key speaker:key subject:key text lang:key mentioned_at "
            "mentioned_epoch:real start? start_epoch:real? end? end_epoch:real? granularity:key? times happenings "
            "kinds entity_keys source:key seq:int metadata crc:int?",
        ),
        _table("event_entities", "user_id,key,event_id", "user_id:key key:key event_id:int"),
        _table("event_kinds", "user_id,kind,event_id", "user_id:key kind:key event_id:int"),
        _table("event_links", "user_id,src,dst,kind,key", "user_id:key src:int dst:int kind:key key:key"),
        _table("names", "user_id,surface", "user_id:key surface:key key:key label:key crc:int?"),
        _table("relations", "user_id,owner,relation,name", "user_id:key owner:key relation:key name:key"),
        _table(
            "inferences",
            "id",
            "id:int user_id:key rule_id:key subject:key kind:key text lang:key created_at created_epoch:real "
            "premises confidence:real valid_from? valid_to? status:key retracted_at? retracted_because? "
            "source_turn_ids derived_fact_id:int? args key:key crc:int?",
        ),
        _table(
            "inference_premises",
            "user_id,track,premise_id,inference_id",
            "user_id:key track:key premise_id:int inference_id:int",
        ),
        _table(
            "vectors",
            "user_id,track,item_id",
            "user_id:key track:key item_id:int content_hash vector:vector checksum:int?",
        ),
        _table("erasures", "id", "id:int user_id:key at selector counts"),
        _table("erased_items", "seq", "seq:int user_id:key track:key item_id:int"),
        _table("consolidations", "id", "id:key user_id:key at actions preimage after undone_at?"),
        _table("merged_events", "user_id,event_id", "user_id:key event_id:int into_id:int operation_id:key"),
        _table(
            "items",
            "user_id,namespace,key",
            "user_id:key namespace:key key:key value indexed:int created_at updated_at seq:int crc:int?",
        ),
        _table("quarantine", "id", "id:int user_id:key source:key item row reason at"),
    )
}


def ddl(table: Table, dialect: str) -> str:
    """``CREATE TABLE`` for ``table`` in ``dialect`` ("sqlite" or "postgres")."""
    kinds = KINDS[dialect]
    kind_of = {c.name: c.kind for c in table.columns}
    # a one-column int key named id or seq is a row id the database hands out; a text id is given
    generated = table.key[0] if table.key in (("id",), ("seq",)) and kind_of[table.key[0]] == "int" else None
    lines = []
    for c in table.in_dialect(dialect):
        if c.name == generated:
            kind = (
                "INTEGER PRIMARY KEY" if dialect == "sqlite" else "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
            )
            lines.append(f"{c.quoted} {kind}")
        else:
            lines.append(f"{c.quoted} {kinds[c.kind]}{' NOT NULL' if c.required else ''}")
    if generated is None:
        lines.append(f"PRIMARY KEY ({', '.join(table.key)})")
    return f"CREATE TABLE {table.name} (\n    " + ",\n    ".join(lines) + "\n)"
