"""Prompts that never mislead: what ``Recall.render()`` gives an LLM.

A rendered block is a ``str``; its header names the moment the answer stands at; turns that say
nothing never take a card's place; a changed plan's marker is in the card's language, with
dates and no internal ids; a budget that cuts cards still shows the best one and says how many
were left out. English and Chinese, with the real toolkit, embedder and SQLite.
"""

from __future__ import annotations

import pickle
from datetime import datetime, timedelta, timezone

import pytest

from memtracks import Turn
from memtracks.config import FusionConfig, MemoryConfig
from memtracks.errors import InvalidInputError
from memtracks.retrieval.cards import Rendered, count_tokens
from memtracks.retrieval.substance import content_free

T0 = datetime(2024, 6, 1, 9, tzinfo=timezone.utc)
CST = timezone(timedelta(hours=8))


def write(memory, items, user="u1", start=T0, step=timedelta(hours=1)):
    for i, item in enumerate(items):
        speaker, text = item if isinstance(item, tuple) else ("user", item)
        memory.write(
            Turn(text, user_id=user, session_id="s1", speaker=speaker, timestamp=start + i * step, turn_id=f"t{i}")
        )


# ------------------------------------------------------------------ render() is a string


def test_render_is_a_string_that_keeps_its_token_count_and_cards(memory):
    write(memory, ["I moved to Lisbon last month.", "I adopted a cat named Pixel."])
    recall = memory.retrieve("Where do I live?", user_id="u1", now=T0 + timedelta(days=1))
    rendered = recall.render()
    prompt = "System: " + rendered
    assert isinstance(rendered, str) and isinstance(rendered, Rendered)
    assert prompt.startswith("System: <memory as-of=") and "Lisbon" in prompt
    assert rendered.text == str(rendered) == rendered
    assert type(rendered.text) is str and type(str(rendered)) is str
    assert rendered.tokens == count_tokens(rendered) + rendered.count("\n")
    assert rendered.cards and rendered.cards[0] in recall.cards
    assert f"{rendered}".startswith("<memory") and rendered.splitlines()[-1] == "</memory>"
    copy = pickle.loads(pickle.dumps(rendered))
    assert copy == rendered and copy.tokens == rendered.tokens and len(copy.cards) == len(rendered.cards)


def test_render_of_no_cards_is_the_empty_string(memory):
    recall = memory.retrieve("Where do I live?", user_id="nobody", now=T0)
    rendered = recall.render()
    assert rendered == "" and not rendered and rendered.cards == () and rendered.left_out == 0


# ------------------------------------------------------------------ the header's moment


@pytest.mark.parametrize(
    "texts,question,lang_notice",
    [
        (["I live in Boston.", "I moved to Seattle."], "Where did I live?", "Records from past conversations"),
        (["我住在杭州。", "我搬到了成都。"], "我住在哪里？", "以下是以往对话的记录"),
    ],
)
def test_the_header_names_the_as_of_moment_not_the_clock(make_memory, texts, question, lang_notice):
    clock_day = datetime(2026, 12, 4, 12, tzinfo=timezone.utc)
    memory = make_memory(clock=lambda: clock_day)
    write(memory, texts, start=datetime(2024, 1, 1, 9, tzinfo=timezone.utc), step=timedelta(days=90))
    as_of = datetime(2024, 3, 10, tzinfo=timezone.utc)
    recall = memory.retrieve(question, user_id="u1", as_of=as_of)
    rendered = recall.render()
    assert rendered.startswith('<memory as-of="2024-03-10">') and lang_notice in rendered
    assert "2026-12-04" not in rendered
    assert recall.as_of == as_of and recall.moment == as_of and recall.now == clock_day
    asked = memory.retrieve(question, user_id="u1", now=datetime(2024, 8, 1, tzinfo=timezone.utc)).render()
    assert asked.startswith('<memory as-of="2024-08-01">')


# ------------------------------------------------------------------ content-free turns


@pytest.mark.parametrize(
    "text",
    [
        "Thanks!",
        "ok",
        "OK, I will.",
        "Nice to meet you!",
        "You're welcome!",
        "Good morning! How are you?",
        "Got it, thanks.",
        "Wow, that sounds amazing!",
        "👍",
        "谢谢！",
        "謝謝！",
        "好的，没问题",
        "你好！很高兴认识你。",
        "不客气",
        "哈哈哈，太好了",
    ],
)
def test_turns_that_say_nothing_are_content_free(text):
    assert content_free(text)


@pytest.mark.parametrize(
    "text",
    [
        "Thanks! I moved to Paris.",
        "I have a meeting tomorrow.",
        "Let's meet on Friday.",
        "I am 30.",
        "What did you do last weekend?",
        "Sorry, I meant Porto.",
        "谢谢你，我明天去上海。",
        "你好，我叫李明。",
        "我下周三要去北京出差。",
    ],
)
def test_turns_with_content_are_not_content_free(text):
    assert not content_free(text)


SMALL_TALK_EN = [
    ("user", "Hi!"),
    ("assistant", "Nice to meet you!"),
    ("user", "Thanks!"),
    ("user", "ok"),
    ("assistant", "You're welcome!"),
    ("user", "My sister Anna is a nurse in Chicago."),
    ("user", "Great, thanks."),
]
SMALL_TALK_ZH = [
    ("user", "你好！"),
    ("assistant", "很高兴认识你！"),
    ("user", "谢谢！"),
    ("user", "好的"),
    ("assistant", "不客气！"),
    ("user", "我妹妹安娜在芝加哥当护士。"),
    ("user", "嗯嗯，谢谢"),
]


@pytest.mark.parametrize(
    "items,question,content",
    [
        (SMALL_TALK_EN, "What does my sister do for a living?", "nurse"),
        (SMALL_TALK_EN, "What's my favourite movie?", None),
        (SMALL_TALK_ZH, "我妹妹是做什么工作的？", "护士"),
        (SMALL_TALK_ZH, "我最喜欢的电影是什么？", None),
    ],
)
def test_content_free_turns_take_no_card_in_a_tiny_store(memory, items, question, content):
    write(memory, items)
    recall = memory.retrieve(question, user_id="u1", now=T0 + timedelta(days=1))
    chatter = {text for _, text in items if content_free(text)}
    assert chatter, "the fixture must hold small talk"
    shown = " ".join(c.text for c in recall.cards)
    assert not any(f'"{text}"' in shown or f"“{text}”" in shown for text in chatter)
    for card in recall.cards:
        assert not any(memory.get("u1", t).text in chatter for t in card.source_turn_ids if t.startswith("t"))
    assert len(recall.cards) < 5  # fewer cards rather than filler
    if content:
        assert content in shown


def test_content_free_turns_take_no_card_in_a_large_store(memory):
    rng_texts = [f"I finished reading book number {i} about gardening and soil." for i in range(30)]
    filler = ["Thanks!", "ok", "谢谢！", "Nice to meet you!", "Got it.", "好的"] * 5
    items = [x for pair in zip(rng_texts, filler, strict=True) for x in pair]
    write(memory, items)
    for question in ("What did I read about gardening?", "我读了什么书？", "Do I have any pets?"):
        recall = memory.retrieve(question, user_id="u1", now=T0 + timedelta(days=3), top_n=10)
        assert not any(content_free(memory.get("u1", c.source_turn_ids[0]).text) for c in recall.cards)


def test_content_free_turns_can_be_kept_by_config(make_memory):
    memory = make_memory(config=MemoryConfig(fusion=FusionConfig(content_free="keep")))
    write(memory, ["Thanks!", "ok", "谢谢！"])
    recall = memory.retrieve("thanks", user_id="u1", now=T0 + timedelta(days=1))
    assert recall.cards


def test_content_free_config_is_checked():
    with pytest.raises(InvalidInputError, match="content_free"):
        FusionConfig(content_free="hide")


def test_queued_content_free_turns_take_no_card(make_memory, tmp_path):
    memory = make_memory(tmp_path / "m.db", async_writes=True)
    with memory._lock:  # the worker cannot write meanwhile: what is found comes from the hot cache
        for i, text in enumerate(["Thanks!", "谢谢！", "I moved to Lisbon last month."]):
            memory.write(text, user_id="u1", turn_id=f"q{i}", timestamp=T0 + timedelta(minutes=i))
        recall = memory.retrieve("Thanks! Where do I live?", user_id="u1", now=T0 + timedelta(hours=1))
    texts = " ".join(c.text for c in recall.cards)
    assert "Lisbon" in texts and "Thanks!" not in texts and "谢谢" not in texts


# ------------------------------------------------------------------ markers of changed plans


@pytest.mark.parametrize(
    "turns,question,marker,foreign",
    [
        (
            ["I'm flying to Tokyo next Wednesday for a conference.", "Ugh, I had to cancel the Tokyo trip."],
            "When am I going to Tokyo?",
            "[cancelled on 2024-06-03]",
            "已取消",
        ),
        (
            ["我下周三要去东京出差。", "东京之行取消了，项目推迟了。"],
            "我什么时候去东京？",
            "［2024-06-03 已取消］",
            "cancelled",
        ),
    ],
)
def test_a_cancelled_plan_is_marked_in_the_cards_language_with_its_date(memory, turns, question, marker, foreign):
    write(memory, turns, step=timedelta(days=2))
    recall = memory.retrieve(question, user_id="u1", now=T0 + timedelta(days=3))
    marked = [c.text for c in recall.cards if marker in c.text]
    assert marked, [c.text for c in recall.cards]
    rendered = recall.render(max_tokens=2000)
    assert "turn t" not in rendered and "(turn" not in rendered and "t1)" not in rendered
    assert foreign not in marked[0]


@pytest.mark.parametrize(
    "turns,question,marker",
    [
        (
            ["I have a dentist appointment next Thursday at 3pm.", "My dentist appointment got moved to next Monday."],
            "When is my dentist appointment?",
            "moved on 2024-06-03 to 2024-06-10",
        ),
        (["我下周五有考试。", "考试推迟到下下周了。"], "我什么时候考试？", "2024-06-03 改期至"),
    ],
)
def test_a_moved_plan_is_marked_with_the_day_it_moved_and_its_new_date(memory, turns, question, marker):
    write(memory, turns, step=timedelta(days=2))
    recall = memory.retrieve(question, user_id="u1", now=T0 + timedelta(days=3))
    assert any(marker in c.text for c in recall.cards), [c.text for c in recall.cards]
    assert "(turn" not in recall.render(max_tokens=2000)


# ------------------------------------------------------------------ a budget that cuts cards


@pytest.mark.parametrize(
    "texts,question",
    [
        ([f"I visited the art museum number {i} and loved the paintings." for i in range(6)], "Which museums?"),
        ([f"我参观了第{i}个美术馆，很喜欢那里的画。" for i in range(6)], "我去过哪些美术馆？"),
    ],
)
def test_a_budget_too_small_still_shows_the_best_card_and_counts_the_rest(memory, texts, question):
    write(memory, texts)
    recall = memory.retrieve(question, user_id="u1", now=T0 + timedelta(days=1))
    assert len(recall.cards) >= 3
    small = recall.render(max_tokens=30)
    assert len(small.cards) == 1 and small.cards[0] is recall.cards[0]
    assert small.left_out == len(recall.cards) - 1
    assert small.splitlines()[2].startswith(recall.cards[0].text.split(" ")[0]) and small.endswith("</memory>")
    whole = recall.render(max_tokens=10_000)
    assert whole.left_out == 0 and len(whole.cards) == len(recall.cards)


# ------------------------------------------------------------------ the pleasantries are validated data


def test_a_bad_pleasantry_fails_naming_the_file_and_the_field(tmp_path):
    from memtracks.data.files import bundled
    from memtracks.data.stopwords import load_stopwords
    from memtracks.errors import DataFileError

    text = bundled("lexicons", "stopwords.yaml").read_text(encoding="utf-8")
    bad = tmp_path / "stopwords.yaml"
    bad.write_text(text.replace("pleasantries_zh: [你好,", "pleasantries_zh: [x,"), encoding="utf-8")
    with pytest.raises(DataFileError) as caught:
        load_stopwords(bad)
    assert str(bad) in str(caught.value) and "pleasantries_zh" in str(caught.value) and "'x'" in str(caught.value)
    worse = tmp_path / "stopwords2.yaml"
    worse.write_text(text.replace("pleasantries_en:\n", "pleasantries_en: 7\nunused:\n"), encoding="utf-8")
    with pytest.raises(DataFileError, match="pleasantries_en|unused"):
        load_stopwords(worse)
