"""The optional QA stage of the benchmark harness: scoring, judge parsing, the HTTP client.

No test touches the network beyond a local ``http.server`` bound to 127.0.0.1.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import socket
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

import benchmarks.llm
from benchmarks.qa import (
    ChatClient,
    LLMConfig,
    LLMError,
    QAItem,
    QAResult,
    ScriptedLLM,
    answer_question,
    config_from_env,
    judge_answer,
    locomo_f1,
    normalize_answer,
    run_qa,
    summarize,
    token_f1,
)
from memtracks.errors import MemtracksError

SECRET = "sk-test-SECRET-0123456789"


# --- scoring -------------------------------------------------------------------------------


def test_bench_qa_normalize_answer():
    assert normalize_answer("The Cat, and a Dog!") == "cat dog"
    assert normalize_answer("  An  apple-pie.  ") == "applepie"
    assert normalize_answer("Theatre and  art") == "theatre art"  # whole words only
    assert normalize_answer("7 May 2023") == "7 may 2023"
    assert normalize_answer("") == ""


def test_bench_qa_token_f1_hand_computed():
    # pred "went to Paris in May" -> [went, to, paris, in, may] (5 tokens)
    # gold "Paris, in May 2023"   -> [paris, in, may, 2023]      (4 tokens)
    # common = {paris, in, may} = 3; P = 3/5, R = 3/4; F1 = 2*0.6*0.75/1.35 = 0.9/1.35 = 2/3
    assert token_f1("went to Paris in May", "Paris, in May 2023") == pytest.approx(2 / 3)
    assert token_f1("The Beach", "beach") == 1.0
    assert token_f1("Boston", "Chicago") == 0.0
    assert token_f1("", "") == 1.0
    assert token_f1("", "x") == 0.0
    # repeated tokens count once each: pred [yes, yes], gold [yes] -> common 1, P 1/2, R 1
    assert token_f1("yes yes", "yes") == pytest.approx(2 / 3)


def test_bench_qa_locomo_f1_multi_hop_category_1():
    # gold parts: "pottery", "painting", "hiking"; prediction parts: "painting", "pottery class"
    #   pottery : best of F1(painting)=0, F1(pottery class)= P 1/2, R 1 -> 2/3
    #   painting: F1(painting)=1
    #   hiking  : 0
    # mean = (2/3 + 1 + 0) / 3 = 5/9
    score = locomo_f1("painting, pottery class", "pottery, painting, hiking", 1)
    assert score == pytest.approx(5 / 9)
    assert locomo_f1("hiking, painting, pottery", "pottery, painting, hiking", 1) == 1.0


def test_bench_qa_locomo_f1_categories_2_to_4_and_int_gold():
    assert locomo_f1("2022", 2022, 2) == 1.0
    # [in, 2022] vs [2022]: common 1, P 1/2, R 1 -> 2/3
    assert locomo_f1("in 2022", 2022, 2) == pytest.approx(2 / 3)
    assert locomo_f1("Yes", "yes", 3) == 1.0
    assert locomo_f1("a sunset painting", "painting of a sunset", 4) == pytest.approx(
        token_f1("sunset painting", "painting of sunset")
    )
    # [sunset, painting] vs [painting, of, sunset]: P 2/2, R 2/3 -> 2*(2/3)/(5/3) = 0.8
    assert locomo_f1("a sunset painting", "painting of a sunset", 4) == pytest.approx(0.8)


def test_bench_qa_locomo_f1_category_5_both_ways():
    assert locomo_f1("Not mentioned in the memories.", "", 5) == 1.0
    assert locomo_f1("There is no information about that.", "dance", 5) == 1.0
    assert locomo_f1("That detail is not available.", "x", 5) == 1.0
    assert locomo_f1("She went to Paris", "Paris", 5) == 0.0


def test_bench_qa_locomo_f1_category_3_uses_gold_before_semicolon_and_rejects_unknown():
    assert locomo_f1("likely yes", "Likely yes; she enjoys reading", 3) == 1.0
    assert locomo_f1("cats", "cats", 4) == 1.0
    with pytest.raises(ValueError, match="1, 2, 3, 4 or 5"):
        locomo_f1("x", "x", 6)


# --- answering, judging, run_qa, summarize --------------------------------------------------


def test_bench_qa_answer_question_prompt_and_strip():
    llm = ScriptedLLM(["  7 May 2023 \n"])
    answer = answer_question(
        llm, "When did Mel paint?", "[2023-05-08] Mel: I painted yesterday", question_date="2023-06-01"
    )
    assert answer == "7 May 2023"
    (call,) = llm.calls
    text = "\n".join(m["content"] for m in call["messages"])
    assert "I painted yesterday" in text and "When did Mel paint?" in text
    assert "2023-06-01" in text and "not mentioned" in text.lower() and "short phrase" in text


def test_bench_qa_answer_question_drops_think_block():
    llm = ScriptedLLM(["<think>dates...</think>\n Paris "])
    assert answer_question(llm, "Where?", "ctx") == "Paris"


@pytest.mark.parametrize(
    "reply, expected",
    [
        ('{"label": "CORRECT"}', True),
        ('{"label": "WRONG"}', False),
        ('The answer names the same city. {"label": "CORRECT"}', True),
        ('Reasoning: wrong year.\n```json\n{"label": "wrong"}\n```', False),
        ("CORRECT", True),
        ("  wrong\n", False),
        ("INCORRECT", False),
        ("<think>maybe CORRECT, maybe WRONG</think> CORRECT", True),
    ],
)
def test_bench_qa_judge_parses_json_prose_and_bare_word(reply, expected):
    llm = ScriptedLLM([reply])
    assert judge_answer(llm, "Where?", "Paris", "in Paris") is expected
    prompt = llm.calls[0]["messages"][-1]["content"]
    assert "Gold answer: Paris" in prompt and "Generated answer: in Paris" in prompt
    assert '"label"' in prompt


@pytest.mark.parametrize("reply", ["I am not sure.", "", "CORRECT or WRONG, hard to say"])
def test_bench_qa_judge_unparseable_raises(reply):
    with pytest.raises(LLMError, match="judge reply"):
        judge_answer(ScriptedLLM([reply]), "q", "gold", "pred")


def test_bench_qa_scripted_llm_empty_raises_and_enqueue():
    llm = ScriptedLLM()
    with pytest.raises(LLMError, match="no replies left"):
        llm.complete([{"role": "user", "content": "hi"}])
    llm.enqueue("a", "b")
    assert llm.complete([], max_tokens=5) == "a" and llm.complete([]) == "b"
    assert [c["max_tokens"] for c in llm.calls] == [200, 5, 200]


def _items() -> list[QAItem]:
    return [
        QAItem("q1", "Where does Mel live?", "Boston", "4", "ctx1", locomo_category=4),
        QAItem("q2", "What did Mel buy?", "red car", "4", "ctx2", locomo_category=4),
        QAItem("q3", "Hobbies?", "pottery, painting", "1", "ctx3", locomo_category=1),
        QAItem("q4", "Dog's name?", "Rex", "5", "ctx4", locomo_category=5),
    ]


def test_bench_qa_run_qa_and_summarize_by_category():
    llm = ScriptedLLM(
        [
            "Boston",
            '{"label": "CORRECT"}',  # q1: F1 1.0, correct
            "a blue car",
            '{"label": "WRONG"}',  # q2: [blue, car] vs [red, car]: F1 1/2
            "painting",
            "CORRECT",  # q3: (0 + 1) / 2 = 0.5
            "Not mentioned in the memories.",
            "WRONG",  # q4: category 5 -> 1.0
        ]
    )
    seen = []
    results = run_qa(llm, iter(_items()), progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert [r.prediction for r in results] == ["Boston", "a blue car", "painting", "Not mentioned in the memories."]
    assert [r.f1 for r in results] == pytest.approx([1.0, 0.5, 0.5, 1.0])
    assert [r.judged_correct for r in results] == [True, False, True, False]
    # calls alternate answer, judge; the judge sees the prediction it grades
    assert "Generated answer: a blue car" in llm.calls[3]["messages"][-1]["content"]

    s = summarize(results)
    assert s["n"] == 4
    assert s["f1"] == pytest.approx(3.0 / 4)  # (1 + .5 + .5 + 1) / 4
    assert s["judge_accuracy"] == pytest.approx(0.5)  # 2 of 4
    assert list(s["by_category"]) == ["1", "4", "5"]
    assert s["by_category"]["4"] == {"f1": pytest.approx(0.75), "judge_accuracy": 0.5, "n": 2}
    assert s["by_category"]["1"] == {"f1": pytest.approx(0.5), "judge_accuracy": 1.0, "n": 1}
    assert s["by_category"]["5"] == {"f1": 1.0, "judge_accuracy": 0.0, "n": 1}


def test_bench_qa_run_qa_without_judge_and_plain_token_f1():
    items = [
        QAItem("a", "Q?", "the Blue House", "single-session-user", "ctx"),
        QAItem("b", "Q?", "Rex", "multi-session", "ctx", question_date="2023/05/20"),
    ]
    llm = ScriptedLLM(["blue house", "Not mentioned"])
    results = run_qa(llm, items, judge=False)
    assert len(llm.calls) == 2
    # no locomo_category -> token_f1, so "Not mentioned" vs "Rex" is 0 (no category-5 rule)
    assert results == [
        QAResult("a", "single-session-user", "blue house", 1.0, None),
        QAResult("b", "multi-session", "Not mentioned", 0.0, None),
    ]
    s = summarize(results)
    assert s["judge_accuracy"] is None and s["f1"] == 0.5
    assert s["by_category"]["multi-session"] == {"f1": 0.0, "judge_accuracy": None, "n": 1}
    assert summarize([]) == {"f1": None, "judge_accuracy": None, "n": 0, "by_category": {}}


# --- ChatClient against a local HTTP server ----------------------------------------------------


class _Server:
    """Replies from a script of (status, body, headers); records every request."""

    def __init__(self) -> None:
        self.script: list[tuple[int, bytes, dict[str, str]]] = []
        self.requests: list[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                outer.requests.append(
                    {"path": self.path, "headers": dict(self.headers), "body": json.loads(self.rfile.read(length))}
                )
                status, body, headers = outer.script.pop(0) if outer.script else (500, b"", {})
                self.send_response(status)
                for name, value in {"Content-Type": "application/json", **headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self.httpd = HTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def reply(self, status: int, body: bytes | dict, **headers: str) -> None:
        raw = json.dumps(body).encode() if isinstance(body, dict) else body
        self.script.append((status, raw, headers))


def _ok(text: str) -> dict:
    return {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}


@pytest.fixture
def server() -> Iterator[_Server]:
    srv = _Server()
    thread = threading.Thread(target=srv.httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()
    thread.join(timeout=5)


def _client(
    server: _Server, *, key: str | None = None, retries: int = 3, sleeps: list[float] | None = None
) -> ChatClient:
    config = LLMConfig(
        base_url=server.base_url + "/",
        model="test-model",
        api_key=key,
        timeout=5.0,
        max_retries=retries,
        temperature=0.0,
    )
    return ChatClient(config, sleep=(sleeps.append if sleeps is not None else lambda s: None))


MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]


def test_bench_qa_client_request_shape_with_key(server):
    server.reply(200, _ok("hello"))
    assert _client(server, key=SECRET).complete(MESSAGES, max_tokens=50) == "hello"
    (req,) = server.requests
    assert req["path"] == "/v1/chat/completions"
    assert req["body"] == {"model": "test-model", "messages": MESSAGES, "temperature": 0.0, "max_tokens": 50}
    assert req["headers"]["Authorization"] == f"Bearer {SECRET}"
    assert req["headers"]["Content-Type"] == "application/json"


def test_bench_qa_client_no_authorization_without_key(server):
    server.reply(200, _ok("ok"))
    assert _client(server).complete(MESSAGES) == "ok"
    assert "Authorization" not in server.requests[0]["headers"]


def test_bench_qa_client_retries_500_then_succeeds(server, caplog):
    server.reply(500, b'{"error": "boom"}')
    server.reply(200, _ok("second time"))
    sleeps: list[float] = []
    with caplog.at_level(logging.WARNING, logger="benchmarks.llm"):
        assert _client(server, key=SECRET, sleeps=sleeps).complete(MESSAGES) == "second time"
    assert len(server.requests) == 2 and sleeps == [1.0]
    assert "HTTP 500" in caplog.text and SECRET not in caplog.text


def test_bench_qa_client_retries_429_with_backoff(server):
    server.reply(429, {"error": {"message": "rate limited"}})
    server.reply(429, {"error": {"message": "rate limited"}}, **{"Retry-After": "5"})
    server.reply(200, _ok("done"))
    sleeps: list[float] = []
    assert _client(server, sleeps=sleeps).complete(MESSAGES) == "done"
    assert len(server.requests) == 3
    assert sleeps == [1.0, 5.0]  # exponential 1, then 2 raised to the server's Retry-After


def test_bench_qa_client_400_raises_without_retry_or_key(server):
    server.reply(400, {"error": {"message": f"Incorrect API key provided: {SECRET}"}})
    sleeps: list[float] = []
    with pytest.raises(LLMError) as info:
        _client(server, key=SECRET, sleeps=sleeps).complete(MESSAGES)
    assert len(server.requests) == 1 and sleeps == []
    assert "HTTP 400" in str(info.value) and "Incorrect API key" in str(info.value)
    assert SECRET not in str(info.value) and SECRET not in repr(info.value)
    assert info.value.status == 400
    assert isinstance(info.value, MemtracksError) and isinstance(info.value, RuntimeError)


@pytest.mark.parametrize(
    "body",
    [
        b"not json at all",
        b'{"choices": []}',
        b'{"error": {"message": "model not found"}}',
        b'{"choices": [{"message": {"content": null}}]}',
    ],
)
def test_bench_qa_client_malformed_response_raises(server, body):
    server.reply(200, body)
    with pytest.raises(LLMError):
        _client(server).complete(MESSAGES)
    assert len(server.requests) == 1


def test_bench_qa_client_retries_exhausted_raises(server):
    for _ in range(3):
        server.reply(503, b"unavailable")
    sleeps: list[float] = []
    with pytest.raises(LLMError, match="gave up after 3 attempt") as info:
        _client(server, key=SECRET, retries=2, sleeps=sleeps).complete(MESSAGES)
    assert len(server.requests) == 3 and sleeps == [1.0, 2.0]
    assert info.value.status == 503 and SECRET not in str(info.value)


def test_bench_qa_client_connection_refused_retried_then_raises():
    with socket.socket() as sock:  # grab a free port, then close it so nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    sleeps: list[float] = []
    config = LLMConfig(base_url=f"http://127.0.0.1:{port}/v1", model="m", api_key=SECRET, timeout=2.0, max_retries=1)
    with pytest.raises(LLMError, match="connection error") as info:
        ChatClient(config, sleep=sleeps.append).complete(MESSAGES)
    assert sleeps == [1.0] and SECRET not in str(info.value)


def test_bench_qa_client_rejects_non_http_url_and_hides_key_in_repr():
    with pytest.raises(LLMError, match="http"):
        ChatClient(LLMConfig(base_url="file:///etc/passwd", model="m"))
    assert SECRET not in repr(LLMConfig(base_url="http://x/v1", model="m", api_key=SECRET))


# --- config_from_env --------------------------------------------------------------------------


def test_bench_qa_config_from_env_reads_given_mapping():
    env = {
        "MEMTRACKS_LLM_BASE_URL": "http://env/v1",
        "MEMTRACKS_LLM_MODEL": "env-model",
        "MEMTRACKS_LLM_API_KEY": "env-key",
        "OPENAI_BASE_URL": "http://openai/v1",
        "OPENAI_API_KEY": "openai-key",
    }
    assert config_from_env(environ=env) == LLMConfig("http://env/v1", "env-model", "env-key")
    explicit = config_from_env("http://arg/v1", "arg-model", "arg-key", environ=env)
    assert explicit == LLMConfig("http://arg/v1", "arg-model", "arg-key")


def test_bench_qa_config_from_env_openai_fallbacks_and_missing():
    env = {"OPENAI_BASE_URL": "http://openai/v1", "OPENAI_API_KEY": "openai-key"}
    assert config_from_env(environ=env) is None  # no model anywhere
    assert config_from_env(model="m", environ=env) == LLMConfig("http://openai/v1", "m", "openai-key")
    assert config_from_env(environ={"MEMTRACKS_LLM_MODEL": "m"}) is None  # no URL
    assert config_from_env(base_url="http://local/v1", model="m", environ={}).api_key is None
    assert config_from_env(environ={}) is None


def test_bench_qa_config_from_env_reads_os_environ_at_call_time(monkeypatch):
    monkeypatch.setenv("MEMTRACKS_LLM_BASE_URL", "http://late/v1")
    monkeypatch.setenv("MEMTRACKS_LLM_MODEL", "late-model")
    monkeypatch.delenv("MEMTRACKS_LLM_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert config_from_env() == LLMConfig("http://late/v1", "late-model", None)


class _ExplodingEnviron(dict):
    def __getitem__(self, key):
        raise AssertionError(f"os.environ[{key!r}] read at import")

    def get(self, key, default=None):
        raise AssertionError(f"os.environ.get({key!r}) at import")

    def __contains__(self, key):
        raise AssertionError(f"{key!r} in os.environ at import")


@pytest.mark.parametrize("module", ["llm", "qa"])
def test_bench_qa_modules_do_not_read_environ_at_import(monkeypatch, module):
    path = Path(benchmarks.llm.__file__).with_name(f"{module}.py")
    spec = importlib.util.spec_from_file_location(f"_fresh_bench_{module}", path)
    fresh = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, fresh)  # dataclasses look the module up
    monkeypatch.setattr(os, "environ", _ExplodingEnviron())
    spec.loader.exec_module(fresh)  # would raise if the module touched the environment
    assert fresh.config_from_env(environ={}) is None
