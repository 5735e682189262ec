"""Consolidation with the real pipeline and the real USE embedder: near-duplicates fold,
restatements with more detail update in place, distinct look-alikes never merge, nothing is
deleted and ``undo`` restores every row exactly."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml

from memtracks.errors import ConsolidationError, InvalidInputError, NotFoundError
from memtracks.interfaces.cli import main
from memtracks.upkeep.consolidation import Relation, merge_metadata, relation

PAIRS = yaml.safe_load((Path(__file__).parent / "data" / "consolidation_pairs.yaml").read_text("utf-8"))["pairs"]
T0 = datetime(2024, 3, 4, 10, tzinfo=timezone.utc)
CST = timezone(timedelta(hours=8))


def cst(*args: int) -> datetime:
    return datetime(*args, tzinfo=CST)


def _say(mem, user, texts, start=T0, gap=timedelta(hours=2), **fields):
    for i, text in enumerate(texts):
        mem.write(text, user_id=user, session_id="s1", turn_id=f"{user}-{i}", timestamp=start + i * gap, **fields)


def _rows(mem):
    """Every row of every table that consolidation may touch, for exact comparisons."""
    db = mem.store.db
    return {
        table: sorted(tuple(r) for r in db.execute(f"SELECT * FROM {table}").fetchall())
        for table in ("facts", "events", "inferences", "inference_premises", "vectors", "merged_events")
    }


@pytest.mark.parametrize("case", PAIRS, ids=[c["id"] for c in PAIRS])
def test_hand_written_pairs(memory, case):
    start = cst(2024, 3, 4, 10) if case["lang"] == "zh" else T0
    _say(memory, "u", [case["first"], case["second"]], start=start, gap=timedelta(hours=case.get("gap_hours", 2)))
    report = memory.consolidate("u")
    folded = [a for a in report.actions if a.kind in ("merge", "update")]
    if case["expect"] == "separate":
        assert not folded, f"wrong merge: {report.diff()}"
    else:
        assert folded, f"missed: {report.diff()}"


def test_duplicate_event_folds_and_recall_credits_both_turns(memory):
    _say(memory, "u", ["I'm flying to Tokyo next week.", "Oh and I'm flying to Tokyo next week!"])
    before = memory.retrieve("When am I flying to Tokyo?", user_id="u", now=T0 + timedelta(days=1))
    report = memory.consolidate("u")
    assert report.counts()["merge"] == 1 and report.after["events"] == report.before["events"] - 1
    recall = memory.retrieve("When am I flying to Tokyo?", user_id="u", now=T0 + timedelta(days=1))
    trips = [c for c in recall.cards if c.track == "temporal" and "Tokyo" in c.text]
    assert len(trips) == 1 and set(trips[0].source_turn_ids) == {"u-0", "u-1"}
    cited = {t for c in before.cards for t in c.source_turn_ids}
    assert cited <= {t for c in recall.cards for t in c.source_turn_ids}
    survivor = memory.get("u", trips[0].ref)
    assert survivor.metadata["consolidated_from"] == ["event:2"]
    assert len(memory.events("u")) == 2  # the folded event is kept


def test_restated_fact_with_more_detail_updates_in_place_en_and_zh(memory):
    _say(memory, "en", ["I enjoy playing tennis.", "I enjoy playing tennis on weekends."])
    _say(memory, "zh", ["我喜欢看电影。", "我喜欢看科幻电影。"], start=cst(2024, 3, 4, 10))
    for user in ("en", "zh"):
        old = [f for f in memory.facts(user) if f.slot in ("likes", "hobbies")]  # enjoyed doing: a hobby
        assert len(old) == 2, old
        report = memory.consolidate(user)
        assert report.counts()["update"] == 1, report.diff()
        current = [f for f in memory.facts(user) if f.slot in ("likes", "hobbies")]
        assert len(current) == 1
        fact = current[0]
        assert fact.id == min(f.id for f in old)  # in place: the first fact keeps its id and start
        assert fact.value == max(old, key=lambda f: len(f.value)).value
        assert set(fact.source_turn_ids) == {f"{user}-0", f"{user}-1"} and fact.mention_count == 2
        merged = [f for f in memory.facts(user, include_superseded=True) if f.reason == "merged"]
        assert len(merged) == 1 and merged[0].superseded_by == fact.id


def test_undo_restores_every_row_exactly(memory):
    _say(
        memory,
        "u",
        [
            "I enjoy playing tennis.",
            "I'm flying to Tokyo next week.",
            "I enjoy playing tennis on weekends.",
            "I'm flying to Tokyo next week.",
        ],
    )
    rows = _rows(memory)
    report = memory.consolidate("u")
    assert report.operation_id and sum(report.counts()[k] for k in ("merge", "update")) == 2
    assert _rows(memory) != rows
    memory.undo(report.operation_id)
    assert _rows(memory) == rows
    assert memory.retrieve("What do I enjoy?", user_id="u", now=T0 + timedelta(days=1)).cards
    with pytest.raises(ConsolidationError, match="already undone"):
        memory.undo(report.operation_id)
    with pytest.raises(NotFoundError):
        memory.undo("cons-nope")


def test_undo_refuses_when_memories_changed_since(memory):
    _say(memory, "u", ["I enjoy playing tennis.", "I enjoy playing tennis on weekends."])
    report = memory.consolidate("u")
    fact = next(f for f in memory.facts("u") if f.slot == "hobbies")
    memory.retract("u", fact.id)
    rows = _rows(memory)
    with pytest.raises(ConsolidationError, match="changed since"):
        memory.undo(report.operation_id)
    assert _rows(memory) == rows


def test_dry_run_shows_the_diff_and_writes_nothing(memory):
    _say(memory, "u", ["我下个月去上海出差。", "我下个月去上海出差。"], start=cst(2024, 3, 4, 10))
    rows = _rows(memory)
    report = memory.consolidate("u", dry_run=True)
    assert report.operation_id is None and report.counts()["merge"] == 1
    assert "- 我下个月去上海出差。" in report.diff() and "would change" in report.diff()
    assert report.after["events"] == report.before["events"] - 1
    assert _rows(memory) == rows


def test_imported_knowledge_never_merges_with_conversation(memory):
    memory.write(
        "I'm flying to Tokyo next week.", user_id="u", session_id="doc", turn_id="d1", timestamp=T0, source="imported"
    )
    memory.write(
        "I'm flying to Tokyo next week.", user_id="u", session_id="s1", turn_id="c1", timestamp=T0 + timedelta(hours=1)
    )
    assert not [a for a in memory.consolidate("u").actions if a.kind != "keep_separate"]


def test_thresholds_are_named_checked_and_raise_the_bar(memory):
    _say(memory, "u", ["I'm going to Paris in May.", "I'm going to Paris in May with my sister."])
    with pytest.raises(InvalidInputError):
        memory.consolidate("u", find_threshold=0.95, replace_threshold=0.9)
    assert not memory.consolidate("u", dry_run=True, find_threshold=0.99, replace_threshold=0.99).actions
    report = memory.consolidate("u", dry_run=True)
    assert report.thresholds == {"find": 0.7, "replace": 0.9} and report.counts()["update"] == 1


def test_metadata_merges_newer_values_win_tags_unite(memory):
    memory.write(
        "I'm flying to Tokyo next week.",
        user_id="u",
        session_id="s",
        turn_id="a",
        timestamp=T0,
        metadata={"channel": "web", "tags": ["travel"], "mood": "calm"},
    )
    memory.write(
        "I'm flying to Tokyo next week.",
        user_id="u",
        session_id="s",
        turn_id="b",
        timestamp=T0 + timedelta(hours=1),
        metadata={"channel": "app", "tags": ["work", "travel"]},
    )
    memory.consolidate("u")
    survivor = next(e for e in memory.events("u") if e.turn_id == "a")
    assert survivor.metadata["channel"] == "app" and survivor.metadata["mood"] == "calm"
    assert survivor.metadata["tags"] == ["travel", "work"]
    assert merge_metadata({"tags": "a"}, {"tags": ["b"], "x": 1}) == {"tags": ["a", "b"], "x": 1}


def test_forget_takes_the_images_of_what_it_erases(make_memory, tmp_path):
    mem = make_memory(str(tmp_path / "m.db"))
    _say(mem, "u", ["I'm flying to Tokyo next week.", "I'm flying to Tokyo next week."])
    report = mem.consolidate("u")
    mem.forget("u", turn_ids=["u-1"])
    assert mem.store.db.execute("SELECT COUNT(*) FROM consolidations").fetchone()[0] == 0
    assert mem.store.db.execute("SELECT COUNT(*) FROM merged_events").fetchone()[0] == 0
    with pytest.raises(NotFoundError):
        mem.undo(report.operation_id)
    assert len(mem.events("u")) == 1


def test_relation_reads_what_each_text_adds():
    assert relation("I like sushi.", "I don't like sushi.") is Relation.DISTINCT
    assert relation("我喜欢香菜", "我不喜欢香菜") is Relation.DISTINCT
    assert relation("going to Paris", "going to Paris with my sister") is Relation.SECOND_MORE
    assert relation("周二开会", "周四开会") is Relation.DISTINCT
    assert relation("I'm flying to Tokyo.", "Flying to Tokyo!") is Relation.SAME


def test_cli_consolidate_dry_run_apply_and_undo(make_memory, tmp_path, capsys, monkeypatch):
    import memtracks.interfaces.cli as cli

    db = str(tmp_path / "m.db")
    mem = make_memory(db)
    _say(mem, "u", ["I'm flying to Tokyo next week.", "I'm flying to Tokyo next week."])
    mem.close()
    monkeypatch.setattr(cli, "Memory", lambda path: make_memory(path))
    assert main(["--db", db, "consolidate", "--user", "u", "--dry-run", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["dry_run"] and out["counts"]["merge"] == 1 and out["operation_id"] is None
    assert main(["--db", db, "consolidate", "--user", "u"]) == 0
    text = capsys.readouterr().out
    op = text.split("operation ")[1].split()[0]
    assert "merge event:1 <- event:2" in text
    assert main(["--db", db, "consolidate", "--undo", op]) == 0
    assert main(["--db", db, "consolidate", "--undo", op]) == 2
    assert "already undone" in capsys.readouterr().err
