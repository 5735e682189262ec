"""A worker opens fast, whoever wrote last: opening compiles nothing the reader does not need,
``Memory.warm`` loads at start what the first question would load (models, and each user's
indexes from their snapshots, or built and saved for the next process), and
``Memory.bulk_load`` leaves the indexes of what it loaded ready and saved."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from benchmarks.bench_backends import inflate
from memtracks import Memory, Turn
from memtracks.config import MemoryConfig
from memtracks.data.patterns import default_happening_patterns, default_slot_patterns
from memtracks.errors import InvalidTurnError, UnsupportedLanguageError
from memtracks.toolkit import Toolkit

T0 = datetime(2024, 3, 1, 9, tzinfo=timezone.utc)
NOW = T0 + timedelta(days=60)
SAID = {
    "mia": [
        "I finally adopted a rescue greyhound, we named him Biscuit.",
        "My sister Laura is getting married in Porto next June.",
        "Biscuit chewed through my running shoes again.",
        "I started a pottery class on Tuesday evenings.",
    ],
    "ken": [
        "我上个月搬到了杭州，离西湖很近。",
        "周末我们去成都吃了火锅，太辣了。",
        "我下周三要去深圳出差。",
        "我女儿今年开始学钢琴了。",
    ],
}
QUESTIONS = {"mia": "What is the name of my dog?", "ken": "我下周要去哪里出差？"}
SMALL = MemoryConfig(snapshot_min=1)  # these memories are tiny: save their snapshots anyway


def turns(user: str) -> list[Turn]:
    return [
        Turn(text, user_id=user, session_id="s1", turn_id=f"{user}{n}", timestamp=T0 + timedelta(days=n))
        for n, text in enumerate(SAID[user])
    ]


def cards(mem, user: str) -> list[str]:
    return [c.text for c in mem.retrieve(QUESTIONS[user], user_id=user, now=NOW).cards]


def test_the_writer_patterns_are_compiled_when_first_read_not_when_the_toolkit_is_built(toolkit):
    fresh = Toolkit(nlp=toolkit.nlp)
    assert "slot_patterns" not in fresh.__dict__ and "happening_patterns" not in fresh.__dict__
    assert fresh.slot_patterns is default_slot_patterns()
    assert fresh.happening_patterns is default_happening_patterns()
    given = Toolkit(nlp=toolkit.nlp, slot_patterns=(), happening_patterns=default_happening_patterns()[:2])
    assert given.slot_patterns == () and len(given.happening_patterns) == 2


def test_warm_loads_each_users_indexes_and_saves_them_for_the_next_process(make_memory, tmp_path):
    db = tmp_path / "m.db"
    with make_memory(db, config=SMALL) as first:
        for user in SAID:
            first.write_many(turns(user))
        want = {user: cards(first, user) for user in SAID}
    for path in (tmp_path / "m.db.snapshots").glob("*"):
        path.unlink()  # as if no process had ever asked: nothing saved
    worker = make_memory(db, config=SMALL)
    warmed = worker.warm(["mia", "ken"])
    assert [p.scope for p in warmed.scopes] == ["mia", "ken"]
    assert all(p.items >= len(SAID[p.scope]) for p in warmed.scopes)
    assert all(p.loaded == 0 and p.saved > 0 for p in warmed.scopes)  # built, and saved at once
    assert warmed.models_seconds > 0 and warmed.indexes_seconds >= 0
    assert {user: cards(worker, user) for user in SAID} == want
    worker.close()

    second = make_memory(db, config=SMALL)
    again = second.warm("ken")
    assert again.scopes[0].loaded > 0 and again.scopes[0].saved == 0  # read, not built
    assert second.indexes.cached() == ["ken"]
    assert cards(second, "ken") == want["ken"]


def test_warm_after_another_process_wrote_reads_only_what_is_new(make_memory, tmp_path):
    db = tmp_path / "m.db"
    with make_memory(db, config=SMALL) as first:
        first.write_many(turns("mia")[:3])
        first.warm("mia")
    writer = make_memory(db, config=SMALL)
    writer.write_many(turns("mia")[3:])  # never built an index: saves nothing
    writer.close()
    worker = make_memory(db, config=SMALL)
    prepared = worker.warm("mia").scopes[0]
    assert prepared.loaded > 0  # the saved indexes, and the turn written since read in on top
    pottery = next(e.id for e in worker.events("mia") if e.turn_id == "mia3")
    assert pottery in worker.index("mia", "event") and pottery in worker.lexical_index("mia", "event")
    assert "pottery" in " ".join(c.text for c in worker.retrieve("pottery class", user_id="mia", now=NOW).cards)


def test_warm_checks_its_arguments_and_writes_nothing_when_read_only(make_memory, tmp_path):
    db = tmp_path / "m.db"
    with make_memory(db, config=SMALL) as first:
        first.write_many(turns("ken"))
        want = cards(first, "ken")
    for path in (tmp_path / "m.db.snapshots").glob("*"):
        path.unlink()
    with pytest.raises(InvalidTurnError, match="user_id"):
        make_memory(db).warm(["ken", ""])
    reader = make_memory(db, config=SMALL, read_only=True)
    prepared = reader.warm("ken").scopes[0]
    assert prepared.saved == 0 and not list((tmp_path / "m.db.snapshots").glob("*.index"))
    assert cards(reader, "ken") == want


@pytest.mark.backends
def test_a_bulk_load_leaves_the_indexes_of_what_it_loaded_ready(make_memory, backend, tmp_path):
    where = tmp_path / "m.db" if backend == "sqlite" else ":memory:"
    mem = make_memory(where, config=SMALL)
    for user in SAID:
        mem.write_many(turns(user))
    cards(mem, "mia")  # this process holds mia's indexes before the load
    with mem.bulk_load() as store:
        inflate(store, "mia", 40, np.random.default_rng(3), batch=10)
    assert mem.stats("mia")["events"] == 40
    loaded = [e.id for e in mem.events("mia") if "#" in e.turn_id]
    index, lexical = mem.index("mia", "event"), mem.lexical_index("mia", "event")
    assert all(i in index for i in loaded) and all(i in lexical for i in loaded)
    if backend == "sqlite":  # saved for the next process, which reads them instead of building
        mem.close()
        later = make_memory(where, config=SMALL)
        assert later.warm("mia").scopes[0].loaded > 0
    else:  # the postings every process searches are up to date in the database
        status = mem.store.lexical_status("mia", "event")
        assert status["synced"] >= status["now_max_id"]


@pytest.mark.backends
def test_a_failed_bulk_load_leaves_the_store_and_the_indexes_as_they_were(make_memory, backend, tmp_path):
    where = tmp_path / "m.db" if backend == "sqlite" else ":memory:"
    mem = make_memory(where, config=SMALL)
    mem.write_many(turns("ken"))
    before, answer = mem.stats("ken"), cards(mem, "ken")
    with pytest.raises(RuntimeError, match="stopped"):
        with mem.bulk_load() as store:
            inflate(store, "ken", 30, np.random.default_rng(1), batch=10)
            raise RuntimeError("stopped half-way")
    assert mem.stats("ken") == before and cards(mem, "ken") == answer
    assert len(mem.index("ken", "event")) == before["events"]


def test_the_store_names_the_users_a_load_wrote_to(memory):
    for user in SAID:
        memory.write_many(turns(user)[:2])
    firsts = {t: memory.store.next_id(t) for t in ("facts", "events", "inferences")}
    assert memory.store.scopes_written_from(firsts) == []
    memory.write_many(turns("ken")[2:])
    assert memory.store.scopes_written_from(firsts) == ["ken"]
    assert memory.store.scopes_written_from({"events": 0}) == ["ken", "mia"]
    with pytest.raises(ValueError, match="numbered"):
        memory.store.scopes_written_from({"turns": 0})


def test_a_bulk_load_whose_snapshots_cannot_be_saved_keeps_what_it_loaded(make_memory, tmp_path, caplog):
    db = tmp_path / "m.db"
    mem = make_memory(db, config=SMALL)
    mem.write_many(turns("mia"))
    (tmp_path / "m.db.snapshots").write_text("in the way")  # the folder cannot be made
    with mem.bulk_load() as store:
        inflate(store, "mia", 30, np.random.default_rng(2), batch=10)
    assert mem.stats("mia")["events"] == 30
    assert "could not save" in caplog.text
    assert cards(mem, "mia")  # the indexes are there, in memory


def test_warm_loads_the_tools_of_the_languages_named(embedder, tmp_path):
    english = Memory(tmp_path / "m.db", toolkit=Toolkit.load(), embedder=embedder)
    english.warm(languages=["en"], writes=False)
    assert "english" in english.toolkit.nlp.__dict__ and "chinese" not in english.toolkit.nlp.__dict__
    both = Memory(tmp_path / "m.db", toolkit=Toolkit.load(), embedder=embedder)
    both.warm(writes=False)
    assert {"english", "chinese"} <= set(both.toolkit.nlp.__dict__)
    with pytest.raises(UnsupportedLanguageError, match="fr"):
        english.warm(languages=["en", "fr"])
    english.close()
    both.close()
