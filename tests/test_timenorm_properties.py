"""Properties of time normalization over generated reference times, zones and texts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from memtracks.pipeline.timenorm import GRANULARITIES, normalize_time

ZONES = [
    UTC,
    timezone(timedelta(hours=8)),
    timezone(timedelta(hours=-3, minutes=-30)),
    ZoneInfo("America/New_York"),
    ZoneInfo("Europe/London"),
    ZoneInfo("Asia/Shanghai"),
    ZoneInfo("Asia/Kolkata"),
    ZoneInfo("Australia/Lord_Howe"),  # half-hour DST shift
    ZoneInfo("America/Sao_Paulo"),
]
CALENDAR_ALIGNED = {"day", "weekend", "week", "month", "quarter", "season", "half_year", "year", "decade", "century"}

PHRASES = [
    "today",
    "tonight",
    "this morning",
    "this afternoon",
    "this evening",
    "yesterday morning",
    "yesterday evening",
    "last night",
    "tomorrow",
    "tomorrow at 3pm",
    "the day before yesterday",
    "the day after tomorrow",
    "at 3pm",
    "at 3:30 pm",
    "at noon",
    "last week",
    "this week",
    "next week",
    "last month",
    "this month",
    "next month",
    "last year",
    "this year",
    "next year",
    "this weekend",
    "last weekend",
    "next weekend",
    "on Monday",
    "on Sunday",
    "last Friday",
    "next Wednesday",
    "this Wednesday",
    "Wednesday next week",
    "three days ago",
    "two weeks ago",
    "a week ago",
    "a couple of days ago",
    "a few days ago",
    "six months ago",
    "two years ago",
    "an hour ago",
    "in 2 hours",
    "in three weeks",
    "two weeks from now",
    "in 5 days",
    "the end of the month",
    "the end of next month",
    "the end of the year",
    "the beginning of next month",
    "early May",
    "mid-June",
    "late December",
    "in May",
    "May 2023",
    "on January 17",
    "January 17th, 2024",
    "17 January 2024",
    "8 May, 2023",
    "on February 29",
    "2023-05-08",
    "in 2022",
    "last summer",
    "next winter",
    "this winter",
    "in the fall",
    "the other day",
    "the past two weeks",
    "the week before last",
    "earlier this week",
    "later this month",
    "Friday night",
    "tomorrow morning at 9",
    "last night at 2am",
    "today 23:30",
    "今天",
    "昨天",
    "前天",
    "大前天",
    "明天",
    "后天",
    "大后天",
    "今晚",
    "昨晚",
    "明晚",
    "今早",
    "今天早上",
    "昨天晚上",
    "明天上午",
    "明天下午三点",
    "下午3点半",
    "晚上十二点",
    "凌晨两点",
    "上周五",
    "下周三",
    "这周三",
    "本周三",
    "周三",
    "星期天",
    "礼拜六",
    "下下周三",
    "上周",
    "下周",
    "本周",
    "这周",
    "上个月",
    "下个月",
    "这个月",
    "本月",
    "月底",
    "月初",
    "本月底",
    "下个月底",
    "上个月初",
    "年底",
    "年初",
    "去年年底",
    "去年",
    "前年",
    "明年",
    "后年",
    "今年",
    "三天前",
    "两周后",
    "十五天前",
    "二十天后",
    "3个月前",
    "两个星期前",
    "半个月前",
    "半年前",
    "一个半月前",
    "2023年3月3日",
    "3月3号",
    "2023年3月",
    "3月",
    "12月底",
    "周末",
    "这个周末",
    "上周末",
    "下周末",
    "2022年",
    "去年夏天",
    "今年冬天",
    "几天前",
    "前几天",
    "过两天",
    "15号见",
]
TEMPLATES = [
    "{}",
    "I went there {}.",
    "I'm going there {}!",
    "We'll meet {}, ok?",
    "{} was fun",
    "我{}去了北京。",
    "我打算{}去上海",
    "{}见",
    "Did you call her {}?",
]

references = st.datetimes(
    min_value=datetime(1995, 1, 1),
    max_value=datetime(2045, 12, 31),
    timezones=st.sampled_from(ZONES),
    allow_imaginary=False,
)
texts = st.builds(
    lambda template, phrases: template.format(" and ".join(phrases)),
    st.sampled_from(TEMPLATES),
    st.lists(st.sampled_from(PHRASES), min_size=1, max_size=3),
)
# Free text mixing words and characters the recognisers react to.
TOKENS = list("0123456789 ,.:-/") + [
    "am",
    "pm",
    "May",
    "may",
    "Monday",
    "last",
    "next",
    "in",
    "ago",
    "days",
    "week",
    "the",
    "end",
    "of",
    "at",
    "年",
    "月",
    "日",
    "号",
    "周",
    "上",
    "下",
    "个",
    "天",
    "前",
    "后",
    "点",
    "半",
    "十",
    "三",
    "两",
    "今",
    "明",
    "晚上",
    "了",
    "要",
    "星期",
    "底",
    "初",
    "夏天",
]
noise = st.lists(st.sampled_from(TOKENS), max_size=25).map("".join)


def check_mentions(text: str, ref: datetime) -> None:
    mentions = normalize_time(text, ref)
    previous_end = -1
    for m in mentions:
        if not m.anchored:  # a duration: no point in time, only a positive length
            assert m.start == m.end == ref and m.granularity == "duration" and m.duration.total_seconds() > 0, m
            assert m.span[0] >= previous_end and text[m.span[0] : m.span[1]] == m.text
            previous_end = m.span[1]
            continue
        assert m.start < m.end, m
        assert m.start.timestamp() < m.end.timestamp(), m
        assert m.start.tzinfo is not None and m.end.tzinfo is not None
        assert m.start.tzinfo is ref.tzinfo and m.end.tzinfo is ref.tzinfo
        assert text[m.span[0] : m.span[1]] == m.text and m.text
        assert m.span[0] >= previous_end, "mentions overlap or are out of order"
        previous_end = m.span[1]
        assert m.granularity in GRANULARITIES
        assert m.lang in ("en", "zh")
        assert 0 < m.confidence <= 1
        assert m.direction == expected_direction(m.start, m.end, ref), m
        if m.granularity in CALENDAR_ALIGNED:
            assert day_start(m.start) and day_start(m.end), m


def day_start(moment: datetime) -> bool:
    """``moment`` is the first instant of its local day: midnight, or where midnight is skipped
    by a DST change (São Paulo until 2019), the instant the clocks jump to."""
    midnight = datetime(moment.year, moment.month, moment.day, tzinfo=moment.tzinfo)
    same_instant = moment.timestamp() == midnight.timestamp()
    return same_instant and moment.minute == 0 and moment.hour in (0, 1)


def expected_direction(start: datetime, end: datetime, ref: datetime) -> str:
    if end.timestamp() <= ref.timestamp():
        return "past"
    if start.timestamp() > ref.timestamp():
        return "future"
    return "present"


@settings(max_examples=300, deadline=None)
@given(text=texts, ref=references)
def test_timenorm_properties_hold_for_phrases(text: str, ref: datetime) -> None:
    check_mentions(text, ref)


@settings(max_examples=300, deadline=None)
@given(text=noise, ref=references)
def test_timenorm_properties_hold_for_noise(text: str, ref: datetime) -> None:
    check_mentions(text, ref)


@settings(max_examples=150, deadline=None)
@given(phrase=st.sampled_from(PHRASES), ref=references)
def test_timenorm_finds_every_listed_phrase(phrase: str, ref: datetime) -> None:
    mentions = normalize_time(phrase, ref)
    assert mentions, phrase
    assert mentions[0].span[0] <= 3  # "on", "at", "in" may be left out of the phrase


@settings(max_examples=150, deadline=None)
@given(ref=references)
def test_timenorm_adjacent_units_touch(ref: datetime) -> None:
    """Consecutive days, weeks, months and years meet exactly at their boundaries."""

    def interval(phrase: str) -> tuple[datetime, datetime]:
        (m,) = normalize_time(phrase, ref)
        return m.start, m.end

    for before, now, after in [
        ("yesterday", "today", "tomorrow"),
        ("last week", "this week", "next week"),
        ("last month", "this month", "next month"),
        ("last year", "this year", "next year"),
        ("昨天", "今天", "明天"),
    ]:
        (_, b1), (n0, n1), (a0, _) = interval(before), interval(now), interval(after)
        assert b1 == n0 and n1 == a0
        assert n0 <= ref < n1


@settings(max_examples=100, deadline=None)
@given(ref=references)
def test_timenorm_month_end_agrees_across_languages(ref: datetime) -> None:
    for zh, en in [
        ("月底", "the end of the month"),
        ("年底", "the end of the year"),
        ("下周三", "next Wednesday"),
        ("两周前", "two weeks ago"),
    ]:
        (a,) = normalize_time(zh, ref)
        (b,) = normalize_time(en, ref)
        assert (a.start, a.end, a.granularity) == (b.start, b.end, b.granularity)
