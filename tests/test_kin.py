"""Relatives named by their relation ("my brother Tom", 我哥哥小明, 我有两个孩子，乐乐和豆豆):
facts of the speaker, found again by "What's my sister's name?" / 我表姐叫什么 — real spaCy,
jieba, SQLite."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memtracks import Turn
from memtracks.pipeline.entities import extract_entities
from memtracks.pipeline.subjects.kin import fills, kin_values
from memtracks.pipeline.timenorm import normalize_time

REF = datetime(2024, 6, 10, 10, tzinfo=timezone(timedelta(hours=8)))


def kin_of(toolkit, text, speaker="user"):
    analysis = toolkit.nlp.analyze([text])[0]
    entities = extract_entities(analysis, toolkit.lexicons)
    lang = analysis.primary
    search = toolkit.lexicons.to_simplified(text) if lang == "zh" else text
    times = normalize_time(search, REF, lang=lang)
    found = kin_values(text, lang, speaker, toolkit.lexicons, entities, times, analysis.tokens, search)
    return [(v.subject, v.slot, v.value) for v in found]


@pytest.mark.parametrize(
    "text,expected",
    [
        ("My brother Tom works at Google.", [("user", "family", "Tom (brother)")]),
        ("I'm visiting my sister Leah in Denver.", [("user", "family", "Leah (sister)")]),
        ("my little brother Kevin just got his license", [("user", "family", "Kevin (little brother)")]),
        ("My wife Anna is a doctor.", [("user", "partner", "Anna (wife)")]),
        ("My daughter Mia starts kindergarten.", [("user", "children", "Mia (daughter)")]),
        ("I have two kids, Lily and Max.", [("user", "children", "Lily (kid)"), ("user", "children", "Max (kid)")]),
        (
            "My two sons, Jake and Ethan, play soccer.",
            [("user", "children", "Jake (son)"), ("user", "children", "Ethan (son)")],
        ),
        ("My brother Tom and I went fishing.", [("user", "family", "Tom (brother)")]),
        (
            "My dad Bob and my mom Alice are visiting.",
            [("user", "family", "Bob (dad)"), ("user", "family", "Alice (mom)")],
        ),
        ("我哥哥小明在腾讯上班。", [("user", "family", "小明（哥哥）")]),
        ("我表姐小敏下个月结婚。", [("user", "family", "小敏（表姐）")]),
        ("我老婆是王芳。", [("user", "partner", "王芳（老婆）")]),
        ("我奶奶王桂兰今年八十了。", [("user", "family", "王桂兰（奶奶）")]),
        ("我女儿朵朵下个月满三岁。", [("user", "children", "朵朵（女儿）")]),
        ("我有两个孩子，乐乐和豆豆。", [("user", "children", "乐乐（孩子）"), ("user", "children", "豆豆（孩子）")]),
        ("我有两个儿子，大宝和二宝。", [("user", "children", "大宝（儿子）"), ("user", "children", "二宝（儿子）")]),
        ("我有兩個孩子，小安和小寶。", [("user", "children", "小安（孩子）"), ("user", "children", "小寶（孩子）")]),
        ("我哥哥阿傑在台北工作。", [("user", "family", "阿傑（哥哥）")]),
    ],
)
def test_a_relative_named_by_relation_is_a_fact_of_the_speaker(toolkit, text, expected):
    assert kin_of(toolkit, text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "My friend Tom works at Google.",  # a friend is no family
        "My boss Linda is on vacation.",
        "My ex-wife Sarah moved to Texas.",  # no longer a partner
        "Did I ever tell you about my brother Sam?",  # a question names no one
        "I saw my sister Saturday, we had lunch.",  # a day, not a name
        "My partner, Sarah and I went hiking.",  # three people, or two: unknown
        "Last Tuesday, my gf, Toby, and I played board games.",  # Toby may be the dog
        "Tell my sister Hi from me!",
        "我朋友小李在腾讯上班。",
        "我老婆是医生。",  # a job, not a name
        "我妈妈常常在家做饭。",  # an adverb
        "我哥哥高兴得跳起来。",
        "我女儿是小学二年级。",  # 小学 is a school, not 小X
        "我有两个孩子，男孩和女孩。",
        "你还记得我哥哥小明吗？",
    ],
)
def test_no_relative_is_made_of_what_names_none(toolkit, text):
    assert kin_of(toolkit, text) == []


def test_the_speaker_of_a_named_chat_owns_the_relative(toolkit):
    assert kin_of(toolkit, "My sister Leah moved to Denver.", speaker="Caroline") == [
        ("Caroline", "family", "Leah (sister)")
    ]


def test_the_slot_follows_the_relation_categories(toolkit):
    lex = toolkit.lexicons
    assert [fills(r, lex) for r in ("wife", "girlfriend", "son", "child", "cousin", "mother")] == [
        "partner",
        "partner",
        "children",
        "children",
        "family",
        "family",
    ]
    assert fills("friend", lex) is None and fills("boss", lex) is None and fills("nobody", lex) is None


@pytest.mark.parametrize(
    "said,asked,answer",
    [
        (["My brother Tom works at Google.", "My sister Leah lives in Denver."], "What's my sister's name?", "Leah"),
        (["My sister Leah lives in Denver.", "My brother Tom works at Google."], "What's my brother's name?", "Tom"),
        (["My wife Anna is a doctor."], "What's my wife's name?", "Anna"),
        (["我哥哥小明在腾讯上班。", "我表姐叫小敏。"], "我表姐叫什么？", "小敏（表姐）"),
        (["我表姐叫小敏。", "我哥哥小明在腾讯上班。"], "我哥哥叫什么名字？", "小明（哥哥）"),
        (["我哥哥阿傑在台北工作。", "我媽媽叫王美玲。"], "我媽媽叫什麼名字？", "王美玲"),
    ],
)
def test_a_question_about_a_relative_finds_their_fact_first(memory, said, asked, answer):
    for i, text in enumerate(said):
        memory.write(Turn(text, user_id="u", session_id="s", turn_id=f"t{i}", timestamp=REF + timedelta(days=i)))
    cards = memory.retrieve(asked, user_id="u", now=REF + timedelta(days=10)).cards
    assert cards[0].track == "fact" and answer in cards[0].text, [c.text for c in cards]
