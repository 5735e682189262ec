"""A correction in the forms people use right after a slip: the rejected value first ("Wait,
not Nike, Adidas."), a remark after it (是常州不是苏州，刚才脑子糊涂了), slips named in other
words (记岔了, 手滑了), in English, Simplified and Traditional Chinese."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memtracks import Turn

T0 = datetime(2024, 9, 2, 9, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    "first,then,slot,old,new",
    [
        ("I work at Nike.", "Wait, not Nike, Adidas. Long day.", "employer", "Nike", "Adidas"),
        ("I live in Lisbon.", "Sorry, I meant Porto, not Lisbon.", "lives_in", "Lisbon", "Porto"),
        ("我住在苏州。", "是常州不是苏州，刚才脑子糊涂了。", "lives_in", "苏州", "常州"),
        ("我今年35岁。", "手滑了，应该是37岁。", "age", "35", "37"),
        # the 不是 negates the value after it, not the one before (negation has a scope)
        ("我今年27岁。", "记岔了，29岁不是27岁。", "age", "27", "29"),
        ("我住在台中。", "是彰化不是台中，剛剛講錯了。", "lives_in", "台中", "彰化"),
    ],
)
def test_the_slip_is_corrected(memory, first, then, slot, old, new):
    for i, text in enumerate((first, then)):
        memory.write(
            Turn(
                text=text,
                speaker="user",
                user_id="u1",
                session_id="s1",
                turn_id=f"t{i}",
                timestamp=T0 + timedelta(minutes=3 * i),
            )
        )
    facts = memory.facts("u1", include_superseded=True)
    assert any(f.slot == slot and f.value == old and f.reason == "corrected" for f in facts), facts
    assert any(f.slot == slot and f.value == new and f.is_current for f in facts), facts


@pytest.mark.parametrize(
    "text,value,negated",
    [("我不住在北京。", "北京", True), ("我住在上海，不是北京。", "上海", False), ("我不太爱吃辣。", "吃辣", False)],
)
def test_a_chinese_negation_negates_what_follows_it(memory, text, value, negated):
    memory.write(Turn(text=text, speaker="user", user_id="u1", session_id="s1", turn_id="t0", timestamp=T0))
    facts = memory.facts("u1", include_negated=True)
    assert any(f.value == value and f.negated == negated for f in facts), facts
