"""Changes in everyday words, third round, each in English, Simplified and Traditional Chinese:
a status of no partner ending the partner ("I'm single again", 我跟大伟已经办完离婚了), a home
moved into ("Got the keys to our new flat in Sheffield", 搬進羅東的新家), a pet's loss told over two clauses (年糕上个月查出肾衰竭，没撑过去), the new car, firm or home a
sentence names beside the one it replaces (零跑C10开了快两个月了，比之前那台星越L省心多了), an
ending denied (我不会离职的, 我们没分手), a pet named after it is taken in (给它起名叫闪电, 叫牠黑輪,
a Latin name: 叫Lucky), and a diet changed (改吃蛋奶素, "switched to being vegetarian")."""

from __future__ import annotations

import pytest
from conversation import states_after


@pytest.mark.parametrize(
    "before,after,slot,expected",
    [
        (
            "I have a corgi named Biscuit.",
            "Biscuit got really sick over the winter, she didn't make it.",
            "pets",
            {"Biscuit (corgi)": "ended"},
        ),
        ("我养了一只柯基叫年糕。", "年糕上个月查出肾衰竭，没撑过去。", "pets", {"年糕（柯基）": "ended"}),
        ("我養了一隻柯基叫年糕。", "年糕上個月查出腎衰竭，沒撐過去。", "pets", {"年糕（柯基）": "ended"}),
        (
            "I drive a Mazda 3.",
            "Been driving the Kia EV6 for a month now, way better than the old Mazda.",
            "car",
            {"Mazda 3": "replaced", "Kia EV6": "current"},
        ),
        (
            "我开的是一辆吉利星越L。",
            "零跑C10开了快两个月了，比之前那台星越L省心多了。",
            "car",
            {"吉利星越L": "replaced", "零跑C10": "current"},
        ),
        (
            "我開的是一輛吉利星越L。",
            "零跑C10開了快兩個月了，比之前那台星越L省心多了。",
            "car",
            {"吉利星越L": "replaced", "零跑C10": "current"},
        ),
        ("我吃全素。", "我现在改吃蛋奶素了，外食方便多了。", "diet", {"全素": "replaced", "蛋奶素": "current"}),
        ("我吃全素。", "我現在改吃蛋奶素了，外食方便多了。", "diet", {"全素": "replaced", "蛋奶素": "current"}),
        (
            "I'm vegan.",
            "I've switched to being vegetarian, eggs and cheese are back.",
            "diet",
            {"vegan": "replaced", "vegetarian": "current"},
        ),
        (
            "I live in Leeds.",
            "Moved into a tiny flat in York last month.",
            "lives_in",
            {"Leeds": "replaced", "York": "current"},
        ),
        (
            "I live in Nottingham.",
            "Got the keys to our new flat in Sheffield last week!",
            "lives_in",
            {"Nottingham": "replaced", "Sheffield": "current"},
        ),
        (
            "我住在济南。",
            "在烟台买的房子上个月交房了，已经搬进去了。",
            "lives_in",
            {"济南": "replaced", "烟台": "current"},
        ),
        ("我住在新店。", "上個月搬進羅東的新家了。", "lives_in", {"新店": "replaced", "羅東": "current"}),
        ("My girlfriend Anna and I live together.", "I'm single again.", "partner", {"Anna (girlfriend)": "ended"}),
        ("我老公叫大伟。", "我跟大伟已经办完离婚了。", "partner", {"大伟（老公）": "ended"}),
        ("我男朋友叫志明。", "我現在單身了。", "partner", {"志明（男朋友）": "ended"}),
    ],
)
def test_the_change_is_read(memory, before, after, slot, expected):
    assert states_after(memory, slot, before, after) == expected


@pytest.mark.parametrize(
    "before,after,slot,expected",
    [
        (
            "I have a cat named Mochi.",
            "Mochi was really sick last week but she pulled through.",
            "pets",
            {"Mochi (cat)": "current"},
        ),
        ("我在中钢上班。", "我不会离职的，放心。", "employer", {"中钢": "current"}),
        ("我在中鋼上班。", "我沒有要離職啦，只是隨口抱怨一下。", "employer", {"中鋼": "current"}),
        ("我男朋友叫志明。", "我们没分手，只是吵了一架。", "partner", {"志明（男朋友）": "current"}),
        ("I work at Boeing.", "I'm not quitting Boeing, I was just venting.", "employer", {"Boeing": "current"}),
        (
            "I drive a Honda Civic.",
            "My sister borrowed the Civic while her Toyota is in the shop.",
            "car",
            {"Honda Civic": "current"},
        ),
        ("我开的是一辆宝马X3。", "朋友把他的奥迪A4借给我开了几天，比宝马X3舒服。", "car", {"宝马X3": "current"}),
        (
            "I live in Leeds.",
            "My brother just moved to York, he says it beats Leeds.",
            "lives_in",
            {"Leeds": "current"},
        ),
        ("I live in Leeds.", "My sister moved into a flat in York last month.", "lives_in", {"Leeds": "current"}),
        (
            "I live in Leeds.",
            "If we moved into a flat in York, the commute would be awful.",
            "lives_in",
            {"Leeds": "current"},
        ),
        ("我住在新店。", "我姐上個月搬進羅東的新家了。", "lives_in", {"新店": "current"}),
        ("我住在济南。", "要是在烟台买的房子能搬进去了就好了。", "lives_in", {"济南": "current"}),
        (
            "My girlfriend Anna and I live together.",
            "I was single for years before I met Anna.",
            "partner",
            {"Anna (girlfriend)": "current"},
        ),
        ("我男朋友叫志明。", "我妹妹现在单身了。", "partner", {"志明（男朋友）": "current"}),
    ],
)
def test_look_alikes_and_denials_change_nothing(memory, before, after, slot, expected):
    assert states_after(memory, slot, before, after) == expected


@pytest.mark.parametrize(
    "before,after,ended",
    [
        ("我在中钢上班。", "工作我不干了，下个月回老家。", "中钢"),  # the 不 is the ending itself
        ("我在中鋼上班。", "我從中鋼離職了。", "中鋼"),
    ],
)
def test_a_negation_that_is_the_ending_still_ends(memory, before, after, ended):
    assert states_after(memory, "employer", before, after)[ended] == "ended"


@pytest.mark.parametrize(
    "turns,expected",
    [
        (["从朋友那接了一只两岁的边牧，给它起名叫闪电。"], {"闪电（边牧）": "current"}),
        (["我們從狗園領養了一隻米克斯，叫牠黑輪，才五個月大。"], {"黑輪（米克斯）": "current"}),
        (["我有一隻鸚鵡叫Lucky。"], {"Lucky（鸚鵡）": "current"}),
        (
            ["我屋企養咗隻倉鼠叫波波。", "上個月再養多條金魚，叫阿金。"],
            {"波波（倉鼠）": "current", "阿金（金魚）": "current"},
        ),
    ],
)
def test_a_pet_named_after_it_is_taken_in(memory, turns, expected):
    assert states_after(memory, "pets", *turns) == expected


@pytest.mark.parametrize(
    "before,after,slot,expected",
    [
        # a split told with a time between the name and the verb (分了, 分开了)
        ("我女朋友叫小雯。", "我跟小雯上个月分了。", "partner", {"小雯（女朋友）": "ended"}),
        ("我女朋友叫小雯。", "我跟小雯上個月分了。", "partner", {"小雯（女朋友）": "ended"}),
        # the Taiwan and Hong Kong names of cars, and a make with its model (比亚迪汉)
        ("我開一台喜美。", "喜美已經賣了，改騎機車。", "car", {"喜美": "ended"}),
        ("我开一辆凯美瑞。", "凯美瑞卖了，现在开的是比亚迪汉。", "car", {"凯美瑞": "replaced", "比亚迪汉": "current"}),
        ("I drive a Toyota Altis.", "Sold the Altis last month, no car for now.", "car", {"Toyota Altis": "ended"}),
    ],
)
def test_splits_with_a_time_between_and_cars_by_their_local_names(memory, before, after, slot, expected):
    states = states_after(memory, slot, before, after)
    assert {v: states.get(v) for v in expected} == expected, states
    assert all(s != "current" for v, s in states.items() if v not in expected and slot == "car"), states


def test_dividing_chores_is_no_split(memory):
    states = states_after(memory, "partner", "我女朋友叫小美。", "我们周末一起大扫除，分了三个房间。")
    assert states == {"小美（女朋友）": "current"}
