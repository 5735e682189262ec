"""A bare weekend or weekday takes its direction from the clause around it, in English (tense)
and in Chinese (aspect and modal words: 了 / 过 past; 要 会 打算 准备 想 计划 才+verb 再 future),
said on a Friday evening and on a Monday morning."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from memtracks.pipeline.timenorm import normalize_time

CST = timezone(timedelta(hours=8))
FRIDAY = datetime(2025, 5, 2, 20, 0, tzinfo=CST)  # last weekend 04-26..27, the coming one 05-03..04
MONDAY = datetime(2025, 5, 5, 9, 0, tzinfo=CST)  # last weekend 05-03..04, the coming one 05-10..11


def starts(text: str, ref: datetime) -> dict[str, date]:
    return {m.text: m.start.date() for m in normalize_time(text, ref)}


@pytest.mark.parametrize(
    ("text", "ref", "phrase", "expected"),
    [
        # 才 + verb: "not until then", still to come, even after a past clause (了 there is weak)
        ("前天我去杭州出差了一趟，周末才回来。", FRIDAY, "周末", date(2025, 5, 3)),
        ("前天我去杭州出差了一趟，周末才回来。", MONDAY, "周末", date(2025, 5, 10)),
        ("昨天我到了上海，周六才走", FRIDAY, "周六", date(2025, 5, 3)),
        ("他周一才回来", FRIDAY, "周一", date(2025, 5, 5)),
        ("我周末加班了，周一才休息", FRIDAY, "周一", date(2025, 5, 5)),
        ("我周末加班了，周一才休息", FRIDAY, "周末", date(2025, 4, 26)),
        # 才 with 的 after it: done (no future cue; this week's Monday)
        ("他周一才回来的", FRIDAY, "周一", date(2025, 4, 28)),
        # modal and plan words
        ("周末我要去爬山", FRIDAY, "周末", date(2025, 5, 3)),
        ("周末我要去爬山", MONDAY, "周末", date(2025, 5, 10)),
        ("我周末会在家", FRIDAY, "周末", date(2025, 5, 3)),
        ("我们准备周末去露营", MONDAY, "周末", date(2025, 5, 10)),
        ("周末你打算干嘛？", MONDAY, "周末", date(2025, 5, 10)),
        ("周末再说吧", MONDAY, "周末", date(2025, 5, 10)),
        ("下次周末再去", FRIDAY, "周末", date(2025, 5, 3)),
        ("周三我们计划去北京", FRIDAY, "周三", date(2025, 5, 7)),
        # aspect: done
        ("周末我去爬山了", FRIDAY, "周末", date(2025, 4, 26)),
        ("周末我去爬山了", MONDAY, "周末", date(2025, 5, 3)),
        ("周末过得怎么样？", MONDAY, "周末", date(2025, 5, 3)),
        ("周三我去医院看过了", FRIDAY, "周三", date(2025, 4, 30)),
        ("周五我去医院看过了", MONDAY, "周五", date(2025, 5, 2)),
        ("周末刚从杭州回来", MONDAY, "周末", date(2025, 5, 3)),
        # 没 + verb: did not (past); 没空 is "have no time", 还没 "not yet"
        ("周末没去爬山", MONDAY, "周末", date(2025, 5, 3)),
        ("周三没来上班", MONDAY, "周三", date(2025, 4, 30)),
        ("周末没空", MONDAY, "周末", date(2025, 5, 10)),
        ("周末还没去", MONDAY, "周末", date(2025, 5, 10)),
        # 才 inside a word (人才, 天才) is no cue: the weak 了 decides
        ("周末去了一趟人才市场", MONDAY, "周末", date(2025, 5, 3)),
        ("周末认识了一个天才", MONDAY, "周末", date(2025, 5, 3)),
        # waiting for it (等, 等到, 盼着): still to come, whatever 了 says; what was waited through is past
        ("医生说三个月内不能爬山，只能等秋天了", MONDAY, "秋天", date(2025, 9, 1)),
        ("等到九月份再说吧", MONDAY, "九月份", date(2025, 9, 1)),
        ("只能等週末了", MONDAY, "週末", date(2025, 5, 10)),
        ("盼着周末呢", FRIDAY, "周末", date(2025, 5, 3)),
        ("秋天我们去了黄山", MONDAY, "秋天", date(2024, 9, 1)),
        # Traditional characters read the same cues
        ("週末我去爬山了", MONDAY, "週末", date(2025, 5, 3)),
        ("週末我們才回來", FRIDAY, "週末", date(2025, 5, 3)),
    ],
)
def test_chinese_weekend_and_weekday_follow_the_clause(text: str, ref: datetime, phrase: str, expected: date) -> None:
    assert starts(text, ref)[phrase] == expected


@pytest.mark.parametrize(
    ("text", "ref", "phrase", "expected"),
    [
        ("I'll be back on the weekend.", FRIDAY, "the weekend", date(2025, 5, 3)),
        ("I'll be back on the weekend.", MONDAY, "the weekend", date(2025, 5, 10)),
        ("I'm going hiking on the weekend.", MONDAY, "the weekend", date(2025, 5, 10)),
        ("We're planning to camp on the weekend.", MONDAY, "the weekend", date(2025, 5, 10)),
        ("I went hiking over the weekend.", FRIDAY, "the weekend", date(2025, 4, 26)),
        ("I went hiking over the weekend.", MONDAY, "the weekend", date(2025, 5, 3)),
        ("I saw the doctor on Wednesday.", FRIDAY, "Wednesday", date(2025, 4, 30)),
        ("I didn't go hiking on the weekend.", MONDAY, "the weekend", date(2025, 5, 3)),
        ("I'm seeing the doctor on Wednesday.", FRIDAY, "Wednesday", date(2025, 5, 7)),
    ],
)
def test_english_weekend_and_weekday_follow_the_tense(text: str, ref: datetime, phrase: str, expected: date) -> None:
    assert starts(text, ref)[phrase] == expected


SPRING = datetime(2024, 3, 30, 20, 0, tzinfo=CST)  # April 21 is 22 days ahead, last year's 11 months back


@pytest.mark.parametrize(
    ("text", "phrase", "expected"),
    [
        # a past verb in another clause tells of another happening than the date's
        ("我报名了西湖半马，四月二十一号跑。", "四月二十一号", date(2024, 4, 21)),
        ("对了跟你说，我报名了半马，4月21日比赛。", "4月21日", date(2024, 4, 21)),
        ("I signed up for the half marathon, it's on April 21.", "April 21", date(2024, 4, 21)),
        ("We booked the venue, the party is on April 21.", "April 21", date(2024, 4, 21)),
        # a time that qualifies a noun (的) has the tense of no verb
        ("我买了四月二十一号的票。", "四月二十一号", date(2024, 4, 21)),
        ("我报名了四月的比赛。", "四月", date(2024, 4, 1)),
        ("周五的会取消了。", "周五", date(2024, 3, 29)),
        # the date's own clause still decides, and a bare time phrase takes its sentence's tense
        ("四月二十一号我去了北京。", "四月二十一号", date(2023, 4, 21)),
        ("I went to Paris on April 21.", "April 21", date(2023, 4, 21)),
        ("On Saturday, we visited my parents.", "Saturday", date(2024, 3, 23)),
        ("周末的时候我们去了杭州。", "周末", date(2024, 3, 30)),
        ("周六，我们去了杭州。", "周六", date(2024, 3, 23)),
        # a plan spans the sentence
        ("Let's catch up next week, how about on Wednesday?", "Wednesday", date(2024, 4, 3)),
    ],
)
def test_a_cue_in_another_clause_does_not_date_the_mention(text, phrase, expected):
    assert starts(text, SPRING)[phrase] == expected
