"""Stage 3: conflict detection — how new slot values change the fact track.

A pure function over records, so it can be tested without a database:

- a new value of a single-valued slot supersedes the current one: the old fact gets
  ``superseded_by`` (the new fact's id) and ``valid_to``; nothing is ever deleted;
- the same value said again reinforces the fact (mention count, last seen, provenance);
- a negation ("I don't live in Beijing anymore", 我不再吃辣了) ends the matching fact and is
  itself recorded as a negated fact;
- values of multi-valued slots accumulate; a value ends its opposite (likes / dislikes); a
  value that is one of its kind ("my favourite colour is green") replaces the one of that kind;
- a turn said before the current fact was said (turns written out of order) is filed as
  history, superseded by the fact that followed it;
- a correction ("sorry, I meant Cambridge", "43, not 34", 打错了) replaces the value it
  corrects as of the original statement: the old one was never true (reason ``corrected``);
- a replacement ("sold the Civic and bought a Tesla") ends the old value (``replaced``);
- a dated plan starts in the future (``planned``); the value it replaces holds until then;
  saying the same value again once it has begun confirms it.

Every fact this ends carries a reason code (:data:`memtracks.records.REASONS`) and the
time it was learned (``superseded_at``). :func:`supersede`, :func:`correct_fact` and
:func:`retract_fact` are the same machinery for changes a user makes by hand.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from memtracks.data.catalogue import Catalogue
from memtracks.data.lexicons import default_lexicons
from memtracks.pipeline.numerals import parse_number
from memtracks.pipeline.text import names_part, value_key
from memtracks.records import REASONS, Fact, SlotValue
from memtracks.tracks.facts import VOID_REASONS, revise

CORRECTION_WINDOW = timedelta(days=7)  # a correction reaches back this far to the value it fixes ("前两天说错了")


@dataclass(frozen=True)
class FactChanges:
    """What one turn did to the fact track. ``updated`` holds existing facts as they are now."""

    added: tuple[Fact, ...] = ()
    updated: tuple[Fact, ...] = ()
    touched: tuple[int, ...] = ()  # ids of facts added or reinforced by the turn
    ended: tuple[int, ...] = ()  # ids of facts superseded or ended by the turn

    def all_facts(self) -> list[Fact]:
        return [*self.added, *self.updated]


@dataclass
class _Ledger:
    """Working state while one turn's values are applied in order."""

    facts: dict[int, Fact]
    new_ids: list[int] = field(default_factory=list)
    changed: set[int] = field(default_factory=set)
    touched: list[int] = field(default_factory=list)
    ended: list[int] = field(default_factory=list)

    def put(self, fact: Fact, *, new: bool = False) -> None:
        assert fact.id is not None
        self.facts[fact.id] = fact
        if new:
            self.new_ids.append(fact.id)
        else:
            self.changed.add(fact.id)

    def current(self, subject: str, slot: str) -> list[Fact]:
        return [f for f in self.facts.values() if f.subject == subject and f.slot == slot and f.is_current]

    def end(self, fact: Fact, at: datetime, by: int | None, reason: str, learned: datetime | None = None) -> None:
        """Close ``fact`` at ``at`` for ``reason``; ``by`` is the fact that replaced it, if any;
        ``learned``: when memtracks learned it (default ``at``)."""
        self.put(supersede(fact, at, by, reason=reason, learned=learned or at))
        self.ended.append(fact.id)  # type: ignore[arg-type]


def supersede(fact: Fact, at: datetime, by: int | None = None, *, reason: str, learned: datetime) -> Fact:
    """``fact`` closed at world time ``at`` for ``reason``, learned at ``learned`` (pure).

    ``reason`` is one of :data:`~memtracks.records.REASONS`. A void reason (corrected,
    retracted, cancelled) closes it where it began: it never held. The fact itself stays, with
    its history (an ending it had before is kept as a revision, for the as-of rule), so
    questions about the past still reach it. The writer, :func:`correct_fact` and
    :func:`retract_fact` all end facts here.
    """

    if reason not in REASONS:
        raise ValueError(f"unknown reason {reason!r}; known: {', '.join(REASONS)}")
    end = fact.valid_from if reason in VOID_REASONS else max(at, fact.valid_from)
    return revise(fact, learned, valid_to=end, superseded_by=by, reason=reason)


def resolve_conflicts(
    values: Sequence[SlotValue],
    existing: Iterable[Fact],
    *,
    catalogue: Catalogue,
    user_id: str,
    turn_id: str,
    at: datetime,
    new_id: Callable[[], int],
    source: str = "stated",
) -> FactChanges:
    """Apply ``values`` (in order) to the ``existing`` facts of the same subjects and slots.

    Args:
        values: slot values from one turn.
        existing: the facts they may conflict with (current and past).
        catalogue: slot cardinalities and opposites.
        user_id, turn_id: provenance for new facts.
        at: when the turn was said (tz-aware); new facts are recorded at this time.
        new_id: hands out ids for new facts, so supersede links can point at them.
        source: "stated", "inferred" or "imported".
    """
    ledger = _Ledger({f.id: f for f in existing if f.id is not None})
    for value in values:
        if value.negated:
            _negate(ledger, value, user_id, turn_id, at, new_id, source)
        else:
            _assert(ledger, value, catalogue, user_id, turn_id, at, new_id, source)
    added = tuple(ledger.facts[i] for i in ledger.new_ids)
    updated = tuple(ledger.facts[i] for i in sorted(ledger.changed - set(ledger.new_ids)))
    return FactChanges(added, updated, tuple(dict.fromkeys(ledger.touched)), tuple(dict.fromkeys(ledger.ended)))


def pair_replacements(
    facts: dict[int, Fact], ended: Sequence[int], added: Sequence[int], catalogue: Catalogue, at: datetime
) -> list[Fact]:
    """ "Sold the Civic and bought a Tesla": a value a turn ended and a value it stated for the
    same single-valued slot are one change — the old one is ``replaced`` by the new (pure;
    returns the facts to update)."""
    out = []
    for fid in dict.fromkeys(ended):
        old = facts.get(fid)
        if (
            old is None
            or old.reason != "ended"
            or old.negated
            or old.slot not in catalogue
            or not catalogue.is_single(old.slot)
        ):
            continue
        after = [
            facts[i]
            for i in added
            if i in facts
            and i != fid
            and facts[i].subject == old.subject
            and facts[i].slot == old.slot
            and not facts[i].negated
            and facts[i].is_current
        ]
        if after:
            out.append(replace(old, superseded_by=after[-1].id, reason="replaced", valid_to=max(at, old.valid_from)))
    return out


def _new_fact(value: SlotValue, user_id: str, turn_id: str, at: datetime, fact_id: int, source: str) -> Fact:
    return Fact(
        id=fact_id,
        subject=value.subject,
        slot=value.slot,
        value=value.value,
        value_key=value.value_key,
        user_id=user_id,
        valid_from=value.valid_from or at,
        recorded_at=at,
        last_seen=at,
        negated=value.negated,
        source=source,
        confidence=value.confidence,
        source_turn_ids=(turn_id,),
        lang=value.lang,
        origin=value.pattern_id,
        planned=value.planned,
        valid_to=value.valid_to,
        reason="ended" if value.valid_to is not None else None,
        superseded_at=at if value.valid_to is not None else None,
    )


def _reinforce(ledger: _Ledger, fact: Fact, value: SlotValue, turn_id: str, at: datetime) -> Fact:
    turns = fact.source_turn_ids if turn_id in fact.source_turn_ids else (*fact.source_turn_ids, turn_id)
    valid_from = min(fact.valid_from, value.valid_from) if value.valid_from else fact.valid_from
    confirmed = fact.planned and not value.planned and at >= fact.valid_from
    if value.planned and fact.planned and value.valid_from:  # the plan was re-dated
        valid_from = value.valid_from
    fact = replace(
        fact,
        mention_count=fact.mention_count + 1,
        last_seen=max(fact.last_seen, at),
        confidence=max(fact.confidence, value.confidence),
        source_turn_ids=turns,
        valid_from=valid_from,
        planned=fact.planned and not confirmed,
    )
    ledger.put(fact)
    ledger.touched.append(fact.id)  # type: ignore[arg-type]
    return fact


def _matches(fact: Fact, key: str) -> bool:
    """Does a negation of ``key`` hit ``fact``? Empty key = any value; containment counts."""
    if not key:
        return True
    return fact.value_key == key or (key in fact.value_key) or (fact.value_key in key and fact.value_key != "")


def _negate(
    ledger: _Ledger, value: SlotValue, user_id: str, turn_id: str, at: datetime, new_id: Callable[[], int], source: str
) -> None:
    """End the values a negation hits. A negated value with nothing to end is kept as a
    negative fact ("I don't eat meat" answers "do I eat meat?"); a negation without a value
    ("I quit my job") or a dated one ("I'm leaving at the end of the month") only ends."""
    current = ledger.current(value.subject, value.slot)
    targets = [f for f in current if not f.negated and _matches(f, value.value_key)]
    if value.planned and value.valid_from is not None:
        for fact in targets:
            ledger.put(replace(fact, valid_to=max(value.valid_from, fact.valid_from), reason="ended", superseded_at=at))
            ledger.ended.append(fact.id)  # type: ignore[arg-type]
            ledger.touched.append(fact.id)  # type: ignore[arg-type]
        return
    marker_id = None
    if value.value_key and not value.ends_only:
        same = [f for f in current if f.negated and f.value_key == value.value_key]
        if same:
            marker = _reinforce(ledger, same[0], value, turn_id, at)
        else:
            marker = _new_fact(value, user_id, turn_id, at, new_id(), source)
            ledger.put(marker, new=True)
            ledger.touched.append(marker.id)  # type: ignore[arg-type]
        marker_id = marker.id
    for fact in targets:
        # 我其實沒有對花生過敏，是檢查搞錯了: denied as a correction, the value never held
        reason = "cancelled" if fact.planned and fact.valid_from > at else "corrected" if value.correction else "ended"
        ledger.end(fact, at, marker_id, reason=reason, learned=at)


def _corrected(ledger: _Ledger, value: SlotValue, single: bool, at: datetime) -> list[Fact]:
    """The facts a correction replaces: the rejected value ("43, not 34"), else for a
    single-valued slot (or a value that is one of its kind: "favourite colour") its latest
    value (of that kind) said within the correction window."""
    current = [f for f in ledger.current(value.subject, value.slot) if not f.negated]
    if value.rejected_key:
        named = [f for f in current if names_part(value.rejected_key, f.value_key)]
        if named:
            return named  # else "I'm 26, I'm not that old": what it rejects is no value held
    if not value.correction or not (single or value.one_per_kind):
        return []
    if not single:
        current = [f for f in current if same_kind(f.value, value.value)]
    recent = [f for f in current if at - f.last_seen <= CORRECTION_WINDOW and f.value_key != value.value_key]
    return sorted(recent, key=lambda f: f.last_seen)[-1:]


def _outgrown(ledger: _Ledger, value: SlotValue, per_year: float | None, at: datetime) -> list[Fact]:
    """For a number that grows with time (an age), the value held when the new one is not
    what the years since could make of it ("I'm 29", then "lol I'm 39" the same day; 45, then
    41 a year on): one of the two was said wrong, and the later word stands."""
    new = parse_number(value.value) if per_year is not None else None
    if per_year is None or new is None:
        return []
    out = []
    for old in ledger.current(value.subject, value.slot):
        held = None if old.negated or old.planned else parse_number(old.value)
        if held is None:
            continue
        years = max((at - old.last_seen).total_seconds(), 0.0) / (365.25 * 86400)
        if not held - 0.5 <= new <= held + per_year * years + 1.5:
            out.append(old)
    return out


_KIND = re.compile(r"(?: \((?P<en>[^()]+)\)|（(?P<zh>[^（）]+)）)$")


def same_kind(a: str, b: str) -> bool:
    """Are two values of one kind: "blue (favourite colour)" and "green (favourite colour)",
    蓝色（最喜欢的颜色） and 綠色（最喜歡的顏色）, whatever the script?"""
    ka, kb = _KIND.search(a), _KIND.search(b)
    if ka is None or kb is None:
        return False
    simplified = default_lexicons().to_simplified
    return simplified(ka.group().strip().lower()) == simplified(kb.group().strip().lower())


def _assert(
    ledger: _Ledger,
    value: SlotValue,
    catalogue: Catalogue,
    user_id: str,
    turn_id: str,
    at: datetime,
    new_id: Callable[[], int],
    source: str,
) -> None:
    current = ledger.current(value.subject, value.slot)
    same = [f for f in current if not f.negated and f.value_key == value.value_key]
    if not same and value.value_key and catalogue[value.slot].value_type == "car":
        # "someone totaled my Outback" about the held "2015 Subaru Outback": a car named by part
        # of its name is the one held
        same = [f for f in current if not f.negated and names_part(value.value_key, f.value_key)]
    if not same and value.historical and value.value_key:
        # "已經從趨勢離職" about the current 趨勢科技: a past value named in part is the current one
        same = [f for f in current if not f.negated and _matches(f, value.value_key)]
    if same:
        fact = _reinforce(ledger, same[0], value, turn_id, at)
        if value.historical:  # "I used to live in X" about the current X: it no longer holds
            ledger.end(fact, at, None, reason="ended", learned=at)
        return
    fact = _new_fact(value, user_id, turn_id, at, new_id(), source)
    if not value.historical and not value.qualifier:
        # back to a value held before (我跟俊熙复合了): it is written as it was, with what it
        # was ("俊熙（男朋友）")
        earlier = [
            f
            for f in ledger.facts.values()
            if f.subject == value.subject
            and f.slot == value.slot
            and not f.negated
            and f.value_key == value.value_key
            and f.value.startswith(value.value)
            and f.value != value.value
        ]
        if earlier:
            fact = replace(fact, value=max(earlier, key=lambda f: f.recorded_at).value)
    if value.historical:
        fact = replace(fact, valid_to=value.valid_to or at, reason="ended", superseded_at=at)
        ledger.put(fact, new=True)
        ledger.touched.append(fact.id)  # type: ignore[arg-type]
        return
    single = catalogue.is_single(value.slot) and not value.additive
    corrected = _corrected(ledger, value, single, at) or _outgrown(
        ledger, value, catalogue[value.slot].grows_per_year, at
    )
    for old in corrected:  # the old value was never true: the new one holds from its start
        fact = replace(fact, valid_from=min(fact.valid_from, old.valid_from))
        ledger.end(old, at, fact.id, reason="corrected", learned=at)  # type: ignore[arg-type]
    for old in ledger.current(value.subject, value.slot) if single else current:
        if old.id in {c.id for c in corrected}:
            continue
        if not single and value.one_per_kind and not value.additive and not old.negated:
            if same_kind(old.value, value.value):  # a new favourite colour: the old one was
                fact = replace(fact, valid_from=max(fact.valid_from, old.valid_from))
                ledger.end(old, fact.valid_from, fact.id, reason="replaced", learned=at)  # type: ignore[arg-type]
            continue
        if single and not old.negated and at < old.recorded_at:
            # said before the current value was said (turns written out of order): history
            fact = replace(
                fact,
                valid_to=max(old.valid_from, fact.valid_from),
                superseded_by=old.id,
                reason="replaced",
                superseded_at=old.recorded_at,
            )
        elif old.negated and (single or old.value_key == value.value_key):
            ledger.end(old, fact.valid_from, fact.id, reason="replaced", learned=at)  # type: ignore[arg-type]
        elif single and old.planned and old.valid_from > at and not fact.planned:
            continue  # a plan still ahead is not undone by restating the present
        elif single:
            # a coarse time ("last month") cannot start before the value it replaces was stated
            fact = replace(fact, valid_from=max(fact.valid_from, old.valid_from))
            reason = "replaced"
            if old.planned and old.valid_from > at:
                reason = "cancelled"  # a new plan (or the present) takes the place of an old plan
            ledger.end(old, fact.valid_from, fact.id, reason=reason, learned=at)  # type: ignore[arg-type]
        elif value.qualifier and old.value_key == value.qualifier:
            # "a cat" refined to "Luna (cat)"
            ledger.end(old, fact.valid_from, fact.id, reason="replaced", learned=at)  # type: ignore[arg-type]
    opposite = catalogue[value.slot].opposite
    if opposite:
        for old in ledger.current(value.subject, opposite):
            if not old.negated and old.value_key == value.value_key:
                ledger.end(old, fact.valid_from, fact.id, reason="replaced", learned=at)  # type: ignore[arg-type]
    for slot, ending in catalogue[value.slot].ends.items():  # "I'm single again": the partner ends
        if not (value.negated or value.historical or fact.planned) and value.value_key in {
            value_key(v) for v in ending
        }:
            for old in ledger.current(value.subject, slot):
                if not old.negated:
                    ledger.end(old, fact.valid_from, fact.id, reason="ended", learned=at)  # type: ignore[arg-type]
    for slot, ended in catalogue[value.slot].ends_values.items():  # "Theo is my boyfriend now": not single
        if not (value.negated or value.historical or fact.planned):
            keys = {value_key(v) for v in ended}
            for old in ledger.current(value.subject, slot):
                if not old.negated and old.value_key in keys:
                    ledger.end(old, fact.valid_from, fact.id, reason="replaced", learned=at)  # type: ignore[arg-type]
    ledger.put(fact, new=True)
    ledger.touched.append(fact.id)  # type: ignore[arg-type]


# ------------------------------------------------------------------ changes made by the user


def take_place(fact: Fact, gone: Fact, learned: datetime | None = None) -> Fact:
    """``fact`` was superseded by ``gone``, which is being retracted or erased: ``fact`` takes
    its place in the chain — current again if ``gone`` was current, else ending as it ended.
    ``learned``: when a retraction made it so (its earlier ending stays readable for the
    as-of rule); None for an erasure, after which it is as if ``gone`` had never been said."""
    if learned is None:
        return replace(
            fact,
            superseded_by=gone.superseded_by,
            valid_to=gone.valid_to,
            reason=gone.reason,
            superseded_at=gone.superseded_at,
        )
    return revise(fact, learned, valid_to=gone.valid_to, superseded_by=gone.superseded_by, reason=gone.reason)


def correct_fact(fact: Fact, *, value: str, value_key: str, at: datetime, new_id: int) -> FactChanges:
    """The user says ``fact`` was wrong and ``value`` is right (learned at ``at``).

    The corrected value takes ``fact``'s place in its chain (held since the same time, ending
    as it ended); ``fact`` stays as history, superseded by the correction with reason
    "corrected". Facts it had superseded still lead through it to the correction. Asked as
    known before ``at``, the old value is still what memtracks knew.
    """
    ends = fact.valid_to is not None or fact.superseded_by is not None or fact.reason is not None
    new = replace(
        fact,
        id=new_id,
        value=value,
        value_key=value_key,
        negated=False,
        source="stated",
        confidence=1.0,
        mention_count=1,
        source_turn_ids=(),
        origin="user.correct",
        recorded_at=at,
        last_seen=at,
        superseded_at=at if ends else None,
        revisions=(),
    )
    old = supersede(fact, at, new_id, reason="corrected", learned=at)
    return FactChanges(added=(new,), updated=(old,), touched=(new_id,), ended=(fact.id,))  # type: ignore[arg-type]


def reopen_replaced(plan: Fact, predecessors: Iterable[Fact], successor: Fact | None, *, at: datetime) -> list[Fact]:
    """A planned value that was called off (``plan``, reason "cancelled", learned at ``at``)
    gives back the place of the values it was to replace ("We're moving to Denver next month",
    then "the Denver move is off": Chicago holds again). If another value took the plan's place
    (a new plan, or the present said again), they end where that one begins instead; a negation
    ("we're not moving to Denver after all") takes no place."""
    assert plan.id is not None
    back = [p for p in predecessors if p.superseded_by == plan.id and p.reason == "replaced"]
    if successor is None or successor.negated:
        return [revise(p, at, valid_to=None, superseded_by=None, reason=None) for p in back]
    return [
        revise(p, at, valid_to=max(successor.valid_from, p.valid_from), superseded_by=successor.id, reason="replaced")
        for p in back
    ]


def retract_fact(fact: Fact, predecessors: Iterable[Fact], *, at: datetime) -> FactChanges:
    """The user says ``fact`` was never true (learned at ``at``): it ends with reason
    "retracted" (kept as history), and the facts it had superseded take its place again."""
    old = supersede(fact, at, None, reason="retracted", learned=at)
    assert fact.id is not None
    reopened = tuple(take_place(p, fact, learned=at) for p in predecessors if p.superseded_by == fact.id)
    return FactChanges(
        updated=(old, *reopened), touched=tuple(p.id for p in reopened if p.id is not None), ended=(fact.id,)
    )
