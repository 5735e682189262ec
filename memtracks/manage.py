"""What ``Memory`` offers for managing what is kept, beside writing and reading: backup and
check, audit, ``forget``, ``correct``, ``retract``, ``rebuild``, ``consolidate`` and ``undo``,
``export`` (JSONL and Markdown), ``import_`` and ``import_markdown``. :class:`~memtracks.memory.Memory` inherits
these; the work itself is done in :mod:`memtracks.lifecycle`, :mod:`memtracks.transfer`,
:mod:`memtracks.consolidation` and :mod:`memtracks.integrity`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from . import consolidation, integrity, lifecycle, transfer
from .audit import NEAR_DUPLICATE, AuditReport, audit_scopes
from .markdown_export import MAX_LINES, MarkdownReport, export_markdown
from .markdown_import import MarkdownImport, import_markdown
from .memory_part import MemoryPart
from .records import Fact
from .scopes import public, scope_key
from .validation import check_aware


class Managing(MemoryPart):
    """The managing half of :class:`~memtracks.memory.Memory` (a mixin: it relies on the
    store, indexes, writer, lock and clock that ``Memory`` sets up)."""

    def backup(self, path: str | Path, *, overwrite: bool = False) -> Path:
        """Copy the whole memory, every user, to ``path`` while it stays in use: SQLite's online
        backup, consistent with what was committed (the write-ahead log included, which a plain
        file copy of an open memory misses). Open the copy with ``Memory(path)``. A Postgres
        memory is dumped with ``pg_dump`` (custom format; restore it with ``pg_restore``)."""
        with self._lock:
            self.store.backup(path, overwrite=overwrite)
        return Path(path)

    def check(self, *, quick: bool = False, repair: bool = False) -> integrity.CheckReport:
        """Check the file and the memories in it (:mod:`memtracks.integrity`): SQLite's
        integrity check, the checksums of vectors and texts, and memtracks' own invariants.
        ``repair=True`` sets damaged rows aside in the quarantine (never deleted unseen), embeds
        damaged or missing vectors again, then checks once more."""
        with self._lock:
            self._fresh()
            report = integrity.check(self._memory, quick=quick)
            if repair and any(p.kind == "row-checksum" for p in report.problems):
                integrity.quarantine(self._memory, report)
                report = integrity.check(self._memory, quick=quick)
            if repair and any(p.kind in ("vector-checksum", "vector-missing") for p in report.problems):
                integrity.repair(self._memory, report)
                report = integrity.check(self._memory, quick=quick)
            return report

    def audit(
        self, user_id: str | None = None, *, agent_id: str | None = None, near: float = NEAR_DUPLICATE
    ) -> AuditReport:
        """Duplicate, near-duplicate, junk, stale and orphan memories of one user (or, with no
        user, of every user and agent), counted with example ids (:mod:`memtracks.audit`)."""
        self._drain()
        with self._lock:
            self._fresh()
            scopes = [scope_key(user_id, agent_id)] if user_id is not None else self.store.users()
            return audit_scopes(self._memory, scopes, near)

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
                self._memory,
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
            return public(lifecycle.correct(self._memory, scope_key(user_id, agent_id), fact_id, value), user_id)

    def retract(self, user_id: str, fact_id: int, *, agent_id: str | None = None) -> Fact:
        """The user says fact ``fact_id`` was never true: it ends with reason "retracted"
        (kept as history), what it had superseded holds again, and conclusions resting on it
        are retracted. Returns the retracted fact."""
        self._writable()
        self._drain()
        with self._lock:
            self._fresh()
            return public(lifecycle.retract(self._memory, scope_key(user_id, agent_id), fact_id), user_id)

    def rebuild(
        self, user_id: str, *, agent_id: str | None = None, progress: bool | Callable[[int, int], None] = False
    ) -> lifecycle.RebuildReport:
        """Re-derive facts, events and conclusions from the stored turns (after rules or
        lexicons changed), replaying the user's own corrections and retractions."""
        self._writable()
        self._drain()
        with self._lock:
            self._fresh()
            return lifecycle.rebuild(self._memory, scope_key(user_id, agent_id), progress)

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
                self._memory, scope_key(user_id, agent_id), dry_run=dry_run, config=config, at=self.clock(), llm=llm
            )

    def undo(self, operation_id: str) -> None:
        """Restore exactly what consolidation run ``operation_id`` changed (refused, with
        nothing changed, if those memories changed since)."""
        self._drain()
        with self._lock:
            self._fresh()
            consolidation.undo(self._memory, operation_id, self.clock())

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
            return transfer.export(self._memory, Path(path), scopes, vectors=vectors)

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
            return export_markdown(self._memory, Path(folder), scope, user_id, now=when, lang=lang, max_lines=max_lines)

    def import_markdown(
        self,
        path: str | Path,
        user_id: str,
        *,
        agent_id: str | None = None,
        now: datetime | None = None,
        dry_run: bool = False,
    ) -> MarkdownImport:
        """Read an edited ``MEMORY.md`` (or the one in folder ``path``) written by
        :meth:`export_markdown` back: a deleted fact line retracts the fact, an edited value
        corrects it, a new bullet line is written as a turn the user said (metadata
        ``source="markdown"``), untouched lines change nothing; see
        :mod:`memtracks.markdown_import`. ``dry_run``: the plan (``.diff()``) without writing.
        A line that cannot be read raises :class:`MarkdownImportError` naming it, before
        anything is written."""
        if now is not None:
            check_aware(now, "now")
        if not dry_run:
            self._writable()
        self._drain()
        with self._lock:
            self._fresh()
            when = now or self.clock()
            return import_markdown(self._memory, Path(path), scope_key(user_id, agent_id), now=when, dry_run=dry_run)

    def import_(self, path: str | Path, *, user_id: str | None = None) -> transfer.ImportReport:
        """Read an export file: history, validity, provenance and vectors come back as they
        were (ids too, where this store has them free). ``user_id`` files everything under
        that user instead. A user who already has memories here is refused."""
        self._writable()
        self._drain()
        with self._lock:
            self._fresh()
            return transfer.import_(self._memory, Path(path), user_id=user_id)
