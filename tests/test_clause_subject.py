"""A Chinese clause's subject reaches its predicate across times and adverbs ("我周一开始在
微软上班", "另外我上周一开始在字节跳动上班了"), and nothing else bridges the gap — real jieba,
time normaliser and slot patterns."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memtracks.pipeline.entities import extract_entities
from memtracks.pipeline.slots import extract_slots
from memtracks.pipeline.subjects.resolver import SubjectResolver
from memtracks.pipeline.text import only_times_and_adverbs
from memtracks.pipeline.timenorm import normalize_time

REF = datetime(2024, 3, 1, 10, tzinfo=timezone(timedelta(hours=8)))  # a Friday


def slots_of(toolkit, text):
    analysis = toolkit.nlp.analyze([text])[0]
    entities = extract_entities(analysis, toolkit.lexicons)
    search = toolkit.lexicons.to_simplified(text)
    times = normalize_time(search, REF, lang="zh")
    resolver = SubjectResolver("user", toolkit.lexicons, entities, frozenset(), text).with_topics(search)
    found = extract_slots(text, "zh", resolver, toolkit.slot_patterns, toolkit.lexicons, times)
    return [(v.subject, v.slot, v.value, v.valid_from.date() if v.valid_from else None) for v in found]


@pytest.mark.parametrize(
    "text,gap,expected",
    [
        ("我周一开始在微软上班", "周一开始", True),
        ("另外我上周一开始在字节跳动上班了", "上周一开始", True),
        ("我现在已经在小米上班了", "现在已经", True),
        ("我觉得他下周开始在微软上班", "觉得他下周开始", False),
        ("我跟朋友在微软上班", "跟朋友", False),
    ],
)
def test_only_times_and_adverbs(text, gap, expected):
    times = normalize_time(text, REF, lang="zh")
    start = text.index(gap)
    assert only_times_and_adverbs(text, start, start + len(gap), times) is expected


@pytest.mark.parametrize(
    "text,expected",
    [
        ("我周一开始在微软上班。", [("user", "employer", "微软", datetime(2024, 2, 26).date())]),
        ("我去年开始在京东上班。", [("user", "employer", "京东", datetime(2023, 1, 1).date())]),
        ("我上個月開始在台積電上班。", [("user", "employer", "台積電", datetime(2024, 2, 1).date())]),
        ("其实我现在已经在小米上班了。", [("user", "employer", "小米", None)]),
        ("我哥哥去年开始在腾讯上班。", [("user's brother", "employer", "腾讯", datetime(2023, 1, 1).date())]),
        ("我现在不吃肉了，开始吃素。", [("user", "avoids", "肉", None), ("user", "diet", "吃素", None)]),
    ],
)
def test_the_subject_reaches_across_times_and_adverbs(toolkit, text, expected):
    assert slots_of(toolkit, text) == expected


@pytest.mark.parametrize(
    "text", ["我觉得他下周开始在微软上班。", "我跟他说周一开始在微软上班。", "今天吃素，明天再吃肉。"]
)
def test_nothing_else_bridges_the_gap(toolkit, text):
    assert slots_of(toolkit, text) == []
