"""Who "I" / 我 in a question is when the caller does not say (``Memory.retrieve(speaker=None)``).

Regression: a user whose turns were written with ``speaker=user_id`` ("dana") asked "Where do I
work?" and got no fact card, because "I" was always read as the speaker "user" while the facts
were stored under "dana"."""

from __future__ import annotations

from datetime import timedelta

import pytest
from conftest import CST, at

from memtracks import Turn

T0 = at(2025, 3, 3, 18, tz=CST)
NOW = at(2025, 3, 20, 9, tz=CST)

CHATS = {
    "en": (
        [
            "I started a new job at Figma last Monday as a product designer.",
            "My cat Miso got sick yesterday, we went to the vet.",
            "I live in Seattle now.",
        ],
        "Where do I work?",
        "Figma",
    ),
    "zh": (
        ["我住在杭州。", "我家猫叫豆豆，昨天生病了。", "我在腾讯上班，做产品经理。"],
        "我在哪里上班？",
        "腾讯",
    ),
}


def write(memory, lines, speaker, user="dana", assistant="Thanks for telling me!"):
    for i, text in enumerate(lines):
        when = T0 + timedelta(days=i)
        memory.write(Turn(text, speaker=speaker, user_id=user, session_id=f"s{i}", timestamp=when))
        later = when + timedelta(minutes=1)
        memory.write(Turn(assistant, speaker="assistant", user_id=user, session_id=f"s{i}", timestamp=later))


def first_fact(recall):
    return next((c for c in recall.cards if c.track == "fact"), None)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("speaker", ["dana", "Dana Lee"])
def test_i_is_the_user_who_speaks_under_a_name(memory, lang, speaker):
    """Turns spoken under the user's id, or by the one person in the memory: "I" is them."""
    lines, question, value = CHATS[lang]
    write(memory, lines, speaker)
    fact = first_fact(memory.retrieve(question, user_id="dana", now=NOW))
    assert fact is not None and value in fact.text and speaker in fact.text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_i_is_user_when_the_user_speaks_as_user(memory, lang):
    lines, question, value = CHATS[lang]
    write(memory, lines, "user")
    fact = first_fact(memory.retrieve(question, user_id="dana", now=NOW))
    assert fact is not None and value in fact.text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_two_named_people_need_the_speaker_said(memory, lang):
    """A chat between two named people: "I" is no one by default; ``speaker`` says who."""
    lines, question, value = CHATS[lang]
    write(memory, lines, "Dana")
    write(memory, ["I love jazz."] if lang == "en" else ["我喜欢爵士乐。"], "Sam", assistant="Cool!")
    default = first_fact(memory.retrieve(question, user_id="dana", now=NOW))
    assert default is None or value not in default.text
    said = first_fact(memory.retrieve(question, user_id="dana", now=NOW, speaker="Dana"))
    assert said is not None and value in said.text


def test_the_user_id_wins_over_other_named_speakers(memory):
    write(memory, CHATS["en"][0], "dana")
    write(memory, ["I work at a bakery."], "Sam", assistant="Nice!")
    fact = first_fact(memory.retrieve("Where do I work?", user_id="dana", now=NOW))
    assert fact is not None and "Figma" in fact.text


def test_an_agent_scope_reads_its_own_speakers(memory):
    lines, question, value = CHATS["en"]
    for i, text in enumerate(lines):
        memory.write(text, user_id="dana", agent_id="coach", speaker="dana", turn_id=f"t{i}", timestamp=T0)
    fact = first_fact(memory.retrieve(question, user_id="dana", agent_id="coach", now=NOW))
    assert fact is not None and value in fact.text
