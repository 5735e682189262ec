"""Change told in passing, in English, Simplified and Traditional Chinese (a further round):

- a kind or relation beside a value is written in the turn's script (可可（貓）, 小雨（女兒）,
  藍色（最喜歡的顏色）); a favourite said again in the other script replaces the first;
- what someone else tells of the speaker, denied in the same turn, changes nothing ("my aunt
  told the whole family I quit Costco. I did NOT"); the speaker's own telling does;
- a correction reaches back to a value said days before (前两天说错了, 欸前天打錯) and follows a
  slip word after an interjection ("ugh scratch that, I'm actually in Alameda, ...");
- "me and my boyfriend Jordan live in X" is where the speaker lives;
- an emoji ends a clause (领证啦💍 婚礼明年再办: the plan is the wedding's, not the marriage's);
- a marriage by its certificate or its wedding held, a proposal said yes to after "！！";
- a retirement said as 退下来, a switch said in Cantonese (轉咗去渣打喇), a diet put to an end
  (告一段落, "the vegetarian thing is over"), a move opened by an adverb (索性搬来合肥); an
  ending word that describes other people (从腾讯离职的人很多) ends nothing of the speaker's;
- an nth birthday had ("35th bday was yesterday"), a first week at a firm after a dash, a pet
  named after the sentence that adopts it ("a cat!! Juniper, 2yo"), a partner made so by a
  pronoun ("this guy Marco ... he's officially my boyfriend");
- a start date in the sentence after the offer, then pushed back; a trip called off in Cantonese.

Each with look-alikes that must change nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from conversation import T0, fact_states, held, say, states_after

from memtracks.data.statements import RUMOUR_PARTS, default_rumours, load_endings
from memtracks.errors import DataFileError

# ---------------------------------------------------------------- the turn's script


@pytest.mark.parametrize(
    "text,slot,value",
    [
        ("我養了一隻貓叫可可，很黏人", "pets", "可可（貓）"),
        ("我养了一只猫叫可可，很黏人", "pets", "可可（猫）"),
        ("我女兒叫小雨", "children", "小雨（女兒）"),
        ("我女儿叫小雨", "children", "小雨（女儿）"),
        ("我姊姊叫陳怡君", "family", "陳怡君（姊姊）"),
        ("我最喜歡的顏色是藍色", "likes", "藍色（最喜歡的顏色）"),
        ("我最喜欢的颜色是蓝色", "likes", "蓝色（最喜欢的颜色）"),
        ("I have a cat named Coco", "pets", "Coco (cat)"),
    ],
)
def test_a_kind_beside_a_value_is_in_the_turns_script(memory, text, slot, value):
    say(memory, text)
    assert held(memory, slot) == ([value], [])


def test_a_favourite_said_again_in_the_other_script_replaces_the_first(memory):
    states = states_after(memory, "likes", "我最喜欢的颜色是红色", "我最喜歡的顏色是黑色")
    assert states == {"红色（最喜欢的颜色）": "replaced", "黑色（最喜歡的顏色）": "current"}


# ---------------------------------------------------------------- rumours


@pytest.mark.parametrize(
    "first,then,slot,now",
    [
        (
            "I work at Costco, been there 6 years.",
            "lmao my aunt told the whole family I quit Costco. I did NOT, I just switched to the early shift.",
            "employer",
            {"Costco": "current"},
        ),
        ("我在杭州住", "我姑姑到处跟亲戚说我搬去上海了，才没有好吗", "lives_in", {"杭州": "current"}),
        ("我在台電工作", "我媽跟全家講我辭職了，根本沒有", "employer", {"台電": "current"}),
        # the speaker's own word, or a report that is not denied
        ("I work at Costco.", "I quit Costco. I did not tell my aunt yet though.", "employer", {"Costco": "ended"}),
        (
            "I live in Austin.",
            "my boss told me I got the transfer, so I moved to Denver last week.",
            "lives_in",
            {"Austin": "replaced", "Denver": "current"},
        ),
        ("我在杭州住", "我跟我妈说我搬去上海了，她不信", "lives_in", {"杭州": "replaced", "上海": "current"}),
    ],
)
def test_what_someone_else_tells_of_the_speaker_denied_changes_nothing(memory, first, then, slot, now):
    assert states_after(memory, slot, first, then) == now


def test_the_rumour_words_load_and_a_bad_entry_fails_with_its_place(tmp_path):
    assert set(default_rumours().by_slot) == RUMOUR_PARTS
    bad = tmp_path / "statements.yaml"
    bad.write_text('rumours:\n  told:\n    zh: ["说(", "传言"]\n  heard:\n    en: ["x"]\n', encoding="utf-8")
    with pytest.raises(DataFileError) as err:
        load_endings(bad, slots=RUMOUR_PARTS, name="rumours")
    text = str(err.value)
    assert "rumours.told.zh[0]" in text and "rumours.heard" in text and str(bad) in text


# ---------------------------------------------------------------- corrections


@pytest.mark.parametrize(
    "first,fix,days,slot,was,now",
    [
        (
            "我在顺丰上班，做仓管。",
            "啊前两天说错了，我是在中通！顺丰是隔壁那家，我天天路过老记混🤦",
            3,
            "employer",
            "顺丰",
            "中通",
        ),
        (
            "我開一台Mazda CX-30。",
            "欸前天打錯，是Mazda CX-5才對，CX-30是我姊那台",
            2,
            "car",
            "Mazda CX-30",
            "Mazda CX-5",
        ),
        (
            "I live in Oakland and work from home most days.",
            "ugh scratch that, I'm actually in Alameda, I just say Oakland cuz nobody knows where Alameda is lol",
            0,
            "lives_in",
            "Oakland",
            "Alameda",
        ),
    ],
)
def test_a_correction_reaches_back_days_and_after_an_interjection(memory, first, fix, days, slot, was, now):
    say(memory, first, fix, every=timedelta(days=days, minutes=5))
    assert fact_states(memory, slot) == {was: "corrected", now: "current"}


def test_a_slip_word_without_a_value_corrects_nothing(memory):
    assert states_after(memory, "employer", "我在顺丰上班", "前天打错字了哈哈", every=timedelta(days=2)) == {
        "顺丰": "current"
    }


# ---------------------------------------------------------------- who and clauses


@pytest.mark.parametrize(
    "text,owner",
    [
        ("me and my boyfriend Jordan live in Minneapolis, surviving our 3rd winter here", "user"),
        ("Me and Jordan live in Minneapolis now", "user"),
        ("my boyfriend Jordan lives in Minneapolis, I'm in St Paul", "Jordan"),
    ],
)
def test_the_speaker_joined_to_a_subject_lives_there_too(memory, text, owner):
    say(memory, text)
    assert fact_states(memory, "lives_in", subject=owner).get("Minneapolis") == "current"


@pytest.mark.parametrize(
    "first,then,slot,now",
    [
        (
            "I live in Austin, off South Lamar.",
            "packing + driving a uhaul 900 miles will do that 😅 we're officially Denver people now",
            "lives_in",
            {"Austin": "replaced", "Denver": "current"},
        ),
        (
            "我男朋友叫志远。",
            "我们上周五去民政局领证啦💍 婚礼明年再办，先过小日子",
            "relationship_status",
            {"已婚": "current"},
        ),
    ],
)
def test_an_emoji_ends_a_clause(memory, first, then, slot, now):
    assert states_after(memory, slot, first, then, every=timedelta(days=45)) == now


# ---------------------------------------------------------------- relationships


@pytest.mark.parametrize(
    "turns,status",
    [
        (["我男朋友叫冠宇。", "冠宇昨天在九份跟我求婚！！我當然說好😭💍"], {"訂婚": "current"}),
        (
            ["我男朋友叫冠宇。", "冠宇昨天在九份跟我求婚！！我當然說好", "婚禮上個月在台南辦完了，累到爆但很值得"],
            {"訂婚": "replaced", "已婚": "current"},
        ),
        (["我们上周领证了"], {"已婚": "current"}),
        (["我朋友的婚礼办完了，好累"], {}),
        (["他求婚了！！我还没想好怎么回答"], {}),
    ],
)
def test_a_marriage_by_its_certificate_or_wedding_and_a_proposal_said_yes_to(memory, turns, status):
    assert states_after(memory, "relationship_status", *turns) == status


def test_a_marriage_planned_is_no_marriage_yet(memory):
    say(memory, "我们打算明年领证")
    facts = memory.facts("u1", slot="relationship_status", include_planned=True, include_superseded=True)
    assert [(f.value, f.planned) for f in facts] == [("已婚", True)]


def test_a_partner_made_so_by_a_pronoun(memory):
    say(
        memory,
        "My girlfriend Tessa is an ER nurse.",
        "so tessa and i called it quits last week. mutual, mostly.",
        "ok so this guy Marco I've been seeing for a few weeks... as of last night he's officially my boyfriend lol 😳",
    )
    assert held(memory, "partner") == (["Marco (boyfriend)"], ["Tessa (girlfriend)"])


def test_a_friend_made_so_by_a_pronoun_is_no_partner(memory):
    say(memory, "this guy Marco from work is hilarious, he's officially my favourite coworker")
    assert held(memory, "partner") == ([], [])


# ---------------------------------------------------------------- jobs, diets, moves


@pytest.mark.parametrize(
    "first,then,states",
    [
        ("我在台電工作，做了三十二年了。", "上個月底正式從台電退下來了🎉 同事幫我辦了歡送會", {"台電": "ended"}),
        ("我喺滙豐做嘢，做緊合規。", "同你講，我轉咗去渣打喇！人工加咗兩成", {"滙豐": "replaced", "渣打": "current"}),
        ("我在台電工作。", "我爸明年就要從台電退下來了", {"台電": "current"}),
        ("我在台電工作。", "今年從台電退下來的同事很多，辦公室空了一半", {"台電": "current"}),
        ("我在腾讯上班。", "从腾讯离职的人很多，我还在", {"腾讯": "current"}),
    ],
)
def test_a_retirement_and_a_switch_in_other_words(memory, first, then, states):
    assert states_after(memory, "employer", first, then) == states


@pytest.mark.parametrize(
    "first,then,ended",
    [
        ("我吃素，吃了快十年。", "最近開始有在吃魚跟雞肉了……素食生活就先告一段落吧", True),
        ("I'm vegetarian.", "the vegetarian thing is over, doctor said my iron is too low", True),
        ("I'm vegetarian.", "the vegetarian place downtown is over priced lol", False),
        ("I'm vegetarian.", "my diet is done for today haha, pizza time", False),
        ("我吃素。", "这个项目终于告一段落了", False),
    ],
)
def test_a_diet_put_to_an_end(memory, first, then, ended):
    states = states_after(memory, "diet", first, then)
    assert (set(states.values()) == {"ended"}) is ended


@pytest.mark.parametrize(
    "then,moved",
    [
        ("房东不续租了，索性搬来合肥，新家楼下就是菜市场", True),
        ("后来搬来合肥了，挺好", True),
        ("我同事索性搬来合肥了", False),
    ],
)
def test_a_move_opened_by_an_adverb(memory, then, moved):
    states = states_after(memory, "lives_in", "我住南京。", then)
    assert (states.get("合肥") == "current") is moved


# ---------------------------------------------------------------- birthdays, first weeks, pets


@pytest.mark.parametrize(
    "then,now",
    [
        ("35th bday was yesterday!! coworkers got me a sheet cake", "35"),
        ("My 35th birthday is today, send cake", "35"),
        ("Emma's 5th birthday was yesterday", "34"),
        ("my 35th birthday is next month, ugh", "34"),
    ],
)
def test_an_nth_birthday_had(memory, then, now):
    states = states_after(memory, "age", "I'm 34 btw.", then, every=timedelta(days=300))
    assert states[now] == "current"


def test_a_first_week_at_a_firm_after_a_dash(memory):
    states = states_after(
        memory,
        "employer",
        "I'm a battery engineer at Rivian.",
        "ok good news finally — first week at Lucid done!! team is great",
    )
    assert states == {"Rivian": "replaced", "Lucid": "current"}


@pytest.mark.parametrize(
    "then,pets",
    [
        ("we adopted a cat!! Juniper, 2yo, from the shelter. she's tiny", ["Juniper (cat)", "Waffles (corgi)"]),
        ("we got a dog. Honestly, it's chaos", ["Waffles (corgi)", "dog"]),
    ],
)
def test_a_pet_named_after_the_sentence_that_adopts_it(memory, then, pets):
    say(memory, "I have a corgi named Waffles.", then)
    assert held(memory, "pets") == (pets, [])


# ---------------------------------------------------------------- plans


def test_a_start_date_after_the_offer_then_pushed_back(memory):
    say(
        memory,
        "I work at HubSpot in marketing ops.",
        "signed the offer with Datadog!!! start date is Monday Oct 7th, gonna give notice at HubSpot tmrw",
        "update: Datadog pushed my start to Nov 4 bc of some reorg on their end",
        every=timedelta(days=10),
    )
    before = memory.facts("u1", slot="employer", as_of=T0 + timedelta(days=40))
    assert [f.value for f in before if not f.planned] == ["HubSpot"]
    planned = [f for f in memory.facts("u1", slot="employer", include_planned=True) if f.planned]
    assert [(f.value, f.valid_from.date().isoformat()) for f in planned] == [("Datadog", "2024-11-04")]


@pytest.mark.parametrize(
    "then,called_off",
    [
        ("澳門唔去得喇😩 老細話個project要趕，成個weekend都要OT", True),
        ("澳门去不成啦，要加班", True),
        ("澳門好好玩，下次再去", False),
    ],
)
def test_a_trip_called_off_in_cantonese(memory, then, called_off):
    say(memory, "下個禮拜六我同屋企人去澳門食嘢，已經訂咗船飛。", then, every=timedelta(days=3))
    active = [i.text for i in memory.inferences("u1") if "澳門" in i.text or "澳门" in i.text]
    assert (not active) is called_off
