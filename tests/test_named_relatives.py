"""A named relative is one subject: the name ("my brother Jake", 我弟弟阿杰), with the relation
known, so "Where does my brother live now?" / 我弟弟现在住哪？ find the name's current fact —
real jieba, spaCy, patterns, SQLite and retrieval."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memtracks import Turn
from memtracks.pipeline.subjects.resolver import named_relations

T0 = datetime(2024, 3, 1, 10, tzinfo=timezone.utc)


def say(memory, *sessions):
    n = 0
    for day, turns in enumerate(sessions):
        for text in turns:
            at = T0 + timedelta(days=10 * day, minutes=n)
            memory.write(Turn(text, user_id="sam", session_id=f"s{day}", turn_id=f"t{n}", timestamp=at))
            n += 1
    return [(f.subject, f.slot, f.value, f.is_current) for f in memory.facts("sam", include_superseded=True)]


@pytest.mark.parametrize(
    "text,expected",
    [
        ("我弟弟阿杰刚搬到深圳，换了新工作。", [("brother", "阿杰")]),  # jieba reads 阿杰刚
        ("我姐姐小美刚搬到杭州。", [("sister", "小美")]),
        ("我哥哥李明上个月搬到杭州了。", [("brother", "李明")]),
        ("我弟弟阿杰已经搬到成都了。", [("brother", "阿杰")]),
        ("我姐姐小美住在北京。", [("sister", "小美")]),  # jieba cuts 小 / 美
        ("我弟弟阿傑剛搬到台中。", [("brother", "阿傑")]),  # as written
        ("我妹妹小学在北京读的。", []),
        ("我弟弟小时候住在武汉。", []),
        ("我弟弟刚刚搬到成都。", []),
    ],
)
def test_where_a_chinese_name_after_a_relation_ends(toolkit, text, expected):
    tokens = toolkit.nlp.segment(text)
    assert named_relations(text, toolkit.lexicons, (), tokens) == expected


@pytest.mark.parametrize(
    "sessions,subject,value,other",
    [
        ([["我弟弟阿杰刚搬到深圳，换了新工作。"], ["阿杰上周末正式搬到成都了！"]], "阿杰", "成都", "user's brother"),
        ([["我姐姐小美刚搬到杭州。"]], "小美", "杭州", "user's sister"),
        ([["我哥哥李明上个月搬到杭州了。"]], "李明", "杭州", "user's brother"),
        ([["我弟弟阿傑剛搬到台中。"]], "阿傑", "台中", "user's brother"),
        ([["我表妹琳琳最近搬到广州了。"]], "琳琳", "广州", "user's cousin"),
        ([["我哥哥阿明住在台北。"], ["我哥搬去高雄了。"]], "阿明", "高雄", "user's brother"),
        ([["My sister, Anna, just moved to Boston."]], "Anna", "Boston", "user's sister"),
        (
            [["My brother Jake lives in Austin."], ["My brother moved to Denver last month."]],
            "Jake",
            "Denver",
            "user's brother",
        ),
        (
            [["My sister Anna lives in Boston."], ["My sister moved to Chicago last month."]],
            "Anna",
            "Chicago",
            "user's sister",
        ),
    ],
)
def test_a_named_relative_is_one_subject(memory, sessions, subject, value, other):
    facts = say(memory, *sessions)
    assert (subject, "lives_in", value, True) in facts
    assert not [f for f in facts if f[0] == other], facts


def test_a_bare_relation_with_two_named_is_neither(memory):
    """Two sisters named: "my sister" may be either, so it is neither."""
    facts = say(
        memory, ["My sister Anna lives in Boston.", "My sister Beth lives in Miami."], ["My sister moved to Chicago."]
    )
    assert ("user's sister", "lives_in", "Chicago", True) in facts
    assert not [f for f in facts if f[0] in ("Anna", "Beth") and f[2] == "Chicago"]


def test_naming_a_relative_is_no_fact_about_the_one_named_before(memory):
    facts = say(memory, ["My sister Beth lives in Ohio."], ["My sister's name is Anna, she's the younger one."])
    assert not [f for f in facts if f[0] == "Beth" and f[1] == "name"], facts


@pytest.mark.parametrize(
    "sessions,question,answer,stale",
    [
        (
            [
                ["我弟弟阿杰刚搬到深圳，换了新工作。", "他在深圳一家医院当护士。"],
                ["阿杰打电话说想离开深圳，太热了受不了。", "他可能会搬去成都。"],
                ["阿杰上周末正式搬到成都了！", "他在华西医院找到了工作。"],
            ],
            "我弟弟现在住哪？",
            "成都",
            "深圳",
        ),
        (
            [
                [
                    "My brother Jake just moved to Austin for a new job.",
                    "He's working as a nurse at St. David's hospital.",
                ],
                [
                    "Jake called, he's thinking of leaving Austin, the heat is too much for him.",
                    "He might move to Denver instead.",
                ],
                ["Jake officially moved to Denver last weekend!", "He got a job at Denver Health."],
            ],
            "Where does my brother live now?",
            "Denver",
            "Austin",
        ),
    ],
)
def test_my_brother_finds_the_names_current_fact(memory, sessions, question, answer, stale):
    say(memory, *sessions)
    cards = memory.retrieve(question, user_id="sam", now=T0 + timedelta(days=30)).cards
    facts = [c.text for c in cards if c.track == "fact"]
    assert facts and answer in facts[0], [c.text for c in cards]
    assert not any(stale in f for f in facts), facts
