"""Moves said in everyday words end the old home: moved by an employer ("The company moved me to
Singapore", 公司把我调到杭州了), a move as the second of two verbs ("We packed up the flat and
moved back to Edinburgh"), where the speaker is now said with words of a home ("We're in Austin
now, the new place even has a yard", 我現在人在台中，已經搬過來兩個月了), back home to live
(我回老家西安发展了). A trip said the same way is no move."""

from __future__ import annotations

from datetime import timedelta

import pytest
from conversation import held, say


@pytest.mark.parametrize(
    "home,moved,new",
    [
        ("I live in London.", "The company moved me to Singapore, so that's home now.", "Singapore"),
        ("I live in Leeds.", "Work transferred me to Manchester.", "Manchester"),
        ("I live in Glasgow.", "We packed up the flat and moved back to Edinburgh.", "Edinburgh"),
        ("I live in Leeds.", "We sold the house and moved to Bristol last spring.", "Bristol"),
        ("I live in Brooklyn.", "We're in Austin now, the new place even has a yard.", "Austin"),
        ("我住在北京。", "公司把我调到杭州了。", "杭州"),
        ("我住在北京。", "我被调到成都工作了。", "成都"),
        ("我住在广州。", "我现在人在深圳了，换个城市生活。", "深圳"),
        ("我住在基隆。", "我現在人在台中，已經搬過來兩個月了。", "台中"),
        ("我住在上海，浦东。", "我回老家西安发展了，上海房租太贵。", "西安"),
        ("我住在台北，信義區。", "我回屏東老家住了，台北房租太貴。", "屏東"),
    ],
)
def test_the_new_home_replaces_the_old(memory, home, moved, new):
    say(memory, home, moved, every=timedelta(days=60))
    current, past = held(memory, "lives_in")
    assert current == [new], (current, past)
    assert len(past) == 1 and past[0] in home, (current, past)


@pytest.mark.parametrize(
    "home,said",
    [
        ("I live in Leeds.", "I'm in Tokyo now, heading home tomorrow."),
        ("I live in Leeds.", "I'm in Rome now, the new hotel is lovely."),
        ("I live in Leeds.", "My sister packed up and moved to Denver."),
        ("我住在北京。", "我现在人在成都出差。"),
        ("我住在北京。", "公司派我去上海出差了。"),
        ("我住在北京。", "我回老家过年了。"),
        ("我住在北京。", "我回老家住了几天。"),
        ("我住在北京。", "我妈回老家西安住了。"),
        ("我住在台北。", "我現在人在高雄出差，下週回去。"),
    ],
)
def test_a_trip_or_someone_elses_move_leaves_the_home(memory, home, said):
    say(memory, home, said, every=timedelta(days=60))
    current, _ = held(memory, "lives_in")
    assert len(current) == 1 and current[0] in home, current


@pytest.mark.parametrize(
    "home,moved,new",
    [
        (
            "I live in Ottawa.",
            "By Sunday night we were eating pizza on the floor of our new place in Halifax.",
            "Halifax",
        ),
        ("I live in Tacoma.", "I moved back in with my parents in Spokane.", "Spokane"),
        ("我住喺屯門。", "已經搬咗入元朗嘅新樓，每朝要早半個鐘出門返工", "元朗"),
        ("我住在蘆洲。", "頭份的新家終於裝潢好，上週末正式入厝了。", "頭份"),
    ],
)
def test_a_new_home_named_in_passing(memory, home, moved, new):
    say(memory, home, moved, every=timedelta(days=60))
    current, _ = held(memory, "lives_in")
    assert current == [new]


@pytest.mark.parametrize(
    "home,said",
    [
        ("I live in Ottawa.", "My sister's new place in Halifax is gorgeous."),
        ("我住在蘆洲。", "我姐姐頭份的新家上週末入厝了。"),
    ],
)
def test_someone_elses_new_home_leaves_the_home(memory, home, said):
    say(memory, home, said, every=timedelta(days=60))
    current, _ = held(memory, "lives_in")
    assert current == [home.removeprefix("I live in ").removeprefix("我住在").rstrip(".。")]
