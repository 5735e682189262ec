"""Tiered storage: hot / warm / cold by age at the question's moment, the live index, the
archive reached when the question points far back, and nothing lost on the way."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from memtracks import Turn
from memtracks.config import MemoryConfig, TierConfig
from memtracks.data.tiers import default_tier_rules, load_tier_rules
from memtracks.errors import DataFileError, InvalidInputError
from memtracks.records import Event, Happening, Inference, Premise
from memtracks.retrieval.hits import Hit
from memtracks.retrieval.temporal import event_pool, retrieve_events
from memtracks.retrieval.tiers import Tier, Tiers, newest_conclusions

NOW = datetime(2024, 12, 10, 12, tzinfo=timezone.utc)
ON = MemoryConfig(tiers=TierConfig(enabled=True))


def _event(text: str, days_ago: float, **fields) -> Event:
    return Event(
        user_id="u",
        session_id="s",
        turn_id=f"t{days_ago}",
        speaker="user",
        subject="user",
        text=text,
        lang="en",
        mentioned_at=NOW - timedelta(days=days_ago),
        id=int(days_ago * 10) + 1,
        **fields,
    )


def _inference(id_: int, days_ago: float, kind: str = "away", subject: str = "user") -> Inference:
    return Inference(
        user_id="u",
        rule_id="r",
        subject=subject,
        kind=kind,
        text=f"{subject} is {kind} ({id_})",
        lang="en",
        created_at=NOW - timedelta(days=days_ago),
        premises=(Premise("event", id_),),
        id=id_,
    )


@pytest.fixture
def tiers() -> Tiers:
    return Tiers(TierConfig(enabled=True), default_tier_rules())


def _say(mem, text, when, turn_id, session="s"):
    mem.write(Turn(text=text, user_id="u", session_id=session, turn_id=turn_id, timestamp=when))


def _turns(recall) -> set[str]:
    return {t for c in recall.cards for t in c.source_turn_ids}


# ---------------------------------------------------------------- the policy


def test_a_memorys_tier_is_its_age_at_the_given_moment(tiers):
    said = _event("We talked about the weather.", 0)
    assert tiers.tier(said, NOW) is Tier.HOT
    assert tiers.tier(said, NOW + timedelta(days=7)) is Tier.HOT
    assert tiers.tier(said, NOW + timedelta(days=8)) is Tier.WARM
    assert tiers.tier(said, NOW + timedelta(days=90)) is Tier.WARM
    assert tiers.tier(said, NOW + timedelta(days=91)) is Tier.COLD
    short = Tiers(TierConfig(enabled=True, hot_days=1, warm_days=10), default_tier_rules())
    assert short.tier(said, NOW + timedelta(days=11)) is Tier.COLD


def test_the_warm_tier_keeps_important_events_only(tiers):
    chatter = _event("Haha, that is so cool!", 30)
    dated = _event("My sister's wedding is on June 3.", 30, start=datetime(2025, 6, 3, tzinfo=timezone.utc))
    trip = _event("We flew to Lisbon.", 30, happenings=(Happening("trip", "user", {"to": "lisbon"}, (0, 5), "p"),))
    cancelled = _event(
        "The Lisbon trip is off.", 30, happenings=(Happening("trip", "user", {}, (0, 5), "p", status="cancelled"),)
    )
    long = _event(
        "I finally finished restoring the old oak bookshelf my grandfather built, sanding every shelf and "
        "staining the frame a deep walnut brown over three weekends.",
        30,
    )
    assert not tiers.searched(chatter, NOW) and tiers.searched(chatter, NOW - timedelta(days=25))  # hot back then
    assert tiers.searched(dated, NOW) and tiers.searched(trip, NOW) and tiers.searched(long, NOW)
    assert not tiers.searched(cancelled, NOW)
    assert not tiers.searched(trip, NOW + timedelta(days=61))  # cold: archived


def test_the_warm_tier_compresses_conclusions_to_the_newest_of_each_kind(tiers):
    old, new, other, hot = (
        _inference(1, 40),
        _inference(2, 20),
        _inference(3, 40, subject="Ana"),
        _inference(4, 2, "busy"),
    )
    reach = tiers.reach_at(NOW)
    newest = lambda kinds: newest_conclusions([old, new, other, hot], NOW)  # noqa: E731
    assert [i.id for i in tiers.admit([old, new, other, hot], reach, newest)] == [2, 3, 4]
    assert newest_conclusions([old, new], NOW - timedelta(days=30)) == {("user", "away"): 1}  # as it was then


def test_tier_settings_are_validated():
    with pytest.raises(InvalidInputError, match="hot_days <= warm_days"):
        TierConfig(hot_days=30, warm_days=7)
    with pytest.raises(InvalidInputError, match="fallback_relevance"):
        TierConfig(fallback_relevance=1.5)
    with pytest.raises(InvalidInputError, match="fallback_coverage"):
        TierConfig(fallback_coverage=-0.1)
    with pytest.raises(InvalidInputError, match="live_slack_days"):
        TierConfig(live_slack_days=-1)


def test_a_bad_tier_rules_file_names_the_entry_and_field(tmp_path: Path):
    bad = tmp_path / "tiers.yaml"
    bad.write_text(
        "important:\n  - id: long\n    signal: substance\n"
        "far_back:\n  - id: broken\n    lang: en\n    pattern: '(unclosed'\n"
        "undated_past: []\n",
        encoding="utf-8",
    )
    with pytest.raises(DataFileError) as err:
        load_tier_rules(bad)
    text = str(err.value)
    assert "tiers.yaml" in text and "important[0] 'long'" in text and "field 'min'" in text
    assert "far_back[0] 'broken'" in text and "field 'pattern'" in text


# ---------------------------------------------------------------- what a question reaches


@pytest.mark.parametrize(
    "question, archive",
    [
        ("What did I do last week?", False),
        ("What did I eat yesterday?", False),
        ("Where do I work?", False),
        ("How is my pottery class going?", False),
        ("What are Melanie's hobbies?", False),
        ("When is my dentist appointment?", False),
        ("What did Caroline research?", True),
        ("When did Melanie paint a sunrise?", True),
        ("Where did I work before?", True),
        ("What did I do last year?", True),
        ("Where did we go back in March?", True),
        ("What did I cook three months ago?", True),
        ("How was that trip years ago?", True),
        ("Where did I live when I was a kid?", True),
        ("Have I ever been to Japan?", True),
        ("我上周做了什么？", False),
        ("我昨天吃了什么？", False),
        ("我现在住在哪里？", False),
        ("豆豆最近怎么样？", False),
        ("卡罗琳研究了什么？", True),
        ("你们是在哪里认识的？", True),
        ("我以前在哪里工作？", True),
        ("卡羅琳研究了什麼？", True),
        ("豆豆最近怎麼樣？", False),
        ("我去年做了什么？", True),
        ("三个月前我去了哪里？", True),
        ("我小时候住在哪里？", True),
        ("我第一次见到他是什么时候？", True),
        ("我上週做了什麼？", False),
        ("我三個月前去了哪裡？", True),
        ("我小時候住在哪裡？", True),
        ("去年夏天我們去了哪裡？", True),
    ],
)
def test_a_question_reaches_the_archive_when_it_points_far_back(make_memory, question, archive):
    mem = make_memory(config=ON)
    query = mem.reader.analyze(question, user_id="u", now=NOW)
    assert mem.reader.tiers.reach(query, mem.toolkit.lexicons.to_simplified(question)).archive is archive


# ---------------------------------------------------------------- retrieval with tiers


@pytest.fixture
def pottery(make_memory, tmp_path):
    """A user who took up pottery seven months ago and went again this week (English), and
    who learnt to make dumplings seven months ago and again this week (Chinese)."""
    mem = make_memory(str(tmp_path / "m.db"), config=ON)
    _say(mem, "I went to my first pottery class at the community center.", NOW - timedelta(days=210), "old-en")
    _say(mem, "我第一次在社区中心学包饺子。", NOW - timedelta(days=205), "old-zh", "s-zh")
    _say(mem, "Okay, sounds good.", NOW - timedelta(days=40), "chat")
    _say(mem, "I went to pottery class at the community center again today.", NOW - timedelta(days=2), "new-en")
    _say(mem, "我今天又在社区中心学包饺子了。", NOW - timedelta(days=1), "new-zh", "s-zh")
    return mem


def test_old_events_are_archived_out_of_the_default_search(pottery):
    for question, old, new in (
        ("Pottery class at the community center", "old-en", "new-en"),
        ("在社区中心学包饺子", "old-zh", "new-zh"),
    ):
        recall = pottery.retrieve(question, user_id="u", now=NOW, top_n=10)
        assert recall.reached == "live"
        assert new in _turns(recall) and old not in _turns(recall)


def test_a_question_pointing_far_back_gets_the_archive(pottery):
    for question, old in (
        ("When did I go to pottery class the first time?", "old-en"),
        ("What did I do at the community center back in May?", "old-en"),
        ("我第一次在社区中心学包饺子是什么时候？", "old-zh"),
        ("我五月份在社區中心做了什麼？", "old-zh"),
    ):
        recall = pottery.retrieve(question, user_id="u", now=NOW, top_n=10)
        assert recall.reached in ("window", "far back"), question
        assert old in _turns(recall), question


def test_as_of_moves_the_moment_back(pottery):
    recall = pottery.retrieve(
        "my pottery class at the community center", user_id="u", now=NOW, as_of=NOW - timedelta(days=207), top_n=10
    )
    assert recall.reached == "live" and "old-en" in _turns(recall)


def test_when_the_live_tiers_find_nothing_the_archive_is_searched(pottery):
    _say(pottery, "My old bike was a red Peugeot racer.", NOW - timedelta(days=300), "bike")
    recall = pottery.retrieve("Peugeot racer bike", user_id="u", now=NOW)
    assert recall.reached == "fallback" and "bike" in _turns(recall)


def test_the_archive_is_searched_when_no_live_memory_holds_the_questions_words(make_memory, tiers):
    mem = make_memory(config=ON)
    cases = (
        (
            "What did Caroline research?",
            "Caroline went to a support group yesterday.",
            "Caroline researched adoption agencies.",
        ),
        ("卡罗琳研究了什么？", "卡罗琳昨天去了互助小组。", "卡罗琳研究了领养机构。"),
    )
    for question, unrelated, related in cases:
        query = mem.reader.analyze(question, user_id="u", now=NOW)
        live = tiers.reach_at(NOW)
        strong = [Hit("temporal", _event(unrelated, 1), 0.9, "lexical")]
        people = ("Caroline", "卡罗琳")
        assert tiers.fallback(strong, live, query, people), question  # relevant by name only
        assert not tiers.fallback([*strong, Hit("temporal", _event(related, 2), 0.6, "semantic")], live, query, people)
        assert not tiers.fallback(strong, live.widened("window"), query, people)  # already searching everything


def test_facts_are_always_searched(make_memory):
    mem = make_memory(config=ON)
    _say(mem, "I'm allergic to peanuts.", NOW - timedelta(days=400), "a")
    _say(mem, "我对花生过敏。", NOW - timedelta(days=400), "b", "s-zh")
    for question in ("What am I allergic to?", "我对什么过敏？"):
        recall = mem.retrieve(question, user_id="u", now=NOW)
        facts = [c.text.lower() for c in recall.cards if c.track == "fact"]
        assert recall.reached == "live" and any("peanut" in f or "花生" in f for f in facts)


@pytest.mark.parametrize(
    "old_answer, recent_fact, question",
    [
        (
            "Pepperoni, of course! Spicy salami and melted cheese, nothing beats it on a pizza.",
            "I really like hiking in the hills.",
            "What type of pizza is my favorite?",
        ),
        (
            "当然是意大利辣香肠的！辣味萨拉米配上融化的芝士，披萨就该这么吃。",
            "我很喜欢在山里徒步。",
            "我最喜欢什么披萨？",
        ),
        (
            "當然是義大利辣香腸的！辣味薩拉米配上融化的起司，披薩就該這麼吃。",
            "我很喜歡在山裡徒步。",
            "我最喜歡什麼披薩？",
        ),
    ],
    ids=["en", "zh-hans", "zh-hant"],
)
def test_a_fact_found_by_its_slot_does_not_answer_what_it_does_not_hold(make_memory, old_answer, recent_fact, question):
    """A live fact of the slot the question asks about ("favorite": likes) that holds none
    of what the question is about (pizza) does not keep the search out of the archive, where
    the months-old turn that named the pizza is."""
    mem = make_memory(config=ON)
    _say(mem, old_answer, NOW - timedelta(days=200), "old")
    _say(mem, recent_fact, NOW - timedelta(days=2), "new")
    recall = mem.retrieve(question, user_id="u", now=NOW, top_n=10)
    assert recall.reached == "fallback" and "old" in _turns(recall)


@pytest.mark.parametrize(
    "said, question",
    [
        ("I'm allergic to peanuts.", "What am I allergic to?"),
        ("Turns out I'm allergic to cat hair.", "What am I allergic to?"),
        ("我对花生过敏。", "我对什么过敏？"),
        ("我對花生過敏。", "我對什麼過敏？"),
    ],
)
def test_a_fact_that_holds_what_the_question_asks_is_answered_live(make_memory, said, question):
    """The question's words that asked for the slot count as held by the fact found by it
    ("allergic" by the pattern "allerg"); 我对 in 我对什么过敏 is not what is asked."""
    mem = make_memory(config=ON)
    _say(mem, said, NOW - timedelta(days=400), "a")
    recall = mem.retrieve(question, user_id="u", now=NOW)
    assert recall.reached == "live" and "a" in _turns(recall), [c.text for c in recall.cards]


def test_the_words_a_question_asks_about(tiers):
    from memtracks.retrieval.tiers import asked_words

    assert asked_words("What is Jon's favorite style of dance?", ["Jon"]) >= {"favorit", "styl", "danc"}
    assert asked_words("我对什么过敏？", []) == {"过敏"} == asked_words("我對什麼過敏？", [])
    assert asked_words("豆豆怎么样？", []) == {"豆豆"}
    assert "陶艺" in asked_words("我去年在哪里上陶艺课？", [])
    assert asked_words("猫？", []) == {"猫"}  # a single character when the question has no pair


def test_tiers_off_searches_everything(make_memory):
    mem = make_memory()
    _say(mem, "I went to my first pottery class at the community center.", NOW - timedelta(days=210), "old-en")
    recall = mem.retrieve("Pottery class at the community center", user_id="u", now=NOW)
    assert recall.reached == "tiers off" and "old-en" in _turns(recall)


# ---------------------------------------------------------------- nothing is lost


def test_archived_memories_are_kept_exported_and_erasable(pottery, tmp_path):
    before = {e.turn_id: e for e in pottery.store.events("u")}
    pottery.retrieve("Pottery class at the community center", user_id="u", now=NOW)  # the live index is built
    assert {e.turn_id: e for e in pottery.store.events("u")} == before  # searching changes nothing stored
    out = tmp_path / "export.jsonl"
    pottery.export(out, user_id="u")
    exported = out.read_text(encoding="utf-8")
    assert "my first pottery class" in exported and "第一次在社区中心学包饺子" in exported
    pottery.forget("u", turn_ids=["old-en"])
    assert "old-en" not in {e.turn_id for e in pottery.store.events("u")}
    far = pottery.retrieve("When did I go to pottery class the first time?", user_id="u", now=NOW, top_n=10)
    assert "old-en" not in _turns(far) and "new-en" in _turns(far)
    assert json.loads(exported.splitlines()[0])  # the export is well-formed


def test_an_archived_memory_comes_back_as_it_was(pottery, make_memory):
    plain = make_memory()
    _say(plain, "I went to my first pottery class at the community center.", NOW - timedelta(days=210), "old-en")
    question = "When did I go to pottery class the first time?"
    tiered = next(c for c in pottery.retrieve(question, user_id="u", now=NOW).cards if "old-en" in c.source_turn_ids)
    untiered = next(c for c in plain.retrieve(question, user_id="u", now=NOW).cards if "old-en" in c.source_turn_ids)
    assert tiered.text == untiered.text


# ---------------------------------------------------------------- the live index


def _live_ids(mem, track, since):
    index, lexical = mem.indexes.live("u", track, since)
    stored = set(mem.store.ids_said_since("u", track, since))
    assert all(i in index for i in stored) and len(index) == len(stored)
    assert all(i in lexical for i in stored) and len(lexical) == len(stored)
    return stored


def test_the_live_index_holds_exactly_what_was_said_since_it_began(pottery, make_memory, tmp_path):
    since = NOW - timedelta(days=90)
    first = _live_ids(pottery, "event", since)
    assert {e.turn_id for e in pottery.store.events("u", ids=sorted(first))} == {"chat", "new-en", "new-zh"}
    _say(pottery, "I glazed my new mug at pottery today.", NOW, "glaze")  # this process writes
    _say(pottery, "I dug out my old pottery notes from last spring.", NOW - timedelta(days=300), "late-import")
    other = make_memory(str(tmp_path / "m.db"), config=ON)  # another connection writes
    _say(other, "Pottery again tonight.", NOW, "other")
    pottery.indexes.refresh()
    held = {e.turn_id for e in pottery.store.events("u", ids=sorted(_live_ids(pottery, "event", since)))}
    assert held == {"chat", "new-en", "new-zh", "glaze", "other"}  # the old-dated import stays archived
    pottery.forget("u", turn_ids=["new-en"])
    held = {e.turn_id for e in pottery.store.events("u", ids=sorted(_live_ids(pottery, "event", since)))}
    assert held == {"chat", "new-zh", "glaze", "other"}


def test_one_live_index_per_user_within_the_budget(pottery):
    pottery.retrieve("pottery", user_id="u", now=NOW)
    assert pottery.indexes.live_since() == {"u": NOW - timedelta(days=90)}
    pottery.retrieve("pottery", user_id="u", now=NOW + timedelta(days=3))  # within the slack: the same index
    assert pottery.indexes.live_since() == {"u": NOW - timedelta(days=90)}
    pottery.retrieve("pottery", user_id="u", now=NOW + timedelta(days=30))  # past it: replaced, not added
    assert pottery.indexes.live_since() == {"u": NOW + timedelta(days=30) - timedelta(days=90)}
    assert pottery.indexes.cached() == ["u"]


def test_the_warm_tier_keeps_what_a_turn_records_in_both_languages(make_memory):
    mem = make_memory(config=ON)
    month = NOW - timedelta(days=30)
    _say(mem, "下週三我要去北京出差，住在國貿附近。", month, "trip-zh")
    _say(mem, "Next Friday I'm flying to Denver for the robotics conference.", month, "trip-en")
    _say(mem, "哈哈，好的。", month + timedelta(minutes=1), "chat-zh")
    _say(mem, "Haha, okay.", month + timedelta(minutes=2), "chat-en")
    events = {e.turn_id: e for e in mem.store.events("u")}
    tiers = mem.reader.tiers
    assert tiers.tier(events["trip-zh"], NOW) is Tier.WARM
    assert tiers.searched(events["trip-zh"], NOW) and tiers.searched(events["trip-en"], NOW)
    assert not tiers.searched(events["chat-zh"], NOW) and not tiers.searched(events["chat-en"], NOW)
    for question, turn in (("北京出差住在哪里？", "trip-zh"), ("Which conference is in Denver?", "trip-en")):
        recall = mem.retrieve(question, user_id="u", now=NOW)
        assert turn in _turns(recall), question


@pytest.mark.parametrize("config", [ON, MemoryConfig()], ids=["tiers on", "tiers off"])
@pytest.mark.parametrize("as_of", [datetime(1, 1, 1, tzinfo=timezone.utc), datetime(1, 1, 3, tzinfo=timezone.utc)])
def test_an_as_of_at_the_start_of_the_calendar_is_no_error(make_memory, config, as_of):
    mem = make_memory(config=config)
    _say(mem, "I went to pottery class at the community center.", NOW - timedelta(days=2), "en")
    _say(mem, "我今天在社区中心学包饺子了。", NOW - timedelta(days=1), "zh", "s-zh")
    for question in ("Where did I go to pottery class?", "我在哪里学包饺子？"):
        assert mem.retrieve(question, user_id="u", now=NOW, as_of=as_of).cards == []  # nothing was said yet


@pytest.mark.parametrize(
    "question, asked, live, other",
    [
        (
            "red Peugeot racer bike",
            "Have you seen my red Peugeot racer bike?",
            "I fixed the flat tyre on my bike this morning and rode it to the market.",
            "I bought a new helmet for cycling.",
        ),
        (
            "红色的标致赛车自行车",
            "你看见我那辆红色的标致赛车自行车了吗？",
            "今天早上我给自行车补了胎，然后骑车去了菜市场。",
            "我买了一个新的骑行头盔。",
        ),
    ],
)
def test_the_live_tiers_rank_and_judge_their_own_candidates(make_memory, question, asked, live, other):
    """A warm question turn that is not important matches best but is not searched live: the
    temporal track ranks the admitted events only and hands out their relevances, so the
    live tiers' best is an admitted event's and, too weak, sends the question to the archive."""
    config = MemoryConfig(tiers=TierConfig(enabled=True, fallback_relevance=0.25, fallback_coverage=0.0))
    mem = make_memory(config=config)
    _say(mem, asked, NOW - timedelta(days=40), "warm", "s1")
    _say(mem, live, NOW - timedelta(days=2), "live", "s2")
    _say(mem, other, NOW - timedelta(days=3), "other", "s3")
    query = mem.reader.analyze(question, user_id="u", now=NOW)
    reach = mem.reader.tiers.reach(query, mem.toolkit.lexicons.to_simplified(question))
    assert not reach.archive
    everything, heads = event_pool(query, mem.reader.context("u"), 15)
    best = max(everything, key=lambda i: everything[i][0])
    assert mem.store.events("u", ids=[best])[0].turn_id == "warm" and everything[best][0] > 0.25
    ctx = mem.reader.context("u", reach)
    pool, _ = event_pool(query, ctx, 15)
    assert set(pool) == set(everything) - {best}
    hits = retrieve_events(query, ctx, 15)
    assert sorted(h.relevance for h in hits) == sorted(v[0] for v in pool.values())
    assert max(h.relevance for h in hits) < config.tiers.fallback_relevance
    recall = mem.retrieve(question, user_id="u", now=NOW)
    assert recall.reached == "fallback" and "warm" in _turns(recall)
