"""How many children the speaker has is one value: a new count replaces the old one ("I have
two kids", then "Baby number three arrived, so that's three kids now!"; 老二出生了，現在有兩個小孩了),
said without a subject it is the speaker's (not the newborn's), and someone else's count or a
count of other children is not the speaker's."""

from __future__ import annotations

from datetime import timedelta

import pytest
from conversation import T0, held, say


@pytest.mark.parametrize(
    "before,after,now,question",
    [
        (
            "I have two kids.",
            "Baby number three arrived, so that's three kids now!",
            "three kids",
            "How many kids do I have?",
        ),
        (
            "I have one kid.",
            "We had twins, so three kids now. Send coffee.",
            "three kids",
            "How many children do I have?",
        ),
        ("我有一个孩子。", "二胎出生了，家里现在两个孩子。", "两个孩子", "我有几个孩子？"),
        ("我有两个孩子。", "老三出生了，现在三个孩子了。", "三个孩子", "我有几个孩子？"),
        ("我有一個小孩。", "老二出生了，現在有兩個小孩了。", "兩個小孩", "我有幾個小孩？"),
    ],
)
def test_a_new_count_replaces_the_old(memory, before, after, now, question):
    say(memory, before, after, every=timedelta(days=300))
    current, past = held(memory, "number_of_children")
    assert current == [now] and len(past) == 1, (current, past)
    cards = memory.retrieve(question, user_id="u1", now=T0 + timedelta(days=320)).cards
    assert now in cards[0].text, [c.text for c in cards]


@pytest.mark.parametrize(
    "text,subject",
    [
        ("My sister has three kids.", "user's sister"),
        ("I teach two kids in the afternoon.", None),
        ("我们班有两个孩子生病了。", None),
    ],
)
def test_someone_elses_children_are_not_the_speakers(memory, text, subject):
    say(memory, text)
    assert held(memory, "number_of_children") == ([], [])
    if subject:
        assert held(memory, "number_of_children", subject)[0], memory.facts("u1")
