""" "Going to" before a verb is the future, not a journey: "I'm going to start working at
Zalando" is a new job, never a trip to "start working at Zalando", and no one needs to look
after the cat for it. A trip said with a place stays a trip, in English and Chinese."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

T0 = datetime(2024, 6, 1, 9, tzinfo=timezone.utc)


def _said(memory, text: str):
    memory.write("My cat is named Pixel.", user_id="u", timestamp=T0)
    return memory.write(text, user_id="u", timestamp=T0)


@pytest.mark.parametrize(
    "text",
    [
        "I'm going to start working at Zalando next month.",
        "We are going to open a bakery in Lyon next year.",
        "我下个月要去腾讯上班。",
    ],
)
def test_a_verb_after_going_to_is_no_trip(memory, text):
    result = _said(memory, text)
    assert "trip" not in {h.kind for h in result.event.happenings}
    assert not any("away from home" in i.text or "look after" in i.text for i in result.inferences)


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("I'm going to Paris next month.", "Paris"),
        ("I'm flying to Tokyo next week.", "Tokyo"),
        ("我下周去上海出差。", "上海"),
    ],
)
def test_a_trip_with_a_place_stays_a_trip(memory, text, place):
    result = _said(memory, text)
    trips = [h for h in result.event.happenings if h.kind == "trip"]
    assert trips and place in trips[0].args.get("place", "")
