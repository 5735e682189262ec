"""Several processes on one memory file: each read sees what the others wrote or erased.

The other process is a real subprocess (``tests/proc_memory.py``) with its own Memory."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

from memtracks import Turn
from memtracks.config import MemoryConfig

HELPER = Path(__file__).parent / "proc_memory.py"
T0 = datetime(2024, 3, 1, 9, tzinfo=timezone.utc)
NOW = (T0 + timedelta(days=30)).isoformat()


def other(db: Path, command: str, **args) -> dict:
    done = subprocess.run(
        [sys.executable, str(HELPER), str(db), command, json.dumps(args)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=Path(__file__).parent.parent,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def turn(text: str, i: int, user: str = "u1") -> dict:
    return {
        "text": text,
        "user_id": user,
        "session_id": "s",
        "turn_id": f"p{i}",
        "timestamp": (T0 + timedelta(days=i)).isoformat(),
    }


def test_two_processes_write_and_read_one_file(make_memory, tmp_path):
    db = tmp_path / "shared.db"
    here = make_memory(db, config=MemoryConfig(snapshot_min=1))
    here.write(Turn("I live in Boston.", user_id="u1", session_id="s", turn_id="h0", timestamp=T0))
    now = T0 + timedelta(days=30)
    assert "Boston" in here.retrieve("Where do I live?", user_id="u1", now=now).cards[0].text
    # another process writes: this one's cached indexes see it at the next read
    assert (
        other(
            db,
            "write",
            turns=[
                turn("I moved to Lisbon.", 1),
                turn("我养了一只猫叫豆豆", 2),
                turn("I adopted a parrot called Kiwi.", 3),
            ],
        )["written"]
        == 3
    )
    cards = here.retrieve("Where do I live now?", user_id="u1", now=now).cards
    assert "Lisbon" in cards[0].text
    assert any("Kiwi" in c.text for c in here.retrieve("Tell me about Kiwi the parrot", user_id="u1", now=now).cards)
    assert any("豆豆" in c.text for c in here.retrieve("豆豆", user_id="u1", now=now).cards)
    assert here.indexes.refreshes >= 1
    # this process writes; the other process reads it at once
    here.write(
        Turn(
            "I started working at Spotify.",
            user_id="u1",
            session_id="s",
            turn_id="h1",
            timestamp=T0 + timedelta(days=4),
        )
    )
    seen = other(db, "retrieve", question="Where do I work?", user_id="u1", now=NOW)["cards"]
    assert "Spotify" in seen[0]
    # the other process erases: this one's indexes are rebuilt, the erased turn is gone
    other(db, "forget", user_id="u1", turn_ids=["p3"])
    cards = here.retrieve("Tell me about Kiwi the parrot", user_id="u1", now=now).cards
    assert not any("Kiwi" in c.text for c in cards)


def test_a_new_process_starts_from_the_snapshot(make_memory, tmp_path):
    db = tmp_path / "m.db"
    first = make_memory(db, config=MemoryConfig(snapshot_min=1))
    first.write_many(
        [
            Turn(t, user_id="u1", session_id="s", turn_id=f"t{i}", timestamp=T0 + timedelta(days=i))
            for i, t in enumerate(["I live in Boston.", "I love hiking.", "我喜欢喝茶"])
        ]
    )
    first.close()
    assert list((tmp_path / "m.db.snapshots").glob("*.json"))
    result = other(db, "retrieve", question="What do I love doing?", user_id="u1", now=NOW)
    assert result["snapshot_loads"] >= 1 and any("hiking" in c for c in result["cards"][:2])
    # written after the snapshot: the new process adds the tail
    again = make_memory(db, config=MemoryConfig(snapshot_min=1))
    again.write(Turn("I bought a kayak.", user_id="u1", session_id="s", turn_id="t9", timestamp=T0 + timedelta(days=9)))
    again.store.db.execute("PRAGMA wal_checkpoint")
    result = other(db, "retrieve", question="What did I buy?", user_id="u1", now=NOW)
    assert "kayak" in result["cards"][0]


def test_a_large_rebuild_is_saved_at_once_so_a_killed_process_costs_one_rebuild(make_memory, tmp_path):
    db = tmp_path / "m.db"
    writer = make_memory(db)  # its indexes are too small to be saved
    texts = ["I live in Boston.", "I love hiking.", "我喜欢喝茶", "My sister Ana plays the cello.", "我养了一只猫"]
    writer.write_many(
        [
            Turn(t, user_id="u1", session_id="s", turn_id=f"t{i}", timestamp=T0 + timedelta(days=i))
            for i, t in enumerate(texts)
        ]
    )
    writer.store.close()  # never closed properly: nothing saved
    assert not list((tmp_path / "m.db.snapshots").glob("*.json"))
    rebuilt = other(db, "retrieve", question="What do I love doing?", user_id="u1", now=NOW, no_close=True)
    assert rebuilt["snapshot_loads"] == 0 and any("hiking" in c for c in rebuilt["cards"][:2])
    assert list((tmp_path / "m.db.snapshots").glob("*-event.json"))  # saved by the rebuilding process itself
    loaded = other(db, "retrieve", question="我喜欢喝什么？", user_id="u1", now=NOW, no_close=True)
    assert loaded["snapshot_loads"] >= 1 and any("茶" in c for c in loaded["cards"][:2])


def test_caches_are_bounded(make_memory, embedder):
    mem = make_memory(config=MemoryConfig(cache_bytes=embedder.dim * 4 * 6))
    first = None
    for user in ("a", "b", "c", "d"):
        mem.write_many([Turn(f"I like {x}.", user_id=user, timestamp=T0) for x in ("tea", "jazz", "chess")])
        texts = [c.text for c in mem.retrieve("What do I like?", user_id=user, now=T0).cards]
        first = first or texts
    assert len(mem.indexes.cached()) < 4 and mem.indexes.cached()[-1] == "d"
    assert "a" not in mem.indexes.cached()
    assert [c.text for c in mem.retrieve("What do I like?", user_id="a", now=T0).cards] == first  # rebuilt


def test_snapshots_give_the_same_answers_as_a_rebuild(make_memory, tmp_path):
    db = tmp_path / "m.db"
    texts = [
        "I live in Boston and work at Google.",
        "我养了一只猫叫豆豆",
        "I'm flying to Tokyo next Wednesday.",
        "豆豆最近不爱吃东西",
        "I moved to Seattle last month.",
        "The hike on Saturday was great.",
    ]
    first = make_memory(db, config=MemoryConfig(snapshot_min=1))
    first.write_many(
        [
            Turn(t, user_id="u1", session_id="s", turn_id=f"t{i}", timestamp=T0 + timedelta(days=i))
            for i, t in enumerate(texts)
        ]
    )
    questions = ["Where do I live now?", "豆豆怎么样？", "When is my trip?", "What did I do on Saturday?"]
    now = T0 + timedelta(days=8)
    rebuilt = [[c.text for c in first.retrieve(q, user_id="u1", now=now).cards] for q in questions]
    first.close()
    second = make_memory(db, config=MemoryConfig(snapshot_min=1))
    loaded = [[c.text for c in second.retrieve(q, user_id="u1", now=now).cards] for q in questions]
    assert second.indexes.snapshot_loads == 6  # vectors and BM25 of three tracks
    assert loaded == rebuilt


def test_stored_chain_walks_like_the_graph(make_memory):
    from memtracks.storage.chain import StoredChain
    from memtracks.tracks.temporal import answers, neighbours

    mem = make_memory()
    texts = [
        "I have a cat named Luna.",
        "What should I feed her?",
        "Luna likes tuna.",
        "我养了一只猫叫豆豆",
        "豆豆最近不爱吃东西",
        "Luna was at the vet today.",
    ]
    mem.write_many(
        [
            Turn(t, user_id="u1", session_id=f"s{i // 3}", turn_id=f"t{i}", timestamp=T0 + timedelta(days=i))
            for i, t in enumerate(texts)
        ]
    )
    graph, stored = mem.event_chain("u1"), StoredChain(mem.store, "u1")
    for event in mem.events("u1"):
        assert (event.id in graph) == (event.id in stored)
        for hops in (1, 2):
            assert neighbours(graph, event.id, hops) == neighbours(stored, event.id, hops)
        assert answers(graph, event.id) == answers(stored, event.id)
