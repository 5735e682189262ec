"""A bulk load (``Storage.bulk_load`` and ``save_events``: on Postgres ``COPY`` and an HNSW
index built once at the end) leaves exactly what the same writes made one by one leave, and
the memory answers the same; a load that fails leaves the store as it was, index and all."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from benchmarks.bench_backends import inflate
from memtracks import Turn
from memtracks.storage import codec
from memtracks.storage.postgres_load import COPY_FROM, LOADED, vector_index_dims

pytestmark = pytest.mark.backends  # every test here runs on SQLite and on Postgres

T0 = datetime(2024, 3, 1, 9, tzinfo=timezone.utc)
NOW = T0 + timedelta(days=400)
SAID = [
    ("Mia", "I finally adopted a rescue greyhound, we named him Biscuit."),
    ("Mia", "My sister Laura is getting married in Porto next June."),
    ("Ken", "I've been training for the Berlin marathon, 40 km a week now."),
    ("Ken", "Work is brutal, we ship the new billing system on Friday."),
    ("Mia", "我上个月搬到了杭州，离西湖很近。"),
    ("Ken", "周末我们去成都吃了火锅，太辣了。"),
    ("Mia", "Biscuit chewed through my running shoes again."),
    ("Ken", "我下周三要去深圳出差。"),
]
QUESTIONS = ["What is the name of Mia's dog?", "Where is Laura's wedding?", "Ken 去哪里出差？", "谁搬到了杭州？"]


def conversation() -> list[Turn]:
    return [
        Turn(text, speaker=who, user_id="u1", session_id="s1", turn_id=f"t{n}", timestamp=T0 + timedelta(hours=n))
        for n, (who, text) in enumerate(SAID)
    ]


def stored(store) -> dict:
    """Every row a load writes, as values."""
    rows = store._rows
    return {
        "events": [codec.event_row(e) for e in store.events("u1")],
        "entities": sorted(tuple(r) for r in rows("SELECT user_id, key, event_id FROM event_entities")),
        "kinds": sorted(tuple(r) for r in rows("SELECT user_id, kind, event_id FROM event_kinds")),
        "vectors": sorted(
            (r[0], r[1], r[2], bytes(r[3]), r[4])
            for r in rows("SELECT track, item_id, content_hash, vector, checksum FROM vectors WHERE user_id = 'u1'")
        ),
    }


def test_a_bulk_load_leaves_what_writes_one_by_one_leave(make_memory, backend):
    loaded, written = make_memory(), make_memory()
    for mem in (loaded, written):
        mem.write_many(conversation())
    batch = COPY_FROM + 40  # large enough that Postgres copies it
    inflate(loaded.store, "u1", 4 * batch, np.random.default_rng(3), bulk=True, batch=batch)
    inflate(written.store, "u1", 4 * batch, np.random.default_rng(3), bulk=False, batch=batch)
    assert stored(loaded.store) == stored(written.store)
    assert loaded.stats("u1")["events"] == 4 * batch
    if backend == "postgres":  # the index dropped for the load is there again, over every vector
        dims = vector_index_dims(loaded.store._conn)
        assert dims == vector_index_dims(written.store._conn) == {loaded.embedder.dim}
        loaded.store.execute("SET enable_seqscan = off")  # a small table is scanned; is the index usable?
        plan = loaded.store._rows(
            f"EXPLAIN SELECT item_id FROM vectors ORDER BY vector::vector({loaded.embedder.dim}) "
            f"<#> (SELECT vector FROM vectors LIMIT 1)::vector({loaded.embedder.dim}) LIMIT 5"
        )
        assert any("vectors_hnsw" in r[0] for r in plan)
    for question in QUESTIONS:
        want = [c.text for c in written.retrieve(question, user_id="u1", now=NOW).cards]
        assert [c.text for c in loaded.retrieve(question, user_id="u1", now=NOW).cards] == want, question
        query = loaded.embedder.embed_batch([question])[0]
        want_hits = written.index("u1", "temporal").search(query, 10)
        assert loaded.index("u1", "temporal").search(query, 10) == want_hits


def test_a_large_batch_of_vectors_replaces_as_single_writes_do(make_memory):
    copied, single = make_memory(), make_memory()
    for mem in (copied, single):
        mem.write_many(conversation())
        inflate(mem.store, "u1", COPY_FROM + 100, np.random.default_rng(5), bulk=True, batch=COPY_FROM)
    ids, matrix = copied.store.vectors("u1", "event")
    moved = [(int(i), "moved", -v) for i, v in zip(ids, matrix, strict=True)]
    moved.append(moved[0])  # the same item twice in one batch: the last one stands
    with copied.store.bulk_load():
        copied.store.save_vectors("u1", "event", moved)
    with single.store.transaction():
        for item in moved:
            single.store.save_vectors("u1", "event", [item])
    assert stored(copied.store) == stored(single.store)
    assert stored(copied.store)["vectors"][0][2] == "moved"


def test_a_failed_bulk_load_leaves_the_store_as_it_was(make_memory, backend):
    mem = make_memory()
    mem.write_many(conversation())
    before = stored(mem.store)
    with pytest.raises(RuntimeError, match="stopped"):
        with mem.store.bulk_load():
            inflate(mem.store, "u1", 3 * COPY_FROM, np.random.default_rng(1), bulk=True, batch=COPY_FROM)
            raise RuntimeError("stopped half-way")
    assert stored(mem.store) == before
    if backend == "postgres":
        assert vector_index_dims(mem.store._conn) == {mem.embedder.dim}
    mem.write(
        Turn("Biscuit loves the beach.", speaker="Mia", user_id="u1", session_id="s1", turn_id="t99", timestamp=NOW)
    )
    assert any("beach" in c.text for c in mem.retrieve("Who loves the beach?", user_id="u1", now=NOW).cards)


def test_large_loads_leave_the_planner_statistics_of_what_they_wrote(make_memory, backend):
    """A query planned on the statistics of a nearly empty table joins a million postings by
    nested loop: a bulk load, and a lexical index built at once, gather them again."""
    if backend != "postgres":
        pytest.skip("SQLite plans without table statistics")
    mem = make_memory()
    mem.write_many(conversation())
    inflate(mem.store, "u1", 2000, np.random.default_rng(2), bulk=True, batch=1000)
    analyzed = "SELECT last_analyze IS NOT NULL FROM pg_stat_user_tables WHERE relid = ?::regclass"
    assert all(mem.store._rows(analyzed, (table,))[0][0] for table in LOADED)
    assert not mem.store._rows(analyzed, ("lexical_postings",))[0][0]
    assert mem.retrieve("Biscuit the greyhound", user_id="u1", now=NOW).cards  # builds the lexical index
    assert mem.store._rows(analyzed, ("lexical_postings",))[0][0]
