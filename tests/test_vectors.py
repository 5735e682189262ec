"""The FAISS index against the exact numpy reference, and the embedder contract."""

from __future__ import annotations

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
    assert np.allclose(approximate.vectors([1234])[1234], vectors[1234])
