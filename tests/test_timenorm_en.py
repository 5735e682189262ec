"""English time normalization: golden table, negatives, errors, lexicon files, dateparser oracle."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import dateparser
import pytest
import pytz
import yaml

from memtracks.datafiles import bundled
from memtracks.errors import DataFileError, InvalidTimeError, UnsupportedLanguageError
from memtracks.pipeline.timenorm import load_lexicon, normalize_time
from memtracks.pipeline.timenorm.lexicon import lexicon
from memtracks.records import TimeMention

GOLDEN = Path(__file__).parent / "data" / "time_golden_en.yaml"
WEDNESDAY = datetime(2024, 1, 10, 10, 0, tzinfo=timezone(timedelta(hours=8)))


def golden_cases(path: Path) -> list:
    """The cases of a golden table, as pytest params with the text as id."""
    cases = yaml.safe_load(path.read_text(encoding="utf-8"))["cases"]
    return [pytest.param(case, id=case["text"]) for case in cases]


def reference(case: dict) -> datetime:
    ref = datetime.fromisoformat(case["ref"])
    return ref.astimezone(ZoneInfo(case["zone"])) if case.get("zone") else ref


def check_golden(case: dict) -> None:
    """Every expected mention, exactly, with the offset the reference zone gives it."""
    mentions = normalize_time(case["text"], reference(case))
    got = [(m.text, m.start, m.end, m.granularity) for m in mentions]
    want = [
        (
            e["phrase"],
            datetime.fromisoformat(e["start"]),
            datetime.fromisoformat(e["end"]),
            e["granularity"],
        )
        for e in case["expect"]
    ]
    assert got == want
    for mention, expected in zip(mentions, case["expect"], strict=True):
        assert mention.start.isoformat() == expected["start"]
        assert mention.end.isoformat() == expected["end"]


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
        "I've lived here for 3 years",
        "Mondays are hard",
        "I finished the book in three days",
        "",
    ],
)
def test_timenorm_no_time_en(text: str) -> None:
    assert normalize_time(text, WEDNESDAY) == []


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


def test_timenorm_forced_language() -> None:
    assert normalize_time("明天见", WEDNESDAY, lang="en") == []
    assert normalize_time("see you tomorrow", WEDNESDAY, lang="zh") == []
    assert [m.text for m in normalize_time("see you tomorrow", WEDNESDAY, lang="en")] == ["tomorrow"]


def test_timenorm_pytz_reference_keeps_local_midnights() -> None:
    zone = pytz.timezone("America/New_York")
    ref = zone.localize(datetime(2024, 3, 10, 12, 0))  # the day DST starts
    (today,) = normalize_time("today", ref)
    assert (today.start.hour, today.end.hour) == (0, 0)
    assert today.start.utcoffset() == timedelta(hours=-5)
    assert today.end.utcoffset() == timedelta(hours=-4)


@pytest.mark.parametrize(
    "phrase",
    [
        "January 17th, 2024",
        "8 May, 2023",
        "17 January 2024",
        "Jan 17 2024",
        "March 3, 2022",
        "2023-05-08",
        "yesterday",
        "today",
        "tomorrow",
        "the day before yesterday",
        "tomorrow at 3pm",
        "3 days ago",
        "two weeks ago",
        "a month ago",
        "5 months ago",
        "2 years ago",
        "in 5 days",
        "in 2 weeks",
        "last week",
        "next month",
    ],
)
@pytest.mark.parametrize(
    "ref",
    [
        WEDNESDAY,
        datetime(2023, 5, 8, 13, 56, tzinfo=ZoneInfo("America/New_York")),
        datetime(2024, 2, 29, 23, 30, tzinfo=ZoneInfo("Asia/Kolkata")),
    ],
    ids=["wed+08", "new-york", "leap-day-kolkata"],
)
def test_timenorm_agrees_with_dateparser(phrase: str, ref: datetime) -> None:
    """Oracle: dateparser's reading (in local wall time) falls inside our interval.

    Not compared: "next Wednesday" / "last Friday", where dateparser takes the nearest such day
    and memtracks the weekday of next / last week, as specified.
    """
    parsed = dateparser.parse(phrase, languages=["en"], settings={"RELATIVE_BASE": ref.replace(tzinfo=None)})
    assert parsed is not None
    (mention,) = normalize_time(phrase, ref)
    local = mention.start.replace(tzinfo=None)
    assert local <= parsed < mention.end.replace(tzinfo=None)


# -- lexicon files ----------------------------------------------------------------------------


def write_lexicon(tmp_path: Path, edit) -> Path:  # type: ignore[no-untyped-def]
    doc = yaml.safe_load(bundled("lexicons", "time_en.yaml").read_text(encoding="utf-8"))
    edit(doc)
    path = tmp_path / "time_en.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    return path


def test_timenorm_bundled_lexicons_load_once() -> None:
    assert lexicon("en") is lexicon("en")
    assert lexicon("zh") is lexicon("zh")
    assert load_lexicon(bundled("lexicons", "time_en.yaml"), "en").sections.keys() == lexicon("en").sections.keys()


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


FALLBACK_CASES = [
    ("I met her on 5/8/2023.", "5/8/2023", "2023-05-08"),
    ("See you on 3/4!", "3/4", "2024-03-04"),
    ("The party is on the 17th.", "on the 17th", "2024-01-17"),
    ("I paid the rent on the 25th.", "on the 25th", "2023-12-25"),  # past tense: last month's 25th
]


@pytest.mark.parametrize("text,phrase,day", FALLBACK_CASES, ids=[c[0] for c in FALLBACK_CASES])
def test_timenorm_fallback_numeric_and_ordinal_dates(text, phrase, day):
    ref = datetime(2024, 1, 10, 10, tzinfo=timezone(timedelta(hours=8)))
    [m] = normalize_time(text, ref)
    assert (m.text, m.start.date().isoformat(), m.granularity) == (phrase, day, "day")
    assert m.start.tzinfo is not None and m.end - m.start == timedelta(days=1)


@pytest.mark.parametrize("text", ["The score was 3/4.", "I have 3 cats and 2/3 of them sleep all day."])
def test_timenorm_fallback_ignores_fractions(text):
    ref = datetime(2024, 1, 10, 10, tzinfo=timezone.utc)
    assert normalize_time(text, ref) == []
