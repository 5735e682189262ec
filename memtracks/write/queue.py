"""The async write queue: ``Memory(async_writes=True)`` and ``awrite()`` return at once.

A write is validated, journalled and queued in well under a millisecond; a background thread
runs the writer over the queue in batches. Until a turn is written, a hot cache keeps it
retrievable: ``retrieve()`` returns it as a fresh event card (marked ``queued``) beside the
stored memories, so an agent reads its own writes at once.

The journal is a small SQLite file beside the database (``memory.db.queue``), with its own
connection, so queueing never waits for the writer's transaction. A turn leaves the journal
only after it is written; a process that dies with turns in the queue leaves them in the
journal, and the next ``Memory`` opened on the file writes them (written turns are recognised
by id and content and not written twice). ``Memory.queue_recovered`` says how many. A memory
in ``":memory:"`` has no journal: its queue dies with the process, as everything else in it.

``flush()`` waits until the queue is empty; ``close()`` drains it before closing.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from typing import Any

import numpy as np

from memtracks.data.catalogue import default_catalogue
from memtracks.errors import DuplicateTurnError, MemtracksError, StorageError
from memtracks.pipeline.language import detect_language
from memtracks.records import Event, Turn, WriteResult
from memtracks.retrieval.cards import Card, CardContext
from memtracks.retrieval.substance import content_free
from memtracks.tracks import TEMPORAL
from memtracks.write.validation import content_hash

log = logging.getLogger(__name__)

BATCH = 32  # turns the worker writes per transaction at most
RETRY_SECONDS = 0.5  # after a storage failure, the worker waits this long before trying again
HOT_RELEVANCE = 0.15  # a queued turn joins the cards, ahead of stored ones, from this cosine to the question
HOT_CONFIDENCE = 0.8
CLOSE_SECONDS = 60.0  # close() waits this long for the queue; what is left stays in the journal
_OPEN: set[str] = set()  # journals open in this process (their owners are alive)


@dataclass(frozen=True)
class Queued:
    """A turn waiting for the writer: validated, in its storage scope, with its journal row."""

    seq: int
    turn: Turn
    warnings: tuple[str, ...]
    user_id: str  # the caller's user id (the turn carries the storage scope)


@dataclass
class QueueReport:
    """How the queue stands: turns written, waiting, and the ones that could not be written."""

    written: int = 0
    pending: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)  # (turn id, why)
    recovered: int = 0


class Journal:
    """Queued turns on disk until they are written (a SQLite file of its own)."""

    def __init__(self, path: str):
        self.path = path
        self.owner = f"{os.getpid()}:{id(self)}"
        try:
            self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS queued (seq INTEGER PRIMARY KEY AUTOINCREMENT, owner TEXT NOT NULL,"
                " user_id TEXT NOT NULL, turn TEXT NOT NULL, warnings TEXT NOT NULL)"
            )
        except sqlite3.DatabaseError as exc:
            raise StorageError(f"cannot open the write queue journal {path}: {exc}") from exc
        self.lock = threading.Lock()
        _OPEN.add(self.owner)

    def add(self, turn: Turn, warnings: Sequence[str], user_id: str) -> int:
        row = json.dumps(_turn_json(turn), ensure_ascii=False)
        with self.lock:
            cur = self.db.execute(
                "INSERT INTO queued (owner, user_id, turn, warnings) VALUES (?, ?, ?, ?)",
                (self.owner, user_id, row, json.dumps(list(warnings))),
            )
        return int(cur.lastrowid or 0)

    def done(self, seqs: Sequence[int]) -> None:
        with self.lock:
            self.db.executemany("DELETE FROM queued WHERE seq = ?", [(s,) for s in seqs])

    def orphans(self) -> list[Queued]:
        """Turns queued by processes that are gone (they crashed or were killed), taken over."""
        with self.lock:
            rows = self.db.execute("SELECT seq, owner, user_id, turn, warnings FROM queued ORDER BY seq").fetchall()
            dead = sorted({owner for _, owner, *_ in rows if not _alive(owner)})
            self.db.executemany("UPDATE queued SET owner = ? WHERE owner = ?", [(self.owner, o) for o in dead])
        return [
            Queued(seq, _turn_from(json.loads(turn)), tuple(json.loads(warnings)), user)
            for seq, owner, user, turn, warnings in rows
            if owner in dead
        ]

    def close(self) -> None:
        _OPEN.discard(self.owner)
        with self.lock:
            self.db.close()


def _alive(owner: str) -> bool:
    pid = int(owner.split(":")[0])
    if pid == os.getpid():
        return owner in _OPEN  # another Memory of this process, still open
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _turn_json(turn: Turn) -> dict[str, Any]:
    data = asdict(turn)
    data["timestamp"] = turn.timestamp.isoformat() if turn.timestamp else None
    return data


def _turn_from(data: dict[str, Any]) -> Turn:
    data = dict(data)
    data["timestamp"] = datetime.fromisoformat(data["timestamp"]) if data.get("timestamp") else None
    return Turn(**data)


class WriteQueue:
    """The queue, its worker thread and its hot cache (see the module doc).

    ``write`` is what the worker calls with a batch of turns: it writes them in one
    transaction, or raises (``Memory`` passes its synchronous write path).
    """

    def __init__(self, write: Callable[[list[Turn]], list[WriteResult]], journal_path: str | None):
        self._write = write
        self._journal = Journal(journal_path) if journal_path else None
        self._cond = threading.Condition()
        self._waiting: deque[Queued] = deque()
        self._busy = 0
        self._hot: dict[str, dict[str, Queued]] = {}
        self._counter = 0
        self._stopping = False
        self.report = QueueReport()
        recovered = self._journal.orphans() if self._journal else []
        for item in recovered:
            self._enqueue(item)
        self.report.recovered = len(recovered)
        if recovered:
            log.warning("write queue: %d turn(s) left queued by a process that stopped; writing them", len(recovered))
        self._thread = threading.Thread(target=self._run, name="memtracks-write-queue", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ the caller's side

    def put(self, turn: Turn, warnings: Sequence[str], user_id: str) -> WriteResult:
        """Queue a validated, scoped turn; returns at once with ``queued=True``."""
        with self._cond:
            if self._stopping:
                raise MemtracksError("the write queue is closed")
            known = self._hot.get(turn.user_id or "", {}).get(turn.turn_id or "")
        if known is not None:
            if content_hash(known.turn) != content_hash(turn):  # as a write of a stored turn would say
                raise DuplicateTurnError(
                    f"turn_id {turn.turn_id!r} is already queued for user {user_id!r} with different content; "
                    "turn ids must be unique per user"
                )
            return _queued_result(known, ("turn is already queued; nothing changed",))
        seq = self._journal.add(turn, warnings, user_id) if self._journal else 0
        with self._cond:
            if not seq:
                self._counter -= 1
                seq = self._counter
            item = Queued(seq, turn, tuple(warnings), user_id)
            self._enqueue(item)
        return _queued_result(item, ())

    def _enqueue(self, item: Queued) -> None:
        with self._cond:
            self._waiting.append(item)
            self._hot.setdefault(item.turn.user_id or "", {})[item.turn.turn_id or ""] = item
            self.report.pending += 1
            self._cond.notify_all()

    def hot(self, scope: str) -> list[Turn]:
        """The turns of ``scope`` queued and not yet written, oldest first."""
        with self._cond:
            return [q.turn for q in self._hot.get(scope, {}).values()]

    def flush(self, timeout: float | None = None) -> QueueReport:
        """Wait until every queued turn is written (or ``timeout`` seconds pass)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._waiting or self._busy:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    break
                if not self._thread.is_alive():
                    raise StorageError("the write queue's worker stopped; queued turns stay in the journal")
                self._cond.wait(left if left is not None else 1.0)
            return QueueReport(
                self.report.written, self.report.pending, list(self.report.failed), self.report.recovered
            )

    def close(self, timeout: float | None = CLOSE_SECONDS) -> QueueReport:
        """Drain the queue, stop the worker and close the journal."""
        report = self.flush(timeout)
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        self._thread.join(timeout=5)
        if self._journal:
            self._journal.close()
        if report.pending:
            log.warning("write queue closed with %d turn(s) still queued (kept in the journal)", report.pending)
        return report

    # ------------------------------------------------------------------ the worker

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._waiting and not self._stopping:
                    self._cond.wait()
                if self._stopping and not self._waiting:
                    return
                batch = [self._waiting.popleft() for _ in range(min(BATCH, len(self._waiting)))]
                self._busy = len(batch)
            written, failed = self._write_batch(batch)
            with self._cond:
                for item in written + [f for f, _ in failed]:
                    self._hot.get(item.turn.user_id or "", {}).pop(item.turn.turn_id or "", None)
                self.report.written += len(written)
                self.report.pending -= len(written) + len(failed)
                self.report.failed += [(f.turn.turn_id or "", why) for f, why in failed]
                self._busy = 0
                self._cond.notify_all()

    def _write_batch(self, batch: list[Queued]) -> tuple[list[Queued], list[tuple[Queued, str]]]:
        """Write ``batch``; a turn the writer refuses (the caller's fault) is set aside and
        reported, a storage failure is retried until it passes or the queue stops (the turns
        stay in the journal)."""
        while True:
            try:
                self._write([q.turn for q in batch])
            except StorageError as exc:
                log.warning("write queue: %s; retrying in %.1fs", exc, RETRY_SECONDS)
                with self._cond:
                    if self._stopping:
                        return [], []
                    self._cond.wait(RETRY_SECONDS)
                continue
            except MemtracksError as exc:
                if len(batch) == 1:
                    self._done(batch)
                    return [], [(batch[0], str(exc))]
                written: list[Queued] = []
                failed: list[tuple[Queued, str]] = []
                for item in batch:  # find the one that was refused
                    ok, bad = self._write_batch([item])
                    written += ok
                    failed += bad
                return written, failed
            self._done(batch)
            return batch, []

    def _done(self, batch: list[Queued]) -> None:
        if self._journal:
            self._journal.done([q.seq for q in batch if q.seq > 0])


def _queued_result(item: Queued, warnings: tuple[str, ...]) -> WriteResult:
    turn = replace(item.turn, user_id=item.user_id)
    return WriteResult(turn=turn, lang=item.turn.lang or "", warnings=(*item.warnings, *warnings), queued=True)


def admits(filters: Any, turn: Turn, as_of: datetime | None) -> bool:
    """Would ``retrieve()``'s filters (:class:`memtracks.retrieval.reader.Filters`) keep this queued turn?"""
    when = turn.timestamp
    assert when is not None
    return (
        TEMPORAL.name in filters.tracks
        and (filters.session_id is None or turn.session_id == filters.session_id)
        and (filters.start is None or when >= filters.start)
        and (filters.end is None or when < filters.end)
        and (as_of is None or when <= as_of)
        and all(turn.metadata.get(k) == v for k, v in (filters.metadata or {}).items())
    )


def hot_cards(
    turns: Sequence[Turn], question: str, embed: Callable[[list[str]], np.ndarray], drop_content_free: bool = True
) -> list[Card]:
    """Queued turns relevant to ``question`` as event cards, most relevant first; a turn that
    says nothing is no card (``FusionConfig.content_free``)."""
    if not turns:
        return []
    matrix = embed([question, *(t.text for t in turns)])
    norms = np.linalg.norm(matrix, axis=1)
    sims = matrix[1:] @ matrix[0] / np.maximum(norms[1:] * norms[0], 1e-12)
    cards = []
    hot = CardContext(default_catalogue(), HOT_CONFIDENCE, lambda premise: None, bodies=None)  # no question's cut
    for turn, sim in zip(turns, sims.tolist(), strict=True):
        if sim < HOT_RELEVANCE or (drop_content_free and content_free(turn.text)):
            continue
        lang = turn.lang or ("zh" if detect_language(turn.text) == "zh" else "en")
        event = Event(
            user_id=turn.user_id or "",
            session_id=turn.session_id or "",
            turn_id=turn.turn_id or "",
            speaker=turn.speaker,
            subject=turn.speaker,
            text=turn.text,
            lang=lang,
            mentioned_at=turn.timestamp,  # type: ignore[arg-type]
        )
        cards.append(
            Card(
                track=TEMPORAL.name,
                text=TEMPORAL.card_text(event, hot),
                score=float(sim),
                confidence=HOT_CONFIDENCE,
                source_turn_ids=(event.turn_id,),
                explain={"queued": 1.0, "relevance": float(sim)},
                lang=lang,
                memory_id=0,
                metadata={**turn.metadata, "queued": True},
            )
        )
    return sorted(cards, key=lambda c: -c.score)
