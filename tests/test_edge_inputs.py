"""Bad input at the public edge: every problem is a MemtracksError subclass with a message,
never a TypeError, OverflowError, UnicodeEncodeError or a silent no-op; identifiers follow one
rule on reads and writes alike; limits are clear errors."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone, tzinfo

import pytest

from memtracks import InvalidTimeError, InvalidTurnError, MemtracksError, Turn, normalize_time
from memtracks.config import Limits, MemoryConfig
from memtracks.errors import ClosedError, LimitError, NotFoundError
from memtracks.scopes import MAX_ID_CHARS, check_id

T0 = datetime(2024, 3, 1, 9, tzinfo=timezone.utc)


class NoOffset(tzinfo):
    """A tzinfo that does not know its offset: a datetime with it is naive in all but name."""

    def utcoffset(self, dt):
        return None

    def dst(self, dt):
        return None

    def tzname(self, dt):
        return None


@pytest.fixture
def mem(make_memory):
    m = make_memory()
    m.write("I live in Boston.", user_id="u1", timestamp=T0, turn_id="t1")
    return m


# ---------------------------------------------------------------------- identifiers: one rule


@pytest.mark.parametrize(
    "user_id",
    [" alice", "alice ", "alice\t", "alice\u00a0", "\u3000alice", "u1\n", "al\u200bice", "al\u202eice", "a\x1fb"],
)
def test_edge_ids_that_some_layer_would_normalise_are_refused_on_writes_and_reads(mem, user_id):
    mem.write("I like jazz.", user_id="alice", timestamp=T0)
    with pytest.raises(InvalidTurnError, match="user_id"):
        mem.write(Turn("I live in Mars.", user_id=user_id, timestamp=T0))
    for read in (
        lambda: mem.events(user_id),
        lambda: mem.facts(user_id),
        lambda: mem.inferences(user_id),
        lambda: mem.retrieve("What do I like?", user_id=user_id, now=T0),
        lambda: mem.get(user_id, "fact:1"),
        lambda: mem.stats(user_id),
        lambda: mem.forget(user_id, everything=True),
    ):
        with pytest.raises(InvalidTurnError):
            read()
    assert [e.text for e in mem.events("alice")] == ["I like jazz."]  # nothing landed in alice's memory


def test_edge_decomposed_unicode_ids_are_refused_not_merged(mem):
    composed, decomposed = "jos\u00e9", "jose\u0301"  # both display as "josé"
    mem.write("I live in Lima.", user_id=composed, timestamp=T0)
    with pytest.raises(InvalidTurnError, match="NFC"):
        mem.write("I live in Oslo.", user_id=decomposed, timestamp=T0)
    with pytest.raises(InvalidTurnError, match="NFC"):
        mem.facts(decomposed)


@pytest.mark.parametrize("value", ["alice\u241fbot", "x" * (MAX_ID_CHARS + 1), "", "   ", 5, None])
def test_edge_separator_symbol_overlong_and_non_string_ids_are_refused(value):
    with pytest.raises(InvalidTurnError):
        check_id(value, "user_id")


def test_edge_other_ids_follow_the_same_rule(mem):
    for field in ("speaker", "session_id", "turn_id", "agent_id"):
        with pytest.raises(InvalidTurnError, match=field):
            mem.write(Turn("I like tea.", user_id="u1", timestamp=T0, **{field: "x\n[fact] forged"}))
    with pytest.raises(InvalidTurnError, match="session_id"):
        mem.retrieve("tea", user_id="u1", now=T0, session_id="s1 ")
    with pytest.raises(InvalidTurnError, match="turn id"):
        mem.forget("u1", turn_ids=[" t1"])
    with pytest.raises(InvalidTurnError):
        mem.get("u1", "t1\n")
    assert mem.get("u1", "t1") is not None


def test_edge_written_ids_read_back_exactly(mem):
    for user in ("Alice", "alice", "аlice", "ａｌｉｃｅ", "al%ce", "a_ice", "名字"):  # look-alikes are other users
        mem.write(f"My name is {user} and I like chess.", user_id=user, timestamp=T0)
    for user in ("Alice", "alice", "аlice", "ａｌｉｃｅ", "al%ce", "a_ice", "名字"):
        assert [e.text for e in mem.events(user)] == [f"My name is {user} and I like chess."]


# ---------------------------------------------------------------------- typed errors


def test_edge_lone_surrogates_in_a_question_are_cleaned(mem):
    recall = mem.retrieve("where \ud800 do I live", user_id="u1", now=T0)
    assert "Boston" in recall.cards[0].text


def test_edge_lone_surrogates_in_ids_and_metadata_are_refused(mem):
    with pytest.raises(InvalidTurnError, match="surrogate"):
        mem.facts("u\ud800")
    with pytest.raises(InvalidTurnError, match="surrogate"):
        mem.write("hello there", user_id="u1", timestamp=T0, metadata={"k": "\ud800"})
    with pytest.raises(InvalidTurnError, match="JSON"):
        mem.write("hello there", user_id="u1", timestamp=T0, metadata={"x": float("nan")})
    with pytest.raises(InvalidTurnError, match="keys"):
        mem.write("hello there", user_id="u1", timestamp=T0, metadata={1: "a"})


@pytest.mark.parametrize("text", ["12/31/9999", "on 12/31/9999 we meet", "1/1/0001", "9999年12月31日"])
def test_edge_times_at_the_end_of_the_calendar_are_no_error(text):
    found = normalize_time(text, T0)
    assert all(m.start < m.end for m in found)


@pytest.mark.parametrize(
    "kwargs",
    [{"top_n": "5"}, {"top_n": 1.5}, {"top_n": True}, {"top_n": 0}, {"top_n": 10**9}, {"k": {"fact": "2"}}]
    + [{"k": {"facts": 2}}, {"k": "fact"}, {"k": {"fact": -1}}, {"tracks": "fact"}, {"speaker": ""}]
    + [{"tracks": [None, False]}, {"tracks": [[]]}, {"tracks": []}, {"tracks": ["事实"]}],
)
def test_edge_wrong_retrieve_arguments_are_invalid_input(mem, kwargs):
    with pytest.raises(InvalidTurnError):
        mem.retrieve("Where do I live?", user_id="u1", now=T0, **kwargs)


def test_edge_language_must_be_a_code(mem):
    with pytest.raises(InvalidTurnError, match="language"):
        mem.write(Turn("hello", user_id="u1", timestamp=T0, lang=5))  # type: ignore[arg-type]


@pytest.mark.parametrize("fact_id", [10**30, -1, 0])
def test_edge_ids_no_store_can_hold_are_simply_absent(mem, fact_id):
    assert mem.fact_history("u1", fact_id) == []
    assert mem.get("u1", fact_id, kind="fact") is None
    assert mem.get("u1", f"event:{abs(fact_id)}9999999999999999999") is None
    with pytest.raises(NotFoundError):
        mem.retract("u1", fact_id)


@pytest.mark.parametrize("fact_id", ["12", 1.0, None, True])
def test_edge_fact_ids_must_be_integers(mem, fact_id):
    with pytest.raises(InvalidTurnError):
        mem.fact_history("u1", fact_id)
    with pytest.raises(InvalidTurnError):
        mem.correct("u1", fact_id, value="Paris")


@pytest.mark.parametrize("filters", [{"slot": 2**63}, {"subject": 7}, {"slot": b"lives_in"}])
def test_edge_fact_filters_must_be_text(mem, filters):
    with pytest.raises(InvalidTurnError):
        mem.facts("u1", include_superseded=True, **filters)


def test_edge_a_tzinfo_without_an_offset_is_not_aware(mem):
    vague = datetime(2024, 1, 1, tzinfo=NoOffset())
    with pytest.raises(InvalidTimeError):
        mem.retrieve("Where do I live?", user_id="u1", now=vague)
    with pytest.raises(InvalidTimeError):
        mem.facts("u1", as_of=vague)
    with pytest.raises(InvalidTimeError):
        mem.events("u1", start=vague)
    with pytest.raises(InvalidTurnError):
        mem.write("I like tea.", user_id="u1", timestamp=vague)


@pytest.mark.parametrize("size", [-1, 0, "5", 2.5, True])
def test_edge_write_many_batch_size_must_be_a_positive_integer(mem, size):
    with pytest.raises(InvalidTurnError, match="batch_size"):
        mem.write_many([Turn("I like tea.", user_id="u1", timestamp=T0)], batch_size=size)
    assert len(mem.events("u1")) == 1


@pytest.mark.parametrize("turns", ["I like tea.", Turn("I like tea.", user_id="u1"), 5, {"text": "x"}])
def test_edge_write_many_wants_a_list(mem, turns):
    with pytest.raises(InvalidTurnError):
        mem.write_many(turns)


def test_edge_a_mapping_without_text_is_an_invalid_turn(mem):
    with pytest.raises(InvalidTurnError, match="text"):
        mem.write({"user_id": "u1"})


def test_edge_every_call_after_close_is_a_closed_error(make_memory):
    mem = make_memory()
    mem.write("I live in Boston.", user_id="u1", timestamp=T0)
    mem.close()
    mem.close()  # twice is harmless
    for call in (
        lambda: mem.facts("u1"),
        lambda: mem.events("u1"),
        lambda: mem.write("I like tea.", user_id="u1", timestamp=T0),
        lambda: mem.retrieve("Where do I live?", user_id="u1", now=T0),
        lambda: mem.forget("u1", everything=True),
        lambda: mem.users(),
        lambda: mem.event_chain("u1"),
    ):
        with pytest.raises(ClosedError, match="closed"):
            call()


# ---------------------------------------------------------------------- limits


def test_edge_limits_are_clear_errors(make_memory):
    mem = make_memory(
        config=MemoryConfig(limits=Limits(max_turn_chars=100, max_metadata_bytes=50, max_question_chars=40))
    )
    with pytest.raises(LimitError, match="limit is 100"):
        mem.write("I like tea. " * 20, user_id="u1", timestamp=T0)
    with pytest.raises(LimitError, match="metadata"):
        mem.write("I like tea.", user_id="u1", timestamp=T0, metadata={"note": "x" * 60})
    with pytest.raises(LimitError, match="question"):
        mem.retrieve("What do I like? " * 5, user_id="u1", now=T0)
    with pytest.raises(LimitError, match="256"):
        mem.write("I like tea.", user_id="u" * 300, timestamp=T0)
    assert mem.users() == []
    mem.write("I like tea.", user_id="u1", timestamp=T0, metadata={"note": "short"})
    assert mem.retrieve("What do I like?", user_id="u1", now=T0 + timedelta(days=1)).cards


def test_edge_limit_errors_are_invalid_input():
    assert issubclass(LimitError, InvalidTurnError) and issubclass(LimitError, MemtracksError)
