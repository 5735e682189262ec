"""Chinese time normalization: golden table, negatives, agreement with English, mixed text."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import yaml
from timegolden import check_golden, golden_cases

from memtracks.pipeline.timenorm import normalize_time

GOLDEN = Path(__file__).parent / "data" / "time_golden_zh.yaml"
WEDNESDAY = datetime(2024, 1, 10, 10, 0, tzinfo=timezone(timedelta(hours=8)))


REFERENCES = [
    WEDNESDAY,
    datetime(2023, 12, 31, 22, 0, tzinfo=ZoneInfo("Asia/Shanghai")),
    datetime(2024, 3, 10, 12, 0, tzinfo=ZoneInfo("America/New_York")),
    datetime(2024, 2, 29, 8, 0, tzinfo=UTC),
]


@pytest.mark.parametrize("case", golden_cases(GOLDEN))
def test_timenorm_golden_zh(case: dict) -> None:
    check_golden(case)


def test_timenorm_golden_zh_is_large_enough() -> None:
    cases = yaml.safe_load(GOLDEN.read_text(encoding="utf-8"))["cases"]
    assert sum(1 for c in cases if c["expect"]) >= 45


@pytest.mark.parametrize(
    "text",
    [
        "你好",
        "我周围的人",
        "服务很周到",
        "我喜欢周杰伦的歌",
        "一周三次",
        "每周三上课",
        "我有一点累",
        "坐3号线",
        "之前天气很好",
        "以后天天锻炼",
        "三周年纪念",
        "谢谢你",
        "三天前往北京",
        "最近0天",
    ],
)
def test_timenorm_no_time_zh(text: str) -> None:
    assert normalize_time(text, WEDNESDAY) == []


@pytest.mark.parametrize(
    ("text", "phrases"),
    [
        ("5号晚有空吗", ["5号晚"]),
        ("台风将于七月五号晚过境", ["七月五号晚"]),
        ("今天晚走", ["今天"]),  # 晚 + verb is "late", not the evening
        ("明天晚饭吃什么", ["明天"]),
        ("下雨天晚出门", []),
    ],
)
def test_timenorm_wan_after_a_day_is_its_evening(text: str, phrases: list[str]) -> None:
    assert [m.text for m in normalize_time(text, WEDNESDAY)] == phrases


def test_timenorm_yidian_is_not_one_oclock() -> None:
    """一点 is "a little" unless it sits with a day or part of day as a clock time."""
    assert [m.text for m in normalize_time("今天一点都不累", WEDNESDAY)] == ["今天"]
    assert [m.text for m in normalize_time("明天下午一点", WEDNESDAY)] == ["明天下午一点"]


@pytest.mark.parametrize(
    ("chinese", "english"),
    [
        ("月底", "the end of the month"),
        ("本月底", "the end of this month"),
        ("下个月底", "the end of next month"),
        ("月初", "the beginning of the month"),
        ("下个月初", "the beginning of next month"),
        ("年底", "the end of the year"),
        ("年初", "the beginning of the year"),
        ("下周三", "next Wednesday"),
        ("上周五", "last Friday"),
        ("这周三", "this Wednesday"),
        ("三天前", "three days ago"),
        ("两周前", "two weeks ago"),
        ("三周后", "in three weeks"),
        ("半年前", "half a year ago"),
        ("上个月", "last month"),
        ("下周", "next week"),
        ("去年", "last year"),
        ("这个周末", "this weekend"),
        ("上周末", "last weekend"),
        ("下周末", "next weekend"),
        ("明天下午三点", "tomorrow at 3pm"),
        ("周日晚", "Sunday evening"),  # 晚 right after a day: its evening
        ("7月5号晚", "July 5th in the evening"),
        ("明天早", "tomorrow morning"),
        ("下个工作周", "next working week"),  # Monday to Friday
        ("这个工作周", "this workweek"),
        ("今夜", "this night"),
        ("双十一", "Singles' Day"),
        ("光棍节", "singles day"),
        # not 去年夏天 / "last summer": on 31 Dec 2023 they are the summers of 2022 and 2023
    ],
)
@pytest.mark.parametrize("ref", REFERENCES, ids=["wed+08", "new-year-eve", "ny-dst", "leap-day"])
def test_timenorm_chinese_agrees_with_english(chinese: str, english: str, ref: datetime) -> None:
    (zh,) = normalize_time(chinese, ref)
    (en,) = normalize_time(english, ref)
    assert (zh.start, zh.end, zh.granularity) == (en.start, en.end, en.granularity)
    assert (zh.lang, en.lang) == ("zh", "en")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("十五天前", date(2023, 12, 26)),
        ("二十三天后", date(2024, 2, 2)),
        ("两天后", date(2024, 1, 12)),
        ("10天前", date(2023, 12, 31)),
        ("一天前", date(2024, 1, 9)),
    ],
)
def test_timenorm_chinese_numerals(text: str, expected: date) -> None:
    (mention,) = normalize_time(text, WEDNESDAY)
    assert mention.start.date() == expected
    assert mention.granularity == "day"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("周六我们去了公园", date(2024, 1, 6)),
        ("周六我已经去过了", date(2024, 1, 6)),
        ("我周六要去爬山", date(2024, 1, 13)),
        ("周六我打算去爬山", date(2024, 1, 13)),
        ("周六就要走了", date(2024, 1, 13)),  # 了 is weak: the future cue 要 wins
        ("周六见", date(2024, 1, 13)),
    ],
)
def test_timenorm_chinese_weekday_follows_tense(text: str, expected: date) -> None:
    (mention,) = normalize_time(text, WEDNESDAY)
    assert mention.start.date() == expected


def test_timenorm_mixed_text_finds_both_languages() -> None:
    text = "我下周三要去北京, see you next Wednesday!"
    for lang in (None, "mixed"):
        mentions = normalize_time(text, WEDNESDAY, lang=lang)
        assert [(m.text, m.lang) for m in mentions] == [("下周三", "zh"), ("next Wednesday", "en")]
        assert mentions[0].start == mentions[1].start
    # the turn's language does not hide the other script's times (an English phrase in a
    # Chinese turn is still read)
    assert [m.text for m in normalize_time(text, WEDNESDAY, lang="zh")] == ["下周三", "next Wednesday"]


def test_timenorm_clock_times_in_chinese() -> None:
    cases = {
        "下午3点半": (datetime(2024, 1, 10, 15, 30), "minute"),
        "晚上十二点": (datetime(2024, 1, 11, 0, 0), "hour"),
        "凌晨两点": (datetime(2024, 1, 10, 2, 0), "hour"),
        "明天上午10点15分": (datetime(2024, 1, 11, 10, 15), "minute"),
        "中午12点": (datetime(2024, 1, 10, 12, 0), "hour"),
        "三点一刻": (datetime(2024, 1, 10, 15, 15), "minute"),  # bare 1-6 o'clock: afternoon
        "早上三点一刻": (datetime(2024, 1, 10, 3, 15), "minute"),
    }
    for text, (start, granularity) in cases.items():
        (mention,) = normalize_time(text, WEDNESDAY)
        assert mention.start.replace(tzinfo=None) == start, text
        assert mention.granularity == granularity, text


@pytest.mark.parametrize(
    ("traditional", "simplified"),
    [
        ("後天你有空嗎", "后天你有空吗"),
        ("兩天前", "两天前"),
        ("三天後", "三天后"),
        ("下週二開會", "下周二开会"),
        ("這週末", "这周末"),
        ("三月一號", "三月一号"),
        ("上上個週三", "上上个周三"),
        ("禮拜六晚上八點", "礼拜六晚上八点"),
        ("現在", "现在"),
        ("兩個星期後", "两个星期后"),
    ],
)
@pytest.mark.parametrize("ref", REFERENCES[:2], ids=["wed+08", "new-year-eve"])
def test_timenorm_traditional_reads_like_simplified(traditional: str, simplified: str, ref: datetime) -> None:
    """Traditional characters are mapped onto the simplified grammar: same times, and the
    phrase is the user's own text."""
    a, b = normalize_time(traditional, ref), normalize_time(simplified, ref)
    assert a and [(m.start, m.end, m.granularity, m.span) for m in a] == [
        (m.start, m.end, m.granularity, m.span) for m in b
    ]
    assert all(traditional[m.span[0] : m.span[1]] == m.text for m in a)


@pytest.mark.parametrize(
    ("text", "phrase", "days"),
    [
        ("我五年没吃肉了", "五年没", 1827),
        ("会议持续三天", "持续三天", 3),
        ("他们已经走了两个星期了", "了两个星期了", 14),
        ("这个项目花了半年", "花了半年", 182),
    ],
)
def test_timenorm_durations_are_not_times_zh(text: str, phrase: str, days: int) -> None:
    """五年没…, 持续三天: a duration on the mention, never a point in time."""
    (m,) = normalize_time(text, WEDNESDAY)
    assert (m.text, m.anchored, m.granularity) == (phrase, False, "duration")
    assert abs(m.duration - timedelta(days=days)) <= timedelta(days=1)
    assert m.start == m.end == WEDNESDAY
