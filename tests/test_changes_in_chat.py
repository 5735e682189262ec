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
        (
            "我會講日文，以前在大阪交換過一年",
            "啊說錯了，是韓文啦，去交換的是首爾不是大阪，日文我只會五十音而已",
            "日文",
            "韓文",
        ),
        (
            "我会讲日语，以前在大阪交换过一年",
            "说错了，是韩语啦，去交换的是首尔不是大阪，日语我只会五十音",
            "日语",
            "韩语",
        ),
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
        (
            "我在网易做游戏美术，主要画原画",
            "从网易出来了，现在自己接外包在家画，收入不太稳",
            "我现在是做什么工作的？",
            "外包",
        ),
        (
            "I'm a designer at Google",
            "I left Google last month, freelancing from home now",
            "What do I do for work now?",
            "freelancing",
        ),
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
    assert cards[0].track == "fact" and ("游戏美术" in cards[0].text or "网易" in cards[0].text), [
        c.text for c in cards
    ]


@pytest.mark.parametrize(
    "then,states",
    [
        ("网易的offer终于下来了，12月16号入职，这周就去跟领导提离职", {"小红书": "replaced", "网易": "current"}),
        ("这周就去跟领导提离职", {"小红书": "current"}),
        ("我提了离职", {"小红书": "ended"}),
    ],
)
def test_a_resignation_to_hand_in_is_a_plan(memory, then, states):
    say(memory, "我在小红书做运营", then, every=timedelta(days=50))
    got = fact_states(memory, "employer")  # the planned job's start has passed by now
    assert got == states, got


@pytest.mark.parametrize(
    "text,employer",
    [
        ("I work remotely for Plaid from my apartment in Raleigh", "Plaid"),
        ("I work full-time for Etsy", "Etsy"),
        ("I work from home most days", None),
    ],
)
def test_work_for_with_how_one_works(memory, text, employer):
    say(memory, text)
    assert held(memory, "employer")[0] == ([employer] if employer else [])


@pytest.mark.parametrize(
    "then,added",
    [
        ("had a whole 20 min conversation with my lola in Tagalog yesterday and she cried", "Tagalog"),
        ("Passed my B2 German exam last week", "German"),
        ("I used to chat in French with my grandma", None),
    ],
)
def test_a_language_shown_by_what_was_done_holds_now(memory, then, added):
    states = states_after(memory, "languages", "I only speak English", then)
    assert states == {"English": "current", **({added: "current"} if added else {})}, states


@pytest.mark.parametrize(
    "first,fix,was,now",
    [
        (
            "我住佛山，每天坐城轨去广州上班",
            "打错了，住的是中山😅 刚才在想周末去佛山吃什么，一走神就打成佛山了",
            "佛山",
            "中山",
        ),
        ("我住佛山", "打錯了，住的是中山", "佛山", "中山"),
    ],
)
def test_a_correction_that_names_what_it_puts_right(memory, first, fix, was, now):
    assert states_after(memory, "lives_in", first, fix, every=timedelta(minutes=1)) == {
        was: "corrected",
        now: "current",
    }


@pytest.mark.parametrize(
    "then,moved",
    [
        ("so we're officially Chicago people now", "Chicago"),
        ("we're Seattle people now", "Seattle"),
        ("we're dog people now", None),
        ("we're Apple people now", None),
    ],
)
def test_people_of_a_place_now(memory, then, moved):
    states = states_after(memory, "lives_in", "I live in Minneapolis", then)
    assert states == ({"Minneapolis": "replaced", moved: "current"} if moved else {"Minneapolis": "current"}), states


@pytest.mark.parametrize(
    "text,place",
    [("我一个人在台北租套房", "台北"), ("現在一個人在台北租套房", "台北"), ("我在台北租了一间套房", "台北")],
)
def test_renting_a_room_in_a_place_is_living_there(memory, text, place):
    say(memory, text)
    assert held(memory, "lives_in")[0] == [place]


@pytest.mark.parametrize(
    "then,states",
    [
        (
            "換車了！新的是Mazda CX-30，有360環景，倒車入庫終於不用冒冷汗😂",
            {"Toyota Altis": "replaced", "Mazda CX-30": "current"},
        ),
        ("新的是iPhone 15", {"Toyota Altis": "current"}),
    ],
)
def test_the_new_one_named_after_a_car_change(memory, then, states):
    assert states_after(memory, "car", "我開一台Toyota Altis，開了八年", then) == states


@pytest.mark.parametrize(
    "then,ends",
    [
        ("寶寶出生後發現他對貓毛過敏，只好把可可送去我姊家養了，每個禮拜還是會去看她", True),
        ("可可送到我妈那边住了", True),
        ("我姊把她的貓送來我家養了", False),
    ],
)
def test_a_pet_sent_to_live_elsewhere_ends(memory, then, ends):
    say(memory, "我養了一隻貓叫可可，超黏人", then, every=timedelta(days=60))
    current, ended = held(memory, "pets")
    assert bool(ended) == ends, (current, ended)


@pytest.mark.parametrize("then,title", [("考核出來了，我升副理了！！還是在台積電", "副理"), ("我升课长了", "课长")])
def test_a_promotion_to_a_title(memory, then, title):
    say(memory, "我在台積電當製程工程師", then, every=timedelta(days=180))
    assert held(memory, "job_title")[0] == [title]


@pytest.mark.parametrize(
    "text,employer",
    [
        ("almost 3 yrs at Nordstrom now, the employee discount is honestly dangerous", "Nordstrom"),
        ("two years with Deloitte and counting", "Deloitte"),
        ("I spent two years at Stanford", None),
        ("3 years at sea now", None),
    ],
)
def test_years_at_a_firm_now(memory, text, employer):
    say(memory, text)
    assert held(memory, "employer")[0] == ([employer] if employer else [])


def test_a_resignation_email_to_write_ends_nothing_yet(memory):
    say(
        memory,
        "我在小红书做运营，这个月又是天天加班到十点",
        "跟你说个好消息！网易的offer终于下来了，12月16号入职，这周就去跟领导提离职。你帮我想想离职邮件怎么写得体面一点",
        every=timedelta(days=50),
    )
    asked = T0 + timedelta(days=51)
    assert [f.value for f in memory.facts("u1", slot="employer", as_of=asked)] == ["小红书"]
    planned = memory.facts("u1", slot="employer", as_of=asked, include_planned=True)
    assert sorted(f.value for f in planned) == ["小红书", "网易"]


@pytest.mark.parametrize(
    "then,ends",
    [("匯豐嗰邊上個月已經交咗信", True), ("匯豐那邊我上個月交了辭職信", True), ("我朋友上個月跟匯豐交了辭職信", False)],
)
def test_a_resignation_letter_handed_in_ends_the_employer(memory, then, ends):
    say(memory, "我而家喺匯豐做IT", then, every=timedelta(days=150))
    assert bool(held(memory, "employer")[1]) == ends


def test_a_count_put_right_after_an_interjection(memory):
    states = states_after(
        memory,
        "number_of_children",
        "我有三個小孩，老大今年國一",
        "欸不是三個，是兩個啦，我剛剛順手把姪子也算進去了😂",
        every=timedelta(minutes=1),
    )
    assert states == {"三個小孩": "corrected", "兩個": "current"}, states
