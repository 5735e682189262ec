"""Managing what a memory keeps: get one memory, forget turns for good, correct or retract a
fact, rebuild a user's memories from their turns.

``forget`` is real deletion and cascades: a turn's event goes, and so do the facts only that
turn supports (a fact such a fact had superseded takes its place again, its history intact),
the conclusions drawn from removed facts or events, their vectors, links, names and cached
indexes. ``correct`` and ``retract`` are not deletion: they go through the fact track's
supersede machinery (:mod:`memtracks.pipeline.conflicts`) with the reason codes "corrected"
and "retracted", and keep the old fact as history.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memtracks.errors import InvalidTurnError, NotFoundError
from memtracks.interfaces.progress import reporter
from memtracks.pipeline.conflicts import correct_fact, retract_fact, take_place
from memtracks.records import Fact, Inference, Turn
from memtracks.scopes import check_id, public
from memtracks.storage import codec, erase
from memtracks.storage.base import SQLStorage
from memtracks.tracks import named
from memtracks.write.read_ahead import ReadAhead
from memtracks.write.validation import check_item_id

if TYPE_CHECKING:
    from memtracks.parts import Parts

KINDS = ("turn", "fact", "event", "inference")


# ---------------------------------------------------------------------- get


def parse_ref(ref: str | int, kind: str | None) -> tuple[str, str | int]:
    """``("fact", 12)`` from "fact:12" or (12, "fact"); a bare string is a turn id."""
    if not isinstance(ref, str | int) or isinstance(ref, bool):
        raise InvalidTurnError(f"a memory id is a string like 'fact:12' or an integer; found {ref!r}")
    if kind is not None:
        if kind not in KINDS:
            raise InvalidTurnError(f"kind must be one of {', '.join(KINDS)}; found {kind!r}")
        if kind == "turn":
            return kind, str(ref)
        try:
            return kind, int(ref)
        except (TypeError, ValueError):
            raise InvalidTurnError(f"a {kind} id is a number; found {ref!r}") from None
    if isinstance(ref, str):
        prefix, _, rest = ref.partition(":")
        if prefix in KINDS[1:] and rest.isdigit():
            return prefix, int(rest)
        if prefix == "turn" and rest:
            return "turn", rest
        return "turn", ref
    raise InvalidTurnError(
        f"give the kind of memory {ref!r} is (kind='fact', 'event', 'inference' or 'turn'), or an id like 'fact:12'"
    )


def get(parts: Parts, scope: str, ref: str | int, kind: str | None, user_id: str) -> Any:
    kind, key = parse_ref(ref, kind)
    store = parts.store
    found: list[Any]
    if kind == "turn":
        row = store.turn(scope, check_id(key, "turn id"))
        return codec.row_turn(row, user_id) if row is not None else None
    if check_item_id(key, f"{kind} id") is None:
        return None  # beyond any stored id
    found = named(kind).by_ids(store, scope, [int(key)])
    return public(found[0], user_id) if found else None


# ---------------------------------------------------------------------- forget


@dataclass(frozen=True)
class ForgetReport:
    """What an erasure removed (counts), and the facts it made current again."""

    turns: int = 0
    events: int = 0
    facts: int = 0
    inferences: int = 0
    names: int = 0
    reopened: tuple[int, ...] = ()
    reactivated: tuple[int, ...] = ()
    items: int = 0  # store items without a turn (LangGraph values put with index=False or no text)

    def counts(self) -> dict[str, int]:
        return {
            "turns": self.turns,
            "events": self.events,
            "facts": self.facts,
            "inferences": self.inferences,
            "names": self.names,
            "items": self.items,
        }


@dataclass
class _Plan:
    turns: set[str]
    events: set[int] = field(default_factory=set)
    facts: dict[int, Fact] = field(default_factory=dict)  # removed
    kept: list[Fact] = field(default_factory=list)  # survivors whose provenance or chain changed
    inferences: set[int] = field(default_factory=set)
    inference_updates: list[Inference] = field(default_factory=list)


def select_turns(
    store: SQLStorage,
    scope: str,
    *,
    turn_ids: Iterable[str] | None,
    session_id: str | None,
    before: datetime | None,
    everything: bool,
) -> set[str]:
    if everything and (turn_ids is not None or session_id is not None or before is not None):
        raise InvalidTurnError("everything=True erases all; do not combine it with other selections")
    if not everything and turn_ids is None and session_id is None and before is None:
        raise InvalidTurnError("say what to forget: turn_ids=..., session_id=..., before=... or everything=True")
    if before is not None and (not isinstance(before, datetime) or before.tzinfo is None):
        raise InvalidTurnError(f"before must be a timezone-aware datetime, found {before!r}")
    ids = None
    if turn_ids is not None:
        if not isinstance(turn_ids, str | Iterable) or isinstance(turn_ids, bytes | Mapping):
            raise InvalidTurnError(f"turn_ids must be a list of turn ids, found {turn_ids!r:.80}")
        ids = [turn_ids] if isinstance(turn_ids, str) else list(turn_ids)
        if not all(isinstance(t, str) for t in ids):
            raise InvalidTurnError("turn_ids must be strings")
        ids = [check_id(t, "turn id") for t in ids]
    if session_id is not None:
        check_id(session_id, "session_id")
    return store.turn_ids_where(scope, session_id=session_id, end=before, turn_ids=ids)


def _plan(store: SQLStorage, scope: str, turns: set[str], everything: bool) -> _Plan:
    plan = _Plan(turns)
    for event in store.events(scope):
        if event.turn_id in turns:
            plan.events.add(event.id)  # type: ignore[arg-type]
    facts = store.facts(scope)
    for fact in facts:
        remaining = tuple(t for t in fact.source_turn_ids if t not in turns)
        if everything or (fact.source_turn_ids and not remaining):
            plan.facts[fact.id] = fact  # type: ignore[index]
        elif len(remaining) < len(fact.source_turn_ids):
            dropped = len(fact.source_turn_ids) - len(remaining)
            plan.kept.append(
                replace(fact, source_turn_ids=remaining, mention_count=max(1, fact.mention_count - dropped))
            )
    by_id = {f.id: f for f in facts}
    inferences = store.inferences(scope)
    changed = True
    while changed:  # a removed conclusion's own fact may be the premise of another conclusion
        changed = False
        gone = {("fact", i) for i in plan.facts} | {("event", i) for i in plan.events}
        for inference in inferences:
            if inference.id in plan.inferences:
                continue
            if everything or any((p.track, p.id) in gone for p in inference.premises):
                plan.inferences.add(inference.id)  # type: ignore[arg-type]
                changed = True
                derived = by_id.get(inference.derived_fact_id)
                if derived is not None and set(derived.source_turn_ids) <= set(inference.source_turn_ids):
                    plan.facts[derived.id] = derived  # type: ignore[index]
    plan.kept = [f for f in plan.kept if f.id not in plan.facts]
    for inference in inferences:
        if inference.id not in plan.inferences and turns.intersection(inference.source_turn_ids):
            remaining = tuple(t for t in inference.source_turn_ids if t not in turns)
            plan.inference_updates.append(replace(inference, source_turn_ids=remaining))
    return plan


def _fate(fact: Fact, removed: dict[int, Fact]) -> Fact:
    """Where ``fact``'s chain continues once the removed facts are gone."""
    seen = set()
    while fact.superseded_by in removed and fact.id not in seen:
        seen.add(fact.id)
        fact = removed[fact.superseded_by]
    return fact


def _reopen(store: SQLStorage, scope: str, plan: _Plan) -> list[Fact]:
    """Survivors that a removed fact had superseded take its place in the chain."""
    kept = {f.id: f for f in plan.kept}
    reopened = []
    for fact in store.facts(scope):
        if fact.id in plan.facts or fact.superseded_by not in plan.facts:
            continue
        current = kept.get(fact.id, fact)
        kept[fact.id] = take_place(current, _fate(plan.facts[fact.superseded_by], plan.facts))  # type: ignore[index]
        reopened.append(fact.id)
    plan.kept = list(kept.values())
    return [kept[i] for i in reopened]  # type: ignore[index]


def reactivate(store: SQLStorage, scope: str, fact_ids: Iterable[int]) -> list[Inference]:
    """Retracted conclusions resting on these facts come back once every fact they rest on
    holds again (their premise was ended by something that is gone or was retracted)."""
    ids = list(fact_ids)
    if not ids:
        return []
    resting = store.inference_ids_on(scope, ids)
    candidates = [i for i in store.inferences(scope, ids=resting) if not i.is_active]
    out = []
    for inference in candidates:
        premises = [p.id for p in inference.premises if p.on_fact]
        if all(f.is_current for f in store.facts_by_id(scope, premises)) and len(premises) == len(
            store.facts_by_id(scope, premises)
        ):
            out.append(replace(inference, status="active", retracted_at=None, retracted_because=None))
    store.save_inferences(out)
    return out


def forget(
    parts: Parts,
    scope: str,
    *,
    turn_ids: Iterable[str] | None,
    session_id: str | None,
    before: datetime | None,
    everything: bool,
    vacuum: bool,
) -> ForgetReport:
    store = parts.store
    turns = select_turns(store, scope, turn_ids=turn_ids, session_id=session_id, before=before, everything=everything)
    selector = {
        "turn_ids": "given" if turn_ids is not None else None,
        "session": session_id is not None,
        "before": before.isoformat() if before else None,
        "everything": everything,
    }
    with erase.overwriting(store), store.transaction():
        plan = _plan(store, scope, turns, everything)
        reopened = _reopen(store, scope, plan)
        erase.relink(store, scope, plan.events)
        erase.delete_rows(
            store, scope, turn_ids=plan.turns, event_ids=plan.events, fact_ids=plan.facts, inference_ids=plan.inferences
        )
        store.save_facts(plan.kept)
        store.save_inferences(plan.inference_updates)
        reactivated = reactivate(store, scope, [f.id for f in reopened])  # type: ignore[misc]
        names = erase.prune_names(store, scope)
        items = erase.delete_items(store, scope) if everything else 0
        report = ForgetReport(
            len(plan.turns),
            len(plan.events),
            len(plan.facts),
            len(plan.inferences),
            names,
            tuple(f.id for f in reopened if f.id is not None),
            tuple(i.id for i in reactivated if i.id is not None),
            items,
        )
        erase.record_erasure(store, scope, parts.clock(), selector, report.counts())
        erased = {"fact": set(plan.facts), "event": set(plan.events), "inference": set(plan.inferences)}
        store.record_erased(scope, erased)  # other processes take these out of their indexes
    erase.scrub(store, vacuum=vacuum)
    parts.indexes.erased(scope, erased)  # a tail operation: no index is rebuilt
    parts.writer.reset_caches()
    return report


def _rewritten(parts: Parts, scope: str) -> None:
    """This process rewrote ``scope``: drop what it had cached of it."""
    parts.indexes.evict(scope)
    parts.writer.reset_caches()


# ---------------------------------------------------------------------- correct, retract


def _fact(store: SQLStorage, scope: str, fact_id: int) -> Fact:
    stored_id = check_item_id(fact_id, "fact_id")
    found = store.facts_by_id(scope, [stored_id]) if stored_id is not None else []
    if not found:
        raise NotFoundError(f"no fact #{fact_id} for this user")
    return found[0]


def correct(parts: Parts, scope: str, fact_id: int, value: str) -> Fact:
    if not isinstance(value, str) or not value.strip():
        raise InvalidTurnError("value must be a non-empty string")
    store = parts.store
    fact = _fact(store, scope, fact_id)
    if fact.reason == "corrected":
        raise InvalidTurnError(f"fact #{fact_id} was already corrected by #{fact.superseded_by}; correct that one")
    at = parts.clock()
    with store.transaction():
        changes = correct_fact(
            fact,
            value=value.strip(),
            value_key=parts.toolkit.key_of(value.strip()),
            at=max(at, fact.recorded_at),
            new_id=store.next_id("facts"),
        )
        batch = parts.writer.apply_changes(scope, changes, at, "user.correct")
    parts.committed(batch)
    return changes.added[0]


def retract(parts: Parts, scope: str, fact_id: int) -> Fact:
    store = parts.store
    fact = _fact(store, scope, fact_id)
    if fact.reason == "retracted":
        return fact
    at = parts.clock()
    with store.transaction():
        predecessors = [f for f in store.facts(scope, subjects=[fact.subject]) if f.superseded_by == fact.id]
        changes = retract_fact(fact, predecessors, at=max(at, fact.recorded_at))
        batch = parts.writer.apply_changes(scope, changes, at, "user.retract")
        reactivate(store, scope, changes.touched)
    parts.committed(batch)
    return changes.updated[0]


# ---------------------------------------------------------------------- rebuild


@dataclass(frozen=True)
class RebuildReport:
    """A rebuild: turns re-read, what the track counts were before and after, and the user's
    own corrections and retractions replayed (and those that no longer found their fact)."""

    turns: int
    before: dict[str, int]
    after: dict[str, int]
    replayed: int = 0
    unmatched: int = 0


def _user_changes(store: SQLStorage, scope: str) -> list[tuple[datetime, str, Fact, str | None]]:
    """The user's corrections and retractions, oldest first: (when, kind, old fact, new value)."""
    facts = store.facts(scope)
    by_id = {f.id: f for f in facts}
    out: list[tuple[datetime, str, Fact, str | None]] = []
    for f in facts:
        if f.reason == "retracted":
            out.append((f.superseded_at or f.valid_to or f.recorded_at, "retract", f, None))
        elif f.reason == "corrected" and f.superseded_by in by_id:
            new = by_id[f.superseded_by]
            out.append((new.recorded_at, "correct", f, new.value))
    return sorted(out, key=lambda x: x[0])


def rebuild(parts: Parts, scope: str, progress: bool | Callable[[int, int], None]) -> RebuildReport:
    store = parts.store
    turns = [codec.row_turn(r, scope) for r in store.turns_written(scope)]
    changes = _user_changes(store, scope)
    before = store.counts(scope)
    report = reporter(progress, len(turns), desc="rebuilding")
    size = parts.config.writer.batch_size
    replayed = replayed_turns = 0
    with store.transaction():
        erase.delete_scope(store, scope)
        batches: list[list[tuple[Turn, list[str]]]] = [
            [(t, []) for t in turns[start : start + size]] for start in range(0, len(turns), size)
        ]
        with ReadAhead(parts.writer, batches) as ahead:
            for batch, screened in zip(batches, ahead, strict=True):
                parts.writer.write(batch, screened)
                replayed_turns += len(batch)
                report(replayed_turns)
        for at, kind, old, value in changes:
            match = [
                f
                for f in store.facts(scope, subjects=[old.subject], slots=[old.slot], current_only=True)
                if f.value_key == old.value_key and f.negated == old.negated
            ]
            if not match:
                continue
            replayed += 1
            fact = match[0]
            if kind == "retract":
                preds = [f for f in store.facts(scope, subjects=[fact.subject]) if f.superseded_by == fact.id]
                step = retract_fact(fact, preds, at=max(at, fact.recorded_at))
            else:
                assert value is not None
                step = correct_fact(
                    fact,
                    value=value,
                    value_key=parts.toolkit.key_of(value),
                    at=max(at, fact.recorded_at),
                    new_id=store.next_id("facts"),
                )
            parts.writer.apply_changes(scope, step, at, f"user.{kind}")
            if kind == "retract":
                reactivate(store, scope, step.touched)
        store.bump_generation(scope)
    _rewritten(parts, scope)
    return RebuildReport(len(turns), before, store.counts(scope), replayed, len(changes) - replayed)
