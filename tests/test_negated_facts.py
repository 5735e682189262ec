"""``facts()`` lists what holds now: a fact the user said does not hold ("I don't live in
Boston", 我不住在北京) is kept, negated, but shown only when asked for (``include_negated``),
in the library, MCP's list_facts, the command line and the Markdown export alike."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime, timezone

import pytest

from memtracks.interfaces.cli import main

T0 = datetime(2024, 6, 1, 9, tzinfo=timezone.utc)
SAID = ["I don't live in Boston.", "I love hiking.", "我不住在北京。", "我会说日语。"]


@pytest.fixture
def said(memory):
    for n, text in enumerate(SAID):
        memory.write(text, user_id="u", turn_id=f"t{n}", timestamp=T0)
    return memory


def _values(facts):
    return sorted((f.slot, f.value, f.negated) for f in facts)


def test_facts_lists_what_holds_and_the_negated_only_when_asked(said):
    held = _values(said.facts("u"))
    assert ("likes", "hiking", False) in held and ("languages", "日语", False) in held
    assert not any(negated for _, _, negated in held)
    every = _values(said.facts("u", include_negated=True))
    assert ("lives_in", "Boston", True) in every and ("lives_in", "北京", True) in every
    assert set(held) < set(every)
    stored = _values(said.facts("u", include_superseded=True))  # every fact stored, as before
    assert ("lives_in", "Boston", True) in stored


def test_a_negated_fact_is_not_a_current_fact_of_the_markdown_export(said, tmp_path):
    said.export_markdown(tmp_path / "md", "u", now=T0)
    text = (tmp_path / "md" / "MEMORY.md").read_text(encoding="utf-8")
    assert "hiking" in text and "日语" in text
    assert "Boston" not in text and "北京" not in text


def test_cli_show_leaves_the_negated_out_unless_asked(tmp_path, capsys, monkeypatch, toolkit, embedder):
    import memtracks.interfaces.cli as cli
    from memtracks.memory import Memory

    monkeypatch.setattr(cli, "Memory", lambda path: Memory(path, toolkit=toolkit, embedder=embedder))
    db = tmp_path / "m.db"
    mem = Memory(db, toolkit=toolkit, embedder=embedder)
    for n, text in enumerate(SAID):
        mem.write(text, user_id="u", turn_id=f"t{n}", timestamp=T0)
    mem.close()
    assert main(["--db", str(db), "show", "--user", "u", "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)[0]["facts"]
    assert main(["--db", str(db), "show", "--user", "u", "--json", "--include-negated"]) == 0
    every = json.loads(capsys.readouterr().out)[0]["facts"]
    assert not any(f["negated"] for f in plain)
    assert {f["value"] for f in every if f["negated"]} == {"Boston", "北京"}


def test_mcp_list_facts_leaves_the_negated_out_unless_asked(said):
    pytest.importorskip("mcp")
    from mcp import Client

    from memtracks.integrations.mcp_server import build_server

    async def calls():
        async with Client(build_server(said, user_id="u")) as client:
            plain = await client.call_tool("list_facts", {})
            every = await client.call_tool("list_facts", {"include_negated": True})
            return plain.structured_content["facts"], every.structured_content["facts"]

    plain, every = asyncio.run(calls())
    assert not any(f["negated"] for f in plain)
    assert {f["value"] for f in every if f["negated"]} == {"Boston", "北京"}
