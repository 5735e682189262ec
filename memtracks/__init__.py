"""memtracks: long-term memory for LLM agents, in English and Chinese, offline."""

from .errors import MemtracksError
from .records import Entity, Event, Fact, Inference, TimeMention, Turn, WriteResult

__all__ = [
    "Entity",
    "Event",
    "Fact",
    "Inference",
    "MemtracksError",
    "TimeMention",
    "Turn",
    "WriteResult",
]
__version__ = "0.1.0"
