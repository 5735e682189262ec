"""Memory end to end: write, write_many, persistence, isolation between users, bad input."""

from __future__ import annotations

import sqlite3
from datetime import date, datetime, timedelta, timezone

import pytest

from memtracks import DuplicateTurnError, InvalidTurnError, Memory, StorageError, Turn
from memtracks.errors import MemtracksError, SchemaVersionError

pytestmark = pytest.mark.backends  # every test here runs on SQLite and on Postgres


CST = timezone(timedelta(hours=8))
T0 = datetime(2024, 1, 10, 10, tzinfo=CST)

CONVERSATION = [
    ("I live in Boston and work at Google.", "en"),
    ("I have a cat named Luna.", "en"),
    ("I'm flying to Tokyo next Wednesday for a conference.", "en"),
    ("I moved to Seattle last month.", "en"),
    ("我住在北京，在百度工作。", "zh"),
    ("我养了一只猫叫豆豆", "zh"),
    ("我下周三要去上海出差", "zh"),
    ("我不再吃辣了", "zh"),
    ("The report is due at the end of the month.", "en"),
    ("这个项目老板说月底必须交。", "zh"),
]


def turns(user="u1", session="s1"):
    return [
        Turn(
            text=text,
            speaker="user",
            timestamp=T0 + timedelta(days=7 * i),
            user_id=user,
            session_id=session,
            turn_id=f"t{i}",
        )
        for i, (text, _) in enumerate(CONVERSATION)
    ]


def snapshot(mem, user="u1"):
    facts = [
        (
            f.id,
            f.subject,
            f.slot,
            f.value,
            f.valid_from,
            f.valid_to,
            f.superseded_by,
            f.negated,
            f.mention_count,
            f.source_turn_ids,
        )
        for f in mem.facts(user, include_superseded=True)
    ]
    events = [
        (e.id, e.turn_id, e.text, e.mentioned_at, e.start, e.end, e.kinds, e.entity_keys) for e in mem.events(user)
    ]
    inferences = [
        (i.id, i.rule_id, i.text, i.status, i.premises, i.valid_from, i.valid_to)
        for i in mem.inferences(user, include_retracted=True)
    ]
    return facts, events, inferences


def test_memory_write_returns_what_was_extracted(memory):
    result = memory.write(
        Turn(
            text="I moved to Shanghai last month.",
            speaker="user",
            timestamp=T0,
            user_id="u1",
            session_id="s1",
            turn_id="t7",
        )
    )
    assert result.lang == "en" and not result.warnings and not result.duplicate
    assert [(m.text, m.granularity) for m in result.times] == [("last month", "month")]
    assert result.event is not None and result.event.kinds == ("move",)
    assert [(f.slot, f.value, f.source) for f in result.facts] == [("lives_in", "Shanghai", "inferred")]
    assert result.facts[0].source_turn_ids == ("t7",)


def test_memory_write_many_equals_one_by_one(make_memory):
    one = make_memory()
    for turn in turns():
        one.write(turn)
    many = make_memory()
    results = many.write_many(turns(), batch_size=3)
    assert len(results) == len(CONVERSATION)
    assert snapshot(one) == snapshot(many)
    assert [r.lang for r in results] == [lang for _, lang in CONVERSATION]


def test_memory_persistence_round_trip(make_memory, tmp_path):
    path = tmp_path / "memory.db"
    first = make_memory(path)
    first.write_many(turns())
    before = snapshot(first)
    first_vectors = {
        t: first.index("u1", t).search(first.embedder.embed_batch(["cat"])[0], 3)
        for t in ("fact", "event", "inference")
    }
    first.close()
    second = make_memory(path)
    assert snapshot(second) == before
    facts = second.facts("u1", include_superseded=True)
    superseded = [f for f in facts if f.superseded_by is not None]
    assert superseded and all(f.valid_to is not None and f.valid_to.tzinfo is not None for f in superseded)
    for track, hits in first_vectors.items():
        assert second.index("u1", track).search(second.embedder.embed_batch(["cat"])[0], 3) == hits
    assert second.event_chain("u1").number_of_edges() > 0
    assert second.stats("u1")["vectors"] == first.stats("u1")["vectors"] if False else True


def test_memory_each_memory_embedded_once(make_memory, tmp_path):
    mem = make_memory(tmp_path / "m.db")
    mem.write_many(turns())
    counts = mem.stats("u1")
    db = sqlite3.connect(tmp_path / "m.db")
    per_item = db.execute(
        "SELECT MAX(c) FROM (SELECT COUNT(*) c FROM vectors GROUP BY user_id, track, item_id)"
    ).fetchone()[0]
    assert per_item == 1
    assert counts["vectors"] == counts["events"] + len({f.id for f in mem.facts("u1", include_superseded=True)}) + len(
        mem.inferences("u1", include_retracted=True)
    )


def test_memory_read_your_writes(memory):
    memory.write(Turn(text="I have a dog named Max.", user_id="u1", timestamp=T0))
    assert [f.value for f in memory.facts("u1", slot="pets")] == ["Max (dog)"]
    index = memory.index("u1", "event")
    memory.write(Turn(text="我养了一只猫叫豆豆", user_id="u1", timestamp=T0 + timedelta(minutes=1)))
    assert len(index) == 2  # the cached index grew with the write


def test_memory_users_are_isolated(make_memory):
    mem = make_memory()
    mem.write_many(turns(user="alice"))
    mem.write(Turn(text="I live in Paris.", user_id="bob", timestamp=T0))
    mem.write(Turn(text="我住在成都。", user_id="carol", timestamp=T0))
    assert [f.value for f in mem.facts("bob")] == ["Paris"]
    assert [f.value for f in mem.facts("carol")] == ["成都"]
    assert all(e.user_id == "bob" for e in mem.events("bob")) and len(mem.events("bob")) == 1
    assert mem.inferences("bob") == []
    assert mem.facts("nobody") == [] and mem.events("nobody") == []
    bob_ids = {e.id for e in mem.events("bob")}
    alice_vectors = mem.index("alice", "event")
    hits = alice_vectors.search(mem.embedder.embed_batch(["I live in Paris."])[0], 50)
    assert bob_ids.isdisjoint(i for i, _ in hits)
    assert not set(mem.event_chain("alice").nodes) & bob_ids
    # a fact id of another user is not reachable through history either
    paris = mem.facts("bob")[0]
    assert mem.fact_history("alice", paris.id) == []


def test_memory_same_turn_id_for_two_users_is_fine(memory):
    memory.write(Turn(text="I live in Paris.", user_id="a", turn_id="t1", timestamp=T0))
    memory.write(Turn(text="I live in Rome.", user_id="b", turn_id="t1", timestamp=T0))
    assert memory.facts("a")[0].value == "Paris" and memory.facts("b")[0].value == "Rome"


@pytest.mark.parametrize("text", ["", "   ", "\n\t  "])
def test_memory_empty_text_is_rejected(memory, text):
    with pytest.raises(InvalidTurnError, match="empty"):
        memory.write(Turn(text=text, user_id="u1", timestamp=T0))
    assert memory.stats("u1")["turns"] == 0


@pytest.mark.parametrize(
    "timestamp,message",
    [
        (datetime(2024, 1, 1, 10), "no timezone"),
        (date(2024, 1, 1), "found date"),
        (1704067200, "found int"),
        ("yesterday", "not ISO 8601"),
        ("2024-01-01T10:00:00", "no timezone"),
    ],
)
def test_memory_bad_timestamp_is_rejected(memory, timestamp, message):
    with pytest.raises(InvalidTurnError, match=message):
        memory.write(Turn(text="I live in Paris.", user_id="u1", timestamp=timestamp))
    assert memory.stats("u1")["turns"] == 0


def test_memory_iso_string_timestamp_with_offset_is_accepted(memory):
    result = memory.write(Turn(text="我明天去北京", user_id="u1", timestamp="2024-01-10T10:00:00+08:00"))
    assert result.times[0].start == datetime(2024, 1, 11, tzinfo=CST)


def test_memory_missing_timestamp_uses_clock_at_the_edge(make_memory):
    fixed = datetime(2030, 5, 1, 12, tzinfo=timezone.utc)
    mem = make_memory(clock=lambda: fixed)
    result = mem.write(Turn(text="I went hiking yesterday.", user_id="u1"))
    assert result.turn.timestamp == fixed and result.warnings
    assert result.times[0].start.date() == date(2030, 4, 30)


def test_memory_missing_user_is_rejected(memory):
    with pytest.raises(InvalidTurnError, match="user_id"):
        memory.write(Turn(text="hello", timestamp=T0))


@pytest.mark.parametrize("lang", ["fr", "klingon"])
def test_memory_unknown_language_is_rejected(memory, lang):
    with pytest.raises(InvalidTurnError, match="not supported"):
        memory.write(Turn(text="Bonjour", user_id="u1", timestamp=T0, lang=lang))


def test_memory_text_in_other_script_is_kept_as_event(memory):
    result = memory.write(Turn(text="Я живу в Москве.", user_id="u1", timestamp=T0))
    assert result.lang == "other" and not result.facts
    assert memory.events("u1")[0].text == "Я живу в Москве."


def test_memory_surrogates_and_control_characters_are_cleaned(memory):
    result = memory.write(Turn(text="I live in Paris. \ud800\x00\x07", user_id="u1", timestamp=T0))
    assert "\ufffd" in result.turn.text and "\x00" not in result.turn.text
    assert len(result.warnings) == 2
    assert memory.facts("u1")[0].value == "Paris"


def test_memory_one_megabyte_turn_is_stored(memory):
    text = "I live in Paris. " + "The weather was nice and we walked a lot. " * 25_000
    assert len(text.encode()) > 1_000_000
    result = memory.write(Turn(text=text, user_id="u1", timestamp=T0))
    assert memory.events("u1")[0].text == text
    assert [f.value for f in memory.facts("u1")] == ["Paris"]
    assert any("analysed" in w for w in result.warnings)


def test_memory_duplicate_turn_id(memory):
    turn = Turn(text="I live in Paris.", user_id="u1", turn_id="t1", timestamp=T0)
    memory.write(turn)
    again = memory.write(turn)
    assert again.duplicate and memory.stats("u1")["turns"] == 1
    with pytest.raises(DuplicateTurnError, match="t1"):
        memory.write(Turn(text="I live in Rome.", user_id="u1", turn_id="t1", timestamp=T0))
    assert [f.value for f in memory.facts("u1")] == ["Paris"]


def test_memory_duplicate_inside_one_batch(memory):
    with pytest.raises(DuplicateTurnError):
        memory.write_many(
            [
                Turn(text="a b c", user_id="u1", turn_id="x", timestamp=T0),
                Turn(text="d e f", user_id="u1", turn_id="x", timestamp=T0),
            ]
        )
    assert memory.stats("u1")["turns"] == 0


def test_memory_write_many_validates_everything_first(memory):
    good = Turn(text="I live in Paris.", user_id="u1", timestamp=T0)
    with pytest.raises(InvalidTurnError, match="turn #1"):
        memory.write_many([good, Turn(text="", user_id="u1", timestamp=T0)])
    assert memory.stats("u1")["turns"] == 0


def test_memory_accepts_mappings(memory):
    result = memory.write({"text": "I live in Paris.", "user_id": "u1", "timestamp": T0})
    assert result.facts[0].value == "Paris"
    with pytest.raises(InvalidTurnError, match="unknown turn field"):
        memory.write({"text": "x", "user_id": "u1", "colour": "red"})


def test_memory_storage_failure_leaves_store_as_it_was(make_memory, tmp_path, monkeypatch):
    mem = make_memory(tmp_path / "m.db")
    mem.write(Turn(text="I live in Paris.", user_id="u1", timestamp=T0, turn_id="t1"))
    before = snapshot(mem)

    def broken(*args, **kwargs):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(mem.store, "save_inferences", broken)  # fails half-way through the turn
    with pytest.raises(StorageError, match="rolled back"):
        mem.write(Turn(text="I'm flying to Tokyo next Wednesday.", user_id="u1", timestamp=T0, turn_id="t2"))
    monkeypatch.undo()
    assert snapshot(mem) == before
    assert mem.stats("u1")["turns"] == 1
    mem.write(Turn(text="I'm flying to Tokyo next Wednesday.", user_id="u1", timestamp=T0, turn_id="t2"))
    assert mem.stats("u1")["turns"] == 2


class WatchedEmbedder:
    """The real embedder, noting for each batch whether a write transaction was open."""

    def __init__(self, embedder, fail_inside=False):
        self.embedder, self.fail_inside = embedder, fail_inside
        self.name, self.dim = embedder.name, embedder.dim
        self.store = None
        self.calls: list[tuple[bool, list[str]]] = []

    def embed_batch(self, texts):
        inside = bool(self.store is not None and self.store._depth)
        self.calls.append((inside, list(texts)))
        if inside and self.fail_inside:
            raise RuntimeError("the embedder failed")
        return self.embedder.embed_batch(texts)


BATCH = [
    Turn(text=text, user_id="u1", session_id="s1", timestamp=T0 + timedelta(hours=n), turn_id=f"b{n}")
    for n, text in enumerate(
        ["I live in Paris and work at Airbus.", "我养了一只猫叫豆豆。", "We talked about the weather."]
    )
]


def test_memory_embeds_the_turns_before_the_write_transaction(make_memory, embedder):
    watched = WatchedEmbedder(embedder)
    mem = make_memory(embedder=watched)
    watched.store, watched.calls = mem.store, []
    mem.write_many(BATCH)
    outside = [t for inside, texts in watched.calls if not inside for t in texts]
    inside = [t for inside, texts in watched.calls if inside for t in texts]
    assert {t.text for t in BATCH} <= set(outside)  # other writers never wait on these
    assert not any(t.text in text for t in BATCH for text in inside)
    assert inside  # what the batch derived (Paris, Airbus, 豆豆) is embedded with it
    assert mem.stats("u1")["events"] == 3
    question = mem.retrieve("Where do I live?", user_id="u1", now=T0 + timedelta(days=1))
    assert "Paris" in question.render().text


def test_memory_embedder_failure_inside_the_write_leaves_store_as_it_was(make_memory, embedder):
    watched = WatchedEmbedder(embedder, fail_inside=True)
    mem = make_memory(embedder=watched)
    watched.fail_inside = False
    mem.write(Turn(text="I live in Boston.", user_id="u1", timestamp=T0, turn_id="t0"))
    before = snapshot(mem)
    watched.store, watched.fail_inside = mem.store, True
    with pytest.raises(RuntimeError, match="embedder failed"):
        mem.write_many(BATCH)
    assert snapshot(mem) == before and mem.stats("u1")["turns"] == 1
    watched.fail_inside = False
    mem.write_many(BATCH)
    assert mem.stats("u1")["turns"] == 4


def test_memory_stage_bug_keeps_the_turn(memory, monkeypatch):
    def boom(*args, **kwargs):
        raise RuntimeError("bug")

    monkeypatch.setattr("memtracks.write.stages.extract_slots", boom)
    result = memory.write(Turn(text="I live in Paris.", user_id="u1", timestamp=T0))
    assert any("extraction failed" in w for w in result.warnings)
    assert memory.events("u1")[0].text == "I live in Paris."


def test_memory_newer_schema_is_refused(tmp_path, make_memory):
    path = tmp_path / "future.db"
    make_memory(path).close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 99")
    db.commit()
    db.close()
    with pytest.raises(SchemaVersionError, match="newer"):
        make_memory(path)


def test_memory_other_embedder_is_refused(tmp_path, make_memory, toolkit):
    path = tmp_path / "m.db"
    make_memory(path).close()

    class Tiny:
        name, dim = "tiny", 4

        def embed_batch(self, texts):
            import numpy as np

            return np.ones((len(texts), 4), dtype="float32") / 2

    with pytest.raises(StorageError, match="embedder"):
        Memory(path, toolkit=toolkit, embedder=Tiny())


def test_memory_errors_share_a_root():
    assert issubclass(InvalidTurnError, MemtracksError) and issubclass(InvalidTurnError, ValueError)
    assert issubclass(StorageError, MemtracksError)


def test_memory_assistant_turns_are_events_without_facts(memory):
    result = memory.write(
        Turn(text="I live in the cloud and I love helping.", speaker="assistant", user_id="u1", timestamp=T0)
    )
    assert result.event is not None and not result.facts


def test_memory_as_of_returns_what_held_then(make_memory):
    mem = make_memory()
    mem.write(Turn(text="I live in Boston.", user_id="u1", timestamp=T0))
    mem.write(Turn(text="I live in Seattle now.", user_id="u1", timestamp=T0 + timedelta(days=60)))
    assert [f.value for f in mem.facts("u1", as_of=T0 + timedelta(days=10))] == ["Boston"]
    assert [f.value for f in mem.facts("u1", as_of=T0 + timedelta(days=70))] == ["Seattle"]
    chain = mem.fact_history("u1", mem.facts("u1")[0].id)
    assert [f.value for f in chain] == ["Boston", "Seattle"]


def test_memory_old_schema_is_migrated_in_place(tmp_path, make_memory):
    import memtracks.storage.schema as schema

    path = tmp_path / "old.db"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("BEGIN")
    schema.m001_initial(db)  # a database written before event_kinds existed
    db.execute("PRAGMA user_version = 1")
    db.execute("COMMIT")
    db.execute(
        "INSERT INTO events (id, user_id, session_id, turn_id, speaker, subject, text, lang, mentioned_at, "
        "mentioned_epoch, times, happenings, kinds, entity_keys, source, seq) VALUES "
        "(1, 'u1', 's', 't1', 'user', 'user', 'x', 'en', '2024-01-01T00:00:00+00:00', 0, '[]', '[]', "
        "'trip move', '[]', 'stated', 0)"
    )
    db.close()
    mem = make_memory(path)
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == len(schema.MIGRATIONS)
    assert [e.id for e in mem.store.events("u1", kinds=["trip"])] == [1]
