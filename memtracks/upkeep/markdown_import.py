"""``Memory.import_markdown()`` / ``memtracks import-md``: an edited MEMORY.md read back.

``export-md`` names each fact's line (``<!-- fact:12 -->``) and, on the as-of line, the moment
it was written and the facts it holds. Reading the edited file back, line by line:

- a fact's line left as it was changes nothing;
- a fact's line whose value was edited ("- lives in: Lisbon" → "- lives in: Porto")
  corrects that fact (:meth:`Memory.correct`: the old value kept as history);
- a fact's line deleted retracts that fact (:meth:`Memory.retract`: never a hard delete);
- a new bullet line ("- I'm vegetarian", "- 我对花生过敏") is written as a turn the user said,
  with metadata saying it came from the markdown file and which line, so the usual
  extraction makes user-stated facts of it and every card from it says where it came from.

Facts that changed in the store since the export (superseded, corrected, retracted) are left
alone and reported. Everything is parsed and checked before anything is written: a line
that cannot be read (a fact marker on something that is not a fact line, a fact the file
did not hold, the same fact twice, a line that is neither a bullet, a heading, a note nor
blank) is a :class:`MarkdownImportError` naming the file and line, and nothing changes.
``dry_run`` returns the same plan without writing.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from memtracks.errors import MarkdownImportError
from memtracks.records import Fact, Turn
from memtracks.scopes import split_scope
from memtracks.tracks.facts import value_at
from memtracks.upkeep import lifecycle
from memtracks.upkeep.markdown_export import MANIFEST, MARKER, fact_line

if TYPE_CHECKING:
    from memtracks.parts import Parts

_MANIFEST = re.compile(rf"<!--\s*{MANIFEST}\s+at=(\S+)\s+facts=([\d,]*)\s*-->")
SESSION = "MEMORY.md"  # the session the turns of new lines are written in


@dataclass(frozen=True)
class Change:
    """One thing the import does: "correct", "retract", "add", or "skip" (why in ``note``)."""

    kind: str
    line: int  # 1-based line of the file (0 for a deleted line)
    fact_id: int | None = None
    old: str = ""
    new: str = ""
    note: str = ""


@dataclass
class MarkdownImport:
    """What :func:`import_markdown` did (or would do, with ``dry_run``)."""

    path: Path
    dry_run: bool
    changes: list[Change] = field(default_factory=list)
    untouched: int = 0

    def count(self, kind: str) -> int:
        return sum(c.kind == kind for c in self.changes)

    def diff(self) -> str:
        """The changes as a short diff: ``-`` the line as exported, ``+`` as edited."""
        head = "would change" if self.dry_run else "changed"
        out = [
            f"{head}: {self.count('correct')} corrected, {self.count('retract')} retracted, "
            f"{self.count('add')} added, {self.count('skip')} skipped; {self.untouched} line(s) untouched"
        ]
        for c in self.changes:
            where = f"line {c.line}" if c.line else "deleted line"
            fact = f" fact:{c.fact_id}" if c.fact_id is not None else ""
            out.append(f"{c.kind}{fact} ({where}){': ' + c.note if c.note else ''}")
            out += [f"  - {c.old}"] if c.old else []
            out += [f"  + {c.new}"] if c.new else []
        return "\n".join(out)


def memory_file(path: Path) -> Path:
    """``path`` itself, or the MEMORY.md in it when it is a folder."""
    return path / "MEMORY.md" if path.is_dir() else path


def import_markdown(parts: Parts, path: Path, scope: str, *, dry_run: bool = False) -> MarkdownImport:
    """Read an edited MEMORY.md back into ``scope`` (see the module doc): corrections and
    retractions are made here, unless ``dry_run``; the turns of added lines are for the caller
    to write (:func:`new_turns`), through the memory's own write path."""
    path = memory_file(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise MarkdownImportError(f"{path}: cannot be read as UTF-8 text ({exc})") from None
    at, exported = _manifest(path, lines)
    facts = {f.id: f for f in parts.store.facts_by_id(scope, exported)}
    report = MarkdownImport(path, dry_run)
    seen: set[int] = set()
    for number, line in enumerate(lines, 1):
        change = _read_line(parts, path, number, line, at, exported, facts, seen)
        if change is None:
            report.untouched += line.lstrip().startswith("- ") and MARKER.search(line) is not None
        else:
            report.changes.append(change)
    for fact_id in exported:
        if fact_id not in seen:
            report.changes.append(_deleted(parts, facts.get(fact_id), fact_id, at))
    if not dry_run:
        _apply(parts, scope, report)
    return report


def _manifest(path: Path, lines: list[str]) -> tuple[datetime, list[int]]:
    for line in lines[:8]:
        found = _MANIFEST.search(line)
        if found:
            try:
                at = datetime.fromisoformat(found.group(1))
            except ValueError:
                break
            return at, [int(i) for i in found.group(2).split(",") if i]
    raise MarkdownImportError(
        f"{path}: no '<!-- {MANIFEST} at=... facts=... -->' comment in its first lines; "
        "only a MEMORY.md written by export-md (with that comment kept) can be read back"
    )


def _read_line(
    parts: Parts,
    path: Path,
    number: int,
    line: str,
    at: datetime,
    exported: list[int],
    facts: dict[int | None, Fact],
    seen: set[int],
) -> Change | None:
    text = line.strip()
    if not text or text.startswith(("#", "_", "<!--")):
        return None  # blank, a heading, a note (as-of, left out, nothing yet), a comment
    if not text.startswith(("- ", "* ")):
        raise MarkdownImportError(
            f"{path}, line {number}: {text[:60]!r} is not a '- ' bullet, a heading, a note or blank; "
            "write a new memory as a bullet line"
        )
    found = MARKER.search(text)
    if found is None:
        body = text[2:].strip()
        return Change("add", number, new=body) if body else None
    if not found.group(1).isdigit():
        raise MarkdownImportError(f"{path}, line {number}: 'fact:{found.group(1)}' does not name a fact by its number")
    fact_id = int(found.group(1))
    if fact_id not in exported:
        raise MarkdownImportError(
            f"{path}, line {number}: fact:{fact_id} is not one of the facts this file was written with"
        )
    if fact_id in seen:
        raise MarkdownImportError(f"{path}, line {number}: fact:{fact_id} is on more than one line")
    seen.add(fact_id)
    edited = text[: found.start()].rstrip()
    fact = facts.get(fact_id)
    if fact is None:
        return Change("skip", number, fact_id, note="erased since the export")
    exported_line = fact_line(fact, parts.toolkit.catalogue, at)
    if edited == exported_line:
        return None
    value = _edited_value(path, number, edited, exported_line, fact, at)
    if value == value_at(fact, at):
        return None  # the wording around the value changed, not what the fact says
    if fact.superseded_by is not None or fact.valid_to is not None:
        return Change("skip", number, fact_id, exported_line, edited, "it changed in memory since the export")
    return Change("correct", number, fact_id, value_at(fact, at), value)


def _edited_value(path: Path, number: int, edited: str, exported_line: str, fact: Fact, at: datetime) -> str:
    """The value in an edited fact line: what stands where the exported line had the value."""
    value = value_at(fact, at)
    start = exported_line.find(value) if value else -1
    if start < 0:
        raise MarkdownImportError(
            f"{path}, line {number}: fact:{fact.id} has no value to edit; delete the line instead"
        )
    before, after = exported_line[:start], exported_line[start + len(value) :]
    if edited.startswith(before) and edited.endswith(after) and len(edited) > len(before) + len(after):
        return edited[len(before) : len(edited) - len(after)].strip()
    label = edited.split("：" if fact.lang == "zh" else ":", 1)
    if len(label) == 2 and label[1].strip():  # the date note was edited or removed too
        rest = re.sub(r"\s*[（(][^（(]*[）)]\s*$", "", label[1]).strip()
        if rest:
            return rest
    raise MarkdownImportError(
        f"{path}, line {number}: cannot tell the new value of fact:{fact.id} in {edited[:80]!r}; "
        f"keep the line's shape ({exported_line[:80]!r}) and change the value only"
    )


def _deleted(parts: Parts, fact: Fact | None, fact_id: int, at: datetime) -> Change:
    if fact is None:
        return Change("skip", 0, fact_id, note="erased since the export")
    line = fact_line(fact, parts.toolkit.catalogue, at)
    if fact.superseded_by is not None or fact.valid_to is not None:
        return Change("skip", 0, fact_id, line, note="it changed in memory since the export")
    return Change("retract", 0, fact_id, line)


def _apply(parts: Parts, scope: str, report: MarkdownImport) -> None:
    """The corrections and retractions of ``report`` (the added lines are turns to write:
    :func:`new_turns`)."""
    for change in report.changes:
        if change.kind == "correct" and change.fact_id is not None:
            lifecycle.correct(parts, scope, change.fact_id, change.new)
        elif change.kind == "retract" and change.fact_id is not None:
            lifecycle.retract(parts, scope, change.fact_id)


def new_turns(parts: Parts, scope: str, report: MarkdownImport, now: datetime) -> list[Turn]:
    """The turns the added lines of ``report`` become: said by the user at ``now`` in session
    "MEMORY.md", metadata ``source="markdown"``; a line imported before is left out."""
    user_id, agent_id = split_scope(scope)
    return [
        Turn(
            c.new,
            user_id=user_id,
            agent_id=agent_id,
            session_id=SESSION,
            turn_id=_turn_id(scope, c.new),
            speaker="user",
            timestamp=now,
            metadata={"source": "markdown", "file": report.path.name, "line": c.line},
        )
        for c in report.changes
        if c.kind == "add" and parts.store.turn(scope, _turn_id(scope, c.new)) is None
    ]


def _turn_id(scope: str, text: str) -> str:
    """The same new line imported twice is one turn."""
    return "md-" + hashlib.sha1(f"{scope}\n{text}".encode()).hexdigest()[:16]
