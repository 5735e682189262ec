"""The parts a memory is made of, bundled for the services that work on it.

``Memory`` builds one :class:`Parts` and hands it to what reads and manages its tracks
(:mod:`memtracks.retrieval.browse`, :mod:`memtracks.upkeep.manage`) and to the upkeep services
(:mod:`memtracks.upkeep.lifecycle`, ``integrity``, ``audit``, ``transfer``, the Markdown
export and import, ``consolidation``, the LLM extractor). A service takes the parts it needs
from the bundle; none of them knows ``Memory``.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from memtracks.errors import ReadOnlyError

if TYPE_CHECKING:
    from memtracks.config import MemoryConfig
    from memtracks.retrieval.embedders import Embedder
    from memtracks.retrieval.indexes import Indexes
    from memtracks.storage.base import SQLStorage
    from memtracks.toolkit import Toolkit
    from memtracks.write.writer import Batch, Writer


def _nothing_queued(scope: str | None = None) -> None:
    """The default ``drain``: a memory without a write queue has nothing to wait for."""


@dataclass
class Parts:
    """Store, indexes, writer, toolkit, config, embedder, clock and lock of one memory.

    ``drain(scope)`` writes what is queued (for ``scope``, or for everyone) before a service
    reads or changes the tracks; ``Memory`` passes its write queue's."""

    store: SQLStorage
    indexes: Indexes
    writer: Writer
    toolkit: Toolkit
    config: MemoryConfig
    embedder: Embedder
    clock: Callable[[], datetime]
    lock: threading.RLock
    drain: Callable[[str | None], None] = _nothing_queued

    def writable(self) -> None:
        """Refuse to change a memory opened read-only."""
        if self.store.read_only:
            raise ReadOnlyError(f"{self.store.path} was opened read-only; open it without read_only=True to write")

    def fresh(self) -> None:
        """Before a read: take in what other processes wrote to the file meanwhile."""
        if self.indexes.refresh():
            self.writer.reset_caches()

    def committed(self, batch: Batch) -> None:
        """Bring the in-memory indexes up to date with what the writer just committed."""
        for p in batch.vectors:
            self.indexes.added(p.user_id, p.track, p.item_id, p.vector, p.text, p.keys)
        by_user: dict[str, list[tuple[int, int, str, str]]] = {}
        for user, src, dst, kind, key in batch.links:
            by_user.setdefault(user, []).append((src, dst, kind, key))
        for user, links in by_user.items():
            self.indexes.linked(user, links)
        self.indexes.committed()
        # keep indexes warm from the first write, so the first question pays no build
        for user, track in dict.fromkeys((p.user_id, p.track) for p in batch.vectors):
            self.indexes.vectors(user, track)


class Service:
    """A part of a memory's API that works on its :class:`Parts` (``Browse``, ``Manage``)."""

    def __init__(self, parts: Parts) -> None:
        self.parts = parts


S = TypeVar("S")
P = ParamSpec("P")
R = TypeVar("R")


def handed_to(service: str, method: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[Any, P], R]:
    """A method of ``Memory`` that hands the call to ``method`` of its service ``service``
    (an attribute name): the same signature, name and docstring, for ``help()`` and editors."""

    @functools.wraps(method)
    def call(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return method(getattr(self, service), *args, **kwargs)

    return call
