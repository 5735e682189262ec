"""The tables declared once (memtracks/storage/tables.py) are the tables the migrations build,
in SQLite and in Postgres: the same columns in the same order, of the declared kinds, NULL
where declared; the DDL written from the declaration builds them too; the stores' column
listings come from it."""

from __future__ import annotations

import sqlite3

from memtracks.storage import codec
from memtracks.storage.tables import KINDS, TABLES, Table, _table, ddl

POSTGRES_TYPES = {"text": "text", "key": "text", "int": "bigint", "real": "double precision", "vector": "USER-DEFINED"}


def _sqlite_columns(db: sqlite3.Connection, table: str) -> list[tuple[str, str, bool]]:
    rows = db.execute(f"PRAGMA table_info({table})").fetchall()
    return [(name, kind, bool(notnull or pk)) for _, name, kind, notnull, _, pk in rows]


def _declared_sqlite(table: Table) -> list[tuple[str, str, bool]]:
    return [(c.name, KINDS["sqlite"][c.kind], c.required) for c in table.in_dialect("sqlite")]


def test_a_new_sqlite_memory_has_the_declared_tables(make_memory, tmp_path):
    make_memory(tmp_path / "m.db").close()
    db = sqlite3.connect(tmp_path / "m.db")
    built = {
        n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    }
    assert built == set(TABLES)
    for name, table in TABLES.items():
        assert _sqlite_columns(db, name) == _declared_sqlite(table), name


def test_the_declared_ddl_builds_the_same_sqlite_tables():
    db = sqlite3.connect(":memory:")
    for table in TABLES.values():
        db.execute(ddl(table, "sqlite"))
        assert _sqlite_columns(db, table.name) == _declared_sqlite(table), table.name


def test_a_new_postgres_memory_has_the_declared_tables(make_memory, postgres_uri):
    memory = make_memory(postgres_uri())
    rows = memory.store._rows(
        "SELECT table_name, column_name, data_type, is_nullable, collation_name FROM information_schema.columns "
        "WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position",
        (),
    )
    built: dict[str, list[tuple[str, str, bool, bool]]] = {}
    for row in rows:
        table, column, kind, nullable, collation = tuple(row.values()) if isinstance(row, dict) else tuple(row)
        built.setdefault(table, []).append((column, kind, nullable == "NO", collation == "C"))
    for name, table in TABLES.items():
        declared = [(c.name, POSTGRES_TYPES[c.kind], c.required, c.kind == "key") for c in table.in_dialect("postgres")]
        assert built[name] == declared, name


def test_the_store_column_listings_come_from_the_declaration():
    assert codec.FACT_COLUMNS == TABLES["facts"].listing()
    assert codec.EVENT_COLUMNS == TABLES["events"].listing()
    assert codec.INFERENCE_COLUMNS == TABLES["inferences"].listing()
    assert codec.TURN_COLUMNS == TABLES["turns"].listing()
    assert '"end"' in codec.EVENT_COLUMNS  # a column named by an SQL word is quoted


def test_the_compact_declaration_reads_kinds_nulls_and_dialects():
    table = _table("t", "a,b", "a:key b:int c? d:real@postgres")
    assert [(c.name, c.kind, c.required, c.only) for c in table.columns] == [
        ("a", "key", True, None),
        ("b", "int", True, None),
        ("c", "text", False, None),
        ("d", "real", True, "postgres"),
    ]
    assert table.names("sqlite") == ("a", "b", "c")
    assert "PRIMARY KEY (a, b)" in ddl(table, "postgres") and 'TEXT COLLATE "C"' in ddl(table, "postgres")
