"""The sessions the hand order leads with keep a place in the learned order's cut
(RetrievalConfig.hand_sessions, retrieval/temporal.py: keep_sessions), in English and Chinese."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone

import pytest

from memtracks import Turn
from memtracks.data.ranker import Ranker
from memtracks.retrieval.temporal import event_pool, keep_sessions, retrieve_events

T0 = datetime(2024, 5, 6, 20, tzinfo=timezone(timedelta(hours=8)))

# ------------------------------------------------------------------ the function


def sessions_of(**by_session: list[int]) -> dict[int, str]:
    return {i: s for s, items in by_session.items() for i in items}


def test_keep_sessions_swaps_in_a_missing_session_for_the_lowest_of_a_crowded_one():
    # hand order: a1 (session a) first, then b1, c1, ...; the learned cut holds b and c only
    session_of = sessions_of(a=[1, 2], b=[3, 4, 5], c=[6, 7])
    hand = [1, 3, 6, 2, 4, 7, 5]
    top = [3, 6, 4, 7, 5]
    assert keep_sessions(top, hand, session_of, 1) == [3, 6, 4, 7, 1]  # 5: the lowest of b (three items)
    assert keep_sessions(top, hand, session_of, 0) == top


def test_keep_sessions_spares_a_session_held_by_one_item():
    session_of = sessions_of(a=[1], b=[2, 3], c=[4], d=[5])
    hand = [1, 2, 4, 5, 3]
    top = [2, 3, 4, 5]  # c and d hold one item each, and are lower than b's second
    assert keep_sessions(top, hand, session_of, 1) == [2, 1, 4, 5]


def test_keep_sessions_then_takes_a_single_item_of_a_session_not_kept():
    session_of = sessions_of(a=[1], b=[2], c=[3], d=[4], e=[5])
    hand = [1, 2, 3, 4, 5]
    top = [2, 3, 4, 5]
    assert keep_sessions(top, hand, session_of, 2) == [2, 3, 4, 1]  # b is kept: d's and e's go first
    assert keep_sessions(top, hand, session_of, 5) == [2, 3, 4, 5]  # every one kept: nothing to give


def test_keep_sessions_takes_the_best_hand_candidate_of_each_session_in_the_hand_order():
    session_of = sessions_of(a=[1, 2], b=[3, 4, 5, 6], c=[7, 8])
    hand = [3, 1, 2, 7, 4, 5, 6, 8]  # sessions in the hand order: b, a, c
    top = [4, 5, 6, 3, 8]  # b and c present, a missing
    assert keep_sessions(top, hand, session_of, 1) == top  # b leads the hand order and is there
    assert keep_sessions(top, hand, session_of, 2) == [4, 5, 6, 1, 8]  # a's best (1) for b's lowest (3)
    assert keep_sessions(top, hand, session_of, 3) == [4, 5, 6, 1, 8]  # c is present already


def test_keep_sessions_leaves_a_cut_with_every_session_alone():
    session_of = sessions_of(a=[1, 2], b=[3])
    assert keep_sessions([2, 3, 1], [1, 3, 2], session_of, 4) == [2, 3, 1]
    assert keep_sessions([], [], {}, 4) == []


# ------------------------------------------------------------------ on a real memory

STORIES = {
    "en": {
        "question": "Who did Caroline go to the concert with last Saturday?",
        "s1": [
            ("Caroline", "I went to the concert with Mel on Saturday."),
            ("Mel", "The concert was loud!"),
        ],
        "s2": [
            (
                "Caroline",
                "I have been thinking a lot about music lately, about the records my father used to play on "
                "Sunday mornings and the way the whole house seemed to fill with the sound of old jazz bands.",
            ),
            (
                "Mel",
                "That sounds wonderful, my family was never very musical, but my aunt sang in a choir for years "
                "and she always dragged us along to hear the carols in the cathedral every December.",
            ),
            (
                "Caroline",
                "I would love to learn an instrument one day, maybe the piano, although I keep saying that and "
                "then the weeks go by with work and errands and I never find the time to sign up for lessons.",
            ),
        ],
        "s3": [
            (
                "Caroline",
                "My cousin plays bass in a band that tours small venues around the coast, and every summer she "
                "sends us photos of crowded bars and sunburnt fans singing along to songs I have never heard.",
            ),
            (
                "Mel",
                "Touring sounds exhausting but fun, I once spent a weekend following a folk festival from town "
                "to town with friends from college, sleeping in a van and eating nothing but fried food.",
            ),
        ],
    },
    "zh": {
        "question": "陈默上周六和谁一起去听的演唱会？",
        "s1": [("陈默", "周六我和林晓一起去听了演唱会。"), ("林晓", "演唱会太吵了！")],
        "s2": [
            (
                "陈默",
                "最近我总想起小时候的音乐，周日早上我爸总是放他那些老唱片，整个屋子都是老爵士乐队的声音，"
                "那种感觉到现在都还记得，每次听到类似的旋律就会想起家里那张旧沙发和窗外的阳光。",
            ),
            (
                "林晓",
                "听起来真好，我们家一直不怎么懂音乐，不过我姑姑在合唱团唱了很多年，每年十二月都拉着我们"
                "去教堂听圣诞颂歌，小时候觉得无聊，现在反而挺怀念那段时光的，也许明年我还会再去一次。",
            ),
            (
                "陈默",
                "我一直想学一门乐器，也许是钢琴，可是每次说完一转眼几个星期就过去了，工作和杂事一大堆，"
                "始终没找到时间去报名上课，朋友说我就是找借口，我自己也觉得有点道理，只是总下不了决心。",
            ),
        ],
        "s3": [
            (
                "陈默",
                "我表姐在一个乐队弹贝斯，每年夏天都跟着乐队去沿海的小场地巡演，然后给我们发一堆照片，"
                "拥挤的酒吧、晒伤的乐迷跟着唱我从没听过的歌，她说那是她一年里最开心的日子，累但值得。",
            ),
            (
                "林晓",
                "巡演听着很累但也很好玩，我上大学的时候跟朋友追过一个民谣音乐节，一个城市接一个城市地跑，"
                "睡在面包车里，天天吃油炸的东西，回来以后胖了好几斤，可是到现在我们聚会还会聊起那次旅行。",
            ),
        ],
    },
}


def write_sessions(mem, story):
    for day, session in enumerate(("s2", "s3", "s1")):  # the concert's session last, on the Saturday
        for n, (speaker, text) in enumerate(story[session]):
            mem.write(
                Turn(
                    text,
                    speaker=speaker,
                    user_id="u1",
                    session_id=session,
                    timestamp=T0 + timedelta(days=day, minutes=n),
                    turn_id=f"{session}-{n}",
                )
            )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_hand_sessions_keep_the_session_the_hand_order_leads_with(make_memory, lang):
    """A ranker that prefers long turns fills the cut with the two long chats; with
    ``hand_sessions`` the short session that tells the concert keeps its best turn there, the
    cut holds as many turns and the relevances handed out are the same, highest first."""
    story = STORIES[lang]
    mem = make_memory()
    write_sessions(mem, story)
    now = T0 + timedelta(days=3)
    query = mem.reader.analyze(story["question"], user_id="u1", now=now)
    base = mem.reader.context("u1")
    ranked, heads = event_pool(query, base, 4)
    hand = sorted(ranked, key=lambda i: (-ranked[i][0], i))
    assert heads[hand[0]].session_id == "s1"  # the hand order leads with the concert
    assert sum(1 for i in ranked if heads[i].session_id != "s1") >= 4  # the long chats can fill a cut of 4

    def cut(hand_sessions):
        config = dataclasses.replace(base.config, hand_sessions=hand_sessions)
        ctx = dataclasses.replace(base, config=config, ranker=Ranker.of(0.0, {"length": 1.0}))
        return retrieve_events(query, ctx, 4)

    without, kept = cut(0), cut(1)
    assert "s1" not in {h.record.session_id for h in without}  # the learned order drops it
    assert len(kept) == len(without)
    assert heads[hand[0]].id in {h.item_id for h in kept}  # the concert's best hand-order turn
    assert [h.relevance for h in kept] == [h.relevance for h in without]  # the same values, in order
    assert all(h.explain["relevance"] == h.relevance for h in kept)
    swapped = {h.item_id for h in without} - {h.item_id for h in kept}
    assert len(swapped) == 1
    gone = next(h for h in without if h.item_id in swapped)
    assert sum(1 for h in without if h.record.session_id == gone.record.session_id) > 1  # from a crowded session
    hand_ctx = dataclasses.replace(base, config=dataclasses.replace(base.config, ranker="hand", hand_sessions=1))
    plain = dataclasses.replace(base, config=dataclasses.replace(base.config, ranker="hand"))
    assert [h.item_id for h in retrieve_events(query, hand_ctx, 4)] == [
        h.item_id for h in retrieve_events(query, plain, 4)
    ]  # the hand order is left alone
