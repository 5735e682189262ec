"""The event chain read straight from the store, for retrieval.

Walking the chain during a question needs only the links of a few events (the best hits and
their neighbours), so :class:`StoredChain` looks them up in ``event_links`` (indexed both
ways) instead of loading the whole chain into a graph first: a new process answers its first
question without reading 100k links. :meth:`StoredChain.load` reads the links of many events
in two set-based queries (one each way), so a walk from the best hits costs a few queries per
hop, not two per event. It offers the part of networkx's graph interface the chain walks use
(``in``, ``predecessors``, ``successors``, ``out_edges(node, data=True)``);
:meth:`Memory.event_chain` still returns the full networkx graph.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from memtracks.storage.base import SQLStorage
from memtracks.storage.dialect import marks

CHUNK = 500  # events per query (under every SQLite build's limit on bound parameters)


class StoredChain:
    """One scope's event chain, read from the store (cached for the life of the object)."""

    def __init__(self, store: SQLStorage, scope: str):
        self.store = store
        self.scope = scope
        self._out: dict[int, list[tuple[int, str, str]]] = {}
        self._in: dict[int, list[int]] = {}

    def load(self, nodes: Iterable[int]) -> None:
        """Read the links into and out of each of ``nodes`` not read yet, a chunk of events per
        query; rows come in the store's key order, as one event's own look-up returns them."""
        todo = list(dict.fromkeys(n for n in nodes if isinstance(n, int) and n not in self._out))
        for start in range(0, len(todo), CHUNK):
            chunk = todo[start : start + CHUNK]
            placeholders = marks(chunk)
            out: dict[int, list[tuple[int, str, str]]] = {n: [] for n in chunk}
            rows = self.store._rows(
                f"SELECT src, dst, kind, key FROM event_links WHERE user_id = ? AND src IN ({placeholders}) "
                "ORDER BY src, dst, kind, key",
                (self.scope, *chunk),
            )
            for src, dst, kind, key in rows:
                out[src].append((dst, kind, key))
            incoming: dict[int, list[int]] = {n: [] for n in chunk}
            rows = self.store._rows(
                f"SELECT dst, src FROM event_links WHERE user_id = ? AND dst IN ({placeholders}) ORDER BY dst, src",
                (self.scope, *chunk),
            )
            for dst, src in rows:
                incoming[dst].append(src)
            self._out.update(out)
            self._in.update(incoming)

    def _outgoing(self, node: int) -> list[tuple[int, str, str]]:
        if node not in self._out:
            self.load([node])
        return self._out[node]

    def _incoming(self, node: int) -> list[int]:
        if node not in self._in:
            self.load([node])
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
