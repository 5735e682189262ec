"""A long write_many reads the next batches' English names in a second process: the same
memories as reading them in this one, and nothing lost when the second process fails."""

from __future__ import annotations

import functools
import os
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from memtracks import Memory
from memtracks.config import MemoryConfig, WriterConfig
from memtracks.errors import InvalidInputError
from memtracks.pipeline import ner_worker
from memtracks.pipeline.ner_worker import NERWorker
from memtracks.pipeline.nlp import english_entities, load_english
from memtracks.write import read_ahead
from memtracks.write.read_ahead import ReadAhead

START = datetime(2024, 3, 1, 9, tzinfo=timezone.utc)

LINES = [
    "I moved to Lisbon with my wife Ana last spring.",
    "My sister Clara works at Siemens in Munich.",
    "我在杭州的阿里巴巴上班，住在西湖区。",
    "We adopted a beagle named Toby from the shelter in Austin.",
    "我妹妹在北京讀書，她養了一隻叫豆豆的貓。",
    "Just got back from Kyoto, the temples were amazing!",
    "I sold my Honda Civic and bought a Tesla Model 3.",
    "下个月我要去上海参加王芳的婚礼。",
    "Dan and I are getting divorced, it's been a hard year.",
    "我從台北搬到了高雄，在台積電工作。",
    "Melanie painted a sunset over Lake Tahoe for her mom.",
    "ok",
]


def turns(user: str = "u1", repeat: int = 3) -> list[dict]:
    out = []
    for n in range(repeat * len(LINES)):
        out.append(
            {
                "text": LINES[n % len(LINES)],
                "user_id": user,
                "session_id": f"s{n // 6}",
                "turn_id": f"t{n}",
                "speaker": "user",
                "timestamp": START + timedelta(hours=n),
            }
        )
    return out


def ahead(start: int | None, batch: int = 4) -> MemoryConfig:
    return MemoryConfig(writer=WriterConfig(ner_process_from=start, batch_size=batch))


def written(mem: Memory, user: str = "u1") -> tuple[list, list]:
    events = [(e.turn_id, e.entity_keys, e.kinds, e.subject, e.start) for e in mem.events(user)]
    facts = [
        (f.subject, f.slot, f.value, f.negated, f.valid_from, f.valid_to)
        for f in mem.facts(user, include_superseded=True, include_negated=True)
    ]
    return events, facts


def children_running(module: str) -> list[int]:
    """This process's children running ``python -m module`` (from /proc)."""
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            ppid = next(int(line.split()[1]) for line in status.read_text().splitlines() if line.startswith("PPid:"))
            cmdline = (status.parent / "cmdline").read_bytes().split(b"\0")
        except (OSError, StopIteration, ValueError):
            continue
        if ppid == os.getpid() and module.encode() in cmdline:
            found.append(int(status.parent.name))
    return found


needs_two_cores = pytest.mark.skipif(read_ahead.usable_cores() < 2, reason="read-ahead needs two cores")
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


@needs_two_cores
def test_read_ahead_writes_what_reading_here_writes(toolkit, embedder):
    """English, Simplified and Traditional turns in batches of four, read ahead and not."""
    here = Memory(toolkit=toolkit, embedder=embedder, config=ahead(None))
    there = Memory(toolkit=toolkit, embedder=embedder, config=ahead(1))
    results_here = here.write_many(turns())
    results_there = there.write_many(turns())
    assert [r.facts for r in results_here] == [r.facts for r in results_there]
    events, facts = written(there)
    assert written(here) == (events, facts)
    # the names were read: English by spaCy, Chinese by jieba
    keys = {k for e in events for k in e[1]}
    assert {"lisbon", "munich", "kyoto"} <= keys and {"hangzhou", "shanghai"} <= keys, keys
    here.close()
    there.close()


@needs_two_cores
def test_the_second_process_stops_when_the_write_ends(toolkit, embedder):
    mem = Memory(toolkit=toolkit, embedder=embedder, config=ahead(1))
    seen: list[list[int]] = []
    mem.write_many(turns(), progress=lambda done, total: seen.append(children_running(ner_worker.__name__)))
    assert any(seen), "no second process was started"
    deadline = time.monotonic() + 10
    while children_running(ner_worker.__name__) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert children_running(ner_worker.__name__) == []
    mem.close()


@needs_two_cores
@linux_only
def test_a_second_process_killed_mid_write_loses_nothing(toolkit, embedder):
    here = Memory(toolkit=toolkit, embedder=embedder, config=ahead(None))
    here.write_many(turns(repeat=4))
    killed = []

    def kill_it(done: int, total: int) -> None:
        if killed:
            return
        for pid in children_running(ner_worker.__name__):
            os.kill(pid, 9)
            killed.append(pid)

    there = Memory(toolkit=toolkit, embedder=embedder, config=ahead(1))
    results = there.write_many(turns(repeat=4), progress=kill_it)
    assert killed, "the second process was not running to be killed"
    assert len(results) == 4 * len(LINES) and all(not r.duplicate for r in results)
    assert written(there) == written(here)
    here.close()
    there.close()


@needs_two_cores
def test_a_second_process_that_cannot_start_leaves_the_write_to_this_one(toolkit, embedder, monkeypatch, caplog):
    monkeypatch.setattr(read_ahead, "NERWorker", functools.partial(NERWorker, command=["/no/such/python"]))
    here = Memory(toolkit=toolkit, embedder=embedder, config=ahead(None))
    there = Memory(toolkit=toolkit, embedder=embedder, config=ahead(1))
    here.write_many(turns())
    with caplog.at_level("WARNING", logger=ner_worker.__name__):
        there.write_many(turns())
    assert written(there) == written(here)
    assert any("could not start /no/such/python" in r.getMessage() for r in caplog.records)
    here.close()
    there.close()


@needs_two_cores
def test_rebuild_reads_ahead_too(toolkit, embedder, tmp_path):
    db = tmp_path / "m.db"
    mem = Memory(db, toolkit=toolkit, embedder=embedder, config=ahead(None))
    mem.write_many(turns())
    before = written(mem)
    mem.close()
    mem = Memory(db, toolkit=toolkit, embedder=embedder, config=ahead(1))
    report = mem.rebuild("u1")
    assert report.turns == 3 * len(LINES)
    assert written(mem) == before
    mem.close()


def test_short_writes_and_one_core_read_here(toolkit, embedder):
    mem = Memory(toolkit=toolkit, embedder=embedder, config=ahead(1000))
    batches = [[(t, [])] for t in turns()]  # 36 turns, below 1000
    assert ReadAhead(mem.writer, batches).on is False
    assert list(ReadAhead(mem.writer, batches)) == [None] * len(batches)
    mem.close()
    if not hasattr(os, "sched_setaffinity"):
        return
    cores = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, {min(cores)})
        assert ReadAhead(Memory(toolkit=toolkit, embedder=embedder, config=ahead(1)).writer, batches).on is False
    finally:
        os.sched_setaffinity(0, cores)


@pytest.mark.parametrize("bad", [0, -5, True, 2.5, "1000"])
def test_ner_process_from_is_checked(bad):
    with pytest.raises(InvalidInputError, match="ner_process_from"):
        WriterConfig(ner_process_from=bad)


def test_the_child_answers_as_this_process_would():
    texts = [
        "I met Anna Schmidt in Paris on Friday.",
        "Bob works at Google\nand lives in Mountain View 🏔️.",
        "",
        "He said something odd about Microsoft\u200b.",
        "我在Google上班。",
    ]
    worker = NERWorker()
    try:
        deadline = time.monotonic() + 60
        while not worker._ready and worker.failure is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert worker.failure is None
        first, second = worker.submit(texts), worker.submit(texts[:2])
        assert worker.take(first) == english_entities(load_english(), texts)
        assert worker.take(second) == english_entities(load_english(), texts[:2])
    finally:
        worker.close()
    assert worker.take(worker.submit(texts)) is None  # closed: the caller reads them itself


def test_a_batch_the_child_cannot_read_is_read_here_and_the_child_goes_on():
    worker = NERWorker()
    try:
        odd = worker.submit(["He said \ud800 something."])  # spaCy cannot encode a lone surrogate
        fine = worker.submit(["Anna lives in Paris."])
        deadline = time.monotonic() + 60
        while not odd.running() and not odd.done() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert worker.take(odd) is None
        assert worker.take(fine) == english_entities(load_english(), ["Anna lives in Paris."])
        assert worker.failure is None
    finally:
        worker.close()


def test_a_request_taken_before_the_child_is_ready_is_withdrawn():
    worker = NERWorker()
    try:
        request = worker.submit(["Anna lives in Paris."])
        assert worker.take(request) is None and request.cancelled()
    finally:
        worker.close()


def test_a_child_that_answers_nonsense_fails_cleanly(caplog):
    worker = NERWorker([sys.executable, "-c", "print('not a frame')"])
    request = worker.submit(["Anna lives in Paris."])
    deadline = time.monotonic() + 30
    while worker.failure is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert worker.failure is not None and "did not start" in worker.failure
    assert worker.take(request) is None
    worker.close()
