"""Vector indexes over one user's memories on one track.

:class:`FaissIndex` (inner product over normalised vectors = cosine; exact while small, HNSW
once large) is the default; :class:`NumpyIndex` is the brute-force reference it is tested
against. Vectors live in SQLite, the single source of truth; an index may also be saved
as a snapshot file (:meth:`save` / :meth:`load`, no pickle) so that a new process need not
rebuild it (see :mod:`memtracks.retrieval.snapshots`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, BinaryIO

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

    def remove(self, ids: Iterable[int]) -> int:
        """Take ``ids`` (erased memories) out of the index; returns how many it held."""
        gone = {int(i) for i in ids} & self.rows.keys()
        if gone:
            keep = ~np.isin(self.ids, np.fromiter(gone, dtype=np.int64, count=len(gone)))
            self.ids, self.matrix = self.ids[keep], self.matrix[keep]
            self.rows = {int(i): n for n, i in enumerate(self.ids)}
        return len(gone)

    def __contains__(self, item_id: int) -> bool:
        return item_id in self.rows

    def save(self, path: Path) -> None:
        with open(path, "wb") as fh:
            np.savez(fh, ids=self.ids, matrix=self.matrix)

    @classmethod
    def load(cls, path: Path, dim: int) -> NumpyIndex:
        with np.load(path) as data:
            index = cls(dim)
            index.add(data["ids"], data["matrix"])
        return index

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        if not len(self) or k <= 0:
            return []
        scores = self.matrix @ np.asarray(query, dtype=np.float32).reshape(-1)
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(int(self.ids[i]), float(scores[i])) for i in top]


class FaissIndex:
    """FAISS, keyed by memory id: exact inner-product search (``IndexFlatIP``) while the
    index is small, HNSW once it holds ``hnsw_from`` vectors (the exact scan costs about
    7 ms per question at 100k vectors on two cores; HNSW well under one, recall@45 ~0.92).
    The graph keeps its vectors as 16-bit floats: half the memory (a million memories' vectors
    in 1 GB, not 2), cosines within about 1e-3 of the stored vectors' (the store keeps them
    in full).

    A single question is searched on one thread: spreading one query over OpenMP threads
    costs more than it saves.
    """

    HNSW_M = 32
    HNSW_EF_CONSTRUCTION = 80
    HNSW_EF_SEARCH = 128

    def __init__(self, dim: int, hnsw_from: int = 50_000):
        import faiss

        self._faiss = faiss
        self.dim = dim
        self.hnsw_from = hnsw_from
        self.index = faiss.IndexIDMap2(faiss.IndexFlatIP(dim))
        self.known: set[int] = set()
        self.removed: set[int] = set()  # erased from an HNSW graph, which cannot delete: zeroed, never returned
        self.approximate = False
        self._source: BinaryIO | None = None  # the snapshot file whose vectors are mapped, not read: see load()

    def __len__(self) -> int:
        return int(self.index.ntotal) - len(self.removed)

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        vectors = np.ascontiguousarray(np.asarray(vectors, dtype=np.float32).reshape(-1, self.dim))
        ids = np.asarray(ids, dtype=np.int64)
        self._own()
        if self.removed and not self.removed.isdisjoint(ids.tolist()):
            self._compact()  # an erased id written again: the graph must not hold it twice
        if not self.approximate and len(self) + len(ids) >= self.hnsw_from:
            self._to_hnsw()
        self.index.add_with_ids(vectors, ids)
        self.known.update(int(i) for i in ids)

    def remove(self, ids: Iterable[int]) -> int:
        """Take ``ids`` (erased memories) out of the index; returns how many it held. The exact
        index deletes them; an HNSW graph cannot, so their stored vectors are overwritten with
        zeros (nothing of them is left in memory or in a saved snapshot) and they are never
        returned. Past a quarter of the graph, it is built again without them."""
        gone = {int(i) for i in ids} & self.known
        if not gone:
            return 0
        self._own()
        self.known -= gone
        if not self.approximate:
            self.index.remove_ids(np.fromiter(gone, dtype=np.int64, count=len(gone)))  # type: ignore[arg-type]
            return len(gone)
        faiss = self._faiss
        stored = faiss.downcast_index(faiss.downcast_index(self.index.index).storage)
        if isinstance(stored, faiss.IndexFlat):  # a graph saved before its vectors were 16-bit
            matrix = faiss.rev_swig_ptr(stored.get_xb(), self.index.ntotal * self.dim).reshape(-1, self.dim)
        else:  # 16-bit floats: all-zero bytes are 0.0
            matrix = faiss.rev_swig_ptr(stored.codes.data(), self.index.ntotal * stored.code_size)
            matrix = matrix.reshape(-1, stored.code_size)
        positions = np.flatnonzero(np.isin(faiss.vector_to_array(self.index.id_map), list(gone)))
        matrix[positions] = 0
        self.removed |= gone
        if len(self.removed) * 4 > self.index.ntotal:
            self._compact()
        return len(gone)

    def _own(self) -> None:
        """Before the index changes: vectors mapped from a snapshot file cannot grow or be
        overwritten (FAISS would abort), so they are read into memory first, once."""
        if self._source is None:
            return
        source, self._source = self._source, None
        faiss: Any = self._faiss
        with source:
            source.seek(0)
            self.index = faiss.read_index(faiss.PyCallbackIOReader(source.read))
        if self.approximate:
            faiss.downcast_index(self.index.index).hnsw.efSearch = self.HNSW_EF_SEARCH

    def _compact(self) -> None:
        """Build the HNSW graph again from the vectors still in it."""
        keep = np.fromiter(self.known, dtype=np.int64, count=len(self.known))
        vectors = np.vstack([self.index.reconstruct(int(i)) for i in keep]) if len(keep) else None
        self.index = self._faiss.IndexIDMap2(self._faiss.IndexFlatIP(self.dim))
        self.known, self.removed, self.approximate = set(), set(), False
        if vectors is not None:
            self.add(keep, vectors)

    def _to_hnsw(self) -> None:
        """Move what the exact index holds into an HNSW graph (once, when it grows large)."""
        faiss = self._faiss
        known = np.fromiter(self.known, dtype=np.int64, count=len(self.known))
        stored = np.vstack([self.index.reconstruct(int(i)) for i in known]) if len(known) else None
        graph = faiss.IndexHNSWSQ(self.dim, faiss.ScalarQuantizer.QT_fp16, self.HNSW_M, faiss.METRIC_INNER_PRODUCT)
        graph.hnsw.efConstruction = self.HNSW_EF_CONSTRUCTION
        graph.hnsw.efSearch = self.HNSW_EF_SEARCH
        self.index = faiss.IndexIDMap2(graph)
        self.approximate = True
        if stored is not None:
            self.index.add_with_ids(np.ascontiguousarray(stored), known)

    def vectors(self, ids: list[int]) -> dict[int, np.ndarray]:
        """The stored vectors of ``ids`` that are in the index."""
        return {i: np.asarray(self.index.reconstruct(int(i))) for i in ids if i in self.known}

    def __contains__(self, item_id: int) -> bool:
        return item_id in self.known

    def save(self, path: Path) -> None:
        self._faiss.write_index(self.index, str(path))

    @classmethod
    def load(cls, path: Path, dim: int, hnsw_from: int = 50_000) -> FaissIndex:
        """The index saved at ``path``, its vectors mapped from the file rather than read: a new
        process answers without copying them all in (a search touches few), and they are read
        in, from the same file, only when the index first changes (:meth:`_own`). Snapshot files
        are replaced, never rewritten in place, and the file is held open, so what is mapped
        and what is read in later are the index that was loaded."""
        index = cls(dim, hnsw_from)
        source = open(path, "rb")
        try:
            loaded = index._faiss.read_index(str(path), index._faiss.IO_FLAG_MMAP_IFC)
            if os.fstat(source.fileno()).st_ino != os.stat(path).st_ino:  # replaced meanwhile: read what is open
                loaded = index._faiss.read_index(index._faiss.PyCallbackIOReader(source.read))
                source.close()
            else:
                index._source = source
        except BaseException:
            source.close()
            raise
        if loaded.d != dim:
            raise ValueError(f"{path} holds {loaded.d}-dimensional vectors, not {dim}")
        inner = index._faiss.downcast_index(loaded.index)
        if isinstance(inner, index._faiss.IndexHNSW):
            inner.hnsw.efSearch = cls.HNSW_EF_SEARCH
            index.approximate = True
        index.index = loaded
        index.known = set(index._faiss.vector_to_array(loaded.id_map).tolist())
        return index

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        if not len(self) or k <= 0:
            return []
        q = np.ascontiguousarray(np.asarray(query, dtype=np.float32).reshape(1, -1))
        total = int(self.index.ntotal)
        fetch = min(k + min(len(self.removed), k), total)  # erased ones may come up: ask for a few more
        while True:
            found = [(i, s) for i, s in self._search(q, fetch) if i not in self.removed]
            if len(found) >= k or fetch >= total:
                return found[:k]
            fetch = min(total, fetch * 4)

    def _search(self, q: np.ndarray, k: int) -> list[tuple[int, float]]:
        faiss = self._faiss
        threads = faiss.omp_get_max_threads()
        faiss.omp_set_num_threads(1)
        try:
            scores, ids = self.index.search(q, k)
        finally:
            faiss.omp_set_num_threads(threads)
        return [(int(i), float(s)) for i, s in zip(ids[0], scores[0], strict=True) if i != -1]


def similarity(index: NumpyIndex | FaissIndex, ids: list[int], query: np.ndarray) -> dict[int, float]:
    """Cosine between ``query`` and the stored vectors of ``ids``."""
    found = index.vectors(ids)
    q = np.asarray(query, dtype=np.float32).reshape(-1)
    return {i: float(v @ q) for i, v in found.items()}


INDEXES = {"faiss": FaissIndex, "numpy": NumpyIndex}
