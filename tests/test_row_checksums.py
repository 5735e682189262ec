"""Stored rows cannot change unnoticed: every turn, fact, event, conclusion and store item
carries a checksum of its values, written with it and verified when it is read and by
``check``; ``check --repair`` sets a damaged row aside in the quarantine, and the rest of the
store keeps working. Real SQLite files (and the embedded Postgres), English and Chinese."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timedelta, timezone

import pytest

from memtracks import Turn
from memtracks.errors import CorruptionError
from memtracks.integrations.langgraph import MemtracksStore

T0 = datetime(2024, 3, 1, 9, tzinfo=timezone.utc)
TURNS = [
    ("u1", "I live in Seattle and work at Google."),
    ("u1", "I'm flying to Tokyo next Wednesday for a conference."),
    ("u1", "I moved to Denver last month."),
    ("u2", "我住在杭州，在阿里巴巴上班。"),
    ("u2", "我下周三要去北京出差。"),
]


def fill(memory):
    for n, (user, text) in enumerate(TURNS):
        memory.write(Turn(text, user_id=user, turn_id=f"t{n}", timestamp=T0 + timedelta(days=n)))
    MemtracksStore(memory).put(("u1",), "prefs", {"theme": "dark"})
    return memory


def damage(path, sql, params=()):
    """Change stored values behind memtracks' back, as a broken disk or a hand edit would."""
    db = sqlite3.connect(path)
    db.execute(sql, params)
    db.commit()
    db.close()


def first_id(memory, table, user):
    return memory.store._rows(f"SELECT MIN(id) FROM {table} WHERE user_id = ?", (user,))[0][0]


CHANGES = [  # (table, column, new value): every kind of value a row holds
    ("facts", "value", "Mars"),
    ("facts", "valid_from", "1999-01-01T00:00:00+00:00"),
    ("facts", "negated", 1),
    ("facts", "confidence", 0.1),
    ("facts", "superseded_by", 999),
    ("events", "text", "I live on Mars."),
    ("events", "start", "2031-01-01T00:00:00+00:00"),
    ("events", "happenings", "[ ]"),  # a byte changed, the meaning the same: noticed all the same
    ("inferences", "text", "user away from home (in Mars)"),
    ("inferences", "status", "retracted"),
]


@pytest.mark.parametrize("table,column,value", CHANGES)
@pytest.mark.parametrize("user", ["u1", "u2"])
def test_a_changed_value_is_never_served_and_check_names_the_row(make_memory, tmp_path, table, column, value, user):
    path = tmp_path / "m.db"
    memory = fill(make_memory(path))
    row_id = first_id(memory, table, user)
    if row_id is None:
        pytest.skip(f"no {table} for {user}")
    memory.close()
    damage(path, f"UPDATE {table} SET {column} = ? WHERE user_id = ? AND id = ?", (value, user, row_id))
    again = make_memory(path)
    read = {"facts": lambda: again.facts(user, include_superseded=True), "events": lambda: again.events(user)}
    read["inferences"] = lambda: again.inferences(user, include_retracted=True)
    with pytest.raises(CorruptionError, match=rf"{table} row {row_id} of '{user}' is damaged"):
        read[table]()
    report = again.check()
    assert [(p.kind, p.user_id, p.item_id) for p in report.problems if p.item_id] == [("row-checksum", user, row_id)]
    other = "u2" if user == "u1" else "u1"
    assert again.facts(other) and again.events(other)  # the rest of the store keeps working
    assert again.check().problems == report.problems


@pytest.mark.parametrize("column,value", [("text", "I live on Mars."), ("ts", "1999-01-01T00:00:00+00:00")])
def test_a_changed_turn_is_never_served(make_memory, tmp_path, column, value):
    path = tmp_path / "m.db"
    fill(make_memory(path)).close()
    damage(path, f"UPDATE turns SET {column} = ? WHERE user_id = 'u1' AND turn_id = 't0'", (value,))
    again = make_memory(path)
    with pytest.raises(CorruptionError, match="turns row 't0'"):
        again.get("u1", "t0")
    assert again.get("u1", "t1").text == TURNS[1][1]


def test_a_changed_store_item_is_never_served(make_memory, tmp_path):
    path = tmp_path / "m.db"
    fill(make_memory(path)).close()
    damage(path, "UPDATE items SET value = ? WHERE key = 'prefs'", (json.dumps({"theme": "light"}),))
    again = make_memory(path)
    with pytest.raises(CorruptionError, match="items row 'prefs'"):
        MemtracksStore(again).get(("u1",), "prefs")
    assert [p.kind for p in again.check().problems][0] == "row-checksum"


@pytest.mark.parametrize("user,question", [("u1", "Where do I live?"), ("u2", "我住在哪里？")])
def test_repair_sets_the_damaged_row_aside_and_the_rest_works(make_memory, tmp_path, user, question):
    path = tmp_path / "m.db"
    memory = fill(make_memory(path))
    fact = min(memory.facts(user, include_superseded=True), key=lambda f: f.id)
    memory.close()
    damage(path, "UPDATE facts SET value = 'Mars' WHERE user_id = ? AND id = ?", (user, fact.id))
    again = make_memory(path)
    fixed = again.check(repair=True)
    assert fixed.ok, [str(p) for p in fixed.problems]
    assert fixed.counts["quarantined"] == 1
    kept = again.store._rows("SELECT source, item, row, reason FROM quarantine WHERE user_id = ?", (user,))
    assert [(r[0], r[1]) for r in kept] == [("facts", str(fact.id))]
    assert json.loads(kept[0][2])["value"] == "Mars" and "checksum" in kept[0][3]  # as found, with why
    assert fact.id not in {f.id for f in again.facts(user, include_superseded=True)}
    assert again.retrieve(question, user_id=user, now=T0 + timedelta(days=9)).cards
    again.write(Turn("I adopted a cat named Pixel.", user_id=user, timestamp=T0 + timedelta(days=10)))
    assert again.check().ok and make_memory(path).check().ok


def test_an_older_file_gets_its_checksums_when_it_is_opened(make_memory, tmp_path):
    path = tmp_path / "old.db"
    fill(make_memory(path)).close()
    db = sqlite3.connect(path)
    for table in ("turns", "facts", "events", "inferences", "items", "names"):
        db.execute(f"ALTER TABLE {table} DROP COLUMN crc")
    db.execute("DROP TABLE quarantine")
    db.execute("PRAGMA user_version = 10")
    db.commit()
    db.close()
    again = make_memory(path)
    assert again.check().ok
    assert {f.value for f in again.facts("u2")} >= {"杭州"}
    assert again.store._rows("SELECT COUNT(*) FROM facts WHERE crc IS NULL")[0][0] == 0


@pytest.mark.backends
def test_checksums_on_both_backends(memory):
    fill(memory)
    fact = min(memory.facts("u1", include_superseded=True), key=lambda f: f.id)
    with memory.store.transaction():
        memory.store.execute("UPDATE facts SET value = ? WHERE user_id = ? AND id = ?", ("Mars", "u1", fact.id))
    memory.indexes.evict("u1")
    with pytest.raises(CorruptionError, match=f"facts row {fact.id}"):
        memory.facts("u1", include_superseded=True)
    fixed = memory.check(repair=True)
    assert fixed.ok, [str(p) for p in fixed.problems]
    assert fact.id not in {f.id for f in memory.facts("u1", include_superseded=True)}
    assert memory.facts("u2")


# ---------------------------------------------------------------------- bytes flipped on disk

COVERED = (  # the tables whose damage would change what is served: all must be noticed
    "turns",
    "facts",
    "events",
    "inferences",
    "items",
    "names",
    "vectors",
    "event_links",
    "event_entities",
    "event_kinds",
    "inference_premises",
    "relations",
)


def _dump(path):
    """Every row of the covered tables as SQLite reads them, or None if SQLite refuses the file."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return {t: sorted(map(repr, db.execute(f"SELECT * FROM {t}").fetchall())) for t in COVERED}
        finally:
            db.close()
    except sqlite3.DatabaseError:
        return None


def _noticed(make_memory, path) -> bool:
    """Does memtracks refuse to serve the file's damage: an error on opening or reading every
    record, or a problem in its check?"""
    from memtracks import MemtracksError

    try:
        memory = make_memory(path)
        for user, agent in memory.scopes():
            memory.facts(user, agent_id=agent, include_superseded=True)
            memory.events(user, agent_id=agent)
            memory.inferences(user, agent_id=agent, include_retracted=True)
            for event in memory.events(user, agent_id=agent):
                memory.get(user, event.turn_id, kind="turn", agent_id=agent)
        MemtracksStore(memory).search(())
        return not memory.check().ok
    except MemtracksError:
        return True


def _value_bytes(path, data: bytes) -> list[int]:
    """File offsets of the bytes of the record tables' stored text values."""
    db = sqlite3.connect(path)
    values = set()
    for table in ("turns", "facts", "events", "inferences", "items", "names"):
        for row in db.execute(f"SELECT * FROM {table}"):
            values.update(v for v in row if isinstance(v, str) and len(v) >= 4)
    db.close()
    offsets = []
    for value in values:
        encoded = value.encode("utf-8")
        at = data.find(encoded, 4096)
        while at != -1:
            offsets.extend(range(at, at + len(encoded)))
            at = data.find(encoded, at + 1)
    return sorted(set(offsets))


@pytest.mark.slow
def test_random_bytes_flipped_in_the_file_never_go_unnoticed(make_memory, tmp_path):
    import random
    import shutil

    sound = tmp_path / "sound.db"
    memory = fill(make_memory(sound))
    for n in range(30):
        memory.write(
            f"I visited museum number {n} in Lyon with Anna." if n % 2 else f"我第{n}次去了成都的茶馆。", user_id="u1"
        )
    memory.close()
    db = sqlite3.connect(sound)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    before = _dump(sound)
    data = sound.read_bytes()
    targets = _value_bytes(sound, data)  # where stored values (a fact's value, a date, a text) lie
    rng = random.Random(20261205)
    changed = noticed = tries = 0
    while changed < 60 and tries < 3000:
        tries += 1
        # half the flips anywhere past the header page, half inside a stored value
        at = rng.randrange(4096, len(data)) if tries % 2 else rng.choice(targets)
        damaged = bytearray(data)
        damaged[at] ^= 1 << rng.randrange(8)
        trial = tmp_path / f"trial{tries}.db"
        trial.write_bytes(bytes(damaged))
        after = _dump(trial)
        if after == before:
            trial.unlink()
            continue  # free space, or a byte SQLite does not read back: no stored row changed
        changed += 1
        noticed += _noticed(make_memory, trial)
        shutil.rmtree(tmp_path / f"trial{tries}.db.snapshots", ignore_errors=True)
    print(f"\nbyte flips: {tries} tried, {changed} changed stored rows, {noticed} of them noticed")
    assert changed >= 30 and noticed == changed
