"""A held value ended in words no pattern lists, by its slot's endings (``lexicons/statements.yaml``,
``endings``): a sentence that names what the speaker holds and says it is over ("Sold the Duster
to some guy", "the Pacifica is a write-off", 芝士没醒过来, 小MINI…定损结果是全损) ends it, and what
takes its place in the same sentence replaces it; a negation outside the ending word, a plan,
another person's news, or a day's outing ends nothing. Also: a workplace named by the job held
there (在海底捞当服务员, "I'm a recruiter at Deloitte"), and a diet kept without its verb (蛋奶素)."""

from __future__ import annotations

import pytest
from conversation import fact_states, say, states_after

from memtracks import DataFileError
from memtracks.data.catalogue import default_catalogue
from memtracks.data.statements import default_endings, load_endings


@pytest.mark.parametrize(
    "before,after,slot,value",
    [
        (
            "I drive a Dacia Duster.",
            "Sold the Duster to some guy off Craigslist, going car-free for a while.",
            "car",
            "Dacia Duster",
        ),
        (
            "My car is a Chrysler Pacifica.",
            "Hit a deer on the highway. Everyone's fine but the Pacifica is a write-off.",
            "car",
            "Chrysler Pacifica",
        ),
        ("我开一辆五菱宏光MINI。", "小MINI在路口被渣土车撞了，定损结果是全损。", "car", "五菱宏光MINI"),
        ("我開一台豐田Altis。", "Altis上個月過戶給我表弟了。", "car", "豐田Altis"),
        (
            "I have a hamster named Waffles.",
            "Waffles didn't make it through the weekend, we cremated him on Monday.",
            "pets",
            "Waffles",
        ),
        ("我养了一只仓鼠叫芝士。", "芝士前天早上没醒过来。", "pets", "芝士"),
        ("我養了一隻貓叫湯圓。", "湯圓上個月去喵星了。", "pets", "湯圓"),
        (
            "I work at Chewy on the pricing team.",
            "Got caught in the latest round of layoffs at Chewy.",
            "employer",
            "Chewy",
        ),
        ("我在携程做运营。", "携程那边被优化了，拿了N+1。", "employer", "携程"),
        (
            "My girlfriend is Keisha.",
            "Bumped into Keisha at the market, first time since we called it quits.",
            "partner",
            "Keisha",
        ),
        ("我老公叫晓峰。", "晓峰现在是我前夫了，孩子跟我。", "partner", "晓峰"),
        ("我對花生過敏。", "脫敏治療做完了，現在吃花生一點事都沒有。", "allergies", "花生"),
        # a model code names the car (H6: 哈弗H6); 送咗畀 is 送了给
        ("我开的是一辆哈弗H6。", "H6挂二手平台卖掉了，现在每天坐地铁通勤。", "car", "哈弗H6"),
        ("我揸一架Toyota Sienta。", "架Sienta送咗畀細佬，我而家日日搭巴士", "car", "Toyota Sienta"),
        ("我養了一隻貓叫芋圓。", "芋圓上個月在睡夢中離開了，陪了我十五年。", "pets", "芋圓"),
        (
            "I have a ferret named Gizmo.",
            "Had to find Gizmo a new home, turns out my daughter is allergic.",
            "pets",
            "Gizmo",
        ),
    ],
)
def test_a_held_value_ended_in_words_no_pattern_lists(memory, before, after, slot, value):
    states = states_after(memory, slot, before, after)
    assert any(value.startswith(v) or v.startswith(value) for v, s in states.items() if s != "current"), states
    assert not any(s == "current" for s in states.values()), states


@pytest.mark.parametrize(
    "before,after,slot",
    [
        ("I drive a Dacia Duster.", "I didn't sell the Duster in the end, nobody wanted it.", "car"),
        ("I drive a Dacia Duster.", "I'm going to sell the Duster next spring.", "car"),
        ("I drive a Dacia Duster.", "My brother sold his Duster and bought a truck.", "car"),
        ("I work at Walmart.", "I left Walmart early today to pick up my kid.", "employer"),
        ("I have a beagle named Biscuit.", "Biscuit nearly died of boredom at the vet lol, he's fine.", "pets"),
        ("我养了一只柯基叫豆豆。", "豆豆今天把我气死了，拆了沙发。", "pets"),
        ("我养了一只柯基叫豆豆。", "豆豆没有走丢，在邻居家找到了。", "pets"),
        ("我開一台豐田Altis。", "Altis沒賣掉，還是自己開。", "car"),
    ],
)
def test_look_alikes_end_nothing(memory, before, after, slot):
    states = states_after(memory, slot, before, after)
    assert list(states.values()) == ["current"], states


@pytest.mark.parametrize(
    "before,after,old,new",
    [
        ("我住在洛阳，老城区那边。", "洛阳的房子退租了，现在在珠海租了个小两居。", "洛阳", "珠海"),
        ("I live in Tacoma.", "Moved out of Tacoma for good, now renting a flat in Spokane.", "Tacoma", "Spokane"),
    ],
)
def test_what_takes_its_place_in_the_same_sentence_replaces_it(memory, before, after, old, new):
    assert states_after(memory, "lives_in", before, after) == {old: "replaced", new: "current"}


@pytest.mark.parametrize(
    "text,employer,title",
    [
        ("我在海底捞当服务员。", "海底捞", "服务员"),
        ("我在鼎泰豐當服務生，週末也上班。", None, "服務生"),
        ("我在家做会计。", None, "会计"),
        ("I'm a recruiter at Deloitte now.", "Deloitte", "recruiter"),
        ("I work as a buyer for Primark.", "Primark", "buyer"),
    ],
)
def test_the_workplace_of_a_job_named(memory, text, employer, title):
    say(memory, text)
    assert fact_states(memory, "job_title") == {title: "current"}
    assert fact_states(memory, "employer") == ({employer: "current"} if employer else {})


@pytest.mark.parametrize(
    "before,after,expected",
    [
        ("我吃全素。", "我现在改成蛋奶素了，外食方便多了。", {"全素": "replaced", "蛋奶素": "current"}),
        ("我吃全素。", "我現在改吃蛋奶素了，全素外食真的太難。", {"全素": "replaced", "蛋奶素": "current"}),
        ("我吃素。", "现在是素食主义者了。", {"吃素": "replaced", "素食主义者": "current"}),
    ],
)
def test_a_named_diet_is_kept_without_its_verb(memory, before, after, expected):
    assert states_after(memory, "diet", before, after) == expected


def test_every_endings_slot_is_read_for_change():
    assert set(default_endings().by_slot) <= set(default_catalogue().read_for_change)


def test_a_bad_endings_entry_fails_with_its_place(tmp_path):
    bad = tmp_path / "statements.yaml"
    bad.write_text('endings:\n  car:\n    en: ["(unclosed"]\n  pet:\n    en: ["x"]\n', encoding="utf-8")
    with pytest.raises(DataFileError) as err:
        load_endings(bad, slots=frozenset({"car", "pets"}))
    text = str(err.value)
    assert "endings.car.en[0]" in text and "endings.pet" in text and str(bad) in text


@pytest.mark.parametrize(
    "after,expected",
    [
        ("又老一岁，38了，蛋糕上的蜡烛都懒得插了。", {"37": "replaced", "38": "current"}),
        ("又長了一歲，38了。", {"37": "replaced", "38": "current"}),
        ("Another year older, 38 today and I feel every bit of it.", {"37": "replaced", "38": "current"}),
        ("弟弟比我小一岁。", {"37": "current"}),
        ("My son is another year older, 8 today.", {"37": "current"}),
    ],
)
def test_a_year_older_is_no_age_of_one(memory, after, expected):
    assert states_after(memory, "age", "I'm 37.", after) == expected


@pytest.mark.parametrize(
    "before,after,expected",
    [
        (
            "I have a dachshund named Walnut.",
            "Walnut has a little brother now! We brought a second dachshund, Pretzel, home from a breeder.",
            {"Walnut (dachshund)": "current", "Pretzel (dachshund)": "current"},
        ),
        (
            "I have a dachshund named Walnut.",
            "We brought a dachshund, Pretzel, to the vet for my neighbour.",
            {"Walnut (dachshund)": "current"},
        ),
        (
            "我养了一只狸花猫叫煤球。",
            "又从同事那抱回来一只布偶猫，叫奶盖，煤球天天追着它跑",
            {"煤球（狸花猫）": "current", "奶盖（布偶猫）": "current"},
        ),
    ],
)
def test_a_second_pet_joins_the_first(memory, before, after, expected):
    assert states_after(memory, "pets", before, after) == expected


@pytest.mark.parametrize(
    "before,after,slot,value",
    [
        # a word said for effect before "?" asks nothing ("...and honestly? No regrets.")
        (
            "I'm vegetarian, have been since college.",
            "Broke my 12-year vegetarian streak with a burger and honestly? No regrets.",
            "diet",
            "vegetarian",
        ),
        ("我平时吃素。", "素是坚持不下去了，医生说我贫血，现在每周吃两三次肉。", "diet", "吃素"),
    ],
)
def test_a_diet_given_up_in_chat_words(memory, before, after, slot, value):
    assert states_after(memory, slot, before, after).get(value) == "ended"


@pytest.mark.parametrize(
    "before,after,expected",
    [
        ("我無肉不歡㗎。", "睇完嗰套紀錄片之後決定戒肉，而家食全素㗎喇", {"全素": "current"}),
        ("我吃素。", "素食坚持不下去的人很多，我还在坚持。", {"吃素": "current"}),
    ],
)
def test_a_diet_said_in_cantonese_or_kept(memory, before, after, expected):
    assert states_after(memory, "diet", before, after) == expected
