"""Storage: the protocol every store implements, the SQLite store (a file or an in-memory
database, the default) and, with the ``postgres`` extra, a Postgres store; vector indexes."""

from memtracks.storage.base import SQLStorage, Storage, is_postgres, open_store
from memtracks.storage.sqlite import Store

__all__ = ["SQLStorage", "Storage", "Store", "is_postgres", "open_store"]
