"""A favourite is one of its kind: "my favourite colour is blue" is stored (an adjective may
stand for its noun), a new favourite colour replaces the old one, a correction corrects it;
other favourites and other likes stay. Real spaCy / jieba for the value checks; the conflict
rule as a pure function."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta, timezone

import pytest

from memtracks.data.catalogue import default_catalogue
from memtracks.pipeline.conflicts import resolve_conflicts, same_kind
from memtracks.pipeline.values import check_value
from memtracks.records import SlotValue

T0 = datetime(2024, 1, 1, 9, tzinfo=timezone(timedelta(hours=8)))


def favourite(val, kind, *, lang="en", correction=False, rejected=None, one=True):
    shown = f"{val}（最喜欢的{kind}）" if lang == "zh" else f"{val} (favourite {kind})"
    return SlotValue(
        "user",
        "likes",
        shown,
        val.lower(),
        (0, 0),
        "test",
        lang,
        qualifier=kind,
        one_per_kind=one,
        correction=correction,
        rejected_key=rejected,
    )


def apply(turns):
    facts, ids = {}, itertools.count(1)
    for day, values in enumerate(turns):
        changes = resolve_conflicts(
            values,
            list(facts.values()),
            catalogue=default_catalogue(),
            user_id="u",
            turn_id=f"t{day}",
            at=T0 + timedelta(days=day),
            new_id=lambda: next(ids),
        )
        facts.update({f.id: f for f in changes.all_facts()})
    return sorted((f.value, f.reason) for f in facts.values())


@pytest.mark.parametrize("lang,old,new,kind", [("en", "red", "green", "color"), ("zh", "红色", "黑色", "颜色")])
def test_a_new_favourite_replaces_the_old_one_of_its_kind(lang, old, new, kind):
    got = apply([[favourite(old, kind, lang=lang)], [favourite(new, kind, lang=lang)]])
    assert got == sorted(
        [(favourite(old, kind, lang=lang).value, "replaced"), (favourite(new, kind, lang=lang).value, None)]
    )


@pytest.mark.parametrize(
    "lang,a,b", [("en", ("purple", "color"), ("autumn", "season")), ("zh", ("紫色", "颜色"), ("秋天", "季节"))]
)
def test_favourites_of_other_kinds_stay(lang, a, b):
    got = apply([[favourite(*a, lang=lang)], [favourite(*b, lang=lang)]])
    assert [reason for _, reason in got] == [None, None]


@pytest.mark.parametrize("lang,old,new,kind", [("en", "sushi", "ramen", "food"), ("zh", "芒果", "榴莲", "水果")])
def test_a_correction_corrects_the_favourite_of_its_kind(lang, old, new, kind):
    got = apply([[favourite(old, kind, lang=lang)], [favourite(new, kind, lang=lang, correction=True)]])
    assert dict(got)[favourite(old, kind, lang=lang).value] == "corrected"


def test_without_one_per_kind_likes_accumulate():
    got = apply([[favourite("red", "color", one=False)], [favourite("green", "color", one=False)]])
    assert [reason for _, reason in got] == [None, None]


def test_same_kind_reads_the_qualifier_in_both_languages():
    assert same_kind("blue (favourite color)", "green (favourite color)")
    assert same_kind("蓝色（最喜欢的颜色）", "绿色（最喜欢的颜色）")
    assert not same_kind("blue (favourite color)", "autumn (favourite season)")
    assert not same_kind("blue", "green")


@pytest.mark.parametrize(
    "text,value,lang",
    [
        ("My favorite color is blue.", "blue", "en"),
        ("Sorry, I meant my favorite color is green, not blue.", "green", "en"),
        ("My favorite band is Radiohead.", "Radiohead", "en"),
        ("我最喜欢的季节是夏天。", "夏天", "zh"),
    ],
)
def test_an_elided_noun_lets_an_adjective_or_a_time_stand_for_it(toolkit, text, value, lang):
    analysis = toolkit.nlp.analyze([text], parse_if=lambda s: True)[0]
    from memtracks.pipeline.entities import extract_entities

    entities = extract_entities(analysis, toolkit.lexicons)
    start = text.index(value)
    span = (start, start + len(value))
    args = (value, "thing", lang, span, text, entities, analysis.parsed, analysis.tokens)
    assert check_value(*args, elided=True) is None
    if value != "Radiohead":  # a name is a name whatever its tag, elided or not
        assert check_value(*args) is not None
