"""Managing what is kept: get, forget (real erasure with its cascade), correct, retract,
rebuild — in English and Chinese, other users untouched."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone

import pytest

from memtracks import Turn
from memtracks.errors import InvalidTurnError, NotFoundError
from memtracks.storage.erase import erasures

pytestmark = pytest.mark.backends  # every test here runs on SQLite and on Postgres


CST = timezone(timedelta(hours=8))
T0 = datetime(2024, 3, 1, 9, tzinfo=CST)


def say(mem, user, texts, session="s1", start=0, **kw):
    return mem.write_many(
        [
            Turn(
                t,
                user_id=user,
                session_id=session,
                turn_id=f"{session}-{start + i}",
                timestamp=T0 + timedelta(days=start + i),
                **kw,
            )
            for i, t in enumerate(texts)
        ]
    )


def current(mem, user, slot, **kw):
    return sorted(f.value for f in mem.facts(user, slot=slot, **kw))


def everything_of(path, user):
    """Every row of every table that belongs to ``user``, straight from the file."""
    db = sqlite3.connect(path)
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table' AND name != 'meta'")]
    return {t: db.execute(f"SELECT COUNT(*) FROM {t} WHERE user_id = ?", (user,)).fetchone()[0] for t in tables}


# ---------------------------------------------------------------------- get


def test_get_each_kind_of_memory(memory):
    [r] = say(memory, "u1", ["I moved to Shanghai last month."], session="s9")
    fact, event = r.facts[0], r.event
    assert memory.get("u1", f"fact:{fact.id}") == fact
    assert memory.get("u1", fact.id, kind="fact") == fact
    assert memory.get("u1", f"event:{event.id}").text == "I moved to Shanghai last month."
    inference = r.inferences[0]
    assert memory.get("u1", f"inference:{inference.id}").text == inference.text
    turn = memory.get("u1", "s9-0")
    assert turn.text == event.text and turn.session_id == "s9" and turn.timestamp == T0
    assert memory.get("u1", "nope") is None and memory.get("other", f"fact:{fact.id}") is None
    with pytest.raises(InvalidTurnError):
        memory.get("u1", 3)  # a bare number does not say which track


# ---------------------------------------------------------------------- forget


@pytest.mark.parametrize(
    "first,second,old,new,slot",
    [
        ("I live in Boston.", "I moved to Seattle.", "Boston", "Seattle", "lives_in"),
        ("我住在北京。", "我搬到深圳了。", "北京", "深圳", "lives_in"),
    ],
)
def test_forget_a_turn_reopens_what_its_fact_superseded(memory, first, second, old, new, slot):
    say(memory, "u1", [first, "The weather is nice.", second])
    assert current(memory, "u1", slot) == [new]
    report = memory.forget("u1", turn_ids=["s1-2"])
    assert report.turns == 1 and report.events == 1 and report.facts >= 1 and report.reopened
    assert current(memory, "u1", slot) == [old]
    reopened = memory.facts("u1", slot=slot)[0]
    assert reopened.superseded_by is None and reopened.valid_to is None and reopened.reason is None
    assert memory.get("u1", "s1-2") is None
    assert all(e.turn_id != "s1-2" for e in memory.events("u1"))
    assert all("s1-2" not in f.source_turn_ids for f in memory.facts("u1", include_superseded=True))
    recall = memory.retrieve(
        "Where do I live now?" if slot == "lives_in" and old.isascii() else "我现在住哪？",
        user_id="u1",
        now=T0 + timedelta(days=10),
    )
    assert old in recall.cards[0].text and all(new not in c.text for c in recall.cards)


def test_forget_keeps_a_fact_other_turns_still_support(memory):
    say(memory, "u1", ["I live in Boston.", "As I said, I live in Boston."])
    fact = memory.facts("u1", slot="lives_in")[0]
    assert fact.mention_count == 2
    memory.forget("u1", turn_ids=["s1-0"])
    [kept] = memory.facts("u1", slot="lives_in")
    assert kept.id == fact.id and kept.source_turn_ids == ("s1-1",) and kept.mention_count == 1


def test_forget_chain_in_the_middle_reopens_to_the_right_place(memory):
    say(memory, "u1", ["I live in Boston.", "I moved to Denver.", "I moved to Seattle."])
    memory.forget("u1", turn_ids=["s1-1"])  # Denver never said: Boston was followed by Seattle
    history = memory.facts("u1", slot="lives_in", include_superseded=True)
    boston = next(f for f in history if f.value == "Boston")
    seattle = next(f for f in history if f.value == "Seattle")
    assert boston.superseded_by == seattle.id and boston.reason == "replaced"
    assert [f.value for f in memory.fact_history("u1", seattle.id)] == ["Boston", "Seattle"]


def test_forget_cascades_to_inferences_vectors_links_and_names(make_memory, tmp_path):
    path = tmp_path / "m.db"
    mem = make_memory(path)
    say(
        mem,
        "u1",
        ["I have a cat named Luna.", "I'm flying to Tokyo next Wednesday for work.", "Luna has not been eating well."],
    )
    assert mem.inferences("u1") and "Luna" in mem.store.names("u1")
    index = mem.index("u1", "event")
    before = len(index)
    report = mem.forget("u1", turn_ids=["s1-0", "s1-2"])
    assert report.names == 1 and "Luna" not in mem.store.names("u1")
    assert len(mem.index("u1", "event")) == before - 2  # the cached index was rebuilt
    left = {e.id for e in mem.events("u1")}
    graph = mem.event_chain("u1")
    assert set(graph.nodes) <= left
    for inference in mem.inferences("u1", include_retracted=True):
        assert all(p.id in left for p in inference.premises if p.track == "event")
    rows = everything_of(path, "u1")
    assert rows["turns"] == 1 and rows["events"] == 1
    assert rows["vectors"] == rows["events"] + rows["facts"] + rows["inferences"]


def test_forget_other_users_untouched(make_memory, tmp_path):
    path = tmp_path / "m.db"
    mem = make_memory(path)
    for user in ("alice", "bob"):
        say(mem, user, ["I live in Boston and work at Google.", "我养了一只猫叫豆豆", "I moved to Seattle."])
    mem.write(Turn("I live in Paris.", user_id="alice", agent_id="travel", timestamp=T0))
    bob_before = everything_of(path, "bob")
    bob_recall = mem.retrieve("Where do I live?", user_id="bob", now=T0 + timedelta(days=5))
    report = mem.forget("alice", everything=True)
    assert report.turns == 3
    assert everything_of(path, "bob") == bob_before
    assert [c.text for c in mem.retrieve("Where do I live?", user_id="bob", now=T0 + timedelta(days=5)).cards] == [
        c.text for c in bob_recall.cards
    ]
    audit = ("erasures", "erased_items")  # when and how many, and the erased ids: no content
    assert all(v == 0 for k, v in everything_of(path, "alice").items() if k not in audit)
    assert current(mem, "alice", "lives_in", agent_id="travel") == ["Paris"]  # another scope
    assert mem.retrieve("Where do I live?", user_id="alice", now=T0).cards == []


def test_forget_is_real_deletion_with_an_audit_record_without_content(make_memory, tmp_path):
    path = tmp_path / "m.db"
    mem = make_memory(path)
    secret = "My passport number is XK9931772 and I live in Reykjavik."
    say(mem, "u1", ["I like tea.", secret, "我的银行卡密码是八八六六"])
    mem.forget("u1", turn_ids=["s1-1", "s1-2"])
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("m.db*") if p.is_file())
    assert b"XK9931772" not in raw and b"Reykjavik" not in raw and "八八六六".encode() not in raw
    assert b"I like tea" in raw
    [audit] = erasures(mem.store, "u1")
    assert audit["counts"]["turns"] == 2 and audit["selector"]["turn_ids"] == "given"
    assert "XK9931772" not in str(audit) and "s1-1" not in str(audit)


def test_forget_by_session_and_before(memory):
    say(memory, "u1", ["I live in Boston."], session="a")
    say(memory, "u1", ["I work at Google.", "我喜欢喝茶"], session="b", start=5)
    assert memory.forget("u1", session_id="b", before=T0 + timedelta(days=6)).turns == 1
    assert [e.turn_id for e in memory.events("u1")] == ["a-0", "b-6"]
    assert memory.forget("u1", before=T0 + timedelta(days=1)).turns == 1
    with pytest.raises(InvalidTurnError):
        memory.forget("u1")
    with pytest.raises(InvalidTurnError):
        memory.forget("u1", everything=True, session_id="b")


def test_forget_vacuum_leaves_a_smaller_file(make_memory, tmp_path):
    path = tmp_path / "m.db"
    mem = make_memory(path)
    say(mem, "u1", [f"Day {i}: I went hiking on the ridge trail with my friends." for i in range(40)])
    mem.store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # everything in the main file
    size = path.stat().st_size
    mem.forget("u1", everything=True, vacuum=True)
    assert path.stat().st_size < size


# ---------------------------------------------------------------------- correct, retract


@pytest.mark.parametrize(
    "text,wrong,right,question",
    [
        ("I live in Boston.", "Boston", "Cambridge", "Where do I live?"),
        ("我住在北京。", "北京", "天津", "我住在哪里？"),
    ],
)
def test_correct_supersedes_with_reason_and_keeps_history(memory, text, wrong, right, question):
    say(memory, "u1", [text])
    fact = memory.facts("u1", slot="lives_in")[0]
    fixed = memory.correct("u1", fact.id, value=right)
    assert fixed.value == right and fixed.valid_from == fact.valid_from and fixed.origin == "user.correct"
    assert current(memory, "u1", "lives_in") == [right]
    old = memory.get("u1", f"fact:{fact.id}")
    assert old.superseded_by == fixed.id and old.reason == "corrected"
    assert [f.value for f in memory.fact_history("u1", fixed.id)] == [wrong, right]
    cards = memory.retrieve(question, user_id="u1", now=T0 + timedelta(days=1)).cards
    assert right in cards[0].text and all(wrong not in c.text for c in cards if c.track == "fact")
    assert memory.facts("u1", slot="lives_in", as_of=T0 + timedelta(hours=1))[0].value == wrong


def test_correct_retracts_conclusions_of_the_wrong_value(memory):
    say(memory, "u1", ["I live in Boston.", "I'm flying to Paris next Friday."])
    [away] = [i for i in memory.inferences("u1") if "Boston" in i.text]
    boston = memory.facts("u1", slot="lives_in")[0]
    memory.correct("u1", boston.id, value="Cambridge")
    assert away.id not in {i.id for i in memory.inferences("u1")}
    gone = memory.get("u1", f"inference:{away.id}")
    assert gone.status == "retracted" and f"#{boston.id}" in gone.retracted_because


def test_retract_reopens_what_it_superseded_and_is_kept(memory):
    say(memory, "u1", ["I live in Boston.", "I moved to Seattle."])
    seattle = memory.facts("u1", slot="lives_in")[0]
    retracted = memory.retract("u1", seattle.id)
    assert retracted.reason == "retracted" and not retracted.is_current
    assert current(memory, "u1", "lives_in") == ["Boston"]
    assert "Seattle" in [f.value for f in memory.facts("u1", slot="lives_in", include_superseded=True)]
    with pytest.raises(NotFoundError):
        memory.retract("u1", 999_999)


@pytest.mark.parametrize(
    "texts,place",
    [
        (["I live in Boston.", "I'm flying to Paris next Friday.", "I don't live in Boston anymore."], "Boston"),
        (["我住在北京。", "我下周三要去上海出差", "我不住在北京了。"], "北京"),
    ],
)
def test_retract_brings_back_conclusions_of_the_reopened_fact(memory, texts, place):
    say(memory, "u1", texts[:2])
    away = {i.id for i in memory.inferences("u1") if place in i.text}
    assert away
    say(memory, "u1", texts[2:], start=2)
    assert not away & {i.id for i in memory.inferences("u1")}
    marker = next(f for f in memory.facts("u1", slot="lives_in", include_negated=True) if f.negated)
    memory.retract("u1", marker.id)
    assert current(memory, "u1", "lives_in") == [place]
    assert away <= {i.id for i in memory.inferences("u1")}


# ---------------------------------------------------------------------- rebuild


def test_rebuild_rederives_and_replays_corrections(make_memory):
    mem = make_memory()
    say(
        mem, "u1", ["I live in Boston and work at Google.", "I'm flying to Tokyo next Wednesday.", "我养了一只猫叫豆豆"]
    )
    employer = mem.facts("u1", slot="employer")[0]
    mem.correct("u1", employer.id, value="Alphabet")
    before = (
        [(f.slot, f.value, f.is_current) for f in mem.facts("u1", include_superseded=True)],
        [e.text for e in mem.events("u1")],
        sorted(i.text for i in mem.inferences("u1")),
    )
    report = mem.rebuild("u1")
    after = (
        [(f.slot, f.value, f.is_current) for f in mem.facts("u1", include_superseded=True)],
        [e.text for e in mem.events("u1")],
        sorted(i.text for i in mem.inferences("u1")),
    )
    assert report.turns == 3 and report.replayed == 1 and report.unmatched == 0
    assert after == before
    assert current(mem, "u1", "employer") == ["Alphabet"]
    assert "Alphabet" in mem.retrieve("Where do I work?", user_id="u1", now=T0 + timedelta(days=4)).cards[0].text


@pytest.mark.parametrize(
    "texts,place",
    [
        (["I live in Boston.", "I'm flying to Paris next Friday."], "Boston"),
        (["我住在北京。", "我下周三要去上海出差"], "北京"),
    ],
)
def test_forget_a_premise_removes_the_conclusion_but_keeps_the_other_premise(memory, texts, place):
    say(memory, "u1", texts)
    assert any(place in i.text for i in memory.inferences("u1"))
    trip_event = memory.events("u1")[1]
    memory.forget("u1", turn_ids=["s1-0"])
    assert not any(place in i.text for i in memory.inferences("u1", include_retracted=True))
    assert memory.facts("u1", slot="lives_in") == []
    assert [e.id for e in memory.events("u1")] == [trip_event.id]  # the trip itself stays
    recall = memory.retrieve(
        "Where am I going?" if place.isascii() else "我要去哪里？", user_id="u1", now=T0 + timedelta(days=2)
    )
    assert recall.cards and all(place not in c.text for c in recall.cards)


@pytest.mark.parametrize(
    "said,fix,slot,wrong,right,moved",
    [
        (["I'm 34.", "Sorry, typo: I'm 43, not 34"], None, "age", "34", "43", None),
        (["我34岁。", "不好意思打错了，我是43岁"], None, "age", "34", "43", None),
        (["I live in Boston.", "I moved to Chicago."], "Denver", "lives_in", "Chicago", "Denver", "Boston"),
        (["我住在北京。", "我搬到深圳了。"], "广州", "lives_in", "深圳", "广州", "北京"),
    ],
)
def test_corrections_and_retractions_end_facts_alike(make_memory, said, fix, slot, wrong, right, moved):
    """A correction said in a turn, a correction by hand and a retraction all end a fact the
    same way: a void reason (it never held: valid_to is where it began), the fact that
    replaced it, and superseded_at the time memtracks learned it (the turn's, or the clock's)."""
    clock = [T0 + timedelta(days=30)]
    mem = make_memory(clock=lambda: clock[0])
    say(mem, "u1", said)
    if fix is not None:
        old = next(f for f in mem.facts("u1", slot=slot) if f.value == wrong)
        mem.correct("u1", old.id, value=fix)
    facts = {f.value: f for f in mem.facts("u1", slot=slot, include_superseded=True)}
    old, new = facts[wrong], facts[right]
    learned = clock[0] if fix is not None else T0 + timedelta(days=1)
    assert old.reason == "corrected" and old.superseded_by == new.id
    assert old.valid_to == old.valid_from and old.superseded_at == learned
    assert new.valid_from == old.valid_from and new.is_current and new.superseded_at is None
    if moved is not None:  # what the wrong value had replaced stays replaced, learned when it was said
        assert facts[moved].reason == "replaced" and facts[moved].superseded_at == T0 + timedelta(days=1)
    before = mem.facts("u1", slot=slot, as_of=learned - timedelta(minutes=1))
    assert [f.value for f in before] == [wrong]  # known before the correction: the old value held

    clock[0] = T0 + timedelta(days=40)
    gone = mem.retract("u1", new.id)
    assert gone.reason == "retracted" and gone.superseded_by is None
    assert gone.valid_to == gone.valid_from and gone.superseded_at == clock[0]
    assert [f.value for f in mem.facts("u1", slot=slot, as_of=clock[0] - timedelta(minutes=1))] == [right]
