"""The event chain read straight from the store, for retrieval.

Walking the chain during a question needs only the links of a few events (the best hits and
their neighbours), so :class:`StoredChain` looks them up in ``event_links`` (indexed both
ways) instead of loading the whole chain into a graph first: a new process answers its first
question without reading 100k links. :meth:`StoredChain.load` reads the links of many events
both ways in one set-based query, so a walk from the best hits costs a query per hop, not two
per event. It offers the part of networkx's graph interface the chain walks use
(``in``, ``predecessors``, ``successors``, ``out_edges(node, data=True)``);
:meth:`Memory.event_chain` still returns the full networkx graph.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from memtracks.storage.base import SQLStorage
from memtracks.storage.dialect import marks

CHUNK = 490  # events per query (twice that many bound parameters: under every SQLite build's 999)


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
            incoming: dict[int, list[int]] = {n: [] for n in chunk}
            rows = self.store._rows(  # both ways in one statement: 1 = out of a node, 0 = into it
                f"SELECT 1, src, dst, kind, key FROM event_links WHERE user_id = ? AND src IN ({placeholders}) "
                f"UNION ALL SELECT 0, dst, src, '', '' FROM event_links WHERE user_id = ? AND dst IN ({placeholders}) "
                "ORDER BY 1, 2, 3, 4, 5",
                (self.scope, *chunk, self.scope, *chunk),
            )
            for outward, node, other, kind, key in rows:
                if outward:
                    out[node].append((other, kind, key))
                else:
                    incoming[node].append(other)
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
