"""A conclusion that became a fact holds as long as the fact does, and questions that ask how
things were before ("ever", 住过) reach what no longer holds.

Regression: after "Jake officially moved to Denver", "Where does my brother live now?" still
showed the conclusion "Jake lives in Austin" (drawn from his first move) among the cards,
although the fact it made had been replaced."""

from __future__ import annotations

from datetime import timedelta

import pytest
from conftest import CST, at

from memtracks import Turn
from memtracks.data.history import default_history, load_history
from memtracks.errors import DataFileError

T0 = at(2024, 9, 2, 19, tz=CST)
NOW = at(2024, 11, 16, 10, tz=CST)

CHATS = {
    "en": (
        [
            "My brother Jake just moved to Austin for a new job.",
            "Jake officially moved to Denver last weekend!",
        ],
        "Austin",
        "Denver",
        "Where does my brother live now?",
        "Did Jake ever live in Austin?",
    ),
    "zh": (
        ["我弟弟阿杰刚搬到深圳，换了新工作。", "阿杰上周末正式搬到成都了！"],
        "深圳",
        "成都",
        "我弟弟现在住哪？",
        "阿杰在深圳住过吗？",
    ),
}


def tell(memory, lines):
    for i, text in enumerate(lines):
        memory.write(Turn(text, user_id="sam", session_id=f"s{i}", timestamp=T0 + timedelta(days=50 * i)))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_replaced_conclusion_leaves_the_present(memory, lang):
    lines, old, new, now_question, _ = CHATS[lang]
    tell(memory, lines)
    cards = memory.retrieve(now_question, user_id="sam", now=NOW).cards
    assert new in cards[0].text
    derived = [c for c in cards if c.track in ("fact", "inference")]
    assert derived and not any(old in c.text for c in derived)
    assert any(old in i.text for i in memory.inferences(user_id="sam"))  # kept, not deleted


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_question_about_before_reaches_it(memory, lang):
    lines, old, _, _, history_question = CHATS[lang]
    tell(memory, lines)
    cards = memory.retrieve(history_question, user_id="sam", now=NOW).cards
    assert cards[0].track == "fact" and old in cards[0].text


@pytest.mark.parametrize(
    "question,past",
    [
        ("Did Jake ever live in Austin?", True),
        ("Have I ever told you about my old job?", True),
        ("Was my sister ever married?", True),
        ("What's the best pizza I've had ever?", False),
        ("Whenever I travel, where do I stay?", False),
        ("What do I do every morning?", False),
        ("阿杰在深圳住过吗？", True),
        ("我在哪些城市工作過？", True),
        ("我以前开什么车？", True),
        ("我过年去哪？", False),
        ("我现在住哪？", False),
    ],
)
def test_history_cues(question, past, toolkit):
    assert default_history().asks(toolkit.lexicons.to_simplified(question)) is past


@pytest.mark.parametrize(
    "question,when,compares",
    [
        ("When did I move to Porto?", True, False),
        ("What day is the recital?", True, False),
        ("Which did I visit first, Rome or Paris?", False, True),
        ("What was my first car?", False, True),
        ("What was the last week like?", False, False),
        ("黄志明什么时候去新公司报到？", True, False),
        ("黃志明什麼時候去新公司報到？", True, False),  # Traditional: read as Simplified
        ("她先去的京都还是大阪？", False, True),
        ("她先去的京都還是大阪？", False, True),
        ("我最近在忙什么？", False, False),  # 最近 is "lately", no comparison
    ],
)
def test_question_forms(toolkit, question, when, compares):
    simplified = toolkit.lexicons.to_simplified(question)
    assert default_history().asks_when(simplified) is when
    assert default_history().compares(simplified) is compares


def test_a_count_s_words_are_found_in_either_script(toolkit):
    history = default_history()
    for question in ("我一共去了几次？", "我一共去了幾次？", "How many trips did I take in total?"):
        spans = history.form_spans(toolkit.lexicons.to_simplified(question), "quantity")
        assert [question[a:b].lower() for a, b in spans] in (["一共"], ["how many", "in total"])


def test_a_bad_aggregate_cue_names_its_section_and_entry(tmp_path):
    bad = tmp_path / "history.yaml"
    bad.write_text("en: [before]\nzh: [以前]\naggregate: {en: [how many], zh: [几(?:只]}\n", encoding="utf-8")
    with pytest.raises(DataFileError) as err:
        load_history(bad)
    assert "field 'aggregate.zh', entry 0" in str(err.value)


def test_a_bad_history_file_names_its_field_and_entry(tmp_path):
    bad = tmp_path / "history.yaml"
    bad.write_text("en: [before, '(unclosed']\nzh: [以前, 3]\n", encoding="utf-8")
    with pytest.raises(DataFileError) as err:
        load_history(bad)
    text = str(err.value)
    assert "history.yaml" in text and "field 'en', entry 1" in text and "field 'zh', entry 1" in text
