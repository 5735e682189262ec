"""``Memory.audit()`` / ``memtracks audit``: how healthy a memory is, per user.

Five counts, each with the ids of the memories it counts (``examples``), so a finding can be
looked at with ``memtracks get``:

duplicate
    the same memory stored twice: current facts with the same subject, slot and value; events
    of one speaker with the same words (case, spacing and punctuation aside); active
    conclusions of the same rule with the same text. Counted as the copies beyond the first.
near_duplicate
    a memory whose embedding (the stored vector, cosine) is at least ``near`` (default 0.9)
    to an earlier one without being a duplicate: an event of the same speaker, or a current
    fact about the same subject and slot with another value.
junk
    facts (current or not: a junk fact may have superseded a real one) resting only on turns the write gate (:mod:`memtracks.write.gate`) finds to be
    noise — tool output, paths, command logs, greetings, recalled memory blocks — or whose
    value is itself such noise (a path, a URL). Stores written before the gate, or with it
    off, have them.
stale
    superseded and still ranked: a current fact of a one-value slot (``lives_in``...) while a
    later current value of the same subject and slot exists — the later one should have
    superseded it, and both are retrieved.
orphan
    an active conclusion that has lost a premise: a fact that no longer holds or is gone, or
    an event that is gone or whose happening was cancelled.

``noise_turns`` (turns the gate blocks; they are stored on purpose, as events) is reported
beside, as information.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from memtracks.records import Event, Fact, Inference
from memtracks.scopes import split_scope

if TYPE_CHECKING:
    from memtracks.parts import Parts

CATEGORIES = ("duplicate", "near_duplicate", "junk", "stale", "orphan")
NEAR_DUPLICATE = 0.9  # cosine at or above which two memories are near-duplicates
MAX_EXAMPLES = 20  # ids kept per category and user
_BLOCK = 2048  # rows per block of the pairwise similarity


@dataclass
class UserAudit:
    """The audit of one user's (or one agent's) memories."""

    user_id: str
    agent_id: str | None
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CATEGORIES, 0))
    examples: dict[str, list[str]] = field(default_factory=lambda: {c: [] for c in CATEGORIES})
    memories: dict[str, int] = field(default_factory=dict)
    noise_turns: int = 0

    def add(self, category: str, refs: Iterable[str]) -> None:
        for ref in refs:
            self.counts[category] += 1
            if len(self.examples[category]) < MAX_EXAMPLES:
                self.examples[category].append(ref)

    @property
    def problems(self) -> int:
        return sum(self.counts.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "user_id": self.user_id,
            "agent_id": self.agent_id,
            "memories": self.memories,
            "counts": self.counts,
            "noise_turns": self.noise_turns,
            "examples": {c: refs for c, refs in self.examples.items() if refs},
        }


@dataclass
class AuditReport:
    """What :meth:`Memory.audit` found, user by user."""

    users: list[UserAudit]
    near: float = NEAR_DUPLICATE

    @property
    def totals(self) -> dict[str, int]:
        return {c: sum(u.counts[c] for u in self.users) for c in CATEGORIES}

    def to_dict(self) -> dict[str, Any]:
        return {"near_duplicate_cosine": self.near, "totals": self.totals, "users": [u.to_dict() for u in self.users]}

    def to_text(self) -> str:
        width = max([len(_who(u)) for u in self.users] + [4])
        head = f"{'user':<{width}}  " + "  ".join(CATEGORIES) + "  noise_turns"
        lines = [head]
        for u in self.users:
            row = "  ".join(f"{u.counts[c]:>{len(c)}}" for c in CATEGORIES)
            lines.append(f"{_who(u):<{width}}  {row}  {u.noise_turns:>11}")
        totals = self.totals
        lines.append(f"{'all':<{width}}  " + "  ".join(f"{totals[c]:>{len(c)}}" for c in CATEGORIES))
        for u in self.users:
            for c in CATEGORIES:
                if u.examples[c]:
                    more = u.counts[c] - len(u.examples[c])
                    tail = f" (+{more} more)" if more > 0 else ""
                    lines.append(f"  {_who(u)} {c}: {', '.join(u.examples[c])}{tail}")
        return "\n".join(lines)


def _who(u: UserAudit) -> str:
    return u.user_id if u.agent_id is None else f"{u.user_id}/{u.agent_id}"


def _normal(text: str, simplify: Callable[[str], str] = str) -> str:
    """Words only, case-folded, Chinese in Simplified: "I moved to Paris!" and "i moved to
    paris" are the same, and so are 去了圖書館 and 去了图书馆."""
    text = simplify(unicodedata.normalize("NFKC", text).casefold())
    return " ".join(re.findall(r"\w+", text))


def audit_scopes(parts: Parts, scopes: Sequence[str], near: float = NEAR_DUPLICATE) -> AuditReport:
    """Audit the given storage scopes of ``memory`` (see the module doc for the categories)."""

    users = []
    for scope in scopes:
        user, agent = split_scope(scope)
        report = UserAudit(user, agent)
        _audit_scope(parts, scope, report, near)
        users.append(report)
    return AuditReport(users, near)


def _audit_scope(parts: Parts, scope: str, report: UserAudit, near: float) -> None:
    store, catalogue = parts.store, parts.toolkit.catalogue
    facts = store.facts(scope)
    events = store.events(scope)
    inferences = store.inferences(scope)
    report.memories = {"facts": len(facts), "events": len(events), "inferences": len(inferences)}
    current = [f for f in facts if f.is_current]
    noise = noise_turns(parts, scope, events)
    report.noise_turns = len(noise)
    clean_events = [e for e in events if e.turn_id not in noise]
    report.add("duplicate", _duplicate_facts(current))
    simplify = parts.toolkit.lexicons.to_simplified
    report.add("duplicate", _duplicate_events(clean_events, simplify))
    report.add("duplicate", _duplicate_inferences([i for i in inferences if i.is_active]))
    report.add("near_duplicate", _near_events(parts, scope, clean_events, near, simplify))
    report.add("near_duplicate", _near_facts(parts, scope, current, near))
    report.add("junk", _junk_facts(parts, facts, noise))
    report.add("stale", _stale_facts(current, catalogue.is_single))
    report.add("orphan", _orphans(inferences, {f.id: f for f in facts}, {e.id: e for e in events}))


def noise_turns(parts: Parts, scope: str, events: Sequence[Event]) -> set[str]:
    """The turn ids of ``events`` whose turn the write gate finds to be nothing but noise."""
    texts = parts.store.turn_texts(scope, [e.turn_id for e in events])
    return {turn_id for turn_id, text in texts.items() if _screen(parts, text).blocked}


def _screen(parts: Parts, text: str) -> Any:
    """The gate's view of ``text`` (whether or not this Memory writes through the gate)."""
    return parts.toolkit.gate.screen(text, parts.toolkit.lexicons.to_simplified)


def _duplicate_facts(facts: Sequence[Fact]) -> Iterable[str]:
    seen: set[tuple[str, str, str, bool]] = set()
    for f in facts:
        key = (f.subject, f.slot, f.value_key, f.negated)
        if key in seen:
            yield f"fact:{f.id}"
        seen.add(key)


def _duplicate_events(events: Sequence[Event], simplify: Callable[[str], str]) -> Iterable[str]:
    seen: set[tuple[str, str]] = set()
    for e in events:
        key = (e.speaker, _normal(e.text, simplify))
        if not key[1]:
            continue
        if key in seen:
            yield f"event:{e.id}"
        seen.add(key)


def _duplicate_inferences(inferences: Sequence[Inference]) -> Iterable[str]:
    seen: set[tuple[str, str, str]] = set()
    for i in inferences:
        key = (i.rule_id, i.subject, _normal(i.text))
        if key in seen:
            yield f"inference:{i.id}"
        seen.add(key)


def _vectors(parts: Parts, scope: str, track: str, ids: Sequence[int]) -> tuple[list[int], np.ndarray]:
    stored_ids, matrix = parts.store.vectors(scope, track)
    wanted = set(ids)
    rows = [i for i, item in enumerate(stored_ids.tolist()) if item in wanted]
    if not rows:
        return [], np.zeros((0, 0), dtype=np.float32)
    chosen = matrix[rows]
    norms = np.linalg.norm(chosen, axis=1, keepdims=True)
    return [int(stored_ids[i]) for i in rows], chosen / np.maximum(norms, 1e-12)


def _near_pairs(vectors: np.ndarray, near: float) -> Iterable[tuple[int, int]]:
    """``(later, earlier)`` row pairs with cosine >= ``near``, computed block by block."""
    for start in range(0, len(vectors), _BLOCK):
        block = vectors[start : start + _BLOCK]
        sims = block @ vectors[: start + len(block)].T
        for r, c in zip(*np.nonzero(sims >= near), strict=True):
            if c < start + r:
                yield start + int(r), int(c)


def _near_events(
    parts: Parts, scope: str, events: Sequence[Event], near: float, simplify: Callable[[str], str]
) -> Iterable[str]:
    by_id = {e.id: e for e in events if e.id is not None}
    ids, vectors = _vectors(parts, scope, "event", list(by_id))
    found: set[int] = set()
    for later, earlier in _near_pairs(vectors, near):
        a, b = by_id[ids[later]], by_id[ids[earlier]]
        if a.id in found or a.speaker != b.speaker or _normal(a.text, simplify) == _normal(b.text, simplify):
            continue
        found.add(a.id)  # type: ignore[arg-type]
    return [f"event:{i}" for i in sorted(found)]


def _near_facts(parts: Parts, scope: str, facts: Sequence[Fact], near: float) -> Iterable[str]:
    by_id = {f.id: f for f in facts if f.id is not None}
    ids, vectors = _vectors(parts, scope, "fact", list(by_id))
    found: set[int] = set()
    for later, earlier in _near_pairs(vectors, near):
        a, b = by_id[ids[later]], by_id[ids[earlier]]
        same_place = (a.subject, a.slot) == (b.subject, b.slot)
        if a.id in found or not same_place or a.value_key == b.value_key:
            continue
        found.add(a.id)  # type: ignore[arg-type]
    return [f"fact:{i}" for i in sorted(found)]


def _junk_facts(parts: Parts, facts: Sequence[Fact], noise: set[str]) -> Iterable[str]:
    for f in facts:
        from_noise = bool(f.source_turn_ids) and all(t in noise for t in f.source_turn_ids)
        if from_noise or (f.value and _screen(parts, f.value).blocked):
            yield f"fact:{f.id}"


def _stale_facts(facts: Sequence[Fact], is_single: Any) -> Iterable[str]:
    latest: dict[tuple[str, str], Fact] = {}
    groups: dict[tuple[str, str], list[Fact]] = defaultdict(list)
    for f in facts:
        if f.negated or f.planned or not is_single(f.slot):
            continue
        key = (f.subject, f.slot)
        groups[key].append(f)
        if key not in latest or (f.valid_from, f.id) > (latest[key].valid_from, latest[key].id):  # type: ignore[operator]
            latest[key] = f
    for key, group in groups.items():
        for f in group:
            if f is not latest[key] and f.value_key != latest[key].value_key:
                yield f"fact:{f.id}"


def _orphans(inferences: Sequence[Inference], facts: dict[Any, Fact], events: dict[Any, Event]) -> Iterable[str]:
    for i in inferences:
        if not i.is_active:
            continue
        for p in i.premises:
            if p.on_fact:
                fact = facts.get(p.id)
                lost = fact is None or not fact.is_current
            else:
                event = events.get(p.id)
                lost = event is None or (
                    bool(event.happenings) and all(h.status == "cancelled" for h in event.happenings)
                )
            if lost:
                yield f"inference:{i.id}"
                break
