"""Change told by what comes with it, in English, Simplified and Traditional Chinese:

- a new job told through its first pay, its onboarding or induction, its new badge, or its
  people said beside an induction (这周入职培训…字节跳动这边的leader); 入职培训 names no firm;
- a job held at a firm named with a field of work (在圆通做调度, 在vivo做硬件, "at Halloway Dental as
  the front desk receptionist");
- a contract run out and not renewed (約上個月到期沒續), a lay-off said in English words (被lay
  off了) end the employer; moving one's things out of the partner's place (由阿Ken嗰度搬晒啲嘢)
  ends the partner; a Latin name after a kin word (我男朋友阿Ken, 我男朋友Tom在…), not a word
  used as a verb's object (我妈Excel用得很好);
- a lease signed on a home in a place (將軍澳間屋簽咗兩年約, "Signed a 12-month lease in Boise");
- a plan named by its place and pushed back after "so" ("so Asheville got pushed to November 15th");
- a pet named with 取名 alone, after 回来, before an emoji (我抱了只狸花猫回来，取名雪碧🥤);
- a name put right with 牠叫 (欸剛剛打錯了，牠叫豆漿啦！);
- a town the recogniser takes for a person, firm or product is a place where its name is one
  (``lexicons/places_en.yaml``) and the words around it say so ("moving to Eugene", "we're
  Tucson people now"; not "I talked to Eugene"); what a match says holds now takes no other
  time of its sentence ("Jordan's residency starts monday so yeah, we're Tucson people now").

Each with look-alikes that must change nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from conversation import T0, fact_states, held, say, states_after


@pytest.mark.parametrize(
    "first,then,states",
    [
        (
            "I work at Hartwell Insurance as a data analyst.",
            "ok so my first payslip from Brightloom landed today 🎉 and my new manager Tobi already set up a 1:1",
            {"Hartwell Insurance": "replaced", "Brightloom": "current"},
        ),
        (
            "I'm a UX designer at Shopify.",
            "my new Wayfair badge photo is a crime against humanity 😭 first week and I look like a mugshot",
            {"Shopify": "replaced", "Wayfair": "current"},
        ),
        (
            "我在携程上班，做产品。",
            "这周入职培训整整三天，新工牌上的照片丑哭了😂 字节跳动这边的leader人挺nice的",
            {"携程": "replaced", "字节跳动": "current"},
        ),
        (
            "我喺匯豐做analyst，成日OT到癲。",
            "渣打啲onboarding搞咗成個禮拜先完😮‍💨 新boss好chill",
            {"匯豐": "replaced", "渣打": "current"},
        ),
        # someone else's induction, a payslip without a new firm
        ("我在携程上班。", "我朋友这周入职培训，腾讯那边的同事人很好", {"携程": "current"}),
        (
            "I work at Hartwell Insurance.",
            "my first payslip of the year is smaller, taxes lol",
            {"Hartwell Insurance": "current"},
        ),
    ],
)
def test_a_new_job_told_by_what_comes_with_it(memory, first, then, states):
    assert states_after(memory, "employer", first, then, every=timedelta(days=75)) == states


@pytest.mark.parametrize(
    "text,employer",
    [
        ("我在圆通做调度。", "圆通"),
        ("我在vivo做硬件。", "vivo"),
        ("我在美团做研发", "美团"),
        ("I work at Halloway Dental as the front desk receptionist.", "Halloway Dental"),
    ],
)
def test_a_job_held_at_a_firm_named_with_its_field(memory, text, employer):
    say(memory, text)
    assert held(memory, "employer") == ([employer], [])


@pytest.mark.parametrize(
    "first,then,ends",
    [
        ("我在奧美當約聘設計師。", "奧美那邊的約上個月到期沒續😅 現在自己接案當freelancer", True),
        ("我在联合利华上班，做市场。", "唉上周五被lay off了，整个组直接砍掉，联合利华的年假还没休完呢", True),
        ("我在奧美當約聘設計師。", "奧美那邊的約下個月到期，應該會續吧", False),
        ("我在联合利华上班。", "隔壁组被lay off了一半，我们组还好", False),
    ],
)
def test_a_contract_run_out_and_a_lay_off_end_the_employer(memory, first, then, ends):
    states = states_after(memory, "employer", first, then)
    assert (set(states.values()) == {"ended"}) is ends


def test_moving_out_of_the_partners_place_ends_the_partner(memory):
    say(memory, "我男朋友阿Ken做室內設計，成日加班。", "上個禮拜已經由阿Ken嗰度搬晒啲嘢返屋企，以後唔使再遷就佢啲作息")
    assert held(memory, "partner") == ([], ["阿Ken（男朋友）"])


def test_moving_into_the_partners_place_is_no_ending(memory):
    say(memory, "我男朋友阿Ken做室內設計。", "上個禮拜搬咗去阿Ken嗰度住，終於唔使兩頭走")
    assert held(memory, "partner") == (["阿Ken（男朋友）"], [])


@pytest.mark.parametrize(
    "text,partner",
    [
        ("我男朋友Tom在银行上班", ["Tom（男朋友）"]),
        ("我男朋友阿Ken做室內設計", ["阿Ken（男朋友）"]),
        ("我妈Excel用得很好", []),
    ],
)
def test_a_latin_name_after_a_kin_word(memory, text, partner):
    say(memory, text)
    assert held(memory, "partner")[0] == partner
    assert "Excel（妈）" not in fact_states(memory, "family")


@pytest.mark.parametrize(
    "first,then,states",
    [
        (
            "我住喺沙田，返工要搭東鐵。",
            "將軍澳間屋終於簽咗兩年約🔑 而家返工坐港鐵廿分鐘就到",
            {"沙田": "replaced", "將軍澳": "current"},
        ),
        (
            "I live in Sacramento, in midtown.",
            "Signed a 12-month lease in Boise last week!! tiny balcony, no roommates",
            {"Sacramento": "replaced", "Boise": "current"},
        ),
        ("我住在杭州。", "我朋友在南京那套房子签了租约", {"杭州": "current"}),
    ],
)
def test_a_lease_signed_on_a_home_in_a_place(memory, first, then, states):
    assert states_after(memory, "lives_in", first, then, every=timedelta(days=90)) == states


def test_a_plan_named_by_its_place_pushed_back_after_so(memory):
    say(
        memory,
        "I live in Raleigh, near the art museum.",
        "We're moving to Asheville on October 1st, the movers are booked and everything.",
        "ugh the movers bailed on us, so Asheville got pushed to November 15th 😩",
        every=timedelta(days=10),
    )
    now = memory.facts("u1", slot="lives_in", as_of=T0 + timedelta(days=40))
    assert [f.value for f in now if not f.planned] == ["Raleigh"]
    planned = [f for f in memory.facts("u1", slot="lives_in", include_planned=True) if f.planned]
    assert [(f.value, f.valid_from.date().isoformat()) for f in planned] == [("Asheville", "2024-11-15")]


@pytest.mark.parametrize(
    "then,pets",
    [
        ("朋友家猫生了一窝，我抱了只狸花猫回来，取名雪碧🥤 可乐天天追着它闻", ["可乐（柯基）", "雪碧（狸花猫）"]),
        ("我同事抱了只狸花猫回来，取名雪碧", ["可乐（柯基）"]),
    ],
)
def test_a_pet_named_with_quming_after_it_is_brought_home(memory, then, pets):
    say(memory, "我养了一只柯基，叫可乐。", then)
    assert held(memory, "pets")[0] == pets


def test_a_name_put_right_with_ta_for_an_animal(memory):
    say(memory, "我養了一隻柴犬叫豆花。", "欸剛剛打錯了，牠叫豆漿啦！豆花是我姊家那隻🤦", every=timedelta(minutes=5))
    assert fact_states(memory, "pets") == {"豆花（柴犬）": "corrected", "豆漿（柴犬）": "current"}


# ---------------------------------------------------------------- towns the recogniser mislabels


@pytest.mark.parametrize(
    "text,label",
    [
        ("we're Tucson people now", "place"),
        ("just moved to Asheville!", "place"),
        ("finally settled in Chattanooga", "place"),
        ("moving to Eugene in may", "place"),
        ("I talked to Eugene yesterday", "person"),
        ("I'm dating Austin now", "person"),
    ],
)
def test_a_town_the_recogniser_mislabels_is_a_place_where_the_words_say_so(toolkit, text, label):
    from memtracks.pipeline.entities import extract_entities

    analysis = toolkit.nlp.analyze([text], ["en"])[0]
    name = next(w for w in text.replace("!", "").split() if w[0].isupper() and w not in ("I", "I'm"))
    assert [e.label for e in extract_entities(analysis, toolkit.lexicons) if e.text == name] == [label]


def test_a_move_to_a_town_the_recogniser_mislabels(memory):
    states = states_after(
        memory,
        "lives_in",
        "me and my boyfriend Jordan live in Minneapolis",
        "drove 2 days straight with the cat yowling. Jordan's residency starts monday so yeah, we're Tucson people now 🌵",
    )
    assert states == {"Minneapolis": "replaced", "Tucson": "current"}


def test_the_town_list_loads_and_a_bad_entry_fails_with_its_place(tmp_path, toolkit):
    from memtracks.data.lexicons import load_places_en
    from memtracks.errors import DataFileError

    assert {"Tucson", "Eugene", "Leeds"} <= toolkit.lexicons.places_en
    bad = tmp_path / "places_en.yaml"
    bad.write_text('places:\n  - "Tucson"\n  - "sector 3"\n  - "Tucson"\n', encoding="utf-8")
    with pytest.raises(DataFileError) as err:
        load_places_en(bad)
    text = str(err.value)
    assert "places[1]" in text and "places[2]" in text and str(bad) in text


def test_a_users_town_list_adds_to_the_bundled_one(tmp_path):
    from memtracks.data.userdata import load as load_user_data

    (tmp_path / "places_en.yaml").write_text('places:\n  - "Bend"\n  - "Tucson"\n', encoding="utf-8")
    places = load_user_data(None, tmp_path)["lexicons"].places_en
    assert {"Bend", "Tucson", "Eugene"} <= places
