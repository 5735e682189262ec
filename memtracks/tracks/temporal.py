"""The temporal track's event chain: events linked in order within a session ("next") and
across sessions through the entities they share ("entity": the last earlier event that
mentioned the same pet, person or place). Links are stored in SQLite and read into a
networkx graph for walking the chain. :data:`TEMPORAL` is the track object the rest of
memtracks asks about an event: how it is indexed (its text, led by the speaker's name in
named chats), dated and shown."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

import networkx as nx

from memtracks.config import is_assistant
from memtracks.records import Event
from memtracks.storage.codec import dt_text
from memtracks.tracks.base import Track

if TYPE_CHECKING:
    from memtracks.config import FusionConfig, WriterConfig
    from memtracks.data.catalogue import Catalogue
    from memtracks.storage.base import Storage

MAX_ENTITY_LINKS = 8


def chain_links(
    event: Event,
    previous_in_session: Event | None,
    last_with_entity: Mapping[str, int],
) -> list[tuple[int, int, str, str]]:
    """Links ``(src, dst, kind, key)`` from earlier events to ``event`` (pure)."""
    assert event.id is not None
    links = []
    if previous_in_session is not None and previous_in_session.id is not None:
        links.append((previous_in_session.id, event.id, "next", ""))
    for key in event.entity_keys[:MAX_ENTITY_LINKS]:
        src = last_with_entity.get(key)
        if src is not None and src != event.id and (previous_in_session is None or src != previous_in_session.id):
            links.append((src, event.id, "entity", key))
    return links


def chain_graph(links: Iterable[tuple[int, int, str, str]]) -> nx.MultiDiGraph:
    """The event chain as a graph: nodes are event ids, edges carry ``kind`` and ``key``."""
    graph = nx.MultiDiGraph()
    add_links(graph, links)
    return graph


def add_links(graph: nx.MultiDiGraph, links: Iterable[tuple[int, int, str, str]]) -> None:
    """Add chain links to ``graph``; a link it already has is not added twice (as in the store,
    where ``(src, dst, kind, key)`` is the primary key)."""
    for src, dst, kind, key in links:
        graph.add_edge(src, dst, key=(kind, key), kind=kind, key_=key)


def neighbours(graph: nx.MultiDiGraph, event_id: int, hops: int = 1) -> set[int]:
    """Events within ``hops`` links before or after ``event_id``."""
    return neighbourhoods(graph, [event_id], hops)[event_id]


def neighbourhoods(graph: Any, origins: Sequence[int], hops: int = 1) -> dict[int, set[int]]:
    """:func:`neighbours` of each of ``origins``, walked hop by hop for all of them at once: a
    chain read from the store (:class:`~memtracks.storage.chain.StoredChain`) reads each hop's
    links in one go."""
    load = getattr(graph, "load", None)
    if load is not None:
        load(origins)
    walks = {origin: ({origin}, {origin}) for origin in origins if origin in graph}  # seen, frontier
    for _ in range(hops):
        if load is not None:
            load(node for _, frontier in walks.values() for node in frontier)
        for seen, frontier in walks.values():
            nxt: set[int] = set()
            for node in frontier:
                nxt.update(graph.predecessors(node))
                nxt.update(graph.successors(node))
            frontier.clear()
            frontier.update(nxt - seen)
            seen |= frontier
    return {origin: walks[origin][0] - {origin} if origin in walks else set() for origin in origins}


def answers(graph: nx.MultiDiGraph, event_id: int) -> set[int]:
    """The turns right after ``event_id`` in its session (where a question gets its answer)."""
    if event_id not in graph:
        return set()
    return {dst for _, dst, data in graph.out_edges(event_id, data=True) if data.get("kind") == "next"}


def event_text(event: Event, config: WriterConfig) -> str:
    """What an event is indexed by: its text, led by the speaker's name in named chats."""
    return spoken_text(event.speaker, event.text, config)


def spoken_text(speaker: str, text: str, config: WriterConfig) -> str:
    """``text`` said by ``speaker`` as it is indexed (see :func:`event_text`)."""
    if speaker.lower() == "user" or is_assistant(speaker, config.assistant_speakers):
        return text
    return f"{speaker}: {text}"


class TemporalTrack(Track[Event]):
    """Events: every turn worth keeping, dated, in the order it was said, linked in a chain."""

    name = "temporal"
    stored = "event"
    record = Event
    table = "events"
    label = {"en": "[event]", "zh": "[时序]"}

    def weight(self, how: str, config: FusionConfig) -> float:
        return config.temporal

    def indexed(self, record: Event, catalogue: Catalogue, config: WriterConfig) -> tuple[str, tuple[str, ...]]:
        return event_text(record, config), record.entity_keys

    def words(self, record: Event) -> str:
        return record.text

    def content(self, record: Event) -> tuple[str, tuple[str, ...]]:
        when = record.start.date().isoformat() if record.start else ""
        return f"{record.text} {when}", record.entity_keys

    def turn_ids(self, record: Event) -> tuple[str, ...]:
        return (record.turn_id,)

    def said_at(self, record: Event) -> datetime:
        return record.mentioned_at

    def interval(self, record: Event) -> tuple[datetime, datetime]:
        if record.start:
            return record.start, record.end or record.start
        return record.mentioned_at, record.mentioned_at

    def json(self, record: Event) -> dict[str, Any]:
        return {
            "ref": f"event:{record.id}",
            "id": record.id,
            "turn_id": record.turn_id,
            "session_id": record.session_id,
            "speaker": record.speaker,
            "text": record.text,
            "mentioned_at": dt_text(record.mentioned_at),
            "start": dt_text(record.start),
            "end": dt_text(record.end),
            "granularity": record.granularity,
            "kinds": list(record.kinds),
            "metadata": record.metadata,
            "times": [
                {"text": t.text, "start": dt_text(t.start), "end": dt_text(t.end), "granularity": t.granularity}
                for t in record.times
            ],
        }

    def by_ids(self, store: Storage, scope: str, ids: Sequence[int]) -> list[Event]:
        return store.events(scope, ids=list(ids))

    def after(self, store: Storage, scope: str, after: int) -> list[Event]:
        return store.events(scope, after=after)


TEMPORAL = TemporalTrack()
