"""Writing many rows to Postgres at once: ``COPY`` instead of one ``INSERT`` per row.

Rows are copied into a temporary table shaped like the target, then moved with one
``INSERT ... SELECT``, so a large batch keeps exactly the meaning of the row-by-row statement
it replaces: a plain insert still fails on a key already taken, an upsert still replaces, an
``OR IGNORE`` still skips. Used for large batches (:data:`COPY_FROM` rows or more) by
:class:`~memtracks.storage.postgres.PostgresStore`, whose bulk load also builds the HNSW index
once at its end (:func:`vector_index_dims`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

COPY_FROM = 200  # rows: a smaller batch goes in as one statement per row (a temporary table costs more)
# Rows written at once past which the table's planner statistics are gathered again at once
# (ANALYZE), in the same transaction: a query planned on the statistics of a table that was
# nearly empty (autovacuum analyzes it only a while later) joins a million postings by nested
# loop — a search that takes 400 ms then ran for more than a quarter of an hour.
ANALYZE_FROM = 10_000
LOADED = ("events", "event_entities", "event_kinds", "vectors")  # what a bulk load analyzes at its end


def insert(
    conn: Any,
    table: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    on_conflict: str = "",
    types: Sequence[str] | None = None,
) -> None:
    """``INSERT INTO table (columns) VALUES ... [on_conflict]`` for every row, through ``COPY``
    (binary when the columns' ``types`` are given: a vector is sent as its float32 bytes,
    not as text)."""
    if not rows:
        return
    stage = f"memtracks_load_{table}"
    listed = ", ".join(columns)
    conn.execute(f"CREATE TEMPORARY TABLE IF NOT EXISTS {stage} (LIKE {table}) ON COMMIT DELETE ROWS")
    binary = " (FORMAT BINARY)" if types else ""
    with conn.cursor().copy(f"COPY {stage} ({listed}) FROM STDIN{binary}") as copy:
        if types:
            copy.set_types(list(types))
        for row in rows:
            copy.write_row(row)
    conn.execute(f"INSERT INTO {table} ({listed}) SELECT {listed} FROM {stage} {on_conflict}")
    conn.execute(f"TRUNCATE {stage}")


def last_per_key(rows: Sequence[Sequence[Any]], key: slice) -> list[Sequence[Any]]:
    """``rows`` with only the last of those sharing a key, as upserting them one by one leaves."""
    return list({tuple(row[key]): row for row in rows}.values())


def vector_index_dims(conn: Any) -> set[int]:
    """The dimensions that have an HNSW index over the vectors (``vectors_hnsw_<dim>``)."""
    rows = conn.execute(
        "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'vectors' "
        "AND indexname LIKE %s",
        ["vectors\\_hnsw\\_%"],
    ).fetchall()
    return {int(r[0].rsplit("_", 1)[1]) for r in rows}


def index_memory(conn: Any, dim: int) -> str:
    """``maintenance_work_mem`` that holds the HNSW graph of every stored vector while it is
    built (pgvector's graph: each vector and its neighbour lists, about ``4 * dim + 600`` bytes,
    with a quarter more to spare), or the server's setting if that is more."""
    count = int(conn.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])
    needed_kb = count * (4 * dim + 600) * 5 // 4 // 1024
    setting_kb = int(
        conn.execute("SELECT setting::bigint FROM pg_settings WHERE name = 'maintenance_work_mem'").fetchone()[0]
    )
    return f"{max(needed_kb, setting_kb, 64 * 1024)}kB"
