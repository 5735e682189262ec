"""memtracks: long-term memory for LLM agents, in English and Chinese, offline.

from memtracks import Memory, Turn
mem = Memory("memory.db")
mem.write("I moved to Shanghai last month.", user_id="u1", timestamp=...)
mem.retrieve("Where do I live?", user_id="u1").render()
mem.forget("u1", turn_ids=[...])
"""

from memtracks import _moved
from memtracks._version import __version__
from memtracks.errors import (
    DataFileError,
    DuplicateTurnError,
    ImportConflictError,
    InvalidInputError,
    InvalidTimeError,
    InvalidTurnError,
    MarkdownImportError,
    MemtracksError,
    MissingDependencyError,
    NotFoundError,
    StorageError,
    UnsupportedLanguageError,
)
from memtracks.memory import Memory
from memtracks.pipeline.timenorm import normalize_time
from memtracks.records import Entity, Event, Fact, Inference, TimeMention, Turn, WriteResult

_moved.install()

__all__ = [
    "DataFileError",
    "DuplicateTurnError",
    "ImportConflictError",
    "InvalidInputError",
    "NotFoundError",
    "Entity",
    "Event",
    "Fact",
    "Inference",
    "InvalidTimeError",
    "InvalidTurnError",
    "MarkdownImportError",
    "Memory",
    "MemtracksError",
    "MissingDependencyError",
    "StorageError",
    "TimeMention",
    "Turn",
    "UnsupportedLanguageError",
    "WriteResult",
    "__version__",
    "normalize_time",
]
