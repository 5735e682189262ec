"""Thread cards: further mentions of one thing from other sessions folded into one card
(``FusionConfig.threads``), with the real USE embedder and real SQLite memories."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime, timedelta, timezone

import pytest

from memtracks import Turn
from memtracks.config import FusionConfig, MemoryConfig
from memtracks.errors import InvalidInputError
from memtracks.retrieval.cards import count_tokens

T0 = datetime(2024, 3, 4, 10, tzinfo=timezone.utc)

# (day, session, text): two sessions mention the same pottery class; the rest is unrelated
EN = [
    (0, "s1", "I signed up for a pottery class yesterday and made my first bowl."),
    (0, "s1", "My brother is moving to Denver for a new engineering job."),
    (0, "s1", "The weather has been terrible all week."),
    (9, "s2", "At my pottery class last Tuesday I finally made a vase on the wheel."),
    (9, "s2", "I bought a new laptop for work, it is very fast."),
    (9, "s2", "We watched a documentary about sharks on Sunday night."),
]
ZH = [
    (0, "s1", "我昨天报了一个陶艺课，做出了第一个碗。"),
    (0, "s1", "我哥哥要搬到成都去做工程师了。"),
    (0, "s1", "这周天气一直很糟糕。"),
    (9, "s2", "上周二的陶艺课上我终于在拉坯机上做了一个花瓶。"),
    (9, "s2", "我给工作买了一台新笔记本电脑，速度很快。"),
    (9, "s2", "我们周日晚上看了一部关于鲨鱼的纪录片。"),
]
CASES = {
    "en": (EN, "What have I made in my pottery class?", "pottery"),
    "zh": (ZH, "我在陶艺课上做了什么？", "陶艺"),
}


def config(**fusion) -> MemoryConfig:
    # thread_from=0: in a six-turn memory the second mention may rank second; the fold itself
    # is what is tested here
    return dataclasses.replace(MemoryConfig(), fusion=dataclasses.replace(FusionConfig(thread_from=0), **fusion))


def load(memory, turns, user="u1"):
    for i, (day, session, text) in enumerate(turns):
        memory.write(
            Turn(
                text=text,
                user_id=user,
                session_id=session,
                timestamp=T0 + timedelta(days=day, minutes=i),
                turn_id=f"{session}-{i}",
            )
        )


def ask(memory, question, cfg):
    memory.reader.config = cfg
    return memory.retrieve(question, user_id="u1", now=T0 + timedelta(days=12))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_two_sessions_mentions_of_one_thing_are_one_card_citing_both(memory, lang):
    turns, question, word = CASES[lang]
    load(memory, turns)
    recall = ask(memory, question, config())
    card = next(c for c in recall.cards if word in c.text)
    assert set(card.source_turn_ids) == {"s1-0", "s2-3"}
    assert [c for c in recall.cards if word in c.text] == [card]  # no second card for it
    assert card.text.count(word) == 2
    assert "2024-03-04" in card.text and "2024-03-13" in card.text  # the day each part was said
    assert "[2024-03-03]" in card.text and "[2024-03-05]" in card.text  # each part's resolved time
    assert len(card.parts) == 1
    part = card.parts[0]
    said = {"s1-0": "2024-03-04", "s2-3": "2024-03-13"}
    happened = {"s1-0": "2024-03-03", "s2-3": "2024-03-05"}
    (own,) = part.source_turn_ids
    (first,) = set(said) - {own}
    assert card.source_turn_ids[0] == first  # the card's own event first, then its part's
    assert part.said_at.date().isoformat() == said[own]
    assert part.valid_from is not None and part.valid_from.date().isoformat() == happened[own]
    assert card.valid_from is not None and card.valid_from.date().isoformat() == happened[first]
    assert part.text in card.text and word in part.text and f"[{happened[own]}]" in part.text
    # the folded memory left the ranking: the slots went to other memories
    refs = [c.ref for c in recall.cards]
    assert part.ref not in refs and len(refs) == len(set(refs))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_thread_card_data_and_render_keep_each_parts_provenance(memory, lang):
    turns, question, word = CASES[lang]
    load(memory, turns)
    recall = ask(memory, question, config())
    card = next(c for c in recall.cards if c.parts)
    data = json.loads(json.dumps(card.to_dict()))
    assert data["source_turn_ids"] == list(card.source_turn_ids)
    (part,) = data["parts"]
    assert part["source_turn_ids"] == [card.source_turn_ids[1]] and part["ref"] == card.parts[0].ref
    assert part["said_at"] == card.parts[0].said_at.isoformat() and part["valid_from"] is not None
    assert part["ref"] != data["ref"] and part["text"] in data["text"]
    assert all("parts" not in c.to_dict() for c in recall.cards if not c.parts)
    rendered = recall.render(max_tokens=1000)
    line = next(x for x in rendered.text.splitlines() if word in x)
    assert line == card.text  # one line, both parts


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_unrelated_memories_are_not_folded(memory, lang):
    turns, _, _ = CASES[lang]
    load(memory, [t for t in turns if "pottery" not in t[2] and "陶艺" not in t[2]])
    question = "What happened to my brother?" if lang == "en" else "我哥哥怎么了？"
    recall = ask(memory, question, config())
    assert recall.cards
    assert all(not c.parts and len(c.source_turn_ids) == 1 for c in recall.cards)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_another_speakers_mention_is_not_folded(memory, lang):
    turns, question, word = CASES[lang]
    load(memory, turns[:3])
    text = turns[3][2]
    memory.write(Turn(text=text, speaker="Anna", user_id="u1", session_id="s2", timestamp=T0 + timedelta(days=9)))
    recall = ask(memory, question, config())
    assert all(len(c.parts) == 0 for c in recall.cards if word in c.text)
    assert sum(1 for c in recall.cards if word in c.text) == 2


# a question about the pottery class and a reaction to it: close in meaning, saying nothing
SAID_NOTHING = {
    "en": ["How is the pottery class going? Did you make a bowl?", "Haha yes, the pottery class, so much fun!"],
    "zh": ["陶艺课上得怎么样？做出碗了吗？", "哈哈对呀，陶艺课，好开心！"],
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_question_or_reaction_is_no_further_mention(memory, lang):
    turns, question, word = CASES[lang]
    load(memory, turns[:3] + [(10 + i, f"s{3 + i}", text) for i, text in enumerate(SAID_NOTHING[lang])])
    said_nothing = {"s3-3", "s4-4"}
    # thread_share 0: however weak they rank, only what they say keeps them off the card
    loose = ask(memory, question, config(thread_share=0.0, thread_min_substance=0.0))
    assert any(c.parts and said_nothing & set(c.source_turn_ids) for c in loose.cards)
    recall = ask(memory, question, config(thread_share=0.0))
    assert recall.cards
    assert all(not c.parts for c in recall.cards)
    assert said_nothing <= {
        t for c in recall.cards for t in c.source_turn_ids
    }  # still reachable, on cards of their own


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_token_cap_holds(memory, lang):
    turns, question, word = CASES[lang]
    load(memory, turns)
    threaded = ask(memory, question, config())
    card = next(c for c in threaded.cards if c.parts)
    assert card.tokens <= FusionConfig().thread_tokens
    # a cap one token below the two-part card: no part fits, the second mention is a card again
    capped = ask(memory, question, config(thread_tokens=card.tokens - 1))
    assert all(not c.parts for c in capped.cards)
    assert sum(1 for c in capped.cards if word in c.text) == 2
    # the same cap on a three-mention thread: every threaded card stays within it
    memory.write(
        Turn(
            text=turns[3][2].replace("Tuesday", "Monday").replace("周二", "周一"),
            user_id="u1",
            session_id="s3",
            timestamp=T0 + timedelta(days=11),
        )
    )
    for cap in (FusionConfig().thread_tokens, 200):
        three = ask(memory, question, config(thread_tokens=cap))
        assert all(c.tokens <= cap for c in three.cards if c.parts)
    assert max(len(c.parts) for c in three.cards) == 2  # within 200 tokens all three mentions fit
    two = ask(memory, question, config(thread_parts=2, thread_tokens=200))
    assert max(len(c.parts) for c in two.cards) == 1
    assert all(count_tokens(c.text) == c.tokens for c in two.cards)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_threads_off_gives_the_one_memory_cards(memory, lang):
    turns, question, word = CASES[lang]
    load(memory, turns)
    off = ask(memory, question, config(threads="off"))
    never = ask(memory, question, config(thread_parts=1))  # no card may take a second part
    assert off.cards == never.cards
    assert all(not c.parts and len(c.source_turn_ids) == 1 for c in off.cards)
    assert sum(1 for c in off.cards if word in c.text) == 2
    assert all("parts" not in c.to_dict() for c in off.cards)


def test_aggregate_threads_only_fold_for_questions_spread_over_conversations(memory):
    load(memory, EN)
    one = ask(memory, "What have I made in my pottery class?", config(threads="aggregate"))
    assert all(not c.parts for c in one.cards)
    spread = ask(memory, "What things have I made in my pottery classes?", config(threads="aggregate"))
    assert any(c.parts for c in spread.cards)


@pytest.mark.parametrize(
    "change",
    [
        {"threads": "sometimes"},
        {"thread_parts": 0},
        {"thread_hosts": 0},
        {"thread_tokens": 0},
        {"thread_first_tokens": 0},
        {"thread_from": -1},
        {"thread_min_substance": -1},
    ],
)
def test_bad_thread_settings_are_refused_by_name(change):
    with pytest.raises(InvalidInputError, match="FusionConfig"):
        FusionConfig(**change)


def test_a_mention_in_another_language_is_not_folded(memory):
    """A card is in one language: an English card takes no Chinese part, however close the
    multilingual vectors put the two turns ("community center" and 社区中心)."""
    say = [
        (0, "s1", "I went to my first pottery class at the community center yesterday."),
        (9, "s2", "我今天又在社区中心学包饺子了。"),
        (9, "s2", "I bought a new laptop for work, it is very fast."),
    ]
    load(memory, say)
    recall = ask(memory, "When did I go to pottery class at the community center?", config())
    assert all(not c.parts for c in recall.cards)
    assert all(len(c.source_turn_ids) == 1 for c in recall.cards)


LONG = {  # a long turn, about pottery throughout, its resolved time in the middle
    "en": [
        (
            0,
            "s1",
            "I have wanted to learn pottery for years, ever since I watched my aunt shape clay on her wheel. "
            "I signed up for a pottery class yesterday and made my first bowl. The pottery teacher says "
            "glazing and firing the clay takes practice, and the studio lets us use the kiln on weekends.",
        ),
        (9, "s2", "At my pottery class last Tuesday I finally made a vase on the wheel."),
        (9, "s2", "I bought a new laptop for work, it is very fast."),
    ],
    "zh": [
        (
            0,
            "s1",
            "我想学陶艺已经很多年了，从小就看姨妈在拉坯机上做陶器。我昨天报了一个陶艺课，做出了第一个碗。"
            "陶艺老师说上釉和烧制都需要多练习，工作室周末还可以让我们用窑炉烧自己的陶艺作品。",
        ),
        (9, "s2", "上周二的陶艺课上我终于在拉坯机上做了一个花瓶。"),
        (9, "s2", "我给工作买了一台新笔记本电脑，速度很快。"),
    ],
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_long_turn_on_a_thread_keeps_its_dated_sentence(memory, lang):
    _, question, word = CASES[lang]
    load(memory, LONG[lang])
    alone = ask(memory, question, config(threads="off"))
    long_card = next(c for c in alone.cards if "s1-0" in c.source_turn_ids)
    for first in (8, 60):  # however short the thread's own event is cut
        recall = ask(memory, question, config(thread_first_tokens=first, thread_part_tokens=8, thread_tokens=200))
        card = next(c for c in recall.cards if word in c.text)
        assert set(card.source_turn_ids) == {"s1-0", "s2-1"}
        assert "[2024-03-03]" in card.text and "[2024-03-05]" in card.text  # each part's resolved time
        assert card.tokens <= 200
        assert "kiln" not in card.text and "窑炉" not in card.text  # the rest of the turn is cut
    assert "…" in long_card.text  # the turn is long: a card alone cuts it too
    assert card.tokens < long_card.tokens + 40  # the long turn is cut on the thread, not repeated whole
