"""Deciding what to consolidate: candidate pairs, then one action per pair (pure, no writes).

Candidates are pairs that agree in structure — two current facts of the same subject and
slot, or two events of the same subject and speaker sharing a kind of happening and an entity
— whose stored vectors' *measured* cosine reaches ``find_threshold``. Memories imported from
documents are only ever paired with imported ones. Each pair gets one of seed 000's actions:

- ``merge``: near-duplicates (the same statement in other words, or a restatement that adds
  nothing): the later one is folded into the earlier; a fact's value becomes the newer wording;
- ``update``: a fact restated with more detail: the earlier fact takes the detailed value in
  place, the restatement is folded into it; an event that says everything another says and
  more absorbs it;
- ``replace``: two current values of a single-valued slot that contradict each other (cosine
  >= ``replace_threshold``): the older is superseded by the newer, as a turn would have done;
- ``keep_separate``: related but distinct (another day, another name, a negation, a second
  value of a multi-valued slot) — reported, never changed.

Merging needs only ``find_threshold`` because the texts must also agree (:mod:`.similarity`):
neither may say anything the other does not, beyond the extra detail of one of them. Only
superseding — where one memory's value is taken as wrong — needs ``replace_threshold``.

Pairs are taken strongest first; a memory is folded or superseded at most once per run and a
fact changes in at most one action (run again to continue), so the plan is deterministic.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TypeVar

import numpy as np

from memtracks.config import ConsolidationConfig
from memtracks.data.catalogue import Catalogue
from memtracks.data.polarity import Polarity
from memtracks.records import Event, Fact
from memtracks.upkeep.consolidation.similarity import Relation, relation

R = TypeVar("R", Fact, Event)
Vectors = Callable[[str, Sequence[int]], dict[int, np.ndarray]]  # (track, ids) -> unit vectors


@dataclass(frozen=True)
class Action:
    """One consolidation step. ``target`` survives; ``members`` are folded into it (merge,
    update) or superseded by it (replace); keep_separate changes nothing."""

    kind: str  # merge | update | replace | keep_separate
    track: str  # fact | event
    target: int
    members: tuple[int, ...]
    similarity: float
    relation: str
    before: tuple[str, ...]  # target's text, then each member's
    after: str  # target's text after the step
    why: str

    def to_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "track": self.track,
            "target": self.target,
            "members": list(self.members),
            "similarity": round(self.similarity, 4),
            "relation": self.relation,
            "before": list(self.before),
            "after": self.after,
            "why": self.why,
        }


def _origin(source: str) -> str:
    return "imported" if source == "imported" else "conversation"


def _id(record: Fact | Event) -> int:
    assert record.id is not None, "consolidation reads stored memories"
    return record.id


def _pairs(
    track: str, groups: Iterable[Sequence[R]], vectors: Vectors, threshold: float, agree: Callable[[R, R], bool]
) -> list[tuple[float, R, R]]:
    """Pairs within each group whose measured cosine reaches ``threshold``, strongest first."""
    groups = [g for g in groups if len(g) > 1]
    vecs = vectors(track, sorted({_id(r) for g in groups for r in g}))
    found: dict[tuple[int, int], tuple[float, R, R]] = {}
    for group in groups:
        have = sorted((r for r in group if _id(r) in vecs), key=_id)
        if len(have) < 2:
            continue
        matrix = np.vstack([vecs[_id(r)] for r in have])
        sims = matrix @ matrix.T
        for x, y in combinations(range(len(have)), 2):
            a, b = have[x], have[y]
            if float(sims[x, y]) >= threshold and agree(a, b):
                found[(_id(a), _id(b))] = (float(sims[x, y]), a, b)
    return sorted(found.values(), key=lambda p: (-p[0], _id(p[1]), _id(p[2])))


# ---------------------------------------------------------------------- facts


def fact_actions(
    facts: Sequence[Fact], vectors: Vectors, catalogue: Catalogue, config: ConsolidationConfig, polarity: Polarity
) -> list[Action]:
    groups: dict[tuple[str, str, str], list[Fact]] = defaultdict(list)
    for f in facts:
        if f.is_current and not f.negated and not f.planned:
            groups[(f.subject, f.slot, _origin(f.source))].append(f)
    used: set[int] = set()
    out = []
    for sim, first, second in _pairs("fact", groups.values(), vectors, config.find_threshold, lambda a, b: True):
        older, newer = sorted((first, second), key=lambda f: (f.recorded_at, _id(f)))
        if _id(older) in used or _id(newer) in used:
            continue
        action = _fact_action(older, newer, sim, catalogue, config, polarity)
        if action.kind != "keep_separate":
            used.update((_id(older), _id(newer)))
        out.append(action)
    return out


def _fact_action(
    older: Fact, newer: Fact, sim: float, catalogue: Catalogue, config: ConsolidationConfig, polarity: Polarity
) -> Action:
    rel = relation(older.value, newer.value, polarity=polarity)
    values = (older.value, newer.value)

    def act(kind: str, target: Fact, member: Fact, after: str, why: str) -> Action:
        return Action(kind, "fact", _id(target), (_id(member),), sim, rel.value, values, after, why)

    if older.value_key == newer.value_key or rel is Relation.SAME:
        return act("merge", older, newer, newer.value, "the same value said twice; the newer wording is kept")
    if rel is Relation.SECOND_MORE:
        return act("update", older, newer, newer.value, "restated with more detail: updated in place")
    if rel is Relation.FIRST_MORE:
        return act("merge", older, newer, older.value, "restated with less detail: folded into the fuller one")
    single = catalogue.is_single(older.slot)
    if single and sim >= config.replace_threshold:
        return act("replace", newer, older, newer.value, "two current values of a single-valued slot")
    return act("keep_separate", older, newer, "", "related but distinct" if single else "another value of the slot")


# ---------------------------------------------------------------------- events


def _agree(a: Event, b: Event) -> bool:
    """Same entity and kind of happening: a shared kind whose arguments or entities meet."""
    kinds = set(a.kinds) & set(b.kinds)
    if not kinds:
        return False
    if set(a.entity_keys) & set(b.entity_keys):
        return True
    args = {v for h in a.happenings if h.kind in kinds for v in h.args.values()}
    return bool(args & {v for h in b.happenings if h.kind in kinds for v in h.args.values()})


def _same_time(a: Event, b: Event, config: ConsolidationConfig) -> bool:
    if a.start is not None or b.start is not None:
        return (a.start, a.end) == (b.start, b.end)
    gap = abs((a.mentioned_at - b.mentioned_at).total_seconds()) / 86400
    return gap <= config.event_window_days


def _status(e: Event) -> tuple[str, ...]:
    return tuple(sorted(h.status for h in e.happenings))


def event_actions(
    events: Sequence[Event],
    vectors: Vectors,
    config: ConsolidationConfig,
    polarity: Polarity,
    simplify: Callable[[str], str],
) -> list[Action]:
    buckets: dict[tuple[str, str, str, str], list[Event]] = defaultdict(list)
    for e in events:
        for kind in dict.fromkeys(e.kinds):
            buckets[(e.subject, e.speaker, _origin(e.source), kind)].append(e)
    into: dict[int, int] = {}
    out = []
    for sim, first, second in _pairs("event", buckets.values(), vectors, config.find_threshold, _agree):
        earlier, later = sorted((first, second), key=lambda e: (e.mentioned_at, _id(e)))
        rel = relation(
            simplify(earlier.text),
            simplify(later.text),
            first_keys=earlier.entity_keys,
            second_keys=later.entity_keys,
            polarity=polarity,
        )
        texts = (earlier.text, later.text)
        compatible = _same_time(earlier, later, config) and _status(earlier) == _status(later)
        if compatible and rel is Relation.SAME:
            target, member, kind, why = earlier, later, "merge", "the same happening said again"
        elif compatible and rel in (Relation.FIRST_MORE, Relation.SECOND_MORE):
            target, member = (earlier, later) if rel is Relation.FIRST_MORE else (later, earlier)
            kind, why = "update", "the fuller telling of the same happening absorbs the shorter"
        else:
            why = "another time" if not compatible else "related but distinct"
            out.append(Action("keep_separate", "event", _id(earlier), (_id(later),), sim, rel.value, texts, "", why))
            continue
        if _id(member) in into or _id(target) in into:
            continue
        into[_id(member)] = _id(target)
        out.append(Action(kind, "event", _id(target), (_id(member),), sim, rel.value, texts, target.text, why))
    return out
