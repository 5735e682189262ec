"""``export_markdown`` / ``memtracks export-md``: MEMORY.md and daily notes, in English and Chinese."""

from __future__ import annotations

import pytest
from conftest import at, cst

from memtracks import InvalidTurnError
from memtracks.interfaces.cli import main


def _conversation(mem):
    turns = [
        ("I live in Boston and work at Google.", at(2024, 6, 1, 9)),
        ("Hi!", at(2024, 6, 1, 9, 1)),
        ("Actually we moved to Lisbon last month, I don't live in Boston anymore.", at(2024, 6, 2, 10)),
        ("I'm flying to Tokyo next Wednesday.", at(2024, 6, 2, 10, 5)),
        ("I had to cancel the Tokyo trip.", at(2024, 6, 3, 8)),
        ("My sister Anna is a nurse.", at(2024, 6, 3, 8, 5)),
        ("I'm going to Rome on July 20th.", at(2024, 6, 3, 8, 6)),
    ]
    for text, when in turns:
        mem.write(text, user_id="u", timestamp=when)


def test_memory_md_holds_current_facts_and_active_plans(memory, tmp_path):
    _conversation(memory)
    report = memory.export_markdown(tmp_path, "u", now=at(2024, 6, 4))
    text = (tmp_path / "MEMORY.md").read_text(encoding="utf-8")
    facts = text.split("## Facts")[1].split("## Plans")[0]
    plans = text.split("## Plans")[1]
    assert "Lisbon" in facts and "Boston" not in facts  # superseded facts are history, not memory
    assert "Google" in facts and "Anna · job: nurse" in facts
    assert "Rome" in plans and "2024-07-20" in plans
    assert "Tokyo" not in plans  # the trip was cancelled
    assert report.facts >= 3 and report.plans >= 1 and report.left_out == 0
    assert report.lines == len(text.splitlines()) <= 200


def test_daily_notes_have_each_days_turns_with_dates_resolved(memory, tmp_path):
    _conversation(memory)
    report = memory.export_markdown(tmp_path, "u", now=at(2024, 6, 4))
    assert [p.name for p in report.daily_files] == ["2024-06-01.md", "2024-06-02.md", "2024-06-03.md"]
    june2 = (tmp_path / "memory" / "2024-06-02.md").read_text(encoding="utf-8")
    assert june2.startswith("# 2024-06-02")
    assert "next Wednesday [2024-06-05]" in june2 and "last month [2024-05]" in june2
    assert "(cancelled on 2024-06-03)" in june2 and "(turn" not in june2  # called off, said with its date
    june1 = (tmp_path / "memory" / "2024-06-01.md").read_text(encoding="utf-8")
    assert "Hi!" not in june1 and "1 turn(s)" in june1  # a greeting is counted, not listed


def test_cap_keeps_the_most_important_and_says_what_was_left_out(memory, tmp_path):
    hobbies = ["hiking", "chess", "painting", "cycling", "baking", "yoga", "surfing", "knitting", "pottery", "rowing"]
    memory.write("I work at Google.", user_id="u", timestamp=at(2024, 6, 1, 8))
    for n, hobby in enumerate(hobbies):
        memory.write(f"I like {hobby}.", user_id="u", timestamp=at(2024, 6, 1, 9, n))
    for _ in range(3):
        memory.write("I work at Google.", user_id="u", timestamp=at(2024, 6, 2, 9))
    report = memory.export_markdown(tmp_path, "u", now=at(2024, 6, 4), max_lines=14)
    lines = (tmp_path / "MEMORY.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 14
    assert "Google" in lines[5]  # said four times, a one-value slot: first
    assert report.left_out > 0
    assert lines[-1].startswith("_Left out to stay within 14 lines:") and f"{report.left_out} fact(s)" in lines[-1]
    assert report.facts + report.left_out == 11


def test_chinese_memory_md_and_notes(memory, tmp_path):
    memory.write("我住在北京，在腾讯工作。", user_id="u", timestamp=cst(2024, 6, 1, 9))
    memory.write("我上个月搬到杭州了。", user_id="u", timestamp=cst(2024, 6, 2, 20))
    memory.write("我下周三要去上海出差。", user_id="u", timestamp=cst(2024, 6, 2, 20, 5))
    memory.write("謝謝！", user_id="u", timestamp=cst(2024, 6, 2, 20, 6))
    memory.export_markdown(tmp_path, "u", now=cst(2024, 6, 3))
    text = (tmp_path / "MEMORY.md").read_text(encoding="utf-8")
    assert text.startswith("# u 的记忆") and "## 事实" in text and "## 计划" in text
    facts = text.split("## 事实")[1].split("## 计划")[0]
    assert "杭州" in facts and "北京" not in facts and "腾讯" in facts
    assert "上海" in text.split("## 计划")[1] and "2024-06-05" in text.split("## 计划")[1]
    note = (tmp_path / "memory" / "2024-06-02.md").read_text(encoding="utf-8")
    assert "上个月 [2024-05]" in note and "下周三 [2024-06-05]" in note
    assert "謝謝" not in note and "另有 1 条" in note


def test_export_md_rewrites_and_leaves_other_files(memory, tmp_path):
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "notes-by-hand.md").write_text("mine", encoding="utf-8")
    memory.write("I live in Boston.", user_id="u", timestamp=at(2024, 6, 1, 9))
    memory.export_markdown(tmp_path, "u", now=at(2024, 6, 2))
    memory.write("I moved to Denver.", user_id="u", timestamp=at(2024, 6, 1, 12))
    memory.export_markdown(tmp_path, "u", now=at(2024, 6, 2))
    text = (tmp_path / "MEMORY.md").read_text(encoding="utf-8")
    assert "Denver" in text and "Boston" not in text
    assert (tmp_path / "memory" / "notes-by-hand.md").read_text(encoding="utf-8") == "mine"
    assert not list(tmp_path.rglob("*.tmp"))


def test_export_md_rejects_bad_arguments(memory, tmp_path):
    with pytest.raises(InvalidTurnError):
        memory.export_markdown(tmp_path, "u", max_lines=3)


def test_export_md_cli(make_memory, tmp_path, capsys):
    db = tmp_path / "m.db"
    mem = make_memory(db)
    mem.write("我住在杭州。", user_id="u", timestamp=cst(2024, 6, 1, 9))
    mem.close()
    out = tmp_path / "out"
    assert main(["--db", str(db), "export-md", str(out), "--user", "u", "--now", "2024-06-02T00:00:00+08:00"]) == 0
    assert "1 daily note(s)" in capsys.readouterr().out
    assert "居住地：杭州" in (out / "MEMORY.md").read_text(encoding="utf-8")
    assert (out / "memory" / "2024-06-01.md").is_file()
