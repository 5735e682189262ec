"""The temporal track's event chain: events linked in order within a session ("next") and
across sessions through the entities they share ("entity": the last earlier event that
mentioned the same pet, person or place). Links are stored in SQLite and read into a
networkx graph for walking the chain. :data:`TEMPORAL` is the track object the rest of
memtracks asks about an event: how it is indexed (its text, led by the speaker's name in
named chats), dated, seen as of a moment and shown on a card (its turn quoted, cut to what
answers the question, with the changes of its happenings)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

import networkx as nx

from memtracks.config import is_assistant
from memtracks.records import Event, Happening
from memtracks.storage.codec import dt_text
from memtracks.tracks.base import SNIPPET_TOKENS, Rendering, Track, day
from memtracks.tracks.quoting import quoted

if TYPE_CHECKING:
    from memtracks.config import FusionConfig, WriterConfig
    from memtracks.data.catalogue import Catalogue
    from memtracks.storage.base import Storage

MAX_ENTITY_LINKS = 8
MAX_EVENT_CHARS = 400  # a quoted turn is clipped to this many characters
_NOTE_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_CHANGED_BY = re.compile(r"\(turn (.+)\)$")


def change_note(verb: str, day: datetime, turn_id: str) -> str:
    """What a happening's note says of the later turn that changed it: "cancelled 2024-01-12
    (turn t9)" (read back by :meth:`TemporalTrack.called_off_by`)."""
    return f"{verb} {day.date().isoformat()} (turn {turn_id})"


_STATUS_WORDS = {"en": {"cancelled": "cancelled", "moved": "moved"}, "zh": {"cancelled": "已取消", "moved": "改期"}}


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


def said_by(epoch: float, moment: datetime | None) -> bool:
    """Was something said at ``epoch`` known at ``moment`` (the as-of rule of events; None:
    everything stored is known)?"""
    return moment is None or epoch <= moment.timestamp()


def status_marker(happening: Happening, lang: str) -> str:
    """How a changed happening reads on a card, in the card's language, with dates and no
    internal ids: "cancelled on 2024-06-02", "moved on 2024-06-02 to 2024-06-20";
    "2024-06-02 已取消", "2024-06-02 改期至 2024-06-20". The day it changed comes from the
    stored note (which also names the turn, for the audit trail)."""
    zh = lang == "zh"
    word = _STATUS_WORDS["zh" if zh else "en"].get(happening.status, happening.status)
    found = _NOTE_DAY.search(happening.note)
    changed = found.group() if found else ""
    to = ""
    if happening.status == "moved" and happening.start is not None:
        new = f"{happening.start:%Y-%m}" if happening.granularity in ("month", "year") else day(happening.start)
        to = f"至 {new}" if zh else f" to {new}"
    if zh:
        return f"{changed} {word}{to}".strip()
    return f"{word} on {changed}{to}" if changed else f"{word}{to}"


def clip(text: str, limit: int = MAX_EVENT_CHARS) -> str:
    """``text`` on one line of single spaces, cut to ``limit`` characters (with "…")."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def event_confidence(event: Event, weight: float) -> float:
    """How sure a dated event card is: the track weight, times its time's confidence."""
    if event.times:
        return round(weight * max(t.confidence for t in event.times), 2)
    return weight


class TemporalTrack(Track[Event]):
    """Events: every turn worth keeping, dated, in the order it was said, linked in a chain."""

    name = "temporal"
    stored = "event"
    record = Event
    table = "events"
    label = {"en": "[event]", "zh": "[时序]"}
    threads = True

    def weight(self, how: str, config: FusionConfig) -> float:
        return config.temporal

    def indexed(self, record: Event, catalogue: Catalogue, config: WriterConfig) -> tuple[str, tuple[str, ...]]:
        return event_text(record, config), record.entity_keys

    def words(self, record: Event) -> str:
        return record.text

    def person(self, record: Event) -> str | None:
        return record.speaker

    def said(self, record: Event) -> str | None:
        return record.text

    def ahead(self, record: Event, now: datetime) -> bool:
        return record.start is not None and record.start > now

    def content(self, record: Event) -> tuple[str, tuple[str, ...]]:
        when = record.start.date().isoformat() if record.start else ""
        return f"{record.text} {when}", record.entity_keys

    def turn_ids(self, record: Event) -> tuple[str, ...]:
        return (record.turn_id,)

    def called_off_by(self, record: Event) -> tuple[str, ...]:
        # the writer notes the turn that changed a happening: "cancelled 2024-01-12 (turn t9)"
        return tuple(
            m.group(1)
            for h in record.happenings
            if h.status == "cancelled" and (m := _CHANGED_BY.search(h.note)) is not None
        )

    def said_at(self, record: Event) -> datetime:
        return record.mentioned_at

    def interval(self, record: Event) -> tuple[datetime, datetime]:
        if record.start:
            return record.start, record.end or record.start
        return record.mentioned_at, record.mentioned_at

    def visible_at(self, record: Event, moment: datetime | None) -> Event | None:
        return record if said_by(record.mentioned_at.timestamp(), moment) else None

    def card_text(self, record: Event, ctx: Rendering, budget: int = SNIPPET_TOKENS, relevance: Any = None) -> str:
        """The day it was said, the speaker and the turn quoted (cut to ``budget`` tokens of what
        answers the question) with the changes of its happenings. No confidence: the words were
        said; what is unsure is a resolved time, which shows it ("~2024-01-03")."""
        zh = record.lang == "zh"
        label = self.label["zh" if zh else "en"]
        body = self.body(record, ctx, budget, relevance)
        if zh:
            return f"{label} {day(record.mentioned_at)} {record.speaker}：{body}"
        return f"{label} {day(record.mentioned_at)} {record.speaker}: {body}"

    def part_text(self, record: Event, ctx: Rendering, budget: int) -> str:
        """A further part of a thread card, after the separator that starts it: the day it was
        said and the turn's most relevant sentences with their resolved dates. The speaker is
        the card's (a thread only joins one speaker's turns)."""
        zh = record.lang == "zh"
        return f"{day(record.mentioned_at)}{'：' if zh else ': '}{self.body(record, ctx, budget)}"

    def body(self, record: Event, ctx: Rendering, budget: int, relevance: Any = None) -> str:
        """The event's quoted cut and status notes; ``ctx.bodies`` keeps them for the question,
        so that sizing a thread and building its card cut each turn once."""
        key = (record.id, budget, relevance is not None)
        bodies = ctx.bodies
        if bodies is not None and record.id is not None and key in bodies:
            return bodies[key]
        zh = record.lang == "zh"
        body = quoted(clip(ctx.cut(record, budget, relevance)))
        notes = [status_marker(h, record.lang) for h in record.happenings if h.status != "active"]
        if notes:
            body += f"［{'；'.join(notes)}］" if zh else f" [{'; '.join(notes)}]"
        if bodies is not None and record.id is not None:
            bodies[key] = body
        return body

    def card_confidence(self, record: Event, ctx: Rendering) -> float:
        return event_confidence(record, ctx.temporal_weight)

    def card_interval(self, record: Event) -> tuple[datetime | None, datetime | None]:
        return record.start, record.end

    def premise_name(self, record: Event, lang: str) -> str:
        kind = record.kinds[0] if record.kinds else "event"
        return f"{kind}事件 {day(record.mentioned_at)}" if lang == "zh" else f"{kind} event {day(record.mentioned_at)}"

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
