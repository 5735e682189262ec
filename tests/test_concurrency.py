"""Several threads and processes on one memory at once: the same turn written twice at once
is a duplicate, not an error; cached chains match the stored links; nothing is lost."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from memtracks import Turn

HELPER = Path(__file__).parent / "proc_memory.py"
T0 = datetime(2024, 3, 1, 9, tzinfo=timezone.utc)


def _turn(i: int, user: str = "u1", session: str = "s") -> Turn:
    texts = [
        "I live in Boston.",
        "I adopted a cat named Luna.",
        "我在上海工作。",
        "Luna likes tuna.",
        "我下周三去北京出差。",
    ]
    return Turn(
        texts[i % len(texts)] + f" ({i})",
        user_id=user,
        session_id=session,
        turn_id=f"t{i}",
        timestamp=T0 + timedelta(hours=i),
    )


def start_together(procs: list[subprocess.Popen], go: Path) -> None:
    """Once every process says it is ready (loaded, file open), let them all go at once."""
    for p in procs:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
    go.touch()


def _in_threads(count: int, work) -> list:
    barrier, results = threading.Barrier(count), [None] * count

    def run(n: int) -> None:
        barrier.wait()
        try:
            results[n] = work(n)
        except Exception as exc:  # collected, asserted below
            results[n] = exc

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_concurrency_the_same_turn_written_at_once_from_threads_is_a_duplicate(make_memory, tmp_path):
    mem = make_memory(tmp_path / "m.db")
    turn = _turn(0)
    results = _in_threads(12, lambda n: mem.write(turn))
    errors = [r for r in results if isinstance(r, Exception)]
    assert not errors, errors[:3]
    assert sum(not r.duplicate for r in results) == 1
    assert len(mem.events("u1")) == 1


@pytest.mark.slow
def test_concurrency_the_same_turns_written_at_once_from_processes(make_memory, tmp_path):
    db = tmp_path / "shared.db"
    make_memory(db).close()
    turns = [
        {"text": t.text, "user_id": "u1", "session_id": "s", "turn_id": t.turn_id, "timestamp": t.timestamp.isoformat()}
        for t in (_turn(i) for i in range(6))
    ]
    go = tmp_path / "go"
    procs = [
        subprocess.Popen(
            [sys.executable, str(HELPER), str(db), "write", json.dumps({"turns": turns, "go": str(go)})],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).parent.parent,
        )
        for _ in range(3)
    ]
    start_together(procs, go)
    outputs = [p.communicate(timeout=600) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err[-1500:] for _, err in outputs]
    written = [json.loads(out.strip().splitlines()[-1])["written"] for out, _ in outputs]
    assert sum(written) == 6  # each turn once, whoever wrote it
    check = make_memory(db)
    assert sorted(e.turn_id for e in check.events("u1")) == sorted(t["turn_id"] for t in turns)


def test_concurrency_the_cached_chain_matches_the_stored_links(make_memory, tmp_path):
    db = tmp_path / "m.db"
    here, there = make_memory(db), make_memory(db)
    here.write(_turn(0))
    here.event_chain("u1")  # cached from now on, kept up to date by each write

    def work(n: int) -> None:  # another connection commits while this one writes
        mem = there if n else here
        for i in range(1, 10):
            mem.write(_turn(n * 100 + i, session=f"s{i % 3}"))

    assert _in_threads(2, work) == [None, None]
    here.write(_turn(999))
    stored = here.store.links("u1")
    graph = here.event_chain("u1")
    assert graph.number_of_edges() == len(stored) == len(set(stored))
    assert sorted((s, d, k["kind"], k["key_"]) for s, d, k in graph.edges(data=True)) == sorted(stored)


def test_concurrency_threads_writing_and_reading_lose_nothing(make_memory, tmp_path):
    mem = make_memory(tmp_path / "m.db")
    writers = 4

    def work(n: int) -> list[str]:
        seen = []
        for i in range(6):
            mem.write(_turn(n * 100 + i, session=f"s{n}"))
            cards = mem.retrieve("Where do I live?", user_id="u1", now=T0 + timedelta(days=30)).cards
            seen.append(cards[0].text if cards else "")
        return seen

    results = _in_threads(writers, work)
    assert not [r for r in results if isinstance(r, Exception)], results
    assert len(mem.events("u1")) == writers * 6
    assert len({e.turn_id for e in mem.events("u1")}) == writers * 6
