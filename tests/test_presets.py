"""Named search presets: each changes what it says it changes, "default" changes nothing,
explicit arguments win, and an unknown name is refused with the names listed."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from memtracks import Memory
from memtracks.config import FusionConfig, MemoryConfig, RetrievalConfig
from memtracks.errors import UnknownNameError
from memtracks.interfaces.cli import main
from memtracks.retrieval.presets import PRESETS, Preset, preset

T0 = datetime(2024, 1, 1, 9, tzinfo=timezone.utc)
NOW = T0 + timedelta(days=122)
EN = [
    (0, "I live in Shanghai with my wife Anna."),
    (1, "I work at Google as a software engineer."),
    (3, "Last weekend I went hiking in the mountains near Hangzhou."),
    (10, "I started learning the violin this month."),
    (20, "We adopted a cat called Miso yesterday."),
    (35, "I flew to Tokyo for a conference last week."),
    (50, "My sister Leah got married in Boston."),
    (70, "I ran my first half marathon on Sunday."),
    (90, "I bought a new car, a blue Tesla Model 3."),
    (110, "We went to a jazz concert downtown last night."),
    (120, "I went hiking again, this time in the Alps."),
    (121, "I just started a pottery class on Tuesdays."),
]
ZH = [
    (0, "我住在北京，和我老公一起。"),
    (1, "我在腾讯当产品经理。"),
    (5, "上周末我去爬了香山。"),
    (15, "我这个月开始学钢琴了。"),
    (30, "我们昨天养了一只狗，叫豆豆。"),
    (45, "我上周去上海出差了。"),
    (60, "我妹妹在广州结婚了。"),
    (80, "我周日跑了第一个半程马拉松。"),
    (100, "我买了一辆新车，是比亚迪。"),
    (118, "我们昨晚去听了一场音乐会。"),
    (120, "我又去爬山了，这次是黄山。"),
    (121, "我最近开始上陶艺课了。"),
]
QUESTIONS = {
    "en": ["Where do I live?", "What have I been up to lately?", "What did I do?", "What hobbies do I have?"],
    "zh": ["我住在哪里？", "我最近在做什么？", "我做了什么？", "我有哪些爱好？"],
}


@pytest.fixture(scope="module")
def db(tmp_path_factory, toolkit, embedder):
    path = tmp_path_factory.mktemp("presets") / "m.db"
    with Memory(path, toolkit=toolkit, embedder=embedder) as mem:
        for user, turns in (("en", EN), ("zh", ZH)):
            for n, (day, text) in enumerate(turns):
                mem.write(text, user_id=user, timestamp=T0 + timedelta(days=day), session_id=f"s{n}")
    return path


@pytest.fixture(scope="module")
def mem(db, toolkit, embedder):
    with Memory(db, toolkit=toolkit, embedder=embedder, read_only=True) as memory:
        yield memory


def _ask(mem, user, question, **kwargs):
    return mem.retrieve(question, user_id=user, now=NOW, **kwargs)


def _said(mem, user, card) -> datetime:
    return mem.get(user, card.ref).mentioned_at


def _seen(recall):
    return [c.to_dict() for c in recall.cards], recall.candidates, recall.render().text


@pytest.mark.parametrize("user", ["en", "zh"])
def test_default_is_no_preset_exactly(mem, user) -> None:
    assert preset("default").config(mem.config) is mem.config
    for question in QUESTIONS[user]:
        assert _seen(_ask(mem, user, question, preset="default")) == _seen(_ask(mem, user, question))


@pytest.mark.parametrize(("user", "question"), [("en", "Where do I live?"), ("zh", "我住在哪里？")])
def test_facts_first_leads_with_facts_and_brings_fewer_turns(mem, user, question) -> None:
    plain, first = _ask(mem, user, question), _ask(mem, user, question, preset="facts_first")
    assert first.cards[0].track == "fact" and first.cards[0].explain["confidence_weight"] == 1.0
    assert plain.cards[0].explain["confidence_weight"] == 0.9
    assert first.cards[0].score > plain.cards[0].score
    assert {c.explain["confidence_weight"] for c in first.cards if c.track == "temporal"} == {0.6}
    assert first.candidates < plain.candidates  # fewer event candidates
    events = [sum(c.track == "temporal" for c in r.cards) for r in (plain, first)]
    assert events[1] < events[0]


def test_facts_first_weighs_a_fact_found_by_meaning_up(mem) -> None:
    plain, first = _ask(mem, "zh", "我有哪些爱好？"), _ask(mem, "zh", "我有哪些爱好？", preset="facts_first")
    assert [c.explain["confidence_weight"] for c in plain.cards if c.track == "fact"] == [0.7, 0.7]
    assert [c.explain["confidence_weight"] for c in first.cards if c.track == "fact"] == [0.9, 0.9]


@pytest.mark.parametrize(("user", "question"), [("en", "What have I been up to lately?"), ("zh", "我最近在做什么？")])
def test_recent_puts_the_newest_first(mem, user, question) -> None:
    plain, recent = _ask(mem, user, question), _ask(mem, user, question, preset="recent")
    newest = NOW - timedelta(days=5)
    assert all(_said(mem, user, c) >= newest for c in recent.cards[:2])
    assert not all(_said(mem, user, c) >= newest for c in plain.cards[:2])
    old = [c for c in recent.cards if _said(mem, user, c) < NOW - timedelta(days=60)]
    assert old and all(c.explain["recency"] < 0.5 for c in old)
    assert all(c.explain["recency"] >= 0.8 for c in plain.cards)


@pytest.mark.parametrize(("user", "question"), [("en", "What did I do?"), ("zh", "我做了什么？")])
def test_wide_reads_more_and_shows_more(mem, user, question) -> None:
    plain, wide = _ask(mem, user, question), _ask(mem, user, question, preset="wide")
    assert len(plain.cards) == 5 and 5 < len(wide.cards) <= 10
    assert [c.ref for c in wide.cards[:5]] == [c.ref for c in plain.cards]


@pytest.mark.parametrize("user", ["en", "zh"])
def test_precise_shows_fewer_surer_cards(mem, user) -> None:
    for question in QUESTIONS[user]:
        plain, sure = _ask(mem, user, question), _ask(mem, user, question, preset="precise")
        assert 1 <= len(sure.cards) <= 3 and len(sure.cards) < len(plain.cards)
        assert all(c.score >= 0.5 * sure.cards[0].score for c in sure.cards)
    assert [c.track for c in _ask(mem, user, QUESTIONS[user][0], preset="precise").cards] == ["fact"]


def test_explicit_arguments_win_over_the_preset(mem) -> None:
    assert len(_ask(mem, "en", "What did I do?", preset="wide", top_n=2).cards) == 2
    assert len(_ask(mem, "zh", "我做了什么？", preset="precise", top_n=5).cards) > 3
    plain = _ask(mem, "en", "Where do I live?")
    assert _ask(mem, "en", "Where do I live?", preset="facts_first", k={"temporal": 15}).candidates == plain.candidates


def test_an_unknown_preset_is_refused_with_the_names(mem) -> None:
    with pytest.raises(UnknownNameError) as caught:
        _ask(mem, "en", "Where do I live?", preset="newest")
    assert "'newest'" in str(caught.value)
    assert all(name in str(caught.value) for name in ("default", "facts_first", "recent", "wide", "precise"))


def test_a_preset_sets_only_settings_that_exist() -> None:
    assert list(PRESETS) == ["default", "facts_first", "recent", "wide", "precise"]
    base = MemoryConfig()
    for p in PRESETS.values():
        made = p.config(base)
        for name, value in p.retrieval.items():
            assert getattr(made.retrieval, name) == value != getattr(RetrievalConfig(), name)
        for name, value in p.fusion.items():
            assert getattr(made.fusion, name) == value != getattr(FusionConfig(), name)
    with pytest.raises(UnknownNameError, match="FusionConfig has no field recency_boost"):
        Preset("mine", "nothing", fusion={"recency_boost": 2.0})


def test_the_cli_takes_a_preset(db, toolkit, embedder, monkeypatch, capsys) -> None:
    import memtracks.interfaces.cli as cli

    monkeypatch.setattr(cli, "Memory", lambda path: Memory(path, toolkit=toolkit, embedder=embedder))
    now = NOW.isoformat()
    for user, question in (("en", "What did I do?"), ("zh", "我做了什么？")):
        assert main(["--db", str(db), "recall", question, "--user", user, "--now", now, "--json"]) == 0
        plain = json.loads(capsys.readouterr().out)["cards"]
        ask = ["--db", str(db), "recall", question, "--user", user, "--now", now, "--json", "--preset", "precise"]
        assert main(ask) == 0
        sure = json.loads(capsys.readouterr().out)["cards"]
        assert len(plain) == 5 and 1 <= len(sure) <= 3
    with pytest.raises(SystemExit):
        main(["--db", str(db), "recall", "What did I do?", "--user", "en", "--preset", "newest"])
    err = capsys.readouterr().err
    assert "newest" in err and "facts_first" in err and "precise" in err
