"""Past one machine: every table of a user's memories is keyed by ``user_id`` first, so a
Postgres memory can be split by user — into hash partitions on one server
(``StorageConfig.partitions``, tested here on the embedded server) or across the nodes of a
distributed Postgres (``docs/postgres.md``) — and a memory split so remembers, answers and
forgets exactly as one that is not. A database of the previous schema is re-keyed in place."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from old_schemas import back_before_user_keys

from memtracks import Memory
from memtracks.config import MemoryConfig, StorageConfig
from memtracks.errors import StorageError
from memtracks.storage.postgres import _tables
from memtracks.storage.postgres_schema import (
    GLOBAL_TABLES,
    MIGRATIONS,
    SCHEMA_VERSION,
    USER_TABLES,
    ensure_vector_index,
)

PARTITIONS = 4
T0 = datetime(2024, 3, 1, 9, tzinfo=timezone.utc)
NOW = T0 + timedelta(days=40)
SAID = {
    "alice": [
        "I moved to Lisbon last month.",
        "My dog Max is three years old.",
        "I flew to Tokyo for a conference on Monday.",
        "I flew to Tokyo for the conference on Monday!",
        "Actually I moved to Porto, not Lisbon.",
        "My sister Laura lives in Berlin.",
    ],
    "li": [
        "我上个月搬到了杭州。",
        "我养了一只猫叫豆豆。",
        "我在阿里巴巴工作。",
        "我周一飞去东京开会了。",
        "我周一飞去东京开会了！",
    ],
}
QUESTIONS = {
    "alice": ["Where do I live?", "What is my dog called?", "When did I go to Tokyo?"],
    "li": ["我住在哪里？", "我的猫叫什么？", "我在哪里工作？"],
}
GUIDE = Path(__file__).parent.parent / "docs" / "postgres.md"


def open_memory(uri: str, toolkit, embedder, partitions: int | None = None, **kwargs) -> Memory:
    config = MemoryConfig(storage=StorageConfig(partitions=partitions))
    return Memory(uri, toolkit=toolkit, embedder=embedder, config=config, clock=lambda: NOW, **kwargs)


def remember(mem: Memory, users=SAID) -> None:
    for user, said in users.items():
        for n, text in enumerate(said):
            mem.write(text, user_id=user, session_id="s1", timestamp=T0 + timedelta(hours=n))


def answers(mem: Memory, user: str) -> dict[str, list[str]]:
    return {q: [c.text for c in mem.retrieve(q, user_id=user, now=NOW).cards] for q in QUESTIONS[user]}


def memories(mem: Memory, user: str) -> dict:
    """What a user has, as the public API shows it."""
    return {
        "facts": mem.facts(user_id=user, include_superseded=True),
        "answers": answers(mem, user),
        "counts": mem.store.counts(user),
    }


def rows(conn, sql: str, params=()) -> list[tuple]:
    return [tuple(r) for r in conn.execute(sql, list(params)).fetchall()]


def relations(conn) -> dict[str, str]:
    """The memory's tables, partitions left out: name -> kind ("r" a table, "p" partitioned)."""
    found = rows(
        conn,
        "SELECT relname, relkind FROM pg_class WHERE relnamespace = current_schema()::regnamespace "
        "AND relkind IN ('r', 'p') AND NOT relispartition",
    )
    return dict(found)


def partitions_of(conn, table: str) -> list[str]:
    found = rows(
        conn,
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
        "WHERE i.inhparent = to_regclass(%s) ORDER BY c.relname",
        [table],
    )
    return [r[0] for r in found]


def shape(conn) -> dict[str, dict]:
    """Every table's columns, keys and indexes as the catalog defines them (the partitions'
    own left out, the schema's name taken out of the definitions)."""
    schema = rows(conn, "SELECT current_schema()")[0][0]
    out: dict[str, dict] = {}
    for table in relations(conn):
        columns = rows(
            conn,
            "SELECT column_name, data_type, is_nullable, collation_name, column_default "
            "FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = %s "
            "ORDER BY ordinal_position",
            [table],
        )
        keys = rows(
            conn,
            "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = to_regclass(%s) "
            "ORDER BY conname",
            [table],
        )
        indexes = rows(
            conn,
            "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = %s "
            "ORDER BY indexname",
            [table],
        )
        out[table] = {
            "columns": columns,
            "keys": keys,
            "indexes": [(name, d.replace(f"{schema}.", "").replace(" ON ONLY ", " ON ")) for name, d in indexes],
        }
    return out


def unique_keys(conn) -> dict[str, tuple[str, str]]:
    """Each unique index of the memory's tables (primary keys included): (its table, its first column)."""
    found = rows(
        conn,
        "SELECT i.relname, t.relname, a.attname FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid "
        "JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = x.indkey[0] "
        "WHERE x.indisunique AND t.relnamespace = current_schema()::regnamespace AND NOT t.relispartition",
    )
    return {index: (table, first) for index, table, first in found}


def every_row(conn) -> dict[str, list[tuple]]:
    """Every row of every memory table (the schema stamp left out), in a stable order."""
    return {
        table: sorted(rows(conn, f"SELECT * FROM {table}"), key=repr)
        for table in sorted(set(USER_TABLES) | {"meta", "changes"})
    }


# ---------------------------------------------------------------------- the keys


@pytest.mark.parametrize("partitions", [None, PARTITIONS], ids=["plain", "partitioned"])
def test_every_per_user_table_is_keyed_by_user_first(postgres_uri, toolkit, embedder, partitions):
    """The tables split by user are exactly the memory's tables but the global ones, and every
    unique key of theirs (primary keys and others) begins with ``user_id``."""
    with open_memory(postgres_uri(), toolkit, embedder, partitions) as mem:
        conn = mem.store._conn
        assert set(relations(conn)) == set(USER_TABLES) | set(GLOBAL_TABLES)
        keys = _tables(conn).keys
        for table in USER_TABLES:
            assert keys[table][0] == "user_id", (table, keys[table])
        for index, (table, first) in unique_keys(conn).items():
            if table in USER_TABLES:
                assert first == "user_id", (table, index)


def test_the_distribution_guide_names_every_table_as_the_schema_does():
    """docs/postgres.md lists the per-user tables and distributes each by user_id with Citus,
    and makes the global ones reference tables: the same tables as the schema's lists."""
    guide = GUIDE.read_text(encoding="utf-8")
    per_user, shared = guide.split("The global tables", 1)
    listed = re.findall(
        r"`(\w+)`", "".join(line for line in per_user.split("\n## ")[-1].splitlines() if line.startswith("|"))
    )
    assert sorted(listed) == sorted(USER_TABLES)
    assert sorted(re.findall(r"^\| `(\w+)` \|", shared, re.MULTILINE)) == sorted(GLOBAL_TABLES)
    distributed = re.findall(r"create_distributed_table\('(\w+)', 'user_id'", guide)
    assert sorted(distributed) == sorted(USER_TABLES)
    assert sorted(re.findall(r"create_reference_table\('(\w+)'\)", guide)) == sorted(GLOBAL_TABLES)


# ---------------------------------------------------------------------- the partitioned layout


def test_the_partitioned_layout_splits_each_per_user_table_by_the_hash_of_user(postgres_uri, toolkit, embedder):
    """Each per-user table is partitioned by hash of ``user_id`` into the partitions asked for;
    the global tables are not. Columns, keys and indexes are those of the plain layout, names
    and all, so every statement and every index lookup reads them alike."""
    with open_memory(postgres_uri(), toolkit, embedder, PARTITIONS) as split:
        with open_memory(postgres_uri(), toolkit, embedder) as plain:
            conn, plain_conn = split.store._conn, plain.store._conn
            kinds = relations(conn)
            strategy = dict(
                rows(
                    conn,
                    "SELECT c.relname, p.partstrat::text || ':' || a.attname FROM pg_partitioned_table p "
                    "JOIN pg_class c ON c.oid = p.partrelid "
                    "JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0] "
                    "WHERE c.relnamespace = current_schema()::regnamespace",
                )
            )
            for table in USER_TABLES:
                assert kinds[table] == "p" and strategy[table] == "h:user_id", table
                assert partitions_of(conn, table) == [f"{table}_p{n}" for n in range(PARTITIONS)]
            for table in GLOBAL_TABLES:
                assert kinds[table] == "r" and not partitions_of(conn, table), table
            assert set(relations(plain_conn).values()) == {"r"}
            assert shape(conn) == shape(plain_conn)
            assert split.store.header() == plain.store.header()


def test_both_layouts_remember_answer_and_forget_alike(postgres_uri, toolkit, embedder):
    """Turns of two users, in English and in Chinese, written, consolidated, retrieved, listed
    as facts, checked, and one user erased: the partitioned memory gives what the plain one
    gives at every step, and the other user's memories are intact after the erasure."""
    layouts = {n: open_memory(postgres_uri(), toolkit, embedder, n) for n in (None, PARTITIONS)}
    try:
        seen = {}
        for partitions, mem in layouts.items():
            remember(mem)
            runs = {user: mem.consolidate(user) for user in SAID}
            before = {user: memories(mem, user) for user in SAID}
            problems = mem.check().problems
            forgotten = mem.forget("alice", everything=True)
            after = {user: memories(mem, user) for user in SAID}
            seen[partitions] = {
                "actions": {user: [a.to_dict() for a in run.actions] for user, run in runs.items()},
                "before": before,
                "problems": problems,
                "forgotten": forgotten,
                "after": after,
            }
            assert not problems
            assert all(run.operation_id for run in runs.values())  # each run folded something
            assert before["alice"]["facts"] and before["li"]["facts"]
            assert "Porto" in before["alice"]["answers"]["Where do I live?"][0]
            assert "杭州" in before["li"]["answers"]["我住在哪里？"][0]
            assert after["alice"]["facts"] == [] and not any(after["alice"]["answers"].values())
            assert after["li"] == before["li"]  # the other user's memories, untouched
        assert seen[PARTITIONS] == seen[None]
    finally:
        for mem in layouts.values():
            mem.close()


def test_an_undo_and_a_bulk_load_work_on_partitions(postgres_uri, toolkit, embedder):
    """What spans partitions or rebuilds indexes: a consolidation undone by its run's id alone,
    and a bulk load, which drops the HNSW index and builds it again, on every partition."""
    from memtracks.storage.postgres_load import vector_index_dims

    with open_memory(postgres_uri(), toolkit, embedder, PARTITIONS) as mem:
        remember(mem)
        before = mem.facts(user_id="alice", include_superseded=True)
        run = mem.consolidate("alice")
        mem.undo(run.operation_id)
        assert mem.facts(user_id="alice", include_superseded=True) == before
        assert [r["undone_at"] for r in mem.store._rows("SELECT undone_at FROM consolidations")] == [NOW.isoformat()]
        store = mem.store
        ids, matrix = store.vectors("li", "event")
        hashes = dict(store._rows("SELECT item_id, content_hash FROM vectors WHERE user_id = 'li' AND track = 'event'"))
        with store.bulk_load():  # the same vectors again: the index is dropped and built anew
            store.save_vectors("li", "event", [(int(i), hashes[int(i)], matrix[n]) for n, i in enumerate(ids)])
        assert vector_index_dims(store._conn) == {embedder.dim}
        hnsw = store._rows(
            "SELECT tablename FROM pg_indexes WHERE schemaname = current_schema() AND indexdef LIKE '%hnsw%' "
            "AND tablename LIKE 'vectors\\_p%'"
        )
        assert sorted(r[0] for r in hnsw) == [f"vectors_p{n}" for n in range(PARTITIONS)]
        assert "豆豆" in mem.retrieve("我的猫叫什么？", user_id="li", now=NOW).cards[0].text


def test_a_users_rows_lie_in_one_partition_of_each_table(postgres_uri, toolkit, embedder):
    """All of one user's rows, in every table, are in the partition a statement naming the
    user is narrowed to — the same one in each table — and the users spread over several."""
    users = {**SAID, **{f"user{n}": [f"I live in town number {n}."] for n in range(6)}}
    with open_memory(postgres_uri(), toolkit, embedder, PARTITIONS) as mem:
        remember(mem, users)
        conn = mem.store._conn
        placed: dict[str, set[int]] = {user: set() for user in users}
        for table in USER_TABLES:
            for user, partition in rows(conn, f"SELECT user_id, tableoid::regclass::text FROM {table} GROUP BY 1, 2"):
                assert partition.startswith(f"{table}_p"), (table, partition)
                placed[user].add(int(partition.rsplit("_p", 1)[1]))
        assert all(len(found) == 1 for found in placed.values()), placed
        assert len({next(iter(found)) for found in placed.values()}) > 1
        for user in SAID:
            plan = json.dumps(rows(conn, "EXPLAIN (FORMAT JSON) SELECT * FROM facts WHERE user_id = %s", [user])[0][0])
            scanned = set(re.findall(r'"Relation Name": "(\w+)"', plan))
            assert scanned == {f"facts_p{next(iter(placed[user]))}"}, (user, scanned)


def test_a_vector_search_of_one_user_reads_one_partition_through_its_hnsw_index(postgres_uri, toolkit, embedder):
    """Postgres makes the HNSW index on each partition; a user's vector search reads only the
    user's partition, through that partition's HNSW index. (On a few rows the planner sorts
    them all instead, on either layout: sorting is switched off here to see the index.)"""
    with open_memory(postgres_uri(), toolkit, embedder, PARTITIONS) as mem:
        remember(mem)
        conn = mem.store._conn
        dim = embedder.dim
        query = embedder.embed_batch(["Where did I fly?"])[0]
        with conn.transaction():
            conn.execute("SET LOCAL enable_seqscan = off")
            conn.execute("SET LOCAL enable_sort = off")
            plan = conn.execute(
                f"EXPLAIN (FORMAT JSON) SELECT item_id FROM vectors WHERE user_id = %s AND track = 'event' "
                f"ORDER BY vector::vector({dim}) <#> %s::vector({dim}) LIMIT 5",
                ["alice", query],
            ).fetchone()[0]
        text = json.dumps(plan)
        scanned = set(re.findall(r'"Relation Name": "(\w+)"', text))
        used = set(re.findall(r'"Index Name": "(\w+)"', text))
        assert len(scanned) == 1 and scanned <= {f"vectors_p{n}" for n in range(PARTITIONS)}, scanned
        methods = {
            r[0]
            for r in conn.execute(
                "SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname = ANY(%s)",
                [list(used)],
            ).fetchall()
        }
        assert methods == {"hnsw"}, (used, methods)


# ---------------------------------------------------------------------- opening


def test_partitions_shape_a_new_database_only(postgres_uri, toolkit, embedder):
    """A database keeps the layout it was made with: asking for another one when opening it is
    refused, plainly; asking for none opens whatever it has."""
    plain, split = postgres_uri(), postgres_uri()
    open_memory(plain, toolkit, embedder).close()
    open_memory(split, toolkit, embedder, PARTITIONS).close()
    with pytest.raises(StorageError, match="unpartitioned tables; StorageConfig.partitions=4 applies only to a new"):
        open_memory(plain, toolkit, embedder, PARTITIONS)
    with pytest.raises(StorageError, match="split into 4 partitions; StorageConfig.partitions=2"):
        open_memory(split, toolkit, embedder, 2)
    with pytest.raises(StorageError, match="split into 4 partitions"):
        open_memory(split, toolkit, embedder, 8, read_only=True)
    for partitions in (None, PARTITIONS):
        with open_memory(split, toolkit, embedder, partitions) as mem:
            remember(mem, {"li": SAID["li"][:1]})
    with open_memory(split, toolkit, embedder, PARTITIONS, read_only=True) as reader:
        assert "杭州" in reader.retrieve("我住在哪里？", user_id="li", now=NOW).cards[0].text


@pytest.mark.parametrize("partitions", [0, -2, 2.5, "4", True])
def test_partitions_must_be_a_whole_number_of_at_least_one(postgres_uri, toolkit, embedder, partitions):
    with pytest.raises(StorageError, match="must be a whole number of at least 1"):
        open_memory(postgres_uri(), toolkit, embedder, partitions)


def test_a_sqlite_memory_refuses_partitions(toolkit, embedder, tmp_path):
    with pytest.raises(StorageError, match="applies to a Postgres memory"):
        open_memory(str(tmp_path / "m.db"), toolkit, embedder, PARTITIONS)


# ---------------------------------------------------------------------- the migration


def test_a_database_of_the_previous_schema_is_re_keyed_in_place(postgres_uri, toolkit, embedder):
    """A memory at schema 6 (its keys as the first six migrations make them) opens at today's
    schema with every row it had — facts, events, conclusions, erasures, erased items,
    quarantined rows, consolidation runs — its keys beginning with ``user_id``, and answers as
    before; then it takes new writes."""
    import psycopg

    uri = postgres_uri()
    with open_memory(uri, toolkit, embedder) as mem:
        remember(mem)
        mem.consolidate("alice")
        mem.forget("li", turn_ids=[mem.store.turns("li")[-1]["turn_id"]])
        mem.store.execute(
            "UPDATE facts SET value = value || '!' WHERE id = (SELECT MIN(id) FROM facts WHERE user_id = 'alice')"
        )
        mem.check(repair=True)  # the damaged fact is set aside in the quarantine
        before = {user: memories(mem, user) for user in SAID}
        back_before_user_keys(mem.store)
        old = every_row(mem.store._conn)
        old_shape = shape(mem.store._conn)
    for table in ("facts", "events", "inferences", "erasures", "erased_items", "quarantine", "consolidations"):
        assert old[table], table  # every re-keyed table has rows to keep
    with psycopg.connect(postgres_uri(), autocommit=True) as made:  # schema 6 as its migrations make it
        for step in MIGRATIONS[:6]:
            step(made)
        made.execute("CREATE TABLE memtracks_schema (version INT NOT NULL, application_id BIGINT NOT NULL)")
        ensure_vector_index(made, embedder.dim)  # made at the first write
        assert shape(made) == old_shape
    with open_memory(uri, toolkit, embedder) as mem:
        assert mem.store.header()[1] == SCHEMA_VERSION
        assert every_row(mem.store._conn) == old
        keys = _tables(mem.store._conn).keys
        assert all(keys[table][0] == "user_id" for table in USER_TABLES)
        assert {user: memories(mem, user) for user in SAID} == before
        mem.write("I moved to Madrid.", user_id="alice", session_id="s2", timestamp=NOW)
        assert "Madrid" in mem.retrieve("Where do I live?", user_id="alice", now=NOW).cards[0].text
