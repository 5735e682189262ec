"""Slips corrected and couples changed, said as chat says them, in English, Simplified and
Traditional Chinese (with Hong Kong Cantonese):

- a counted value corrected by its number ("Oops I meant three" after "two kids"), a slip named
  as a habit ("Why do I keep saying Callum, it's Calum"), the rejected value first (不是江阴，是江都;
  唔係美玲，係美琳), 才對 after the value, 我是說 with a job; "我是说真的" corrects nothing;
- partings (gone our separate ways, 好聚好散), a marriage over, a proposal said yes to, single
  again, back together with the one who was left, 领证 said without a subject; another couple's
  divorce ends nothing;
- 在X住 / 喺X住 say where one lives; "driving down to X" is a trip."""

from __future__ import annotations

from datetime import timedelta

import pytest
from conversation import fact_states, say, states_after

_MINUTES = timedelta(minutes=2)


@pytest.mark.parametrize(
    "first,then,slot,old,new",
    [
        ("I've got two kids.", "Oops I meant three.", "number_of_children", "two kids", "three kids"),
        ("I have four kids.", "Sorry, it's five kids, not four.", "number_of_children", "four kids", "five kids"),
        ("我有两个孩子。", "说错了，是三个孩子。", "number_of_children", "两个孩子", "三个孩子"),
        ("我有兩個小孩。", "打錯，是三個小孩才對。", "number_of_children", "兩個小孩", "三個小孩"),
        (
            "My boyfriend Callum plays rugby.",
            "Why do I keep saying Callum, it's Calum. Autocorrect hates me.",
            "partner",
            "Callum (boyfriend)",
            "Calum (boyfriend)",
        ),
        ("我住在江阴。", "不是江阴，是江都，打错了。", "lives_in", "江阴", "江都"),
        ("我老婆叫美玲。", "唔係美玲，係美琳呀，打錯字。", "partner", "美玲（老婆）", "美琳（老婆）"),
        ("我住在新竹。", "打錯，是竹北才對，新竹是我公司。", "lives_in", "新竹", "竹北"),
        ("我是一名会计。", "更正一下：我是审计师，不是会计。", "job_title", "会计", "审计师"),
        ("我是物理治療師。", "講錯了，我是說語言治療師。", "job_title", "物理治療師", "語言治療師"),
    ],
)
def test_a_slip_is_corrected(memory, first, then, slot, old, new):
    say(memory, first, then, every=_MINUTES)
    assert fact_states(memory, slot) == {old: "corrected", new: "current"}


@pytest.mark.parametrize(
    "first,then,slot,value",
    [
        ("我对芒果过敏。", "我是说真的，上次差点进医院。", "allergies", "芒果"),
        ("我對奇異果過敏。", "我是說認真的，吃一口就腫。", "allergies", "奇異果"),
        (
            "I have two kids.",
            "Sorry, it's two kids and a very needy dog, not much free time.",
            "number_of_children",
            "two kids",
        ),
    ],
)
def test_words_that_look_like_a_slip_correct_nothing(memory, first, then, slot, value):
    say(memory, first, then, every=_MINUTES)
    assert fact_states(memory, slot) == {value: "current"}


@pytest.mark.parametrize(
    "before,after,partner",
    [
        ("My boyfriend Mateo and I adopted a cat.", "Mateo and I have gone our separate ways.", "Mateo (boyfriend)"),
        ("我女朋友叫雨桐。", "跟雨桐好聚好散，以后各走各的。", "雨桐（女朋友）"),
        ("我男朋友叫柏宇。", "我和柏宇已經各奔東西了。", "柏宇（男朋友）"),
    ],
)
def test_a_parting_in_chat_words_ends_the_partner(memory, before, after, partner):
    assert states_after(memory, "partner", before, after) == {partner: "ended"}


@pytest.mark.parametrize(
    "before,after,status",
    [
        ("I'm married.", "Our marriage is finally over, the lawyers are done.", "divorced"),
        ("我已婚。", "我们的婚姻正式结束了。", "离异"),
        ("我已婚。", "今天拿到離婚證了。", "離異"),
        ("My boyfriend Kofi and I live together.", "He proposed on the ferry and I said yes!", "engaged"),
        ("My girlfriend Ines and I met at uni.", "Popped the question in Lisbon and she said yes!!", "engaged"),
        ("我男朋友叫浩然。", "周末他在山顶求婚了，我答应了", "订婚"),
        ("我女朋友叫思琪。", "昨晚在海邊求婚，她答應了！", "訂婚"),
        ("My girlfriend Leah is a nurse.", "I'm officially single again and back on Hinge.", "single"),
        ("我男朋友叫俊宇。", "我重回单身了。", "单身"),
        ("我男朋友叫俊宇。", "我變回單身了。", "單身"),
        ("我男朋友叫子豪。", "昨天和子豪去领证了！", "已婚"),
        ("我男朋友叫家豪。", "上週跟家豪去登記結婚了。", "已婚"),
    ],
)
def test_a_couples_change_in_chat_words(memory, before, after, status):
    assert states_after(memory, "relationship_status", before, after).get(status) == "current"


def test_a_proposal_to_a_friend_is_not_the_speakers(memory):
    assert states_after(memory, "relationship_status", "我单身。", "我朋友昨天求婚了，她答应了！") == {
        "单身": "current"
    }


@pytest.mark.parametrize(
    "before,after,partner",
    [
        (
            "My wife Ana and I watched a movie.",
            "Still reeling, Jim and Pam got divorced in the reboot!",
            "Ana (wife)",
        ),
        ("我老公叫志强。", "追的剧里男女主离婚了，气死我了", "志强（老公）"),
        ("我老公叫志明。", "隔壁棟那對夫妻離婚了，吵了好久。", "志明（老公）"),
    ],
)
def test_another_couples_divorce_ends_nothing(memory, before, after, partner):
    assert states_after(memory, "partner", before, after) == {partner: "current"}


@pytest.mark.parametrize(
    "texts,partner",
    [
        (
            ("My boyfriend Dev is a chef.", "Dev and I broke up.", "Dev and I got back together last week."),
            "Dev (boyfriend)",
        ),
        (("我男朋友叫俊熙。", "我跟俊熙分手了。", "我跟俊熙复合了，还是他。"), "俊熙（男朋友）"),
        (("我女朋友叫語彤。", "我跟語彤分手了。", "我跟語彤復合了！"), "語彤（女朋友）"),
    ],
)
def test_back_together_with_the_one_who_was_left(memory, texts, partner):
    say(memory, *texts)
    current = [v for v, s in fact_states(memory, "partner").items() if s == "current"]
    assert current == [partner]


@pytest.mark.parametrize(
    "text,place",
    [("我喺屯門住。", "屯門"), ("我们一家在厦门住了八年。", "厦门"), ("我在台中住得很習慣。", "台中")],
)
def test_the_place_before_the_verb_is_where_one_lives(memory, text, place):
    say(memory, text)
    assert fact_states(memory, "lives_in") == {place: "current"}


@pytest.mark.parametrize("text", ["我在酒店住了两晚。", "他们在杭州住了三天就走了。", "我在朋友家住。"])
def test_a_stay_is_not_where_one_lives(memory, text):
    say(memory, text)
    assert fact_states(memory, "lives_in") == {}


def test_driving_somewhere_on_a_day_is_a_trip(memory):
    say(memory, "I'm driving down to Brighton on Saturday.")
    assert any("Brighton" in i.text and "2024-" in i.text for i in memory.inferences("u1"))


@pytest.mark.parametrize(
    "before,after,old,new",
    [
        ("I work at Squarespace.", "First week at Atlassian done ✅ everyone's so nice", "Squarespace", "Atlassian"),
        ("I work at Squarespace.", "Survived my first day at Monzo, my brain is full.", "Squarespace", "Monzo"),
        ("我在阿里上班。", "在腾讯上班的第一周结束了，好累", "阿里", "腾讯"),
        ("我在聯電上班。", "到台積電的第一天總算熬過去了", "聯電", "台積電"),
    ],
)
def test_the_first_days_at_a_firm_are_a_new_job(memory, before, after, old, new):
    assert states_after(memory, "employer", before, after) == {old: "replaced", new: "current"}


@pytest.mark.parametrize(
    "before,after,held",
    [
        ("I work at Squarespace.", "My first week at Disneyland was magical.", "Squarespace"),
        ("我在阿里上班。", "到学校的第一天结束了，孩子哭了一路", "阿里"),
    ],
)
def test_a_first_day_somewhere_else_is_no_new_job(memory, before, after, held):
    assert states_after(memory, "employer", before, after) == {held: "current"}


@pytest.mark.parametrize(
    "before,after,values",
    [
        ("我对花生过敏。", "连芒果我都会过敏", {"花生", "芒果"}),
        ("我對堅果過敏。", "醫生說我現在連鳳梨也會過敏", {"堅果", "鳳梨"}),
    ],
)
def test_an_allergy_added_with_lian(memory, before, after, values):
    assert states_after(memory, "allergies", before, after) == dict.fromkeys(values, "current")


def test_fired_in_cantonese_ends_the_employer(memory):
    states = states_after(memory, "employer", "我喺九龍巴士做車長。", "俾九龍巴士炒咗，公司話要精簡人手")
    assert states.get("九龍巴士") == "ended", states


@pytest.mark.parametrize(
    "before,after,pet",
    [
        ("我養了一隻貓叫湯圓。", "湯圓過世了，我難過了好幾天。", "湯圓（貓）"),
        ("我养了一只狗叫豆豆。", "豆豆上周离世了。", "豆豆（狗）"),
        ("我養咗隻貓叫芝麻。", "芝麻琴日過身咗，好唔捨得", "芝麻（貓）"),
    ],
)
def test_a_pet_passed_away_in_other_words(memory, before, after, pet):
    assert states_after(memory, "pets", before, after) == {pet: "ended"}


@pytest.mark.parametrize(
    "before,after,languages",
    [
        (
            "I speak Swedish and English.",
            "Two years of night classes and I can finally chat away in Norwegian too.",
            {"Swedish", "English", "Norwegian"},
        ),
        ("I speak English.", "I can get by in Portuguese now, barely.", {"English", "Portuguese"}),
        ("I speak English.", "I can finally chat away in Paris without panicking.", {"English"}),
        ("我会说英语。", "我现在荷兰语也能跟人聊几句了。", {"英语", "荷兰语"}),
        ("我會說英文。", "我的瑞典語現在可以簡單聊天了。", {"英文", "瑞典語"}),
    ],
)
def test_a_language_one_can_chat_in_adds(memory, before, after, languages):
    assert states_after(memory, "languages", before, after) == dict.fromkeys(languages, "current")


@pytest.mark.parametrize(
    "before,after,old,new",
    [
        (
            "I've got one kid, a very loud toddler.",
            "The twins arrived on Tuesday!! Somebody send coffee.",
            "one kid",
            "three kids",
        ),
        ("I have two kids.", "Our baby girl was born last night!", "two kids", "three kids"),
        ("我有兩個小孩。", "老三上週出生，全家都累壞了", "兩個小孩", "三個小孩"),
        ("我有一个孩子。", "二宝昨天平安落地了", "一个孩子", "两个孩子"),
    ],
)
def test_a_birth_adds_to_the_children(memory, before, after, old, new):
    assert states_after(memory, "number_of_children", before, after) == {old: "replaced", new: "current"}


@pytest.mark.parametrize(
    "before,after",
    [
        ("I have two kids.", "My sister had twins last week!"),
        ("I have two kids.", "We're having a baby in March!"),
        ("我有两个孩子。", "我表姐的二宝昨天出生了"),
    ],
)
def test_someone_elses_birth_or_a_coming_one_adds_nothing(memory, before, after):
    states = states_after(memory, "number_of_children", before, after)
    assert list(states.values()) == ["current"], states


def test_a_birth_told_twice_is_counted_once(memory):
    say(
        memory,
        "I have two kids.",
        "Our baby girl was born last night!",
        "Our baby girl was born last night, still can't believe it",
        every=timedelta(hours=4),
    )
    current = [v for v, s in fact_states(memory, "number_of_children").items() if s == "current"]
    assert current == ["three kids"]


@pytest.mark.parametrize(
    "before,after,old,new",
    [
        (
            "I live in Ottawa.",
            "Closing was Friday, movers came Saturday, and by Sunday night we were eating pizza on the floor of our new place in Halifax.",
            "Ottawa",
            "Halifax",
        ),
        ("我住在嘉兴。", "周五交房，周日晚上就搬进了扬州的新家", "嘉兴", "扬州"),
    ],
)
def test_a_move_on_a_day_now_past_is_done_not_planned(memory, before, after, old, new):
    say(memory, before, after, every=timedelta(days=65))
    assert fact_states(memory, "lives_in") == {old: "replaced", new: "current"}


@pytest.mark.parametrize(
    "text,partner",
    [
        ("我女朋友佩君在金石堂上班。", "佩君（女朋友）"),
        ("我老公俊熙是医生。", "俊熙（老公）"),
        ("我女朋友雨桐也在上海工作。", "雨桐（女朋友）"),
    ],
)
def test_a_partner_named_by_a_given_name_alone(memory, text, partner):
    say(memory, text)
    assert fact_states(memory, "partner") == {partner: "current"}


def test_no_partner_name_from_a_word_that_is_no_name(memory):
    say(memory, "我男朋友很帅在上海工作。")
    assert fact_states(memory, "partner") == {}


@pytest.mark.parametrize(
    "before,after,partner",
    [
        ("我女朋友佩君在金石堂上班。", "佩君的東西都搬走了，我們算是正式結束了，現在一個人住", "佩君（女朋友）"),
        ("我女朋友叫梓涵。", "梓涵的东西我都打包寄回去了，微信也删了，以后就当陌生人吧。", "梓涵（女朋友）"),
        (
            "My girlfriend Ingrid is a nurse.",
            "Deleted all my photos with Ingrid last night. Fresh start.",
            "Ingrid (girlfriend)",
        ),
    ],
)
def test_a_parting_told_by_what_was_done(memory, before, after, partner):
    assert states_after(memory, "partner", before, after) == {partner: "ended"}


@pytest.mark.parametrize(
    "before,after,held,new",
    [
        (
            "我養了一隻米克斯叫肉鬆。",
            "肉鬆多了一個妹妹！從朋友那邊接手一隻貴賓，叫牠珍奶",
            "肉鬆（米克斯）",
            "珍奶（貴賓）",
        ),
        (
            "I have a beagle named Biscuit.",
            "Biscuit has a new little brother! We adopted a terrier called Pepper.",
            "Biscuit (beagle)",
            "Pepper (terrier)",
        ),
    ],
)
def test_a_pet_given_a_sibling_is_the_speakers_new_pet(memory, before, after, held, new):
    assert states_after(memory, "pets", before, after) == {held: "current", new: "current"}


def test_a_friends_second_pet_stays_the_friends(memory):
    say(memory, "我朋友小美养了一只猫叫咪咪。", "小美又养了一只狗叫旺财。")
    assert fact_states(memory, "pets") == {}
    assert fact_states(memory, "pets", subject="小美") == {"咪咪（猫）": "current", "旺财（狗）": "current"}


@pytest.mark.parametrize(
    "before,after,old,new",
    [
        ("我住在中山。", "不在中山混了，回老家柳州了，天天嗦粉", "中山", "柳州"),
        ("我住在新北。", "我已經搬回老家嘉義了，空氣好很多", "新北", "嘉義"),
    ],
)
def test_back_to_the_hometown_named_after_laojia(memory, before, after, old, new):
    assert states_after(memory, "lives_in", before, after) == {old: "replaced", new: "current"}


def test_retired_with_an_adverb_before_the_word(memory):
    states = states_after(memory, "employer", "我在長榮航空當機師。", "上個月從長榮航空光榮退休啦")
    assert states == {"長榮航空": "ended"}


@pytest.mark.parametrize("text,employer", [("我在美的做采购。", "美的"), ("我在小米的工厂上班。", "小米")])
def test_a_two_character_name_keeps_its_de(memory, text, employer):
    say(memory, text)
    assert fact_states(memory, "employer") == {employer: "current"}


@pytest.mark.parametrize(
    "first,then,old,new",
    [
        (
            "I'm 34, so probably too old for that.",
            "hang on, 36 actually. Lost track somewhere around lockdown",
            "34",
            "36",
        ),
        ("我今年38歲。", "講錯咗，36咋，唔好整老我😂", "38", "36"),
        ("我今年40岁。", "打错了，41岁", "40", "41"),
    ],
)
def test_an_age_corrected_by_a_number_after_a_slip(memory, first, then, old, new):
    say(memory, first, then, every=_MINUTES)
    assert fact_states(memory, "age") == {old: "corrected", new: "current"}


@pytest.mark.parametrize(
    "texts",
    [
        ("我家猫叫奶茶，三岁了。",),
        ("我養了一隻柴犬叫小米。", "小米上禮拜走了，十二歲，走得很安詳。"),
    ],
)
def test_a_pets_age_is_not_the_speakers(memory, texts):
    say(memory, *texts)
    assert fact_states(memory, "age") == {}


def test_the_speakers_age_beside_a_pet_is_the_speakers(memory):
    say(memory, "我养了只狗，我今年30岁。")
    assert fact_states(memory, "age") == {"30": "current"}


@pytest.mark.parametrize(
    "before,after,slot,states",
    [
        ("我男朋友叫阿俊，佢喺銀行做嘢。", "同阿俊分咗手，唔想講太多", "partner", {"阿俊（男朋友）": "ended"}),
        (
            "我對奇異果過敏，一吃嘴巴就腫。",
            "減敏治療做完了，現在吃奇異果已經沒反應",
            "allergies",
            {"奇異果": "ended"},
        ),
        ("我在中国银行做柜员。", "今天差点就辞职了，客户太离谱，忍住了", "employer", {"中国银行": "current"}),
        ("我在中國銀行上班。", "差一點就離職了，還好忍住", "employer", {"中國銀行": "current"}),
        (
            "我的車是Toyota Yaris，開了快十年。",
            "Yaris拿去估價抵了十萬，新車是Lexus NX，昨天剛交車",
            "car",
            {"Toyota Yaris": "replaced", "Lexus NX": "current"},
        ),
        ("我会说粤语。", "最近报了个日语班，每周两次", "languages", {"粤语": "current", "日语": "current"}),
        ("我會講台語。", "開始學韓文了，為了追劇", "languages", {"台語": "current", "韓文": "current"}),
        ("我住喺荃灣。", "終於搬咗入將軍澳嘅新屋，執咗成個禮拜", "lives_in", {"荃灣": "replaced", "將軍澳": "current"}),
    ],
)
def test_more_changes_in_chat_words(memory, before, after, slot, states):
    assert states_after(memory, slot, before, after) == states


@pytest.mark.parametrize(
    "before,after,old,new,start",
    [
        ("I work for Boots.", "Signed with Experian! I start there on the 30th.", "Boots", "Experian", "2024-10-30"),
        ("我在京东上班。", "拿到了腾讯的offer。下个月1号开始上班，好期待", "京东", "腾讯", "2024-11-01"),
        ("我在誠品上班。", "拿到了蝦皮的offer。下個月1號開始上班", "誠品", "蝦皮", "2024-11-01"),
    ],
)
def test_a_start_said_in_the_next_sentence_makes_the_new_job_a_plan(memory, before, after, old, new, start):
    say(memory, before, after)
    facts = {f.value: f for f in memory.facts("u1", slot="employer", include_superseded=True, include_planned=True)}
    assert facts[new].planned and facts[new].valid_from.date().isoformat() == start, facts
    assert facts[old].valid_to is not None and facts[old].valid_to.date().isoformat() == start, (
        facts
    )  # holds until then


def test_a_new_job_with_no_start_said_holds_now(memory):
    say(memory, "I work for Boots.", "Signed with Experian! Loving the team already.")
    assert fact_states(memory, "employer") == {"Boots": "replaced", "Experian": "current"}


@pytest.mark.parametrize(
    "before,after,status",
    [
        (
            "My boyfriend Tom is obsessed with climbing.",
            "Tom proposed at the top of Snowdon and obviously I said yes 💍 still shaking",
            "engaged",
        ),
        ("我男朋友叫浩然。", "浩然在山顶求婚了，我答应了", "订婚"),
        ("我男朋友叫柏翰。", "柏翰昨天在海邊求婚，我馬上說好", "訂婚"),
    ],
)
def test_a_proposal_by_name_said_yes_to(memory, before, after, status):
    assert states_after(memory, "relationship_status", before, after).get(status) == "current"


def test_saying_yes_to_something_else_at_someone_elses_proposal_is_no_engagement(memory):
    say(memory, "My boyfriend Tom climbs.", "Jake proposed to Amy at the party and I said yes to being a bridesmaid.")
    assert fact_states(memory, "relationship_status") == {}


@pytest.mark.parametrize(
    "first,then,slot,old,new",
    [
        ("I live in Lisbon.", "Wait, I said Lisbon earlier? I meant Porto.", "lives_in", "Lisbon", "Porto"),
        ("I live in Lisbon.", "Not Lisbon, Porto! Typing too fast.", "lives_in", "Lisbon", "Porto"),
        ("I work at Nokia.", "Scratch that, I'm at Ericsson.", "employer", "Nokia", "Ericsson"),
        (
            "I work at Deutsche Bank.",
            "Commerzbank, sorry, not Deutsche Bank.",
            "employer",
            "Deutsche Bank",
            "Commerzbank",
        ),
        (
            "I work at Deutsche Bank.",
            "Did I say Deutsche Bank? I work at Commerzbank lol",
            "employer",
            "Deutsche Bank",
            "Commerzbank",
        ),
        ("我女朋友叫佳宜。", "纠正一下，我女朋友叫佳怡", "partner", "佳宜（女朋友）", "佳怡（女朋友）"),
        ("我女朋友叫佳宜。", "糾正一下，我女朋友叫佳怡", "partner", "佳宜（女朋友）", "佳怡（女朋友）"),
    ],
)
def test_a_slip_corrected_in_chat_words(memory, first, then, slot, old, new):
    """A lone name the recogniser mislabels still corrects ("I meant Porto", Porto read as a
    person); the rejected value first with no slip word; "Scratch that" is no plan called off;
    a question naming the slip makes the next sentence its correction; 纠正 is a slip word."""
    say(memory, first, then, every=_MINUTES)
    assert fact_states(memory, slot) == {old: "corrected", new: "current"}


@pytest.mark.parametrize(
    "first,then,slot,value",
    [
        ("I live in Lisbon.", "Sorry, I'm in Boston this week so I can't call.", "lives_in", "Lisbon"),
        ("I live in Lisbon.", "Oops, I'm at the gym.", "lives_in", "Lisbon"),
        ("I live in Denver.", "Not sure, Boston maybe.", "lives_in", "Denver"),
    ],
)
def test_an_apology_or_a_guess_corrects_nothing(memory, first, then, slot, value):
    say(memory, first, then, every=_MINUTES)
    assert fact_states(memory, slot) == {value: "current"}
