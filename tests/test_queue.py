"""The async write queue: returns at once, reads its own writes, drains, loses nothing in a crash."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import at, cst

T0 = at(2024, 6, 1, 9)


def test_queued_turn_is_retrievable_at_once_en_zh(make_memory, tmp_path):
    mem = make_memory(tmp_path / "m.db", async_writes=True)
    with mem._lock:  # the worker cannot write meanwhile: what is found comes from the hot cache
        r = mem.write("I just moved to Lisbon.", user_id="u", timestamp=T0)
        z = mem.write("我下周三要去北京出差。", user_id="u", timestamp=cst(2024, 6, 1, 9, 5))
        assert r.queued and z.queued and r.facts == ()
        en = mem.retrieve("Where do I live?", user_id="u", now=at(2024, 6, 2))
        zh = mem.retrieve("我什么时候去北京？", user_id="u", now=at(2024, 6, 2))
        other = mem.retrieve("Where do I live?", user_id="someone-else", now=at(2024, 6, 2))
    assert "Lisbon" in en.cards[0].text and en.cards[0].metadata["queued"]
    assert "北京" in zh.cards[0].text
    assert other.cards == []  # another user's queue is never read
    mem.flush()
    assert [f.value for f in mem.facts("u", slot="lives_in")] == ["Lisbon"]
    card = mem.retrieve("Where do I live?", user_id="u", now=at(2024, 6, 2)).cards[0]
    assert "queued" not in card.metadata and "Lisbon" in card.text


def test_reads_of_the_tracks_wait_for_that_users_queue(make_memory):
    mem = make_memory(async_writes=True)
    for n, city in enumerate(["Boston", "Denver", "Austin"]):
        mem.write(f"I live in {city}.", user_id="u", timestamp=at(2024, 6, 1 + n, 9))
    assert [f.value for f in mem.facts("u")] == ["Austin"]  # in order, superseded in order
    assert len(mem.fact_history("u", mem.facts("u")[0].id)) == 3


def test_flush_reports_and_close_drains(make_memory, tmp_path):
    path = tmp_path / "m.db"
    mem = make_memory(path, async_writes=True)
    for n in range(12):
        mem.write(f"Note {n}: I went running today.", user_id="u", timestamp=at(2024, 6, 1, 9, n))
    mem.close()
    again = make_memory(path)
    assert again.stats("u")["turns"] == 12
    assert again.queue_recovered == 0


def test_a_reused_turn_id_is_refused_at_once_as_in_a_synchronous_write(make_memory):
    from memtracks.errors import DuplicateTurnError

    mem = make_memory(async_writes=True)
    mem.write_many([{"text": "I live in Boston.", "user_id": "u", "turn_id": "t1", "timestamp": T0}])  # at once
    with pytest.raises(DuplicateTurnError, match="different content"):
        mem.write("I live in Paris.", user_id="u", turn_id="t1", timestamp=T0)  # same id, other words
    mem.write("I work at Google.", user_id="u", turn_id="t2", timestamp=T0)
    report = mem.flush()
    assert report.failed == [] and report.written == 1 and report.pending == 0
    assert [f.value for f in mem.facts("u", slot="lives_in")] == ["Boston"]


def test_refused_turn_is_reported_and_the_rest_written(make_memory, tmp_path):
    path = tmp_path / "m.db"
    mem = make_memory(path, async_writes=True)
    other = make_memory(path)  # another process's Memory on the same file
    with mem._lock:  # both wait in one batch
        mem.write("I live in Paris.", user_id="u", turn_id="t1", timestamp=T0)
        mem.write("I work at Google.", user_id="u", turn_id="t2", timestamp=T0)
        other.write("I live in Boston.", user_id="u", turn_id="t1", timestamp=T0)  # the same id, first
    report = mem.flush()
    assert [turn for turn, _ in report.failed] == ["t1"] and "different content" in report.failed[0][1]
    assert report.written == 1 and report.pending == 0
    assert [f.value for f in mem.facts("u", slot="employer")] == ["Google"]
    assert [f.value for f in mem.facts("u", slot="lives_in")] == ["Boston"]


def test_awrite_returns_at_once_and_aflush_waits(memory):
    async def run():
        result = await memory.awrite("我住在杭州。", user_id="u", timestamp=cst(2024, 6, 1, 9))
        assert result.queued
        found = await memory.aretrieve("我住在哪里？", user_id="u", now=cst(2024, 6, 2))
        await memory.aflush()
        return result, found

    result, found = asyncio.run(run())
    assert "杭州" in found.cards[0].text
    assert [f.value for f in memory.facts("u")] == ["杭州"]


CRASH = """
import os, sys
from datetime import datetime, timezone
from memtracks import Memory
mem = Memory(sys.argv[1], async_writes=True)
mem._lock.acquire()  # the worker is stuck behind the writer's lock, as in the middle of a long write
for n in range(int(sys.argv[2])):
    mem.write(f"Day {n}: I visited the museum.", user_id="u", timestamp=datetime(2024, 6, 1, 9, n, tzinfo=timezone.utc))
mem.write("我搬到杭州了。", user_id="u", timestamp=datetime(2024, 6, 1, 10, tzinfo=timezone.utc))
os._exit(9)  # killed: no close(), no flush
"""


@pytest.mark.parametrize("count", [5])
def test_crash_with_turns_queued_loses_none(make_memory, tmp_path, count):
    path = tmp_path / "m.db"
    script = tmp_path / "crash.py"
    script.write_text(textwrap.dedent(CRASH), encoding="utf-8")
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, str(script), str(path), str(count)], cwd=root, capture_output=True)
    assert done.returncode == 9, done.stderr.decode()[-2000:]
    mem = make_memory(path)  # not even async: the journal is found and written
    assert mem.queue_recovered == count + 1
    mem.flush()
    assert mem.stats("u")["turns"] == count + 1
    assert [f.value for f in mem.facts("u")] == ["杭州"]
    mem.close()
    assert make_memory(path).queue_recovered == 0  # written once, not again
