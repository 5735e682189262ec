"""Change in a turn that does not name the value held (write/stages.py: read_unnamed): the
statement reader's slot head finds which slot a clause is about, so a new value said in words
no rule lists becomes the slot's value, and an ending that names nothing ends the one value
held — in English, Simplified and Traditional Chinese, with the real reader and embedder."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest
from conversation import T0, say

from memtracks.pipeline.statement_reader import KINDS, NO_SLOT, WEIGHTS, StatementReader, load_reader, reader_for
from memtracks.pipeline.text import names_value
from memtracks.records import SlotValue


def _facts(memory, *texts):
    say(memory, *texts)
    return memory.facts("u1", include_superseded=True, include_negated=True)


def _current(facts, slot):
    return sorted(f.value for f in facts if f.slot == slot and f.is_current and not f.negated)


def test_the_reader_reads_the_slot_a_clause_is_about(embedder, toolkit):
    reader = reader_for(embedder)
    assert reader is not None and NO_SLOT in reader.slots and "employer" in reader.slots
    first, car, nothing = reader.read(
        [
            "Just wrapped my first week at Accenture, the onboarding was intense.",
            "新提的理想L6开起来真舒服。",
            "謝謝你啦！",
        ],
        embedder,
        toolkit,
    )
    assert first.slot()[0] == "employer" and abs(sum(first.slots.values()) - 1) < 1e-4
    assert car.slot()[0] == "car"
    assert nothing.slot()[0] == NO_SLOT


def test_weights_without_a_slot_head_read_no_slot(tmp_path, embedder, toolkit):
    shipped = load_reader(WEIGHTS)
    path = tmp_path / "kinds_only.npz"
    StatementReader(shipped.weights, shipped.bias, shipped.embedder).save(path)
    old = load_reader(path)
    [reading] = old.read(["I work at a bakery."], embedder, toolkit)
    assert reading.slots == {} and reading.slot() == (NO_SLOT, 1.0)
    bad = tmp_path / "bad.npz"
    np.savez_compressed(
        bad,
        weights=shipped.weights,
        bias=shipped.bias,
        embedder=np.array(shipped.embedder),
        kinds=np.array(KINDS),
        slot_weights=np.zeros((3, 2), dtype=np.float32),
        slot_bias=np.zeros(2, dtype=np.float32),
        slots=np.array(["none", "car"]),
    )
    with pytest.raises(ValueError, match="slot weights"):
        load_reader(bad)


NEW_VALUES = [
    (
        "I work at Deloitte.",
        "Just wrapped my first week at Accenture, the onboarding was intense.",
        "employer",
        "Accenture",
        "Deloitte",
    ),
    (
        "I drive a Honda Civic.",
        "The new Kia Niro is so quiet compared to what I had.",
        "car",
        "Kia Niro",
        "Honda Civic",
    ),
    (
        "I live in Denver.",
        "Our new landlord in Portland fixed the heater in a day, love this town.",
        "lives_in",
        "Portland",
        "Denver",
    ),
    ("我在工商银行上班。", "在比亚迪的第一个月过得很快，新领导挺照顾我。", "employer", "比亚迪", "工商银行"),
    ("我开一辆思域。", "新提的理想L6开起来真舒服，比以前那台安静多了。", "car", "理想L6", "思域"),
    ("我在台積電上班。", "到聯發科報到第一週，新主管人很好。", "employer", "聯發科", "台積電"),
]


@pytest.mark.parametrize("first,then,slot,new,old", NEW_VALUES, ids=[t for _, t, _, _, _ in NEW_VALUES])
def test_a_new_value_no_rule_reads_replaces_the_held_one(memory, first, then, slot, new, old):
    facts = _facts(memory, first, then)
    assert _current(facts, slot) == [new], facts
    ended = [f for f in facts if f.slot == slot and f.value == old]
    assert ended and all(not f.is_current and f.reason == "replaced" for f in ended), facts


def test_a_second_job_adds_beside_the_first(memory):
    facts = _facts(memory, "I work at Starbucks.", "I picked up a second job at Trader Joe's on weekends.")
    assert _current(facts, "employer") == ["Starbucks", "Trader Joe's"], facts


ENDINGS = [
    ("I drive a Honda Civic.", "Finally handed over the keys to the buyer, I'm officially carless.", "car"),
    ("我在京东上班。", "合同到期了，公司没跟我续签。", "employer"),
    ("我开一辆思域。", "车已经过户给别人了，现在每天坐地铁。", "car"),
    # done to the speaker by someone unnamed: the speaker's ending
    ("I work at Peloton.", "They let me go last Friday.", "employer"),
]


@pytest.mark.parametrize("first,then,slot", ENDINGS, ids=[t for _, t, _ in ENDINGS])
def test_an_ending_that_names_nothing_ends_the_one_value_held(memory, first, then, slot):
    facts = _facts(memory, first, then)
    assert _current(facts, slot) == [], facts
    assert any(f.slot == slot and f.reason == "ended" for f in facts), facts


KEPT = [
    ("I work at Deloitte.", "Had a coffee chat with a recruiter from Accenture today.", "employer", "Deloitte"),
    ("I live in Denver.", "Spent the weekend in Portland with friends, lovely city.", "lives_in", "Denver"),
    (
        "I drive a Toyota Prius.",
        "Ran into my ex at the dealership, he was trading in his truck for a Ford Mustang. Classic.",
        "car",
        "Toyota Prius",
    ),
    ("我住在南京。", "周末去厦门玩了两天，鼓浪屿人好多。", "lives_in", "南京"),
    ("我在工商银行上班。", "我表哥在比亚迪的第一个月过得很快。", "employer", "工商银行"),
    ("我在台積電上班。", "我朋友剛到聯發科報到。", "employer", "台積電"),
    ("我在工商银行上班。", "下周一起去比亚迪上班，入职材料都交齐了。", "employer", "工商银行"),
    ("我在中鋼上班。", "我沒有要離職啦，那只是跟同事抱怨而已，還是會繼續待在中鋼。", "employer", "中鋼"),
    ("I work at Deloitte.", "No, I didn't quit, I was just venting about my manager.", "employer", "Deloitte"),
    ("I live in Leeds.", "I'm in Tokyo now, heading home tomorrow.", "lives_in", "Leeds"),
    ("I drive a Honda Civic.", "I'm in Austin for the week, rented a Jeep for the trip.", "car", "Honda Civic"),
    ("I work at Peloton.", "My sister got laid off yesterday, she is devastated.", "employer", "Peloton"),
    ("I work at Peloton.", "They let him go last Friday, nobody saw it coming.", "employer", "Peloton"),
    ("我在腾讯上班。", "我朋友被公司裁员了。", "employer", "腾讯"),
    ("我在台積電上班。", "我同事上週被資遣了。", "employer", "台積電"),
]


@pytest.mark.parametrize("first,then,slot,value", KEPT, ids=[t for _, t, _, _ in KEPT])
def test_a_visit_someone_elses_news_or_a_plan_keeps_the_value(memory, first, then, slot, value):
    """A trip, a recruiter's firm, another person's car or job, the paperwork of a job still
    to start: the held value stays current (a plan may add a planned value beside it, and end
    the held one only from the day it starts)."""
    facts = _facts(memory, first, then)
    said = T0 + timedelta(days=30, hours=1)  # the second turn, as say() spaces them
    now = memory.facts("u1", as_of=said, include_negated=True)
    assert value in sorted(f.value for f in now if f.slot == slot and not f.negated and not f.planned), facts
    assert all(f.valid_to > said for f in facts if f.slot == slot and f.value == value and f.reason), facts


def test_a_latin_word_is_named_beside_chinese_characters():
    assert names_value("Altis賣掉了，換了一台Tesla。", "Toyota Altis")
    assert names_value("把civic卖了", "Honda Civic")
    assert not names_value("Altisport賣掉了", "Toyota Altis")


def test_a_negation_taken_out_of_a_clause(toolkit):
    markers = toolkit.markers
    assert markers.without("en", "negated", "No, I didn't quit,") == "No, I did quit,"
    assert markers.without("zh", "negated", "我们没分手，") == "我们分手，"
    assert markers.without("zh", "negated", "车没有卖掉啦") == "车卖掉啦"


@pytest.mark.parametrize(
    "first,then,new",
    [
        ("我在聯發科上班。", "我轉職到Google台灣了。", "Google台灣"),
        ("我在联发科上班。", "我跳槽到微软中国了。", "微软中国"),
    ],
)
def test_a_firm_and_the_place_of_its_branch_is_an_employer(memory, first, then, new):
    facts = _facts(memory, first, then)
    assert _current(facts, "employer") == [new], facts


def test_a_firm_and_a_place_checked_as_one_value(toolkit):
    def employer(value):
        return SlotValue("user", "employer", value, value.lower(), (0, len(value)), "test", "zh")

    assert toolkit.well_formed(employer("Google台灣")) and toolkit.well_formed(employer("微软中国"))
    assert not toolkit.well_formed(employer("台灣Google好"))
