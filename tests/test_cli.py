"""The command line: ingest JSONL and LoCoMo files, show what was learned."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtracks.interfaces.cli import main

DATA = Path(__file__).parent / "data"
EXAMPLE = Path(__file__).parent.parent / "examples" / "demo_conversation.jsonl"


@pytest.fixture(autouse=True)
def _share_loaded_tools(monkeypatch, toolkit, embedder):
    """The CLI builds its own Memory; hand it the session's loaded tools to keep tests fast."""
    import memtracks.interfaces.cli as cli
    from memtracks.memory import Memory

    monkeypatch.setattr(cli, "Memory", lambda path: Memory(path, toolkit=toolkit, embedder=embedder))


def test_cli_ingest_and_show_example(tmp_path, capsys):
    db = str(tmp_path / "m.db")
    assert main(["--db", db, "ingest", str(EXAMPLE), "-q"]) == 0
    assert "ingested" in capsys.readouterr().out
    assert main(["--db", db, "show", "--user", "alice"]) == 0
    out = capsys.readouterr().out
    assert "lives_in: Boston" in out and "lives_in: Seattle" in out and "superseded by" in out
    assert "-> about 2024-04-17" in out  # "next Wednesday" said on 2024-04-10
    assert "needs someone to look after Max (dog)" in out
    assert main(["--db", db, "show", "--user", "liming"]) == 0
    out = capsys.readouterr().out
    assert "lives_in: 北京" in out and "lives_in: 深圳" in out and "豆豆（猫）需要人照看" in out


def test_cli_ingest_twice_is_idempotent(tmp_path, capsys):
    db = str(tmp_path / "m.db")
    main(["--db", db, "ingest", str(EXAMPLE), "-q"])
    capsys.readouterr()
    main(["--db", db, "ingest", str(EXAMPLE), "-q"])
    assert "ingested 0 turn(s) (21 already stored)" in capsys.readouterr().out


def test_cli_ingest_locomo_format(tmp_path, capsys):
    db = str(tmp_path / "m.db")
    assert main(["--db", db, "ingest", str(DATA / "locomo_mini.json"), "-q"]) == 0
    assert main(["--db", db, "show", "--json"]) == 0
    [user] = json.loads(capsys.readouterr().out.split("\n", 1)[1])
    assert user["user_id"] == "conv-mini"
    facts = {(f["subject"], f["slot"], f["value"]) for f in user["facts"] if f["valid_to"] is None}
    assert ("Maya", "lives_in", "Portland") in facts
    assert ("Leo", "pets", "Biscuit (puppy)") in facts
    assert ("Leo's sister", "lives_in", "Boulder") in facts
    pottery = next(e for e in user["events"] if e["turn_id"] == "D1:1")
    assert pottery["start"].startswith("2023-05-07")  # "yesterday" against the session date
    photo = next(e for e in user["events"] if e["turn_id"] == "D1:4")
    assert "small brown dog" in photo["text"]


def test_cli_bad_input_file_fails_clearly(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "hello", "user_id": "u1", "timestamp": "2024-01-01T10:00:00+00:00"}\n{oops\n')
    assert main(["--db", str(tmp_path / "m.db"), "ingest", str(bad), "-q"]) == 2
    assert "bad.jsonl:2" in capsys.readouterr().err


def test_cli_show_without_database(tmp_path, capsys):
    assert main(["--db", str(tmp_path / "none.db"), "show"]) == 1
    assert "no database" in capsys.readouterr().err


@pytest.mark.parametrize(
    "user,question,now,expected",
    [
        ("alice", "Where do I live now?", "2024-04-12T09:00:00+00:00", "lives in: Seattle"),
        ("liming", "我现在住哪？", "2024-04-10T09:00:00+08:00", "居住地：深圳"),
    ],
)
def test_cli_recall_prints_cards(tmp_path, capsys, user, question, now, expected):
    db = str(tmp_path / "m.db")
    main(["--db", db, "ingest", str(EXAMPLE), "-q"])
    capsys.readouterr()
    assert main(["--db", db, "recall", question, "--user", user, "--now", now]) == 0
    captured = capsys.readouterr()
    assert expected in captured.out.splitlines()[2] and "tokens" in captured.err  # after the opening tag and notice
    assert main(["--db", db, "recall", question, "--user", user, "--now", now, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert expected in payload["cards"][0]["text"] and payload["cards"][0]["source_turn_ids"]


def test_cli_recall_needs_user_when_several(tmp_path, capsys):
    db = str(tmp_path / "m.db")
    main(["--db", db, "ingest", str(EXAMPLE), "-q"])
    capsys.readouterr()
    assert main(["--db", db, "recall", "Where do I live?"]) == 2
    assert "--user" in capsys.readouterr().err


def test_cli_recall_rejects_naive_now(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["--db", str(tmp_path / "m.db"), "recall", "x", "--now", "2024-04-12T09:00:00"])
    assert "timezone" in capsys.readouterr().err
