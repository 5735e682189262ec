"""Erasure is a tail operation: the erasing process and every other one take the erased ids
out of the indexes they hold (vectors, BM25, snapshots) instead of rebuilding them, and
nothing of an erased memory is left in them or in a saved snapshot."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from memtracks import Turn
from memtracks.config import MemoryConfig
from memtracks.retrieval.lexical import LexicalIndex, tokenize
from memtracks.storage.vectors import FaissIndex, NumpyIndex

T0 = datetime(2024, 3, 1, 9, tzinfo=timezone.utc)
NOW = T0 + timedelta(days=40)
SECRET = "zanzibarite"  # a word only the erased turn uses


def _turns(n: int) -> list[Turn]:
    texts = [
        "I went to the museum number {i} and loved it.",
        "我第{i}次去了博物馆。",
        "I met my friend Sam at cafe {i}.",
    ]
    return [
        Turn(
            texts[i % 3].format(i=i),
            user_id="u1",
            session_id=f"s{i // 5}",
            turn_id=f"t{i}",
            timestamp=T0 + timedelta(hours=i),
        )
        for i in range(n)
    ]


def _event_of(mem, turn_id: str) -> int:
    return next(e.id for e in mem.events("u1") if e.turn_id == turn_id)


@pytest.fixture
def shared(make_memory, tmp_path):
    db = tmp_path / "m.db"
    config = MemoryConfig(snapshot_min=1)
    here, there = make_memory(db, config=config), make_memory(db, config=config)
    here.write_many(_turns(24))
    here.write(Turn(f"My {SECRET} collection is in the attic.", user_id="u1", turn_id="secret", timestamp=T0))
    for mem in (here, there):
        mem.retrieve(f"Where is my {SECRET} collection?", user_id="u1", now=NOW)  # indexes built
    return here, there


def test_erasure_by_another_process_is_taken_out_of_the_indexes_not_rebuilt(shared, make_memory):
    here, there = shared
    secret = _event_of(here, "secret")
    index, lexical = here.index("u1", "event"), here.lexical_index("u1", "event")
    assert secret in index and secret in lexical
    there.forget("u1", turn_ids=["secret", "t3"])
    cards = here.retrieve(f"Where is my {SECRET} collection?", user_id="u1", now=NOW).cards
    assert all(SECRET not in c.text for c in cards)
    assert here.index("u1", "event") is index and here.lexical_index("u1", "event") is lexical  # not rebuilt
    assert secret not in index and secret not in lexical
    assert lexical.search([SECRET], 5) == []
    fresh = make_memory(here.store.path, config=MemoryConfig(snapshots=False))
    question = "Which museums did I visit?"
    assert [c.text for c in here.retrieve(question, user_id="u1", now=NOW).cards] == [
        c.text for c in fresh.retrieve(question, user_id="u1", now=NOW).cards
    ]


def test_the_erasing_process_keeps_its_indexes_too(shared):
    _, there = shared
    index = there.index("u1", "event")
    secret = _event_of(there, "secret")
    there.forget("u1", turn_ids=["secret"])
    assert there.index("u1", "event") is index and secret not in index
    assert all(SECRET not in c.text for c in there.retrieve(f"my {SECRET}", user_id="u1", now=NOW).cards)


def test_snapshots_are_rewritten_without_the_erased_and_still_load(shared, make_memory):
    here, there = shared
    here.close()  # snapshots saved, holding the secret
    secret = _event_of(there, "secret")
    there.forget("u1", turn_ids=["secret"])  # rewrites them without it
    folder = there.indexes.snapshots.dir
    assert folder.is_dir() and all(SECRET.encode() not in p.read_bytes() for p in folder.iterdir())
    later = make_memory(there.store.path, config=MemoryConfig(snapshot_min=1))
    later.retrieve("Which museums did I visit?", user_id="u1", now=NOW)
    assert later.indexes.snapshot_loads > 0 and secret not in later.index("u1", "event")


def test_a_process_without_the_indexes_erases_from_the_snapshots_and_keeps_them(shared, make_memory):
    here, there = shared
    here.close()  # snapshots saved, holding the secret
    secret = _event_of(there, "secret")
    eraser = make_memory(there.store.path, config=MemoryConfig(snapshot_min=1))  # holds no indexes
    eraser.forget("u1", turn_ids=["secret"])
    folder = eraser.indexes.snapshots.dir
    assert list(folder.glob("*-event.json")), "the snapshots were dropped: the next start would rebuild"
    assert all(SECRET.encode() not in p.read_bytes() for p in folder.iterdir())
    later = make_memory(there.store.path, config=MemoryConfig(snapshot_min=1))
    cards = later.retrieve("我去了哪些博物馆？", user_id="u1", now=NOW).cards
    assert later.indexes.snapshot_loads > 0 and secret not in later.index("u1", "event")
    assert any("博物馆" in c.text for c in cards) and all(SECRET not in c.text for c in cards)


def test_a_snapshot_older_than_an_erasure_loads_without_the_erased(shared, make_memory, tmp_path):
    here, there = shared
    here.close()
    folder = here.indexes.snapshots.dir
    saved = {p.name: p.read_bytes() for p in folder.iterdir()}  # as a process that saved before it saw the erasure
    secret = _event_of(there, "secret")
    there.forget("u1", turn_ids=["secret"])
    for name, data in saved.items():
        (folder / name).write_bytes(data)
    later = make_memory(there.store.path, config=MemoryConfig(snapshot_min=1))
    cards = later.retrieve(f"Where is my {SECRET} collection?", user_id="u1", now=NOW).cards
    assert later.indexes.snapshot_loads > 0  # used, not rebuilt
    assert secret not in later.index("u1", "event") and secret not in later.lexical_index("u1", "event")
    assert all(SECRET not in c.text for c in cards)


def test_a_process_that_closes_after_an_erasure_does_not_write_it_back(shared, make_memory):
    here, there = shared
    there.forget("u1", turn_ids=["secret"])
    here.close()  # its indexes still held the secret until it looked again
    folder = here.indexes.snapshots.dir
    assert all(SECRET.encode() not in p.read_bytes() for p in folder.iterdir())


def test_erased_ids_are_never_given_again(make_memory):
    mem = make_memory()
    mem.write_many(_turns(3))
    last = max(e.id for e in mem.events("u1"))
    mem.forget("u1", turn_ids=["t2"])
    mem.write(Turn("I adopted a cat.", user_id="u1", turn_id="new", timestamp=T0))
    assert _event_of(mem, "new") > last


# ---------------------------------------------------------------------- the indexes themselves


def _vectors(n: int, dim: int = 16, seed: int = 0) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


@pytest.mark.parametrize("make", [lambda: NumpyIndex(16), lambda: FaissIndex(16), lambda: FaissIndex(16, hnsw_from=10)])
def test_vector_indexes_remove_what_was_erased(make, tmp_path):
    index, vectors = make(), _vectors(200)
    ids = np.arange(1, 201, dtype=np.int64)
    index.add(ids, vectors)
    gone = set(range(1, 201, 7))
    assert index.remove(gone | {999}) == len(gone)
    assert len(index) == 200 - len(gone) and not any(i in index for i in gone)
    for q in vectors[:20]:
        found = [i for i, _ in index.search(q, 10)]
        assert len(found) == 10 and not gone & set(found)
    if isinstance(index, FaissIndex) and index.approximate:  # the graph keeps the node, not the vector
        assert not np.any(index.index.reconstruct(int(min(gone))))
    path = tmp_path / "index"
    index.save(path)
    loaded = type(index).load(path, 16)
    loaded.remove(gone)  # as a loader does with what the store's log says was erased
    assert len(loaded) == len(index) and [i for i, _ in loaded.search(vectors[1], 5)] == [
        i for i, _ in index.search(vectors[1], 5)
    ]


def test_hnsw_is_rebuilt_once_a_quarter_is_erased():
    index, vectors = FaissIndex(16, hnsw_from=10), _vectors(100)
    index.add(np.arange(100, dtype=np.int64), vectors)
    index.remove(range(30))
    assert index.removed == set() and len(index) == 70 and int(index.index.ntotal) == 70


def test_bm25_forgets_the_words_of_what_was_erased(tmp_path):
    docs = {1: "I went to the museum", 2: f"my {SECRET} collection", 3: "the museum cafe", 4: "我去了博物馆"}
    index = LexicalIndex()
    for i, text in docs.items():
        index.add(i, tokenize(text))
    index.remove([2])
    fresh = LexicalIndex()
    for i, text in docs.items():
        if i != 2:
            fresh.add(i, tokenize(text))
    for query in (["museum"], tokenize("博物馆"), [SECRET], ["cafe", "museum"]):
        got, want = index.search(query, 5), fresh.search(query, 5)
        assert [i for i, _ in got] == [i for i, _ in want]
        assert np.allclose([s for _, s in got], [s for _, s in want])
    path = tmp_path / "bm25"
    index.save(path)
    assert SECRET.encode() not in path.read_bytes()
    loaded = LexicalIndex.load(path)
    assert len(loaded) == 3 and 2 not in loaded and loaded.search(["museum"], 5) == index.search(["museum"], 5)
    loaded.add(5, tokenize("another museum"))
    assert [i for i, _ in loaded.search(["museum"], 5)][0] in (1, 3, 5)
