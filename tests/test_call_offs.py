"""A plan called off in words that name its place rather than its kind ("the Lisbon conference
got cancelled"), or in negative words ("Vancouver's not happening anymore", 厦门去不成了): the
plan's conclusions are retracted; a denied call-off (行程没取消) retracts nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from conversation import say


def _conclusions(memory, *texts):
    say(memory, *texts, every=timedelta(days=2))
    return [(i.text, i.is_active) for i in memory.inferences("u1", include_retracted=True)]


@pytest.mark.parametrize(
    "plan,off,place",
    [
        (
            "I'm flying to Lisbon next month for a conference.",
            "The Lisbon conference got cancelled, so no trip.",
            "Lisbon",
        ),
        ("We're going to Vancouver on the 20th.", "Vancouver's not happening anymore, work got crazy.", "Vancouver"),
        ("下周去厦门玩。", "厦门去不成了，公司临时有事。", "厦门"),
        ("下週要去花蓮玩。", "花蓮去不成了，颱風要來。", "花蓮"),
    ],
)
def test_the_plan_is_called_off(memory, plan, off, place):
    found = _conclusions(memory, plan, off)
    assert any(place in text for text, _ in found), found
    assert not any(place in text and active for text, active in found), found


@pytest.mark.parametrize(
    "plan,said",
    [
        ("下周去厦门玩。", "厦门的行程没取消，照常去。"),
        ("I'm going to Tokyo next week.", "The light is off in the kitchen."),
    ],
)
def test_a_denied_or_unrelated_call_off_retracts_nothing(memory, plan, said):
    found = _conclusions(memory, plan, said)
    assert found and all(active for _, active in found), found
