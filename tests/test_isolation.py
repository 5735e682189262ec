"""Isolation: users whose ids look alike or collide in some layer (case, Cyrillic and
full-width letters, SQL wildcards, an agent namespace beside a user) each see only their own
memories, through every reader, and forgetting one touches no other."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memtracks import InvalidTurnError, Turn
from memtracks.errors import NotFoundError

pytestmark = pytest.mark.backends  # every test here runs on SQLite and on Postgres


T0 = datetime(2024, 3, 1, 9, tzinfo=timezone.utc)
NOW = T0 + timedelta(days=3)
# (user_id, agent_id): the city each one lives in is theirs alone
SCOPES = [
    ("alice", None),
    ("Alice", None),
    ("\u0430lice", None),  # Cyrillic а
    ("\uff41\uff4c\uff49\uff43\uff45", None),  # full-width ａｌｉｃｅ
    ("al%ce", None),
    ("a_ice", None),
    ("alice", "bot"),
    ("bot", "alice"),
    ("艾丽丝", None),
]
CITIES = ["Boston", "Denver", "Lima", "Oslo", "Quito", "Perth", "Austin", "Dublin", "杭州"]


@pytest.fixture
def mem(make_memory, tmp_path):
    m = make_memory(tmp_path / "m.db")
    for (user, agent), city in zip(SCOPES, CITIES, strict=True):
        text = f"我住在{city}，我养了一只猫。" if city == "杭州" else f"I live in {city} and I have a cat."
        m.write(Turn(text, user_id=user, agent_id=agent, turn_id="t1", session_id="s1", timestamp=T0))
        later = "我搬到了新家。" if city == "杭州" else f"Last week I went to a concert in {city}."
        m.write(Turn(later, user_id=user, agent_id=agent, turn_id="t2", session_id="s1", timestamp=T0 + timedelta(1)))
    return m


def _others(city: str) -> list[str]:
    return [c for c in CITIES if c != city]


def _seen(mem, user: str, agent: str | None, tmp_path) -> str:
    """Everything every reader gives this scope, as one text."""
    parts = []
    recall = mem.retrieve("Where do I live? 我住在哪里？", user_id=user, agent_id=agent, now=NOW, top_n=20)
    parts += [c.text for c in recall.cards] + [recall.render(max_tokens=5_000).text]
    facts = mem.facts(user, agent_id=agent, include_superseded=True)
    parts += [f"{f.value} {f.source_turn_ids}" for f in facts]
    parts += [e.text for e in mem.events(user, agent_id=agent)]
    parts += [i.text for i in mem.inferences(user, agent_id=agent, include_retracted=True)]
    for f in facts:
        parts += [str(x.value) for x in mem.fact_history(user, f.id, agent_id=agent)]
    parts.append(str(mem.get(user, "t1", agent_id=agent)))
    export = tmp_path / "export.jsonl"
    mem.export(export, user_id=user, agent_id=agent)
    parts.append(export.read_text(encoding="utf-8"))
    return "\n".join(parts)


def test_isolation_look_alike_users_see_only_their_own_memories_through_every_reader(mem, tmp_path):
    for (user, agent), city in zip(SCOPES, CITIES, strict=True):
        seen = _seen(mem, user, agent, tmp_path)
        assert city in seen, (user, agent)
        leaked = [c for c in _others(city) if c in seen]
        assert leaked == [], f"{user!r}/{agent!r} sees {leaked}"
        assert mem.stats(user, agent_id=agent)["turns"] == 2
    assert sorted(mem.scopes(), key=str) == sorted(SCOPES, key=str)


def test_isolation_ids_of_another_users_memories_read_as_absent(mem):
    theirs = mem.facts("Alice")[0]
    event = mem.events("Alice")[0]
    assert mem.get("Alice", theirs.id, kind="fact") is not None
    assert mem.get("alice", theirs.id, kind="fact") is None  # ids are not shared between users
    assert mem.fact_history("alice", theirs.id) == []
    assert mem.get("alice", f"event:{event.id}") is None
    with pytest.raises(NotFoundError):
        mem.correct("alice", theirs.id, value="Mars")
    assert mem.facts("Alice")[0].value == theirs.value
    with pytest.raises(InvalidTurnError):
        mem.facts("alice\u241fbot")  # the separator's stand-in cannot name the agent scope
    with pytest.raises(InvalidTurnError):
        mem.facts("alice\x1fbot")


def test_isolation_forgetting_one_user_touches_no_look_alike(mem, tmp_path):
    mem.forget("alice", everything=True)
    assert mem.events("alice") == [] and mem.facts("alice") == []
    for (user, agent), city in list(zip(SCOPES, CITIES, strict=True))[1:]:
        seen = _seen(mem, user, agent, tmp_path)
        assert city in seen and mem.stats(user, agent_id=agent)["turns"] == 2, (user, agent)
    mem.forget("al%ce", everything=True)  # a SQL wildcard in an id is a letter like any other
    assert mem.stats("a_ice")["turns"] == 2 and mem.stats("Alice")["turns"] == 2
    assert mem.check().ok
