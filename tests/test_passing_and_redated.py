"""A car had for a while is no car of one's own, a start date moved is a plan moved, and what
chat says without "I" is still the speaker's, in English, Simplified and Traditional Chinese
(with Hong Kong Cantonese):

- a test drive, a loan, a rental (试驾, 借咗…嚟揸) gives the speaker no car, whichever rule or
  reading found it; a car bought after one sold does;
- "my start date's been pushed back to the 14th of October", 報到日往後挪到10月14號: the new job
  is planned from the new day (X的offer我接了 takes the offer);
- "Sold the CX-5 and bought a Polestar 2": the second verb is the speaker's too;
- 我揸緊架Tesla: a car driven, in Cantonese."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from conversation import T0, fact_states, say

from memtracks import Turn
from memtracks.data.catalogue import default_catalogue
from memtracks.data.statements import default_passing, load_endings
from memtracks.errors import DataFileError


@pytest.mark.parametrize(
    "before,after,car",
    [
        (
            "I drive a Mazda CX-5.",
            "Test drove a Polestar 2 at the weekend, so smooth. Not buying though, way out of budget.",
            "Mazda CX-5",
        ),
        ("I drive a Mazda CX-5.", "Got a rental Corolla for the trip, drove it all over Maine.", "Mazda CX-5"),
        ("我开的是比亚迪秦。", "周末试驾了一台问界M7，感觉还行", "比亚迪秦"),
        ("我開的是豐田Altis。", "週末試駕了一台Model Y，加速真的猛", "豐田Altis"),
        (
            "我揸緊架Tesla Model 3，慳油到笑。",
            "呢個禮拜借咗老豆架平治嚟揸，坐得舒服好多，不過下個禮拜就要還返畀佢",
            "Tesla Model 3",
        ),
    ],
)
def test_a_car_had_for_a_while_is_not_the_speakers(memory, before, after, car):
    say(memory, before, after)
    assert fact_states(memory, "car") == {car: "current"}


@pytest.mark.parametrize(
    "before,after,old,new",
    [
        ("I drive a Mazda CX-5.", "Sold the CX-5 and bought a Polestar 2.", "Mazda CX-5", "Polestar 2"),
        ("I drive a Mazda CX-5.", "Traded in the CX-5 and bought a Polestar 2 last week.", "Mazda CX-5", "Polestar 2"),
        ("我开的是比亚迪秦。", "把秦卖了，换了一台问界M7", "比亚迪秦", "问界M7"),
    ],
)
def test_a_car_bought_after_one_sold_is_the_speakers(memory, before, after, old, new):
    say(memory, before, after)
    assert fact_states(memory, "car") == {old: "replaced", new: "current"}


def _planned_from(memory, slot: str) -> dict[str, date]:
    facts = memory.facts("u1", slot=slot, include_planned=True, include_superseded=False)
    return {f.value: f.valid_from.date() for f in facts if f.planned}


@pytest.mark.parametrize(
    "texts,firm,day",
    [
        (
            (
                "I work for Boots in Nottingham, in the buying team.",
                "Signed with Experian! I start there on the 30th.",
                "Experian just emailed, my start date's been pushed back to the 14th of October because of some "
                "laptop delay.",
            ),
            "Experian",
            date(2024, 10, 14),
        ),
        (
            (
                "我在誠品上班，信義店。",
                "蝦皮的offer我接了，下個月1號報到",
                "蝦皮HR說報到日往後挪到10月14號，部門還在調整",
            ),
            "蝦皮",
            date(2024, 10, 14),
        ),
        (
            ("我在诚品上班。", "拿到了虾皮的offer，下个月1号报到", "虾皮HR说报到日往后挪到10月14号"),
            "虾皮",
            date(2024, 10, 14),
        ),
    ],
)
def test_a_start_date_moved_moves_the_planned_job(memory, texts, firm, day):
    for i, (text, days) in enumerate(zip(texts, (0, 5, 9), strict=True)):
        memory.write(
            Turn(
                text=text,
                speaker="user",
                user_id="u1",
                session_id=f"s{i}",
                turn_id=f"t{i}",
                timestamp=T0 + timedelta(days=days),
            )
        )
    assert _planned_from(memory, "employer") == {firm: day}
    # the old employer holds until the new day, not the old one
    old = next(f for f in memory.facts("u1", slot="employer", include_superseded=True) if not f.planned)
    assert old.reason == "replaced" and old.valid_to.date() == day


def test_passing_words_name_known_slots_and_a_bad_entry_fails_with_its_place(tmp_path):
    assert set(default_passing().by_slot) <= {s.name for s in default_catalogue().slots}
    bad = tmp_path / "statements.yaml"
    bad.write_text('passing:\n  car:\n    zh: ["试驾(", "借"]\n  bike:\n    en: ["x"]\n', encoding="utf-8")
    with pytest.raises(DataFileError) as err:
        load_endings(bad, slots=frozenset({"car"}), name="passing")
    text = str(err.value)
    assert "passing.car.zh[0]" in text and "passing.bike" in text and str(bad) in text


@pytest.mark.parametrize(
    "texts,expected",
    [
        (
            ("I have a tabby called Pickle.", "So... we adopted a second one 🙈 a kitten called Juniper."),
            {"Pickle (tabby)": "current", "Juniper (kitten)": "current"},
        ),
        (
            ("I have a dog named Rex.", "We got a puppy last week, her name is Daisy."),
            {"Rex (dog)": "current", "Daisy (puppy)": "current"},
        ),
        (
            ("我养了条金毛，叫馒头。", "朋友家猫生了一窝，我抱了一只回来，叫花卷，馒头花卷凑一对😆"),
            {"馒头（金毛）": "current", "花卷（猫）": "current"},
        ),
        (
            ("我養了一隻狗叫豆豆。", "同事家的貓生了一窩，我抱了一隻回來，取名叫麻糬"),
            {"豆豆（狗）": "current", "麻糬（貓）": "current"},
        ),
    ],
)
def test_a_second_pet_joins_the_first(memory, texts, expected):
    say(memory, *texts)
    assert fact_states(memory, "pets") == expected


@pytest.mark.parametrize(
    "before,after,old",
    [
        ("我吃素的，蛋奶可以。", "素吃了三年，最近还是恢复吃肉了，医生说我贫血得补补", "吃素"),
        ("我吃素。", "最近开始吃肉了", "吃素"),
        ("我吃全素。", "現在葷素都吃了", "全素"),
        ("I'm vegetarian.", "Went back to eating meat last month.", "vegetarian"),
    ],
)
def test_eating_meat_again_ends_the_meat_free_diet(memory, before, after, old):
    say(memory, before, after)
    assert fact_states(memory, "diet") == {old: "ended"}


def test_someone_elses_meat_eating_ends_nothing(memory):
    say(memory, "我吃素。", "我老公最近开始吃肉了")
    assert fact_states(memory, "diet") == {"吃素": "current"}


@pytest.mark.parametrize(
    "before,after,new",
    [
        ("我对花生过敏。", "哦对了，前几天去医院查出来我虾也过敏，以后海鲜也得小心了", "虾"),
        ("我對花生過敏。", "我芒果也過敏", "芒果"),
    ],
)
def test_a_second_allergy_said_topic_first_joins_the_first(memory, before, after, new):
    say(memory, before, after)
    assert fact_states(memory, "allergies") == {"花生": "current", new: "current"}


def test_a_passing_allergy_names_nothing(memory):
    say(memory, "我对花生过敏。", "我最近也过敏，鼻子好痒")
    assert fact_states(memory, "allergies") == {"花生": "current"}


@pytest.mark.parametrize(
    "before,after,old,new",
    [
        ("我住在成都。", "新房子终于交房了，上周把成都的东西全运到重庆，现在每天爬坡上坎😂", "成都", "重庆"),
        ("我住在台南。", "家當都搬去高雄了", "台南", "高雄"),
        ("I live in Norwich.", "Shipped all our stuff to Leeds last week, new chapter!", "Norwich", "Leeds"),
    ],
)
def test_the_household_moved_is_a_move(memory, before, after, old, new):
    say(memory, before, after, every=timedelta(days=60))
    assert fact_states(memory, "lives_in") == {old: "replaced", new: "current"}


@pytest.mark.parametrize(
    "before,after,home",
    [
        ("我住在成都。", "把旧衣服寄到重庆给我妈了", "成都"),
        ("I live in Norwich.", "Moved my stuff to the garage.", "Norwich"),
    ],
)
def test_things_sent_somewhere_move_no_one(memory, before, after, home):
    say(memory, before, after, every=timedelta(days=60))
    assert fact_states(memory, "lives_in") == {home: "current"}
