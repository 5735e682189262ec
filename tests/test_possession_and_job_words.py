"""Cars and jobs changed in everyday words.

Cars: a new one said without a subject ("Picked up a Hyundai Ioniq 5 yesterday, the Golf is
gone"), "upgraded to", a brand and a model together (比亚迪海豹), the new car named after its
delivery (新車交車了，是Toyota RAV4), sold in other words (出手了, 已經賣掉了), handed on (雅阁给我爸开了)
— and the next clause's car stays the speaker's (a subject never reaches across a comma).
Jobs: "signed with", an offer whose start is said after it (a plan: "starting in May",
明年五月入职), the speaker leaving the firm named ("Walked out of Walmart"), ended by someone
else's act (公司把我裁了), a round of cuts the speaker is on the list of (美光裁員，我也在名單裡),
resigning to the firm (我跟友達提離職了); a short firm name jieba tags oddly (蔚来, 友達)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from conversation import say


def _values(memory, slot):
    facts = [
        f for f in memory.facts("u1", slot=slot, include_superseded=True, include_planned=True) if f.subject == "user"
    ]
    current = sorted(f.value for f in facts if f.is_current and not f.planned)
    planned = sorted(f.value for f in facts if f.is_current and f.planned)
    ended = sorted(f.value for f in facts if not f.is_current)
    return current, planned, ended


@pytest.mark.parametrize(
    "before,after,now,gone",
    [
        (
            "I drive a VW Golf.",
            "Picked up a Hyundai Ioniq 5 yesterday, the Golf is gone.",
            "Hyundai Ioniq 5",
            "VW Golf",
        ),
        ("My car is a Nissan Leaf.", "Upgraded to a Polestar 2 last weekend.", "Polestar 2", "Nissan Leaf"),
        ("我的车是本田雅阁。", "雅阁给我爸开了，我新提了一辆小鹏P7。", "小鹏P7", "本田雅阁"),
        ("我开一辆速腾。", "今年换车了，现在开的是比亚迪海豹。", "比亚迪海豹", "速腾"),
        (
            "我開一台三菱Outlander。",
            "新車交車了，是Toyota RAV4，舊的Outlander給我媽開。",
            "Toyota RAV4",
            "三菱Outlander",
        ),
        ("我開一台本田CR-V。", "今年換車了，現在開Lexus NX。", "Lexus NX", "本田CR-V"),
    ],
)
def test_a_new_car_replaces_the_old(memory, before, after, now, gone):
    say(memory, before, after, every=timedelta(days=60))
    current, _, ended = _values(memory, "car")
    assert current == [now] and ended == [gone], (current, ended)


@pytest.mark.parametrize(
    "before,after,gone",
    [
        ("我开一辆奥迪A4。", "奥迪A4已经出手了，最近都打车。", "奥迪A4"),
        ("我開一台福斯Golf。", "Golf已經賣掉了，現在都搭捷運。", "福斯Golf"),
        ("I drive a Mini Cooper.", "Sold the Mini, I don't need a car in the city anyway.", "Mini Cooper"),
    ],
)
def test_a_car_sold_in_other_words_ends(memory, before, after, gone):
    say(memory, before, after, every=timedelta(days=60))
    current, _, ended = _values(memory, "car")
    assert current == [] and ended == [gone], (current, ended)


@pytest.mark.parametrize(
    "before,after,now",
    [
        ("I work at Ford.", "I signed with Rivian, first day was Monday.", "Rivian"),
        ("我在国家电网工作。", "我现在在蔚来上班了。", "蔚来"),
        ("我在長榮航空工作。", "我現在在星宇航空上班了。", "星宇航空"),
    ],
)
def test_a_new_employer_replaces_the_old(memory, before, after, now):
    say(memory, before, after, every=timedelta(days=60))
    current, _, ended = _values(memory, "employer")
    assert current == [now] and len(ended) == 1 and ended[0] in before, (current, ended)


@pytest.mark.parametrize(
    "before,after,planned",
    [
        ("I work at Target in HR.", "Got an offer from Best Buy, starting in May!", "Best Buy"),
        ("我在宝洁上班。", "拿到了字节的offer，明年五月入职。", "字节"),
        ("我在台塑上班。", "拿到了蝦皮的offer，明年五月報到。", "蝦皮"),
    ],
)
def test_an_offer_with_a_later_start_is_a_plan(memory, before, after, planned):
    say(memory, before, after, every=timedelta(days=30))
    facts = [f for f in memory.facts("u1", slot="employer", include_superseded=True, include_planned=True)]
    plan = next(f for f in facts if f.value == planned)
    assert plan.planned and (plan.valid_from.year, plan.valid_from.month) == (2025, 5), plan


@pytest.mark.parametrize(
    "before,after",
    [
        ("I work at Walmart.", "Walked out of Walmart for good, done with that place."),
        ("我在阿里上班。", "公司把我裁了，拿了N+1。"),
        ("我在美光上班。", "美光裁員，我也在名單裡。"),
        ("我在友達上班。", "我跟友達提離職了，今天是最後一天。"),
    ],
)
def test_the_job_ends(memory, before, after):
    say(memory, before, after, every=timedelta(days=60))
    current, _, ended = _values(memory, "employer")
    assert current == [] and len(ended) == 1 and ended[0] in before, (current, ended)


@pytest.mark.parametrize(
    "before,after",
    [
        ("I work at Walmart.", "I left Walmart early today to pick up my kid."),
        ("I work at Walmart.", "I quit Instagram last week, best decision."),
        ("I work at Walmart.", "Left Twitter for good, way too toxic."),
        ("我在阿里上班。", "公司把我派到杭州出差了。"),
        ("我在外面上班。", "我在附近上班。"),
    ],
)
def test_look_alikes_change_no_job(memory, before, after):
    say(memory, before, after, every=timedelta(days=60))
    current, _, ended = _values(memory, "employer")
    assert ended == [] and all(v in before for v in current), (current, ended)
