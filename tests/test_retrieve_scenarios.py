"""End-to-end retrieval scenarios in English and Chinese (tests/data/scenarios.yaml)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml

from memtracks import Turn

pytestmark = pytest.mark.backends  # every test here runs on SQLite and on Postgres


T0 = datetime(2024, 1, 8, 10, tzinfo=timezone(timedelta(hours=8)))
SCENARIOS = yaml.safe_load((Path(__file__).parent / "data" / "scenarios.yaml").read_text(encoding="utf-8"))["scenarios"]
CASES = [(s, q) for s in SCENARIOS for q in s["questions"]]


def load(memory, scenario, user="u1"):
    for i, row in enumerate(scenario["turns"]):
        day, text = row[0], row[1]
        speaker = row[2] if len(row) > 2 else "user"
        memory.write(
            Turn(
                text=text,
                speaker=speaker,
                user_id=user,
                session_id=f"s{day}",
                timestamp=T0 + timedelta(days=day, minutes=i),
                turn_id=f"{scenario['name']}-{i}",
            )
        )


@pytest.mark.parametrize("scenario,question", CASES, ids=[f"{s['name']}: {q['ask']}" for s, q in CASES])
def test_retrieve_scenario(memory, scenario, question):
    load(memory, scenario)
    recall = memory.retrieve(question["ask"], user_id="u1", now=T0 + timedelta(days=question["day"], hours=8))
    texts = [c.text for c in recall.cards]
    assert texts, "no cards"
    for part in question.get("top", []):
        assert part in texts[0], f"{part!r} not in top card; cards: {texts}"
    for part in question.get("within", []):
        assert any(part in t for t in texts[:3]), f"{part!r} not in top 3; cards: {texts}"
    for part in question.get("absent", []):
        assert not any(part in t for t in texts), f"{part!r} should not be shown; cards: {texts}"
    assert all(c.source_turn_ids for c in recall.cards)


@pytest.mark.parametrize(
    "lang,turn,question",
    [
        ("en", "I live in Boston and I'm allergic to peanuts.", "Where do I live and what am I allergic to?"),
        ("zh", "我住在北京，我对花生过敏。", "我住哪，对什么过敏？"),
    ],
)
def test_retrieve_never_shows_another_users_memories(memory, lang, turn, question):
    memory.write(Turn(text=turn, user_id="alice", timestamp=T0))
    memory.write(Turn(text="I love jazz." if lang == "en" else "我喜欢爵士乐。", user_id="bob", timestamp=T0))
    recall = memory.retrieve(question, user_id="bob", now=T0 + timedelta(days=1))
    shown = " ".join(c.text for c in recall.cards)
    assert "Boston" not in shown and "peanuts" not in shown and "北京" not in shown and "花生" not in shown
    bob_turns = {e.turn_id for e in memory.events("bob")}
    assert all(set(c.source_turn_ids) <= bob_turns for c in recall.cards)


@pytest.mark.parametrize(
    "turn,question,expected",
    [
        ("I have a dog named Max.", "What is my dog's name?", "Max"),
        ("我养了一只猫叫豆豆", "我的猫叫什么？", "豆豆"),
    ],
)
def test_retrieve_reads_its_own_writes(memory, turn, question, expected):
    memory.retrieve("warm up the indexes", user_id="u1", now=T0)  # indexes exist before the write
    memory.write(Turn(text=turn, user_id="u1", timestamp=T0))
    recall = memory.retrieve(question, user_id="u1", now=T0 + timedelta(seconds=1))
    assert expected in recall.cards[0].text
