"""Whom a clause is about: Chinese topic continuity and "she" across turns, on the real lexicons."""

from __future__ import annotations

import pytest

from memtracks.pipeline.subjects.resolver import SubjectResolver, earlier_mentions
from memtracks.pipeline.subjects.topics import asks_about_other, clause_spans, clause_topics


def _topics(toolkit, text, speaker="user"):
    search = toolkit.lexicons.to_simplified(text)
    resolver = SubjectResolver(speaker, toolkit.lexicons, (), frozenset(), search)
    found = clause_topics(search, speaker, toolkit.lexicons, resolver._chinese)
    return [(text[t.start : t.end], t.subject) for t in found]


def test_clauses_split_at_punctuation_and_chat_spaces():
    text = "刚下班 加班到现在，累死了"
    assert [text[a:b] for a, b in clause_spans(text)] == ["刚下班", "加班到现在", "累死了"]


@pytest.mark.parametrize(
    "text,expected",
    [
        ("我养了一只柯基，叫豆豆，三岁了", ["user", "豆豆", "豆豆"]),
        ("我找了一个宠物保姆，是个大学生，很喜欢狗", ["user", None, None]),
        ("我姐姐叫李娜，住在成都", ["user's sister", "李娜"]),
        ("累死了，今天加班到十点", ["user", "user"]),
        ("我妈退休了，现在天天跳广场舞", ["user's mother", "user's mother"]),
        ("你们去吧，我不去了", [None, "user"]),
        ("我媽媽退休了，每天都去爬山", ["user's mother", "user's mother"]),  # Traditional
    ],
)
def test_subjectless_clauses_continue_the_topic(toolkit, text, expected):
    assert [subject for _, subject in _topics(toolkit, text)] == expected


def test_she_at_the_start_of_a_turn_is_the_one_named_just_before(toolkit):
    turns = [("user", "My brother just moved to Denver."), ("user", "And my sister got a new job.")]
    mentions = earlier_mentions(turns, "user", toolkit.lexicons)
    assert mentions == (("user's brother", "m"), ("user's sister", "f"))
    resolver = SubjectResolver("user", toolkit.lexicons, (), frozenset(), "She loves it.", earlier=mentions)
    assert resolver._antecedent(0, "f") == "user's sister"
    assert resolver._antecedent(0, "m") == "user's brother"


def test_your_sister_said_by_the_assistant_is_the_users(toolkit):
    turns = [("assistant", "How is your sister doing?")]
    assert earlier_mentions(turns, "user", toolkit.lexicons) == (("user's sister", "f"),)
    assert earlier_mentions([("assistant", "我女儿很好")], "user", toolkit.lexicons) == ()


@pytest.mark.parametrize(
    "question,other",
    [
        ("你外甥几岁了？", True),
        ("它多大了？", True),
        ("团子几岁了来着", True),
        ("孩子多大了？", True),
        ("冒昧问一下，你今年多大？", False),
        ("今年多大了？", False),
        ("你在哪工作？", False),
        ("好的，我记下了。", False),
        ("你媽媽住在哪裡？", True),  # Traditional, as the writer maps it
    ],
)
def test_a_question_about_someone_else(toolkit, question, other):
    assert asks_about_other(toolkit.lexicons.to_simplified(question), toolkit.lexicons) is other


def test_a_reply_to_a_question_about_someone_else_is_not_about_the_speaker(toolkit):
    search = "四岁了 英短蓝猫 胖得要死"
    resolver = SubjectResolver("user", toolkit.lexicons, (), frozenset(), search)
    found = clause_topics(search, "user", toolkit.lexicons, resolver._chinese, answering_about_other=True)
    assert [t.subject for t in found] == [None, None, None]


def test_an_echo_hands_the_news_back(toolkit):
    assert [s for _, s in _topics(toolkit, "啊？刚升主美")] == ["user", None]
