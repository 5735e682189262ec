"""``import_markdown`` / ``memtracks import-md``: an edited MEMORY.md read back — deleted lines
retract, edited values correct, new lines become what the user said — in English and Chinese."""

from __future__ import annotations

import pytest
from conftest import at, cst

from memtracks import MarkdownImportError
from memtracks.interfaces.cli import main

EN = [
    ("I live in Boston and work at Google.", at(2024, 6, 1, 9)),
    ("My sister Anna is a nurse.", at(2024, 6, 1, 9, 5)),
    ("I'm allergic to peanuts.", at(2024, 6, 2, 10)),
]
ZH = [
    ("我住在杭州，在腾讯工作。", cst(2024, 6, 1, 9)),
    ("我對花生過敏。", cst(2024, 6, 1, 9, 5)),  # Traditional
]


def _export(mem, tmp_path, turns, now):
    for text, when in turns:
        mem.write(text, user_id="u", timestamp=when)
    mem.export_markdown(tmp_path, "u", now=now)
    return tmp_path / "MEMORY.md"


def _edit(path, change):
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(change(lines)) + "\n", encoding="utf-8")


def _current(mem):
    return {(f.subject, f.slot): f.value for f in mem.facts("u")}  # corrections are made at the clock's time


def _line_with(lines, word):
    return next(i for i, line in enumerate(lines) if word in line and "<!-- fact:" in line)


def test_an_untouched_export_changes_nothing(memory, tmp_path):
    path = _export(memory, tmp_path, EN, at(2024, 6, 3))
    before = memory.facts("u", include_superseded=True)
    report = memory.import_markdown(path, "u", now=at(2024, 6, 4))
    assert report.changes == [] and report.untouched >= 3
    assert memory.facts("u", include_superseded=True) == before


def test_deleted_edited_and_new_lines_in_english(memory, tmp_path):
    path = _export(memory, tmp_path, EN, at(2024, 6, 3))

    def change(lines):
        lines[_line_with(lines, "Google")] = lines[_line_with(lines, "Google")].replace("Google", "Microsoft")
        del lines[_line_with(lines, "peanuts")]
        return [*lines, "- I'm vegetarian since last year."]

    _edit(path, change)
    plan = memory.import_markdown(path, "u", now=at(2024, 6, 4), dry_run=True)
    assert (plan.count("correct"), plan.count("retract"), plan.count("add")) == (1, 1, 1)
    assert "- Google" in plan.diff() and "+ Microsoft" in plan.diff() and "would change" in plan.diff()
    assert _current(memory)[("user", "employer")] == "Google"  # a dry run writes nothing

    memory.import_markdown(path, "u", now=at(2024, 6, 4))
    facts = memory.facts("u", include_superseded=True)
    current = _current(memory)
    assert current[("user", "employer")] == "Microsoft" and current[("user", "lives_in")] == "Boston"
    assert ("user", "allergies") not in current
    assert {f.reason for f in facts if f.value in ("Google", "peanuts")} == {"corrected", "retracted"}  # kept
    recall = memory.retrieve("Am I vegetarian?", user_id="u", now=at(2024, 6, 5))
    card = next(c for c in recall.cards if "vegetarian" in c.text.lower())
    assert card.metadata["source"] == "markdown" and card.metadata["file"] == "MEMORY.md"


def test_reading_the_same_file_twice_adds_nothing_more(memory, tmp_path):
    path = _export(memory, tmp_path, EN, at(2024, 6, 3))
    _edit(path, lambda lines: [*lines, "- My cat is called Miso."])
    memory.import_markdown(path, "u", now=at(2024, 6, 4))
    turns = memory.stats("u")["turns"]
    again = memory.import_markdown(path, "u", now=at(2024, 6, 4))
    assert memory.stats("u")["turns"] == turns and again.count("add") == 1  # planned, already there


def test_chinese_simplified_and_traditional_round_trip(memory, tmp_path):
    path = _export(memory, tmp_path, ZH, cst(2024, 6, 2))
    text = path.read_text(encoding="utf-8")
    assert "杭州" in text and "花生" in text

    def change(lines):
        i = _line_with(lines, "杭州")
        lines[i] = lines[i].replace("杭州", "上海")
        del lines[_line_with(lines, "花生")]
        return [*lines, "- 我養了一隻貓叫豆豆。"]

    _edit(path, change)
    report = memory.import_markdown(path, "u", now=cst(2024, 6, 3))
    assert (report.count("correct"), report.count("retract"), report.count("add")) == (1, 1, 1)
    current = _current(memory)
    assert current[("user", "lives_in")] == "上海" and ("user", "allergies") not in current
    memory.export_markdown(tmp_path / "again", "u", now=cst(2024, 6, 4))
    again = (tmp_path / "again" / "MEMORY.md").read_text(encoding="utf-8")
    assert "上海" in again and "杭州" not in again and "花生" not in again


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda lines: [lines[0], "", lines[3], *lines[4:]], "no '<!-- memtracks-md"),
        (lambda lines: [*lines, "Just a paragraph of text."], "line"),
        (lambda lines: [*lines, "- something <!-- fact:abc -->"], "does not name a fact"),
        (lambda lines: [*lines, "- something <!-- fact:99999 -->"], "not one of the facts"),
        (lambda lines: [*lines, lines[_line_with(lines, "Google")]], "more than one line"),
    ],
    ids=["no manifest", "not a bullet", "bad marker", "unknown fact", "twice"],
)
def test_malformed_markdown_is_a_typed_error_naming_the_line_and_changes_nothing(memory, tmp_path, change, message):
    path = _export(memory, tmp_path, EN, at(2024, 6, 3))
    _edit(path, lambda lines: [line.replace("Boston", "Denver") for line in change(lines)])
    before = memory.facts("u", include_superseded=True)
    with pytest.raises(MarkdownImportError, match=message) as caught:
        memory.import_markdown(path, "u", now=at(2024, 6, 4))
    assert str(path) in str(caught.value)
    assert memory.facts("u", include_superseded=True) == before


def test_import_md_on_the_command_line(make_memory, tmp_path, capsys):
    db, out = str(tmp_path / "m.db"), tmp_path / "md"
    mem = make_memory(db)
    for text, when in EN:
        mem.write(text, user_id="u", timestamp=when)
    mem.close()
    assert main(["--db", db, "export-md", str(out), "--user", "u", "--now", "2024-06-03T00:00:00+00:00"]) == 0
    _edit(out / "MEMORY.md", lambda lines: [line for line in lines if "peanuts" not in line])
    capsys.readouterr()
    assert main(["--db", db, "import-md", str(out), "--user", "u", "--dry-run"]) == 0
    assert "would change: 0 corrected, 1 retracted" in capsys.readouterr().out
    assert main(["--db", db, "import-md", str(out), "--user", "u"]) == 0
    assert "changed: 0 corrected, 1 retracted" in capsys.readouterr().out
    assert main(["--db", db, "import-md", str(tmp_path / "nothing.md"), "--user", "u"]) != 0
