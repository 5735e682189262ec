"""Stage 4: rule-based inference over facts and happenings (rules in ``rules/inference.yaml``).

Forward chaining, triggered by what a turn added: each rule whose premise the new fact or
event fills is joined with the subject's other current facts and recent events. A
conclusion carries the rule's confidence (0.6), its premises and the source turns; when a
fact premise is superseded or ended the conclusion is retracted (:func:`retract`). A rule
may also conclude a fact ("moved to X" => lives_in X), which then goes through conflict
detection like any other value, with source "inferred".
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from memtracks.data.rules import (
    _VAR,
    PremiseSpec,
    RuleSpec,
)
from memtracks.records import Event, Fact, Happening, Inference, Premise, SlotValue

_MAX_JOIN = 10


@dataclass(frozen=True)
class Bound:
    """A fact or a happening standing in for one premise."""

    premise: Premise
    subject: str
    args: dict[str, str]
    start: datetime | None
    end: datetime | None
    granularity: str | None
    said_at: datetime
    lang: str
    turn_ids: tuple[str, ...]
    planned: bool = False  # a happening said before it happens


def bind_fact(fact: Fact) -> Bound:
    assert fact.id is not None
    end = fact.valid_to
    return Bound(
        Premise("fact", fact.id),
        fact.subject,
        {"value": fact.value},
        fact.valid_from,
        end,
        None,
        fact.recorded_at,
        fact.lang,
        fact.source_turn_ids,
    )


def bind_happening(event: Event, h: Happening) -> Bound:
    assert event.id is not None
    return Bound(
        Premise("event", event.id),
        h.subject,
        dict(h.args),
        h.start,
        h.end,
        h.granularity,
        event.mentioned_at,
        event.lang,
        (event.turn_id,),
        h.planned,
    )


def _fits(p: PremiseSpec, b: Bound, at: datetime) -> bool:
    if any(n == "time" and b.start is None for n in p.needs):
        return False
    if any(n != "time" and n not in b.args for n in p.needs):
        return False
    return not (p.upcoming and (b.end is None or b.end <= at))


def _date(d: datetime) -> str:
    return d.date().isoformat()


def _last_day(b: Bound) -> datetime:
    assert b.start is not None
    return (b.end - timedelta(microseconds=1)) if b.end else b.start


def when(b: Bound, lang: str) -> str:
    """The time of a premise as words with ISO dates: "on 2024-01-17", "in 2024-05"."""
    zh = lang == "zh"
    if b.start is None:
        return f"{_date(b.said_at)}前后" if zh else f"around {_date(b.said_at)}"
    last = _last_day(b)
    if last.date() == b.start.date():
        return _date(b.start) if zh else f"on {_date(b.start)}"
    if b.granularity == "week":
        return f"{_date(b.start)}那一周" if zh else f"in the week of {_date(b.start)}"
    if b.granularity == "month":
        return f"{b.start:%Y-%m}" if zh else f"in {b.start:%Y-%m}"
    if b.granularity == "year":
        return f"{b.start:%Y}年" if zh else f"in {b.start:%Y}"
    return f"{_date(b.start)}至{_date(last)}" if zh else f"from {_date(b.start)} to {_date(last)}"


def date_text(b: Bound) -> str:
    """ISO date, or ``first..last`` for a longer interval."""
    if b.start is None:
        return _date(b.said_at)
    last = _last_day(b)
    return _date(b.start) if last.date() == b.start.date() else f"{_date(b.start)}..{_date(last)}"


def end_date(b: Bound) -> str:
    """The last day of the premise's time: what "by the end of the month" means for a deadline."""
    return _date(_last_day(b)) if b.start is not None else _date(b.said_at)


def render(template: str, subject: str, bound: dict[str, Bound], lang: str) -> str:
    def var(m: re.Match[str]) -> str:
        name, arg = m.group(1), m.group(2)
        if name == "subject" and not arg:
            return subject
        b = bound[name]
        if arg == "when":
            return when(b, lang)
        if arg == "date":
            return date_text(b)
        if arg == "end_date":
            return end_date(b)
        return b.args.get(arg, "")

    return _VAR.sub(var, template)


@dataclass(frozen=True)
class Derived:
    """One conclusion, and the fact it asserts when the rule concludes a fact."""

    inference: Inference
    value: SlotValue | None = None


@dataclass(frozen=True)
class Context:
    """What a rule may join a new fact or event with: the subject's current facts and recent events."""

    facts: Sequence[Fact] = ()
    events: Sequence[Event] = ()

    def candidates(self, p: PremiseSpec, subject: str, at: datetime) -> list[Bound]:
        if p.fact:
            found = [
                bind_fact(f)
                for f in self.facts
                if f.subject == subject and f.slot == p.fact and f.is_current and not f.negated
            ]
        else:
            found = [
                bind_happening(e, h)
                for e in self.events
                for h in e.happenings
                if h.kind == p.event and h.subject == subject
            ]
        found = [b for b in found if _fits(p, b, at)]
        return sorted(found, key=lambda b: b.said_at, reverse=True)[:_MAX_JOIN]


def infer(
    rules: Sequence[RuleSpec],
    *,
    new_facts: Sequence[Fact],
    new_events: Sequence[Event],
    context: Context,
    user_id: str,
    at: datetime,
    key_of: Callable[[str], str],
) -> list[Derived]:
    """Conclusions triggered by ``new_facts`` and ``new_events`` (pure; ids left unset)."""
    triggers = [bind_fact(f) for f in new_facts if f.is_current and not f.negated]
    triggers += [bind_happening(e, h) for e in new_events for h in e.happenings]
    out: list[Derived] = []
    seen: set[str] = set()
    for rule in rules:
        for i, p in enumerate(rule.premises):
            for trig in triggers:
                if not _is_trigger_for(p, trig, new_facts, new_events) or not _fits(p, trig, at):
                    continue
                for derived in _join(rule, i, trig, context, user_id, at, key_of):
                    if derived.inference.key not in seen:
                        seen.add(derived.inference.key)
                        out.append(derived)
    return out


def _is_trigger_for(p: PremiseSpec, b: Bound, facts: Sequence[Fact], events: Sequence[Event]) -> bool:
    if p.fact:
        return b.premise.on_fact and any(f.id == b.premise.id and f.slot == p.fact for f in facts)
    return not b.premise.on_fact and any(
        e.id == b.premise.id and any(h.kind == p.event and h.args == b.args for h in e.happenings) for e in events
    )


def _join(
    rule: RuleSpec, index: int, trig: Bound, context: Context, user_id: str, at: datetime, key_of: Callable[[str], str]
) -> Iterator[Derived]:
    options = [[trig] if i == index else context.candidates(p, trig.subject, at) for i, p in enumerate(rule.premises)]
    for combo in itertools.product(*options):
        bound = {p.name: b for p, b in zip(rule.premises, combo, strict=True)}
        if len({b.premise for b in combo}) < len(combo) or not _holds(rule, bound, key_of):
            continue
        yield _conclude(rule, bound, trig, user_id, at, key_of)


def _holds(rule: RuleSpec, bound: dict[str, Bound], key_of: Callable[[str], str]) -> bool:
    for c in rule.where:
        left = render(c.left, "", bound, "en")
        if c.op == "matches":
            ok = re.search(c.right, left) is not None
        else:
            same = key_of(left) == key_of(render(c.right, "", bound, "en"))
            ok = same if c.op == "eq" else not same
        if not ok:
            return False
    return True


def _conclude(
    rule: RuleSpec, bound: dict[str, Bound], trig: Bound, user_id: str, at: datetime, key_of: Callable[[str], str]
) -> Derived:
    spec = rule.conclusion
    lang = trig.lang if trig.lang in spec.text else "en"
    valid_from = valid_to = None
    if spec.valid:
        b = bound[spec.valid]
        valid_from, valid_to = b.start or b.said_at, b.end
    elif spec.until:
        valid_from, valid_to = at, bound[spec.until].end
    elif spec.since:
        b = bound[spec.since]
        valid_from = b.start or b.said_at
    turns = tuple(dict.fromkeys(t for b in bound.values() for t in b.turn_ids))
    inference = Inference(
        user_id=user_id,
        rule_id=rule.id,
        subject=trig.subject,
        kind=spec.kind,
        text=render(spec.text[lang], trig.subject, bound, lang),
        lang=lang,
        created_at=at,
        premises=tuple(b.premise for b in bound.values()),
        confidence=rule.confidence,
        valid_from=valid_from,
        valid_to=valid_to,
        source_turn_ids=turns,
        args={f"{n}.{k}": v for n, b in bound.items() for k, v in b.args.items()},
    )
    value = _fact_value(rule, bound, trig, lang, valid_from, key_of) if spec.fact else None
    return Derived(inference, value)


def _fact_value(
    rule: RuleSpec,
    bound: dict[str, Bound],
    trig: Bound,
    lang: str,
    valid_from: datetime | None,
    key_of: Callable[[str], str],
) -> SlotValue | None:
    spec = rule.conclusion.fact
    assert spec is not None
    templates: dict[str, str] = (
        {"en": spec.value} if isinstance(spec.value, str) else {str(k): v for k, v in spec.value.items()}
    )
    template = templates.get(lang, templates.get("en", ""))
    value = render(template, trig.subject, bound, lang)
    planned = any(b.planned for b in bound.values())
    if planned and (valid_from is None or valid_from <= trig.said_at):
        return None  # an undated plan is a goal, not a fact that will start to hold
    return SlotValue(
        planned=planned,
        subject=trig.subject,
        slot=spec.slot,
        value=value,
        value_key=spec.key or key_of(value),
        span=(0, 0),
        pattern_id=f"rule:{rule.id}",
        lang=lang,
        confidence=round(rule.confidence * (PLAN_CONFIDENCE if planned else 1.0), 2),
        valid_from=valid_from,
    )


PLAN_CONFIDENCE = 0.7


def retract(active: Sequence[Inference], ended: dict[int, Fact], at: datetime) -> list[Inference]:
    """Retract active conclusions resting on a fact that was just superseded or ended.

    Args:
        active: active inferences of the subject(s) concerned.
        ended: facts this turn ended, by id, as they are now.
        at: when (the turn's time).
    """
    out = []
    for inf in active:
        hit = [p.id for p in inf.premises if p.on_fact and p.id in ended]
        if inf.is_active and hit:
            fact = ended[hit[0]]
            why = (
                f"premise fact #{fact.id} ({fact.slot}: {fact.value}) superseded by #{fact.superseded_by}"
                if fact.superseded_by
                else f"premise fact #{fact.id} ({fact.slot}: {fact.value}) ended"
            )
            out.append(replace(inf, status="retracted", retracted_at=at, retracted_because=why))
    return out
