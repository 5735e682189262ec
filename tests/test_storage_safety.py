"""The file under stress: opened by several processes at once, damaged, someone else's,
read-only, locked, backed up while in use. Every failure is a clear StorageError subclass;
damage is noticed, not served."""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from memtracks import Memory, StorageError, Turn
from memtracks.config import MemoryConfig, StorageConfig
from memtracks.errors import CorruptionError, LockTimeoutError, NotAMemoryFileError, ReadOnlyError
from memtracks.storage import Store
from memtracks.storage.schema import APPLICATION_ID, SCHEMA_VERSION

T0 = datetime(2024, 3, 1, 9, tzinfo=timezone.utc)
ROOT = Path(__file__).parent.parent
TEXTS = [
    "I live in Boston and work at Google.",
    "我养了一只猫叫豆豆。",
    "I'm flying to Tokyo next Wednesday.",
    "豆豆最近不爱吃东西。",
    "I moved to Seattle last month.",
    "My sister Anna lives in Berlin.",
]


def _turns(n: int, user: str = "u1") -> list[Turn]:
    return [
        Turn(
            TEXTS[i % len(TEXTS)] + ("" if i < len(TEXTS) else f" ({i})"),
            user_id=user,
            session_id=f"s{i // 4}",
            turn_id=f"t{i}",
            timestamp=T0 + timedelta(hours=i),
        )
        for i in range(n)
    ]


def _filled(make_memory, path: Path, n: int = 6) -> Memory:
    mem = make_memory(path)
    mem.write_many(_turns(n))
    return mem


# ---------------------------------------------------------------------- opening


OPEN = (
    "import os, sys, time; from memtracks.storage import Store; print('ready', flush=True)\n"
    "while not os.path.exists(sys.argv[2]): time.sleep(0.005)\n"
    "Store(sys.argv[1]).close()"
)


def test_storage_processes_opening_a_new_file_at_once_all_succeed(tmp_path):
    for round_ in range(2):
        db = tmp_path / f"new-{round_}.db"
        go = tmp_path / f"go-{round_}"
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", OPEN, str(db), str(go)],
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(4)
        ]
        for p in procs:  # every process has imported memtracks: let them open at once
            assert p.stdout is not None and p.stdout.readline().strip() == "ready"
        go.touch()
        errors = [p.communicate(timeout=300)[1] for p in procs]
        assert all(p.returncode == 0 for p in procs), [e[-800:] for e in errors if e]
        store = Store(db)
        assert store._rows("PRAGMA user_version")[0][0] == SCHEMA_VERSION
        assert store._rows("PRAGMA application_id")[0][0] == APPLICATION_ID
        assert store._rows("PRAGMA journal_mode")[0][0] == "wal"
        store.close()
        assert [p.name for p in tmp_path.iterdir() if "creating" in p.name] == []


def test_storage_threads_opening_a_new_file_at_once_all_succeed(tmp_path):
    db, errors = tmp_path / "new.db", []
    barrier = threading.Barrier(8)

    def open_it() -> None:
        barrier.wait()
        try:
            Store(db).close()
        except Exception as exc:
            errors.append(exc)

    threads = [threading.Thread(target=open_it) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_storage_another_applications_database_is_refused_and_left_alone(tmp_path, make_memory):
    other = tmp_path / "other.db"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    db.execute("INSERT INTO invoices VALUES (1, 9.5)")
    db.commit()
    db.close()
    before = other.read_bytes()
    with pytest.raises(NotAMemoryFileError, match="invoices"):
        make_memory(other)
    assert other.read_bytes() == before
    db = sqlite3.connect(other)
    db.execute("PRAGMA application_id = 1234")
    db.commit()
    db.close()
    with pytest.raises(NotAMemoryFileError, match="another application"):
        make_memory(other)


@pytest.mark.parametrize("read_only", [False, True])
@pytest.mark.parametrize("content", ["Dear diary, " * 400, "亲爱的日记，" * 300, "x"])
def test_storage_a_file_that_is_not_sqlite_is_not_a_memory_file(tmp_path, make_memory, content, read_only):
    path = tmp_path / "notes.txt"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(NotAMemoryFileError, match="not a SQLite database"):
        make_memory(path, read_only=read_only)
    assert path.read_text(encoding="utf-8") == content  # untouched


def test_storage_an_empty_file_is_not_taken_for_a_new_memory(tmp_path, make_memory):
    mem = _filled(make_memory, tmp_path / "m.db")
    mem.close()
    (tmp_path / "m.db").write_bytes(b"")  # truncated
    with pytest.raises(CorruptionError, match="0 bytes"):
        make_memory(tmp_path / "m.db")


def test_storage_an_older_memtracks_file_is_marked_as_ours(tmp_path, make_memory):
    path = tmp_path / "old.db"
    _filled(make_memory, path).close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA application_id = 0")  # as files written before the id existed
    db.commit()
    db.close()
    again = make_memory(path)
    assert again.store._rows("PRAGMA application_id")[0][0] == APPLICATION_ID
    assert len(again.events("u1")) == 6


# ---------------------------------------------------------------------- damage


def _checkpointed(mem: Memory) -> Path:
    path = Path(mem.store.path)
    mem.store.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    mem.close()
    return path


def test_storage_a_damaged_page_is_a_corruption_error(tmp_path, make_memory):
    path = _checkpointed(_filled(make_memory, tmp_path / "m.db"))
    data = bytearray(path.read_bytes())
    page = 4096
    data[page : 2 * page] = os.urandom(page)
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptionError, match="check"):
        mem = make_memory(path)
        mem.events("u1")
        mem.facts("u1")
        mem.retrieve("Where do I live?", user_id="u1", now=T0)


def _flip(path: Path, needle: bytes, offset: int = 0) -> None:
    data = bytearray(path.read_bytes())
    at = data.index(needle) + offset
    data[at] ^= 0x20
    path.write_bytes(bytes(data))


def test_storage_a_damaged_vector_is_reported_not_served_and_repaired(tmp_path, make_memory):
    mem = _filled(make_memory, tmp_path / "m.db")
    event = mem.events("u1")[0]
    blob = mem.store._rows(
        "SELECT vector FROM vectors WHERE user_id='u1' AND track='event' AND item_id=?", (event.id,)
    )[0][0]
    path = _checkpointed(mem)
    _flip(path, blob, 100)
    again = make_memory(path)
    assert event.id not in again.index("u1", "event")  # not served
    report = again.check()
    assert [(p.kind, p.item_id) for p in report.problems] == [("vector-checksum", event.id)]
    fixed = again.check(repair=True)
    assert fixed.ok, fixed.problems
    again.indexes.evict("u1")
    assert event.id in again.index("u1", "event")


@pytest.mark.parametrize(
    ("needle", "kind"), [(b"work at Google", "row-checksum"), (b"moved to Seattle", "row-checksum")]
)
def test_storage_a_changed_text_is_reported(tmp_path, make_memory, needle, kind):
    path = _checkpointed(_filled(make_memory, tmp_path / "m.db"))
    data = path.read_bytes()
    assert data.count(needle) >= 2  # the turn and its event both hold the words
    for n in range(data.count(needle)):
        data = path.read_bytes()
        start = [i for i in range(len(data)) if data.startswith(needle, i)][n]
        flipped = bytearray(data)
        flipped[start] ^= 0x20
        path.write_bytes(bytes(flipped))
        report = make_memory(path).check()
        assert not report.ok and {p.kind for p in report.problems} & {kind, "text-hash"}
        path.write_bytes(data)


def test_storage_a_sound_store_checks_clean(tmp_path, make_memory):
    mem = _filled(make_memory, tmp_path / "m.db", n=12)
    mem.write(
        Turn("I don't live in Seattle anymore, I moved to Denver.", user_id="u1", timestamp=T0 + timedelta(days=3))
    )
    mem.write("我搬到了杭州。", user_id="u2", agent_id="bot", timestamp=T0)
    fact = (
        next(f for f in mem.facts("u1") if f.slot == "works_at")
        if any(f.slot == "works_at" for f in mem.facts("u1"))
        else None
    )
    if fact is not None:
        mem.correct("u1", fact.id, value="Alphabet")
    mem.forget("u1", turn_ids=["t2", "t3"])
    report = mem.check()
    assert report.ok, [str(p) for p in report.problems]
    assert report.counts["turns"] == 12 - 2 + 1 + 1


# ---------------------------------------------------------------------- backup


def test_storage_backup_while_open_keeps_what_is_only_in_the_log(tmp_path, make_memory):
    mem = make_memory(tmp_path / "m.db")
    mem.write_many(_turns(60))
    assert (tmp_path / "m.db-wal").stat().st_size > 0  # the turns are in the write-ahead log
    copied = tmp_path / "copied.db"
    shutil.copy(tmp_path / "m.db", copied)  # what a plain copy gets
    mem.backup(tmp_path / "backup.db")
    with pytest.raises(StorageError, match="exists"):
        mem.backup(tmp_path / "backup.db")
    restored = make_memory(tmp_path / "backup.db")
    assert len(restored.events("u1")) == 60
    assert restored.check().ok
    assert [c.text for c in restored.retrieve("Where does Anna live?", user_id="u1", now=T0).cards] == [
        c.text for c in mem.retrieve("Where does Anna live?", user_id="u1", now=T0).cards
    ]


def test_storage_backup_of_an_in_memory_store(tmp_path, make_memory):
    mem = make_memory()
    mem.write_many(_turns(5))
    mem.backup(tmp_path / "b.db")
    assert len(make_memory(tmp_path / "b.db").events("u1")) == 5


# ---------------------------------------------------------------------- read-only


@contextlib.contextmanager
def _read_only_folder(folder: Path):
    """Make ``folder`` unwritable for real: permissions for a normal user; for root (whom
    permissions do not stop) a read-only tmpfs mount."""
    if os.geteuid() != 0:
        os.chmod(folder / "m.db", 0o444)
        os.chmod(folder, 0o555)
        try:
            yield folder
        finally:
            os.chmod(folder, 0o755)
        return
    mount = folder.parent / (folder.name + "-ro")
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(mount)], capture_output=True).returncode:
        pytest.skip("running as root without the right to mount a read-only file system")
    try:
        for item in folder.iterdir():
            if item.is_file():
                shutil.copy(item, mount / item.name)
        subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
        yield mount
    finally:
        if subprocess.run(["umount", str(mount)], capture_output=True).returncode:
            subprocess.run(["umount", "-l", str(mount)], check=False)


def test_storage_a_read_only_file_in_a_read_only_folder_can_be_read(tmp_path, make_memory):
    folder = tmp_path / "data"
    folder.mkdir()
    _checkpointed(_filled(make_memory, folder / "m.db"))
    with _read_only_folder(folder) as ro:
        with pytest.raises(ReadOnlyError, match="read_only=True"):
            make_memory(ro / "m.db")
        mem = make_memory(ro / "m.db", read_only=True)
        assert len(mem.events("u1")) == 6
        assert "Boston" in mem.retrieve("Where do I work?", user_id="u1", now=T0 + timedelta(days=1)).render().text
        with pytest.raises(ReadOnlyError):
            mem.write("I like tea.", user_id="u1", timestamp=T0)
        with pytest.raises(ReadOnlyError):
            mem.forget("u1", everything=True)
        assert mem.check().ok
        mem.close()


def test_storage_read_only_mode_never_writes(tmp_path, make_memory):
    path = _checkpointed(_filled(make_memory, tmp_path / "m.db"))
    before = path.read_bytes()
    mem = make_memory(path, read_only=True)
    for write in (
        lambda: mem.write("I like tea.", user_id="u1", timestamp=T0),
        lambda: mem.write_many([Turn("I like tea.", user_id="u1", timestamp=T0)]),
        lambda: mem.correct("u1", mem.facts("u1")[0].id, value="Paris"),
        lambda: mem.retract("u1", mem.facts("u1")[0].id),
        lambda: mem.rebuild("u1"),
        lambda: mem.import_(path),
    ):
        with pytest.raises(ReadOnlyError):
            write()
    mem.retrieve("Where do I live?", user_id="u1", now=T0)
    mem.close()
    assert path.read_bytes() == before
    with pytest.raises(StorageError, match="no memtracks file"):
        make_memory(tmp_path / "missing.db", read_only=True)


# ---------------------------------------------------------------------- locks and durability


def _hold_lock(path: Path, seconds: float) -> threading.Thread:
    ready = threading.Event()

    def hold() -> None:
        db = sqlite3.connect(path, isolation_level=None)
        db.execute("BEGIN IMMEDIATE")
        ready.set()
        time.sleep(seconds)
        db.execute("ROLLBACK")
        db.close()

    thread = threading.Thread(target=hold)
    thread.start()
    ready.wait()
    return thread


def test_storage_a_lock_held_too_long_is_a_lock_timeout(tmp_path, make_memory):
    path = tmp_path / "m.db"
    mem = make_memory(path, config=MemoryConfig(storage=StorageConfig(busy_timeout=0.3)))
    mem.write("I live in Boston.", user_id="u1", timestamp=T0)
    holder = _hold_lock(path, 3.0)
    start = time.monotonic()
    with pytest.raises(LockTimeoutError, match="locked"):
        mem.write("I like tea.", user_id="u1", timestamp=T0)
    assert time.monotonic() - start < 2.5  # bounded by the busy timeout, not by the holder
    holder.join()
    mem.write("I like tea.", user_id="u1", timestamp=T0)
    assert len(mem.events("u1")) == 2


def test_storage_a_short_lock_is_waited_out(tmp_path, make_memory):
    path = tmp_path / "m.db"
    mem = make_memory(path, config=MemoryConfig(storage=StorageConfig(busy_timeout=10)))
    mem.write("I live in Boston.", user_id="u1", timestamp=T0)
    holder = _hold_lock(path, 0.5)
    mem.write("I like tea.", user_id="u1", timestamp=T0)
    holder.join()
    assert len(mem.events("u1")) == 2


def test_storage_durability_is_configurable(tmp_path, make_memory):
    full = make_memory(tmp_path / "full.db", config=MemoryConfig(storage=StorageConfig(synchronous="full")))
    assert full.store._rows("PRAGMA synchronous")[0][0] == 2
    normal = make_memory(tmp_path / "normal.db")
    assert normal.store._rows("PRAGMA synchronous")[0][0] == 1
    with pytest.raises(StorageError, match="synchronous"):
        make_memory(tmp_path / "x.db", config=MemoryConfig(storage=StorageConfig(synchronous="off")))
