"""Partners named as chat names them and offers taken, in English, Simplified and Traditional:
"Theo is my boyfriend now" (and no longer single), "Imogen is officially my fiancée" (engaged),
"We're husband and wife" and 擺咗酒 / 办完酒席 (married), "Divorce papers are signed", 簽字離婚,
我先生叫承恩 (叫 names whoever follows); "Said yes to Zendesk's offer", 米哈游的offer接了！"""

from __future__ import annotations

from datetime import timedelta

import pytest
from conversation import fact_states, say, states_after


@pytest.mark.parametrize(
    "before,after,partner",
    [
        (
            "I'm single, been that way for a while.",
            "Remember Theo from my pottery class? Theo is my boyfriend now.",
            "Theo (boyfriend)",
        ),
        ("我单身好多年了。", "脱单了！！健身房认识的嘉豪，现在是我男朋友啦", "嘉豪（男朋友）"),
        ("我目前單身。", "跟你講，冠宇現在是我男朋友了！就是我大學的學長", "冠宇（男朋友）"),
    ],
)
def test_a_partner_named_now_ends_single(memory, before, after, partner):
    say(memory, before, after, every=timedelta(days=40))
    assert fact_states(memory, "partner") == {partner: "current"}
    statuses = fact_states(memory, "relationship_status")
    assert not any(statuses.get(v) == "current" for v in ("single", "单身", "單身")), statuses


@pytest.mark.parametrize(
    "text",
    ["Emma is my girlfriend's sister.", "他是我男朋友吗？", "Is Theo my boyfriend now? lol no"],
)
def test_no_partner_where_none_is_named_as_one(memory, text):
    say(memory, text)
    assert fact_states(memory, "partner") == {}


@pytest.mark.parametrize(
    "before,after,status",
    [
        (
            "My girlfriend Imogen is a paramedic.",
            "Imogen is officially my fiancée! I proposed on the beach.",
            "engaged",
        ),
        (
            "My fiancée Noor and I are still fighting about the guest list.",
            "We're husband and wife now! Noor cried during the vows.",
            "married",
        ),
        ("我和男朋友立伟谈了五年了。", "上周六办完酒席，立伟正式升级成我老公了哈哈", "已婚"),
        ("我同男朋友子朗拍拖七年喇。", "我哋上個禮拜擺咗酒，終於結咗婚！", "已婚"),
    ],
)
def test_a_status_said_in_chat_words(memory, before, after, status):
    assert states_after(memory, "relationship_status", before, after).get(status) == "current"


@pytest.mark.parametrize(
    "before,after,partner,status",
    [
        (
            "My husband Rafael and I run a bakery together.",
            "Divorce papers are signed. Rafael kept the bakery.",
            "Rafael (husband)",
            "divorced",
        ),
        ("我先生叫承恩，在銀行當襄理。", "我跟承恩已經簽字離婚，戶政事務所也登記好了", "承恩（先生）", "離異"),
    ],
)
def test_a_divorce_signed_ends_the_partner(memory, before, after, partner, status):
    say(memory, before, after, every=timedelta(days=40))
    assert fact_states(memory, "partner").get(partner) == "ended"
    assert fact_states(memory, "relationship_status").get(status) == "current"


@pytest.mark.parametrize(
    "before,after",
    [
        ("My husband Rafael and I run a bakery together.", "My sister's divorce papers are signed."),
        ("我老公叫晓峰。", "要不要离婚我还在想。"),
    ],
)
def test_no_divorce_of_someone_else_or_in_doubt(memory, before, after):
    say(memory, before, after, every=timedelta(days=40))
    assert list(fact_states(memory, "partner").values()) == ["current"]


@pytest.mark.parametrize(
    "before,after,new",
    [
        (
            "I work at Mailchimp in sales.",
            "Said yes to Zendesk's offer, so a few weeks of notice to serve first.",
            "Zendesk",
        ),
        ("我在安踏做鞋类设计。", "米哈游的offer接了！下周一就去报到。", "米哈游"),
        ("我在旺宏上班。", "我收下南亞科的offer了，下週一開始上班", "南亞科"),
    ],
)
def test_an_offer_taken_is_the_new_employer(memory, before, after, new):
    say(memory, before, after, every=timedelta(days=40))
    memory_states = fact_states(memory, "employer")
    assert new in memory_states, memory_states


def test_ends_values_naming_an_unknown_slot_fails_with_its_place(tmp_path):
    import yaml

    from memtracks import DataFileError
    from memtracks.data.catalogue import load_catalogue
    from memtracks.data.files import bundled

    doc = yaml.safe_load(bundled("rules", "slots.yaml").read_text(encoding="utf-8"))
    next(s for s in doc["slots"] if s["name"] == "partner")["ends_values"] = {"mood": ["single"]}
    path = tmp_path / "slots.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    with pytest.raises(DataFileError) as err:
        load_catalogue(path)
    assert "slots 'partner': field 'ends_values': unknown slot 'mood'" in str(err.value)


@pytest.mark.parametrize(
    "before,after,old,new",
    [
        ("我在安踏做鞋类设计。", "米哈游的offer接了！11月4号入职，这边还得交接一个月", "安踏", "米哈游"),
        (
            "I work at Mailchimp in sales.",
            "Said yes to Zendesk's offer 🎉 my first day there is November 18.",
            "Mailchimp",
            "Zendesk",
        ),
    ],
)
def test_an_offer_with_a_later_start_is_a_plan(memory, before, after, old, new):
    say(memory, before, after, every=timedelta(days=28))
    facts = memory.facts("u1", slot="employer", include_superseded=True, include_planned=True)
    plan = next(f for f in facts if f.value == new)
    assert plan.planned, facts
    # the old employer holds until the new one starts
    assert any(f.value == old and (f.valid_to is None or f.valid_to >= plan.valid_from) for f in facts), facts


@pytest.mark.parametrize(
    "text,employer",
    [
        ("I work at Mailchimp in sales.", "Mailchimp"),
        ("I work at Bank of America in compliance.", "Bank of America"),
        ("I work at Sainsbury's in the bakery section.", "Sainsbury's"),
    ],
)
def test_a_workplace_stops_before_the_department(memory, text, employer):
    say(memory, text)
    assert fact_states(memory, "employer") == {employer: "current"}


@pytest.mark.parametrize(
    "before,after,old,new",
    [
        ("我在趨勢科技上班。", "已經從趨勢離職，這週一到瑞昱報到，新環境還在適應", "趨勢科技", "瑞昱"),
        ("我在宁德时代上班。", "从宁德离职了，下周一去比亚迪报到。", "宁德时代", "比亚迪"),
    ],
)
def test_a_job_left_by_a_short_name_and_the_next_one_reported_to(memory, before, after, old, new):
    states = states_after(memory, "employer", before, after)
    assert states.get(old) in ("ended", "replaced") and new in states, states


def test_reporting_to_school_is_no_employer(memory):
    states = states_after(memory, "employer", "我在趨勢科技上班。", "下週一要到學校報到。")
    assert states == {"趨勢科技": "current"}, states


@pytest.mark.parametrize(
    "before,after,status",
    [
        ("我老公叫晓峰。", "晓峰现在是我前夫了，孩子跟我。", "离异"),
        ("My husband is Rafael.", "Rafael is my ex-husband now.", "divorced"),
    ],
)
def test_an_ex_spouse_means_divorced(memory, before, after, status):
    say(memory, before, after, every=timedelta(days=40))
    assert fact_states(memory, "relationship_status") == {status: "current"}
    assert "current" not in fact_states(memory, "partner").values()
