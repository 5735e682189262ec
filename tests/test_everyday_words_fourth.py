"""Changes in everyday words, fourth round, each in English, Simplified and Traditional Chinese:
Chinese places no entity entry names (桂林, 竹南, 羅東: ``lexicons/places_zh.yaml``), a plan
called off through what it was for or where it goes whatever the words call it ("the conference
got cancelled", 高雄那場會議取消了, "Rome got pushed to next month", "Scratch Montreal"), what a
turn says outranking what is concluded from it (移居日本，現在住在大阪), constant values written in
the turn's script (訂婚, 離異), allergies added and outgrown, and Chinese clauses without their
subject (最近在学西班牙语, 上个月辞职了)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from conversation import T0, conclusions, fact_states, say, states_after

from memtracks.data.lexicons import load_places
from memtracks.data.userdata import load as load_user_data
from memtracks.errors import DataFileError

# ------------------------------------------------------------------ places in Chinese


@pytest.mark.parametrize(
    "text,place",
    [
        ("下周五要去桂林玩三天。", "桂林"),
        ("下週五要去礁溪泡溫泉。", "礁溪"),
        ("I'm flying to Guilin next Friday.", "Guilin"),
    ],
)
def test_a_trip_to_a_place_no_entity_entry_names(memory, text, place):
    found = conclusions(memory, text)
    assert any(place in t and active for t, active in found), found


@pytest.mark.parametrize(
    "before,after,expected",
    [
        ("我住在苗栗。", "我們下個月要搬去竹南。", {"苗栗": "replaced", "竹南": "current"}),
        ("我住在济南。", "明年三月就搬去烟台。", {"济南": "replaced", "烟台": "current"}),
        ("我住在新店。", "我遷居羅東了。", {"新店": "replaced", "羅東": "current"}),
        (
            "I live in Nottingham.",
            "We moved to Sheffield last month.",
            {"Nottingham": "replaced", "Sheffield": "current"},
        ),
    ],
)
def test_a_move_to_a_place_no_entity_entry_names(memory, before, after, expected):
    assert states_after(memory, "lives_in", before, after) == expected


def test_the_splitter_keeps_ordinary_words_whole(toolkit):
    tags = {w.text: w.tag for w in toolkit.nlp.analyze(["我想吃三明治，日照很充足。"])[0].tokens}
    assert tags.get("三明治") != "ns"
    assert "三明" not in tags
    assert "日照" not in tags or tags["日照"] != "ns"  # left out of the list: mostly "sunshine"


def test_a_bad_places_file_names_file_entry_and_field(tmp_path):
    path = tmp_path / "places_zh.yaml"
    path.write_text("places:\n  towns: [桂林, Guilin, 桂林, 上海, 乙]\n", encoding="utf-8")
    with pytest.raises(DataFileError) as err:
        load_places(path, taken=["上海"])
    message = str(err.value)
    assert "places_zh.yaml" in message
    assert "places.towns[1] 'Guilin'" in message and "Han characters" in message
    assert "places.towns[2] '桂林'" in message and "already listed at places.towns[0]" in message
    assert "places.towns[3] '上海'" in message and "entities.yaml" in message
    assert "places.towns[4] '乙'" in message
    path.write_text("places: [桂林]\n", encoding="utf-8")
    with pytest.raises(DataFileError, match="section 'places'"):
        load_places(path)


def test_a_users_places_file_adds_to_the_bundled_one(tmp_path):
    (tmp_path / "places_zh.yaml").write_text("places:\n  mine: [桂林, 大稻埕]\n", encoding="utf-8")
    places = load_user_data(None, tmp_path)["lexicons"].places_zh
    assert "大稻埕" in places and places.count("桂林") == 1 and "竹南" in places


# ------------------------------------------------------------------ plans called off


@pytest.mark.parametrize(
    "plan,off,place",
    [
        (
            "I'm flying to Berlin next Thursday for a conference.",
            "The conference got cancelled so no trip for me.",
            "Berlin",
        ),
        (
            "Heading to Montreal next Friday for my friend's wedding.",
            "Scratch Montreal, they postponed the wedding.",
            "Montreal",
        ),
        ("我下週四要去高雄出差。", "高雄那場會議取消了，不用跑了。", "高雄"),
        ("我下周四要去高雄出差。", "高雄那场会议取消了，不用跑了。", "高雄"),
        ("下周五要去桂林玩三天。", "桂林的行程泡汤了，一起去的朋友突然有事。", "桂林"),
    ],
)
def test_a_plan_is_called_off_by_what_it_was_for_or_where_it_goes(memory, plan, off, place):
    found = conclusions(memory, plan, off)
    assert any(place in text for text, _ in found), found
    assert not any(place in text and active for text, active in found), found


@pytest.mark.parametrize(
    "plan,moved,old,new",
    [
        (
            "I'm flying to Rome next Wednesday.",
            "Rome got pushed to next month, the client rescheduled.",
            "2024-09-11",
            "2024-10",
        ),
        ("我下週三要去台南出差。", "台南出差延到下個月了。", "2024-09-11", "2024-10"),
        ("我下周三要去台南出差。", "台南出差挪到下个月了。", "2024-09-11", "2024-10"),
    ],
)
def test_a_plan_moved_by_its_place_is_redated(memory, plan, moved, old, new):
    found = conclusions(memory, plan, moved)
    assert any(old in text and not active for text, active in found), found
    assert any(new in text and active for text, active in found), found


@pytest.mark.parametrize(
    "plan,said",
    [
        ("I'm flying to Berlin next Thursday for a wedding.", "The conference got cancelled, what a relief."),
        ("I'm flying to Berlin next Thursday for an update meeting.", "My date got cancelled."),
        ("Heading to Montreal next Friday.", "Forget it, I'll sort it out later."),
        ("我下周四要去高雄出差。", "台北那场会议取消了。"),
    ],
)
def test_a_call_off_of_something_else_keeps_the_plan(memory, plan, said):
    found = conclusions(memory, plan, said)
    assert found and all(active for _, active in found), found


# ------------------------------------------------------------------ what is said outranks what is concluded


@pytest.mark.parametrize(
    "before,after,expected",
    [
        ("我住在高雄。", "我已經移居日本了，現在住在大阪。", {"高雄": "replaced", "大阪": "current"}),
        ("我住在高雄。", "我已经移居日本了，现在住在大阪。", {"高雄": "replaced", "大阪": "current"}),
        (
            "I live in Boise.",
            "We moved to Japan last month, we live in Osaka now.",
            {"Boise": "replaced", "Osaka": "current"},
        ),
    ],
)
def test_a_place_said_outranks_the_one_a_move_concludes(memory, before, after, expected):
    assert states_after(memory, "lives_in", before, after) == expected


def test_a_move_said_alone_still_concludes_the_home(memory):
    assert states_after(memory, "lives_in", "I live in Boise.", "We moved to Osaka last month.") == {
        "Boise": "replaced",
        "Osaka": "current",
    }


# ------------------------------------------------------------------ relationship statuses


@pytest.mark.parametrize(
    "before,after,expected",
    [
        ("我女朋友叫怡婷。", "我們訂婚了。", {"訂婚": "current"}),
        ("我女朋友叫怡婷。", "我跟怡婷訂婚了，明年辦婚禮。", {"訂婚": "current"}),
        ("我女朋友叫小雪。", "小雪答应我的求婚了，我们订婚啦！", {"订婚": "current"}),
        ("I'm single.", "We got engaged last night!", {"single": "replaced", "engaged": "current"}),
        ("我已婚。", "我們已經離婚了，我一個人帶女兒。", {"已婚": "replaced", "離異": "current"}),
        ("我已婚。", "我们办完离婚手续了，各自安好吧。", {"已婚": "replaced", "离异": "current"}),
    ],
)
def test_a_status_is_written_in_the_turns_script(memory, before, after, expected):
    assert states_after(memory, "relationship_status", before, after) == expected


@pytest.mark.parametrize(
    "before,after,partner,state",
    [
        (
            "我太太叫雅雯，我們結婚十年了。",
            "雅雯跟我的離婚手續上個月辦好了，小孩週末會來我這邊。",
            "雅雯（太太）",
            "ended",
        ),
        ("我太太叫雅雯，我们结婚十年了。", "雅雯跟我的离婚手续上个月办好了。", "雅雯（太太）", "ended"),
    ],
)
def test_a_divorce_done_with_the_partner_named_first_ends_the_partner(memory, before, after, partner, state):
    assert states_after(memory, "partner", before, after)[partner] == state


# ------------------------------------------------------------------ allergies


@pytest.mark.parametrize(
    "before,after,expected",
    [
        ("I'm allergic to peanuts.", "Found out I'm also allergic to kiwi.", {"peanuts": "current", "kiwi": "current"}),
        (
            "I'm allergic to shellfish.",
            "My shellfish allergy is gone, the retest came back clean!",
            {"shellfish": "ended"},
        ),
        ("我对海鲜过敏。", "我海鲜过敏好了，昨天吃了一大盘虾。", {"海鲜": "ended"}),
        ("我對花生過敏。", "我花生過敏好了，減敏治療有效。", {"花生": "ended"}),
        ("我对猫毛过敏。", "我现在对猫毛不过敏了。", {"猫毛": "ended"}),
        ("我对猫毛过敏。", "我的感冒好了。", {"猫毛": "current"}),
        ("我对猫毛过敏。", "我的过敏好了吗？", {"猫毛": "current"}),
    ],
)
def test_allergies_added_and_outgrown(memory, before, after, expected):
    assert states_after(memory, "allergies", before, after) == expected


def test_a_thing_the_tagger_reads_as_a_verb_after_to_is_kept(memory):
    assert states_after(memory, "allergies", "I'm allergic to shellfish.") == {"shellfish": "current"}


# ------------------------------------------------------------------ Chinese clauses without their subject


@pytest.mark.parametrize(
    "before,after,slot,expected",
    [
        ("我会说英语。", "最近在学西班牙语，挺难的。", "languages", {"英语": "current", "西班牙语": "current"}),
        ("我會說英語。", "最近也在學日語。", "languages", {"英語": "current", "日語": "current"}),
        ("我在腾讯上班。", "上个月辞职了，想休息一阵子。", "employer", {"腾讯": "ended"}),
        ("我在騰訊上班。", "上個月辭職了，想休息一陣子。", "employer", {"騰訊": "ended"}),
        ("我开一辆思域。", "车卖了，现在坐地铁。", "car", {"思域": "ended"}),
        ("我男朋友叫阿凯。", "上周分手了，心情很差。", "partner", {"阿凯（男朋友）": "ended"}),
    ],
)
def test_a_clause_without_its_subject_is_the_speakers(memory, before, after, slot, expected):
    assert states_after(memory, slot, before, after) == expected


@pytest.mark.parametrize(
    "before,after,slot,expected",
    [
        ("我在腾讯上班。", "他上个月辞职了。", "employer", {"腾讯": "current"}),
        ("我在腾讯上班。", "同事辞职了，活都落到我头上。", "employer", {"腾讯": "current"}),
        ("我男朋友叫阿凯。", "电视剧里他们分手了。", "partner", {"阿凯（男朋友）": "current"}),
        ("我会说英语。", "小明最近在学日语。", "languages", {"英语": "current"}),
    ],
)
def test_someone_elses_clause_changes_nothing_of_the_speakers(memory, before, after, slot, expected):
    assert states_after(memory, slot, before, after) == expected


# ------------------------------------------------------------------ words a sentence opens with


@pytest.mark.parametrize(
    "before,after,expected",
    [
        (
            "I live in Nottingham, in a tiny flat near the station.",
            "Finally got the keys to our place in Sheffield last week!",
            {"Nottingham": "replaced", "Sheffield": "current"},
        ),
        (
            "I live in Leeds.",
            "Honestly moved to York last month, best decision.",
            {"Leeds": "replaced", "York": "current"},
        ),
    ],
)
def test_a_word_a_chat_sentence_opens_with_is_no_one(memory, before, after, expected):
    assert states_after(memory, "lives_in", before, after) == expected


# ------------------------------------------------------------------ corrections said beside the value


@pytest.mark.parametrize(
    "before,after,expected",
    [
        ("我住在杭州。", "不对，我是住在苏州，说错了。", {"杭州": "corrected", "苏州": "current"}),
        ("我住在杭州。", "住在苏州，刚才说错了。", {"杭州": "corrected", "苏州": "current"}),
        ("我住在杭州。", "不對，我是住在蘇州。", {"杭州": "corrected", "蘇州": "current"}),
        (
            "I live in Boston.",
            "Wait no, I live in Cambridge, not Boston.",
            {"Boston": "corrected", "Cambridge": "current"},
        ),
    ],
)
def test_a_correction_word_in_its_own_clause_corrects_the_value_beside_it(memory, before, after, expected):
    say(memory, before, after, every=timedelta(minutes=2))
    assert fact_states(memory, "lives_in") == expected


def test_a_stressing_shi_is_read_through(memory):
    """是 before the verb stresses it (我是住在…, 是对…过敏): the value after it is read."""
    say(memory, "我对蛤蜊过敏。", "不对，是对生蚝过敏。", every=timedelta(minutes=2))
    assert fact_states(memory, "allergies").get("生蚝") == "current"


def test_a_stressing_shi_keeps_what_it_does_not_change(memory):
    say(memory, "我住在杭州。", "我是在苏州长大的，不过一直住在杭州。", every=timedelta(minutes=2))
    assert fact_states(memory, "lives_in") == {"杭州": "current"}


# ------------------------------------------------------------------ pets named as they come, endings by a held name


@pytest.mark.parametrize(
    "before,after,expected",
    [
        (
            "I'm 33.",
            "We brought home a beagle puppy and named him Ollie, he's 9 weeks old.",
            {"Ollie (beagle)": "current"},
        ),
        (
            "I have a cat named Nala.",
            "We got a puppy too, a lab named Scout.",
            {"Nala (cat)": "current", "Scout (lab)": "current"},
        ),
        ("I'm 41.", "We adopted a greyhound from the rescue! Pepper, she's 3.", {"Pepper (greyhound)": "current"}),
        ("I'm 30.", "We got a dog, his name is Bruno.", {"Bruno (dog)": "current"}),
        ("我今年39岁。", "我们去收容所领养了一只黑狗，叫小黑，两岁。", {"小黑（黑狗）": "current"}),
        ("我今年39歲。", "我們去收容所領養了一隻黑狗，叫小黑，兩歲。", {"小黑（黑狗）": "current"}),
    ],
)
def test_a_pet_is_named_as_it_comes(memory, before, after, expected):
    assert states_after(memory, "pets", before, after) == expected


def test_a_lab_is_a_dog_only_when_named(memory):
    assert states_after(memory, "pets", "I'm 30.", "I have a lab meeting at nine.") == {}


@pytest.mark.parametrize(
    "before,after,slot,expected",
    [
        ("I work at Peloton.", "Peloton let me go along with half my team.", "employer", {"Peloton": "ended"}),
        ("I work at Peloton.", "My friend said Peloton let her go.", "employer", {"Peloton": "current"}),
        ("我開一台福特Focus。", "Focus給我弟開了，我現在騎機車通勤。", "car", {"福特Focus": "ended"}),
        ("我开一台福特Focus。", "iPad卖了，换了个新的。", "car", {"福特Focus": "current"}),
        ("我開一台馬自達3。", "馬自達3被撞到全毀，保險公司說修不了。", "car", {"馬自達3": "ended"}),
    ],
)
def test_an_ending_that_names_the_held_value(memory, before, after, slot, expected):
    assert states_after(memory, slot, before, after) == expected


def test_made_redundant_ends_the_employer(memory):
    say(memory, "I work at HSBC in London.", "I was made redundant at HSBC in the last round of cuts.")
    facts = memory.facts("u1", slot="employer", include_superseded=True)
    assert any(f.value == "HSBC" and f.reason == "ended" for f in facts), facts
    assert not any(f.value == "HSBC" and f.is_current for f in facts), facts  # nor a "NOT HSBC" beside it


@pytest.mark.parametrize(
    "text,expected",
    [
        ("I've been doing keto for a month, down 8 pounds already.", {"keto": "current"}),
        ("I'm on keto now.", {"keto": "current"}),
        ("I'm doing keto research for a client.", {}),
    ],
)
def test_a_diet_done_or_kept(memory, text, expected):
    assert states_after(memory, "diet", text) == expected


# ------------------------------------------------------------------ the new year, and the lunar calendar's days


@pytest.mark.parametrize(
    "text,lang,expected",
    [
        ("We're moving to Tucson in the new year.", "en", "2025-01-01"),
        ("I started there in the new year.", "en", "2024-01-01"),
        ("过完年就搬去成都。", "zh", "2025-01-29"),
        ("中秋回老家。", "zh", "2024-09-17"),
        ("我们今年端午去了厦门。", "zh", "2024-06-10"),
        ("除夕一起吃年夜饭。", "zh", "2025-01-28"),
        ("過年回台南。", "zh", "2025-01-29"),
    ],
)
def test_the_new_year_and_the_lunar_calendars_days(text, lang, expected):
    from datetime import datetime, timezone

    from memtracks.pipeline.timenorm import normalize_time

    found = normalize_time(text, datetime(2024, 9, 12, 12, tzinfo=timezone.utc), lang=lang)
    assert [t.start.date().isoformat() for t in found] == [expected], found


@pytest.mark.parametrize(
    "before,after,now,planned",
    [
        ("I live in Boise.", "We're moving to Tucson in the new year.", "Boise", "Tucson"),
        ("我住在重庆。", "过完年就搬去成都。", "重庆", "成都"),
    ],
)
def test_a_move_dated_by_the_new_year_is_a_plan(memory, before, after, now, planned):
    say(memory, before, after, every=timedelta(days=10))
    asked = T0 + timedelta(days=11)
    current = memory.facts("u1", slot="lives_in", as_of=asked)
    later = memory.facts("u1", slot="lives_in", as_of=asked, include_planned=True)
    assert [f.value for f in current] == [now], current
    assert [f.value for f in later if f.planned] == [planned], later


def test_a_lunar_date_table_is_checked(tmp_path):
    from memtracks.data.time_words import load_lexicon

    bundled = (Path(__file__).parent.parent / "lexicons" / "time_zh.yaml").read_text(encoding="utf-8")
    bad = bundled.replace("{word: 七夕, dates: {2000: '08-06'", "{word: 七夕, dates: {2000: '02-30'", 1)
    assert bad != bundled
    (tmp_path / "time_zh.yaml").write_text(bad, encoding="utf-8")
    with pytest.raises(DataFileError) as err:
        load_lexicon(tmp_path / "time_zh.yaml", "zh")
    assert "time_zh.yaml" in str(err.value) and "七夕" in str(err.value) and "02-30" in str(err.value)


# ------------------------------------------------------------------ partners named, and exes


@pytest.mark.parametrize(
    "text,expected",
    [
        ("My husband is Dan.", {"Dan (husband)": "current"}),
        ("I have a boyfriend named Dan.", {"Dan (boyfriend)": "current"}),
        ("My husband is Italian.", {}),
        ("My wife is a nurse.", {}),
    ],
)
def test_a_partner_named_plainly(memory, text, expected):
    assert states_after(memory, "partner", text) == expected


@pytest.mark.parametrize(
    "before,after,expected",
    [
        ("My boyfriend is Dan.", "My ex Dan texted me yesterday.", {"Dan (boyfriend)": "ended"}),
        ("My boyfriend is Dan.", "My ex-boyfriend Mike texted me yesterday.", {"Dan (boyfriend)": "current"}),
        ("我男朋友叫阿凯。", "前男友阿凯昨天给我发消息。", {"阿凯（男朋友）": "ended"}),
        ("我男朋友叫阿凱。", "前男友阿凱昨天傳訊息給我。", {"阿凱（男朋友）": "ended"}),
        ("我男朋友叫阿凯。", "前男友小刚昨天给我发消息。", {"阿凯（男朋友）": "current"}),
    ],
)
def test_an_ex_named_is_no_partner(memory, before, after, expected):
    assert states_after(memory, "partner", before, after) == expected


@pytest.mark.parametrize(
    "before,after",
    [
        ("我男朋友叫阿凯。", "我跟阿凯掰了。"),
        ("我男朋友叫阿凯。", "我和阿凯散了。"),
        ("我男朋友叫阿凱。", "我跟阿凱掰了，不想再提。"),
    ],
)
def test_a_split_in_chat_words_ends_the_partner(memory, before, after):
    states = states_after(memory, "partner", before, after)
    assert not any(state == "current" and value.startswith(("阿凯（", "阿凱（")) for value, state in states.items())
    assert any(state == "ended" for state in states.values()), states
