"""What a store that searches by itself (``Storage.searches_in_database``) is asked to search."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HybridSearch:
    """One track's part of a search of vectors and words run in the database with others'
    (``PostgresStore.hybrid_searches``): the question's ``terms``, how many hits, the scope's
    lexical state (``documents``, ``total`` length) and its expansion ``groups`` at
    ``group_weight`` (see :meth:`Storage.lexical_search`)."""

    track: str
    terms: tuple[str, ...]
    k: int
    documents: int
    total: float
    groups: tuple[tuple[str, ...], ...] = ()
    group_weight: float = 0.0
    group_max_share: float = 1.0
