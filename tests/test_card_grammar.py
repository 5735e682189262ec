"""The compact card grammar: a date given once, a confidence only where it is unsure, a range
written short — in English, Simplified and Traditional Chinese, with the real writer."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest

from memtracks import Turn
from memtracks.pipeline.timenorm import normalize_time
from memtracks.retrieval.cards import count_tokens, repeats_day, resolved, with_dates
from memtracks.tracks.base import SURE, confidence_note, noted

CST = timezone(timedelta(hours=8))
SAID = datetime(2024, 6, 26, 15, tzinfo=CST)  # a Wednesday


def _cards(memory, text, question, *, speaker="user", when=SAID):
    memory.write(Turn(text, speaker=speaker, user_id="u1", timestamp=when, session_id="s1"))
    return memory.retrieve(question, user_id="u1", now=when + timedelta(days=30)).cards


@pytest.mark.parametrize(
    "text,lang,kept,bracketed",
    [
        ("I finally finished the marathon today and tomorrow I rest.", "en", "today", "[2024-06-27]"),
        ("This month was hectic; next month I start the new job.", "en", "This month", "[2024-07]"),
        ("今天终于跑完了马拉松，明天休息。", "zh", "今天", "[2024-06-27]"),
        ("这个月太忙了，下个月去新公司上班。", "zh", "这个月", "[2024-07]"),
        ("今年太累了，明年想換個工作。", "zh", "今年", "[2025]"),
    ],
)
def test_a_time_that_repeats_the_day_said_is_not_bracketed_again(text, lang, kept, bracketed):
    times = normalize_time(text, SAID, lang=lang)
    out = with_dates(text, times, SAID)
    assert bracketed in out  # a time that says something new keeps its date
    assert out.count("[") == 1  # the other only repeats the card's day, month or year
    assert kept in out
    assert with_dates(text, times).count("[") == 2  # without the day said, both are dated


@pytest.mark.parametrize(
    "text,lang",
    [("I'll call you tonight at 8pm.", "en"), ("今晚八点给你打电话。", "zh"), ("大概两周前我去了趟杭州。", "zh")],
)
def test_a_time_that_adds_to_the_day_is_kept(text, lang):
    """An hour adds to the day said; an approximate day is its own reading."""
    times = normalize_time(text, SAID, lang=lang)
    assert times and not any(repeats_day(t, SAID) for t in times)
    assert with_dates(text, times, SAID) == with_dates(text, times)


@pytest.mark.parametrize(
    "text,lang,said,expected",
    [
        ("last week", "en", SAID, "2024-06-17..23"),  # one month: the end is its day
        ("上周", "zh", SAID, "2024-06-17..23"),
        ("上週", "zh", SAID, "2024-06-17..23"),
        ("last week", "en", datetime(2024, 6, 5, 12, tzinfo=CST), "2024-05-27..06-02"),  # across a month
        ("上周", "zh", datetime(2025, 1, 8, 12, tzinfo=CST), "2024-12-30..2025-01-05"),  # across a year: whole
    ],
)
def test_a_range_drops_what_its_end_shares_with_its_start(text, lang, said, expected):
    (mention,) = normalize_time(text, said, lang=lang)
    assert resolved(mention) == expected


def test_confidence_is_named_only_below_sure():
    assert confidence_note(0.9, zh=False) == "" and confidence_note(SURE, zh=True) == ""
    assert confidence_note(0.6, zh=False) == "conf 0.60"
    assert confidence_note(0.42, zh=True) == "置信度 0.42"
    assert noted(["", "since 2024-05-01"], zh=False) == " (since 2024-05-01)"
    assert noted(["置信度 0.60", "自 2024-05-01", ""], zh=True) == "（置信度 0.60，自 2024-05-01）"
    assert noted(["", ""], zh=True) == ""


@pytest.mark.parametrize(
    "text,question,slot_words",
    [
        ("I live in Lisbon now.", "Where do I live?", "lives in: Lisbon (since 2024-06-26)"),
        ("我住在上海。", "我住在哪里？", "居住地：上海（自 2024-06-26）"),
        ("我住在台北。", "我住在哪裡？", "居住地：台北（自 2024-06-26）"),
    ],
)
def test_a_sure_fact_card_names_no_confidence(memory, text, question, slot_words):
    cards = _cards(memory, text, question)
    fact = next(c for c in cards if c.track == "fact")
    assert fact.text.endswith(slot_words)
    assert fact.confidence >= SURE  # the figure is still on the card object
    assert "conf" not in fact.text and "置信度" not in fact.text


@pytest.mark.parametrize(
    "pet,trip,question",
    [
        (
            "I have a cat named Pixel.",
            "I'm flying to Beijing next Wednesday for a conference.",
            "Who will look after Pixel while I travel?",
        ),
        ("我家有只猫叫咪咪。", "我下周三要去北京出差。", "我出差的时候谁照顾咪咪？"),
        ("我家有隻貓叫咪咪。", "我下週三要去台中出差。", "我出差的時候誰照顧咪咪？"),
    ],
)
def test_an_event_card_names_no_confidence_and_a_conclusion_does(memory, pet, trip, question):
    memory.write(Turn(pet, speaker="user", user_id="u1", timestamp=SAID - timedelta(days=3), session_id="s0"))
    memory.write(Turn(trip, speaker="user", user_id="u1", timestamp=SAID, session_id="s1"))
    cards = memory.retrieve(question, user_id="u1", now=SAID + timedelta(days=3)).cards
    event = next(c for c in cards if c.track == "temporal" and "2024-07-03" in c.text)
    assert "[2024-07-03]" in event.text  # the day it is about, once
    assert not re.search(r"\(conf \d|置信度", event.text)
    assert 0 < event.confidence < 1  # the figure stays on the card object
    pets = next(c for c in cards if c.track == "fact")
    assert pets.confidence >= SURE and not re.search(r"\(conf \d|置信度", pets.text)
    guess = next(c for c in cards if c.track == "inference")  # a conclusion is a guess: it says how sure
    assert guess.confidence < SURE
    assert re.search(r"\(conf 0\.60, from: |（置信度 0\.60，来源：", guess.text)


def test_the_grammar_costs_fewer_tokens_than_the_old_one(memory):
    """The same card as the old grammar wrote it (a confidence on every card, every time
    bracketed, a range written whole) is longer, in both languages."""
    for text, question in [
        ("Today I adopted a puppy, and last week I moved to Porto.", "When did I move to Porto?"),
        ("今天我领养了一只小狗，上周搬到了杭州。", "我什么时候搬到杭州的？"),
    ]:
        card = next(c for c in _cards(memory, text, question) if c.track == "temporal")
        old_tail = " (conf 0.80)" if text.isascii() else "（置信度 0.80）"
        assert "[2024-06-17..23]" in card.text
        old = card.text.replace("[2024-06-17..23]", "[2024-06-17..2024-06-23]") + old_tail
        assert count_tokens(card.text) + 8 <= count_tokens(old)
