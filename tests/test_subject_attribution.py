"""A clause about someone else never gives the speaker's fact: "He's working as a nurse" after
"my brother Jake" is Jake's job, and with no one "he" can be, nobody's — real spaCy parse,
jieba, slot patterns and SQLite."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memtracks import Turn
from memtracks.pipeline.subjects.clause import clause_subject

T0 = datetime(2024, 3, 1, 10, tzinfo=timezone.utc)


def say(memory, *sessions):
    """Write each session's turns (a text is the user's; ``(speaker, text)`` another's), ten
    days apart, and return every fact as ``(subject, slot, value, current)``."""
    n = 0
    for day, turns in enumerate(sessions):
        for turn in turns:
            speaker, text = turn if isinstance(turn, tuple) else ("user", turn)
            at = T0 + timedelta(days=10 * day, minutes=n)
            memory.write(
                Turn(text, speaker=speaker, user_id="sam", session_id=f"s{day}", turn_id=f"t{n}", timestamp=at)
            )
            n += 1
    return [(f.subject, f.slot, f.value, f.is_current) for f in memory.facts("sam", include_superseded=True)]


def own(facts, slot):
    return [f for f in facts if f[0] == "user" and f[1] == slot]


ASKED = ("assistant", "Oh nice, what does he do there?")

# (sessions, a slot the user must not get, a fact that must hold or None)
OTHERS_EN = [
    (
        [["My brother Jake just moved to Austin for a new job.", "He's working as a nurse at St. David's hospital."]],
        "job_title",
        ("Jake", "job_title", "nurse"),
    ),
    (
        [
            [
                "My brother Jake just moved to Austin for a new job.",
                ASKED,
                "He's working as a nurse at St. David's hospital.",
            ]
        ],
        "job_title",
        ("Jake", "job_title", "nurse"),
    ),
    (
        [["My sister Anna lives in Boston.", "She works as a teacher at a middle school there."]],
        "job_title",
        ("Anna", "job_title", "teacher"),
    ),
    ([["Jake's working as a nurse now."]], "job_title", None),
    ([["He got a job at Denver Health."]], "employer", None),
    ([["My friend Tom is a great cook.", "He works as a sous chef at Nobu now."]], "job_title", None),
    ([["My dad is retiring soon.", "His job as a paramedic was really tough."]], "job_title", None),
    (
        [["My son finished nursing school.", "The hospital hired him as a nurse."]],
        "job_title",
        ("user's son", "job_title", "nurse"),
    ),
    ([["Their dad works as a pilot."]], "job_title", None),
    (
        [
            ["My brother Jake lives in Austin."],
            ["Jake officially moved to Denver last weekend!", "He got a job at Denver Health."],
        ],
        "employer",
        ("Jake", "employer", "Denver Health"),
    ),
]
OTHERS_ZH = [
    ([["我弟弟阿杰刚搬到深圳，换了新工作。", "他在深圳一家医院当护士。"]], "job_title", ("阿杰", "job_title", "护士")),
    ([["我姐姐住在北京。", "她在腾讯上班。"]], "employer", ("user's sister", "employer", "腾讯")),
    ([["我爸妈退休了。", "他们现在住在海南。"]], "lives_in", None),
    ([["她現在在台積電上班。"]], "employer", None),
    ([["我哥哥小明搬到台北了。", "他在醫院當護士。"]], "job_title", ("小明", "job_title", "護士")),
    ([["我弟弟阿杰上周末正式搬到成都了！", "他在华西医院找到了工作。"]], "employer", ("阿杰", "employer", "华西医院")),
    ([["我妈退休了，她以前在医院当护士。"]], "job_title", None),
]


@pytest.mark.parametrize("sessions,slot,expected", OTHERS_EN + OTHERS_ZH)
def test_a_clause_about_someone_else_gives_the_speaker_no_fact(memory, sessions, slot, expected):
    facts = say(memory, *sessions)
    assert own(facts, slot) == [], facts
    if expected is not None:
        assert (*expected, True) in [(s, sl, v.split(" (")[0], c) for s, sl, v, c in facts], facts


@pytest.mark.parametrize(
    "text,slot,value",
    [
        ("I'm working as a nurse at St. David's hospital.", "job_title", "nurse"),
        ("He left, and now I work as a nurse.", "job_title", "nurse"),
        ("I got a job at Denver Health!", "employer", "Denver Health"),
        ("My job as a nurse is exhausting.", "job_title", "nurse"),
        ("I told him I'm working as a nurse now.", "job_title", "nurse"),
        ("They hired me as a nurse last month.", "job_title", "nurse"),
        ("My wife and I moved to Denver last year.", "lives_in", "Denver"),
        ("他走了以后，我在华为上班了。", "employer", "华为"),
        ("我在深圳一家医院当护士。", "job_title", "护士"),
    ],
)
def test_the_speakers_own_clause_stays_theirs(memory, text, slot, value):
    assert [f[2] for f in own(say(memory, [text]), slot)] == [value]


def test_a_pronoun_in_a_question_asks_on_about_the_one_named_before(memory):
    """ "What does he do there?" asked after "my brother Jake" is about Jake: the answer's "He"
    is Jake, not whoever the question named (no one) and not the speaker."""
    facts = say(memory, ["My brother Jake just moved to Austin.", ASKED, "He works as a nurse at St. David's."])
    assert ("Jake", "job_title", "nurse", True) in facts


def test_a_known_relatives_name_has_the_relations_gender(memory):
    """ "Jake called" names no relation, but Jake is the user's brother: "he" may be him."""
    facts = say(memory, ["My brother Jake lives in Austin."], ["Jake called me today.", "He works at Dell now."])
    assert ("Jake", "employer", "Dell", True) in facts


@pytest.mark.parametrize(
    "text,fragment,subject,owner",
    [
        ("He's working as a nurse at St. David's hospital.", "working as a nurse", "He", None),
        ("Jake's working as a nurse now.", "working as a nurse", "Jake's", None),
        ("My brother Jake is working as a nurse.", "working as a nurse", "My brother Jake", "My"),
        ("His job is as a nurse.", "job is as a nurse", "His job", "His"),
        ("The hospital hired him as a nurse.", "hired him as a nurse", "him", None),
        ("I moved to Denver and work as a nurse.", "work as a nurse", "I", None),
        ("My brother, who works as a nurse, is great.", "works as a nurse", "My brother", "My"),
        ("He finally landed a job as a paramedic.", "job as a paramedic", "He", None),
    ],
)
def test_the_clause_subject_from_the_parse(toolkit, text, fragment, subject, owner):
    parsed = toolkit.nlp.analyze([text], parse_if=lambda s: True)[0].parsed
    start = text.index(fragment)
    found = clause_subject(parsed, start, start + len(fragment))
    assert found is not None and text[found.span[0] : found.span[1]] == subject
    assert (text[found.owner.span[0] : found.owner.span[1]] if found.owner else None) == owner


@pytest.mark.parametrize(
    "text,fragment",
    [
        ("Ugh, got diagnosed with type 2 diabetes last spring.", "got diagnosed with type 2 diabetes"),
        ("Lol, got a job at Google today!", "got a job at Google"),
        ("Working as a nurse is hard.", "Working as a nurse"),
    ],
)
def test_no_clause_subject_where_the_parse_names_none(toolkit, text, fragment):
    """An interjection before a subject-less clause is no subject; a gerund subject has none."""
    parsed = toolkit.nlp.analyze([text], parse_if=lambda s: True)[0].parsed
    start = text.index(fragment)
    assert clause_subject(parsed, start, start + len(fragment)) is None
