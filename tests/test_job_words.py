"""An employer is the organisation after any job word, in English, Simplified and Traditional
Chinese ("my new employer is", "started my new job at", "offer from", 去X上班, 入职X)."""

from __future__ import annotations

import pytest
from conversation import say


def _employers(memory, *texts):
    say(memory, *texts)
    facts = memory.facts("u1", include_superseded=True, include_planned=True)
    return {(f.value, f.reason or ("planned" if f.planned else "current")) for f in facts if f.slot == "employer"}


@pytest.mark.parametrize(
    "text,value",
    [
        ("Big news, my new employer is Spotify!", "Spotify"),
        ("I just started my new job at Stripe.", "Stripe"),
        ("Started my new role with PwC on Monday.", "PwC"),
        ("I got a job offer from Stripe as a PM.", "Stripe"),
        ("My new job at Airbnb is going well.", "Airbnb"),
        ("I accepted the position at Mayo Clinic yesterday.", "Mayo Clinic"),
    ],
)
def test_en_the_organisation_after_a_job_word(memory, text, value):
    assert (value, "current") in _employers(memory, text)


@pytest.mark.parametrize(
    "text,value",
    [("我下周一去腾讯上班。", "腾讯"), ("我下個月要去鴻海上班了。", "鴻海"), ("下个月要到京东报到了。", "京东")],
)
def test_zh_a_job_one_goes_to_next_is_a_plan(memory, text, value):
    assert (value, "planned") in _employers(memory, text)


def test_zh_quitting_one_and_going_to_the_next_in_one_breath(memory):
    found = _employers(memory, "我在阿里上班。", "我从阿里辞职了，下周一去腾讯上班")
    assert ("腾讯", "planned") in found and ("阿里", "current") not in found
    assert {("阿里", "ended"), ("阿里", "replaced")} & found


@pytest.mark.parametrize(
    "text", ["我每天去公司上班。", "明天去办公室上班。", "I joined a gym.", "She joined Microsoft last year."]
)
def test_no_employer_of_the_speaker(memory, text):
    assert not _employers(memory, text)
