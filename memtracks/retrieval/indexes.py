"""The in-memory indexes of each scope, kept fresh against the database file.

One :class:`Indexes` object owns, per scope (a user, or a user and an agent), a vector index
and a BM25 index per track and the event-chain graph. They are built from the store when
first needed (or loaded from a snapshot, see :mod:`memtracks.retrieval.snapshots`) and then kept up to
date three ways:

- this process's own writes are added as they commit (:meth:`Indexes.added`);
- before each read, :meth:`Indexes.refresh` asks SQLite whether another connection changed
  the file (``PRAGMA data_version``, a cheap counter); if so, each cached scope takes out the
  memories erased since it last looked (the store's log of erased ids) and reads only the
  tail written since (ids above the highest it has), or, when its memories were rewritten
  rather than appended to (rebuilt, imported: the scope's generation changed), is dropped and
  rebuilt on next use;
- scopes are kept in least-recently-used order within a memory budget, so a server with many
  users does not grow without bound.

With tiered storage (:mod:`memtracks.retrieval.tiers`) a scope also has at most one *live* entry: the
indexes of its events and conclusions said since a time (:meth:`Indexes.live`), which hold
exactly those (the tail of later writes is read in with the same rule; erasures are taken out
as from the whole indexes), within the same budget and the same freshness rules.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import networkx as nx

from memtracks.data.stopwords import Stopwords
from memtracks.errors import UnknownNameError
from memtracks.records import STORED_AS
from memtracks.retrieval.database import DatabaseLexical, DatabaseVectors
from memtracks.retrieval.lexical import LexicalIndex, tokenize
from memtracks.storage import Storage
from memtracks.storage.vectors import INDEXES
from memtracks.tracks import TRACKS as ALL_TRACKS
from memtracks.tracks.temporal import add_links, chain_graph

log = logging.getLogger(__name__)

TRACKS = tuple(t.stored for t in ALL_TRACKS)
TABLES = {t.stored: t.table for t in ALL_TRACKS}
Documents = Callable[[str, str, int], Iterable[tuple[int, str, tuple[str, ...]]]]  # (scope, track, after)

# Rough per-item costs for the memory budget (measured on CPython 3.11; order of magnitude).
POSTING_BYTES = 80
EDGE_BYTES = 400


def stored_track(track: str) -> str:
    """The stored name of a track ("temporal" memories are events); an unknown one is an error,
    never an empty index (which would make every lookup silently find nothing)."""
    name = STORED_AS.get(track, track)
    if name not in TRACKS:
        raise UnknownNameError(f"unknown track {track!r}; known: {', '.join([*STORED_AS, 'event'])}")
    return name


@dataclass
class ScopeIndexes:
    """One scope's indexes; ``synced`` is the highest item id read from the store per track."""

    generation: int
    erased: int = 0  # the position in the store's log of erased ids taken in so far
    vectors: dict[str, Any] = field(default_factory=dict)
    lexical: dict[str, LexicalIndex] = field(default_factory=dict)
    synced: dict[str, int] = field(default_factory=dict)
    graph: nx.MultiDiGraph | None = None
    graph_synced: int = 0
    pending: dict[str, int] = field(default_factory=dict)  # highest id this process added, per track
    since: datetime | None = None  # a live entry: only the items said since this time
    seen_changes: int = 0  # a live entry: this process's write count when it last read its tail

    def nbytes(self, dim: int) -> int:
        if any(isinstance(v, DatabaseVectors) for v in self.vectors.values()):
            return self.graph.number_of_edges() * EDGE_BYTES if self.graph is not None else 0
        vectors = sum(len(v) for v in self.vectors.values()) * dim * 4
        postings = sum(x.postings for x in self.lexical.values()) * POSTING_BYTES
        edges = self.graph.number_of_edges() * EDGE_BYTES if self.graph is not None else 0
        return vectors + postings + edges


@dataclass(frozen=True)
class Prepared:
    """What :meth:`Indexes.prepare` made ready for one scope."""

    scope: str
    items: int  # memories the indexes hold, over every track
    loaded: int  # indexes (vector or BM25) read from a snapshot rather than built
    saved: int  # snapshot files written, for the next process


class Indexes:
    """Per-scope vector, BM25 and chain indexes over one store.

    Args:
        store: where the memories live.
        dim: the embedder's dimension.
        kind: "faiss" or "numpy".
        documents: ``(scope, track, after) -> (item id, text, entity keys)`` of the items with
            ids above ``after``, for the BM25 index.
        budget_bytes: scopes are evicted, least recently used first, past this estimate.
        snapshots: where vector indexes are saved and loaded (None: always rebuild).
        stopwords: what the BM25 terms leave out (the toolkit's; None: the bundled ones).
    """

    def __init__(
        self,
        store: Storage,
        dim: int,
        kind: str,
        documents: Documents,
        budget_bytes: int,
        snapshots: Any = None,
        stopwords: Stopwords | None = None,
    ):
        self.store = store
        self.stopwords = stopwords
        self.dim = dim
        self.kind = kind
        self.documents = documents
        self.budget_bytes = budget_bytes
        self.snapshots = snapshots
        self._scopes: OrderedDict[tuple[str, bool], ScopeIndexes] = OrderedDict()  # (scope, live)
        self._changes = 0  # items this process added: a live entry reads its tail when it moved
        self._seen_version = store.data_version()
        self._lock = threading.RLock()
        self.refreshes = 0  # how many times another connection's changes were read in
        self.snapshot_loads = 0  # vector indexes loaded from a snapshot instead of rebuilt
        self.snapshot_saves = 0  # snapshot files written

    # ------------------------------------------------------------------ access

    def _entry(self, scope: str) -> ScopeIndexes:
        entry = self._scopes.get((scope, False))
        if entry is None:
            entry = self._scopes[scope, False] = ScopeIndexes(
                self.store.generation(scope), self.store.erased_seq(scope)
            )
        self._scopes.move_to_end((scope, False))
        return entry

    def live(self, scope: str, track: str, since: datetime, slack: float = 0.0) -> tuple[Any, LexicalIndex]:
        """The vector and BM25 indexes of the items of ``track`` said at or after ``since``.

        The scope's live entry serves when it starts at most ``slack`` seconds before
        ``since`` (what it holds before ``since`` is the caller's to filter out); otherwise it
        is replaced by one starting at ``since``: one live entry per scope, never more."""
        track = stored_track(track)
        with self._lock:
            key = (scope, True)
            entry = self._scopes.get(key)
            if (
                entry is not None
                and entry.since is not None
                and not (0 <= (since - entry.since).total_seconds() <= slack)
            ):
                del self._scopes[key]
                entry = None
            if entry is None:
                entry = self._scopes[key] = ScopeIndexes(
                    self.store.generation(scope), self.store.erased_seq(scope), since=since, seen_changes=self._changes
                )
            self._scopes.move_to_end(key)
            if track not in entry.vectors:
                self._build(scope, entry, track)
            elif entry.seen_changes != self._changes:
                self._tail(scope, entry)
                entry.seen_changes = self._changes
            return entry.vectors[track], entry.lexical[track]

    def vectors(self, scope: str, track: str) -> Any:
        track = stored_track(track)
        with self._lock:
            entry = self._entry(scope)
            if track not in entry.vectors:
                self._build(scope, entry, track)
            return entry.vectors[track]

    def lexical(self, scope: str, track: str) -> LexicalIndex:
        track = stored_track(track)
        with self._lock:
            entry = self._entry(scope)
            if track not in entry.lexical:
                self._build(scope, entry, track)
            return entry.lexical[track]

    def chain(self, scope: str) -> nx.MultiDiGraph:
        with self._lock:
            entry = self._entry(scope)
            if entry.graph is None:
                links = self.store.links(scope)
                entry.graph = chain_graph(links)
                entry.graph_synced = max((dst for _, dst, _, _ in links), default=0)
            return entry.graph

    def _build(self, scope: str, entry: ScopeIndexes, track: str) -> None:
        """Load the track's indexes from snapshots where they match, else build them from the
        store; either way, then add what the store holds beyond them. A store that searches
        by itself gets indexes that ask it (:mod:`memtracks.retrieval.database`)."""
        if self.store.searches_in_database:
            entry.vectors[track] = DatabaseVectors(self.store, scope, track)
            entry.lexical[track] = DatabaseLexical(self.store, scope, track, self.documents, self.stopwords)  # type: ignore[assignment]
            return
        index, lexical, vectors_from, lexical_from = None, None, 0, 0
        if self.snapshots is not None and entry.since is None:
            loaded = self.snapshots.load(scope, track, entry.generation, self.kind, self.dim)
            if loaded is not None:
                (index, vectors_from), self.snapshot_loads = loaded, self.snapshot_loads + 1
            loaded_lexical = self.snapshots.load_lexical(scope, track, entry.generation)
            if loaded_lexical is not None:
                (lexical, lexical_from), self.snapshot_loads = loaded_lexical, self.snapshot_loads + 1
        index = index if index is not None else INDEXES[self.kind](self.dim)
        lexical = lexical if lexical is not None else LexicalIndex()
        keep = self._said_since(scope, track, entry, 0)
        after = None  # a live entry reads from its first item on (from the newest, when it has none)
        if keep is not None:
            after = min(keep) - 1 if keep else self.store.next_id(TABLES[track]) - 1
        last, rebuilt = max(vectors_from, lexical_from), 0
        for ids, matrix in self.store.vector_chunks(scope, track, after=vectors_from if after is None else after):
            last = max(last, int(ids.max()))
            if keep is not None:
                chosen = [n for n, i in enumerate(ids) if int(i) in keep]
                ids, matrix = ids[chosen], matrix[chosen]
            if len(ids):
                index.add(ids, matrix)
            rebuilt += len(ids)
        for item_id, text, keys in self.documents(scope, track, lexical_from if after is None else after):
            if keep is None or item_id in keep:
                lexical.add(item_id, tokenize(text, keys, self.stopwords))
                rebuilt += 1
            last = max(last, item_id)
        entry.vectors[track], entry.lexical[track], entry.synced[track] = index, lexical, last
        whole = entry.since is None  # a live entry is never saved as a track's snapshot
        if (
            whole
            and self.snapshots is not None
            and not self.store.read_only
            and rebuilt >= self.snapshots.save_after_rebuild
        ):
            try:
                self._save_track(scope, entry, track)
            except OSError as exc:  # a cache: the next process rebuilds what could not be saved
                log.warning("could not save the %s index snapshot of %s: %s", track, scope, exc)
        self._fit_budget()

    # ------------------------------------------------------------------ keeping fresh

    def added(self, scope: str, track: str, item_id: int, vector: Any, text: str, keys: tuple[str, ...]) -> None:
        """This process committed a new item: add it to the cached indexes of its scope."""
        with self._lock:
            self._changes += 1
            entry = self._scopes.get((scope, False))
            if entry is None or track not in entry.vectors or self.store.searches_in_database:
                return  # built from the store (which holds it) when first needed, or searched there
            if vector is not None and item_id not in entry.vectors[track]:
                entry.vectors[track].add([item_id], vector[None, :])
            if item_id not in entry.lexical[track]:
                entry.lexical[track].add(item_id, tokenize(text, keys, self.stopwords))
            entry.pending[track] = max(entry.pending.get(track, 0), item_id)

    def linked(self, scope: str, links: Iterable[tuple[int, int, str, str]]) -> None:
        with self._lock:
            entry = self._scopes.get((scope, False))
            if entry is None or entry.graph is None:
                return
            links = list(links)
            add_links(entry.graph, links)
            for _, dst, _, _ in links:
                entry.pending["chain"] = max(entry.pending.get("chain", 0), dst)

    def committed(self) -> None:
        """After this process's own commit: if nobody else wrote meanwhile, every cached
        scope is complete up to the newest ids; otherwise read the others' tail now."""
        with self._lock:
            if self.store.data_version() != self._seen_version:
                self.refresh()  # reads from the last synced ids, so it also covers our items
            else:
                for entry in self._scopes.values():
                    for track, last in entry.pending.items():
                        if track == "chain":
                            entry.graph_synced = max(entry.graph_synced, last)
                        else:
                            entry.synced[track] = max(entry.synced.get(track, 0), last)
            for entry in self._scopes.values():
                entry.pending.clear()

    def refresh(self) -> bool:
        """Read in what other connections committed since the last look. Cheap when nothing
        changed (one pragma). Returns whether anything was read."""
        with self._lock:
            version = self.store.data_version()
            if version == self._seen_version:
                return False
            self._seen_version = version
            self.refreshes += 1
            for key in list(self._scopes):
                self._catch_up(key)
            self._fit_budget()
            return True

    def _catch_up(self, key: tuple[str, bool]) -> None:
        """Bring one cached entry up to date with the store: drop it if its scope was rewritten
        (the generation changed; rebuilt on next use), else take out what was erased since and
        read in the tail written since."""
        entry, scope = self._scopes[key], key[0]
        if self.store.generation(scope) != entry.generation:
            del self._scopes[key]
        else:
            self._take_out(entry, *self.store.erased(scope, after=entry.erased))
            self._tail(scope, entry)
            entry.seen_changes = self._changes

    def _said_since(self, scope: str, track: str, entry: ScopeIndexes, after: int) -> set[int] | None:
        """For a live entry, the ids above ``after`` it holds (None: a whole entry holds all)."""
        if entry.since is None:
            return None
        return set(self.store.ids_said_since(scope, track, entry.since, after=after))

    def _tail(self, scope: str, entry: ScopeIndexes) -> None:
        for track in [] if self.store.searches_in_database else list(entry.vectors):
            after = entry.synced.get(track, 0)
            keep = self._said_since(scope, track, entry, after)
            ids, matrix = self.store.vectors(scope, track, after=after)
            index, lexical = entry.vectors[track], entry.lexical[track]
            fresh = [n for n, i in enumerate(ids) if int(i) not in index and (keep is None or int(i) in keep)]
            if fresh:
                index.add(ids[fresh], matrix[fresh])
            last = int(ids.max()) if len(ids) else after
            for item_id, text, keys in self.documents(scope, track, after):
                if item_id not in lexical and (keep is None or item_id in keep):
                    lexical.add(item_id, tokenize(text, keys, self.stopwords))
                last = max(last, item_id)
            entry.synced[track] = last
        if entry.graph is not None:
            links = self.store.links(scope, after=entry.graph_synced)
            add_links(entry.graph, links)
            entry.graph_synced = max((dst for _, dst, _, _ in links), default=entry.graph_synced)

    def erased(self, scope: str, items: dict[str, set[int]]) -> None:
        """This process erased ``items`` ({track: ids}) of ``scope``: take them out of its
        cached indexes, and rewrite the scope's snapshots without them (files that still held
        them are removed first). A process that holds no indexes of the scope loads its
        snapshots, without the erased, and saves them again: a rebuild at the next start would
        cost far more."""
        with self._lock:
            live = self._scopes.get((scope, True))
            if live is not None:
                self._take_out(live, self.store.erased_seq(scope), items)
            entry = self._scopes.get((scope, False))
            if entry is None and self.snapshots is not None and not self.store.read_only:
                saved = self.snapshots.tracks(scope)
                if saved:  # load them (which takes out what was erased since), then save again
                    entry = self._entry(scope)
                    for track in saved:
                        self._build(scope, entry, track)
                    self.snapshots.drop(scope)
                    self._save(scope, entry)
                    return
            if self.snapshots is not None:
                self.snapshots.drop(scope)
            if entry is None:
                return
            self._take_out(entry, self.store.erased_seq(scope), items)
            if self.snapshots is not None:
                self._save(scope, entry)

    @staticmethod
    def _take_out(entry: ScopeIndexes, seq: int, items: dict[str, set[int]]) -> None:
        for track, ids in items.items():
            if track in entry.vectors:
                entry.vectors[track].remove(ids)
                entry.lexical[track].remove(ids)
        if items.get("event"):
            entry.graph = None  # links were rejoined across the gap: read again when next asked for
        entry.erased = max(entry.erased, seq)

    def evict(self, scope: str) -> None:
        """Forget the cached indexes of ``scope`` (after this process rewrote it)."""
        with self._lock:
            self._scopes.pop((scope, False), None)
            self._scopes.pop((scope, True), None)
            if self.snapshots is not None:
                self.snapshots.drop(scope)

    def _fit_budget(self) -> None:
        while len(self._scopes) > 1 and self.nbytes() > self.budget_bytes:
            self._scopes.popitem(last=False)

    def nbytes(self) -> int:
        return sum(e.nbytes(self.dim) for e in self._scopes.values())

    def live_since(self) -> dict[str, datetime]:
        """The scopes with a live index in memory, and the time each begins."""
        return {scope: e.since for (scope, live), e in self._scopes.items() if live and e.since is not None}

    def cached(self) -> list[str]:
        """Scopes with indexes in memory, least recently used first."""
        return list(dict.fromkeys(scope for scope, _ in self._scopes))

    def prepare(self, scope: str) -> Prepared:
        """Make ready now what a question on ``scope`` reads first: every track's vector and
        BM25 index (loaded from its snapshots, or built from the store and saved at once, so the
        next process loads them) and the event chain; on a store that searches by itself, its
        lexical postings brought up to date in the database."""
        with self._lock:
            loads, saves = self.snapshot_loads, self.snapshot_saves
            if (scope, False) in self._scopes:  # written through the store since (a bulk load)
                self._catch_up((scope, False))
            entry = self._entry(scope)
            for track in [t for t in TRACKS if t not in entry.vectors]:
                self._build(scope, entry, track)
            self.chain(scope)
            if self.snapshots is not None and not self.store.read_only:
                try:
                    self._save(scope, entry)
                except OSError as exc:  # a cache: the next process builds what could not be saved
                    log.warning("could not save the index snapshots of %s: %s", scope, exc)
            # counting a store's own lexical index brings its postings up to date in the database
            items = sum(len(entry.lexical[t]) for t in TRACKS)
            return Prepared(scope, items, self.snapshot_loads - loads, self.snapshot_saves - saves)

    # ------------------------------------------------------------------ snapshots

    def save_snapshots(self) -> int:
        """Save the vector and BM25 indexes of every cached scope and track worth saving;
        returns how many files were written."""
        if self.snapshots is None:
            return 0
        with self._lock:
            self.refresh()  # what others erased meanwhile must not be written back to disk
            return sum(self._save(scope, entry) for (scope, live), entry in self._scopes.items() if not live)

    def _save(self, scope: str, entry: ScopeIndexes) -> int:
        return sum(self._save_track(scope, entry, track) for track in list(entry.vectors))

    def _save_track(self, scope: str, entry: ScopeIndexes, track: str) -> int:
        assert self.snapshots is not None
        last = entry.synced.get(track, 0)
        saved = self.snapshots.save(scope, track, entry.vectors[track], last, entry.generation, entry.erased)
        lexical = entry.lexical[track]
        saved += self.snapshots.save(scope, f"{track}.lexical", lexical, last, entry.generation, entry.erased)
        self.snapshot_saves += saved
        return saved
