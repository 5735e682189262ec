"""What every track is asked: the one place a record's track decides how it is indexed, dated,
shown and fetched.

A track has two names: the one its hits and cards carry (``name``: "fact", "temporal",
"inference") and the one its rows and indexes are kept under (``stored``: "fact", "event",
"inference"). Fusion, cards, tiers, views, transfer, integrity and the indexes ask the
record's track (:func:`memtracks.tracks.track_of`) instead of switching on a name.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

if TYPE_CHECKING:
    from memtracks.config import FusionConfig, WriterConfig
    from memtracks.data.catalogue import Catalogue
    from memtracks.storage.base import Storage

R = TypeVar("R")


class Track(ABC, Generic[R]):
    """One track of memory: its names, its record type and what is asked of its records."""

    name: ClassVar[str]  # the name hits and cards carry
    stored: ClassVar[str]  # the name rows, vectors and indexes are kept under
    record: ClassVar[type]
    table: ClassVar[str]  # the table its rows are kept in
    label: ClassVar[dict[str, str]]  # the label its cards open with, per language
    keeps_history: ClassVar[bool] = (
        False  # ended records stay readable: a question about the past is not penalised by their age
    )

    @abstractmethod
    def indexed(self, record: R, catalogue: Catalogue, config: WriterConfig) -> tuple[str, tuple[str, ...]]:
        """The text a record is embedded and searched by, and its keys (entity or value keys)."""

    @abstractmethod
    def weight(self, how: str, config: FusionConfig) -> float:
        """The fusion weight of a hit of this track, found by ``how`` ("slot", "semantic"...)."""

    @abstractmethod
    def words(self, record: R) -> str:
        """The record's words for coverage of a question (its text, a fact's slot spelled out)."""

    @abstractmethod
    def content(self, record: R) -> tuple[str, tuple[str, ...]]:
        """What two lookalike records are compared by when the cards drop near-duplicates."""

    @abstractmethod
    def turn_ids(self, record: R) -> tuple[str, ...]:
        """The turns the record comes from."""

    @abstractmethod
    def said_at(self, record: R) -> datetime:
        """When the record entered the memory, for its tier."""

    @abstractmethod
    def interval(self, record: R) -> tuple[datetime, datetime]:
        """The time the record is about, for its age."""

    @abstractmethod
    def json(self, record: R) -> dict[str, Any]:
        """The record as JSON-ready data, with a ``ref`` that ``Memory.get`` takes."""

    @abstractmethod
    def by_ids(self, store: Storage, scope: str, ids: Sequence[int]) -> list[R]:
        """The records of ``scope`` with these ids (those that exist)."""

    @abstractmethod
    def after(self, store: Storage, scope: str, after: int) -> list[R]:
        """The records of ``scope`` with an id above ``after``, in id order."""

    def documents(
        self, store: Storage, scope: str, after: int, catalogue: Catalogue, config: WriterConfig
    ) -> list[tuple[int, str, tuple[str, ...]]]:
        """``(id, indexed text, keys)`` of the records after ``after``: what an index is built from."""
        return [(r.id, *self.indexed(r, catalogue, config)) for r in self.after(store, scope, after)]  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return f"<track {self.name}>"
