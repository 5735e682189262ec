"""Tunable settings in one place, with named defaults (no magic numbers in the stages)."""

from __future__ import annotations

from dataclasses import dataclass, field

ASSISTANT_SPEAKERS = frozenset({"assistant", "system", "ai", "bot", "agent", "助手"})


@dataclass(frozen=True)
class WriterConfig:
    """How turns are written.

    Attributes:
        max_analyzed_chars: NLP runs on at most this many characters of a turn; the whole text
            is still stored and embedded (up to the embedder's own limit).
        batch_size: turns per transaction in ``write_many``.
        assistant_speakers: speakers whose "I" is the agent itself: their turns become events,
            but no facts about the agent are extracted.
        inference_rounds: how many times conclusions that are facts may trigger further rules.
        context_events: how many recent events of a kind a rule may join with.
    """

    max_analyzed_chars: int = 100_000
    batch_size: int = 64
    assistant_speakers: frozenset[str] = ASSISTANT_SPEAKERS
    inference_rounds: int = 3
    context_events: int = 50


@dataclass(frozen=True)
class MemoryConfig:
    """Settings of a :class:`~memtracks.Memory`."""

    writer: WriterConfig = field(default_factory=WriterConfig)
    index: str = "faiss"  # "faiss" or "numpy" (the exact reference)
