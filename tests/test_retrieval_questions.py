"""How retrieval reads the question: aggregate questions gather every happening they count,
question turns and pleasantries give way to the turns that answer, and a fact card answers
the person the question is about. Real toolkit, real embedder, real SQLite."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memtracks import Memory

T0 = datetime(2024, 3, 4, 10, tzinfo=timezone.utc)

CHATS = {
    "en": [
        [
            "Hi! How have you been?",
            "Pretty good. I went to Kyoto for a week with my sister, we saw the temples and ate way too much.",
            "Oh wow, that sounds amazing!",
            "It was, the autumn leaves were unreal.",
            "Have you got anything planned this weekend?",
            "Just laundry and a long run on Saturday morning.",
        ],
        [
            "Hey, what have you been up to lately?",
            "Work mostly. My team is moving to a new office in May.",
            "Nice, congrats!",
            "Thanks! Oh and last month I flew to Denver for my cousin's wedding, a long weekend trip.",
            "So cool, how was the wedding?",
            "Beautiful, they got married in the mountains.",
        ],
        [
            "Morning! Did you sleep well?",
            "Not really, my neighbour's dog barked all night.",
            "Ugh, that's the worst.",
            "I'm thinking about getting earplugs honestly.",
        ],
    ],
    "zh": [
        [
            "嗨！最近怎么样？",
            "挺好的。我跟我妹妹去京都玩了一个星期，看了好多寺庙，吃得太撑了。",
            "哇，听起来好棒啊！",
            "是啊，红叶美得不像话。",
            "这个周末有什么安排吗？",
            "就洗洗衣服，周六早上去跑个长跑。",
        ],
        [
            "嘿，最近在忙什么呢？",
            "主要是工作。我们组五月份要搬到新办公室。",
            "不错嘛，恭喜！",
            "谢谢！对了，上个月我飞去成都参加我表姐的婚礼，周末去了三天。",
            "好酷，婚礼怎么样？",
            "很美，他们是在山里办的。",
        ],
        [
            "早！昨晚睡得好吗？",
            "不太好，邻居家的狗叫了一整夜。",
            "唉，那太难受了。",
            "我真的在考虑买副耳塞了。",
        ],
    ],
}


@pytest.fixture(scope="module")
def chats(toolkit, embedder):
    """Two people chatting over three sessions a month apart: the user tells of two trips."""
    mem = Memory(toolkit=toolkit, embedder=embedder)
    for lang, sessions in CHATS.items():
        for s, turns in enumerate(sessions):
            for i, text in enumerate(turns):
                mem.write(
                    text,
                    user_id=lang,
                    speaker="user" if i % 2 else "assistant",
                    session_id=f"s{s}",
                    turn_id=f"s{s}.{i}",
                    timestamp=T0 + timedelta(days=30 * s, minutes=i),
                )
    yield mem
    mem.close()


def _cited(mem: Memory, question: str, user: str, top: int = 5) -> list[str]:
    recall = mem.retrieve(question, user_id=user, now=T0 + timedelta(days=80), top_n=top)
    return [t for card in recall.cards for t in card.source_turn_ids]


@pytest.mark.parametrize(
    "lang,question",
    [
        ("en", "How many trips have I told you about?"),
        ("en", "Which trips did I go on?"),
        ("zh", "我跟你说过几次旅行？"),
        ("zh", "我都去哪些地方旅行过？"),
    ],
)
def test_aggregate_question_gathers_every_trip(chats, lang, question):
    """Counting or listing across sessions: both trips, told a month apart, are in the top 5."""
    cited = _cited(chats, question, lang)
    assert {"s0.1", "s1.3"} <= set(cited)


@pytest.mark.parametrize(
    "lang,question,answer,noise",
    [
        ("en", "What has the user been up to lately?", "s1.1", {"s1.0", "s1.2"}),
        ("en", "Did the user sleep well?", "s2.1", {"s2.0", "s2.2"}),
        ("zh", "用户最近在忙什么？", "s1.1", {"s1.0", "s1.2"}),
        ("zh", "用户昨晚睡得好吗？", "s2.1", {"s2.0", "s2.2"}),
    ],
)
def test_question_turns_and_pleasantries_rank_below_the_answer(chats, lang, question, answer, noise):
    """The question turn shares every word with the question, and a reaction says nothing:
    the turn that answers comes first; the question stays reachable further down."""
    cited = _cited(chats, question, lang, top=8)
    assert cited and cited[0] == answer
    assert all(cited.index(n) > cited.index(answer) for n in noise if n in cited)


@pytest.mark.parametrize(
    "turns,question,wanted,unwanted",
    [
        (
            [
                "我在腾讯上班，做产品经理。",
                "我表哥在华为工作，最近挺忙的。",
                "我舅舅在银行工作了二十年。",
                "我姨妈在医院上班。",
            ],
            "我在哪工作？",
            "腾讯",
            ("华为", "银行", "医院"),
        ),
        (
            ["我在騰訊上班，做產品經理。", "我表哥在華為工作，最近挺忙的。", "我阿姨在醫院上班。"],
            "我現在在哪裡上班？",
            "騰訊",
            ("華為", "醫院"),
        ),
        (
            [
                "我表哥在华为工作，最近挺忙的。",
                "我同事小王在字节跳动工作，我们是大学同学。",
                "我舅舅在银行工作了二十年。",
            ],
            "同事在哪上班？",
            "字节跳动",
            ("华为", "银行"),
        ),
        (
            [
                "My cousin works at Google.",
                "My coworker Dana works at Stripe, we sit together.",
                "My aunt works at a hospital.",
            ],
            "Where does my coworker work?",
            "Stripe",
            ("Google", "hospital"),
        ),
        (
            [
                "I work at Spotify as a designer.",
                "My cousin works at Google.",
                "My uncle has worked at a bank for years.",
            ],
            "Where do I work?",
            "Spotify",
            ("Google", "bank"),
        ),
    ],
)
def test_fact_cards_answer_the_person_asked_about(toolkit, embedder, turns, question, wanted, unwanted):
    """A question about the user, or a colleague, does not get a cousin's or an uncle's workplace."""
    mem = Memory(toolkit=toolkit, embedder=embedder)
    for i, text in enumerate(turns):
        mem.write(text, user_id="u", session_id="s", turn_id=f"t{i}", timestamp=T0 + timedelta(minutes=i))
    facts = [c.text for c in mem.retrieve(question, user_id="u", now=T0 + timedelta(days=1)).cards if c.track == "fact"]
    assert facts and wanted in facts[0]
    assert not any(w in f for f in facts for w in unwanted)
    mem.close()


@pytest.mark.parametrize(
    "question,slot,fires",
    [
        ("工期是以天为单位算的吗？", "employer", False),  # 单位 as a unit of measure
        ("你在哪个单位上班？", "employer", True),
        ("我表哥在哪家公司？", "employer", True),
        ("她那只小猫叫什么？", "pets", True),
        ("这个宝宝好可爱啊", "likes", False),  # 爱 inside 可爱
    ],
)
def test_slot_intent_needs_whole_words(toolkit, embedder, question, slot, fires):
    from memtracks.retrieval.query import analyze_query

    query = analyze_query(question, now=T0, toolkit=toolkit, embedder=embedder)
    assert (slot in query.slots) is fires
