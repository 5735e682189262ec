"""A planned change that is called off gives the old value back: "We're moving to Denver next
month", then "the Denver move is off" — the user still lives in Chicago. Nothing is lost: the
plan stays as history, cancelled."""

from __future__ import annotations

from datetime import timedelta

import pytest
from conversation import say


def _lives_in(memory):
    facts = memory.facts("u1", include_superseded=True)
    current = sorted(f.value for f in facts if f.slot == "lives_in" and f.is_current and not f.negated)
    called_off = sorted(f.value for f in facts if f.slot == "lives_in" and f.reason == "cancelled")
    return current, called_off


@pytest.mark.parametrize(
    "home,plan,off,moving_to",
    [
        (
            "I live in Chicago.",
            "We're moving to Denver next month.",
            "The Denver move is off, the buyers backed out.",
            "Denver",
        ),
        (
            "I live in Leeds.",
            "I'm relocating to Bristol in March.",
            "We're not moving to Bristol after all.",
            "Bristol",
        ),
        ("我住在重庆。", "我们下个月要搬到成都。", "搬去成都的事黄了，房东反悔了。", "成都"),
        ("我住在新北。", "我們下個月要搬到桃園。", "搬去桃園的事取消了，房子出問題。", "桃園"),
    ],
)
def test_a_called_off_move_leaves_the_old_home_current(memory, home, plan, off, moving_to):
    say(memory, home, plan, off, every=timedelta(days=10))
    current, called_off = _lives_in(memory)
    assert current == [home.rstrip("。.").split("住在")[-1].removeprefix("I live in ")], (current, called_off)
    assert moving_to in " ".join(called_off) or not any(moving_to in c for c in current)


@pytest.mark.parametrize(
    "home,plan,instead,new",
    [
        (
            "I live in Chicago.",
            "We're moving to Denver next month.",
            "Change of plans: we're moving to Austin next month instead.",
            "Austin",
        ),
        ("我住在重庆。", "我们下个月要搬到成都。", "计划有变，我们下个月改搬到西安。", "西安"),
    ],
)
def test_a_plan_replaced_by_another_hands_the_old_home_to_the_new_plan(memory, home, plan, instead, new):
    say(memory, home, plan, instead, every=timedelta(days=10))
    facts = memory.facts("u1", include_superseded=True)
    old = next(f for f in facts if f.slot == "lives_in" and f.value in home)
    successor = next((f for f in facts if f.id == old.superseded_by), None)
    assert successor is not None and new in successor.value, (old, successor)
