"""``Memory.audit()`` / ``memtracks audit`` count what is wrong with a memory, per user."""

from __future__ import annotations

import json
from dataclasses import replace

from conftest import at

from memtracks.config import MemoryConfig, WriterConfig
from memtracks.interfaces.cli import main

T0 = at(2024, 6, 1, 9)
NO_GATE = MemoryConfig(writer=WriterConfig(gate=False))


def _write(mem, user, texts, start=0):
    for n, text in enumerate(texts):
        mem.write(text, user_id=user, timestamp=at(2024, 6, 1 + (start + n) // 20, 9, (start + n) % 20))


def test_audit_clean_memory_has_nothing_to_report(memory):
    _write(memory, "u", ["I moved to Lisbon last month.", "My sister Anna is a nurse.", "我喜欢爬山。"])
    report = memory.audit("u")
    assert report.totals == dict.fromkeys(report.totals, 0)
    assert report.users[0].memories["events"] == 3


def test_audit_duplicates_and_near_duplicates_en_zh(memory):
    _write(
        memory,
        "u",
        [
            "I moved to Lisbon last month.",
            "i moved to Lisbon last month!",  # the same words: a duplicate event, and conclusion
            "I just adopted a puppy named Max.",
            "I just adopted a little puppy called Max!",  # near-duplicate
            "我刚领养了一只叫旺财的小狗。",
            "我刚刚领养了一只小狗，叫旺财！",  # near-duplicate
            "Thanks!",
            "Thanks!",  # greetings are noise, not duplicates
        ],
    )
    u = memory.audit("u").users[0]
    assert u.counts["duplicate"] == 2 and u.examples["duplicate"] == ["event:2", "inference:2"]
    assert memory.get("u", "inference:2").text == memory.get("u", "inference:1").text
    assert u.counts["near_duplicate"] == 2
    assert set(u.examples["near_duplicate"]) == {"event:4", "event:6"}
    assert u.noise_turns == 2


def test_audit_finds_junk_written_without_the_gate(make_memory, tmp_path):
    path = tmp_path / "old.db"
    old = make_memory(path, config=NO_GATE)
    _write(
        old,
        "u",
        [
            "I live in Boston.",
            "[event] 2024-05-20 user: I moved to Denver last month (conf 0.80)",
            "相关记忆（截至 2024-06-01）：\n[时序] 2024-05-20 user：我搬到杭州了（置信度 0.80）",
        ],
    )
    old.close()
    mem = make_memory(path)
    u = mem.audit("u").users[0]
    assert u.counts["junk"] == 2
    junk = [mem.get("u", ref) for ref in u.examples["junk"]]
    assert sorted(f.value for f in junk) == ["Denver", "杭州"]
    assert u.noise_turns == 2


def test_audit_stale_and_orphan_in_a_damaged_store(memory):
    """A store whose writer once failed to supersede and to retract (say, an older version)."""
    _write(memory, "u", ["I work at Google.", "我住在北京。", "我下周三要飞去东京。"])
    store = memory.store
    google = memory.facts("u", slot="employer")[0]
    beijing = memory.facts("u", slot="lives_in")[0]
    with store.transaction():
        store.save_facts(
            [
                replace(google, id=store.next_id("facts"), value="Meta", value_key="meta", valid_from=at(2024, 7, 1)),
                replace(beijing, valid_to=at(2024, 7, 1), reason="ended"),  # ended, its conclusions kept
            ]
        )
    resting = store.inferences_resting_on("u", [beijing.id])
    u = memory.audit("u").users[0]
    assert u.counts["stale"] == 1 and u.examples["stale"] == [f"fact:{google.id}"]
    assert len(resting) == 1 and u.examples["orphan"] == [f"inference:{resting[0].id}"]


def test_audit_counts_per_user_and_never_mixes_them(memory):
    _write(memory, "alice", ["I went to the library today.", "I went to the library today."])
    _write(memory, "bob", ["我住在杭州。"])
    report = memory.audit()
    by_user = {u.user_id: u for u in report.users}
    assert by_user["alice"].counts["duplicate"] == 1
    assert by_user["bob"].counts["duplicate"] == 0
    assert report.totals["duplicate"] == 1


def test_audit_cli_text_and_json(make_memory, tmp_path, capsys):
    path = tmp_path / "m.db"
    mem = make_memory(path)
    _write(mem, "u", ["我今天去了图书馆。", "我今天去了圖書館！"])
    mem.close()
    assert main(["--db", str(path), "audit", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["totals"]["duplicate"] == 1
    assert data["users"][0]["user_id"] == "u"
    assert data["users"][0]["examples"]["duplicate"] == ["event:2"]
    assert main(["--db", str(path), "audit", "--user", "u"]) == 0
    out = capsys.readouterr().out
    assert "duplicate" in out and "u duplicate: event:2" in out
    assert main(["--db", str(path), "audit", "--strict"]) == 1
