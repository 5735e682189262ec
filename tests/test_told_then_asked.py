"""What is told in a turn that also asks, in English, Simplified and Traditional Chinese:

- a clause told before a question stays told ("I moved to Denver last month, any tips?",
  我上个月搬到成都了，有什么推荐吗？); a clause that asks by its own words (an inverted verb, a
  wh-word, 要不要, 你觉得) or an either-or question (留在北京，还是搬去上海？) stores nothing;
- a condition said after a told fact ("I'm 41 if that matters") leaves the fact told; a fact
  with its own "would", or a plan that hangs on the condition, is not told;
- "Spent my 42nd birthday at…" gives the age;
- a rule that reads a held employer left ("离开台积电", "Left Deloitte") and words no rule lists
  for where the speaker went next (…之后去了联发科) replace it; someone else's move, or an
  interview, replaces nothing; a firm left is never a home left."""

from __future__ import annotations

from datetime import timedelta

import pytest
from conversation import fact_states, say, states_after

_MINUTES = timedelta(minutes=2)


@pytest.mark.parametrize(
    "text,slot,value",
    [
        ("I moved to Denver last month, any tips on neighborhoods?", "lives_in", "Denver"),
        ("I just adopted a puppy named Max, have you ever had a dog?", "pets", "Max (puppy)"),
        ("I'm 41, is that too old to start running?", "age", "41"),
        ("我上个月搬到成都了，有什么好吃的推荐吗？", "lives_in", "成都"),
        ("我上個月搬到台中了，有推薦的餐廳嗎？", "lives_in", "台中"),
        ("我老公叫王磊，他生日快到了，送什么好呢？", "partner", "王磊（老公）"),
        ("我今年41岁了，跑马拉松会不会太晚？", "age", "41"),
    ],
)
def test_a_clause_told_before_a_question_is_stored(memory, text, slot, value):
    say(memory, text)
    assert fact_states(memory, slot) == {value: "current"}


@pytest.mark.parametrize(
    "text",
    [
        "Should I move to Denver, or stay in Boston?",
        "Do you think I should sell my Civic, or keep it?",
        "If I move to Denver, what neighborhoods are good?",
        "我要不要辞职，去腾讯上班？",
        "我应该留在北京，还是搬去上海？",
        "你觉得我搬到成都，会习惯吗？",
        "我搬到成都的话，你有什么建议？",
        "我該留在高雄，還是搬去台中？",
    ],
)
def test_a_clause_that_asks_stores_nothing(memory, text):
    say(memory, text)
    assert memory.facts("u1", include_planned=True, include_negated=True) == []


def test_a_worry_asked_about_a_pet_ends_nothing(memory):
    before, after = "我养了一只仓鼠叫栗子。", "不对劲，栗子今天一直不吃东西，是不是病了？"
    assert states_after(memory, "pets", before, after) == {"栗子（仓鼠）": "current"}


@pytest.mark.parametrize(
    "text,slot,value",
    [
        ("I'm 41 if that matters for the running plan.", "age", "41"),
        ("I live in Leeds if you want to visit sometime.", "lives_in", "Leeds"),
        ("I drive a Civic if you need a lift.", "car", "Civic"),
    ],
)
def test_a_condition_after_a_told_fact_leaves_it_told(memory, text, slot, value):
    say(memory, text)
    assert fact_states(memory, slot) == {value: "current"}


@pytest.mark.parametrize(
    "text",
    [
        "I'd live in Leeds if I could.",
        "I would move to Leeds if rent were cheaper.",
        "I want to live in Leeds if I can afford it.",
    ],
)
def test_a_fact_that_hangs_on_its_condition_is_not_told(memory, text):
    say(memory, text)
    assert fact_states(memory, "lives_in") == {}


def test_a_birthday_spent_gives_the_age(memory):
    before = "I'm 41 if that matters for the running plan."
    after = "Spent my 42nd birthday at a waterpark with the kids. Zero regrets, some sunburn."
    assert states_after(memory, "age", before, after) == {"41": "replaced", "42": "current"}


@pytest.mark.parametrize(
    "before,after,old,new",
    [
        ("我在腾讯做产品经理。", "离开腾讯以后去了字节，终于不用加班了", "腾讯", "字节"),
        ("我在台積電當製程工程師。", "離開台積電之後去了聯發科，終於不用輪夜班", "台積電", "聯發科"),
        ("I work at Deloitte as an auditor.", "Left Deloitte and went to KPMG, way better hours.", "Deloitte", "KPMG"),
    ],
)
def test_an_employer_left_then_where_one_went(memory, before, after, old, new):
    assert states_after(memory, "employer", before, after) == {old: "replaced", new: "current"}
    assert fact_states(memory, "lives_in") == {}  # a firm left is no home left


@pytest.mark.parametrize(
    "before,after,old",
    [
        ("我在腾讯做产品经理。", "离开腾讯以后，我老公去了字节", "腾讯"),
        ("我在腾讯做产品经理。", "离开腾讯以后一直没找到工作，面试了字节", "腾讯"),
        ("I work at Google.", "Left Google in March and I'm interviewing at Meta.", "Google"),
        ("我在台積電上班。", "離開台積電以後想去聯發科試試看", "台積電"),
    ],
)
def test_an_employer_left_is_not_replaced_by_someone_elses_or_a_sought_one(memory, before, after, old):
    assert states_after(memory, "employer", before, after) == {old: "ended"}


@pytest.mark.parametrize(
    "before,after,slot,value",
    [
        ("我開一台Honda CR-V。", "CR-V上個月過戶給買家了，現在通勤都靠Gogoro", "car", "Honda CR-V"),
        ("我开的是比亚迪秦。", "车上个月卖掉了，小区车位太难抢，现在都坐地铁", "car", "比亚迪秦"),
        ("我開的是豐田Altis。", "車子上個月賣掉了，現在都騎YouBike", "car", "豐田Altis"),
        ("I drive a Honda Civic.", "Sold the car last month, I just bike everywhere now.", "car", "Honda Civic"),
        ("我养了一只兔子叫黑糖。", "兔子送给我表妹了，她家有院子", "pets", "黑糖（兔子）"),
        (
            "I have a rabbit named Clover.",
            "The rabbit went to a new home with my cousin, she has a big garden.",
            "pets",
            "Clover (rabbit)",
        ),
        (
            "我養了一隻兔子叫黑糖。",
            "黑糖現在住我表妹家了，她家有院子，以後就是她的兔子，我租的套房真的太小",
            "pets",
            "黑糖（兔子）",
        ),
        ("我养了只猫叫年糕。", "年糕给我妈养了，我搬家没法带", "pets", "年糕（猫）"),
        ("I have a cat named Biscuit.", "Biscuit is my sister's cat now, she has a garden.", "pets", "Biscuit (cat)"),
    ],
)
def test_the_one_held_ended_by_a_word_standing_for_it(memory, before, after, slot, value):
    """A Latin name in a Chinese sentence is read by the Chinese rules (我開一台Honda CR-V); "the
    car", 车子, a pet's kind stand for the one held; a pet rehomed in chat words ends it."""
    assert states_after(memory, slot, before, after) == {value: "ended"}


@pytest.mark.parametrize(
    "before,after,slot,value",
    [
        ("I drive a Honda Civic.", "The car wash downtown ruined my paint job.", "car", "Honda Civic"),
        ("我开的是比亚迪秦。", "在车上听了一下午播客", "car", "比亚迪秦"),
        ("我养了只猫叫年糕。", "这周出差，年糕让我妈帮忙照顾", "pets", "年糕（猫）"),
        ("I have a cat named Biscuit.", "Biscuit is staying at my sister's this week.", "pets", "Biscuit (cat)"),
    ],
)
def test_words_near_the_held_one_end_nothing(memory, before, after, slot, value):
    assert states_after(memory, slot, before, after) == {value: "current"}


def test_one_of_two_pets_named_by_its_kind(memory):
    say(memory, "我养了只猫叫年糕，还有只狗叫豆豆。", "猫送人了，我对猫毛过敏")
    assert fact_states(memory, "pets") == {"年糕（猫）": "ended", "豆豆（狗）": "current"}


@pytest.mark.parametrize(
    "text,value",
    [("我在統一超商總部上班，做行銷。", "統一超商"), ("我在星巴克门市上班。", "星巴克")],
)
def test_a_firms_office_named_after_it_is_the_employer(memory, text, value):
    say(memory, text)
    assert fact_states(memory, "employer") == {value: "current"}


@pytest.mark.parametrize(
    "texts,slot,expected",
    [
        (
            (
                "I'm vegan, have been for about three years.",
                "So now I'm vegan AND can't have tahini, which is basically half of what I eat.",
            ),
            "diet",
            {"vegan": "current"},
        ),
        (("I live in Boston and don't plan to leave.",), "lives_in", {"Boston": "current"}),
        (("I drive a Civic and never take the bus.",), "car", {"Civic": "current"}),
    ],
)
def test_a_negation_or_plan_of_a_joined_verb_is_its_own(memory, texts, slot, expected):
    """Negation has a scope: "can't" of the second verb, "plan to" of the second clause, say
    nothing of the first; said of the verb itself, it still counts."""
    say(memory, *texts)
    assert {v: s for v, s in fact_states(memory, slot).items() if s == "current"} == expected


def test_a_cantonese_question_about_now_finds_the_new_home(memory):
    say(
        memory,
        "我住喺荃灣，返工搭地鐵好方便。",
        "終於搬咗入將軍澳嘅新屋，執咗成個禮拜都未執完😩",
        every=timedelta(days=100),
    )
    cards = memory.retrieve("我而家住喺邊？", user_id="u1").cards
    assert "將軍澳" in cards[0].text
