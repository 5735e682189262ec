"""An adverb between a subject and its verb keeps the fact ("Jake officially moved to Denver",
我们总算定居在杭州), for slot patterns and happenings alike; words in -ly that are no adverbs
("My family moved") or that take the statement back ("I nearly moved") do not — real spaCy,
jieba, patterns and SQLite."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memtracks import Turn

T0 = datetime(2024, 3, 1, 10, tzinfo=timezone.utc)


def facts_of(memory, *texts):
    for i, text in enumerate(texts):
        memory.write(Turn(text, user_id="u1", session_id="s1", turn_id=f"t{i}", timestamp=T0 + timedelta(minutes=i)))
    return {(f.subject, f.slot, f.value.split(" (")[0].split("（")[0]) for f in memory.facts("u1")}


@pytest.mark.parametrize(
    "texts,fact",
    [
        (
            ["My brother Jake lives in Austin.", "Jake officially moved to Denver last weekend!"],
            ("Jake", "lives_in", "Denver"),
        ),
        (["We eventually settled in Portland after a year of searching."], ("user", "lives_in", "Portland")),
        (["I literally just moved to Chicago, boxes everywhere."], ("user", "lives_in", "Chicago")),
        (["My sister Anna apparently works at Google now."], ("Anna", "employer", "Google")),
        (["I basically live in Brooklyn now."], ("user", "lives_in", "Brooklyn")),
        (["We happily moved to Denver in May."], ("user", "lives_in", "Denver")),
        (["I've actually been living in Austin for two years."], ("user", "lives_in", "Austin")),
        (["I seriously love hiking."], ("user", "likes", "hiking")),
        (["I officially joined Google last week."], ("user", "employer", "Google")),
        (["I spontaneously adopted a cat named Miso."], ("user", "pets", "Miso")),
        (["My sister Maya finally got a job at Apple."], ("Maya", "employer", "Apple")),
        (["I secretly adopted a kitten named Mochi."], ("user", "pets", "Mochi")),
        (["我弟弟阿杰住在深圳。", "阿杰上周末正式搬到成都了！"], ("阿杰", "lives_in", "成都")),
        (["我们总算定居在杭州了。"], ("user", "lives_in", "杭州")),
        (["我居然在医院当护士，没想到吧。"], ("user", "job_title", "护士")),
        (["我果然还是喜欢吃火锅。"], ("user", "likes", "吃火锅")),
        (["我其实一直住在北京。"], ("user", "lives_in", "北京")),
        (["我們總算定居在台中了。"], ("user", "lives_in", "台中")),
        (["我姐姐小美居然搬到了成都。"], ("小美", "lives_in", "成都")),
        (["我总算开始在微软上班了。"], ("user", "employer", "微软")),
    ],
)
def test_an_adverb_before_the_verb_keeps_the_fact(memory, texts, fact):
    assert fact in facts_of(memory, *texts)


@pytest.mark.parametrize(
    "text,slot",
    [
        ("My family moved to Denver when I was a kid.", "lives_in"),  # family: no adverb, "My" no subject
        ("Our family lives in Ohio.", "lives_in"),
        ("I nearly moved to Denver last year.", "lives_in"),  # it did not happen
        ("I previously worked at Google.", "employer"),  # no longer
        ("I originally lived in Ohio.", "lives_in"),
        ("My ally works at Google.", "employer"),
    ],
)
def test_no_adverb_that_is_none_or_takes_the_statement_back(memory, text, slot):
    assert not [f for f in facts_of(memory, text) if f[0] == "user" and f[1] == slot]


def test_an_adverb_inside_the_auxiliary(memory):
    """ "I've actually been living", "has officially been working": the adverb sits between
    the auxiliaries, where "just" alone could before."""
    assert ("user", "employer", "Google") in facts_of(memory, "I have officially been working at Google since May.")
