"""Relationships ending in the words people use: the divorce said as done ("The divorce went
through"), the other one named first (婷婷跟我提了分手), a partner named without a surname
(我老公叫志明); a relation word is no partner's name (我和男朋友领证了); and a conclusion whose
own fact was replaced leaves the present ("user is married" after the divorce)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from conversation import T0, say


def _facts(memory, slot):
    return memory.facts("u1", slot=slot, include_superseded=True, include_negated=True)


def _current(memory, slot):
    return sorted(f.value for f in _facts(memory, slot) if f.is_current and not f.negated)


@pytest.mark.parametrize(
    "before,after,partner",
    [
        ("My husband Dan and I are planning a trip.", "The divorce is final as of last week.", "Dan"),
        ("My wife Priya is a nurse.", "Our divorce was finalized on Friday, it's been a long year.", "Priya"),
        ("我女朋友叫婷婷。", "婷婷跟我提了分手，我们结束了。", "婷婷"),
        ("我老公叫志明。", "我和志明離婚了，小孩跟我。", "志明"),
        ("我老公叫志明。", "我和志明离婚了，孩子跟我。", "志明"),
    ],
)
def test_the_partner_ends(memory, before, after, partner):
    say(memory, before, after, every=timedelta(days=60))
    partners = _facts(memory, "partner")
    assert any(partner in f.value and not f.negated for f in partners), partners  # the first turn named them
    assert not any(partner in v for v in _current(memory, "partner")), partners


@pytest.mark.parametrize(
    "before,after,status",
    [
        ("I'm married, twelve years now.", "The divorce went through, so it's just me now.", "divorced"),
        ("我老公叫志明。", "我和志明离婚了，孩子跟我。", "离异"),
        ("我老公叫志明。", "我和志明離婚了，小孩跟我。", "離異"),
    ],
)
def test_the_speaker_is_divorced(memory, before, after, status):
    say(memory, before, after, every=timedelta(days=60))
    assert _current(memory, "relationship_status") == [status]
    assert all(f.subject == "user" for f in _facts(memory, "relationship_status"))


@pytest.mark.parametrize(
    "before,after,question,now",
    [
        (
            "I'm married, twelve years now.",
            "The divorce went through, so it's just me now.",
            "Am I married?",
            "divorced",
        ),
        ("我和阿杰上个月结婚了。", "我和阿杰离婚了，孩子跟我。", "我现在结婚了吗？", ("离婚", "不再是阿杰")),
    ],
)
def test_a_conclusion_whose_fact_was_replaced_leaves_the_present(memory, before, after, question, now):
    """The conclusion stays (a question about the past reaches it), but not among the cards of now."""
    say(memory, before, after, every=timedelta(days=60))
    cards = memory.retrieve(question, user_id="u1", now=T0 + timedelta(days=90)).cards
    assert any(word in cards[0].text for word in now), [c.text for c in cards]
    assert not any(c.track == "inference" for c in cards), [c.text for c in cards]


@pytest.mark.parametrize(
    "text",
    ["告诉你个好消息，我和男朋友领证了！", "跟你說，我跟男朋友登記結婚了！", "I married my boyfriend last week."],
)
def test_a_relation_word_is_no_partners_name(memory, text):
    say(memory, "I'm single." if text.isascii() else "我还是单身。", text)
    assert not any(f.value.startswith(("男朋", "boyfriend")) for f in _facts(memory, "partner"))
