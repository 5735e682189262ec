"""Records to SQLite rows and back. Datetimes are stored as ISO 8601 text with their UTC
offset (so they come back timezone-aware) and, where they are queried, as epoch seconds."""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from functools import lru_cache
from operator import itemgetter
from typing import Any, overload

from memtracks.errors import CorruptionError
from memtracks.records import Event, Fact, FactRevision, Happening, Inference, Premise, TimeMention, Turn
from memtracks.storage.dialect import marks as placeholders
from memtracks.storage.tables import TABLES


def dt_text(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


@overload
def text_dt(value: str) -> datetime: ...
@overload
def text_dt(value: None) -> None: ...
def text_dt(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value is not None else None


def epoch(value: datetime | None) -> float | None:
    return value.timestamp() if value is not None else None


# ---------------------------------------------------------------------- row checksums
#
# Every stored turn, fact, event, conclusion and store item carries ``crc``: a CRC-32 of its
# other columns, written with the row and checked each time the row is read back as a record
# (and by ``memtracks check``). A byte changed on disk, by a broken disk or a hand edit, is
# then a CorruptionError naming the row, never a wrong value served. The encoding is the same
# on SQLite and Postgres: numbers by value (an integral float as an int, as SQLite's affinity
# may store it), text as is.


def _canonical(value: Any) -> str:
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value)


def checksum(values: Iterable[Any]) -> int:
    """CRC-32 of a row's values in column order (the ``crc`` column left out); text as it is,
    everything else by :func:`_canonical` (most values are text: no repr to pay for)."""
    joined = "\x1f".join(v if type(v) is str else _canonical(v) for v in values)
    return zlib.crc32(joined.encode("utf-8", "surrogatepass"))


def sealed(values: tuple[Any, ...]) -> tuple[Any, ...]:
    """A row's values with its checksum appended (the ``crc`` column is each table's last)."""
    return (*values, checksum(values))


def verify(table: str, row: Any, columns: Sequence[str]) -> None:
    """Raise :class:`CorruptionError` naming the row if its values no longer match its checksum."""
    try:
        stored = row["crc"]
    except (IndexError, KeyError):
        return  # a partial read (some columns only) carries no checksum to verify
    if stored is None or checksum(_picker(tuple(columns), tuple(row.keys()))(row)) != stored:
        raise CorruptionError(damage_message(table, row))


@lru_cache(maxsize=256)
def _picker(columns: tuple[str, ...], keys: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The values of ``columns`` from a row read with ``keys``, by position (faster than by name)."""
    positions = [keys.index(c) for c in columns]
    get = itemgetter(*positions)
    return (lambda row: (get(row),)) if len(positions) == 1 else get


def damage_message(table: str, row: Any) -> str:
    key = row["id"] if table in ("facts", "events", "inferences") else row[ROW_KEYS[table][1]]
    return (
        f"{table} row {key!r} of {row['user_id']!r} is damaged (its checksum does not match its values); "
        "run `memtracks check`, and `memtracks check --repair` to set it aside in the quarantine"
    )


FACT_COLUMNS = TABLES["facts"].listing()


FACT_MARKS = placeholders(FACT_COLUMNS.split(","))


def fact_row(f: Fact) -> tuple[Any, ...]:
    return sealed(
        (
            f.id,
            f.user_id,
            f.subject,
            f.slot,
            f.value,
            f.value_key,
            int(f.negated),
            f.source,
            f.confidence,
            dt_text(f.valid_from),
            dt_text(f.valid_to),
            dt_text(f.recorded_at),
            dt_text(f.last_seen),
            epoch(f.last_seen),
            f.superseded_by,
            f.mention_count,
            json.dumps(list(f.source_turn_ids), ensure_ascii=False),
            f.lang,
            f.origin,
            f.reason,
            dt_text(f.superseded_at),
            int(f.planned),
            json.dumps([_revision_json(r) for r in f.revisions]),
        )
    )


def _revision_json(r: FactRevision) -> dict[str, Any]:
    return {
        "until": dt_text(r.until),
        "valid_to": dt_text(r.valid_to),
        "superseded_by": r.superseded_by,
        "reason": r.reason,
        "superseded_at": dt_text(r.superseded_at),
    }


def _json_revision(d: dict[str, Any]) -> FactRevision:
    return FactRevision(
        text_dt(d["until"]), text_dt(d["valid_to"]), d["superseded_by"], d["reason"], text_dt(d["superseded_at"])
    )


def row_fact(r: sqlite3.Row) -> Fact:
    verify("facts", r, COLUMNS["facts"])
    return Fact(
        id=r["id"],
        user_id=r["user_id"],
        subject=r["subject"],
        slot=r["slot"],
        value=r["value"],
        value_key=r["value_key"],
        negated=bool(r["negated"]),
        source=r["source"],
        confidence=r["confidence"],
        valid_from=text_dt(r["valid_from"]),
        valid_to=text_dt(r["valid_to"]),
        recorded_at=text_dt(r["recorded_at"]),
        last_seen=text_dt(r["last_seen"]),
        superseded_by=r["superseded_by"],
        mention_count=r["mention_count"],
        source_turn_ids=tuple(json.loads(r["source_turn_ids"])),
        lang=r["lang"],
        origin=r["origin"],
        reason=r["reason"],
        superseded_at=text_dt(r["superseded_at"]),
        planned=bool(r["planned"]),
        revisions=tuple(_json_revision(d) for d in json.loads(r["revisions"])),
    )


def _time_json(t: TimeMention) -> dict[str, Any]:
    out: dict[str, Any] = {
        "text": t.text,
        "start": dt_text(t.start),
        "end": dt_text(t.end),
        "granularity": t.granularity,
        "span": list(t.span),
        "lang": t.lang,
        "confidence": t.confidence,
        "direction": t.direction,
    }
    if t.approximate:
        out["approximate"] = True
    if t.unbounded:
        out["unbounded"] = t.unbounded
    if t.duration is not None:
        out["duration_s"] = t.duration.total_seconds()
    return out


def _json_time(d: dict[str, Any]) -> TimeMention:
    duration = timedelta(seconds=d["duration_s"]) if "duration_s" in d else None
    return TimeMention(
        d["text"],
        text_dt(d["start"]),
        text_dt(d["end"]),
        d["granularity"],
        tuple(d["span"]),
        d["lang"],
        d["confidence"],
        d["direction"],
        d.get("approximate", False),
        d.get("unbounded"),
        duration,
    )


def _happening_json(h: Happening) -> dict[str, Any]:
    return {
        "kind": h.kind,
        "subject": h.subject,
        "args": h.args,
        "span": list(h.span),
        "pattern_id": h.pattern_id,
        "start": dt_text(h.start),
        "end": dt_text(h.end),
        "granularity": h.granularity,
        "planned": h.planned,
        "status": h.status,
        "note": h.note,
    }


def _json_happening(d: dict[str, Any]) -> Happening:
    return Happening(
        d["kind"],
        d["subject"],
        d["args"],
        tuple(d["span"]),
        d["pattern_id"],  # type: ignore[arg-type]
        text_dt(d["start"]),
        text_dt(d["end"]),
        d["granularity"],
        d.get("planned", False),
        d.get("status", "active"),
        d.get("note", ""),
    )


def happenings_json(e: Event) -> str:
    return json.dumps([_happening_json(h) for h in e.happenings], ensure_ascii=False)


EVENT_COLUMNS = TABLES["events"].listing()


def event_entity_rows(events: Iterable[Event]) -> list[tuple[str, str, int | None]]:
    """The ``event_entities`` rows of ``events``: (user, entity key, event id), each once."""
    return [(e.user_id, k, e.id) for e in events for k in dict.fromkeys(e.entity_keys)]  # type: ignore[misc]


def event_kind_rows(events: Iterable[Event]) -> list[tuple[str, str, int | None]]:
    """The ``event_kinds`` rows of ``events``: (user, kind, event id), each once."""
    return [(e.user_id, k, e.id) for e in events for k in dict.fromkeys(e.kinds)]  # type: ignore[misc]


def event_row(e: Event) -> tuple[Any, ...]:
    return sealed(
        (
            e.id,
            e.user_id,
            e.session_id,
            e.turn_id,
            e.speaker,
            e.subject,
            e.text,
            e.lang,
            dt_text(e.mentioned_at),
            epoch(e.mentioned_at),
            dt_text(e.start),
            epoch(e.start),
            dt_text(e.end),
            epoch(e.end),
            e.granularity,
            json.dumps([_time_json(t) for t in e.times], ensure_ascii=False),
            happenings_json(e),
            " ".join(e.kinds),
            json.dumps(list(e.entity_keys), ensure_ascii=False),
            e.source,
            e.seq,
            json.dumps(e.metadata, ensure_ascii=False, default=str),
        )
    )


def row_event(r: sqlite3.Row) -> Event:
    verify("events", r, COLUMNS["events"])
    return Event(
        id=r["id"],
        user_id=r["user_id"],
        session_id=r["session_id"],
        turn_id=r["turn_id"],
        speaker=r["speaker"],
        subject=r["subject"],
        text=r["text"],
        lang=r["lang"],
        mentioned_at=text_dt(r["mentioned_at"]),
        start=text_dt(r["start"]),
        end=text_dt(r["end"]),
        granularity=r["granularity"],
        times=tuple(_json_time(d) for d in json.loads(r["times"])),
        happenings=tuple(_json_happening(d) for d in json.loads(r["happenings"])),
        entity_keys=tuple(json.loads(r["entity_keys"])),
        source=r["source"],
        seq=r["seq"],
        metadata=json.loads(r["metadata"]),
    )


INFERENCE_COLUMNS = TABLES["inferences"].listing()


def inference_row(i: Inference) -> tuple[Any, ...]:
    return sealed(
        (
            i.id,
            i.user_id,
            i.rule_id,
            i.subject,
            i.kind,
            i.text,
            i.lang,
            dt_text(i.created_at),
            epoch(i.created_at),
            json.dumps([[p.track, p.id] for p in i.premises]),
            i.confidence,
            dt_text(i.valid_from),
            dt_text(i.valid_to),
            i.status,
            dt_text(i.retracted_at),
            i.retracted_because,
            json.dumps(list(i.source_turn_ids), ensure_ascii=False),
            i.derived_fact_id,
            json.dumps(i.args, ensure_ascii=False),
            i.key,
        )
    )


def row_inference(r: sqlite3.Row) -> Inference:
    verify("inferences", r, COLUMNS["inferences"])
    return Inference(
        id=r["id"],
        user_id=r["user_id"],
        rule_id=r["rule_id"],
        subject=r["subject"],
        kind=r["kind"],
        text=r["text"],
        lang=r["lang"],
        created_at=text_dt(r["created_at"]),
        premises=tuple(Premise(t, i) for t, i in json.loads(r["premises"])),
        confidence=r["confidence"],
        valid_from=text_dt(r["valid_from"]),
        valid_to=text_dt(r["valid_to"]),
        status=r["status"],
        retracted_at=text_dt(r["retracted_at"]),
        retracted_because=r["retracted_because"],
        source_turn_ids=tuple(json.loads(r["source_turn_ids"])),
        derived_fact_id=r["derived_fact_id"],
        args=json.loads(r["args"]),
    )


TURN_COLUMNS = TABLES["turns"].listing()


def turn_row(turn: Turn, lang: str, content_hash: str, seq: int) -> tuple[Any, ...]:
    assert turn.timestamp is not None
    return sealed(
        (
            turn.user_id,
            turn.turn_id,
            turn.session_id,
            turn.speaker,
            turn.text,
            lang,
            dt_text(turn.timestamp),
            epoch(turn.timestamp),
            turn.source,
            json.dumps(turn.metadata, ensure_ascii=False, default=str),
            content_hash,
            seq,
        )
    )


def row_turn(r: sqlite3.Row, user_id: str, agent_id: str | None = None) -> Turn:
    """A stored turn as a :class:`Turn` of ``user_id`` (the row holds the storage scope)."""
    verify("turns", r, COLUMNS["turns"])
    return Turn(
        r["text"],
        speaker=r["speaker"],
        timestamp=text_dt(r["ts"]),
        user_id=user_id,
        agent_id=agent_id,
        session_id=r["session_id"],
        turn_id=r["turn_id"],
        lang=r["lang"],
        source=r["source"],
        metadata=json.loads(r["metadata"]),
    )


ITEM_COLUMNS = ("user_id", "namespace", "key", "value", "indexed")  # what an item's checksum covers


def item_checksum(user_id: str, namespace: str, key: str, value: str, indexed: bool) -> int:
    """An item's checksum covers what it holds, not when it was put or its place in the order."""
    return checksum((user_id, namespace, key, value, int(indexed)))


def verify_item(row: Any) -> None:
    verify("items", row, ITEM_COLUMNS)


def _columns(listing: str) -> tuple[str, ...]:
    return tuple(c.strip().strip('"') for c in listing.split(",") if c.strip() != "crc")


def marks(listing: str) -> str:
    """The placeholders for a column listing."""
    return placeholders(listing.split(","))


# the columns each table's checksum covers, in order, and each table's key (for messages and repair)
COLUMNS: dict[str, tuple[str, ...]] = {
    "facts": _columns(FACT_COLUMNS),
    "events": _columns(EVENT_COLUMNS),
    "inferences": _columns(INFERENCE_COLUMNS),
    "turns": _columns(TURN_COLUMNS),
    "items": ITEM_COLUMNS,
    "names": ("user_id", "surface", "key", "label"),
}
ROW_KEYS: dict[str, tuple[str, ...]] = {
    "facts": ("user_id", "id"),
    "events": ("user_id", "id"),
    "inferences": ("user_id", "id"),
    "turns": ("user_id", "turn_id"),
    "items": ("user_id", "key", "namespace"),
    "names": ("user_id", "surface"),
}


def vector_checksum(user_id: str, track: str, item_id: int, blob: bytes) -> int:
    """CRC-32 over a stored vector and whose it is: a flipped byte, in the vector or in its key, shows."""
    return zlib.crc32(blob, zlib.crc32(f"{user_id}\x1f{track}\x1f{item_id}".encode("utf-8", "surrogatepass")))
