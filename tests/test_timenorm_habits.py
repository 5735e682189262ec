"""Habits: a time that comes round again ("every Wednesday evening", 每周三晚上, "on Mondays at
6pm", 平时十点睡) is not one time and gets no mention, in English and Chinese; one-off times
next to the same words keep theirs (timenorm/habits.py, ``habits`` in the time lexicons)."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml

from memtracks import Turn
from memtracks.data.files import bundled
from memtracks.errors import DataFileError
from memtracks.pipeline.timenorm import load_lexicon, normalize_time

CST = timezone(timedelta(hours=8))
FRIDAY = datetime(2025, 5, 2, 20, 0, tzinfo=CST)


def dated(text: str, ref: datetime = FRIDAY) -> dict[str, date]:
    return {m.text: m.start.date() for m in normalize_time(text, ref) if m.dated}


HABITS_EN = [
    "I take a class every Wednesday evening.",
    "I run every morning.",
    "The team syncs every Monday at 10am.",
    "I have piano lessons on Tuesdays at 6pm.",
    "We meet weekly on Thursday afternoons.",
    "Most mornings I'm up at 6.",
    "I work out weekday mornings before work.",
    "I play tennis twice a week, usually Tuesday and Thursday.",
    "My standup is at 9:30 every day.",
    "I usually go to bed at 11pm.",
    "Saturdays I volunteer at the animal shelter.",
    "Every weekend I go hiking with my dog.",
    "I have swim practice every Tuesday and Thursday evening.",
    "Every other Friday is payday.",
    "I take the bus at 8 every weekday.",
    "Every Wednesday from 6 to 8pm I volunteer.",
    "Once a week, on Friday, I clean the apartment.",
    "I work Monday through Friday, 9 to 5.",
    "We do pizza night every Friday at 7.",
    "I used to go swimming at 6am before work.",
    "My mom visits us every Christmas.",
    "Every year in March we go skiing.",
    "Gym at 7, every day.",
    "Whenever I'm in town on Friday, we grab a beer at 8.",
    "On a typical day I wake up at 6.",
    "Our team lunch is the last Friday of every month.",
    "I pay rent on the 1st of each month",
]

HABITS_ZH = [
    "每周三晚上上课。",
    "每天早上跑步",
    "每逢周五我都去游泳",
    "每週三晚上上課。",
    "我每个星期六下午去学钢琴",
    "每到周末我就去爬山",
    "逢周二周四有瑜伽课",
    "隔周周六去看外婆",
    "每隔两周的周日我们家聚餐",
    "每隔一天晚上八点吃药",
    "我周一到周五早上七点起床",
    "我平时晚上十点睡觉",
    "我周三晚上都有课",
    "天天晚上加班到十点",
    "每晚九点准时睡觉",
    "每年国庆我们都回老家",
    "我通常早上七点出门",
    "周末我都在家休息",
    "每天晚上八点到九点练琴",
    "我一周三次晚上去游泳",
    "我每天早上8:00起床",  # 8:00 is read by the English rules too
    "我们周五晚上常去酒吧",
    "每次周五开会，他九点才到",
    "一到周末我就去钓鱼",
    "每年年底公司发奖金",
    "我们每个月底聚一次",
]


@pytest.mark.parametrize("text", HABITS_EN + HABITS_ZH)
def test_a_habit_gets_no_date(text: str) -> None:
    assert dated(text) == {}


@pytest.mark.parametrize(
    ("text", "phrase", "expected"),
    [
        ("I have a class this Wednesday evening.", "this Wednesday evening", date(2025, 4, 30)),
        ("Last Wednesday evening I had a class.", "Last Wednesday evening", date(2025, 4, 23)),
        ("I'm meeting her on Friday at 7pm.", "Friday at 7pm", date(2025, 5, 9)),
        ("I gave them 5 dollars each on Friday.", "Friday", date(2025, 4, 25)),
        ("Each of us left on Monday.", "Monday", date(2025, 4, 28)),
        ("Our weekly sync moved to Thursday.", "Thursday", date(2025, 5, 8)),
        ("I've always wanted to go to Japan in March.", "March", date(2025, 3, 1)),
        ("周三晚上上课。", "周三晚上", date(2025, 4, 30)),
        ("上周三晚上我去上课了", "上周三晚上", date(2025, 4, 23)),
        ("这周三晚上有课", "这周三晚上", date(2025, 4, 30)),
        ("下周五晚上七点聚餐", "下周五晚上七点", date(2025, 5, 9)),
        ("周五我们都要加班", "周五", date(2025, 5, 9)),  # 要: this coming Friday, not every one
        ("我们周末都去了爬山", "周末", date(2025, 4, 26)),  # 了: one weekend
        ("每个人都在周五交了作业", "周五", date(2025, 4, 25)),
        ("年底我要结婚了", "年底", date(2025, 12, 1)),
        ("I'm getting married at the end of the year.", "the end of the year", date(2025, 12, 1)),
    ],
)
def test_a_one_off_time_keeps_its_date(text: str, phrase: str, expected: date) -> None:
    assert dated(text) == {phrase: expected}


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Every day next week I have meetings at 9.", {"next week"}),
        ("I run every morning, but tomorrow morning I'm resting.", {"tomorrow morning"}),
        ("We met every day until Friday.", {"until Friday"}),
        ("I've been running every morning since March.", {"since March"}),
        ("每天早上跑步，但明天早上休息", {"明天早上"}),
        ("上周我每天都加班", {"上周"}),
        ("我每天都跑步，直到周五", {"直到周五"}),
    ],
)
def test_the_period_a_habit_runs_in_is_kept(text: str, kept: set[str]) -> None:
    """The habit's own times go; the stretch it is said of, or its bound, stays."""
    assert set(dated(text)) == kept


@pytest.mark.parametrize(
    ("text", "phrases"),
    [
        ("6月18日和19日都有空", {"6月18日", "19日"}),  # 都 over listed dates is "both"
        ("我从上周四到十月一日都不在", {"从上周四到十月一日"}),  # the range starts last week
        ("I'm away from next Monday to Friday, usually offline.", {"from next Monday to Friday"}),
    ],
)
def test_a_habit_word_next_to_anchored_times_leaves_them(text: str, phrases: set[str]) -> None:
    assert set(dated(text)) == phrases


def write_lexicon(tmp_path: Path, language: str, edit) -> Path:  # type: ignore[no-untyped-def]
    doc = yaml.safe_load(bundled("lexicons", f"time_{language}.yaml").read_text(encoding="utf-8"))
    edit(doc)
    path = tmp_path / f"time_{language}.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    return path


def test_habit_words_are_validated_naming_file_entry_and_field(tmp_path: Path) -> None:
    def edit(doc: dict) -> None:
        doc["habits"][0]["place"] = "before"
        doc["habits"].append({"text": "每(", "place": "lead", "regex": True})

    path = write_lexicon(tmp_path, "zh", edit)
    with pytest.raises(DataFileError) as caught:
        load_lexicon(path, "zh")
    problems = caught.value.problems
    assert str(path) in str(caught.value)
    assert any(p.startswith("habits[0]") and "field 'place'" in p for p in problems)
    assert any("'每('" in p and "field 'text': not a valid regular expression" in p for p in problems)


def test_habit_sections_are_required(tmp_path: Path) -> None:
    path = write_lexicon(tmp_path, "en", lambda doc: doc.pop("habit_links"))
    with pytest.raises(DataFileError, match="missing section 'habit_links'"):
        load_lexicon(path, "en")


def test_a_habit_written_to_memory_shows_no_date_on_its_card(memory) -> None:
    """Written through the memory and recalled, a habit's card carries the turn's own date
    only; a one-off time in another turn keeps its resolved date."""
    turns = [
        "每周三晚上我去上陶艺课。",
        "I take a pottery class every Wednesday evening.",
        "前天我去杭州出差了一趟，周末才回来。",
    ]
    for i, text in enumerate(turns):
        memory.write(Turn(text, user_id="u", timestamp=FRIDAY + timedelta(minutes=i)))
    cards = memory.retrieve("我每周几上陶艺课？", user_id="u", now=FRIDAY + timedelta(days=1)).cards
    texts = {card.text for card in cards}
    habits = [t for t in texts if "陶艺课" in t or "pottery" in t]
    assert len(habits) >= 2
    for text in habits:
        assert re.findall(r"\[\d{4}-\d\d-\d\d", text) == [], text  # no resolved date in the quote
    trip = next(t for t in texts if "杭州" in t)
    assert "周末 [2025-05-03..04]" in trip
