"""What ``Memory`` offers for managing what is kept, beside writing and reading: backup and
check, audit, ``forget``, ``correct``, ``retract``, ``rebuild``, ``consolidate`` and ``undo``,
``export`` (JSONL and Markdown), ``import_`` and ``import_markdown``. :class:`~memtracks.memory.Memory` hands
these to a :class:`Manage` built on its parts; the work itself is done in :mod:`memtracks.upkeep.lifecycle`, :mod:`memtracks.upkeep.transfer`,
:mod:`memtracks.upkeep.consolidation` and :mod:`memtracks.upkeep.integrity`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from memtracks.parts import Parts, Service
from memtracks.records import Fact, Turn, WriteResult
from memtracks.scopes import public, scope_key
from memtracks.upkeep import consolidation, integrity, lifecycle, transfer
from memtracks.upkeep.audit import NEAR_DUPLICATE, AuditReport, audit_scopes
from memtracks.upkeep.markdown_export import MAX_LINES, MarkdownReport, export_markdown
from memtracks.upkeep.markdown_import import MarkdownImport, import_markdown, new_turns
from memtracks.write.validation import check_aware


class Manage(Service):
    """The managing half of :class:`~memtracks.memory.Memory`, on its parts.

    ``write_many`` is the memory's own write path, which the turns of lines added to a
    MEMORY.md go through (validation, the write queue, the indexes)."""

    def __init__(self, parts: Parts, write_many: Callable[[list[Turn]], list[WriteResult]]) -> None:
        super().__init__(parts)
        self.write_many = write_many

    def backup(self, path: str | Path, *, overwrite: bool = False) -> Path:
        """Copy the whole memory, every user, to ``path`` while it stays in use: SQLite's online
        backup, consistent with what was committed (the write-ahead log included, which a plain
        file copy of an open memory misses). Open the copy with ``Memory(path)``. A Postgres
        memory is dumped with ``pg_dump`` (custom format; restore it with ``pg_restore``)."""
        with self.parts.lock:
            self.parts.store.backup(path, overwrite=overwrite)
        return Path(path)

    def check(self, *, quick: bool = False, repair: bool = False) -> integrity.CheckReport:
        """Check the file and the memories in it (:mod:`memtracks.upkeep.integrity`): SQLite's
        integrity check, the checksums of vectors and texts, and memtracks' own invariants.
        ``repair=True`` sets damaged rows aside in the quarantine (never deleted unseen), embeds
        damaged or missing vectors again, then checks once more."""
        with self.parts.lock:
            self.parts.fresh()
            report = integrity.check(self.parts, quick=quick)
            if repair and any(p.kind == "row-checksum" for p in report.problems):
                integrity.quarantine(self.parts, report)
                report = integrity.check(self.parts, quick=quick)
            if repair and any(p.kind in ("vector-checksum", "vector-missing") for p in report.problems):
                integrity.repair(self.parts, report)
                report = integrity.check(self.parts, quick=quick)
            return report

    def audit(
        self, user_id: str | None = None, *, agent_id: str | None = None, near: float = NEAR_DUPLICATE
    ) -> AuditReport:
        """Duplicate, near-duplicate, junk, stale and orphan memories of one user (or, with no
        user, of every user and agent), counted with example ids (:mod:`memtracks.upkeep.audit`)."""
        self.parts.drain(None)
        with self.parts.lock:
            self.parts.fresh()
            scopes = [scope_key(user_id, agent_id)] if user_id is not None else self.parts.store.users()
            return audit_scopes(self.parts, scopes, near)

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
        self.parts.writable()
        self.parts.drain(None)
        with self.parts.lock:
            self.parts.fresh()
            return lifecycle.forget(
                self.parts,
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
        self.parts.writable()
        self.parts.drain(None)
        with self.parts.lock:
            self.parts.fresh()
            return public(lifecycle.correct(self.parts, scope_key(user_id, agent_id), fact_id, value), user_id)

    def retract(self, user_id: str, fact_id: int, *, agent_id: str | None = None) -> Fact:
        """The user says fact ``fact_id`` was never true: it ends with reason "retracted"
        (kept as history), what it had superseded holds again, and conclusions resting on it
        are retracted. Returns the retracted fact."""
        self.parts.writable()
        self.parts.drain(None)
        with self.parts.lock:
            self.parts.fresh()
            return public(lifecycle.retract(self.parts, scope_key(user_id, agent_id), fact_id), user_id)

    def rebuild(
        self, user_id: str, *, agent_id: str | None = None, progress: bool | Callable[[int, int], None] = False
    ) -> lifecycle.RebuildReport:
        """Re-derive facts, events and conclusions from the stored turns (after rules or
        lexicons changed), replaying the user's own corrections and retractions."""
        self.parts.writable()
        self.parts.drain(None)
        with self.parts.lock:
            self.parts.fresh()
            return lifecycle.rebuild(self.parts, scope_key(user_id, agent_id), progress)

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
        place, supersede contradicted values (:mod:`memtracks.upkeep.consolidation`). Nothing is
        deleted; ``dry_run=True`` only reports (``report.diff()``); ``undo(report.operation_id)``
        takes a run back. Thresholds default to ``config.consolidation`` (0.7 and 0.9).
        ``llm``: a :class:`~memtracks.llm.ConsolidationLLM` (or an ``LLMExtractor``) that
        first reads the turns it has not read yet (:mod:`memtracks.llm`); its failures are
        reported in ``report.llm``, never raised."""
        config = self.parts.config.consolidation
        if find_threshold is not None:
            config = replace(config, find_threshold=find_threshold)
        if replace_threshold is not None:
            config = replace(config, replace_threshold=replace_threshold)
        self.parts.drain(None)
        with self.parts.lock:
            self.parts.fresh()
            return consolidation.consolidate(
                self.parts, scope_key(user_id, agent_id), dry_run=dry_run, config=config, at=self.parts.clock(), llm=llm
            )

    def undo(self, operation_id: str) -> None:
        """Restore exactly what consolidation run ``operation_id`` changed (refused, with
        nothing changed, if those memories changed since)."""
        self.parts.drain(None)
        with self.parts.lock:
            self.parts.fresh()
            consolidation.undo(self.parts, operation_id, self.parts.clock())

    def export(
        self, path: str | Path, *, user_id: str | None = None, agent_id: str | None = None, vectors: bool = True
    ) -> int:
        """Write one user's memories (or, with no user, everyone's) to a JSONL file in the
        versioned export format (:mod:`memtracks.upkeep.transfer`); returns the records written.
        ``vectors=False`` leaves vectors out: the importer embeds again."""
        self.parts.drain(None)
        with self.parts.lock:
            self.parts.fresh()
            scopes = [scope_key(user_id, agent_id)] if user_id is not None else self.parts.store.users()
            return transfer.export(self.parts, Path(path), scopes, vectors=vectors)

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
        YYYY-MM-DD.md`` (each day's turns, dates resolved); see :mod:`memtracks.upkeep.markdown_export`.
        ``lang``: "en" or "zh" for the headings (default: the language most memories are in)."""
        if now is not None:
            check_aware(now, "now")
        self.parts.drain(None)
        with self.parts.lock:
            self.parts.fresh()
            scope = scope_key(user_id, agent_id)
            when = now or self.parts.clock()
            return export_markdown(self.parts, Path(folder), scope, user_id, now=when, lang=lang, max_lines=max_lines)

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
        :mod:`memtracks.upkeep.markdown_import`. ``dry_run``: the plan (``.diff()``) without writing.
        A line that cannot be read raises :class:`MarkdownImportError` naming it, before
        anything is written."""
        if now is not None:
            check_aware(now, "now")
        if not dry_run:
            self.parts.writable()
        self.parts.drain(None)
        with self.parts.lock:
            self.parts.fresh()
            when = now or self.parts.clock()
            scope = scope_key(user_id, agent_id)
            report = import_markdown(self.parts, Path(path), scope, dry_run=dry_run)
            if not dry_run:
                added = new_turns(self.parts, scope, report, when)
                if added:
                    self.write_many(added)
            return report

    def import_(self, path: str | Path, *, user_id: str | None = None) -> transfer.ImportReport:
        """Read an export file: history, validity, provenance and vectors come back as they
        were (ids too, where this store has them free). ``user_id`` files everything under
        that user instead. A user who already has memories here is refused."""
        self.parts.writable()
        self.parts.drain(None)
        with self.parts.lock:
            self.parts.fresh()
            return transfer.import_(self.parts, Path(path), user_id=user_id)
