"""Moves and job endings in everyday words, in English, Simplified and Traditional Chinese:
"we finally settled in", 在长沙落脚了, "handed in my notice at", "I officially retired",
被网易优化了, 退休了, 那份工作我不干了."""

from __future__ import annotations

import pytest
from conversation import say


def _facts(memory, *texts):
    say(memory, *texts)
    return memory.facts("u1", include_superseded=True)


@pytest.mark.parametrize(
    "first,then,old,new",
    [
        ("I live in Toronto.", "We finally settled in New Zealand for good.", "Toronto", "New Zealand"),
        ("我住在武汉。", "折腾了大半年，总算在长沙落脚了。", "武汉", "长沙"),
        ("我住在台北。", "兜了一大圈，最後在台南落腳了。", "台北", "台南"),
    ],
)
def test_a_move_in_other_words(memory, first, then, old, new):
    facts = _facts(memory, first, then)
    assert any(f.slot == "lives_in" and f.value == new and f.is_current for f in facts), facts
    assert any(f.slot == "lives_in" and f.value == old and not f.is_current for f in facts), facts


@pytest.mark.parametrize(
    "first,then,org",
    [
        ("I work at Barclays.", "I handed in my notice at Barclays yesterday.", "Barclays"),
        ("I work at Boeing.", "I officially retired last Friday.", "Boeing"),
        ("我在网易上班。", "我被网易优化了。", "网易"),
        ("我在中石化上班。", "我上个月退休了。", "中石化"),
        ("我在拼多多上班。", "那份工作我不干了。", "拼多多"),
    ],
)
def test_a_job_ends_in_other_words(memory, first, then, org):
    facts = _facts(memory, first, then)
    held = [f for f in facts if f.slot == "employer" and f.value == org]
    assert held and not any(f.is_current for f in held), facts


@pytest.mark.parametrize(
    "text", ["Our family ended up in a tough spot last year.", "I wonder if we'll ever settle in one place."]
)
def test_no_move(memory, text):
    assert not [f for f in _facts(memory, text) if f.slot == "lives_in"]


@pytest.mark.parametrize(
    "first,then,old,new",
    [
        ("I'm 29.", "Turned 30 on Tuesday, feeling old.", "29", "30"),
        ("我今年30岁。", "过完生日我就31了。", "30", "31"),
        ("我今年30歲。", "過完生日就31歲了。", "30", "31"),
    ],
)
def test_an_age_after_a_birthday(memory, first, then, old, new):
    facts = _facts(memory, first, then)
    assert any(f.slot == "age" and f.value == new and f.is_current for f in facts), facts
    assert any(f.slot == "age" and f.value == old and not f.is_current for f in facts), facts


@pytest.mark.parametrize("text", ["It turned 30 degrees today.", "My son just turned 7."])
def test_no_age_of_the_speaker(memory, text):
    assert not [f for f in _facts(memory, text) if f.slot == "age" and f.subject == "user"]


@pytest.mark.parametrize(
    "first,then,slot,value",
    [
        (
            "I drive a Toyota Corolla.",
            "I gave the Corolla to my nephew since he just got his license.",
            "car",
            "Toyota Corolla",
        ),
        ("我开一辆高尔夫。", "高尔夫出车祸撞报废了，现在天天坐地铁。", "car", "高尔夫"),
        ("我開一台福特Focus。", "福特Focus給我弟開了。", "car", "福特Focus"),
        ("I have a cat named Clover.", "We rehomed Clover with my aunt, my allergies got bad.", "pets", "Clover (cat)"),
        ("我养了一只狗叫旺财。", "旺财上周去世了。", "pets", "旺财（狗）"),
        ("我養了一隻狗叫阿福。", "阿福當小天使了，十四歲。", "pets", "阿福（狗）"),
        ("我养了一只猫叫咪咪。", "咪咪送给朋友养了。", "pets", "咪咪（猫）"),
    ],
)
def test_a_thing_handed_on_or_a_pet_gone_ends(memory, first, then, slot, value):
    facts = _facts(memory, first, then)
    held = [f for f in facts if f.slot == slot and f.value == value]
    assert held and not any(f.is_current for f in held), facts
    assert not any(f.subject != "user" for f in facts if f.slot == slot), facts


@pytest.mark.parametrize(
    "first,then",
    [
        ("I drive a Honda Civic.", "I put the Civic in the garage."),
        ("I drive a Toyota Corolla.", "I gave my mom a ride in the Corolla."),
    ],
)
def test_a_car_used_is_kept(memory, first, then):
    facts = _facts(memory, first, then)
    assert any(f.slot == "car" and f.is_current for f in facts), facts


@pytest.mark.parametrize(
    "first,then,new",
    [
        ("I'm married.", "Dan and I are getting divorced, it's been a hard year.", "divorced"),
        ("我已婚。", "我们上个月办完离婚手续了。", "离异"),
        ("我已婚。", "我們去年已經離婚了。", "離異"),
    ],
)
def test_a_divorce_replaces_the_status(memory, first, then, new):
    facts = _facts(memory, first, then)
    assert any(f.slot == "relationship_status" and f.value == new and f.is_current for f in facts), facts


@pytest.mark.parametrize("text", ["我想过离婚了吗？", "他们离婚了。"])
def test_no_divorce_of_the_speaker(memory, text):
    assert not [f for f in _facts(memory, text) if f.slot == "relationship_status" and f.subject == "user"]


@pytest.mark.parametrize(
    "first,then,slot,value",
    [
        ("I'm vegetarian.", "I'm eating meat again, doctor's orders.", "diet", "vegetarian"),
        ("我吃素很多年了。", "我最近开荤了，健身需要蛋白质。", "diet", "吃素"),
        ("我吃素很多年了。", "我最近開葷了，健身需要蛋白質。", "diet", "吃素"),
        # the statement reader: a Traditional clause names a Traditional value as written
        ("我對蝦子過敏。", "我現在對蝦子不過敏了。", "allergies", "蝦子"),
    ],
)
def test_a_diet_or_an_allergy_ends(memory, first, then, slot, value):
    facts = _facts(memory, first, then)
    held = [f for f in facts if f.slot == slot and f.value == value]
    assert held and not any(f.is_current for f in held), facts


def test_someone_elses_meat_ends_nothing(memory):
    facts = _facts(memory, "I'm vegetarian.", "My brother is eating meat again.")
    assert any(f.slot == "diet" and f.value == "vegetarian" and f.is_current for f in facts), facts


def test_a_trade_in_replaces_the_car(memory):
    facts = _facts(memory, "I drive a Ford Focus.", "Traded in the Focus for a Kia EV6 on Saturday.")
    assert any(f.slot == "car" and f.value == "Kia EV6" and f.is_current for f in facts), facts
    assert any(f.slot == "car" and f.value == "Ford Focus" and not f.is_current for f in facts), facts
