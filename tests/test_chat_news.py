"""News of a change as chat tells it, without the words a form would use, in English,
Simplified and Traditional Chinese:

- a lease signed or a house closed on in a place, 落户 a city: a move (planned when said ahead);
- a badge handed in, a desk cleared out: the job is over;
- "Starting at EY on Monday" (no "I"), 提了离职，下个月去拼多多: the next employer, planned;
- "Baby number three arrived": one more child."""

from __future__ import annotations

from datetime import timedelta

import pytest
from conversation import fact_states, say

_DAYS = timedelta(days=20)


def _now(memory, slot: str) -> list[str]:
    """The values of ``slot`` that hold or are planned, the old ones left out."""
    facts = memory.facts("u1", slot=slot, include_planned=True)
    return sorted(f.value for f in facts if f.subject == "user")


@pytest.mark.parametrize(
    "before,after,new",
    [
        ("I live in Austin.", "Just signed a lease in Portland, moving in on the 1st.", "Portland"),
        ("I live in Boston.", "We close on the house in Providence next Friday.", "Providence"),
        ("我住在杭州。", "落户苏州了，终于", "苏州"),
        ("我住在台南。", "終於落戶高雄了", "高雄"),
    ],
)
def test_a_home_taken_in_a_place_is_a_move(memory, before, after, new):
    say(memory, before, after, every=_DAYS)
    assert _now(memory, "lives_in") == [new]


def test_a_lease_signed_for_someone_else_moves_no_one(memory):
    say(memory, "I live in Austin.", "My sister just signed a lease in Portland.", every=_DAYS)
    assert fact_states(memory, "lives_in") == {"Austin": "current"}


@pytest.mark.parametrize(
    "before,after,old",
    [
        ("I work at Target.", "Handed in my badge at Target today. Onto the next thing!", "Target"),
        ("I work at Salesforce.", "Cleared out my desk at Salesforce today, weird feeling.", "Salesforce"),
    ],
)
def test_a_badge_handed_in_ends_the_job(memory, before, after, old):
    say(memory, before, after, every=_DAYS)
    assert fact_states(memory, "employer") == {old: "ended"}


@pytest.mark.parametrize(
    "before,after,new",
    [
        ("I work at Deloitte.", "Starting at EY on Monday, can't believe it.", "EY"),
        ("我在美团上班。", "美团那边我已经提了离职，下个月去拼多多", "拼多多"),
        ("我在誠品上班。", "上週辭職了，下個月去台積電", "台積電"),
    ],
)
def test_the_next_employer_said_in_passing_is_planned(memory, before, after, new):
    say(memory, before, after, every=_DAYS)
    planned = [f.value for f in memory.facts("u1", slot="employer", include_planned=True) if f.planned]
    assert planned == [new]


def test_a_friend_starting_somewhere_is_not_the_speakers_job(memory):
    say(memory, "我在美团上班。", "我同事辞职了，下个月去拼多多", every=_DAYS)
    assert [f.value for f in memory.facts("u1", slot="employer", include_planned=True)] == ["美团"]


@pytest.mark.parametrize(
    "before,after,count",
    [
        ("We have two kids.", "Baby number three arrived Tuesday!", "three kids"),
        ("I have one kid.", "Baby number two arrived last night!! 7lbs 2oz", "two kids"),
    ],
)
def test_a_numbered_baby_arrived_adds_a_child(memory, before, after, count):
    say(memory, before, after, every=_DAYS)
    assert _now(memory, "number_of_children") == [count]


@pytest.mark.parametrize(
    "before,after,old,new",
    [
        ("我在字节跳动做产品经理。", "上周五在字节办完离职，这周一去阿里报到了，园区好大", "字节跳动", "阿里"),
        ("我在家樂福上班。", "上週五辦完離職，這週一去全聯報到了", "家樂福", "全聯"),
        ("I work at Deloitte.", "Left Deloitte on Friday and started at KPMG this Monday.", "Deloitte", "KPMG"),
    ],
)
def test_a_job_left_before_and_the_new_one_started_today(memory, before, after, old, new):
    """A past day said for the leaving does not make today's start a plan, and the firm left
    (在字节办完离职) is the firm, not 字节办完."""
    say(memory, before, after, every=timedelta(days=69, hours=23))
    states = fact_states(memory, "employer")
    assert states.get(new) == "current" and states.get(old) in ("replaced", "ended")
    assert set(states) == {old, new}
