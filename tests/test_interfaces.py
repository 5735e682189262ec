"""The interfaces agents use: write_messages, ingest format detection, the lifecycle CLI,
the LangGraph store (the MCP server: test_mcp_server.py), the LangChain retriever,
and custom rule / lexicon folders."""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from memtracks import Memory
from memtracks.errors import DataFileError, InvalidInputError, InvalidTurnError
from memtracks.interfaces.cli import main
from memtracks.interfaces.io import detect_format

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).parent.parent
T0 = datetime(2024, 5, 1, 9, tzinfo=timezone.utc)
NOW = "2024-05-03T09:00:00+00:00"
MESSAGES = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "I just moved to Lisbon, and I work at Spotify now."},
    {"role": "assistant", "content": "Congratulations on the move!"},
    {"role": "user", "content": [{"type": "text", "text": "我的猫叫豆豆。"}, {"type": "image_url", "image_url": {}}]},
    {"role": "tool", "content": '{"ok": true}'},
]


# ---------------------------------------------------------------------- write_messages, ingest


def test_write_messages_openai_style(memory):
    results = memory.write_messages(MESSAGES, user_id="u1", session_id="chat-1", timestamp=T0)
    assert [r.turn.speaker for r in results] == ["user", "assistant", "user"]
    assert {(f.slot, f.value) for f in memory.facts("u1")} >= {("employer", "Spotify"), ("lives_in", "Lisbon")}
    assert any("豆豆" in f.value for f in memory.facts("u1", slot="pets"))
    again = memory.write_messages(MESSAGES, user_id="u1", session_id="chat-1", timestamp=T0 + timedelta(hours=1))
    assert all(r.duplicate for r in again)  # the same history sent again adds nothing
    with pytest.raises(InvalidTurnError, match="role"):
        memory.write_messages([{"role": "narrator", "content": "x"}], user_id="u1")


@pytest.mark.parametrize(
    "content,kind",
    [
        ('{"text": "I live in Paris.", "user_id": "u1"}\n', "jsonl"),
        (json.dumps(MESSAGES), "messages"),
        (json.dumps({"messages": MESSAGES}), "messages"),
        ("\n".join(json.dumps(m) for m in MESSAGES), "messages"),
        ((DATA / "locomo_mini.json").read_text(), "locomo"),
    ],
)
def test_detect_format(tmp_path, content, kind):
    path = tmp_path / "f.json"
    path.write_text(content)
    assert detect_format(path) == kind


@pytest.mark.parametrize(
    "content", ["", "hello there", "[1, 2, 3]", '{"foo": 1}', '[{"speaker": "a"}]', b"\x89PNG\r\n\x1a\n\x00\x00"]
)
def test_ingest_rejects_other_files_clearly(tmp_path, capsys, content):
    path = tmp_path / "f.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(InvalidInputError):
        detect_format(path)
    assert main(["--db", str(tmp_path / "m.db"), "ingest", str(path), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("memtracks: ") and "Traceback" not in err


@pytest.fixture
def cli_memory(monkeypatch, toolkit, embedder):
    import memtracks.interfaces.cli as cli

    def make(path, **kwargs):
        return Memory(path, toolkit=toolkit, embedder=embedder, **kwargs)

    monkeypatch.setattr(cli, "Memory", make)


def test_cli_ingest_messages_and_lifecycle_commands(tmp_path, capsys, cli_memory):
    db, msgs = str(tmp_path / "m.db"), tmp_path / "chat.json"
    msgs.write_text(json.dumps(MESSAGES))
    assert main(["--db", db, "ingest", str(msgs), "-q"]) == 2  # messages carry no user
    assert "--user" in capsys.readouterr().err
    assert main(["--db", db, "ingest", str(msgs), "--user", "u1", "--at", "2024-05-01T09:00:00+00:00", "-q"]) == 0
    capsys.readouterr()
    assert main(["--db", db, "show", "--user", "u1", "--json"]) == 0
    [shown] = json.loads(capsys.readouterr().out)
    employer = next(f for f in shown["facts"] if f["slot"] == "employer")
    assert main(["--db", db, "get", f"fact:{employer['id']}", "--user", "u1"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == "Spotify"
    assert main(["--db", db, "correct", str(employer["id"]), "Spotify AB", "--user", "u1"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == "Spotify AB"
    assert main(["--db", db, "recall", "Where do I work?", "--user", "u1", "--now", NOW]) == 0
    assert "Spotify AB" in capsys.readouterr().out
    export = tmp_path / "u1.jsonl"
    assert main(["--db", db, "export", str(export), "--user", "u1"]) == 0
    assert main(["--db", str(tmp_path / "copy.db"), "import", str(export)]) == 0
    capsys.readouterr()
    assert main(["--db", db, "forget", "--user", "u1", "--everything"]) == 0
    assert json.loads(capsys.readouterr().out)["turns"] == 3
    assert main(["--db", db, "status"]) == 0
    assert json.loads(capsys.readouterr().out)["scopes"] == []
    assert main(["--db", db, "get", "fact:1", "--user", "u1"]) == 2
    assert main(["--db", db, "export-schema"]) == 0
    assert "memtracks export line" in capsys.readouterr().out


def test_python_dash_m_runs_the_cli():
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "memtracks", "--version"], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    from memtracks import __version__

    assert done.returncode == 0 and done.stdout.strip() == f"memtracks {__version__}"


# ---------------------------------------------------------------------- LangGraph, LangChain


def test_langgraph_graph_uses_the_store(memory):
    from langgraph.graph import END, START, StateGraph
    from langgraph.store.base import BaseStore
    from typing_extensions import TypedDict

    from memtracks.integrations.langgraph import MemtracksStore

    class State(TypedDict):
        question: str
        context: str

    def remember_and_recall(state: State, *, store: BaseStore) -> dict:
        store.put(("carol",), "c1", {"text": "My sister lives in Chengdu.", "timestamp": "2024-05-01T09:00:00+00:00"})
        return {"context": "\n".join(i.value["text"] for i in store.search(("carol",), query=state["question"]))}

    builder = StateGraph(State)
    builder.add_node("memory", remember_and_recall)
    builder.add_edge(START, "memory")
    builder.add_edge("memory", END)
    out = builder.compile(store=MemtracksStore(memory)).invoke({"question": "Where does my sister live?"})
    assert "Chengdu" in out["context"]


def test_langchain_retriever(memory):
    from memtracks.integrations.langchain import MemtracksRetriever

    memory.write("我在上海工作。", user_id="u1", timestamp=T0)
    retriever = MemtracksRetriever(memory=memory, user_id="u1", retrieve_kwargs={"now": T0})
    docs = retriever.invoke("我在哪里工作？")
    assert docs and "上海" in docs[0].page_content and docs[0].metadata["ref"] == docs[0].id
    assert asyncio.run(retriever.ainvoke("我在哪里工作？"))[0].page_content == docs[0].page_content


# ---------------------------------------------------------------------- custom rules and lexicons


def test_custom_rules_and_lexicons_folders(tmp_path, toolkit, embedder):
    rules, lexicons = tmp_path / "rules", tmp_path / "lexicons"
    rules.mkdir(), lexicons.mkdir()
    (rules / "slots.yaml").write_text("""slots:
  - name: favourite_team
    cardinality: one
    value_type: text
    label: {en: supports, zh: 支持的球队}
    ask: {en: ['\\bteam\\b'], zh: ['球队']}
""")
    (rules / "slot_patterns.yaml").write_text("""patterns:
  - id: en.team.support
    lang: en
    slot: favourite_team
    regex: '@subj\\s+(?:support|root for)\\s+(?P<value>[A-Z][\\w ]+?)(?:[.!,]|$)'
  - id: zh.team.support
    lang: zh
    slot: favourite_team
    regex: '@subj(?:支持|喜欢)(?P<value>[\\u4e00-\\u9fff]{2,6}队)'
""")
    (lexicons / "entities.yaml").write_text("entities:\n  - {key: arsenal, label: org, en: [Arsenal], zh: [阿森纳]}\n")
    mem = Memory(toolkit=toolkit, embedder=embedder, rules_dir=rules, lexicons_dir=lexicons)
    mem.write("I support Arsenal.", user_id="u1", timestamp=T0)
    mem.write("我支持国安队", user_id="u2", timestamp=T0)
    assert [f.value for f in mem.facts("u1", slot="favourite_team")] == ["Arsenal"]
    assert [f.value for f in mem.facts("u2", slot="favourite_team")] == ["国安队"]
    assert mem.facts("u1", slot="favourite_team")[0].value_key == "arsenal"
    mem.write("I moved to Paris.", user_id="u1", timestamp=T0)  # the bundled rules still apply
    assert [f.value for f in mem.facts("u1", slot="lives_in")] == ["Paris"]
    assert "supports: Arsenal" in mem.retrieve("Which team do I support?", user_id="u1", now=T0).cards[0].text
    (rules / "slot_patterns.yaml").write_text("patterns:\n  - {id: bad, lang: en, slot: nope, regex: 'x'}\n")
    with pytest.raises(DataFileError) as err:
        Memory(toolkit=toolkit, embedder=embedder, rules_dir=rules)
    assert "slot_patterns.yaml" in str(err.value) and "'bad'" in str(err.value) and "nope" in str(err.value)


def test_rebuild_after_rules_change(tmp_path, toolkit, embedder):
    db = tmp_path / "m.db"
    plain = Memory(db, toolkit=toolkit, embedder=embedder)
    plain.write("I support Arsenal.", user_id="u1", timestamp=T0)
    assert plain.facts("u1", slot="favourite_team") == []
    plain.close()
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "slots.yaml").write_text(
        "slots:\n  - {name: favourite_team, cardinality: one, value_type: text, "
        "label: {en: supports, zh: 支持的球队}}\n"
    )
    (rules / "slot_patterns.yaml").write_text(
        "patterns:\n  - {id: t, lang: en, slot: favourite_team, regex: '@subj\\s+support\\s+(?P<value>[A-Z]\\w+)'}\n"
    )
    custom = Memory(db, toolkit=toolkit, embedder=embedder, rules_dir=rules)
    report = custom.rebuild("u1")
    assert report.turns == 1 and [f.value for f in custom.facts("u1", slot="favourite_team")] == ["Arsenal"]
    custom.close()
