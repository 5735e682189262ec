"""Happenings (trip, move, new job, deadline...) with their resolved time."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memtracks.pipeline.entities import extract_entities
from memtracks.pipeline.happenings import extract_happenings
from memtracks.pipeline.subjects.resolver import SubjectResolver
from memtracks.pipeline.timenorm import normalize_time

REF = datetime(2024, 1, 10, 10, tzinfo=timezone(timedelta(hours=8)))  # Wednesday


def happenings(toolkit, text):
    analysis = toolkit.nlp.analyze([text])[0]
    entities = extract_entities(analysis, toolkit.lexicons)
    times = normalize_time(text, REF)
    resolver = SubjectResolver("user", toolkit.lexicons, entities, text=text)
    found = extract_happenings(text, analysis.primary, resolver, toolkit.happening_patterns, times)
    return [(h.kind, h.subject, h.args, h.start.date().isoformat() if h.start else None) for h in found]


CASES = [
    ("I'm flying to Tokyo next Wednesday for a conference.", [("trip", "user", {"place": "Tokyo"}, "2024-01-17")]),
    ("We went on a trip to Paris last month.", [("trip", "user", {"place": "Paris"}, "2023-12-01")]),
    ("I moved to Seattle last week.", [("move", "user", {"place": "Seattle"}, "2024-01-01")]),
    ("I'm starting at Microsoft next Monday.", [("new_job", "user", {"org": "Microsoft"}, "2024-01-15")]),
    ("The report is due tomorrow.", [("deadline", "user", {"task": "report"}, "2024-01-11")]),
    (
        "I have a dentist appointment on Friday.",
        [("appointment", "user", {"what": "dentist appointment"}, "2024-01-12")],
    ),
    ("I got married to Sam last year.", [("wedding", "user", {"name": "Sam"}, "2023-01-01")]),
    ("I went to the store yesterday.", []),
    ("我下周三要去北京出差", [("trip", "user", {"place": "北京"}, "2024-01-17")]),
    ("我上周搬到了深圳。", [("move", "user", {"place": "深圳"}, "2024-01-01")]),
    ("张伟上个月搬到了深圳", [("move", "张伟", {"place": "深圳"}, "2023-12-01")]),
    ("我换了新工作，下个月入职腾讯。", [("new_job", "user", {"org": "腾讯"}, "2024-02-01")]),
    ("这个项目老板说月底必须交。", [("deadline", "user", {"task": "这个项目"}, "2024-01-16")]),
    ("我明天下午三点有面试", [("appointment", "user", {"what": "面试"}, "2024-01-11")]),
    ("我昨天感冒了", [("illness", "user", {"what": "感冒"}, "2024-01-09")]),
    ("我去超市买了点菜", [("purchase", "user", {"item": "菜"}, None)]),
    ("今天天气不错", []),
]


@pytest.mark.parametrize("text,expected", CASES, ids=[c[0] for c in CASES])
def test_happenings_cases(toolkit, text, expected):
    assert happenings(toolkit, text) == expected
