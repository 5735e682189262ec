"""The optional LLM extractor against a scripted OpenAI-compatible endpoint on 127.0.0.1 (the
one fake: the model). Everything else is real: the writer, the fact track, the store."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from memtracks.errors import LLMError
from memtracks.interfaces.cli import main
from memtracks.llm import LLMExtractor, OpenAIClient
from memtracks.llm.parse import ExtractedFact

T0 = datetime(2024, 3, 4, 10, tzinfo=timezone.utc)
CST = timezone(timedelta(hours=8))


class Endpoint:
    """Answers each POST with the next scripted reply: ``(status, body, delay_seconds)``."""

    def __init__(self) -> None:
        self.replies: list[tuple[int, str, float]] = []
        self.requests: list[dict[str, Any]] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                endpoint.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), **body})
                status, text, delay = endpoint.replies.pop(0) if endpoint.replies else (500, "no reply scripted", 0)
                time.sleep(delay)
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.end_headers()
                    self.wfile.write(text.encode("utf-8"))
                except OSError:
                    pass  # the client gave up waiting

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer(self, content: str, prompt_tokens: int = 120, completion_tokens: int = 40) -> None:
        body = {
            "choices": [{"message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens},
        }
        self.replies.append((200, json.dumps(body, ensure_ascii=False), 0.0))

    def raw(self, status: int, text: str, delay: float = 0.0) -> None:
        self.replies.append((status, text, delay))


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    server = Endpoint()
    yield server
    server.server.shutdown()
    server.server.server_close()


def _client(endpoint: Endpoint, **kwargs: Any) -> OpenAIClient:
    return OpenAIClient(
        base_url=endpoint.url, model="scripted", api_key="k-test", timeout=kwargs.pop("timeout", 5), **kwargs
    )


def _say(mem, user, texts, start=T0):
    for i, text in enumerate(texts):
        mem.write(text, user_id=user, session_id="s1", turn_id=f"t{i + 1}", timestamp=start + timedelta(minutes=i))


def _rows(mem):
    db = mem.store.db
    return {t: sorted(tuple(r) for r in db.execute(f"SELECT * FROM {t}")) for t in ("turns", "facts", "events")}


def test_phase_one_only_when_nothing_is_stored_yet(memory, endpoint):
    _say(memory, "u", ["Hi there!", "We decided to move the backend to Rust next quarter."])
    assert memory.facts("u") == []
    endpoint.answer(
        "Here you go:\n```json\n"
        + json.dumps(
            [
                {
                    "turn": 2,
                    "type": "decision",
                    "slot": "decisions",
                    "value": "move the backend to Rust",
                    "content": "The user decided to move the backend to Rust.",
                    "tags": ["rust", "backend"],
                    "confidence": 0.9,
                },
                {
                    "turn": 1,
                    "type": "fact",
                    "slot": "decisions",
                    "value": "greeted",
                    "content": "Said hi",
                    "tags": [],
                    "confidence": 0.3,
                },
                {"turn": 9, "type": "fact", "slot": "likes", "value": "x", "tags": [], "confidence": 0.9},
                {"turn": 2, "type": "opinion", "slot": "likes", "value": "Rust", "tags": [], "confidence": 0.9},
            ]
        )
        + "\n```"
    )
    report = LLMExtractor(_client(endpoint)).run(memory, "u")
    (batch,) = report.batches
    assert batch.calls == 1 and len(endpoint.requests) == 1  # no memories yet: no merge phase
    assert (batch.prompt_tokens, batch.completion_tokens) == (120, 40)
    assert batch.extracted == 2 and batch.malformed == 2 and batch.kept == 1 and batch.failures == []
    request = endpoint.requests[0]
    assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer k-test"
    assert request["model"] == "scripted" and [m["role"] for m in request["messages"]] == ["system", "user"]
    assert "2. [user] We decided to move the backend to Rust" in request["messages"][1]["content"]
    (fact,) = memory.facts("u")
    assert (fact.slot, fact.value, fact.source, fact.confidence) == (
        "decisions",
        "move the backend to Rust",
        "llm",
        0.9,
    )
    assert fact.source_turn_ids == ("t2",)
    cards = memory.retrieve("What did we decide about the backend?", user_id="u", now=T0 + timedelta(days=1)).cards
    assert any(c.track == "fact" and "Rust" in c.text for c in cards)


def test_phase_two_merges_against_existing_memories_in_chinese(memory, endpoint):
    _say(memory, "u", ["我住在北京。", "我平时喜欢喝茶，最爱龙井。"], start=datetime(2024, 3, 4, 10, tzinfo=CST))
    lives = [f for f in memory.facts("u") if f.slot == "lives_in"]
    assert [f.value for f in lives] == ["北京"]
    endpoint.answer(
        json.dumps(
            [
                {
                    "turn": 1,
                    "type": "fact",
                    "slot": "lives_in",
                    "value": "北京",
                    "content": "用户住在北京",
                    "tags": ["北京"],
                    "confidence": 0.95,
                },
                {
                    "turn": 2,
                    "type": "preference",
                    "slot": "likes",
                    "value": "龙井",
                    "content": "用户最爱龙井茶",
                    "tags": ["茶"],
                    "confidence": 0.8,
                },
            ],
            ensure_ascii=False,
        )
    )
    endpoint.answer(
        json.dumps(
            [
                {"fact": 0, "action": "skip", "existing": lives[0].id, "reason": "已知"},
                {"fact": 1, "action": "merge_into", "value": "喝龙井茶", "reason": "更精确"},
            ],
            ensure_ascii=False,
        )
    )
    report = memory.consolidate("u", llm=_client(endpoint))
    assert report.llm is not None and report.llm.totals()["calls"] == 2
    merge_prompt = endpoint.requests[1]["messages"][1]["content"]
    assert f"{lives[0].id}: lives_in = 北京" in merge_prompt and "0: lives_in = 北京" in merge_prompt
    assert [f.value for f in memory.facts("u") if f.slot == "lives_in"] == ["北京"]
    # the writer reads 我平时喜欢喝茶 itself (likes 喝茶): the merged value makes that fact more precise
    likes = [f for f in memory.facts("u") if f.slot == "likes"]
    assert [(f.value, f.lang) for f in likes] == [("喝龙井茶", "zh")]
    assert likes[0].source_turn_ids == ("t2",)
    llm_facts = [f for f in memory.facts("u", include_superseded=True) if f.source == "llm"]
    assert [(f.slot, f.value, f.reason) for f in llm_facts] == [("likes", "喝龙井茶", "merged")]


def test_failures_never_lose_a_turn_and_are_read_again(memory, endpoint):
    texts = [f"I'm reading book number {i} this month." for i in range(1, 12)] + ["I live in Lisbon."]
    _say(memory, "u", texts)
    rows = _rows(memory)
    endpoint.answer("I'm sorry, but I can't help with that.")  # a refusal: no JSON at all
    endpoint.raw(200, "{not json", 0)  # a broken body
    report = LLMExtractor(_client(endpoint)).run(memory, "u")
    assert [len(b.failures) for b in report.batches] == [1, 1] and [b.turns for b in report.batches] == [10, 2]
    assert "no JSON array" in report.batches[0].failures[0] and "no chat completion" in report.batches[1].failures[0]
    assert _rows(memory) == rows  # the writer's facts and every turn stand

    endpoint.raw(500, "overloaded")
    endpoint.raw(200, "{}", delay=1.5)  # slower than the client waits
    report = LLMExtractor(_client(endpoint, timeout=0.5)).run(memory, "u")
    assert "HTTP 500" in report.batches[0].failures[0] and "did not answer" in report.batches[1].failures[0]
    assert _rows(memory) == rows

    endpoint.answer(
        json.dumps(
            [
                {
                    "turn": 3,
                    "type": "preference",
                    "slot": "hobbies",
                    "value": "reading",
                    "tags": ["books"],
                    "confidence": 0.7,
                }
            ]
        )
    )
    endpoint.answer("[malformed merge")  # the merge phase fails: the extracted facts stand
    endpoint.answer("[]")
    report = LLMExtractor(_client(endpoint)).run(memory, "u")
    assert report.batches[0].kept == 1 and "merge" in report.batches[0].failures[0]
    assert [f.value for f in memory.facts("u", slot="hobbies")] == ["reading"]
    assert report.totals()["written"] == 1


def test_importance_rule():
    def item(kind: str, confidence: float) -> ExtractedFact:
        return ExtractedFact(0, kind, "likes", "v", "v", (), confidence)

    assert item("fact", 0.5).importance == 0.55 and item("fact", 1.0).importance == 0.8
    assert item("preference", 0.4).importance == 0.6 and item("decision", 0.3).importance == 0.5
    assert item("fact", 0.39).importance < 0.5


def test_client_reads_the_environment_and_refuses_without_a_model(monkeypatch, endpoint):
    monkeypatch.setenv("MEMTRACKS_LLM_BASE_URL", endpoint.url + "/")
    monkeypatch.setenv("MEMTRACKS_LLM_MODEL", "from-env")
    monkeypatch.setenv("OPENAI_API_KEY", "k-env")
    client = OpenAIClient()
    assert (client.base_url, client.model, client.api_key) == (endpoint.url, "from-env", "k-env")
    monkeypatch.delenv("MEMTRACKS_LLM_MODEL")
    with pytest.raises(LLMError, match="model"):
        OpenAIClient()


def test_cli_consolidate_with_an_llm(make_memory, tmp_path, capsys, monkeypatch, endpoint):
    import memtracks.interfaces.cli as cli

    db = str(tmp_path / "m.db")
    mem = make_memory(db)
    _say(mem, "u", ["We decided to adopt a cat next spring."])
    mem.close()
    monkeypatch.setattr(cli, "Memory", lambda path: make_memory(path))
    endpoint.answer(
        json.dumps(
            [
                {
                    "turn": 1,
                    "type": "decision",
                    "slot": "decisions",
                    "value": "adopt a cat next spring",
                    "tags": ["cat"],
                    "confidence": 0.9,
                }
            ]
        )
    )
    assert (
        main(["--db", db, "consolidate", "--user", "u", "--llm-url", endpoint.url, "--llm-model", "m", "--json"]) == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["llm"]["totals"]["written"] == 1 and out["llm"]["totals"]["calls"] == 1
