"""The write gate keeps noise out of the fact track and still stores the turn."""

from __future__ import annotations

import pytest
from conftest import at

from memtracks import DataFileError, Memory
from memtracks.config import MemoryConfig, WriterConfig
from memtracks.data.lexicons import default_lexicons
from memtracks.write.gate import default_gate, load_gate

T0 = at(2024, 6, 10, 9)

NOISE = [
    ("Hi there!", "greeting"),
    ("Thank you so much!", "greeting"),
    ("ok, bye", "greeting"),
    ("good morning :)", "greeting"),
    ("你好呀！", "greeting"),
    ("謝謝啦", "greeting"),
    ("好的，再見", "greeting"),
    ('{"city": "Paris", "employer": "Google", "ok": true}', "tool_output"),
    ("2024-05-01 10:00:01,120 INFO uvicorn: application startup complete", "tool_output"),
    (
        "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n    main()\nKeyError: 'home'",
        "tool_output",
    ),
    ("$ cd ~/projects/berlin && git status\nOn branch main", "command_log"),
    (">>> import os\n>>> os.getcwd()", "command_log"),
    ("/home/alice/Documents/moving_to_berlin.pdf", "path"),
    ("C:\\Users\\Wang\\Desktop\\上海\\简历.docx", "path"),
    ("https://maps.example.com/place/Lisbon", "path"),
    ("[fact] user lives in: Shanghai (conf 0.90, since 2024-05-01)", "recall_loop"),
    (
        "Relevant memories (as of 2024-06-01):\n[fact] user works at: Google (conf 0.90, since 2024-01-02)\n"
        "[event] 2024-05-20 user: I'm flying to Tokyo next week [2024-05-27] (conf 0.80)",
        "recall_loop",
    ),
    ("相关记忆（截至 2024-06-01）：\n[事实] user 居住地：杭州（置信度 0.90，自 2024-05-01）", "recall_loop"),
    ("[事實] user 居住地：杭州（置信度 0.90，自 2024-05-01）", "recall_loop"),
]

CLEAN = [
    "Hi! I moved to Lisbon last month.",
    "Thanks! By the way, my sister Anna lives in Berlin.",
    "WARNING: I'm allergic to peanuts, remember that.",
    "I keep my notes in a folder on my desktop.",
    "你好，我上个月搬到杭州了。",
    "謝謝！我下週要去東京出差。",
    "I love hiking and/or biking on weekends.",
    "My favourite error message is a typo in my own name.",
]


@pytest.mark.parametrize("text,kind", NOISE)
def test_gate_recognises_noise(text, kind):
    screen = default_gate().screen(text, default_lexicons().to_simplified)
    assert screen.blocked, text
    assert kind in screen.kinds


@pytest.mark.parametrize("text", CLEAN)
def test_gate_lets_statements_through(text):
    screen = default_gate().screen(text, default_lexicons().to_simplified)
    assert not screen.blocked
    assert screen.masked.strip() == text.strip()


def test_gate_windows_stack_frame_is_not_a_bare_path_and_screens_at_once():
    # A Jupyter traceback line pasted from Windows: a path followed by code. Tried against the
    # path rule, it once backtracked over every split of the folder names and never returned.
    frame = "C:\\ProgramData\\Anaconda3\\lib\\site-packages\\matplotlib\\artist.py in draw\\_wrapper(artist, renderer)"
    text = f"My plot fails with this:\n{frame}\nI started learning matplotlib last week."
    screen = default_gate().screen(text, default_lexicons().to_simplified)
    assert "path" not in screen.kinds
    assert frame in screen.masked
    bare = default_gate().screen("C:\\ProgramData\\Anaconda3\\lib\\site-packages\\")
    assert bare.blocked and "path" in bare.kinds


def test_gate_blanks_noise_lines_and_keeps_offsets():
    text = "Here's the log:\n$ ls ~/docs\nERROR: file not found\n\nAnyway, I started at Google last week."
    screen = default_gate().screen(text)
    assert not screen.blocked
    assert len(screen.masked) == len(text)
    assert "ls ~/docs" not in screen.masked
    assert screen.masked.endswith("I started at Google last week.")


@pytest.mark.parametrize(
    "noise,stated,slot,value",
    [
        ("[fact] user lives in: Shanghai (conf 0.90, since 2024-05-01)", "I live in Boston.", "lives_in", "Boston"),
        ('{"employer": "Acme", "city": "Denver"}', "I work at Microsoft.", "employer", "Microsoft"),
        ("[事实] user 居住地：上海（置信度 0.90，自 2024-05-01）", "我住在杭州。", "lives_in", "杭州"),
        (
            "相关记忆（截至 2024-06-01）：\n[事實] user 工作单位：阿里巴巴（置信度 0.90）",
            "我在腾讯工作。",
            "employer",
            "腾讯",
        ),
    ],
)
def test_gate_recall_loop_never_becomes_a_fact(memory, noise, stated, slot, value):
    memory.write(stated, user_id="u", timestamp=T0)
    result = memory.write(noise, user_id="u", timestamp=at(2024, 6, 11, 9))
    assert result.facts == () and result.superseded == ()
    assert any("write gate" in w for w in result.warnings)
    assert result.event is not None  # the turn is stored
    assert memory.get("u", result.turn.turn_id, kind="turn") is not None
    current = memory.facts("u", slot=slot)
    assert [f.value for f in current] == [value]


def test_gate_mixed_turn_keeps_the_users_words(memory):
    text = (
        "ugh, the deploy broke again:\n"
        "Traceback (most recent call last):\n"
        '  File "/srv/app/main.py", line 12, in <module>\n'
        "    run()\n"
        "RuntimeError: cannot connect to db-shanghai-01\n"
        "\n"
        "Anyway, I moved to Denver last month."
    )
    result = memory.write(text, user_id="u", timestamp=T0)
    assert [(f.slot, f.value) for f in result.facts] == [("lives_in", "Denver")]
    assert any("tool output" in w for w in result.warnings)


def test_gate_can_be_turned_off(make_memory):
    mem = make_memory(config=MemoryConfig(writer=WriterConfig(gate=False)))
    result = mem.write("[fact] I live in Shanghai", user_id="u", timestamp=T0)
    assert not any("write gate" in w for w in result.warnings)


def test_gate_greeting_turn_is_stored_and_retrievable(memory):
    result = memory.write("Good morning!", user_id="u", timestamp=T0)
    assert result.facts == ()
    assert memory.stats("u")["events"] == 1


def test_gate_bad_rule_names_file_entry_field(tmp_path):
    path = tmp_path / "gate.yaml"
    path.write_text(
        "gate:\n"
        "  - {id: ok.rule, kind: greeting, scope: text, pattern: '^hi$'}\n"
        "  - {id: bad.kind, kind: spam, scope: line, pattern: 'x'}\n"
        "  - {id: bad.regex, kind: path, scope: line, pattern: '(unclosed'}\n",
        encoding="utf-8",
    )
    with pytest.raises(DataFileError) as info:
        load_gate(path)
    message = str(info.value)
    assert str(path) in message
    assert "gate[1] 'bad.kind'" in message and "kind" in message
    assert "gate[2] 'bad.regex'" in message and "pattern" in message


def test_gate_own_rules_from_rules_dir(tmp_path, toolkit, embedder):
    (tmp_path / "gate.yaml").write_text(
        "gate:\n  - {id: bot.signature, kind: tool_output, scope: line, pattern: '^-- sent by \\w+bot$'}\n",
        encoding="utf-8",
    )
    mem = Memory(rules_dir=tmp_path, embedder=embedder, toolkit=toolkit)
    try:
        result = mem.write("-- sent by relaybot", user_id="u", timestamp=T0)
        assert any("bot.signature" in w for w in result.warnings)
        assert mem.write("Hi!", user_id="u", timestamp=T0).warnings  # bundled rules still apply
    finally:
        mem.close()
