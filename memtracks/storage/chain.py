"""The event chain read straight from the store, for retrieval.

Walking the chain during a question needs only the links of a few events (the best hits and
their neighbours), so :class:`StoredChain` looks them up in ``event_links`` (indexed both
ways) instead of loading the whole chain into a graph first: a new process answers its first
question without reading 100k links. It offers the part of networkx's graph interface the
chain walks use (``in``, ``predecessors``, ``successors``, ``out_edges(node, data=True)``);
:meth:`Memory.event_chain` still returns the full networkx graph.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .base import SQLStorage


class StoredChain:
    """One scope's event chain, read link by link (cached for the life of the object)."""

    def __init__(self, store: SQLStorage, scope: str):
        self.store = store
        self.scope = scope
        self._out: dict[int, list[tuple[int, str, str]]] = {}
        self._in: dict[int, list[int]] = {}

    def _outgoing(self, node: int) -> list[tuple[int, str, str]]:
        if node not in self._out:
            rows = self.store._rows(
                "SELECT dst, kind, key FROM event_links WHERE user_id = ? AND src = ?", (self.scope, node)
            )
            self._out[node] = [(r[0], r[1], r[2]) for r in rows]
        return self._out[node]

    def _incoming(self, node: int) -> list[int]:
        if node not in self._in:
            rows = self.store._rows("SELECT src FROM event_links WHERE user_id = ? AND dst = ?", (self.scope, node))
            self._in[node] = [r[0] for r in rows]
        return self._in[node]

    def __contains__(self, node: object) -> bool:
        return isinstance(node, int) and bool(self._outgoing(node) or self._incoming(node))

    def successors(self, node: int) -> Iterator[int]:
        return iter(dict.fromkeys(dst for dst, _, _ in self._outgoing(node)))

    def predecessors(self, node: int) -> Iterator[int]:
        return iter(dict.fromkeys(self._incoming(node)))

    def out_edges(self, node: int, data: bool = False) -> list[Any]:
        if data:
            return [(node, dst, {"kind": kind, "key_": key}) for dst, kind, key in self._outgoing(node)]
        return [(node, dst) for dst, _, _ in self._outgoing(node)]
