"""Category expansion: a question that names a category ("martial arts", 武术) also searches for
its members ("kickboxing", 跆拳道), with the real lexicons, NLP, embedder and SQLite."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest

from memtracks import Turn
from memtracks.config import MemoryConfig
from memtracks.data.files import bundled
from memtracks.data.lexicons import load_lexicons
from memtracks.data.userdata import LEXICON_FILES
from memtracks.data.userdata import load_lexicons as load_user_lexicons
from memtracks.errors import DataFileError
from memtracks.retrieval.lexical import LexicalIndex, tokenize
from memtracks.retrieval.query import analyze_query

CST = timezone(timedelta(hours=8))
T0 = datetime(2024, 1, 8, 10, tzinfo=CST)
NOW = datetime(2024, 6, 1, 12, tzinfo=CST)

# Filler that shares no word with the questions; the member turn is hidden among it.
FILLER_EN = [
    "The weather was lovely on Saturday morning.",
    "My phone battery keeps dying after the update.",
    "Traffic on the bridge was terrible today.",
    "We repainted the kitchen a pale blue colour.",
    "The new coffee machine at the office broke again.",
    "I finally cleaned out the garage over the weekend.",
    "My neighbour lent me a ladder for the gutters.",
    "The library extended its opening hours this month.",
]
FILLER_ZH = [
    "周六早上天气特别好。",
    "手机更新以后电池老是没电。",
    "今天桥上堵车堵得厉害。",
    "我们把厨房刷成了浅蓝色。",
    "办公室新买的咖啡机又坏了。",
    "周末终于把车库收拾干净了。",
    "邻居借给我一把梯子清理排水沟。",
    "图书馆这个月延长了开放时间。",
]

CASES = [
    ("en", "I signed up for kickboxing classes at the gym down the street.", "What martial arts has John done?"),
    ("zh", "我从小学了五年跆拳道，还拿到了黑带。", "他练过什么武术？"),
    ("en", "My new violin arrived and I practised scales all evening.", "What musical instruments does she play?"),
    ("zh", "我最近在学小提琴，每天练一个小时。", "她会什么乐器？"),
]


def _write(memory, texts, user="u1"):
    for i, text in enumerate(texts):
        memory.write(
            Turn(text=text, user_id=user, session_id=f"s{i}", timestamp=T0 + timedelta(days=i), turn_id=f"t{i}")
        )


def _config(**retrieval) -> MemoryConfig:
    base = MemoryConfig()
    return replace(base, retrieval=replace(base.retrieval, **retrieval))


@pytest.mark.parametrize("lang,member,question", CASES)
def test_expansion_finds_a_turn_that_names_only_a_member(make_memory, lang, member, question):
    filler = FILLER_EN if lang == "en" else FILLER_ZH
    texts = filler[:4] + [member] + filler[4:]
    assert not set(tokenize(question)) & set(tokenize(member)) - {"ent:john"}  # no word in common
    on = make_memory()
    _write(on, texts)
    recall = on.retrieve(question, user_id="u1", now=NOW, k={"fact": 0, "inference": 0, "temporal": 2})
    found = [c for c in recall.cards if member in c.text]
    assert found and found[0].explain.get("temporal.lexical", 0.0) > 0, [c.explain for c in recall.cards]
    off = make_memory(config=_config(expansion_weight=0.0))
    _write(off, texts)
    recall = off.retrieve(question, user_id="u1", now=NOW, k={"fact": 0, "inference": 0, "temporal": 2})
    lexical = [c.explain.get("temporal.lexical", 0.0) for c in recall.cards if member in c.text]
    assert not any(lexical)  # off: the old behaviour, no word of the question in the turn


@pytest.mark.parametrize(
    "question,category",
    [
        ("What martial arts has John done?", "martial_art"),
        ("他练过什么武术？", "martial_art"),
        ("What musical instruments does Melanie play?", "instrument"),
        ("她会弹什么乐器？", "instrument"),
        ("What is John's relationship status?", "relationship_status"),
        ("她现在的感情状况怎么样？", "relationship_status"),
        ("What social media does she use?", "social_media"),
        ("她常用哪些社交媒体？", "social_media"),
        ("我开什么车？", "vehicle"),
    ],
)
def test_expansion_fires_on_the_category_only(toolkit, embedder, question, category):
    query = analyze_query(question, now=NOW, toolkit=toolkit, embedder=embedder)
    assert category in query.categories
    assert "art" not in query.categories  # "martial arts" names martial arts, not art
    assert query.expansions and not query.sibling_expansions


@pytest.mark.parametrize(
    "question",
    [
        "Where did I park yesterday?",
        "When did Caroline move to Boston?",
        "我在车站等了多久？",  # 车 inside 车站 names no vehicle
        "我什么时候搬的家？",
        "What did the doctor's receptionist say on the phone about Tuesday?",
    ],
)
def test_expansion_does_not_fire_on_unrelated_questions(toolkit, embedder, question):
    query = analyze_query(question, now=NOW, toolkit=toolkit, embedder=embedder)
    assert "vehicle" not in query.categories and "martial_art" not in query.categories
    if question.startswith(("Where did I park", "我在车站", "我什么时候")):
        assert not query.expansions


@pytest.mark.parametrize("question", ["What sports besides tennis does he play?", "除了篮球他还喜欢什么运动？"])
def test_expansion_keeps_to_siblings_only_when_asked(make_memory, toolkit, embedder, question):
    query = analyze_query(question, now=NOW, toolkit=toolkit, embedder=embedder)
    assert "sport" in query.categories and not query.expansions and query.sibling_expansions


def test_expansion_weight_stays_below_the_questions_own_words():
    index = LexicalIndex()
    index.add(1, tokenize("I love martial arts movies."))
    index.add(2, tokenize("I took up kickboxing last spring."))
    for i, text in enumerate(FILLER_EN):
        index.add(10 + i, tokenize(text))
    extra = [("kickbox",), ("karat",)]
    found = dict(index.search(tokenize("martial arts"), 5, extra=extra, extra_weight=0.5))
    assert found[1] > found[2] > 0
    assert 2 not in dict(index.search(tokenize("martial arts"), 5, extra=extra, extra_weight=0.0))
    # a member held by more than the share of the memories (and by more than one) says too little
    index.add(3, tokenize("More kickboxing tonight."))
    assert 2 in dict(index.search(tokenize("martial arts"), 5, extra=extra, extra_weight=0.5, extra_max_share=0.2))
    assert 2 not in dict(index.search(tokenize("martial arts"), 5, extra=extra, extra_weight=0.5, extra_max_share=0.1))


def test_expansion_phrase_members_need_every_word():
    index = LexicalIndex()
    index.add(1, tokenize("We played ice hockey on the frozen lake."))
    index.add(2, tokenize("Put more ice in my drink."))
    index.add(3, tokenize("我学过跆拳道"))
    index.add(4, tokenize("跆风来了，拳头大的冰雹"))
    found = dict(index.search([], 5, extra=[("ice", "hockey"), ("跆拳", "拳道")], extra_weight=0.5))
    assert set(found) == {1, 3}


def _copy_lexicons(folder):
    for name in (*LEXICON_FILES, "traditional.yaml"):
        (folder / name).write_text(bundled("lexicons", name).read_text(encoding="utf-8"), encoding="utf-8")


def test_expansion_bad_category_names_file_entry_field(tmp_path):
    _copy_lexicons(tmp_path)
    (tmp_path / "categories.yaml").write_text(
        "categories:\n"
        "  - {key: sport, en: [sport], zh: [运动], members_en: [baseball]}\n"
        "  - {key: martial_art, zh: [武术], includes: [fighting], members_zh: [散打]}\n"
        "  - {key: instrument, members_en: [cello], colour: red}\n"
        "  - {key: pet, en: [pet], members_en: [tabby]}\n"
        "  - {key: drink, members_en: [soda]}\n",
        encoding="utf-8",
    )
    with pytest.raises(DataFileError) as err:
        load_lexicons(tmp_path)
    message = str(err.value)
    assert "categories.yaml" in message
    assert "categories[2] 'instrument': field 'colour'" in message
    assert "categories[4] 'drink': fields 'en'/'zh'" in message


def test_expansion_bad_reference_names_file_entry_field(tmp_path):
    _copy_lexicons(tmp_path)
    (tmp_path / "categories.yaml").write_text(
        "categories:\n"
        "  - {key: martial_art, zh: [武术], includes: [fighting], members_zh: [散打]}\n"
        "  - {key: pet, en: [pet], members_en: [tabby]}\n",
        encoding="utf-8",
    )
    with pytest.raises(DataFileError) as err:
        load_lexicons(tmp_path)
    message = str(err.value)
    # entities.yaml names categories the file no longer has
    assert "entities.yaml" in message and "'meta'" in message and "field 'categories'" in message
    assert "unknown category 'social_media'" in message

    (tmp_path / "activities.yaml").write_text(
        "activities:\n  - {key: boxing, en: [boxing], zh: [拳击], categories: [martial_art]}\n", encoding="utf-8"
    )
    for name in ("relations.yaml", "entities.yaml", "conditions.yaml"):  # drop their category tags
        text = (tmp_path / name).read_text(encoding="utf-8")
        (tmp_path / name).write_text(re.sub(r", categories: \[[^\]]*\]", "", text), encoding="utf-8")
    with pytest.raises(DataFileError) as err:
        load_lexicons(tmp_path)
    message = str(err.value)
    assert "categories[0] 'martial_art'" in message and "field 'includes'" in message and "fighting" in message
    # tabby is a cat in animals.yaml: one home per word
    assert "categories[1] 'pet'" in message and "field 'members_en'" in message and "animals.yaml" in message


def test_expansion_user_lexicon_is_validated(tmp_path):
    (tmp_path / "activities.yaml").write_text(
        "activities:\n  - {key: sumo, en: [sumo], zh: [相扑], categories: [martial_artz]}\n", encoding="utf-8"
    )
    with pytest.raises(DataFileError) as err:
        load_user_lexicons(tmp_path)
    message = str(err.value)
    assert "activities.yaml" in message and "activities[0] 'sumo'" in message and "martial_artz" in message
    (tmp_path / "activities.yaml").write_text(
        "activities:\n  - {key: sumo, en: [sumo], zh: [相扑], categories: [martial_art]}\n", encoding="utf-8"
    )
    lexicons = load_user_lexicons(tmp_path)
    martial = next(c for c in lexicons.categories if c.key == "martial_art")
    assert "sumo" in martial.members_en and "相扑" in martial.members_zh


def test_expansion_lexicon_is_broad():
    lexicons = load_lexicons()
    members = {f for c in lexicons.categories for f in (*c.members_en, *c.members_zh)}
    assert len(lexicons.categories) >= 30 and len(members) >= 1500
    for category in lexicons.categories:
        assert category.names_en and category.names_zh, category.key  # both languages
        assert category.members_en and category.members_zh, category.key


@pytest.mark.parametrize(
    "named,member,question",
    [
        (
            "I adopted a dog named Bailey last spring.",
            "Bailey chewed through the sofa cushion again.",
            "What pets does Melanie have?",
        ),
        ("我家狗狗叫豆豆，去年领回来的。", "豆豆今天又把沙发垫咬坏了。", "她养了什么宠物？"),
    ],
)
def test_expansion_pets_include_the_names_the_memory_knows(make_memory, toolkit, embedder, named, member, question):
    memory = make_memory()
    filler = FILLER_EN if named.isascii() else FILLER_ZH
    many = [f"{text} ({n})" for n in range(1, 6) for text in filler]  # the name is in 2 of 42 memories
    _write(memory, [named, *many[:12], member, *many[12:]])
    query = memory.reader.analyze(question, user_id="u1", now=NOW)
    assert "pet" in query.categories
    name = "Bailey" if named.isascii() else "豆豆"
    assert set(tokenize(name)) & {t for g in query.expansions for t in g}
    recall = memory.retrieve(question, user_id="u1", now=NOW, k={"fact": 0, "inference": 0, "temporal": 3})
    marker = "sofa cushion" if named.isascii() else "沙发垫"  # cards add resolved dates to the text
    assert any(marker in c.text and c.explain.get("temporal.lexical", 0.0) > 0 for c in recall.cards)
