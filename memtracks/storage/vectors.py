"""Vector indexes over one user's memories on one track.

:class:`FaissIndex` (inner product over normalised vectors = cosine) is the default;
:class:`NumpyIndex` is the brute-force reference it is tested against. Neither is persisted:
vectors live in SQLite and an index is rebuilt from them when first needed, so nothing is
pickled and the database file is the single source of truth.
"""

from __future__ import annotations

import numpy as np


class NumpyIndex:
    """Exact cosine search with numpy; the reference implementation."""

    def __init__(self, dim: int):
        self.dim = dim
        self.ids = np.zeros(0, dtype=np.int64)
        self.matrix = np.zeros((0, dim), dtype=np.float32)
        self.rows: dict[int, int] = {}

    def __len__(self) -> int:
        return len(self.ids)

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        start = len(self.ids)
        self.ids = np.concatenate([self.ids, np.asarray(ids, dtype=np.int64)])
        self.matrix = np.vstack([self.matrix, np.asarray(vectors, dtype=np.float32).reshape(-1, self.dim)])
        self.rows.update({int(i): start + n for n, i in enumerate(ids)})

    def vectors(self, ids: list[int]) -> dict[int, np.ndarray]:
        """The stored vectors of ``ids`` that are in the index."""
        return {i: self.matrix[self.rows[i]] for i in ids if i in self.rows}

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        if not len(self) or k <= 0:
            return []
        scores = self.matrix @ np.asarray(query, dtype=np.float32).reshape(-1)
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(int(self.ids[i]), float(scores[i])) for i in top]


class FaissIndex:
    """FAISS ``IndexIDMap2(IndexFlatIP)``: exact inner-product search keyed by memory id."""

    def __init__(self, dim: int):
        import faiss

        self.dim = dim
        self.index = faiss.IndexIDMap2(faiss.IndexFlatIP(dim))
        self.known: set[int] = set()

    def __len__(self) -> int:
        return int(self.index.ntotal)

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        vectors = np.ascontiguousarray(np.asarray(vectors, dtype=np.float32).reshape(-1, self.dim))
        self.index.add_with_ids(vectors, np.asarray(ids, dtype=np.int64))
        self.known.update(int(i) for i in ids)

    def vectors(self, ids: list[int]) -> dict[int, np.ndarray]:
        """The stored vectors of ``ids`` that are in the index."""
        return {i: self.index.reconstruct(int(i)) for i in ids if i in self.known}

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        if not len(self) or k <= 0:
            return []
        q = np.ascontiguousarray(np.asarray(query, dtype=np.float32).reshape(1, -1))
        scores, ids = self.index.search(q, min(k, len(self)))
        return [(int(i), float(s)) for i, s in zip(ids[0], scores[0], strict=True) if i != -1]


def similarity(index: NumpyIndex | FaissIndex, ids: list[int], query: np.ndarray) -> dict[int, float]:
    """Cosine between ``query`` and the stored vectors of ``ids``."""
    found = index.vectors(ids)
    q = np.asarray(query, dtype=np.float32).reshape(-1)
    return {i: float(v @ q) for i, v in found.items()}


INDEXES = {"faiss": FaissIndex, "numpy": NumpyIndex}
