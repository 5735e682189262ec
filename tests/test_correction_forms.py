"""A correction in the forms people use right after a slip: the rejected value first ("Wait,
not Nike, Adidas."), a remark after it (是常州不是苏州，刚才脑子糊涂了), slips named in other
words (记岔了, 手滑了), in English, Simplified and Traditional Chinese."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memtracks import Turn

T0 = datetime(2024, 9, 2, 9, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    "first,then,slot,old,new",
    [
        ("I work at Nike.", "Wait, not Nike, Adidas. Long day.", "employer", "Nike", "Adidas"),
        ("I live in Lisbon.", "Sorry, I meant Porto, not Lisbon.", "lives_in", "Lisbon", "Porto"),
        ("我住在苏州。", "是常州不是苏州，刚才脑子糊涂了。", "lives_in", "苏州", "常州"),
        ("我今年35岁。", "手滑了，应该是37岁。", "age", "35", "37"),
        # the 不是 negates the value after it, not the one before (negation has a scope)
        ("我今年27岁。", "记岔了，29岁不是27岁。", "age", "27", "29"),
        ("我住在台中。", "是彰化不是台中，剛剛講錯了。", "lives_in", "台中", "彰化"),
    ],
)
def test_the_slip_is_corrected(memory, first, then, slot, old, new):
    facts = _say_minutes_apart(memory, first, then)
    assert any(f.slot == slot and f.value == old and f.reason == "corrected" for f in facts), facts
    assert any(f.slot == slot and f.value == new and f.is_current for f in facts), facts


@pytest.mark.parametrize(
    "text,value,negated",
    [("我不住在北京。", "北京", True), ("我住在上海，不是北京。", "上海", False), ("我不太爱吃辣。", "吃辣", False)],
)
def test_a_chinese_negation_negates_what_follows_it(memory, text, value, negated):
    memory.write(Turn(text=text, speaker="user", user_id="u1", session_id="s1", turn_id="t0", timestamp=T0))
    facts = memory.facts("u1", include_negated=True)
    assert any(f.value == value and f.negated == negated for f in facts), facts


def _say_minutes_apart(memory, *texts):
    for i, text in enumerate(texts):
        memory.write(
            Turn(
                text=text,
                speaker="user",
                user_id="u1",
                session_id="s1",
                turn_id=f"t{i}",
                timestamp=T0 + timedelta(minutes=3 * i),
            )
        )
    return memory.facts("u1", include_superseded=True)


@pytest.mark.parametrize(
    "first,then,slot,old,new",
    [
        # a Chinese name no entity entry knows, held to its slot's typed check (圆通, 南亞科, 糯糯)
        ("我在中通快递上班。", "口误口误，是圆通，中通是我表哥那边。", "employer", "中通快递", "圆通"),
        ("我在旺宏上班。", "我是說南亞科，旺宏是我上一份工作。", "employer", "旺宏", "南亞科"),
        # the slip named after the value, an emoji or a marker after it (糯米🤣, "Pistachio*")
        ("我养了一只猫，叫糯米。", "打错字了，是糯糯不是糯米🤣", "pets", "糯米（猫）", "糯糯（猫）"),
        (
            "I have a whippet named Pistacio.",
            "lol typo, Pistachio* not Pistacio",
            "pets",
            "Pistacio (whippet)",
            "Pistachio (whippet)",
        ),
        # 講錯, 講錯咗 and 佢叫 (Cantonese: "it's called")
        ("我住在斗六。", "講錯，是斗南啦，斗六是我上班的地方", "lives_in", "斗六", "斗南"),
        ("我養咗隻柴犬叫菠蘿。", "講錯咗，佢叫蛋撻，菠蘿係我朋友隻狗嚟", "pets", "菠蘿（柴犬）", "蛋撻（柴犬）"),
        # "I mean X, <a remark>", "meant to type X" without its "I"
        (
            "I live in Leipzig.",
            "wait I mean Dresden, Leipzig is where I did my masters.",
            "lives_in",
            "Leipzig",
            "Dresden",
        ),
        ("I'm 36 btw.", "Sorry, meant to type 63. Fat fingers on this tiny keyboard.", "age", "36", "63"),
    ],
)
def test_a_slip_named_in_chat_words_is_corrected(memory, first, then, slot, old, new):
    facts = _say_minutes_apart(memory, first, then)
    assert any(f.slot == slot and f.value == old and f.reason == "corrected" for f in facts), facts
    assert any(f.slot == slot and f.value == new and f.is_current for f in facts), facts


@pytest.mark.parametrize(
    "first,then,slot,value",
    [
        ("我在中通快递上班。", "不对，是我弄错了，明天才发工资。", "employer", "中通快递"),
        ("我住在斗六。", "哦，是这样啊，那我下次注意。", "lives_in", "斗六"),
        ("我在旺宏上班。", "我是說今天，不是明天。", "employer", "旺宏"),
        ("I live in Leipzig.", "I mean, it's fine, whatever.", "lives_in", "Leipzig"),
    ],
)
def test_a_slip_word_without_a_value_of_the_slot_corrects_nothing(memory, first, then, slot, value):
    facts = _say_minutes_apart(memory, first, then)
    assert [(f.value, f.reason) for f in facts if f.slot == slot] == [(value, None)], facts


@pytest.mark.parametrize(
    "first,then,old,new",
    [
        (
            "I'm off to Amsterdam next Tuesday for a work thing.",
            "Actually turns out it's Thursday, not Tuesday, I misread the invite.",
            "2024-09-10",
            "2024-09-12",
        ),
        (
            "I'm flying to Tallinn next Wednesday for a workshop.",
            "Correction: the workshop is on Friday the 13th, not Wednesday.",
            "2024-09-11",
            "2024-09-13",
        ),
        ("下周三我要去宜昌出差。", "我是说下周五，不是周三。", "2024-09-11", "2024-09-13"),
        ("下週三我要去台南出差。", "我是說下週五，不是週三。", "2024-09-11", "2024-09-13"),
    ],
)
def test_a_mis_said_day_moves_what_was_concluded(memory, first, then, old, new):
    _say_minutes_apart(memory, first, then)
    found = [(i.text, i.is_active) for i in memory.inferences("u1", include_retracted=True)]
    assert any(old in t and not active for t, active in found), found
    assert any(new in t and active for t, active in found), found


def test_a_day_that_is_not_the_one_said_corrects_nothing(memory):
    _say_minutes_apart(memory, "I'm off to Amsterdam next Tuesday.", "Actually it's Thursday, not Monday.")
    found = [(i.text, i.is_active) for i in memory.inferences("u1", include_retracted=True)]
    assert found and all(active for _, active in found) and all("2024-09-10" in t for t, _ in found), found
