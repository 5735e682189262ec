"""Change told in passing, in English, Simplified and Traditional Chinese:

- a clause that states a partner ("Priya and I are finally under one roof") is not ended by
  its sentence ending something else (the Fresno flat); the new home after the old one given
  up in the same clause replaces it ("gave up the Fresno apartment and moved into her place in
  Sacramento"); a move back for good ("officially back in Pittsburgh");
- a value ends before "for good", "for now", "for work";
- the workplace of a tester (在云帆科技做软件测试), never "a fab in Hsinchu"; an acronym job
  (an RN at Mercy General) matches in capitals only ("tired rn" is no job);
- an offer "下来了！！" with its start date plans the job;
- a birthday with the age after it (今天过生日，正式35了, "It's my birthday today, officially 35!");
- the last day at a firm (在台電的最後一天), retiring said with 啦 end the employer; a retirement
  to come does not; "X cut 300 people and I was one of them" ends it, "I wasn't" does not;
- a trade-in (折抵) ends a car, a model after a space (換了一台 RAV4) is the new one;
- a correction followed by more clauses (說錯了，是韓文啦，去交換的是首爾不是大阪…);
- a language exam passed adds the language;
- a proposal said yes to, told by the ring (跪低攞咗隻戒指出嚟…梗係話好啦);
- for a question about now, the turn that ended what the fact's own turn said of the same thing
  leads the fact (从网易出来了 leads "job: 游戏美术"); a question about one's relationship with
  someone asks the partner and relationship slots.

Each with look-alikes that must change nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from conversation import T0, fact_states, held, say, states_after

from memtracks.data.lexicons import alternation


def test_a_clause_that_states_a_partner_is_not_ended_by_its_sentence(memory):
    say(
        memory,
        "I live in Fresno and my girlfriend Priya lives up in Sacramento, so lots of weekend driving",
        "Handed back my keys today!! Priya and I are finally under one roof, I gave up the Fresno apartment "
        "and moved into her place in Sacramento since it has a yard.",
        every=timedelta(days=95),
    )
    assert held(memory, "partner") == (["Priya (girlfriend)"], [])
    assert fact_states(memory, "lives_in") == {"Fresno": "replaced", "Sacramento": "current"}


@pytest.mark.parametrize(
    "then,now",
    [
        ("We moved into Priya's place in Sacramento.", "Sacramento"),
        ("ugh the movers cracked a mirror. anyway we're officially back in Pittsburgh, my mom is close", "Pittsburgh"),
        ("I moved back to Cork for good.", "Cork"),
        ("Moved to Denver for work last year", "Denver"),
        ("把杭州的房子退了，搬去宁波了", "宁波"),
        ("I'm back in Rome for the weekend", None),
        ("I'm finally back in Boston after two weeks in Spain", None),
        ("I moved to Denver's suburbs", None),
    ],
)
def test_a_move_back_or_into_someones_place(memory, then, now):
    states = states_after(memory, "lives_in", "I live in Austin", then)
    if now is None:
        assert states == {"Austin": "current"}, states
    else:
        assert states == {"Austin": "replaced", now: "current"}, states


@pytest.mark.parametrize(
    "text,employer,title",
    [
        ("我在云帆科技做软件测试", "云帆科技", "软件测试"),
        ("我在腾讯做测试", "腾讯", "测试"),
        ("我在台積電做測試", "台積電", "測試"),
        ("I'm an RN at Mercy General, mostly med-surg", "Mercy General", "RN"),
        ("我在新竹的晶圓廠做測試", None, "測試"),
        ("我在美的上班", "美的", None),
    ],
)
def test_a_workplace_named_with_the_work_done_there(memory, text, employer, title):
    say(memory, text)
    assert held(memory, "employer")[0] == ([employer] if employer else [])
    assert held(memory, "job_title")[0] == ([title] if title else [])


@pytest.mark.parametrize("text", ["I'm so tired rn", "I want to become a mom rn lol"])
def test_an_acronym_job_matches_in_capitals_only(memory, text):
    say(memory, text)
    assert memory.facts("u1", slot="job_title") == []


def test_a_lexicon_acronym_is_matched_in_capitals():
    import re

    rx = re.compile(f"(?i:an (?:{alternation(['RN', 'nurse'])}))")
    assert rx.search("I'm an RN") and rx.search("I'm an NURSE") and not rx.search("I'm an rn")


def test_an_offer_come_through_with_its_start_plans_the_job(memory):
    say(
        memory,
        "我在云帆科技做软件测试",
        "字节跳动的offer下来了！！11月1号入职，这个月先把手上的活交接完",
        every=timedelta(days=20),
    )
    asked = T0 + timedelta(days=21)
    planned = memory.facts("u1", slot="employer", include_planned=True, as_of=asked)
    assert sorted(f.value for f in planned) == ["云帆科技", "字节跳动"]
    assert [f.value for f in memory.facts("u1", slot="employer", as_of=asked)] == ["云帆科技"]


@pytest.mark.parametrize(
    "first,then,now",
    [
        ("我今年34", "今天过生日，正式35了，老公订了个蛋糕", "35"),
        ("我今年34", "今天過生日！正式35了", "35"),
        ("I'm 34", "It's my birthday today, officially 35!", "35"),
        ("I'm 34", "It's my birthday today, 30 people came!", None),
        ("我今年34", "今天是我生日，请了10个朋友来了", None),
    ],
)
def test_a_birthday_with_the_age_after_it(memory, first, then, now):
    states = states_after(memory, "age", first, then, every=timedelta(days=260))
    assert states == ({"34": "replaced", now: "current"} if now else {"34": "current"}), states


@pytest.mark.parametrize(
    "first,then,ends",
    [
        ("我在台電當工程師，做變電所維護", "上禮拜五是我在台電的最後一天，正式退休啦！同事送了一個超大的花籃", True),
        ("我在台电当工程师", "正式退休啦！", True),
        ("我在台电当工程师", "终于退休咯", True),
        ("我在台电当工程师", "退休以后想去旅行", False),
        ("我在台电当工程师", "我被裁员以后", False),
        (
            "I'm a product designer at Wayfair, mostly working on the checkout flow",
            "so wayfair cut like 300 people on tuesday and yep I was one of them. weirdly calm about it?",
            True,
        ),
        (
            "I'm a product designer at Wayfair",
            "Wayfair cut 300 people on tuesday, luckily I wasn't one of them",
            False,
        ),
        ("I'm a product designer at Wayfair", "My friend said Wayfair cut 300 people and she was one of them", False),
    ],
)
def test_a_last_day_a_retirement_a_layoff_end_the_employer(memory, first, then, ends):
    say(memory, first, then, every=timedelta(days=100))
    current, ended = held(memory, "employer")
    assert bool(ended) == ends and bool(current) != ends, (current, ended)


@pytest.mark.parametrize(
    "then,states",
    [
        ("Altis 拿去原廠折抵了，換了一台 RAV4 油電，油耗省超多", {"Toyota Altis": "replaced", "RAV4": "current"}),
        ("Altis拿去折抵了", {"Toyota Altis": "ended"}),
        ("換了一台 RAV4", {"Toyota Altis": "replaced", "RAV4": "current"}),
    ],
)
def test_a_trade_in_ends_the_car_and_a_spaced_model_is_the_new_one(memory, then, states):
    assert states_after(memory, "car", "我開一台Toyota Altis，開了快十年", then) == states


@pytest.mark.parametrize(
    "first,fix,was,now",
    [
        ("我會講日文，以前在大阪交換過一年", "啊說錯了，是韓文啦，去交換的是首爾不是大阪，日文我只會五十音而已", "日文", "韓文"),
        ("我会讲日语，以前在大阪交换过一年", "说错了，是韩语啦，去交换的是首尔不是大阪，日语我只会五十音", "日语", "韩语"),
    ],
)
def test_a_correction_followed_by_more_clauses(memory, first, fix, was, now):
    states = states_after(memory, "languages", first, fix, every=timedelta(minutes=1))
    assert states == {was: "corrected", now: "current"}, states


@pytest.mark.parametrize(
    "then,added",
    [
        ("Passed my B2 German exam this morning!!! two years of night classes", "German"),
        ("日语N2考过了！", "日语"),
        ("韓文檢定過了", "韓文"),
        ("I failed my German exam", None),
        ("My son passed his French exam", None),
    ],
)
def test_a_language_exam_passed_adds_the_language(memory, then, added):
    states = states_after(memory, "languages", "I speak Polish and English", then)
    expected = {"Polish": "current", "English": "current", **({added: "current"} if added else {})}
    assert states == expected, states


@pytest.mark.parametrize(
    "then,engaged",
    [
        ("Kelvin 琴晚喺山頂突然跪低攞咗隻戒指出嚟，我喊到妝都溶晒😭💍 梗係話好啦", "訂婚"),
        ("Kelvin昨晚在山顶突然跪下拿出戒指，我哭到妆都花了，当然说好啦", "订婚"),
        ("Kelvin got down on one knee last night with a ring and of course I said yes", "engaged"),
        ("我朋友的男朋友跪下拿出戒指，她当然说好", None),
        ("他跪下拿出戒指，我拒绝了", None),
    ],
)
def test_a_proposal_told_by_the_ring(memory, then, engaged):
    say(memory, "我男朋友叫Kelvin", then, every=timedelta(days=120))
    assert held(memory, "relationship_status")[0] == ([engaged] if engaged else [])


@pytest.mark.parametrize(
    "first,then,question,lead",
    [
        ("我在网易做游戏美术，主要画原画", "从网易出来了，现在自己接外包在家画，收入不太稳", "我现在是做什么工作的？", "外包"),
        ("I'm a designer at Google", "I left Google last month, freelancing from home now", "What do I do for work now?", "freelancing"),
        (
            "我男朋友叫Kelvin，佢係做室內設計嘅",
            "Kelvin 琴晚喺山頂突然跪低攞咗隻戒指出嚟，我喊到妝都溶晒😭💍 梗係話好啦",
            "我同Kelvin而家係咩關係？",
            "訂婚",  # the engagement the proposal made, or the turn that told it
        ),
    ],
)
def test_the_turn_that_ended_what_was_said_with_the_fact_leads_it(memory, first, then, question, lead):
    say(memory, first, then, every=timedelta(days=150))
    cards = memory.retrieve(question, user_id="u1", now=T0 + timedelta(days=151)).cards
    assert lead in cards[0].text or (lead == "訂婚" and "戒指" in cards[0].text), [c.text for c in cards]


def test_a_job_title_fact_keeps_its_place_when_nothing_ended(memory):
    say(memory, "我在网易做游戏美术，主要画原画", "最近在学做饭，外卖吃腻了", every=timedelta(days=150))
    cards = memory.retrieve("我现在是做什么工作的？", user_id="u1", now=T0 + timedelta(days=151)).cards
    assert cards[0].track == "fact" and ("游戏美术" in cards[0].text or "网易" in cards[0].text), [c.text for c in cards]
