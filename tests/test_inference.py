"""Rule-based inference: rules as validated data, conclusions with premises, retraction."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memtracks import DataFileError, Turn
from memtracks.data.rules import default_rules, load_rules
from memtracks.pipeline.inference import Context, infer
from memtracks.records import Event, Fact, Happening, Premise

CST = timezone(timedelta(hours=8))
T0 = datetime(2024, 1, 10, 10, tzinfo=CST)  # a Wednesday


def write(mem, text, when, turn_id, user="u1", speaker="user"):
    return mem.write(Turn(text=text, speaker=speaker, timestamp=when, user_id=user, session_id="s", turn_id=turn_id))


def test_inference_ships_at_least_ten_rules():
    rules = default_rules()
    assert len(rules) >= 10
    assert all(r.confidence == 0.6 for r in rules)


def test_inference_pure_engine_trip_gives_away_from_home():
    trip = Happening(
        "trip",
        "user",
        {"place": "Beijing"},
        (0, 10),
        "p",
        start=T0 + timedelta(days=7),
        end=T0 + timedelta(days=8),
        granularity="day",
    )
    event = Event("u1", "s", "t1", "user", "user", "...", "en", T0, id=5, happenings=(trip,))
    derived = infer(
        default_rules(),
        new_facts=[],
        new_events=[event],
        context=Context(events=[event]),
        user_id="u1",
        at=T0,
        key_of=str.lower,
    )
    away = [d.inference for d in derived if d.inference.rule_id == "trip_away_from_home"]
    assert len(away) == 1
    assert away[0].premises == (Premise("event", 5),)
    assert away[0].valid_from == T0 + timedelta(days=7) and away[0].confidence == 0.6
    assert "2024-01-17" in away[0].text


def test_inference_pure_engine_joins_fact_and_event():
    pet = Fact("user", "pets", "Luna (cat)", "luna", "u1", T0, T0, T0, id=3)
    trip = Happening(
        "trip",
        "user",
        {"place": "Tokyo"},
        (0, 10),
        "p",
        start=T0 + timedelta(days=7),
        end=T0 + timedelta(days=8),
        granularity="day",
    )
    event = Event("u1", "s", "t2", "user", "user", "...", "en", T0, id=9, happenings=(trip,))
    derived = infer(
        default_rules(),
        new_facts=[],
        new_events=[event],
        context=Context(facts=[pet], events=[event]),
        user_id="u1",
        at=T0,
        key_of=str.lower,
    )
    care = [d.inference for d in derived if d.inference.rule_id == "trip_pet_care"]
    assert care and set(care[0].premises) == {Premise("event", 9), Premise("fact", 3)}


@pytest.mark.parametrize(
    "text,date,lang",
    [
        ("I'm flying to Beijing next Wednesday for a business trip.", "2024-01-17", "en"),
        ("我下周三要去北京出差", "2024-01-17", "zh"),
    ],
)
def test_inference_trip_concludes_away_from_home_on_resolved_date(memory, text, date, lang):
    result = write(memory, text, T0, "t1")
    away = [i for i in result.inferences if i.kind == "away_from_home"]
    assert len(away) == 1 and date in away[0].text and away[0].lang == lang
    assert away[0].valid_from.date().isoformat() == date
    assert away[0].source_turn_ids == ("t1",)


@pytest.mark.parametrize(
    "pet,trip,gone",
    [
        ("I have a dog named Max.", "I'm going to Tokyo next Wednesday for a conference.", "My dog Max passed away."),
        ("我养了一只猫叫豆豆", "我下周三要去上海出差", "我的猫豆豆去世了"),
    ],
)
def test_inference_retracted_when_premise_fact_ends(memory, pet, trip, gone):
    write(memory, pet, T0, "t1")
    care = [i for i in write(memory, trip, T0 + timedelta(hours=1), "t2").inferences if i.kind == "pet_care_needed"]
    assert len(care) == 1
    result = write(memory, gone, T0 + timedelta(hours=2), "t3")
    assert [i.id for i in result.retracted] == [care[0].id]
    stored = {i.id: i for i in memory.inferences("u1", include_retracted=True)}
    assert stored[care[0].id].status == "retracted"
    assert "pets" in stored[care[0].id].retracted_because
    assert care[0].id not in {i.id for i in memory.inferences("u1")}


@pytest.mark.parametrize(
    "before,move,old,new",
    [
        ("I live in Boston.", "I moved to Seattle last month.", "Boston", "Seattle"),
        ("我住在北京。", "我上个月搬到了深圳。", "北京", "深圳"),
    ],
)
def test_inference_move_derives_lives_in_that_supersedes(memory, before, move, old, new):
    write(memory, before, T0, "t1")
    result = write(memory, move, T0 + timedelta(days=30), "t2")
    [conclusion] = [i for i in result.inferences if i.rule_id == "move_lives_in"]
    [current] = memory.facts("u1", slot="lives_in")
    assert current.value == new and current.source == "inferred" and current.confidence == 0.6
    assert conclusion.derived_fact_id == current.id
    history = memory.facts("u1", slot="lives_in", include_superseded=True)
    assert [f.value for f in history] == [old, new] and history[0].superseded_by == current.id
    # "last month" (January) cannot start before Jan 10, when the old home was stated
    assert current.valid_from == T0 == history[0].valid_to


@pytest.mark.parametrize(
    "text,org",
    [
        ("I just started a new job at Microsoft.", "Microsoft"),
        ("我换了新工作，下个月入职腾讯。", "腾讯"),
    ],
)
def test_inference_new_job_derives_employer(memory, text, org):
    write(memory, text, T0, "t1")
    assert [f.value for f in memory.facts("u1", slot="employer")] == [org]


@pytest.mark.parametrize(
    "text,until",
    [
        ("The report is due at the end of the month.", "2024-01-31"),
        ("这个项目老板说月底必须交。", "2024-01-31"),
    ],
)
def test_inference_deadline_is_open_obligation_until_date(memory, text, until):
    result = write(memory, text, T0, "t1")
    [obligation] = [i for i in result.inferences if i.kind == "open_obligation"]
    assert until in obligation.text
    assert obligation.valid_from == T0
    assert (obligation.valid_to - timedelta(microseconds=1)).date().isoformat() == until


@pytest.mark.parametrize("text", ["I have a dentist appointment tomorrow at 3pm.", "我明天下午三点有面试"])
def test_inference_appointment_makes_busy(memory, text):
    result = write(memory, text, T0, "t1")
    [busy] = [i for i in result.inferences if i.kind == "busy"]
    assert busy.valid_from.date().isoformat() == "2024-01-11"


def test_inference_no_duplicate_conclusion_for_same_premises(memory):
    write(memory, "I live in Boston.", T0, "t1")
    write(memory, "I'm flying to Tokyo next Wednesday.", T0, "t2")
    write(memory, "I live in Boston.", T0 + timedelta(hours=1), "t3")  # reinforces, no new premise
    keys = [i.key for i in memory.inferences("u1")]
    assert len(keys) == len(set(keys))


BAD_RULES = [
    ("missing_premises", "- {id: r1, description: x, conclusion: {kind: k, text: {en: t}}}", "premises"),
    (
        "unknown_slot",
        "- {id: r2, description: x, premises: [{name: a, fact: nope}], conclusion: {kind: k, text: {en: t}}}",
        "premises[0].fact",
    ),
    (
        "bad_template",
        "- {id: r3, description: x, premises: [{name: a, event: trip}], "
        "conclusion: {kind: k, text: {en: '{a.place}'}}}",
        "conclusion.text.en",
    ),
    (
        "extra_field",
        "- {id: r4, description: x, premises: [{name: a, event: trip}], colour: red, "
        "conclusion: {kind: k, text: {en: t}}}",
        "colour",
    ),
]


@pytest.mark.parametrize("name,body,field", BAD_RULES, ids=[b[0] for b in BAD_RULES])
def test_inference_bad_rule_file_names_file_rule_and_field(tmp_path, name, body, field):
    path = tmp_path / f"{name}.yaml"
    path.write_text("rules:\n" + body + "\n", encoding="utf-8")
    with pytest.raises(DataFileError) as err:
        load_rules(path)
    message = str(err.value)
    assert str(path) in message and "rules[0]" in message and field in message


@pytest.mark.parametrize("text", ["I moved to Seattle last month.", "我上个月搬到了深圳。"])
def test_inference_lasting_change_stays_valid(memory, text):
    [conclusion] = [i for i in write(memory, text, T0, "t1").inferences if i.rule_id == "move_lives_in"]
    assert conclusion.valid_from.month == 12 and conclusion.valid_to is None


def test_inference_rule_with_two_validities_is_rejected(tmp_path):
    path = tmp_path / "r.yaml"
    path.write_text(
        "rules:\n- {id: r5, description: x, premises: [{name: a, event: trip}], "
        "conclusion: {kind: k, text: {en: t}, valid: a, since: a}}\n",
        encoding="utf-8",
    )
    with pytest.raises(DataFileError, match="at most one of valid, until, since"):
        load_rules(path)
