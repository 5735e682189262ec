"""The latest word leads (retrieval/latest.py): for a question about now, the newest memory
about the same thing comes first; a question about the past keeps its own order."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memtracks import Turn
from memtracks.config import FusionConfig, MemoryConfig
from memtracks.retrieval.query import analyze_query

T0 = datetime(2024, 9, 2, 9, tzinfo=timezone.utc)


def _write(memory, turns):
    for i, (day, text) in enumerate(turns):
        memory.write(
            Turn(
                text=text,
                speaker="user",
                user_id="u1",
                session_id=f"s{day}",
                turn_id=f"t{i}",
                timestamp=T0 + timedelta(days=day, minutes=i),
            )
        )


def _cards(memory, question, day=90, **kwargs):
    return [c.text for c in memory.retrieve(question, user_id="u1", now=T0 + timedelta(days=day), **kwargs).cards]


NEWER_FIRST = [
    # (turns, question, the newer memory's words, the older memory's words)
    (
        [(0, "I drive a Honda Civic."), (50, "Sold the Civic last weekend and picked up a used Tesla.")],
        "What car do I drive?",
        "Sold the Civic",
        "car: Honda Civic",
    ),
    (
        [
            (0, "My husband Dan and I are planning a trip."),
            (40, "Dan and I are getting divorced, it's been a hard year."),
        ],
        "Am I married?",
        "divorced",
        "partner: Dan",
    ),
    (
        [(0, "I'm allergic to peanuts."), (50, "I'm not allergic to peanuts anymore, the doctor confirmed it.")],
        "Am I allergic to peanuts?",
        "anymore",
        "allergic to: peanuts",
    ),
    ([(0, "我开的是一辆宝马X3。"), (50, "上周把宝马X3卖掉了。")], "我现在开什么车？", "卖掉", "车：宝马"),
    ([(0, "我開的是一輛寶馬X3。"), (50, "上週把寶馬X3賣掉了。")], "我現在開什麼車？", "賣掉", "車：寶馬"),
]


@pytest.mark.parametrize("turns,question,newer,older", NEWER_FIRST, ids=[q for _, q, _, _ in NEWER_FIRST])
def test_a_newer_turn_that_names_the_value_leads_a_question_about_now(memory, turns, question, newer, older):
    _write(memory, turns)
    cards = _cards(memory, question)
    first_newer = next(i for i, c in enumerate(cards) if newer in c)
    first_older = next((i for i, c in enumerate(cards) if older in c and newer not in c), len(cards))
    assert first_newer < first_older, cards


def test_off_the_older_fact_leads(make_memory):
    # a newer turn that names the car and ends nothing: with the rule on it leads, off the fact does
    turns = [(0, "I drive a Honda Civic."), (50, "The Civic's brakes have been squeaking all week.")]
    cards = {}
    for window in (10, 0):
        memory = make_memory(config=MemoryConfig(fusion=FusionConfig(latest_window=window)))
        _write(memory, turns)
        cards[window] = _cards(memory, "What car do I drive?")
    assert "car: Honda Civic" in cards[0][0], cards[0]
    assert "squeaking" in cards[10][0], cards[10]


@pytest.mark.parametrize(
    "question", ["What car did I drive before?", "What car did I use to drive?", "我以前开什么车？"]
)
def test_a_question_about_the_past_keeps_its_order(memory, question):
    _write(memory, NEWER_FIRST[0][0] if question.isascii() else NEWER_FIRST[3][0])
    cards = _cards(memory, question)
    assert "Sold" not in cards[0] and "卖掉" not in cards[0], cards


def test_a_newer_fact_on_the_slot_leads_older_turns_that_speak_of_it(memory):
    _write(
        memory, [(0, "I work at a bakery downtown."), (30, "Big news, my new employer is Spotify, I start next week!")]
    )
    cards = _cards(memory, "Where do I work?", day=60)
    assert "Spotify" in cards[0] and "bakery" not in cards[0], cards


def test_zh_a_newer_fact_on_the_slot_leads(memory):
    _write(memory, [(0, "我在一家面包店打工。"), (30, "我上个月入职了字节跳动。")])
    cards = _cards(memory, "我在哪上班？", day=60)
    assert "字节跳动" in cards[0], cards


def test_another_value_of_a_many_valued_slot_does_not_lead(memory):
    _write(memory, [(0, "I love sushi, we get it every Friday."), (30, "I like pizza a lot too.")])
    cards = _cards(memory, "Do I like sushi?", day=60)
    assert "sushi" in cards[0], cards


def test_a_plan_not_yet_begun_does_not_lead(memory):
    _write(
        memory,
        [(0, "I live in Chicago, in Logan Square."), (18, "We're moving to Denver next month, the lease is signed!")],
    )
    cards = _cards(memory, "Where do I live?", day=20)
    assert "Chicago" in cards[0], cards


@pytest.mark.parametrize(
    "turns,question,newer",
    [
        (
            [
                (0, "I have a corgi named Biscuit."),
                (50, "Biscuit has been limping since Sunday, the vet wants an X-ray."),
            ],
            "Do I still have a dog?",
            "limping",
        ),
        ([(0, "我养了一只柯基叫年糕。"), (50, "年糕这几天走路有点瘸，明天带去拍片。")], "我还养狗吗？", "瘸"),
        ([(0, "我養了一隻柯基叫年糕。"), (50, "年糕這幾天走路有點瘸，明天帶去拍片。")], "我還養狗嗎？", "瘸"),
    ],
)
def test_a_newer_turn_on_one_of_many_values_leads_when_the_question_names_none(memory, turns, question, newer):
    # "Do I still have a dog?" names no pet: the newest word on the dog the memory holds leads
    _write(memory, turns)
    cards = _cards(memory, question)
    assert newer in cards[0], cards


@pytest.mark.parametrize(
    "turns,question,fact",
    [
        ([(0, "I'm 29."), (365, "Just turned 30 last week, feeling old!")], "How old am I now?", "age: 30"),
        ([(0, "我今年二十九岁。"), (365, "上周刚过完三十岁生日。")], "我现在几岁？", "年龄：30"),
        ([(0, "我今年二十九歲。"), (365, "啱啱過咗三十歲生日。")], "我而家幾多歲？", "年龄：30"),
    ],
)
def test_said_at_one_moment_the_fact_leads_its_turn(memory, turns, question, fact):
    _write(memory, turns)
    cards = _cards(memory, question, day=400)
    assert fact in cards[0], cards


@pytest.mark.parametrize(
    "turns,question,answer",
    [
        ([(0, "我揸一架Toyota Alphard。"), (100, "Alphard賣咗喇，換咗架平治GLC。")], "我而家揸緊咩車？", "GLC"),
        ([(0, "我吃全素。"), (100, "我现在改吃蛋奶素了，外食方便多了。")], "我吃哪一种素？", "蛋奶素"),
        ([(0, "我吃全素。"), (100, "我現在改吃蛋奶素了，外食方便多了。")], "我吃哪一種素？", "蛋奶素"),
    ],
)
def test_a_question_in_cantonese_or_by_its_value_words_asks_about_its_slot(memory, turns, question, answer):
    # 咩車 asks what car, 哪一種素 what diet: the newest word on the slot leads
    _write(memory, turns)
    cards = _cards(memory, question, day=120)
    assert answer in cards[0], cards


@pytest.mark.parametrize(
    "turns,question,newest",
    [
        (
            [(0, "我男朋友叫周航，我们在一起五年了。"), (200, "上个月跟周航领证了！现在是已婚人士啦🎉")],
            "我结婚了吗？",
            "已婚",
        ),
        (
            [(0, "我男朋友叫家豪，我們在一起三年了。"), (200, "上個月跟家豪登記結婚了！")],
            "我結婚了嗎？",
            "已婚",
        ),
        (
            [(0, "My boyfriend Kofi and I live together."), (200, "He proposed on the ferry and I said yes!")],
            "Am I engaged?",
            "engaged",
        ),
    ],
)
def test_the_newer_of_two_one_valued_slots_asked_leads(memory, turns, question, newest):
    _write(memory, turns)
    cards = _cards(memory, question, day=201)
    assert newest in cards[0], cards


@pytest.mark.parametrize("question", ["我结婚了吗？", "我搬家了没？", "我辭職了嗎？"])
def test_a_question_ending_in_le_ma_asks_about_now(memory, question):
    def about_now(text: str) -> bool:
        return analyze_query(text, now=T0, toolkit=memory.toolkit, embedder=memory.embedder).about_now

    assert about_now(question)
    assert not about_now("我去年结婚了吗？") and not about_now("我上个月搬家了吗？")
