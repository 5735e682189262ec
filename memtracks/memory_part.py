"""The base of the parts :class:`~memtracks.memory.Memory` is assembled from
(:mod:`memtracks.browse`, :mod:`memtracks.manage`): what ``Memory`` sets up, declared once."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from .config import MemoryConfig
    from .indexes import Indexes
    from .memory import Memory
    from .storage.base import SQLStorage
    from .toolkit import Toolkit
    from .writer import Writer


class MemoryPart:
    """A part of ``Memory``: it relies on the store, indexes, writer, toolkit, lock and clock
    that ``Memory.__init__`` sets up, and on ``Memory``'s queue and freshness checks."""

    store: SQLStorage
    indexes: Indexes
    writer: Writer
    toolkit: Toolkit
    config: MemoryConfig
    clock: Callable[[], datetime]
    _lock: threading.RLock

    def _writable(self) -> None:
        raise NotImplementedError

    def _drain(self, scope: str | None = None) -> None:
        raise NotImplementedError

    def _fresh(self) -> None:
        raise NotImplementedError

    @property
    def _memory(self) -> Memory:
        return cast("Memory", self)
