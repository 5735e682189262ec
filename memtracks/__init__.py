"""memtracks: long-term memory for LLM agents, in English and Chinese, offline.

from memtracks import Memory, Turn
mem = Memory("memory.db")
mem.write(Turn("I moved to Shanghai last month.", user_id="u1", timestamp=...))
mem.facts(user_id="u1")
"""

from .errors import (
    DataFileError,
    DuplicateTurnError,
    InvalidTimeError,
    InvalidTurnError,
    MemtracksError,
    MissingDependencyError,
    StorageError,
    UnsupportedLanguageError,
)
from .memory import Memory
from .pipeline.timenorm import normalize_time
from .records import Entity, Event, Fact, Inference, TimeMention, Turn, WriteResult

__all__ = [
    "DataFileError",
    "DuplicateTurnError",
    "Entity",
    "Event",
    "Fact",
    "Inference",
    "InvalidTimeError",
    "InvalidTurnError",
    "Memory",
    "MemtracksError",
    "MissingDependencyError",
    "StorageError",
    "TimeMention",
    "Turn",
    "UnsupportedLanguageError",
    "WriteResult",
    "normalize_time",
]
__version__ = "0.1.0"
