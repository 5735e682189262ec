"""A large memory's indexes are built in bounded memory: vectors are read from the store in
chunks, and the BM25 index moves its postings into arrays as it grows; either way the index
is the one built at once."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from memtracks import Turn
from memtracks.retrieval.lexical import LexicalIndex, tokenize
from memtracks.tracks import base as tracks_base
from memtracks.tracks.temporal import TEMPORAL

T0 = datetime(2024, 3, 1, 9, tzinfo=timezone.utc)
TEXTS = [
    "I went to the museum number {i} with Sam.",
    "我第{i}次去了博物馆，和小李一起。",
    "We cooked pasta for dinner on day {i}.",
    "周末{i}我们去成都吃了火锅。",
]


def corpus(n: int) -> list[str]:
    return [TEXTS[i % len(TEXTS)].format(i=i) for i in range(n)]


@pytest.mark.parametrize("merge_at", [7, 50, 10**9])
def test_bm25_merged_as_it_grows_searches_as_one_never_merged(merge_at, tmp_path):
    texts = corpus(400)
    grown, whole = LexicalIndex(), LexicalIndex()
    grown.MERGE_AT = merge_at
    for n, text in enumerate(texts):
        grown.add(n + 1, tokenize(text))
        whole.add(n + 1, tokenize(text))
    queries = [tokenize(q) for q in ("museum Sam", "博物馆", "成都 火锅", "pasta dinner day 7", "number 12")]
    for terms in queries:
        assert grown.search(terms, 20) == whole.search(terms, 20)
    assert grown.postings == whole.postings
    if merge_at <= 50:  # most postings now live in the arrays
        assert len(grown._rows) > grown._pending and grown._pending < merge_at
    grown.remove([3, 4, 200])
    whole.remove([3, 4, 200])
    for n, text in enumerate(texts[:30]):  # written again after an erasure and a save
        grown.add(1000 + n, tokenize(text))
        whole.add(1000 + n, tokenize(text))
    grown.save(tmp_path / "grown")
    loaded = LexicalIndex.load(tmp_path / "grown")
    for terms in queries:
        assert grown.search(terms, 20) == whole.search(terms, 20) == loaded.search(terms, 20)


def test_vectors_read_in_chunks_are_the_vectors_read_at_once(memory):
    memory.write_many(
        [Turn(t, user_id="u1", turn_id=f"t{n}", timestamp=T0 + timedelta(hours=n)) for n, t in enumerate(corpus(23))]
    )
    ids, matrix = memory.store.vectors("u1", "event")
    chunks = list(memory.store.vector_chunks("u1", "event", size=5))
    assert [len(i) for i, _ in chunks] == [5, 5, 5, 5, 3]
    assert np.array_equal(np.concatenate([i for i, _ in chunks]), ids)
    assert np.array_equal(np.vstack([m for _, m in chunks]), matrix)
    after = int(ids[9])
    assert np.array_equal(np.concatenate([i for i, _ in memory.store.vector_chunks("u1", "event", after, 4)]), ids[10:])
    assert list(memory.store.vector_chunks("u1", "event", int(ids.max()))) == []


def test_a_large_track_is_read_for_its_index_a_chunk_at_a_time(memory, monkeypatch):
    memory.write_many(
        [Turn(t, user_id="u1", turn_id=f"t{n}", timestamp=T0 + timedelta(hours=n)) for n, t in enumerate(corpus(17))]
    )
    whole = list(memory._documents("u1", "event", 0))
    read = []
    by_ids = TEMPORAL.by_ids

    def counted(store, scope, ids):
        read.append(len(ids))
        return by_ids(store, scope, ids)

    monkeypatch.setattr(tracks_base, "DOCUMENT_CHUNK", 5)
    monkeypatch.setattr(TEMPORAL, "by_ids", counted)
    chunked = list(memory._documents("u1", "event", 0))
    assert read == [5, 5, 5, 2]  # never more than a chunk of records at once
    assert sorted(chunked) == sorted(whole) and [i for i, _, _ in chunked] == sorted(i for i, _, _ in whole)
    after = whole[3][0]
    assert {i for i, _, _ in memory._documents("u1", "event", after)} == {i for i, _, _ in whole if i > after}
