"""Shared, expensive objects: the real spaCy/jieba toolkit and the real USE embedder load once."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memtracks import Memory
from memtracks.embedders import USEEmbedder
from memtracks.toolkit import Toolkit

CST = timezone(timedelta(hours=8))


@pytest.fixture(scope="session")
def toolkit() -> Toolkit:
    return Toolkit.load()


@pytest.fixture(scope="session")
def embedder() -> USEEmbedder:
    return USEEmbedder()


@pytest.fixture
def memory(toolkit, embedder):
    mem = Memory(toolkit=toolkit, embedder=embedder)
    yield mem
    mem.close()


@pytest.fixture
def make_memory(toolkit, embedder, tmp_path):
    """Build Memory objects (in memory, or on a file under tmp_path) sharing the loaded tools."""
    made = []

    def make(path=":memory:", **kwargs):
        mem = Memory(path, toolkit=toolkit, embedder=embedder, **kwargs)
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
