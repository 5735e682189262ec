"""``memtracks check``: is the file sound, and does what it holds still hang together?

Three layers, each reported as :class:`Problem` records (nothing is changed):

1. **the file**: SQLite's own ``integrity_check`` (``quick=True``: ``quick_check``), and the
   header that marks it a memtracks file of this schema version;
2. **the checksums**: every stored turn, fact, event, conclusion and store item against its
   row checksum (a changed byte in any of its values: a fact's value, a date), every stored
   vector against its CRC-32, every turn against the hash of its content, every fact, event
   and conclusion against the hash of the text its vector was made from;
3. **the invariants**: every fact, event and conclusion has its vector and no vector is left
   without one; every event has its turn, every fact its source turns, every conclusion its
   premises; supersede chains point to existing facts and have no cycles; chain links join
   existing events, earlier to later (so the chain cannot loop); the lookup tables of entity
   keys, happening kinds and premises match the rows they index.

:func:`quarantine` sets damaged rows aside (table ``quarantine``: the row's values as found,
when and why) so the rest of the store works without them; :func:`repair` embeds again the
vectors that are damaged or missing (the texts are the source of truth); anything else calls
for a backup (:meth:`Memory.backup`).
"""

from __future__ import annotations

import hashlib
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memtracks.scopes import SEPARATOR, split_scope
from memtracks.storage import audit, codec
from memtracks.storage.schema import APPLICATION_ID
from memtracks.tracks import named
from memtracks.tracks.facts import fact_sentence
from memtracks.tracks.temporal import event_text
from memtracks.write.validation import content_hash

if TYPE_CHECKING:
    from memtracks.parts import Parts

PSEUDO_TURNS = ("user.",)  # corrections and retractions stand in for a turn id with "user.correct"...


@dataclass(frozen=True)
class Problem:
    """One thing wrong: ``kind`` (a short code), whose memories, and what exactly."""

    kind: str
    detail: str
    user_id: str | None = None
    agent_id: str | None = None
    track: str | None = None
    item_id: int | None = None

    def __str__(self) -> str:
        who = f" [{self.user_id}{'/' + self.agent_id if self.agent_id else ''}]" if self.user_id is not None else ""
        return f"{self.kind}{who}: {self.detail}"


@dataclass
class CheckReport:
    """What :func:`check` found; ``ok`` when nothing."""

    path: str
    problems: list[Problem] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "ok": self.ok,
            "counts": self.counts,
            "seconds": round(self.seconds, 3),
            "problems": [{k: v for k, v in vars(p).items() if v is not None} for p in self.problems],
        }


def _sha1(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


def check(parts: Parts, *, quick: bool = False) -> CheckReport:
    """Check the file and every scope in it (see the module docstring)."""
    start = time.perf_counter()
    report = CheckReport(parts.store.path)
    store = parts.store
    report.problems += [Problem("sqlite", error) for error in audit.integrity_errors(store, quick=quick)]
    application, version = audit.header(store)
    expected = store.schema_version
    if application != APPLICATION_ID or version != expected:
        report.problems.append(
            Problem(
                "header",
                f"application_id {application:#x}, schema {version} (expected {APPLICATION_ID:#x}, {expected})",
            )
        )
    scopes = audit.scopes(store)
    for scope in scopes:
        if not _check_rows(store, scope, report):  # a damaged row first: the rest reads records
            _check_scope(parts, scope, report)
    report.counts["scopes"] = len(scopes)
    report.counts["quarantined"] = store._rows("SELECT COUNT(*) FROM quarantine")[0][0]
    report.seconds = time.perf_counter() - start
    return report


ROW_TRACKS = {
    "facts": "fact",
    "events": "event",
    "inferences": "inference",
    "turns": "turn",
    "items": "item",
    "names": "name",
}


def _check_rows(store: Any, scope: str, report: CheckReport) -> bool:
    """Every row of ``scope`` against its checksum; True if any is damaged (reported, and the
    scope's other checks wait: they read the rows as records, which refuses a damaged one)."""
    user, agent = split_scope(scope)
    damaged = audit.damaged_rows(store, scope)
    for table, row in damaged:
        item = row.get("id") if isinstance(row.get("id"), int) else None
        key = item if item is not None else row.get("turn_id", row.get("key"))
        report.problems.append(
            Problem(
                "row-checksum",
                f"{table} row {key!r} no longer matches its checksum (a changed byte); "
                "check --repair sets it aside in the quarantine",
                user,
                agent,
                ROW_TRACKS[table],
                item,
            )
        )
    if damaged:
        report.problems.append(
            Problem("row-checksum", "the scope's other checks wait until its damaged rows are repaired", user, agent)
        )
    return bool(damaged)


def _check_scope(parts: Parts, scope: str, report: CheckReport) -> None:
    store = parts.store
    user, agent = split_scope(scope)

    def problem(kind: str, detail: str, track: str | None = None, item: int | None = None) -> None:
        report.problems.append(Problem(kind, detail, user, agent, track, item))

    aside = audit.quarantined(store, scope)  # rows set aside: what points to them is no problem
    turns = store.turns(scope)
    turn_ids = {r["turn_id"] for r in turns} | aside["turns"]
    for r in turns:
        if r["content_hash"] != content_hash(codec.row_turn(r, scope)):
            problem("turn-hash", f"turn {r['turn_id']!r}: its content does not match its hash")
    facts = {f.id: f for f in store.facts(scope)}
    events = {e.id: e for e in store.events(scope)}
    inferences = {i.id: i for i in store.inferences(scope)}
    texts = {
        "fact": {i: fact_sentence(f, parts.toolkit.catalogue) for i, f in facts.items()},
        "event": {i: event_text(e, parts.config.writer) for i, e in events.items()},
        "inference": {i: x.text for i, x in inferences.items()},
    }
    for e in events.values():
        if e.turn_id not in turn_ids:
            problem("event-turn", f"event #{e.id} has no turn {e.turn_id!r}", "event", e.id)
    for f in facts.values():
        missing = [t for t in f.source_turn_ids if t not in turn_ids and not t.startswith(PSEUDO_TURNS)]
        if missing:
            problem("fact-turn", f"fact #{f.id} rests on missing turn(s) {missing[:3]}", "fact", f.id)
    _check_chains(facts, problem, {int(i) for i in aside["facts"]})
    for i in inferences.values():
        gone = [
            f"{p.track}#{p.id}"
            for p in i.premises
            if p.id not in (facts if p.on_fact else events) and str(p.id) not in aside[p.track + "s"]
        ]
        if gone:
            problem("premise", f"conclusion #{i.id} rests on missing {', '.join(gone[:3])}", "inference", i.id)
    _check_vectors(store, scope, texts, problem)
    _check_links(store, scope, events, problem)
    _check_lookups(store, scope, events, inferences, problem)
    for track, items in texts.items():
        report.counts[track + "s"] = report.counts.get(track + "s", 0) + len(items)
    report.counts["turns"] = report.counts.get("turns", 0) + len(turns)


def _check_chains(facts: dict[Any, Any], problem: Any, aside: set[int] = frozenset()) -> None:  # type: ignore[assignment]
    for f in facts.values():
        if f.superseded_by is not None and f.superseded_by not in facts and f.superseded_by not in aside:
            problem("supersede", f"fact #{f.id} is superseded by a missing fact #{f.superseded_by}", "fact", f.id)
        seen, node = set(), f
        while node is not None and node.superseded_by is not None:
            if node.id in seen:
                problem("supersede-cycle", f"the supersede chain through fact #{f.id} loops", "fact", f.id)
                break
            seen.add(node.id)
            node = facts.get(node.superseded_by)


def _check_vectors(store: Any, scope: str, texts: dict[str, dict[Any, str]], problem: Any) -> None:
    for track, items in texts.items():
        have = set()
        for item_id, text_hash, sound in audit.vectors(store, scope, track):
            have.add(item_id)
            if not sound:
                problem("vector-checksum", f"the vector of {track} #{item_id} is damaged", track, item_id)
            elif item_id not in items:
                problem(
                    "vector-orphan", f"a vector is stored for {track} #{item_id}, which does not exist", track, item_id
                )
            elif _sha1(items[item_id]) != text_hash:
                problem(
                    "text-hash",
                    f"{track} #{item_id} no longer reads as the text its vector was made from "
                    "(damaged, or the slot labels changed: run rebuild)",
                    track,
                    item_id,
                )
        for item_id in sorted(set(items) - have):
            problem("vector-missing", f"{track} #{item_id} has no vector", track, item_id)


def _check_links(store: Any, scope: str, events: dict[Any, Any], problem: Any) -> None:
    for src, dst, kind, _ in store.links(scope):
        if src not in events or dst not in events:
            problem("link", f"chain link {src}->{dst} ({kind}) joins a missing event", "event", dst)
        elif src >= dst:
            problem("link-order", f"chain link {src}->{dst} ({kind}) runs backwards", "event", dst)


def _check_lookups(store: Any, scope: str, events: dict[Any, Any], inferences: dict[Any, Any], problem: Any) -> None:
    keys, kinds = audit.event_lookups(store, scope)
    for event_id in sorted(set(events) | set(keys) | set(kinds)):
        event = events.get(event_id)
        if (
            event is None
            or keys.get(event_id, set()) != set(event.entity_keys)
            or kinds.get(event_id, set()) != set(event.kinds)
        ):
            problem(
                "event-index", f"the entity/kind lookups of event #{event_id} do not match the event", "event", event_id
            )
    premises = audit.premise_lookups(store, scope)
    for inference_id in sorted(set(inferences) | set(premises)):
        found = inferences.get(inference_id)
        if found is None or premises.get(inference_id, set()) != {(p.track, p.id) for p in found.premises}:
            problem(
                "premise-index",
                f"the premise lookup of conclusion #{inference_id} does not match it",
                "inference",
                inference_id,
            )


def quarantine(parts: Parts, report: CheckReport) -> int:
    """Set aside every row ``report`` found damaged: its values as found go to the quarantine
    table (with when and why), never deleted unseen; the rest of the store works without it.
    Returns how many rows."""
    scopes = sorted({_scope(p) for p in report.problems if p.kind == "row-checksum"})
    done = 0
    at = parts.clock().isoformat()
    with parts.store.transaction():
        for scope in scopes:
            for table, row in audit.damaged_rows(parts.store, scope):
                audit.quarantine(parts.store, scope, table, row, "row checksum does not match its values", at)
                done += 1
            parts.store.bump_generation(scope)  # other processes rebuild what they hold of it
    for scope in scopes:
        parts.indexes.evict(scope)
    parts.writer.reset_caches()
    return done


def _scope(p: Problem) -> str:
    assert p.user_id is not None
    return p.user_id if p.agent_id is None else f"{p.user_id}{SEPARATOR}{p.agent_id}"


def repair(parts: Parts, report: CheckReport) -> int:
    """Embed again every vector ``report`` found damaged or missing; returns how many."""
    todo: dict[tuple[str, str], list[int]] = defaultdict(list)
    for p in report.problems:
        if p.kind in ("vector-checksum", "vector-missing") and p.user_id is not None and p.track and p.item_id:
            scope = p.user_id if p.agent_id is None else f"{p.user_id}{SEPARATOR}{p.agent_id}"
            todo[(scope, p.track)].append(p.item_id)
    done = 0
    with parts.store.transaction():
        for (scope, track), ids in todo.items():
            texts = _texts(parts, scope, track, ids)
            vectors = parts.embedder.embed_batch([texts[i] for i in ids if i in texts])
            items = [(i, _sha1(texts[i]), v) for i, v in zip([i for i in ids if i in texts], vectors, strict=True)]
            parts.store.save_vectors(scope, track, items)
            done += len(items)
    for scope, _ in todo:
        parts.indexes.evict(scope)
    return done


def _texts(parts: Parts, scope: str, track: str, ids: list[int]) -> dict[int, str]:
    kind = named(track)
    catalogue, config = parts.toolkit.catalogue, parts.config.writer
    return {r.id: kind.indexed(r, catalogue, config)[0] for r in kind.by_ids(parts.store, scope, ids)}


def describe(report: CheckReport) -> str:
    """The report as text, one problem per line."""
    head = f"{report.path}: {'ok' if report.ok else f'{len(report.problems)} problem(s)'}"
    counts = ", ".join(f"{v} {k}" for k, v in report.counts.items())
    return "\n".join([f"{head} ({counts}; {report.seconds:.1f} s)", *(f"  - {p}" for p in report.problems)])
