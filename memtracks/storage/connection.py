"""Opening the SQLite file safely, and turning SQLite's failures into memtracks errors.

- **Creating** a new file is atomic: the schema is written to a temporary file beside it,
  which is then linked into place. Processes that open a new path at the same moment all end
  up on one complete file (the others lose the race and open it), and an existing empty
  (0-byte) file can only be a damaged one, so it is refused rather than taken for a new memory.
- **Contention**: SQLite waits for another connection's lock up to ``busy_timeout``; work
  that could not start because the file was busy is retried a bounded number of times with a
  short, growing pause, then fails with :class:`~memtracks.errors.LockTimeoutError`.
- **Read-only**: ``mode=ro``; a file in a folder nobody may write to (so no other connection
  can be writing it either) is opened immutable, since SQLite cannot create its shared-memory
  file there.
- Every :class:`sqlite3.Error` leaves as a :class:`~memtracks.errors.StorageError` subclass
  (:func:`translate`).
"""

from __future__ import annotations

import os
import random
import sqlite3
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from memtracks.config import SYNCHRONOUS, StorageConfig
from memtracks.errors import (
    ClosedError,
    CorruptionError,
    LockTimeoutError,
    NotAMemoryFileError,
    ReadOnlyError,
    StorageError,
)

T = TypeVar("T")
MEMORY = ":memory:"
_CORRUPT = ("malformed", "not a database", "corrupt", "file is encrypted")
_BUSY = ("locked", "busy")
_READ_ONLY = ("readonly", "read-only", "read only")


def translate(
    exc: BaseException, path: str, busy_timeout: float | None = None, rolled_back: bool = False
) -> StorageError:
    """The memtracks error for a SQLite failure on ``path`` (the message keeps SQLite's)."""
    if isinstance(exc, StorageError):
        return exc
    error = _classify(exc, path, busy_timeout)
    if rolled_back:
        error.args = (f"{error.args[0]}; the write failed and was rolled back, nothing of it was stored",)
    return error


def _classify(exc: BaseException, path: str, busy_timeout: float | None) -> StorageError:
    message = str(exc).lower()
    if isinstance(exc, sqlite3.ProgrammingError) and "closed" in message:
        return ClosedError(f"{path}: this Memory was closed; open a new one")
    if any(word in message for word in _CORRUPT):
        return CorruptionError(
            f"{path} is damaged ({exc}); run `memtracks check` on it, and restore it from a backup "
            "(`memtracks backup`) if the check fails"
        )
    if any(word in message for word in _BUSY):
        waited = f" for more than {busy_timeout:g} s" if busy_timeout is not None else ""
        return LockTimeoutError(
            f"{path} was locked by another connection{waited} ({exc}); try again, or raise StorageConfig.busy_timeout"
        )
    if any(word in message for word in _READ_ONLY):
        return ReadOnlyError(f"{path} cannot be written ({exc}); open it with read_only=True to read it")
    return StorageError(f"{path}: {exc}")


def is_busy(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and any(word in str(exc).lower() for word in _BUSY)


def retrying(fn: Callable[[], T], config: StorageConfig) -> T:
    """``fn()``, tried again while SQLite says the file is busy, within ``busy_timeout``."""
    deadline = time.monotonic() + config.busy_timeout
    for attempt in range(config.lock_retries + 1):
        try:
            return fn()
        except sqlite3.OperationalError as exc:
            left = deadline - time.monotonic()
            if not is_busy(exc) or attempt == config.lock_retries or left <= 0:
                raise
            time.sleep(min(left, 0.02 * 2**attempt) * random.uniform(0.5, 1.0))
    raise AssertionError("unreachable")  # pragma: no cover


class Closed:
    """Stands in for the connection after ``close()``: any use raises :class:`ClosedError`."""

    def __init__(self, path: str):
        self.path = path

    def __getattr__(self, name: str) -> object:
        raise ClosedError(f"{self.path}: this Memory was closed; open a new one")

    def close(self) -> None:
        pass


def check_config(config: StorageConfig, *, postgres: bool = False) -> None:
    """Refuse settings that cannot hold (``postgres``: for a Postgres store, which alone can be partitioned)."""
    if config.partitions is not None:
        if not postgres:
            raise StorageError("StorageConfig.partitions applies to a Postgres memory (postgresql://...) only")
        if isinstance(config.partitions, bool) or not isinstance(config.partitions, int) or config.partitions < 1:
            raise StorageError(
                f"StorageConfig.partitions must be a whole number of at least 1 (or None); found {config.partitions!r}"
            )
    if config.synchronous not in SYNCHRONOUS:
        raise StorageError(
            f"StorageConfig.synchronous must be one of {', '.join(SYNCHRONOUS)}; found {config.synchronous!r}"
        )
    if not config.busy_timeout >= 0 or config.lock_retries < 0:
        raise StorageError("StorageConfig.busy_timeout and lock_retries must not be negative")


def connect(path: str, config: StorageConfig, *, read_only: bool, uri: str | None = None) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit), rows by name."""
    db = sqlite3.connect(
        uri or path, isolation_level=None, check_same_thread=False, timeout=config.busy_timeout, uri=uri is not None
    )
    db.row_factory = sqlite3.Row
    db.execute("PRAGMA trusted_schema = OFF")  # a crafted file cannot run functions from its schema
    return db


def use_wal(db: sqlite3.Connection, path: str, config: StorageConfig) -> None:
    """Write-ahead logging (readers never block the writer) at the chosen durability. Only once
    the file is known to be a memtracks file: switching modes rewrites its header."""
    if path != MEMORY:
        retrying(lambda: db.execute("PRAGMA journal_mode=WAL"), config)
        db.execute(f"PRAGMA synchronous={config.synchronous.upper()}")


def open_read_only(path: str, config: StorageConfig) -> sqlite3.Connection:
    file = Path(path)
    if not file.is_file():
        raise StorageError(f"no memtracks file at {path} to open read-only")
    quoted = urllib.parse.quote(str(file.resolve()))
    try:
        db = connect(path, config, read_only=True, uri=f"file:{quoted}?mode=ro")
        db.execute("PRAGMA user_version").fetchone()
        return db
    except sqlite3.OperationalError as exc:
        if "unable to open" not in str(exc) or os.access(file.parent, os.W_OK) and _writable_folder(file.parent):
            raise
    wal = Path(f"{path}-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise ReadOnlyError(
            f"{path} has a write-ahead log ({wal.name}) that was not merged back, and its folder is read-only, "
            "so SQLite cannot read it: open the file once where its folder is writable"
        )
    return connect(path, config, read_only=True, uri=f"file:{quoted}?mode=ro&immutable=1")


def writable(path: str) -> bool:
    """May ``path`` and its folder really be written (for WAL's side files)?"""
    return os.access(path, os.W_OK) and _writable_folder(Path(path).parent)


def _writable_folder(folder: Path) -> bool:
    """Can a file really be created in ``folder`` (a read-only mount says yes to os.access for root)?"""
    probe = folder / f".memtracks-probe-{os.getpid()}-{random.getrandbits(32):08x}"
    try:
        probe.touch(exist_ok=False)
    except OSError:
        return False
    probe.unlink(missing_ok=True)
    return True


def create_atomically(path: str, config: StorageConfig, initialise: Callable[[sqlite3.Connection], None]) -> None:
    """Create the database at ``path`` complete or not at all: ``initialise`` runs on a
    temporary file beside it, which is then linked into place. If another process created
    ``path`` meanwhile, its file is kept and this one discarded."""
    target = Path(path)
    temp = target.with_name(f".{target.name}.creating-{os.getpid()}-{random.getrandbits(32):08x}")
    try:
        db = connect(str(temp), config, read_only=False)
        try:
            use_wal(db, str(temp), config)
            initialise(db)
        finally:
            db.close()  # checkpoints the log into the file and removes it
        try:
            os.link(temp, target)
        except FileExistsError:
            pass  # another process won the race: open its file
        except OSError:  # a file system without hard links: claim the name, then move into it
            try:
                fd = os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                return
            os.close(fd)
            os.replace(temp, target)
    finally:
        for leftover in (temp, Path(f"{temp}-wal"), Path(f"{temp}-shm")):
            leftover.unlink(missing_ok=True)


SQLITE_HEADER = b"SQLite format 3\x00"


def check_sqlite_file(path: str) -> None:
    """An existing file must be a SQLite database before memtracks opens it: a text file, an
    image, anything else is refused untouched as not a memory file (a damaged memory file
    keeps its header; one whose header itself is gone says so too)."""
    if path == MEMORY or not os.path.isfile(path) or os.path.getsize(path) == 0:
        return
    with open(path, "rb") as fh:
        head = fh.read(len(SQLITE_HEADER))
    if head != SQLITE_HEADER:
        raise NotAMemoryFileError(
            f"{path} is not a SQLite database (it starts with {head[:8]!r}), so not a memtracks file; memtracks "
            "will not touch it. If it was one, its first page is damaged: restore it from a backup"
        )


def check_not_empty(path: str) -> None:
    """An existing memtracks file is never empty: a 0-byte file was truncated or made by something else."""
    if path != MEMORY and os.path.isfile(path) and os.path.getsize(path) == 0:
        raise CorruptionError(
            f"{path} is empty (0 bytes). A memtracks file is never empty, so this one was truncated or created by "
            "something else: restore it from a backup, or delete it to start a new memory there"
        )


def backup(db: sqlite3.Connection, target: str, *, overwrite: bool = False) -> int:
    """Copy the database behind ``db`` to ``target`` with SQLite's online backup API: a
    consistent copy of everything committed (the write-ahead log included) while other
    connections keep reading and writing. The copy is written beside ``target`` and renamed
    into place once complete and synced. Returns its size in bytes."""
    dest = Path(target)
    if not dest.name or dest.is_dir():
        raise StorageError(f"cannot back up to {target!r}: give a file name")
    if dest.exists() and not overwrite:
        raise StorageError(f"{target} exists; pass overwrite=True (--force) to replace it")
    if not dest.parent.is_dir():
        raise StorageError(f"folder {dest.parent} does not exist")
    temp = dest.with_name(f".{dest.name}.partial-{os.getpid()}-{random.getrandbits(32):08x}")
    try:
        out = sqlite3.connect(str(temp))
        try:
            db.backup(out)
            out.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
        finally:
            out.close()
        with open(temp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(temp, dest)
        _sync_folder(dest.parent)
    finally:
        temp.unlink(missing_ok=True)
    return dest.stat().st_size


def _sync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return  # not every system can open a folder (Windows)
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
