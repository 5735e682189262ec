"""Slot extraction on real spaCy / jieba output, English and Chinese case tables."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memtracks.pipeline.entities import extract_entities
from memtracks.pipeline.slots import extract_slots
from memtracks.pipeline.subjects.resolver import SubjectResolver
from memtracks.pipeline.timenorm import normalize_time

REF = datetime(2024, 6, 10, 10, tzinfo=timezone(timedelta(hours=8)))


def slots_of(toolkit, text, speaker="user", people=()):
    analysis = toolkit.nlp.analyze([text])[0]
    entities = extract_entities(analysis, toolkit.lexicons)
    times = normalize_time(text, REF)
    resolver = SubjectResolver(speaker, toolkit.lexicons, entities, frozenset(people), text)
    opposites = {s.name: s.opposite for s in toolkit.catalogue.slots if s.opposite}
    found = extract_slots(text, analysis.primary, resolver, toolkit.slot_patterns, toolkit.lexicons, times, opposites)
    return [(v.subject, v.slot, v.value_key, v.negated) for v in found]


EN_CASES = [
    ("I live in Shanghai now.", [("user", "lives_in", "shanghai", False)]),
    ("I've been living in New York for two years.", [("user", "lives_in", "new_york", False)]),
    ("My home is in Berlin.", [("user", "lives_in", "berlin", False)]),
    ("I don't live in Beijing anymore.", [("user", "lives_in", "beijing", True)]),
    ("I used to live in Paris.", [("user", "lives_in", "paris", False)]),
    ("I'm originally from Toronto.", [("user", "hometown", "toronto", False)]),
    (
        "I work at Google as a software engineer.",
        [("user", "employer", "google", False), ("user", "job_title", "software engineer", False)],
    ),
    # the user worked at Google until now: an ended (historical) value, not "NOT Google"
    ("I quit my job at Google.", [("user", "employer", "google", False)]),
    ("I got laid off last week.", [("user", "employer", "", True)]),
    ("I'm a nurse.", [("user", "job_title", "nurse", False)]),
    # the jobs lexicon names ordinary jobs too; a comparative is no job
    ("I'm a barista at a small cafe downtown.", [("user", "job_title", "barista", False)]),
    ("I'm a cleaner person now.", []),
    ("I'm a big fan of jazz.", [("user", "likes", "jazz", False)]),
    ("I love hiking and painting.", [("user", "likes", "hiking", False), ("user", "likes", "painting", False)]),
    ("I hate cilantro.", [("user", "dislikes", "cilantro", False)]),
    ("I don't like coffee anymore.", [("user", "likes", "coffee", True)]),
    ("My favorite food is sushi.", [("user", "likes", "sushi", False)]),
    ("My car is a Model Y.", [("user", "car", "model_y", False)]),
    ("My friend's car is a Model 3.", [("user's friend", "car", "model_3", False)]),
    ("My sister lives in Boston.", [("user's sister", "lives_in", "boston", False)]),
    (
        "Tom lives in Seattle and works at Amazon.",
        [("Tom", "lives_in", "seattle", False), ("Tom", "employer", "amazon", False)],
    ),
    ("I have a cat named Luna.", [("user", "pets", "luna", False)]),
    # breeds name the kind of pet too
    ("I adopted a rescue greyhound named Pepper last week!", [("user", "pets", "pepper", False)]),
    ("We got a maine coon called Biscuit.", [("user", "pets", "biscuit", False)]),
    ("I have two dogs.", [("user", "pets", "dog", False)]),
    ("My dog Max passed away.", [("user", "pets", "max", True)]),
    ("My daughter's name is Emma.", [("user", "children", "emma", False)]),
    ("I speak English and French.", [("user", "languages", "english", False), ("user", "languages", "french", False)]),
    (
        "I'm allergic to peanuts and shellfish.",
        [("user", "allergies", "peanuts", False), ("user", "allergies", "shellfish", False)],
    ),
    ("I'm 32 years old.", [("user", "age", "32", False)]),
    ("My birthday is on March 3rd.", [("user", "birthday", "march 3rd", False)]),
    ("My name is Alice.", [("user", "name", "alice", False)]),
    ("I'm vegetarian.", [("user", "diet", "vegetarian", False)]),
    ("I'm married to Sam.", [("user", "relationship_status", "married", False), ("user", "partner", "sam", False)]),
    ("My wife's name is Sarah.", [("user", "partner", "sarah", False)]),
    ("I'm single.", [("user", "relationship_status", "single", False)]),
    ("In my free time I like to read novels.", [("user", "hobbies", "read novels", False)]),
    (
        "I love hiking and I'm allergic to peanuts.",
        [("user", "likes", "hiking", False), ("user", "allergies", "peanuts", False)],
    ),
    # nothing to extract
    ("Do you live in Paris?", []),
    ("Where do you work?", []),
    ("I love it!", []),
    ("I work at home on Fridays.", []),
    ("I'd love to visit Tokyo someday.", []),
    ("They live in Madrid.", []),
]

ZH_CASES = [
    ("我住在北京。", [("user", "lives_in", "beijing", False)]),
    ("我现在住在上海了", [("user", "lives_in", "shanghai", False)]),
    ("我家在杭州", [("user", "lives_in", "hangzhou", False)]),
    ("我已经不住在北京了", [("user", "lives_in", "beijing", True)]),
    ("我以前住在成都", [("user", "lives_in", "chengdu", False)]),
    ("我老家是重庆", [("user", "hometown", "chongqing", False)]),
    ("我在阿里巴巴工作，住在杭州", [("user", "employer", "alibaba", False), ("user", "lives_in", "hangzhou", False)]),
    ("我辞职了", [("user", "employer", "", True)]),
    ("我是一名程序员", [("user", "job_title", "程序员", False)]),
    ("我是一名外卖员", [("user", "job_title", "外卖员", False)]),
    ("我是个打工人", []),
    ("我喜欢吃辣", [("user", "likes", "吃辣", False)]),
    (
        "我喜欢爬山和游泳，不喜欢跑步",
        [
            ("user", "likes", "hiking", False),
            ("user", "likes", "swimming", False),
            ("user", "dislikes", "running", False),
        ],
    ),
    ("我讨厌香菜", [("user", "dislikes", "香菜", False)]),
    ("我不再吃辣了", [("user", "likes", "吃辣", True)]),
    ("我最喜欢的运动是篮球", [("user", "likes", "basketball", False)]),
    ("我的车是特斯拉", [("user", "car", "tesla", False)]),
    ("我朋友的车是Model 3。", [("user's friend", "car", "model_3", False)]),
    ("我姐姐住在深圳", [("user's sister", "lives_in", "shenzhen", False)]),
    ("张伟住在广州", [("张伟", "lives_in", "guangzhou", False)]),
    ("我养了一只猫叫豆豆", [("user", "pets", "豆豆", False)]),
    ("我领养了一只灵缇，叫小闪", [("user", "pets", "小闪", False)]),
    ("我家雪纳瑞叫可乐", [("user", "pets", "可乐", False)]),
    ("我家的狗叫旺财", [("user", "pets", "旺财", False)]),
    ("我养了一条狗", [("user", "pets", "dog", False)]),
    ("我女儿叫小雨", [("user", "children", "小雨", False)]),
    ("我会说英语和日语", [("user", "languages", "english", False), ("user", "languages", "japanese", False)]),
    ("我对花生过敏", [("user", "allergies", "花生", False)]),
    ("我今年三十岁", [("user", "age", "30", False)]),
    ("我叫李明", [("user", "name", "李明", False)]),
    ("我老婆叫王芳", [("user", "partner", "王芳", False)]),
    ("我现在单身", [("user", "relationship_status", "单身", False)]),
    ("我的爱好是摄影", [("user", "hobbies", "photography", False)]),
    ("我吃素", [("user", "diet", "吃素", False)]),
    ("我住在上海，在腾讯工作", [("user", "lives_in", "shanghai", False), ("user", "employer", "tencent", False)]),
    # nothing to extract
    ("你住在哪里？", []),
    ("他不喜欢跑步", []),
    ("他们住在上海", []),
    ("今天天气不错", []),
]


@pytest.mark.parametrize("text,expected", EN_CASES, ids=[c[0] for c in EN_CASES])
def test_slots_english(toolkit, text, expected):
    assert slots_of(toolkit, text) == expected


@pytest.mark.parametrize("text,expected", ZH_CASES, ids=[c[0] for c in ZH_CASES])
def test_slots_chinese(toolkit, text, expected):
    assert slots_of(toolkit, text) == expected


@pytest.mark.parametrize(
    "text,speaker,subject",
    [
        ("I work at Google.", "Caroline", "Caroline"),
        ("My friend's car is a Model 3.", "Caroline", "Caroline's friend"),
        ("我住在北京。", "李明", "李明"),
        ("我朋友的车是Model 3。", "李明", "李明's friend"),
    ],
)
def test_slots_subject_is_the_speaker_in_two_person_chats(toolkit, text, speaker, subject):
    found = slots_of(toolkit, text, speaker=speaker, people=[speaker])
    assert found and found[0][0] == subject


def test_slots_third_party_car_never_fills_speaker_slot(toolkit):
    for text in ("My friend's car is a Model 3.", "我朋友的车是Model 3。"):
        assert all(subject != "user" for subject, slot, _, _ in slots_of(toolkit, text) if slot == "car")


def test_slots_values_stop_at_time_expressions(toolkit):
    assert slots_of(toolkit, "I've been living in Shanghai since last year.") == [
        ("user", "lives_in", "shanghai", False)
    ]


def test_slots_since_sets_valid_from(toolkit):
    analysis = toolkit.nlp.analyze(["I have lived in Shanghai since 2020."])[0]
    entities = extract_entities(analysis, toolkit.lexicons)
    times = normalize_time(analysis.text, REF)
    resolver = SubjectResolver("user", toolkit.lexicons, entities)
    [value] = extract_slots(analysis.text, "en", resolver, toolkit.slot_patterns, toolkit.lexicons, times)
    assert value.slot == "lives_in" and value.valid_from is not None and value.valid_from.year == 2020


# ---------------------------------------------------------------------- stated tastes, hobbies, aims, homes, cars


def _stored(memory, text):
    facts = memory.write(text, user_id="u", timestamp=REF).facts
    return {(f.subject, f.slot, f.value) for f in facts if not f.negated}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        # an exclamation mark makes the tagger read "love" as an auxiliary: still a taste
        ("I love bowling!", ("user", "likes", "bowling")),
        ("I do love watching classics.", ("user", "likes", "watching classics")),
        ("I'm all about dramas and romcoms.", ("user", "likes", "romcoms")),
        ("Dancing has been my passion since I was a kid.", ("user", "likes", "dancing")),
        ("跳舞是我的最爱。", ("user", "likes", "跳舞")),
        ("Playing video games and watching movies are my main hobbies.", ("user", "hobbies", "watching movies")),
        ("Hiking is one of my hobbies.", ("user", "hobbies", "hiking")),
        # 主要 is no "要" of a plan
        ("游泳是我的主要爱好。", ("user", "hobbies", "游泳")),
        ("It's been a dream to have a family.", ("user", "goals", "have a family")),
        ("I've always wanted to open a bakery.", ("user", "goals", "open a bakery")),
        ("我一直想做电驱方面的开发。", ("user", "goals", "做电驱方面的开发")),
        ("My mom is back in our hometown of Shaoxing.", ("user's mother", "lives_in", "Shaoxing")),
        ("我妈在老家绍兴。", ("user's mother", "lives_in", "绍兴")),
        ("I have to take my old Corolla to the shop again.", ("user", "car", "Corolla")),
        ("我那辆卡罗拉又出毛病了。", ("user", "car", "卡罗拉")),
        ("我报了个吉他班，每周三晚上上课。", ("user", "hobbies", "吉他")),
        # a hyphen inside a word does not end the value; a comma before a new clause ends the list
        ("I love action and sci-fi movies, the effects are so cool!", ("user", "likes", "sci-fi movies")),
        ("I love hiking, reading, and jazz.", ("user", "likes", "jazz")),
        ("我喜欢科幻电影，特效太酷了！", ("user", "likes", "科幻电影")),
    ],
)
def test_stated_facts_of_common_phrasings(memory, text, fact):
    assert fact in _stored(memory, text)


@pytest.mark.parametrize(
    "text",
    [
        "We're like a family!",  # "like" as a preposition is no taste
        "You are my passion.",
        "你是我的最爱。",
        "What are your hobbies?",
        "这很重要。",
        "My Toyota dealer called.",
        "我要去那辆宝马旁边。",
        "Do you think it's been a dream to have a family?",
        "我想报个吉他班。",  # a wish, not a class taken
        "我给儿子报了个吉他班。",  # the son's class
    ],
)
def test_no_fact_from_lookalikes(memory, text):
    assert not {f for f in _stored(memory, text) if f[0] == "user"}
