"""What people keep saying about themselves in chat, kept as facts, in English, Simplified and
Traditional Chinese:

- an aim named by what is to be done, after any word of wanting it ("hoping to get into local
  politics", 希望以后能自己创业, a race signed up for);
- a pastime the speaker turns to ("Painting's my therapy", 画画是我解压的方式), does usually or in
  their free time ("We usually watch movies, hike...", 我没事就弹弹吉他), or enjoys doing ("I enjoy
  reading": a pastime; "I enjoy jazz": a taste);
- a choice made about one's life ("I've decided to quit my job", 我打算搬家了, 我下个月要离职了).

Each with look-alikes that must store nothing: errands, wishes for the listener, questions,
choices not (yet) made, someone else's."""

from __future__ import annotations

from datetime import timedelta

import pytest
from conversation import T0, say


def _values(memory, slot: str, subject: str = "user") -> list[str]:
    facts = memory.facts("u1", slot=slot, include_planned=True)
    return sorted(f.value for f in facts if f.subject == subject)


@pytest.mark.parametrize(
    "text,aim",
    [
        ("I'm really hoping to get into local politics.", "get into local politics"),
        ("I wanna open a bakery one day.", "open a bakery"),
        ("I'm keen on working in mental health.", "working in mental health"),
        ("I'm hoping to build my own family.", "build my own family"),
        ("Lost my job yesterday, so I'm gonna take a shot at starting my own business.", "starting my own business"),
        ("I'm starting a dance studio because I love dancing.", "starting a dance studio"),
        ("I'm still searching for a place to open my dance studio.", "open my dance studio"),
        ("我希望以后能自己创业。", "创业"),
        ("我报名了西湖半马，四月跑。", "西湖半马"),
        ("我報名了台北馬拉松。", "台北馬拉松"),
        ("我希望以後能自己創業。", "創業"),
    ],
)
def test_an_aim_is_named_by_what_is_to_be_done(memory, text, aim):
    say(memory, text)
    assert _values(memory, "goals") == [aim]


@pytest.mark.parametrize(
    "text",
    [
        "I'm hoping to get some rest this weekend.",
        "I want to grab lunch with you soon.",
        "I hope to see you soon!",
        "Do you want to start a business?",
        "I don't want to start a business.",
        "I'd love to hear more about it.",
        "你想不想自己创业？",
    ],
)
def test_an_errand_a_question_or_an_aim_denied_is_no_aim(memory, text):
    say(memory, text)
    assert _values(memory, "goals") == []


def test_someone_elses_aim_is_theirs(memory):
    say(memory, "My sister is hoping to open a bakery.")
    assert _values(memory, "goals") == []
    assert _values(memory, "goals", "user's sister") == ["open a bakery"]


@pytest.mark.parametrize(
    "text,pastimes",
    [
        ("Painting's a fun way to express my feelings.", ["painting"]),
        ("Dance is pretty much my go-to for stress relief.", ["dance"]),
        ("Yoga is my escape these days.", ["yoga"]),
        (
            "So I'm carving out some me-time each day - running, reading, or playing my violin.",
            ["playing my violin", "reading", "running"],
        ),
        ("In my downtime: baking and knitting.", ["baking", "knitting"]),
        ("We usually watch movies, hike, and have game nights at my place.", ["hike", "watch movies"]),
        (
            "Besides writing, I also enjoy reading, watching movies, and exploring nature.",
            ["exploring nature", "reading", "watching movies"],
        ),
        ("画画是我解压的方式。", ["画画"]),
        ("我没事就弹弹吉他。", ["吉他"]),
        ("我一有空就去游泳。", ["游泳"]),
        ("畫畫是我解壓的方式。", ["畫畫"]),
        ("我沒事就彈彈吉他。", ["吉他"]),
    ],
)
def test_a_pastime_turned_to_is_a_hobby(memory, text, pastimes):
    say(memory, text)
    assert _values(memory, "hobbies") == pastimes


@pytest.mark.parametrize(
    "text",
    [
        "Running is a great way to stay fit.",  # advice, not the speaker's pastime
        "Kayaking looks like a fun way to get some exercise and enjoy nature.",
        "Running late, sorry!",
        "Painting the house is a pain.",
        "I enjoy spending time with you.",
        "I went hiking once last year and hated it.",
        "游泳是个锻炼的好方法。",
    ],
)
def test_a_remark_about_an_activity_is_no_hobby(memory, text):
    say(memory, text)
    assert _values(memory, "hobbies") == []


def test_what_one_enjoys_is_a_taste_what_one_enjoys_doing_a_pastime(memory):
    say(memory, "I enjoy jazz and old films.", "I enjoy baking.")
    assert _values(memory, "likes") == ["jazz", "old films"]
    assert _values(memory, "hobbies") == ["baking"]


def test_someone_elses_pastime_is_theirs(memory):
    say(memory, "My wife usually goes hiking on weekends.", "我朋友一有空就去钓鱼。")
    assert _values(memory, "hobbies") == []
    assert _values(memory, "hobbies", "user's wife") == ["hiking"]
    assert _values(memory, "hobbies", "user's friend") == ["钓鱼"]


@pytest.mark.parametrize(
    "text,choice",
    [
        ("I've decided to quit my job.", "quit my job"),
        ("I decided to sell the house.", "sell the house"),
        ("I made the decision to go back to school.", "go back to school"),
        ("我下个月要离职了。", "离职"),
        ("我打算搬家了，现在的房子离公司太远。", "搬家"),
        ("我打算下个月申请调到研发中心去。", "申请调到研发中心"),
        ("我決定辭職了。", "辭職"),
        ("我下個月要離職了。", "離職"),
    ],
)
def test_a_choice_made_about_ones_life_is_a_decision(memory, text, choice):
    say(memory, text)
    assert _values(memory, "decisions") == [choice]


@pytest.mark.parametrize(
    "text",
    [
        "I haven't decided whether to quit my job.",
        "If I decided to quit my job, what would happen?",
        "I decided to grab a coffee.",
        "我还没决定要不要搬家。",
        "我不打算辞职。",
        "你打算搬家吗？",
        "我要搬家了吗？",
        "還沒決定要不要離職。",
    ],
)
def test_a_choice_not_made_or_asked_about_is_no_decision(memory, text):
    say(memory, text)
    assert _values(memory, "decisions") == []


def test_someone_elses_choice_is_theirs(memory):
    say(memory, "我老公决定辞职了。")
    assert _values(memory, "decisions") == []
    assert _values(memory, "decisions", "user's husband") == ["辞职"]


@pytest.mark.parametrize(
    "text,pastimes",
    [
        ("I like to relax by reading.", ["reading"]),
        ("I unwind by playing the piano.", ["playing the piano"]),
        ("Playing video games is a great way to express my creativity.", ["Playing video games"]),
        (
            "Been busy volunteering at the homeless shelter and keeping fit.",
            ["keeping fit", "volunteering at the homeless shelter"],
        ),
    ],
)
def test_what_one_rests_by_or_is_busy_with_is_a_hobby(memory, text, pastimes):
    say(memory, text)
    assert _values(memory, "hobbies") == pastimes


@pytest.mark.parametrize("text", ["Been busy with work lately.", "Just started a new job.", "I relax by the pool."])
def test_being_busy_or_resting_without_a_pastime_is_no_hobby(memory, text):
    say(memory, text)
    assert _values(memory, "hobbies") == []


@pytest.mark.parametrize(
    "text,aim",
    [
        ("This is a big move towards my goal of having a family.", "having a family"),
        ("It's a step towards my other dream of working on classic cars.", "working on classic cars"),
    ],
)
def test_an_aim_named_as_a_noun_is_held_though_not_yet_done(memory, text, aim):
    say(memory, text)
    assert _values(memory, "goals") == [aim]


def test_a_hope_of_then_is_no_aim_now(memory):
    say(memory, "I was hoping to open a bakery but gave up on it.")
    assert _values(memory, "goals") == []


@pytest.mark.parametrize(
    "text,status",
    [
        ("I'm lucky to have my husband and kids; they keep me motivated.", "married"),
        ("I've got a wonderful wife.", "married"),
        ("我是单亲妈妈，一个人带孩子。", "单身"),
        ("我是單親爸爸。", "單身"),
    ],
)
def test_a_spouse_had_or_a_child_raised_alone_says_the_status(memory, text, status):
    say(memory, text)
    assert _values(memory, "relationship_status") == [status]


@pytest.mark.parametrize(
    "text", ["My sister has a wonderful husband.", "I'd love to have a husband like yours.", "她是单亲妈妈。"]
)
def test_someone_elses_spouse_or_a_wish_says_no_status_of_the_speaker(memory, text):
    say(memory, text)
    assert _values(memory, "relationship_status") == []


@pytest.mark.parametrize(
    "text,age",
    [
        ("我报了个游泳班，我都三十五了才学，有点丢人。", "35"),
        ("我都四十了还没结婚。", "40"),
        ("我都已經五十了。", "50"),
    ],
)
def test_how_old_one_already_is_is_an_age(memory, text, age):
    say(memory, text)
    assert _values(memory, "age") == [age]


@pytest.mark.parametrize("text", ["我都等了三十分钟了。", "我都三点了还没吃饭。", "我妈都七十了。"])
def test_a_wait_a_clock_or_someone_elses_age_is_not_the_speakers(memory, text):
    say(memory, text)
    assert _values(memory, "age") == []


@pytest.mark.parametrize(
    "text,car",
    [("定了！订了一辆比亚迪汉，白色的，下个月初提车。", "比亚迪汉"), ("訂了一輛特斯拉，下個月提車。", "特斯拉")],
)
def test_a_car_ordered_is_the_car_to_come(memory, text, car):
    say(memory, text)
    assert _values(memory, "car") == [car]
    assert [f.planned for f in memory.facts("u1", slot="car", include_planned=True)] == [True]  # not had yet


def test_a_flight_booked_is_no_car(memory):
    say(memory, "订了机票，下个月去成都。")
    assert _values(memory, "car") == []


@pytest.mark.parametrize(
    "text,title",
    [
        ("做了三年UI设计，每天改需求改到半夜，实在太累了。", "UI设计"),
        ("我在医院当了十年护士。", "护士"),
        ("我幹了五年會計。", "會計"),
    ],
)
def test_a_job_done_for_years_is_the_job(memory, text, title):
    say(memory, text)
    assert _values(memory, "job_title") == [title]


def test_a_job_done_for_years_before_is_no_job_now(memory):
    say(memory, "我以前干了五年会计，后来转行了。")
    assert _values(memory, "job_title") == []


@pytest.mark.parametrize(
    "turns,question",
    [
        (("I love painting.", "Painting is my therapy."), "Do I paint?"),
        (("我很喜欢画画。", "画画是我解压的方式。"), "我喜欢画画吗？"),
    ],
)
def test_one_thing_said_as_a_taste_and_a_pastime_takes_one_card(memory, turns, question):
    say(memory, *turns)
    facts = memory.facts("u1")
    assert {f.slot for f in facts} == {"likes", "hobbies"}
    cards = memory.retrieve(question, user_id="u1", now=T0 + timedelta(days=90)).cards
    shown = [c for c in cards if c.track == "fact"]
    assert len(shown) == 1


@pytest.mark.parametrize(
    "text,pets",
    [
        ("I have a couple of cats.", ["cat"]),
        ("I just adopted this cute pup from a shelter last week.", ["pup"]),
        ("My pup Toby is a German Shepherd and loves cute sweaters!", ["Toby (pup)"]),
        ("Meet Toby, my puppy. He's a bundle of joy.", ["Toby (puppy)"]),
        ("I've had my turtles for 3 years now.", ["turtle"]),
        ("这是我家狗狗豆豆。", ["豆豆（狗狗）"]),
        ("這是我家狗狗豆豆！", ["豆豆（狗狗）"]),
    ],
)
def test_a_pet_had_shown_or_named_beside_its_kind(memory, text, pets):
    say(memory, text)
    assert _values(memory, "pets") == pets


@pytest.mark.parametrize(
    "text",
    [
        "I have dog food in the car.",
        "Thanks Anna, my dog loves it.",  # a name before "my dog" is the one spoken to
        "我家狗狗最近不太吃东西。",
        "My sister has cats.",
    ],
)
def test_a_pets_things_or_someone_spoken_to_are_no_pet(memory, text):
    say(memory, text)
    assert _values(memory, "pets") == []


@pytest.mark.parametrize(
    "text,likes",
    [
        ("Oh yes! I love making jewelry out of recycled stuff.", ["making jewelry"]),
        ("I love playing different songs on the piano.", ["playing different songs"]),
        ("Writing has always been a passion of mine.", ["writing"]),
    ],
)
def test_a_taste_is_the_activity_not_where_or_how_it_is_done(memory, text, likes):
    say(memory, text)
    assert _values(memory, "likes") == likes


@pytest.mark.parametrize(
    "text,allergies", [("I'm allergic to most nuts.", ["nuts"]), ("I'm allergic to some antibiotics.", ["antibiotics"])]
)
def test_an_allergy_to_most_or_some_of_a_kind_names_the_kind(memory, text, allergies):
    say(memory, text)
    assert _values(memory, "allergies") == allergies
