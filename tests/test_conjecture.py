"""Conjecture questions ("Would Melanie enjoy Vivaldi?", 他可能学的什么专业？) and the wider
temporal pool they read (Query.conjecture, lexicons/conjecture.yaml, RetrievalConfig.k_conjecture),
in English and Chinese."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone

import pytest

from memtracks import Turn
from memtracks.config import RetrievalConfig
from memtracks.data.conjecture import default_conjecture, load_conjecture
from memtracks.errors import DataFileError, InvalidInputError

T0 = datetime(2024, 3, 4, 19, tzinfo=timezone(timedelta(hours=8)))

CONJECTURES = [
    "Would Melanie enjoy the song The Four Seasons by Vivaldi?",
    "What might John's degree be in?",
    "Is it likely that Nate has friends besides Joanna?",
    "What could Tim do after he graduates?",
    "Which city would Sam probably move to?",
    "她可能喜欢什么样的音乐？",
    "陈默会不会再去一次北京？",
    "林晓大概学的是什么专业？",
    "他以后估计会做什么工作？",
]
NOT_CONJECTURES = [
    "Where did Melanie go last weekend?",
    "Could you remind me of the deli near the Vatican?",
    "I was wondering if you could remind me of that restaurant.",
    "Would you like to hear about my trip?",
    "When did John graduate?",
    "她上周去了哪里？",
    "你会不会做饭？",
    "您可能记得我上次说的那家店吗？",
    "陈默什么时候去的北京？",
]


@pytest.mark.parametrize("question", CONJECTURES)
def test_a_question_that_guesses_at_someone_is_a_conjecture(question):
    assert default_conjecture().asks(question)


@pytest.mark.parametrize("question", NOT_CONJECTURES)
def test_a_plain_question_or_a_request_to_the_assistant_is_not(question):
    assert not default_conjecture().asks(question)


@pytest.mark.parametrize(
    "question, expected",
    [("Would Caroline pursue writing as a career?", True), ("陳默會不會搬家？", True), ("陳默搬家了嗎？", False)],
)
def test_the_query_knows_it_and_reads_traditional_chinese_as_simplified(make_memory, question, expected):
    mem = make_memory()
    assert mem.reader.analyze(question, user_id="u1", now=T0).conjecture is expected


def test_a_bad_cue_file_fails_naming_the_file_the_field_and_the_entry(tmp_path):
    path = tmp_path / "conjecture.yaml"
    path.write_text("en: [would, '']\nzh: 可能\naddressee: {en: [you], zh: [3]}\n", encoding="utf-8")
    with pytest.raises(DataFileError) as err:
        load_conjecture(path)
    text = str(err.value)
    assert "conjecture.yaml" in text
    assert "field 'en', entry 1" in text
    assert "field 'zh': must be a list" in text
    assert "field 'addressee.zh', entry 0" in text
    path.write_text("- would\n", encoding="utf-8")
    with pytest.raises(DataFileError, match="must be a mapping"):
        load_conjecture(path)


def test_an_own_cue_file_changes_what_counts(tmp_path):
    path = tmp_path / "conjecture.yaml"
    path.write_text("en: [maybe]\nzh: [兴许]\n", encoding="utf-8")  # no addressee: none is a request
    cues = load_conjecture(path)
    assert cues.asks("Maybe Tim likes Paris?") and cues.asks("他兴许喜欢巴黎？")
    assert not cues.asks("Would Tim like Paris?")
    assert cues.asks("Maybe you like Paris?")


@pytest.mark.parametrize("bad", [-1, 2.5, "25", True])
def test_a_bad_k_conjecture_is_refused_with_its_name(bad):
    with pytest.raises(InvalidInputError, match="k_conjecture"):
        RetrievalConfig(k_conjecture=bad)


# ------------------------------------------------------------------ on a real memory

TOPICS = {
    "en": [
        "I spent the morning repotting the {n} basil plants on the balcony and the soil went everywhere.",
        "We tried the new ramen place on {n}th street, the broth was rich but the noodles were soft.",
        "My sister called about her {n} job interviews, she is nervous about the one at the hospital.",
        "I finally fixed the bike chain after watching {n} videos, and rode to the lake and back.",
        "The team at work shipped the release after {n} late nights, and everyone went home early today.",
    ],
    "zh": [
        "今天上午我把阳台上的{n}盆罗勒换了盆，土撒得到处都是，收拾了好久才弄干净。",
        "我们去了{n}号街新开的拉面店，汤头很浓，就是面条煮得有点软，下次想换一家试试。",
        "我姐姐打电话说她有{n}场面试，最紧张的是医院那一场，我劝她别想太多早点休息。",
        "看了{n}个视频以后我终于把自行车链条修好了，骑到湖边转了一圈又骑回来，特别舒服。",
        "公司团队连续加了{n}个晚上的班终于把新版本发出去了，今天大家都提前下班回家了。",
    ],
}
QUESTIONS = {
    "en": ("Would Ana enjoy a long bike ride?", "Where did Ana ride her bike?"),
    "zh": ("安娜会不会喜欢骑很远的自行车？", "安娜骑自行车去了哪里？"),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_conjecture_reads_k_conjecture_temporal_candidates_and_a_plain_question_does_not(make_memory, lang):
    mem = make_memory()
    speaker = "Ana" if lang == "en" else "安娜"
    for n in range(40):
        text = TOPICS[lang][n % 5].format(n=n + 2)
        mem.write(Turn(text, speaker=speaker, user_id="u1", session_id=f"s{n // 8}", timestamp=T0 + timedelta(days=n)))
    conjecture, plain = QUESTIONS[lang]
    now = T0 + timedelta(days=41)
    assert mem.reader.analyze(conjecture, user_id="u1", now=now).conjecture
    assert not mem.reader.analyze(plain, user_id="u1", now=now).conjecture

    def candidates(question, k_conjecture):
        retrieval = dataclasses.replace(mem.reader.config.retrieval, k_conjecture=k_conjecture)
        mem.reader.config = dataclasses.replace(mem.reader.config, retrieval=retrieval)
        return mem.retrieve(question, user_id="u1", now=now, top_n=50).candidates

    k_temporal = mem.reader.config.retrieval.k_temporal
    narrow, wide = candidates(conjecture, k_temporal), candidates(conjecture, 30)
    assert wide - narrow >= 10  # 30 temporal candidates where there were 15 (of 40 turns)
    assert candidates(plain, k_temporal) == candidates(plain, 30)  # a plain question keeps k_temporal
