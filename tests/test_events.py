"""Turns become timed events; the event chain links a session in order and entities across sessions."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memtracks import Turn

CST = timezone(timedelta(hours=8))
T0 = datetime(2024, 1, 10, 10, tzinfo=CST)


pytestmark = pytest.mark.backends  # every test here runs on SQLite and on Postgres


@pytest.mark.parametrize(
    "first,later,key",
    [
        ("I have a cat named Luna.", "Luna has not been eating well lately.", "luna"),
        ("我养了一只猫叫豆豆", "豆豆最近不爱吃东西", "豆豆"),
    ],
)
def test_events_pet_named_in_two_sessions_is_linked(memory, first, later, key):
    a = memory.write(Turn(text=first, user_id="u1", session_id="s1", timestamp=T0)).event
    memory.write(Turn(text="Anyway, how is work?", user_id="u1", session_id="s1", timestamp=T0 + timedelta(minutes=1)))
    b = memory.write(Turn(text=later, user_id="u1", session_id="s2", timestamp=T0 + timedelta(days=20))).event
    assert key in b.entity_keys
    graph = memory.event_chain("u1")
    edges = [(u, v, d["kind"], d["key_"]) for u, v, d in graph.edges(data=True)]
    assert (a.id, b.id, "entity", key) in edges


def test_events_session_order_is_a_chain(memory):
    ids = [
        memory.write(Turn(text=t, user_id="u1", session_id="s1", timestamp=T0 + timedelta(minutes=i))).event.id
        for i, t in enumerate(["Hi!", "I went hiking yesterday.", "It was great."])
    ]
    graph = memory.event_chain("u1")
    assert [(u, v) for u, v, d in graph.edges(data=True) if d["kind"] == "next"] == [(ids[0], ids[1]), (ids[1], ids[2])]


@pytest.mark.parametrize(
    "text,start,granularity",
    [
        ("I went hiking yesterday.", "2024-01-09", "day"),
        ("I'm flying to Tokyo next Wednesday.", "2024-01-17", "day"),
        ("我上个月搬到了深圳", "2023-12-01", "month"),
        ("我昨天去爬山了", "2024-01-09", "day"),
    ],
)
def test_events_carry_mention_time_and_resolved_time(memory, text, start, granularity):
    event = memory.write(Turn(text=text, user_id="u1", timestamp=T0)).event
    assert event.mentioned_at == T0
    assert event.start.date().isoformat() == start and event.granularity == granularity
    assert event.start.tzinfo is not None


def test_events_filter_by_time_window(memory):
    memory.write(Turn(text="I went hiking yesterday.", user_id="u1", timestamp=T0))
    memory.write(Turn(text="Lunch was good.", user_id="u1", timestamp=T0 + timedelta(days=30)))
    window = memory.events("u1", start=datetime(2024, 1, 9, tzinfo=CST), end=datetime(2024, 1, 10, tzinfo=CST))
    assert [e.text for e in window] == ["I went hiking yesterday."]


def test_events_cached_chain_grows_with_writes(memory):
    first = memory.write(Turn(text="I have a cat named Luna.", user_id="u1", session_id="s1", timestamp=T0)).event
    graph = memory.event_chain("u1")
    second = memory.write(
        Turn(text="Luna sleeps all day.", user_id="u1", session_id="s1", timestamp=T0 + timedelta(minutes=1))
    ).event
    assert memory.event_chain("u1") is graph and graph.has_edge(first.id, second.id)
