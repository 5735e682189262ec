"""Change told in passing, probe set sixteen's round, in English, Simplified and Traditional
Chinese:

- how long one has been at a firm ("I've been at Medtronic almost six years"), "my firm is
  BDO", a firm named with a Latin word for the work (我喺匯豐做compliance; 在北京做project names
  no firm);
- a plan beside where one lives now ("We live in Sacramento but we're moving to Boise in
  November"): Sacramento holds, Boise is planned, and "ok scratch Boise..." calls it off; an
  engagement with the wedding to come stays an engagement;
- 证也领了 is a marriage; corrections after 说错城市了 and 手机选字乱跳; 劈咗炮 and the last day
  at a firm (喺匯豐最後一日: 最后一日 is no time, not 后一日) end the employer, as does retiring
  from 厂里 (the one firm held); a trade-in (trade-in, 换咗部) names the new car;
- a pet named after its kind at home (我家猫年糕最近…), never with 叫 (我家狗狗叫豆豆: 豆豆);
- what an allergy test found (查了过敏原，结果是大豆) adds an allergy; "cleared for shellfish"
  ends one, "the vegan thing didn't stick" the diet.

Each with look-alikes that must change nothing."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from conversation import T0, fact_states, held, say, states_after

from memtracks.pipeline.timenorm import normalize_time


@pytest.mark.parametrize(
    "text,employer",
    [
        (
            "Quick question about a 401k. I've been at Medtronic almost six years so there's a decent amount.",
            "Medtronic",
        ),
        ("my firm is BDO, busy season is brutal", "BDO"),
        ("我喺匯豐做compliance，日日OT到九點。", "匯豐"),
        ("我在北京做project，挺忙的", None),
    ],
)
def test_a_firm_said_by_time_there_by_what_it_is_or_with_a_latin_word_for_the_work(memory, text, employer):
    say(memory, text)
    assert held(memory, "employer") == ([employer] if employer else [], [])


def test_a_plan_beside_where_one_lives_then_called_off(memory):
    say(
        memory,
        "We live in Sacramento but we're moving to Boise in November!! which neighborhoods should we look at?",
        "ok scratch Boise... the transfer got denied so we're staying put in Sacramento for the foreseeable.",
        every=timedelta(days=20),
    )
    then = memory.facts("u1", slot="lives_in", as_of=T0 + timedelta(hours=1), include_planned=True)
    assert sorted((f.value, f.planned) for f in then) == [("Boise", True), ("Sacramento", False)]
    states = fact_states(memory, "lives_in")
    assert states["Boise"] == "cancelled"
    now = memory.facts("u1", slot="lives_in", as_of=T0 + timedelta(days=90))
    assert [f.value for f in now] == ["Sacramento"]


def test_an_engagement_with_the_wedding_to_come_is_no_marriage(memory):
    say(memory, "我女朋友叫怡婷。", "我跟怡婷訂婚了，明年辦婚禮。")
    assert "已婚" not in fact_states(memory, "relationship_status")
    assert fact_states(memory, "relationship_status") == {"訂婚": "current"}


@pytest.mark.parametrize(
    "turns,slot,states",
    [
        (["婚礼终于办完了，证也领了，从此正式成为已婚人士😂"], "relationship_status", {"已婚": "current"}),
        (
            ["我住佛山，想周末带爸妈去泡温泉", "等下，我说错城市了——东莞，我住东莞。"],
            "lives_in",
            {"佛山": "corrected", "东莞": "current"},
        ),
        (
            ["我今年34歲，最近膝蓋一直卡卡的。", "欸我前幾天是不是說我34？手機選字亂跳啦，是43😂"],
            "age",
            {"34": "corrected", "43": "current"},
        ),
    ],
)
def test_a_marriage_and_corrections_in_other_words(memory, turns, slot, states):
    say(memory, *turns, every=timedelta(days=2))
    assert fact_states(memory, slot) == states


@pytest.mark.parametrize(
    "first,then,states",
    [
        (
            "我喺匯豐做compliance，日日OT到九點。",
            "終於劈咗炮🎉 上個禮拜五係我喺匯豐最後一日，而家休息吓先",
            {"匯豐": "ended"},
        ),
        (
            "我在上海电气干了三十一年了，明年就到点了。",
            "手续都办完了，正式从厂里退下来了🎉 以后早上可以去公园打太极。",
            {"上海电气": "ended"},
        ),
        ("我在上海电气干了三十一年了。", "我们厂里退下来的老师傅很多", {"上海电气": "current"}),
    ],
)
def test_leaving_told_in_cantonese_or_by_the_place_one_left(memory, first, then, states):
    assert states_after(memory, "employer", first, then) == states


def test_the_last_day_is_no_time():
    said = datetime(2024, 10, 22, tzinfo=timezone.utc)
    assert normalize_time("今天是我在汇丰最后一日", said, "zh")[-1].text == "今天"
    assert [m.text for m in normalize_time("后一日再说", said, "zh")] == ["后一日"]


def test_a_trade_in_names_the_new_car(memory):
    states = states_after(
        memory,
        "car",
        "我揸緊部Toyota Prius，泊車幾方便。",
        "上個禮拜將部Prius拎去車行trade-in，補咗錢換咗部BYD Seal，電車真係好慳😆",
    )
    assert states == {"Toyota Prius": "replaced", "BYD Seal": "current"}


@pytest.mark.parametrize(
    "text,pets",
    [
        ("我家猫年糕最近老是吐毛球，要不要带去医院看看？", ["年糕（猫）"]),
        ("我家狗狗叫豆豆，是只泰迪", ["豆豆（狗狗）"]),
        ("我们家猫咪最近不吃饭", []),
    ],
)
def test_a_pet_named_after_its_kind_at_home(memory, text, pets):
    say(memory, text)
    assert held(memory, "pets")[0] == pets


@pytest.mark.parametrize(
    "first,then,slot,states",
    [
        (
            "我对花生过敏。",
            "郁闷，最近老起疹子，去医院查了过敏原，结果是大豆😭",
            "allergies",
            {"花生": "current", "大豆": "current"},
        ),
        (
            "I'm allergic to shellfish.",
            "did the oral food challenge at the allergist and I'm officially cleared for shellfish 🦐",
            "allergies",
            {"shellfish": "ended"},
        ),
        ("I'm vegan.", "tbh the vegan thing didn't stick, I eat eggs and cheese again.", "diet", {"vegan": "ended"}),
        ("I'm vegan.", "my sourdough starter didn't stick to the jar lol", "diet", {"vegan": "current"}),
    ],
)
def test_an_allergy_found_or_cleared_and_a_diet_that_did_not_stick(memory, first, then, slot, states):
    assert states_after(memory, slot, first, then) == states
