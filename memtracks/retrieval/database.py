"""Indexes that live in the database, for stores that search by themselves
(``Storage.searches_in_database``, the Postgres store): the same interface as the in-memory
vector index (:mod:`memtracks.storage.vectors`) and BM25 index (:mod:`.lexical`), answered
by queries, so every process shares one index and keeps none in memory.

The lexical index is derived from the memories as the in-memory one is (the same documents,
the same :func:`~memtracks.retrieval.lexical.tokenize`, the same BM25), and kept fresh the
same way: before a search, what was written since it last read is added, what was erased is
taken out, and a scope whose memories were rewritten (rebuilt, imported, consolidated) is
indexed again — in one transaction under the store's write lock, so processes that find it
stale at once index it once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from memtracks.data.stopwords import Stopwords
from memtracks.retrieval.lexical import LexicalIndex, bm25_idf, expansion_groups, tokenize, tokenizer_stamp
from memtracks.storage.searches import HybridSearch

log = logging.getLogger(__name__)
Documents = Callable[[str, str, int], Iterable[tuple[int, str, tuple[str, ...]]]]


class DatabaseVectors:
    """One scope's vectors on one track, searched in the database."""

    def __init__(self, store: Any, scope: str, track: str):
        self.store, self.scope, self.track = store, scope, track

    def __len__(self) -> int:
        return int(self.store.vector_count(self.scope, self.track))

    def __contains__(self, item_id: object) -> bool:
        return isinstance(item_id, int | np.integer) and bool(self.vectors([int(item_id)]))

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        return self.store.vector_search(self.scope, self.track, query, k)

    def vectors(self, ids: list[int]) -> dict[int, np.ndarray]:
        return self.store.vector_lookup(self.scope, self.track, ids)

    def add(self, ids: Any, vectors: Any) -> None:
        """Stored by the write itself: nothing to add."""

    def remove(self, ids: Iterable[int]) -> int:
        """Deleted by the erasure itself: nothing to take out."""
        return 0


class DatabaseLexical:
    """One scope's BM25 index on one track, in the database (see the module docstring)."""

    def __init__(self, store: Any, scope: str, track: str, documents: Documents, stopwords: Stopwords | None = None):
        self.store, self.scope, self.track = store, scope, track
        self.documents = documents
        self.stopwords, self.tokenizer = stopwords, tokenizer_stamp(stopwords)
        self.k1, self.b = LexicalIndex().k1, LexicalIndex().b

    def _state(self) -> tuple[int, float]:
        """(documents, their total length), after bringing the index up to date."""
        store, scope, track = self.store, self.scope, self.track
        status = store.lexical_status(scope, track)  # the index's state and the scope's, in one read
        if (
            status["synced"] is not None
            and status["tokenizer"] == self.tokenizer
            and status["generation"] == int(status["now_generation"] or 0)
            and status["erased"] == status["now_erased"]
            and status["synced"] >= status["now_max_id"]
        ):
            return int(status["documents"]), float(status["total_length"])
        if store.read_only:  # cannot bring it up to date: search what it holds
            log.warning("%s: the lexical index of %s is behind its memories (read-only here)", store.path, scope)
            if status["synced"] is None:
                return 0, 0.0
            return int(status["documents"]), float(status["total_length"])
        with store.transaction():
            return self._update()

    def _update(self) -> tuple[int, float]:
        store, scope, track = self.store, self.scope, self.track
        state = store.lexical_state(scope, track)  # again, now that the write lock is held
        generation, erased = store.generation(scope), store.erased_seq(scope)
        if state is None or state["generation"] != generation or state["tokenizer"] != self.tokenizer:
            store.lexical_reset(scope, track)
            synced, count, total = 0, 0, 0.0
        else:
            synced, count, total = int(state["synced"]), int(state["documents"]), float(state["total_length"])
            if state["erased"] != erased:
                _, items = store.erased(scope, after=int(state["erased"]))
                gone = [i for i in items.get(track, ()) if i <= synced]
                total -= store.lexical_remove(scope, track, gone)
                count -= len(gone)
        fresh = [
            (item_id, tokenize(text, keys, self.stopwords))
            for item_id, text, keys in self.documents(scope, track, synced)
        ]
        count += len(fresh)
        total += sum(len(terms) for _, terms in fresh)
        store.lexical_add(scope, track, fresh, total / count if count else 1.0)
        synced = max([synced, *(item_id for item_id, _ in fresh)])
        store.set_lexical_state(
            scope,
            track,
            synced=synced,
            generation=generation,
            erased=erased,
            documents=count,
            total=total,
            tokenizer=self.tokenizer,
        )
        return count, total

    def __len__(self) -> int:
        return self._state()[0]

    def __contains__(self, item_id: object) -> bool:
        self._state()
        rows = self.store._rows(
            "SELECT 1 FROM lexical_postings WHERE user_id = ? AND track = ? AND item_id = ? LIMIT 1",
            (self.scope, self.track, item_id),
        )
        return bool(rows)

    def search(
        self,
        terms: Sequence[str],
        k: int,
        allowed: set[int] | None = None,
        extra: Sequence[tuple[str, ...]] = (),
        extra_weight: float = 0.0,
        extra_max_share: float = 1.0,
    ) -> list[tuple[int, float]]:
        """As :meth:`LexicalIndex.search` (``extra``: groups of terms at ``extra_weight``),
        scored in one statement (:meth:`PostgresStore.lexical_search`)."""
        documents, total = self._state()
        return self.store.lexical_search(
            self.scope,
            self.track,
            terms,
            k,
            documents,
            total,
            groups=expansion_groups(extra, terms) if extra_weight > 0 else [],
            group_weight=extra_weight,
            group_max_share=extra_max_share,
            allowed=allowed,
        )

    def covers(self, vectors: Any) -> bool:
        """``vectors`` are this index's scope and track in the same database."""
        return isinstance(vectors, DatabaseVectors) and (vectors.store, vectors.scope, vectors.track) == (
            self.store,
            self.scope,
            self.track,
        )

    def search_with(
        self,
        vectors: DatabaseVectors,
        query: np.ndarray,
        terms: Sequence[str],
        k: int,
        extra: Sequence[tuple[str, ...]] = (),
        extra_weight: float = 0.0,
        extra_max_share: float = 1.0,
    ) -> tuple[dict[int, float], dict[int, float]]:
        """``vectors.search(query, k)`` and ``self.search(terms, k, ...)`` in one statement
        (:meth:`PostgresStore.hybrid_searches`): the semantic hits, with the cosines of the lexical
        hits they miss, and the lexical hits."""
        return search_together([(self, terms, k, extra)], query, extra_weight, extra_max_share)[0]

    def part(
        self,
        terms: Sequence[str],
        k: int,
        extra: Sequence[tuple[str, ...]],
        extra_weight: float,
        extra_max_share: float,
    ) -> HybridSearch:
        """This index's part of a search run with others' (:func:`search_together`)."""
        documents, total = self._state()
        groups = expansion_groups(extra, terms) if extra_weight > 0 else []
        return HybridSearch(self.track, tuple(terms), k, documents, total, tuple(groups), extra_weight, extra_max_share)

    def ceiling(self, terms: Sequence[str]) -> float:
        """The most a document could score for ``terms`` (as :meth:`LexicalIndex.ceiling`)."""
        n, _ = self._state()
        counts = self.store.lexical_frequencies(self.scope, self.track, terms)
        return sum(bm25_idf(n, df) * (self.k1 + 1) for df in counts.values())

    def add(self, item_id: int, terms: Sequence[str]) -> None:
        """Read from the store before the next search: nothing to add."""

    def remove(self, item_ids: Iterable[int]) -> int:
        """Taken out before the next search (the store's log of erased ids): nothing to do."""
        return 0


def search_together(
    searches: Sequence[tuple[DatabaseLexical, Sequence[str], int, Sequence[tuple[str, ...]]]],
    query: np.ndarray,
    extra_weight: float = 0.0,
    extra_max_share: float = 1.0,
) -> list[tuple[dict[int, float], dict[int, float]]]:
    """Each (index, terms, k, extra) searched with its track's vectors for ``query``, all in
    one statement (the indexes are one scope's in one database): for each, the semantic hits
    with the cosines of the lexical hits they miss, and the lexical hits."""
    first = searches[0][0]
    if any((index.store, index.scope) != (first.store, first.scope) for index, *_ in searches):
        raise ValueError("searches run together must be one scope's in one database")
    parts = [index.part(terms, k, extra, extra_weight, extra_max_share) for index, terms, k, extra in searches]
    return list(first.store.hybrid_searches(first.scope, query, parts))
