"""The SQL behind consolidation: raw row images (so ``undo`` puts back exactly what was
there), the record of each run, and the events a run folded into a near-duplicate.

Images are whole table rows as plain JSON (column -> value), read and written here only.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from memtracks.storage import codec
from memtracks.storage.base import SQLStorage
from memtracks.storage.dialect import marks

TABLES = {"fact": "facts", "inference": "inferences"}


def rows(store: SQLStorage, scope: str, track: str, ids: Iterable[int] | None = None) -> dict[int, dict[str, Any]]:
    """Whole rows of ``scope``'s facts or inferences (``track``), by id; all, or these ids."""
    table = TABLES[track]
    sql = f"SELECT * FROM {table} WHERE user_id = ?"
    params: list[Any] = [scope]
    if ids is not None:
        wanted = list(ids)
        if not wanted:
            return {}
        sql = f"SELECT * FROM {table} WHERE +user_id = ? AND id IN ({marks(wanted)})"
        params += wanted
    return {r["id"]: dict(r) for r in store._rows(sql, params)}


def put_rows(store: SQLStorage, track: str, images: Iterable[Mapping[str, Any]]) -> None:
    """Write whole rows back, as they were (sealed again: an image taken before rows carried
    checksums has none)."""
    table = TABLES[track]
    written: dict[str, list[int]] = {}
    for image in images:
        written.setdefault(image["user_id"], []).append(image["id"])
        image = {k: v for k, v in image.items() if k != "crc"}
        columns = list(image)
        store.db.execute(
            f"INSERT OR REPLACE INTO {TABLES[track]} ({','.join(columns)}) VALUES ({marks(columns)})",
            [image[c] for c in columns],
        )
    for scope, ids in written.items():
        reseal(store, table, scope, ids)


def delete_created(store: SQLStorage, scope: str, track: str, ids: Sequence[int]) -> None:
    """Remove rows a run created (an undo takes them back), with their vectors and premises."""
    if not ids:
        return
    placeholders = marks(ids)
    store.db.execute(f"DELETE FROM {TABLES[track]} WHERE user_id = ? AND id IN ({placeholders})", (scope, *ids))
    store.db.execute(
        f"DELETE FROM vectors WHERE user_id = ? AND track = ? AND item_id IN ({placeholders})", (scope, track, *ids)
    )
    if track == "inference":
        store.db.execute(
            f"DELETE FROM inference_premises WHERE user_id = ? AND inference_id IN ({placeholders})", (scope, *ids)
        )


def event_metadata(store: SQLStorage, scope: str, ids: Iterable[int]) -> dict[int, str]:
    wanted = list(ids)
    if not wanted:
        return {}
    found = store._rows(
        f"SELECT id, metadata FROM events WHERE +user_id = ? AND id IN ({marks(wanted)})",
        (scope, *wanted),
    )
    return {r[0]: r[1] for r in found}


def set_event_metadata(store: SQLStorage, scope: str, event_id: int, metadata: str) -> None:
    store.db.execute("UPDATE events SET metadata = ? WHERE user_id = ? AND id = ?", (metadata, scope, event_id))
    reseal(store, "events", scope, [event_id])


def reseal(store: SQLStorage, table: str, scope: str, ids: Sequence[int]) -> None:
    """The checksums of rows this module changed in place, computed from what they now hold."""
    columns = codec.COLUMNS[table]
    listed = ", ".join(f'"{c}"' for c in columns)
    for row in store._rows(
        f"SELECT id, {listed} FROM {table} WHERE user_id = ? AND id IN ({marks(ids)})", (scope, *ids)
    ):
        store.db.execute(
            f"UPDATE {table} SET crc = ? WHERE user_id = ? AND id = ?", (codec.checksum(row[1:]), scope, row[0])
        )


def vectors(store: SQLStorage, scope: str, track: str, ids: Sequence[int]) -> dict[int, tuple[str, str]]:
    """Stored vectors as ``{id: (content hash, base64 of the float32 bytes)}``."""
    if not ids:
        return {}
    found = store._rows(
        f"SELECT item_id, content_hash, vector FROM vectors WHERE user_id = ? AND track = ? "
        f"AND item_id IN ({marks(ids)})",
        (scope, track, *ids),
    )
    return {r[0]: (r[1], base64.b64encode(r[2]).decode("ascii")) for r in found}


def put_vectors(store: SQLStorage, scope: str, track: str, images: Mapping[int, tuple[str, str]]) -> None:
    store.save_vectors(
        scope,
        track,
        [(i, h, np.frombuffer(base64.b64decode(v), dtype=np.float32)) for i, (h, v) in images.items()],
    )


def matrix(store: SQLStorage, scope: str, track: str, ids: Sequence[int]) -> dict[int, np.ndarray]:
    """The stored vectors of these items, L2-normalised (so a dot product is the cosine)."""
    out = {}
    for item, (_, blob) in vectors(store, scope, track, ids).items():
        vec = np.frombuffer(base64.b64decode(blob), dtype=np.float32)
        norm = float(np.linalg.norm(vec))
        out[item] = vec / norm if norm else vec
    return out


# ---------------------------------------------------------------------- merged events


def merge_events(store: SQLStorage, scope: str, pairs: Iterable[tuple[int, int]], operation_id: str) -> None:
    """``(event, into)``: ``event`` is folded into ``into`` (kept, out of the default search)."""
    store.db.executemany(
        "INSERT OR REPLACE INTO merged_events VALUES (?, ?, ?, ?)", [(scope, e, i, operation_id) for e, i in pairs]
    )


def merged_events(store: SQLStorage, scope: str) -> dict[int, int]:
    """Folded event id -> the id of the event it was folded into."""
    rows = store.remembered(
        ("merged_events", scope),
        lambda: store._rows("SELECT event_id, into_id FROM merged_events WHERE user_id = ?", (scope,)),
    )
    return {r[0]: r[1] for r in rows}


def unmerge(store: SQLStorage, scope: str, operation_id: str) -> None:
    store.db.execute("DELETE FROM merged_events WHERE user_id = ? AND operation_id = ?", (scope, operation_id))


# ---------------------------------------------------------------------- runs


def record_run(
    store: SQLStorage, operation_id: str, scope: str, at: str, actions: Any, preimage: Any, after: Any
) -> None:
    store.db.execute(
        "INSERT INTO consolidations (id, user_id, at, actions, preimage, after) VALUES (?, ?, ?, ?, ?, ?)",
        (
            operation_id,
            scope,
            at,
            json.dumps(actions, ensure_ascii=False),
            json.dumps(preimage, ensure_ascii=False),
            json.dumps(after, ensure_ascii=False),
        ),
    )


def run(store: SQLStorage, operation_id: str) -> dict[str, Any] | None:
    """The run ``operation_id``, whoever's it is (an undo names the run alone: looked up by its
    id across users)."""
    found = store._rows("SELECT * FROM consolidations WHERE id = ?", (operation_id,))
    if not found:
        return None
    r = found[0]
    return {
        "id": r["id"],
        "user_id": r["user_id"],
        "at": r["at"],
        "actions": json.loads(r["actions"]),
        "preimage": json.loads(r["preimage"]),
        "after": json.loads(r["after"]),
        "undone_at": r["undone_at"],
    }


def runs(store: SQLStorage, scope: str) -> list[dict[str, Any]]:
    found = store._rows("SELECT id, at, actions, undone_at FROM consolidations WHERE user_id = ? ORDER BY at", (scope,))
    return [{"id": r[0], "at": r[1], "actions": json.loads(r[2]), "undone_at": r[3]} for r in found]


def mark_undone(store: SQLStorage, scope: str, operation_id: str, at: str) -> None:
    store.db.execute("UPDATE consolidations SET undone_at = ? WHERE user_id = ? AND id = ?", (at, scope, operation_id))


def drop_runs(store: SQLStorage, scope: str) -> None:
    """Forget every run of ``scope`` with its images (their content goes with an erasure)."""
    store.db.execute("DELETE FROM consolidations WHERE user_id = ?", (scope,))
    store.db.execute("DELETE FROM merged_events WHERE user_id = ?", (scope,))


# ---------------------------------------------------------------------- the LLM extractor's progress


def turns_after(store: SQLStorage, scope: str, rowid: int) -> list[tuple[int, Any]]:
    """``scope``'s turns written after row ``rowid``, in the order written: ``(rowid, row)``."""
    found = store._rows("SELECT rowid, * FROM turns WHERE user_id = ? AND rowid > ? ORDER BY rowid", (scope, rowid))
    return [(r[0], r) for r in found]
