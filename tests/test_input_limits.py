"""Input that cannot break memtracks: numbers beyond the calendar are no time (never an
OverflowError), a stage that breaks on one sentence or one value loses only that, and every
stored fact and conclusion has its vector. English and Chinese, with the real toolkit."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memtracks import MemtracksError, Turn, normalize_time
from memtracks.write import stages as stages_module

REF = datetime(2024, 6, 1, 9, tzinfo=timezone.utc)
EDGES = [REF, datetime(9999, 12, 31, 23, tzinfo=timezone.utc), datetime(1, 1, 1, 1, tzinfo=timezone.utc)]

HUGE = [
    "in 99999999999999999999 days",
    "99999999999999999999 years ago",
    "999999999999 months ago",
    "2147483648 days from now",
    "for 1000000000000000000000000000000 years",
    "for 9999 years",
    "9999999999999999999999 weekends ago",
    "in 18446744073709551616 days",
    "一万亿天后",
    "99999999999999999999天前",
    "九千九百九十九年后",
    "公元前221年秦统一六国",
    "上9999999个月",
]


@pytest.mark.parametrize("text", HUGE)
@pytest.mark.parametrize("ref", EDGES, ids=["2024", "9999", "0001"])
def test_numbers_beyond_the_calendar_are_no_time(text, ref):
    found = normalize_time(text, ref)  # "now" in "2147483648 days from now" may stand alone
    assert not [m.text for m in found if any(c.isdigit() or c in "一二九千百万亿" for c in m.text)]


@pytest.mark.parametrize(
    "text,day",
    [
        ("in 5000000000 seconds", "2182-11-10"),  # far, but on the calendar
        ("I moved here 3 days ago", "2024-05-29"),
        ("我三天前去了上海", "2024-05-29"),
        ("十二月三十一日", "2023-12-31"),
    ],
)
def test_numbers_on_the_calendar_still_resolve(text, day):
    assert [m.start.date().isoformat() for m in normalize_time(text, REF)] == [day]


def test_part_of_a_number_is_not_read_as_the_whole():
    assert normalize_time("九千九百九十九年后", REF) == []  # not "九十九年后"
    assert normalize_time("我有一千二百块", REF) == []


NUMBERS = st.one_of(
    st.integers(min_value=0, max_value=10**30).map(str),
    st.sampled_from(["一", "十二", "九十九", "一百", "九千九百九十九", "一万", "一万亿", "两", "半"]),
)
TEMPLATES = st.sampled_from(
    [
        "in {} days",
        "{} weeks ago",
        "{} months ago",
        "in {} years",
        "{} hours later",
        "for {} years",
        "{} days before {}",
        "the last {} days",
        "{} quarters ago",
        "on {}/{}/2024",
        "June {}, {}",
        "{}天后",
        "{}个月前",
        "{}年后",
        "{}月{}日",
        "下{}个周三",
        "{}年{}月",
        "过了{}天",
    ]
)


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck), database=None)
@given(TEMPLATES, st.lists(NUMBERS, min_size=2, max_size=2), st.sampled_from(EDGES))
def test_any_number_in_a_time_phrase_gives_a_time_or_none(template, numbers, ref):
    text = template.format(*numbers[: template.count("{}")])
    for mention in normalize_time(text, ref):
        assert mention.start <= mention.end and mention.start.tzinfo is not None


@pytest.mark.parametrize(
    "question", ["What did I do 99999999999999999999 days ago?", "我99999999999999999999天前做了什么？", "in 1e30 days"]
)
def test_questions_with_huge_numbers_retrieve(memory, question):
    memory.write("I moved to Lisbon last month.", user_id="u", timestamp=REF)
    recall = memory.retrieve(question, user_id="u", now=REF + timedelta(days=1))
    assert isinstance(recall.cards, list)


@pytest.mark.parametrize(
    "text,value",
    [
        ("I'm moving to Denver in 99999999999999999999 days. I live in Boston.", "Boston"),
        ("我住在杭州。我99999999999999999999天后搬家。", "杭州"),
    ],
)
def test_a_turn_with_a_huge_number_keeps_its_facts(memory, text, value):
    result = memory.write(text, user_id="u", timestamp=REF)
    assert value in [f.value for f in result.facts] and not result.warnings
    assert memory.check().ok


# ---------------------------------------------------------------------- a stage that breaks


@pytest.fixture
def breaking_happenings(monkeypatch):
    """The happenings stage breaks on any sentence that names ``BREAKS`` (a bug in a stage)."""
    real = stages_module.extract_happenings

    def extract(text, *args, **kwargs):
        if any(word in text for word in ("Zalando", "腾讯")):
            raise RuntimeError("a stage bug")
        return real(text, *args, **kwargs)

    monkeypatch.setattr(stages_module, "extract_happenings", extract)


@pytest.mark.parametrize(
    "text,kept",
    [
        ("I live in Boston. I'm starting at Zalando next month. My cat is named Pixel.", {"Boston", "Pixel"}),
        ("我住在杭州。我下个月去腾讯上班。我的猫叫豆豆。", {"杭州", "豆豆"}),
    ],
)
def test_a_stage_that_breaks_on_one_sentence_keeps_the_others_facts(memory, breaking_happenings, text, kept):
    result = memory.write(text, user_id="u", timestamp=REF, turn_id="t1")
    assert any("extraction failed" in w and "1 sentence(s)" in w for w in result.warnings)
    found = {f.value.split(" (")[0].split("（")[0] for f in memory.facts("u")}
    assert kept <= found, found
    assert memory.get("u", "t1").text == text  # the words are stored whole
    assert [e.turn_id for e in memory.events("u")] == ["t1"]
    assert memory.check().ok


# ---------------------------------------------------------------------- every memory has its vector


@pytest.mark.parametrize(
    "turns",
    [
        ["I'm married to Sam."],
        ["I live in Boston. I'm married to Sam."],
        ["I work at Google. I quit Google."],
        ["我在阿里上班。我从阿里辞职了。"],
        ["我结婚了，老公叫小明。"],
        ["I'm flying to Tokyo next Wednesday.", "I had to cancel the Tokyo trip."],
        ["我下周三要去北京出差。", "北京出差取消了。"],
    ],
)
def test_every_fact_and_conclusion_has_its_vector(memory, turns):
    for n, text in enumerate(turns):
        memory.write(Turn(text, user_id="u", turn_id=f"t{n}", timestamp=REF + timedelta(days=n)))
    report = memory.check()
    assert report.ok, [str(p) for p in report.problems]
    facts = memory.facts("u", include_superseded=True)
    assert facts or memory.inferences("u", include_retracted=True)
    assert len(memory.store.vectors("u", "fact")[0]) == len(facts)


def test_only_memtracks_errors_escape_a_hostile_write(memory):
    for text in HUGE:
        try:
            memory.write(text, user_id="u", timestamp=REF)
        except MemtracksError:  # pragma: no cover - none expected
            pass
    assert memory.check().ok


# ---------------------------------------------------------------------- what a caller sends


def test_metadata_json_cannot_hold_is_stored_as_text_with_a_warning(memory):
    when = datetime(2024, 1, 1, 9)
    result = memory.write(
        "I live in Paris.", user_id="u", timestamp=REF, metadata={"when": when, "tags": {"a"}, "频道": "微信"}
    )
    assert len(result.warnings) == 2 and all("is not JSON; stored as text" in w for w in result.warnings)
    assert "(datetime)" in result.warnings[0] and "(set)" in result.warnings[1]
    stored = memory.get("u", result.turn.turn_id).metadata
    assert stored == {"when": str(when), "tags": "{'a'}", "频道": "微信"}
    plain = memory.write("我住在成都。", user_id="u", timestamp=REF, metadata={"频道": "微信", "n": 1})
    assert plain.warnings == ()


@pytest.mark.parametrize("queued", [False, True])
@pytest.mark.parametrize("text,other", [("I live in Paris.", "I live in Rome."), ("我住在杭州。", "我住在成都。")])
def test_a_turn_id_reused_with_other_content_is_the_same_error_sync_or_async(
    make_memory, tmp_path, queued, text, other
):
    from memtracks.errors import DuplicateTurnError

    memory = make_memory(tmp_path / "m.db", async_writes=queued)
    memory.write(text, user_id="u", turn_id="x", timestamp=REF)
    with pytest.raises(DuplicateTurnError, match="'x'"):  # while it is queued (or just written)
        memory.write(other, user_id="u", turn_id="x", timestamp=REF)
    memory.flush()
    with pytest.raises(DuplicateTurnError, match="'x'"):  # once it is stored
        memory.write(other, user_id="u", turn_id="x", timestamp=REF)
    again = memory.write(text, user_id="u", turn_id="x", timestamp=REF)
    assert again.duplicate and not again.queued
    memory.flush()
    assert [e.text for e in memory.events("u")] == [text]


JSONL_LINES = [
    '{"user_id": "u", "text": "I live in Boston.", "timestamp": "2024-05-01T09:00:00+00:00"}',
    '{"user_id": "u", "text": "我搬到深圳了。"}',
    '{"user_id": "u", "text": "I moved to Denver.", "timestamp": "2024-05-03T09:00:00+00:00"}',
]


def test_a_jsonl_line_without_a_timestamp_is_an_error_unless_a_time_is_given(tmp_path, capsys):
    from memtracks.interfaces.cli import main

    path, db = tmp_path / "turns.jsonl", tmp_path / "m.db"
    path.write_text("\n".join(JSONL_LINES) + "\n", encoding="utf-8")
    assert main(["--db", str(db), "ingest", str(path), "-q"]) == 2
    err = capsys.readouterr().err
    assert f"{path}:2" in err and '"timestamp"' in err and "--at" in err
    assert not db.exists()  # nothing written: every line is checked first
    assert main(["--db", str(db), "ingest", str(path), "-q", "--at", "2024-05-02T09:00:00+08:00"]) == 0
    assert main(["--db", str(db), "show", "--user", "u", "--json"]) == 0
    shown = capsys.readouterr().out
    assert "2024-05-02T09:00:00+08:00" in shown and "深圳" in shown


def test_read_jsonl_fills_in_the_time_only_when_told(tmp_path):
    from memtracks.errors import InvalidTurnError
    from memtracks.interfaces.io import read_jsonl

    path = tmp_path / "turns.jsonl"
    path.write_text("\n".join(JSONL_LINES) + "\n", encoding="utf-8")
    with pytest.raises(InvalidTurnError, match=r"turns.jsonl:2: no \"timestamp\""):
        list(read_jsonl(path))
    when = datetime(2024, 5, 2, 9, tzinfo=timezone.utc)
    items = list(read_jsonl(path, default_time=when))
    assert items[1]["timestamp"] == when and items[0]["timestamp"] == "2024-05-01T09:00:00+00:00"
