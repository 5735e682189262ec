"""A plan called off in words that name its place rather than its kind ("the Lisbon conference
got cancelled"), or in negative words ("Vancouver's not happening anymore", 厦门去不成了): the
plan's conclusions are retracted; a denied call-off (行程没取消) retracts nothing."""

from __future__ import annotations

import pytest
from conversation import conclusions


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
        ("We're moving to Tucson in the new year.", "We decided against Tucson, staying put after all.", "Tucson"),
        ("我們下個月要搬去竹南。", "竹南的房子沒租成，還是先住苗栗。", "竹南"),
        ("我们下个月要搬去成都。", "成都的房子没租成，先不搬了。", "成都"),
    ],
)
def test_the_plan_is_called_off(memory, plan, off, place):
    found = conclusions(memory, plan, off)
    assert any(place in text for text, _ in found), found
    assert not any(place in text and active for text, active in found), found


@pytest.mark.parametrize(
    "plan,said",
    [
        ("下周去厦门玩。", "厦门的行程没取消，照常去。"),
        ("I'm going to Tokyo next week.", "The light is off in the kitchen."),
        ("I'm flying to Lisbon next month.", "We decided against the hotel downtown, booked one near the beach."),
    ],
)
def test_a_denied_or_unrelated_call_off_retracts_nothing(memory, plan, said):
    found = conclusions(memory, plan, said)
    assert found and all(active for _, active in found), found


@pytest.mark.parametrize(
    "text,place",
    [
        ("Heading to Montreal next Friday for my friend's wedding.", "Montreal"),
        ("Flying to Tokyo tomorrow for work.", "Tokyo"),
    ],
)
def test_a_trip_said_without_its_subject_is_the_speakers(memory, text, place):
    found = conclusions(memory, text)
    assert any(place in t and active for t, active in found), found


@pytest.mark.parametrize("text", ["Heading to bed now, night!", "Going to the gym later."])
def test_going_to_bed_is_no_trip(memory, text):
    assert conclusions(memory, text) == []


@pytest.mark.parametrize(
    "plan,moved,old,new",
    [
        (
            "I'm flying to Denver next Saturday for my cousin's wedding.",
            "The wedding got pushed to the 21st.",
            "2024-09-14",
            "2024-09-21",
        ),
        ("下周六要去泉州参加同学婚礼。", "婚礼改到21号了，机票也改签了。", "2024-09-14", "2024-09-21"),
        ("下週六要去台南參加同學婚禮。", "婚禮改到21號了，機票也改簽了。", "2024-09-14", "2024-09-21"),
    ],
)
def test_a_plan_moved_moves_all_that_was_set_for_its_day(memory, plan, moved, old, new):
    # the trip and the wedding were one plan: nothing is left concluded for the old day
    found = conclusions(memory, plan, moved)
    assert not any(old in t and active for t, active in found), found
    assert any(new in t and active for t, active in found), found
