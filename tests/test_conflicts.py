"""Conflict detection as a pure function: supersede, reinforce, negate, accumulate."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta, timezone

import pytest

from memtracks.data.catalogue import default_catalogue
from memtracks.pipeline.conflicts import resolve_conflicts
from memtracks.records import SlotValue

T0 = datetime(2024, 1, 1, 9, tzinfo=timezone(timedelta(hours=8)))


def value(
    slot, val, key=None, *, subject="user", negated=False, historical=False, lang="en", valid_from=None, qualifier=None
):
    return SlotValue(
        subject,
        slot,
        val,
        key if key is not None else val.lower(),
        (0, 0),
        "test",
        lang,
        negated=negated,
        historical=historical,
        valid_from=valid_from,
        qualifier=qualifier,
    )


class Ledger:
    """Apply turns one after another, as the store would."""

    def __init__(self):
        self.facts = {}
        self.ids = itertools.count(1)

    def say(self, values, day=0, turn="t"):
        changes = resolve_conflicts(
            values,
            list(self.facts.values()),
            catalogue=default_catalogue(),
            user_id="u1",
            turn_id=f"{turn}{day}",
            at=T0 + timedelta(days=day),
            new_id=lambda: next(self.ids),
        )
        for f in changes.all_facts():
            self.facts[f.id] = f
        return changes

    def current(self, slot):
        return sorted(f.value for f in self.facts.values() if f.slot == slot and f.is_current and not f.negated)


@pytest.mark.parametrize("old,new,lang", [("Beijing", "Shanghai", "en"), ("北京", "上海", "zh")])
def test_conflicts_single_valued_slot_supersedes(old, new, lang):
    ledger = Ledger()
    first = ledger.say([value("lives_in", old, lang=lang)], day=0).added[0]
    changes = ledger.say([value("lives_in", new, lang=lang)], day=30)
    second = changes.added[0]
    before = ledger.facts[first.id]
    assert before.superseded_by == second.id
    assert before.valid_to == second.valid_from == T0 + timedelta(days=30)
    assert ledger.current("lives_in") == [new]
    assert len(ledger.facts) == 2  # nothing deleted
    assert changes.ended == (first.id,)


@pytest.mark.parametrize("val,lang", [("Shanghai", "en"), ("上海", "zh")])
def test_conflicts_repeat_reinforces_without_duplicate(val, lang):
    ledger = Ledger()
    ledger.say([value("lives_in", val, lang=lang)], day=0)
    changes = ledger.say([value("lives_in", val, lang=lang)], day=5, turn="again")
    assert not changes.added
    [fact] = ledger.facts.values()
    assert fact.mention_count == 2
    assert fact.last_seen == T0 + timedelta(days=5)
    assert fact.source_turn_ids == ("t0", "again5")
    assert changes.touched == (fact.id,)


@pytest.mark.parametrize("slot,val,lang", [("lives_in", "Beijing", "en"), ("likes", "吃辣", "zh")])
def test_conflicts_negation_ends_validity(slot, val, lang):
    ledger = Ledger()
    first = ledger.say([value(slot, val, lang=lang)], day=0).added[0]
    changes = ledger.say([value(slot, val, negated=True, lang=lang)], day=10)
    marker = changes.added[0]
    ended = ledger.facts[first.id]
    assert marker.negated and ended.superseded_by == marker.id
    assert ended.valid_to == T0 + timedelta(days=10)
    assert ledger.current(slot) == []


def test_conflicts_negation_without_value_ends_current():
    ledger = Ledger()
    ledger.say([value("employer", "Google")])
    ledger.say([value("employer", "", negated=True)], day=3)
    assert ledger.current("employer") == []


def test_conflicts_chinese_negation_matches_by_containment():
    ledger = Ledger()
    ledger.say([value("likes", "辣", lang="zh")])
    ledger.say([value("likes", "吃辣", negated=True, lang="zh")], day=1)
    assert ledger.current("likes") == []


@pytest.mark.parametrize("values,lang", [(["hiking", "jazz", "sushi"], "en"), (["爬山", "游泳"], "zh")])
def test_conflicts_multi_valued_slot_accumulates(values, lang):
    ledger = Ledger()
    for day, v in enumerate(values):
        ledger.say([value("likes", v, lang=lang)], day=day)
    assert ledger.current("likes") == sorted(values)


def test_conflicts_opposite_slot_is_ended():
    ledger = Ledger()
    ledger.say([value("likes", "coffee")])
    ledger.say([value("dislikes", "coffee")], day=2)
    assert ledger.current("likes") == [] and ledger.current("dislikes") == ["coffee"]


def test_conflicts_turn_written_out_of_order_is_filed_as_history():
    ledger = Ledger()
    current = ledger.say([value("lives_in", "Shanghai")], day=100).added[0]
    older = ledger.say([value("lives_in", "Beijing")], day=50).added[0]  # said earlier, written later
    assert older.superseded_by == current.id and older.valid_to == current.valid_from
    assert ledger.current("lives_in") == ["Shanghai"]


def test_conflicts_coarse_time_does_not_start_before_replaced_value():
    ledger = Ledger()
    old = ledger.say([value("lives_in", "Boston")], day=9).added[0]
    new = ledger.say([value("lives_in", "Seattle", valid_from=T0)], day=40).added[0]  # "last month"
    assert new.valid_from == old.valid_from == ledger.facts[old.id].valid_to


def test_conflicts_historical_statement_does_not_replace_current():
    ledger = Ledger()
    ledger.say([value("lives_in", "Shanghai")])
    changes = ledger.say([value("lives_in", "Paris", historical=True)], day=1)
    assert changes.added[0].valid_to is not None
    assert ledger.current("lives_in") == ["Shanghai"]


def test_conflicts_historical_statement_of_current_value_ends_it():
    ledger = Ledger()
    ledger.say([value("lives_in", "Paris")])
    ledger.say([value("lives_in", "Paris", historical=True)], day=1)
    assert ledger.current("lives_in") == []


def test_conflicts_named_pet_refines_unnamed_one():
    ledger = Ledger()
    ledger.say([value("pets", "cat", "cat")])
    ledger.say([value("pets", "Luna (cat)", "luna", qualifier="cat")], day=1)
    assert ledger.current("pets") == ["Luna (cat)"]


def test_conflicts_subjects_are_kept_apart():
    ledger = Ledger()
    ledger.say([value("car", "Model Y", "model_y")])
    ledger.say([value("car", "Model 3", "model_3", subject="user's friend")], day=1)
    cars = {(f.subject, f.value) for f in ledger.facts.values() if f.is_current}
    assert cars == {("user", "Model Y"), ("user's friend", "Model 3")}


def test_conflicts_same_turn_values_apply_in_order():
    ledger = Ledger()
    changes = ledger.say([value("lives_in", "Beijing"), value("lives_in", "Shanghai")])
    assert [f.value for f in changes.added] == ["Beijing", "Shanghai"]
    assert ledger.current("lives_in") == ["Shanghai"]


def test_conflicts_does_not_mutate_its_input():
    ledger = Ledger()
    first = ledger.say([value("lives_in", "Beijing")]).added[0]
    snapshot = list(ledger.facts.values())
    resolve_conflicts(
        [value("lives_in", "Shanghai")],
        snapshot,
        catalogue=default_catalogue(),
        user_id="u1",
        turn_id="x",
        at=T0 + timedelta(days=1),
        new_id=lambda: 99,
    )
    assert snapshot[0] == first and first.is_current
