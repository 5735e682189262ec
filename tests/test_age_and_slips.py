"""Ages said as a birthday or a round of years ("Just celebrated my 41st birthday", 今天满四十了),
and slips corrected in the words people use: the slip word alone before the value ("Typo! I'm
26, I'm not that old.", 打錯字，應該是26歲。), "Sorry, typo, it's Medtronic.", "Her name is Mocha,
not Mochi" — the old value was never true (corrected), not replaced."""

from __future__ import annotations

from datetime import timedelta

import pytest
from conversation import fact_states, say


@pytest.mark.parametrize(
    "before,after,now",
    [
        ("I'm 40 years old.", "Just celebrated my 41st birthday with the family.", "41"),
        ("我今年39岁。", "今天满四十了！", "40"),
        ("我今年39歲。", "今天滿40歲了！", "40"),
    ],
)
def test_a_birthday_moves_the_age(memory, before, after, now):
    say(memory, before, after, every=timedelta(days=200))
    ages = fact_states(memory, "age")
    assert ages[now] == "current" and list(ages.values()).count("current") == 1, ages


@pytest.mark.parametrize(
    "before,after",
    [
        ("I'm 40 years old.", "We celebrated my son's 5th birthday."),
        ("我今年30岁。", "我儿子满五岁了。"),
    ],
)
def test_someone_elses_birthday_leaves_the_age(memory, before, after):
    say(memory, before, after, every=timedelta(days=200))
    assert list(fact_states(memory, "age").values()) == ["current"]


@pytest.mark.parametrize(
    "before,after,slot,old,new",
    [
        ("I'm 62.", "Typo! I'm 26, I'm not that old.", "age", "62", "26"),
        ("我今年62歲。", "打錯字，應該是26歲。", "age", "62", "26"),
        ("我今年62岁。", "打错字，应该是26岁。", "age", "62", "26"),
        ("我今年28歲。", "記錯了，是29歲不是28歲。", "age", "28", "29"),
        ("I work at Meta.", "Sorry, typo, it's Medtronic.", "employer", "Meta", "Medtronic"),
        ("I have a cat named Mochi.", "Her name is Mocha, not Mochi, sorry.", "pets", "Mochi (cat)", "Mocha (cat)"),
    ],
)
def test_a_slip_is_corrected(memory, before, after, slot, old, new):
    say(memory, before, after, every=timedelta(minutes=5))
    facts = fact_states(memory, slot)
    assert facts.get(old) == "corrected" and facts.get(new) == "current", facts
