"""What every track is asked: the one place a record's track decides how it is indexed, dated,
seen as of a moment, shown on a card and fetched.

A track has two names: the one its hits and cards carry (``name``: "fact", "temporal",
"inference") and the one its rows and indexes are kept under (``stored``: "fact", "event",
"inference"). Fusion, cards, tiers, views, transfer, integrity and the indexes ask the
record's track (:func:`memtracks.tracks.track_of`) instead of switching on a name.

**The as-of rule**, asked as :meth:`Track.visible_at`: what memtracks knew of a record at a
moment. A fact recorded later is unknown, and its ending is read as it stood then
(:func:`memtracks.tracks.facts.as_known`); an event said later is unknown; a conclusion drawn
later is unknown, and one retracted later was still active then.

**A card's text**, asked as :meth:`Track.card_text`: the line a record reads as on a card
(its label first), in the record's language. A card is built with a :class:`Rendering`:
:class:`memtracks.retrieval.cards.CardContext`, which also cuts a long turn down to what
answers the question.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

if TYPE_CHECKING:
    from memtracks.config import FusionConfig, WriterConfig
    from memtracks.data.catalogue import Catalogue
    from memtracks.records import Event, Premise
    from memtracks.storage.base import Storage

R = TypeVar("R")
DOCUMENT_CHUNK = 10_000  # records read at once while an index is built
SNIPPET_TOKENS = 60  # a longer turn is cut to its most relevant sentences


SURE = 0.8  # a card names its confidence only below this, where it should change what is done with it


def noted(notes: Sequence[str], zh: bool) -> str:
    """A card's bracketed notes ("conf 0.60, since 2024-05-01"; "置信度 0.60，自 2024-05-01"),
    those that are empty left out; "" when none is left."""
    kept = [n for n in notes if n]
    if not kept:
        return ""
    return f"（{'，'.join(kept)}）" if zh else f" ({', '.join(kept)})"


def confidence_note(confidence: float, zh: bool) -> str:
    """How sure a card is, as one of its notes: "conf 0.60" / "置信度 0.60" below :data:`SURE`;
    "" for a sure one (a confidence that changes nothing costs tokens and says nothing)."""
    if confidence >= SURE:
        return ""
    return f"置信度 {confidence:.2f}" if zh else f"conf {confidence:.2f}"


def day(moment: datetime | None) -> str:
    """The day of ``moment`` as a card shows it (ISO), "?" for none."""
    return moment.date().isoformat() if moment else "?"


class Rendering(Protocol):
    """What the cards of one question are built with (:class:`memtracks.retrieval.cards.CardContext`)."""

    @property
    def catalogue(self) -> Catalogue:
        """How a fact's slot is named."""
        ...

    @property
    def temporal_weight(self) -> float:
        """The temporal track's weight: an event card's confidence."""
        ...

    @property
    def lookup(self) -> Callable[[Premise], Any]:
        """A conclusion's premise as a record (None: gone)."""
        ...

    @property
    def at(self) -> datetime | None:
        """The moment the cards speak for (the as-of rule; None: each record's own end)."""
        ...

    @property
    def bodies(self) -> dict[tuple[int | None, int, bool], str] | None:
        """Each event's quoted cut, made once for the question (None: not kept)."""
        ...

    def cut(self, event: Event, budget: int, relevance: Any = None) -> str:
        """The event's turn with its dates, cut to ``budget`` tokens of what answers the question."""
        ...


_BY_TYPE: dict[type, Track[Any]] = {}  # each track object, by its record type (see track_of)


def track_of(record: Any) -> Track[Any]:
    """The track a fact, event or conclusion belongs to."""
    try:
        return _BY_TYPE[type(record)]
    except KeyError:
        raise TypeError(f"{type(record).__name__} is not a record of a track") from None


class Track(ABC, Generic[R]):
    """One track of memory: its names, its record type and what is asked of its records.
    Making a track's object makes it the track of its record type (:func:`track_of`)."""

    name: ClassVar[str]  # the name hits and cards carry
    stored: ClassVar[str]  # the name rows, vectors and indexes are kept under
    record: ClassVar[type]
    table: ClassVar[str]  # the table its rows are kept in
    label: ClassVar[dict[str, str]]  # the label its cards open with, per language
    keeps_history: ClassVar[bool] = (
        False  # ended records stay readable: a question about the past is not penalised by their age
    )
    threads: ClassVar[bool] = False  # its cards quote a turn, cut to a budget, and fold further mentions in

    @abstractmethod
    def indexed(self, record: R, catalogue: Catalogue, config: WriterConfig) -> tuple[str, tuple[str, ...]]:
        """The text a record is embedded and searched by, and its keys (entity or value keys)."""

    @abstractmethod
    def weight(self, how: str, config: FusionConfig) -> float:
        """The fusion weight of a hit of this track, found by ``how`` ("slot", "semantic"...)."""

    @abstractmethod
    def words(self, record: R) -> str:
        """The record's words for coverage of a question (its text, a fact's slot spelled out)."""

    def person(self, record: R) -> str | None:
        """Whose word the record is: a fact's subject, a turn's speaker; None for a conclusion."""
        return None

    def holds(self, record: R) -> tuple[str, str] | None:
        """(slot, value) of a fact; None for a record that holds no slot value."""
        return None

    def said(self, record: R) -> str | None:
        """A turn's own words; None for a record that is no turn."""
        return None

    def ahead(self, record: R, now: datetime) -> bool:
        """A plan not yet begun at ``now`` (a fact that holds from later, a turn about later)."""
        return False

    def called_off_by(self, record: R) -> tuple[str, ...]:
        """The later turns that called off what the record says would happen (a plan moved to
        another day is still a plan)."""
        return ()

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
    def visible_at(self, record: R, moment: datetime | None) -> R | None:
        """The record as memtracks knew it at ``moment`` (the as-of rule): None when it was not
        known yet; ``moment`` None: as it is stored now."""

    @abstractmethod
    def card_text(self, record: R, ctx: Rendering, budget: int = SNIPPET_TOKENS, relevance: Any = None) -> str:
        """The record's card line, its label first (before any escaping). ``budget`` and
        ``relevance``: how a quoted turn is cut (:meth:`Rendering.cut`)."""

    @abstractmethod
    def card_confidence(self, record: R, ctx: Rendering) -> float:
        """How sure the record's card is."""

    @abstractmethod
    def card_interval(self, record: R) -> tuple[datetime | None, datetime | None]:
        """The time the card says the record is about or held (``Card.valid_from``, ``valid_to``)."""

    def premise_name(self, record: R, lang: str) -> str:
        """How a conclusion's card names this record as its premise ("" : not named)."""
        return ""

    def part_text(self, record: R, ctx: Rendering, budget: int) -> str:
        """The record as a further part of a thread card (for a track that ``threads``)."""
        raise TypeError(f"a {self.name} record is never part of a thread card")

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
    ) -> Iterator[tuple[int, str, tuple[str, ...]]]:
        """``(id, indexed text, keys)`` of the records after ``after``: what an index is built
        from. Past :data:`DOCUMENT_CHUNK` records they are read a chunk at a time, in id order,
        so that the index of a million memories is built without all their records in memory."""
        ids = store.item_ids(scope, self.stored, after)
        if len(ids) <= DOCUMENT_CHUNK:
            chunks: Iterable[list[R]] = [self.after(store, scope, after)] if ids else []
        else:
            chunks = (
                self.by_ids(store, scope, ids[at : at + DOCUMENT_CHUNK]) for at in range(0, len(ids), DOCUMENT_CHUNK)
            )
        for records in chunks:
            for r in records:
                yield (r.id, *self.indexed(r, catalogue, config))  # type: ignore[attr-defined]

    def __init__(self) -> None:
        _BY_TYPE[self.record] = self

    def __repr__(self) -> str:
        return f"<track {self.name}>"
