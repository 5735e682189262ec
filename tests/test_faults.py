"""The fault suite: kill -9 in the middle of writes, retrieves, forgets and snapshot saves;
several processes writing one file while another reads; many concurrent first opens.

Marked slow (minutes, real processes that load the language tools): ``make faults``. Each
test prints its figures (trials, acknowledged turns, lost) for RELIABILITY.md.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest

from memtracks.storage import Store
from memtracks.storage.schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parent.parent
WORKER = Path(__file__).parent / "fault_worker.py"
TRIALS = int(os.environ.get("MEMTRACKS_FAULT_TRIALS", "16"))  # per mode: 2 modes, 32 kills by default


def _spawn(db: Path, mode: str, prefix: str, seed: int) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(WORKER), str(db), mode, prefix, str(seed)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _acknowledged(lines: list[str], acked: set[str], uncertain: set[str]) -> None:
    """Fold a worker's output into what must be stored (``acked``) and what may or may not be."""
    for line in lines:
        item = json.loads(line)
        if isinstance(item, list):
            acked.update(item)
            uncertain.difference_update(item)
        elif "forgetting" in item:
            uncertain.add(item["forgetting"])
        elif "forgot" in item:
            acked.discard(item["forgot"])
            uncertain.discard(item["forgot"])


def _kill_after_ready(proc: subprocess.Popen, seconds: float) -> list[str]:
    assert proc.stdout is not None
    first = proc.stdout.readline().strip()
    if first != "ready":
        raise AssertionError(f"worker did not start: {first!r} {proc.stderr.read()[-1500:] if proc.stderr else ''}")
    acknowledged = proc.stdout.readline()  # its first write is through (the language tools are warm): now kill
    time.sleep(seconds)
    proc.send_signal(signal.SIGKILL)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL, err[-1500:]  # it was still working, not failed
    return [line for line in (acknowledged + out).splitlines() if line.strip()]


@pytest.mark.parametrize("mode", ["write", "mixed"])
def test_faults_kill_9_loses_no_acknowledged_turn(make_memory, tmp_path, mode):
    db = tmp_path / "killed.db"
    rng = random.Random(mode)
    acked: set[str] = set()
    uncertain: set[str] = set()
    for trial in range(TRIALS):
        proc = _spawn(db, mode, f"k{trial}", trial)
        lines = _kill_after_ready(proc, rng.uniform(0.05, 2.5))
        _acknowledged(lines, acked, uncertain)
        mem = make_memory(db)  # opens after a kill: the log is recovered
        stored = {r["turn_id"] for user in ("u1", "u2") for r in mem.store.turns(user)}
        lost = sorted((acked - uncertain) - stored)
        assert lost == [], f"trial {trial}: {len(lost)} acknowledged turns lost: {lost[:5]}"
        report = mem.check(quick=True)
        assert report.ok, f"trial {trial}: {[str(p) for p in report.problems][:5]}"
        mem.retrieve("Where do I live now?", user_id="u1", now=mem.clock())
        mem.close()
    final = make_memory(db)
    assert final.check().ok
    print(f"\nkill -9 ({mode}): {TRIALS} kills, {len(acked)} acknowledged turns, 0 lost, check ok")


def test_faults_two_processes_write_one_file_while_a_reader_follows(make_memory, tmp_path):
    db = tmp_path / "shared.db"
    reader = make_memory(db)
    go = tmp_path / "go"
    helper = Path(__file__).parent / "proc_memory.py"
    shared = [  # both processes write these too: a client retrying against another worker
        {"text": f"我下周三去北京出差 ({i})", "user_id": "u1", "session_id": "both", "turn_id": f"both-{i}"}
        for i in range(10)
    ]
    batches = [
        [
            {
                "text": f"I went to the museum number {i} in {p}.",
                "user_id": "u1",
                "session_id": p,
                "turn_id": f"{p}-{i}",
            }
            for i in range(30)
        ]
        + shared
        for p in ("p1", "p2")
    ]
    for batch in batches:
        for n, t in enumerate(batch):
            t["timestamp"] = f"2024-03-0{1 + n // 10}T09:{n % 60:02d}:00+00:00"
    procs = [
        subprocess.Popen(
            [sys.executable, str(helper), str(db), "write", json.dumps({"turns": batch, "go": str(go)})],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for batch in batches
    ]
    for p in procs:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
    go.touch()
    seen = []
    while any(p.poll() is None for p in procs):
        seen.append(len(reader.events("u1")))
        reader.retrieve("Which museums did I visit?", user_id="u1", now=reader.clock())
        time.sleep(0.2)
    outputs = [p.communicate(timeout=60) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err[-1500:] for _, err in outputs]
    written = sum(json.loads(out.strip().splitlines()[-1])["written"] for out, _ in outputs)
    assert written == 70  # 30 + 30 + the 10 shared ones once, whoever wrote them first
    events = reader.events("u1")
    assert len(events) == len({e.turn_id for e in events}) == 70
    assert seen == sorted(seen)  # the reader only ever saw the store grow
    cards = reader.retrieve("Which museums did I visit in p2?", user_id="u1", now=reader.clock(), top_n=5).cards
    assert cards and reader.check().ok
    print(f"\ntwo writers + a reader: 70 turns, 0 lost or doubled, reader saw {sorted(set(seen))[:8]}...")


OPEN = (
    "import os, sys, time; from memtracks.storage import Store; print('ready', flush=True)\n"
    "while not os.path.exists(sys.argv[2]): time.sleep(0.002)\n"
    "Store(sys.argv[1]).close()"
)


def test_faults_concurrent_first_opens(tmp_path):
    rounds, width, failures = 15, 4, []
    for n in range(rounds):
        db, go = tmp_path / f"new-{n}.db", tmp_path / f"go-{n}"
        if n % 3 == 2:  # an older file (schema 4, no application id) upgraded by all at once
            old = sqlite3.connect(db)
            for migration in MIGRATIONS[:4]:
                migration(old)
            old.execute("PRAGMA user_version = 4")
            old.commit()
            old.close()
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", OPEN, str(db), str(go)],
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(width)
        ]
        for p in procs:
            assert p.stdout is not None and p.stdout.readline().strip() == "ready"
        go.touch()
        failures += [err[-400:] for p in procs if (err := p.communicate(timeout=120)[1]) and p.returncode]
        store = Store(db)
        assert store.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert store.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        store.close()
    assert failures == []
    print(f"\nconcurrent first opens: {rounds} rounds x {width} processes, 0 failed")


def test_faults_a_reader_process_answers_while_killed_writers_restart(make_memory, tmp_path):
    db = tmp_path / "m.db"
    acked: set[str] = set()
    uncertain: set[str] = set()
    reader = make_memory(db)
    for trial in range(4):
        proc = _spawn(db, "write", f"r{trial}", trial)
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:
            reader.retrieve("Where do I live now?", user_id="u1", now=reader.clock() + timedelta(days=400))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate(timeout=60)
        _acknowledged([line for line in out.splitlines() if line.strip()], acked, uncertain)
        stored = {e.turn_id for user in ("u1", "u2") for e in reader.events(user)}
        assert (acked - uncertain) <= stored
    assert reader.check().ok
