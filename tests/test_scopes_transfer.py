"""Scopes (agent_id), retrieve filters, metadata on records and cards, write ergonomics,
export/import round trips and the export schema."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from memtracks import Turn
from memtracks.errors import ImportConflictError, InvalidInputError, InvalidTurnError, StorageError
from memtracks.upkeep.transfer import json_schema

pytestmark = pytest.mark.backends  # every test here runs on SQLite and on Postgres


CST = timezone(timedelta(hours=8))
T0 = datetime(2024, 3, 1, 9, tzinfo=CST)
SCHEMA = Path(__file__).parent.parent / "docs" / "export.schema.json"

CONVERSATION = [
    ("I live in Boston and work at Google.", "a"),
    ("I have a cat named Luna.", "a"),
    ("I'm flying to Tokyo next Wednesday for a conference.", "a"),
    ("I moved to Seattle last month.", "b"),
    ("我住在北京，在百度工作。", "b"),
    ("我养了一只猫叫豆豆", "b"),
    ("我下周三要去上海出差", "c"),
    ("我不再吃辣了", "c"),
    ("The report is due at the end of the month.", "c"),
    ("Luna has not been eating well lately.", "c"),
]
QUESTIONS = [
    "Where do I live now?",
    "Where did I live before?",
    "When is my trip to Tokyo?",
    "我现在住哪？",
    "豆豆最近怎么样？",
    "What do I know about Luna?",
]


def write_conversation(mem, user="u1", agent_id=None):
    return mem.write_many(
        [
            Turn(
                text,
                user_id=user,
                agent_id=agent_id,
                session_id=session,
                turn_id=f"t{i}",
                timestamp=T0 + timedelta(days=3 * i),
                metadata={"channel": "app" if i % 2 else "web", "n": i},
            )
            for i, (text, session) in enumerate(CONVERSATION)
        ]
    )


def state(mem, user="u1"):
    facts = [f for f in mem.facts(user, include_superseded=True)]
    chains = [[g.id for g in mem.fact_history(user, f.id)] for f in facts]
    return (
        facts,
        chains,
        mem.events(user),
        mem.inferences(user, include_retracted=True),
        sorted(mem.event_chain(user).edges(data=True)),
    )


def cards(mem, user="u1"):
    now = T0 + timedelta(days=40)
    return [
        [
            (c.track, c.text, c.memory_id, c.source_turn_ids, c.metadata)
            for c in mem.retrieve(q, user_id=user, now=now).cards
        ]
        for q in QUESTIONS
    ]


# ---------------------------------------------------------------------- ergonomics


def test_turn_fields_after_text_are_keyword_only():
    with pytest.raises(TypeError):
        Turn("hi", "u1")  # "u1" would have been the speaker
    assert Turn("hi", user_id="u1").speaker == "user"


def test_write_accepts_text_and_keywords(memory):
    result = memory.write("I moved to Shanghai last month.", user_id="u1", timestamp=T0, metadata={"app": "x"})
    assert result.facts[0].value == "Shanghai" and result.turn.user_id == "u1"
    assert memory.events("u1")[0].metadata == {"app": "x"}
    with pytest.raises(InvalidTurnError):
        memory.write(Turn("hi", user_id="u1"), user_id="u2")


def test_memory_refuses_missing_parent_folder_unless_asked(make_memory, tmp_path):
    with pytest.raises(StorageError, match="does not exist"):
        make_memory(tmp_path / "no" / "such" / "m.db")
    assert not (tmp_path / "no").exists()
    make_memory(tmp_path / "new" / "m.db", create_dirs=True)
    assert (tmp_path / "new").is_dir()


def test_async_wrappers(memory):
    import asyncio

    async def run():
        await memory.awrite("I live in Lisbon.", user_id="u1", timestamp=T0)
        return await memory.aretrieve("Where do I live?", user_id="u1", now=T0)

    assert "Lisbon" in asyncio.run(run()).cards[0].text


# ---------------------------------------------------------------------- scopes and filters


def test_agent_scopes_are_separate(memory):
    memory.write("I live in Boston.", user_id="u1", timestamp=T0)
    memory.write("I live in Paris.", user_id="u1", agent_id="travel-bot", timestamp=T0)
    memory.write("我住在成都。", user_id="u1", agent_id="中文助手", timestamp=T0)
    assert [f.value for f in memory.facts("u1")] == ["Boston"]
    assert [f.value for f in memory.facts("u1", agent_id="travel-bot")] == ["Paris"]
    paris = memory.facts("u1", agent_id="travel-bot")[0]
    assert paris.user_id == "u1"
    assert memory.get("u1", f"fact:{paris.id}") is None
    recall = memory.retrieve("Where do I live?", user_id="u1", agent_id="travel-bot", now=T0)
    assert "Paris" in recall.cards[0].text and not any("Boston" in c.text for c in recall.cards)
    assert sorted(memory.scopes(), key=str) == sorted([("u1", None), ("u1", "travel-bot"), ("u1", "中文助手")], key=str)
    assert memory.users() == ["u1"]


def test_retrieve_filters_by_session_time_track_and_metadata(memory):
    write_conversation(memory)
    now = T0 + timedelta(days=40)
    by_session = memory.retrieve("cat", user_id="u1", now=now, session_id="c", top_n=10)
    assert by_session.cards and all(set(c.source_turn_ids) & {"t6", "t7", "t8", "t9"} for c in by_session.cards)
    windowed = memory.retrieve(
        "Where do I live?", user_id="u1", now=now, start=T0, end=T0 + timedelta(days=4), top_n=10
    )
    assert windowed.cards and all(set(c.source_turn_ids) & {"t0", "t1"} for c in windowed.cards)
    only_events = memory.retrieve("Where do I live?", user_id="u1", now=now, tracks=["temporal"], top_n=10)
    assert only_events.cards and {c.track for c in only_events.cards} == {"temporal"}
    app = memory.retrieve("我住在哪里？", user_id="u1", now=now, metadata={"channel": "app"}, top_n=10)
    assert app.cards and all(c.metadata["channel"] == "app" for c in app.cards)
    assert memory.retrieve("cat", user_id="u1", now=now, metadata={"channel": "sms"}).cards == []
    with pytest.raises(InvalidTurnError):
        memory.retrieve("cat", user_id="u1", now=now, tracks=["facts"])


def test_cards_carry_metadata_and_refs(memory):
    write_conversation(memory)
    for card in memory.retrieve("When is my trip to Tokyo?", user_id="u1", now=T0 + timedelta(days=7)).cards:
        first = int(card.source_turn_ids[0][1:])
        assert card.metadata["n"] == first and card.metadata["channel"] == ("app" if first % 2 else "web")
        assert memory.get("u1", card.ref) is not None
    assert json.loads(json.dumps(card.to_dict()))["ref"] == card.ref


# ---------------------------------------------------------------------- export / import


@pytest.mark.parametrize("vectors", [True, False])
def test_export_import_round_trip(make_memory, tmp_path, vectors):
    source = make_memory(tmp_path / "a.db")
    write_conversation(source)
    source.correct("u1", source.facts("u1", slot="employer")[0].id, value="Alphabet")
    source.forget("u1", turn_ids=["t9"])
    before, answers = state(source), cards(source)
    path = tmp_path / "u1.jsonl"
    assert source.export(path, user_id="u1", vectors=vectors) > 0
    target = make_memory(tmp_path / "b.db")
    report = target.import_(path)
    assert report.scopes == [("u1", None)] and not report.renumbered
    assert (report.reembedded > 0) == (not vectors)
    assert state(target) == before
    assert cards(target) == answers


def test_import_renumbers_when_ids_are_taken_and_refuses_to_mix(make_memory, tmp_path):
    source = make_memory()
    write_conversation(source)
    path = tmp_path / "u1.jsonl"
    source.export(path, user_id="u1")
    target = make_memory()
    target.write("I live in Oslo.", user_id="someone", timestamp=T0)
    report = target.import_(path)
    assert report.renumbered
    facts = target.facts("u1", include_superseded=True)
    assert [(f.slot, f.value) for f in facts] == [
        (f.slot, f.value) for f in source.facts("u1", include_superseded=True)
    ]
    for f in facts:  # the chains point at the new ids
        assert f.superseded_by is None or target.get("u1", f"fact:{f.superseded_by}") is not None
    assert [c[:2] for c in cards(target)[0]] == [c[:2] for c in cards(source)[0]]
    with pytest.raises(ImportConflictError):
        target.import_(path)
    target.import_(path, user_id="u1-copy")
    assert len(target.events("u1-copy")) == len(CONVERSATION)


def test_import_rejects_a_bad_file_with_its_line(memory, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"kind": "header", "exported_at": "2024-01-01T00:00:00+00:00", "embedder": "usem3:512", '
        '"vectors": true, "scopes": []}\n{"kind": "fact", "user_id": "u1", "record": {"slot": 3}}\n'
    )
    with pytest.raises(InvalidInputError, match="bad.jsonl:2"):
        memory.import_(bad)


def test_export_schema_is_published_and_current():
    assert json.loads(SCHEMA.read_text()) == json.loads(json.dumps(json_schema())), (
        "regenerate with: memtracks export-schema > docs/export.schema.json"
    )
