"""English time normalization: golden table, negatives, errors, lexicon files, arithmetic oracle."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import pytz
import yaml
from timegolden import check_golden, golden_cases

from memtracks.data.files import bundled
from memtracks.data.time_words import default_time_words
from memtracks.errors import DataFileError, InvalidTimeError, UnsupportedLanguageError
from memtracks.pipeline.timenorm import load_lexicon, normalize_time
from memtracks.records import TimeMention

GOLDEN = Path(__file__).parent / "data" / "time_golden_en.yaml"
WEDNESDAY = datetime(2024, 1, 10, 10, 0, tzinfo=timezone(timedelta(hours=8)))


@pytest.mark.parametrize("case", golden_cases(GOLDEN))
def test_timenorm_golden_en(case: dict) -> None:
    check_golden(case)


def test_timenorm_golden_en_is_large_enough() -> None:
    cases = yaml.safe_load(GOLDEN.read_text(encoding="utf-8"))["cases"]
    assert sum(1 for c in cases if c["expect"]) >= 45


@pytest.mark.parametrize(
    "text",
    [
        "I may come",
        "I have 3 cats",
        "Wait a second",
        "just a second",
        "Good morning!",
        "I march to my own drum",
        "May I ask you something?",
        "I fall asleep early",
        "We walked 2000 steps",
        "every Monday I swim",
        "Sun is shining",
        "I'm 30 years old",
        "Mondays are hard",
        "This may take longer than expected.",
        "Cortana, can you please set something up the 21st.",
        "My dentist uses the most up to date equipment",
        "Happy new year!",
        "I sat down and had a coffee",
        "She wed him in a small chapel",
        "I have 3-4 cats",
        "no calls in the last 0 days",
        "last年0年days",  # found by the noise property test
        "",
    ],
)
def test_timenorm_no_time_en(text: str) -> None:
    assert normalize_time(text, WEDNESDAY) == []


@pytest.mark.parametrize(
    ("text", "phrase", "days"),
    [
        ("I've lived here for 3 years", "for 3 years", 1096),
        ("I finished the book in three days", "in three days", 3),
        ("I haven't eaten meat in five years", "in five years", 1827),
        ("we haven't talked in 2 weeks", "in 2 weeks", 14),
        ("stayed for a couple of days", "for a couple of days", 2),
    ],
)
def test_timenorm_durations_are_not_times_en(text: str, phrase: str, days: int) -> None:
    """A length of time is kept as a duration, never as a point in time (no future date)."""
    (m,) = normalize_time(text, WEDNESDAY)
    assert (m.text, m.anchored, m.granularity) == (phrase, False, "duration")
    assert m.duration == timedelta(days=days)
    assert m.start == m.end == WEDNESDAY


def test_timenorm_returns_time_mentions_with_spans() -> None:
    text = "I went hiking on Saturday and I'll fly to Tokyo next Wednesday at 9am."
    mentions = normalize_time(text, WEDNESDAY)
    assert [m.text for m in mentions] == ["Saturday", "next Wednesday at 9am"]
    for m in mentions:
        assert isinstance(m, TimeMention)
        assert text[m.span[0] : m.span[1]] == m.text
        assert m.lang == "en"
    assert [m.direction for m in mentions] == ["past", "future"]
    assert mentions[1].granularity == "hour"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I went hiking on Saturday", date(2024, 1, 6)),
        ("I'm going hiking on Saturday", date(2024, 1, 13)),
        ("I'll go hiking on Saturday", date(2024, 1, 13)),
        ("Hiking on Saturday", date(2024, 1, 13)),
        ("On Saturday, we visited my parents", date(2024, 1, 6)),
        ("I went to the gym on Monday", date(2024, 1, 8)),
        ("I'm going to the gym on Monday", date(2024, 1, 15)),
        ("I went to the gym on Wednesday", date(2024, 1, 3)),  # past cue: strictly before today
    ],
)
def test_timenorm_bare_weekday_follows_tense(text: str, expected: date) -> None:
    (mention,) = normalize_time(text, WEDNESDAY)
    assert mention.start.date() == expected
    assert mention.granularity == "day"


def test_timenorm_vague_is_less_confident_than_exact() -> None:
    exact, vague, other = (
        normalize_time(t, WEDNESDAY)[0] for t in ("three days ago", "a few days ago", "the other day")
    )
    assert exact.confidence == 0.9
    assert vague.confidence < exact.confidence
    assert other.confidence < exact.confidence
    assert normalize_time("January 17th, 2024", WEDNESDAY)[0].confidence == 0.95


@pytest.mark.parametrize("bad", [datetime(2024, 1, 10, 10), date(2024, 1, 10), "2024-01-10", None, 1704852000])
def test_timenorm_rejects_reference_that_is_not_aware(bad: object) -> None:
    with pytest.raises(InvalidTimeError, match="timezone-aware datetime"):
        normalize_time("yesterday", bad)  # type: ignore[arg-type]


def test_timenorm_naive_reference_message_says_what_was_found() -> None:
    with pytest.raises(InvalidTimeError, match="naive datetime 2024-01-10T10:00:00"):
        normalize_time("yesterday", datetime(2024, 1, 10, 10))


@pytest.mark.parametrize("lang", ["fr", "english", "EN", ""])
def test_timenorm_rejects_unknown_language(lang: str) -> None:
    with pytest.raises(UnsupportedLanguageError, match="'en', 'zh', 'mixed'"):
        normalize_time("yesterday", WEDNESDAY, lang=lang)


def test_timenorm_reads_both_scripts_whatever_the_language() -> None:
    """English forms inside a Chinese turn and Chinese inside an English one are read."""
    assert [(m.text, m.lang) for m in normalize_time("明天见", WEDNESDAY, lang="en")] == [("明天", "zh")]
    assert [m.text for m in normalize_time("see you tomorrow", WEDNESDAY, lang="zh")] == ["tomorrow"]
    assert [m.text for m in normalize_time("我们3pm在公司见", WEDNESDAY, lang="zh")] == ["3pm"]
    assert [m.text for m in normalize_time("发票日期3/3/2015", WEDNESDAY, lang="zh")] == ["3/3/2015"]
    assert [m.text for m in normalize_time("我tomorrow去", WEDNESDAY, lang="zh")] == ["tomorrow"]


def test_timenorm_pytz_reference_keeps_local_midnights() -> None:
    zone = pytz.timezone("America/New_York")
    ref = zone.localize(datetime(2024, 3, 10, 12, 0))  # the day DST starts
    (today,) = normalize_time("today", ref)
    assert (today.start.hour, today.end.hour) == (0, 0)
    assert today.start.utcoffset() == timedelta(hours=-5)
    assert today.end.utcoffset() == timedelta(hours=-4)


_DAY = timedelta(days=1)
ORACLE = {  # phrase -> the moment it names, by plain arithmetic on the reference (local wall time)
    "yesterday": lambda r: r - _DAY,
    "today": lambda r: r,
    "tomorrow": lambda r: r + _DAY,
    "the day before yesterday": lambda r: r - 2 * _DAY,
    "tomorrow at 3pm": lambda r: (r + _DAY).replace(hour=15, minute=0),
    "3 days ago": lambda r: r - 3 * _DAY,
    "two weeks ago": lambda r: r - 14 * _DAY,
    "in 5 days": lambda r: r + 5 * _DAY,
    "in 2 weeks": lambda r: r + 14 * _DAY,
    "a fortnight ago": lambda r: r - 14 * _DAY,
    "last week": lambda r: r - 7 * _DAY,
    "January 17th, 2024": lambda r: datetime(2024, 1, 17, 12),
    "8 May, 2023": lambda r: datetime(2023, 5, 8, 12),
    "17 January 2024": lambda r: datetime(2024, 1, 17, 12),
    "Jan 17 2024": lambda r: datetime(2024, 1, 17, 12),
    "March 3, 2022": lambda r: datetime(2022, 3, 3, 12),
    "2023-05-08": lambda r: datetime(2023, 5, 8, 12),
    "5/8/2023": lambda r: datetime(2023, 5, 8, 12),
}


@pytest.mark.parametrize("phrase", list(ORACLE))
@pytest.mark.parametrize(
    "ref",
    [
        WEDNESDAY,
        datetime(2023, 5, 8, 13, 56, tzinfo=ZoneInfo("America/New_York")),
        datetime(2024, 2, 29, 23, 30, tzinfo=ZoneInfo("Asia/Kolkata")),
    ],
    ids=["wed+08", "new-york", "leap-day-kolkata"],
)
def test_timenorm_agrees_with_arithmetic(phrase: str, ref: datetime) -> None:
    """Oracle: the moment the phrase names (reference arithmetic, local wall time) falls inside
    the interval, which is one day (or one clock hour) long."""
    moment = ORACLE[phrase](ref.replace(tzinfo=None))
    (mention,) = normalize_time(phrase, ref)
    assert mention.start.replace(tzinfo=None) <= moment < mention.end.replace(tzinfo=None)


# -- lexicon files ----------------------------------------------------------------------------


def write_lexicon(tmp_path: Path, edit) -> Path:  # type: ignore[no-untyped-def]
    doc = yaml.safe_load(bundled("lexicons", "time_en.yaml").read_text(encoding="utf-8"))
    edit(doc)
    path = tmp_path / "time_en.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    return path


def test_timenorm_bundled_lexicons_load_once() -> None:
    assert default_time_words() is default_time_words()
    assert default_time_words()["zh"] is default_time_words().zh
    english = default_time_words()["en"]
    assert load_lexicon(bundled("lexicons", "time_en.yaml"), "en").sections.keys() == english.sections.keys()


def test_timenorm_bad_lexicon_names_file_entry_and_field(tmp_path: Path) -> None:
    path = write_lexicon(tmp_path, lambda doc: doc["day_words"][1].update(offset="soon"))
    with pytest.raises(DataFileError) as caught:
        load_lexicon(path, "en")
    message = str(caught.value)
    assert str(path) in message
    assert "day_words[1] 'tomorrow'" in message
    assert "field 'offset'" in message


def test_timenorm_lexicon_rejects_unknown_field(tmp_path: Path) -> None:
    path = write_lexicon(tmp_path, lambda doc: doc["months"][0].update(colour="blue"))
    with pytest.raises(DataFileError, match=r"months\[0\] 'january': field 'colour': Extra inputs"):
        load_lexicon(path, "en")


def test_timenorm_lexicon_checks_parts_and_regexes(tmp_path: Path) -> None:
    def edit(doc: dict) -> None:
        doc["fused_day_parts"][0]["part"] = "teatime"
        doc["tense_cues"].append({"text": "(unclosed", "tense": "past", "regex": True})

    with pytest.raises(DataFileError) as caught:
        load_lexicon(write_lexicon(tmp_path, edit), "en")
    problems = caught.value.problems
    assert any("fused_day_parts[0] 'tonight': field 'part': unknown part 'teatime'" in p for p in problems)
    assert any("tense_cues" in p and "field 'text': not a valid regular expression" in p for p in problems)


def test_timenorm_lexicon_reports_missing_and_unknown_sections(tmp_path: Path) -> None:
    def edit(doc: dict) -> None:
        del doc["months"]
        doc["moths"] = []

    with pytest.raises(DataFileError) as caught:
        load_lexicon(write_lexicon(tmp_path, edit), "en")
    assert "missing section 'months'" in caught.value.problems
    assert any(p.startswith("unknown section 'moths'") for p in caught.value.problems)


def test_timenorm_lexicon_unknown_language(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedLanguageError):
        load_lexicon(tmp_path / "x.yaml", "fr")


NUMERIC_CASES = [
    ("I met her on 5/8/2023.", "5/8/2023", "2023-05-08"),
    ("See you on 3/4!", "3/4", "2024-03-04"),
    ("The party is on the 17th.", "the 17th", "2024-01-17"),
    ("I paid the rent on the 25th.", "the 25th", "2023-12-25"),  # past tense: last month's 25th
]


@pytest.mark.parametrize("text,phrase,day", NUMERIC_CASES, ids=[c[0] for c in NUMERIC_CASES])
def test_timenorm_numeric_and_ordinal_dates(text, phrase, day):
    ref = datetime(2024, 1, 10, 10, tzinfo=timezone(timedelta(hours=8)))
    [m] = normalize_time(text, ref)
    assert (m.text, m.start.date().isoformat(), m.granularity) == (phrase, day, "day")
    assert m.start.tzinfo is not None and m.end - m.start == timedelta(days=1)


@pytest.mark.parametrize("text", ["The score was 3/4.", "I have 3 cats and 2/3 of them sleep all day."])
def test_timenorm_numeric_ignores_fractions(text):
    ref = datetime(2024, 1, 10, 10, tzinfo=timezone.utc)
    assert normalize_time(text, ref) == []


def test_timenorm_date_order_is_configurable() -> None:
    (us,) = normalize_time("we met on 5/8/2023", WEDNESDAY)
    (eu,) = normalize_time("we met on 5/8/2023", WEDNESDAY, date_order="dmy")
    (forced,) = normalize_time("we met on 23/12/2023", WEDNESDAY)  # 23 cannot be a month
    assert (us.start.month, us.start.day) == (5, 8)
    assert (eu.start.month, eu.start.day) == (8, 5)
    assert (forced.start.month, forced.start.day) == (12, 23)
    with pytest.raises(UnsupportedLanguageError, match="date_order"):
        normalize_time("5/8/2023", WEDNESDAY, date_order="ymd")


def test_timenorm_lexicon_checks_holidays_and_zones(tmp_path: Path) -> None:
    def edit(doc: dict) -> None:
        doc["holidays"][0] = {"word": "founders day", "month": 5}
        doc["zones"][0] = {"word": "mars time", "iana": "Mars/Olympus_Mons"}

    with pytest.raises(DataFileError) as caught:
        load_lexicon(write_lexicon(tmp_path, edit), "en")
    problems = caught.value.problems
    assert any("holidays[0] 'founders day'" in p and "exactly one of" in p for p in problems)
    assert any("zones[0] 'mars time'" in p and "unknown time zone" in p for p in problems)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("The wedding got pushed to the 21st.", [("the 21st", "2024-09-21")]),
        ("It's postponed until the 3rd.", [("the 3rd", "2024-10-03")]),
        ("The party is the 21st.", [("the 21st", "2024-09-21")]),
        ("We're going to the 21st birthday party.", []),
        ("Take the lift up to the 3rd floor.", []),
        ("I've tried for the 2nd time.", []),
        # an emoji ends a clause: the day is the start's, not the past of "said"
        ("Said yes to the offer 🎉 my first day there is November 18.", [("November 18", "2024-11-18")]),
        ("Went to the beach 🏖 on Saturday.", [("Saturday", "2024-08-31")]),
    ],
)
def test_a_day_of_the_month_after_a_word_that_takes_a_date(text, expected):
    ref = datetime(2024, 9, 4, 9, tzinfo=timezone.utc)
    found = [(m.text, m.start.date().isoformat()) for m in normalize_time(text, ref, "en")]
    assert found == expected
