"""Rules, slot catalogues and lexicons are data; a bad file fails naming file, entry, field."""

from __future__ import annotations

import pytest

from memtracks import DataFileError
from memtracks.data.catalogue import default_catalogue, load_catalogue
from memtracks.data.files import bundled
from memtracks.data.lexicons import load_lexicons
from memtracks.data.patterns import load_happening_patterns, load_slot_patterns


def test_datafiles_bundled_files_load():
    catalogue = default_catalogue()
    assert {"lives_in", "employer", "job_title", "car", "partner", "age", "birthday"} <= set(catalogue.by_name)
    assert all(catalogue.is_single(s) for s in ("lives_in", "employer", "car", "partner", "age"))
    assert not any(catalogue.is_single(s) for s in ("likes", "dislikes", "pets", "children", "languages", "hobbies"))
    assert len(load_slot_patterns()) > 60
    assert len(load_happening_patterns()) > 20


def test_datafiles_patterns_cover_both_languages():
    for patterns in (load_slot_patterns(), load_happening_patterns()):
        langs = {p.spec.lang for p in patterns}
        assert langs == {"en", "zh"}


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


CATALOGUE_CASES = [
    (
        "bad_cardinality",
        "slots:\n  - {name: lives_in, cardinality: three, value_type: place, label: {en: a, zh: b}}\n",
        "slots[0] 'lives_in'",
        "cardinality",
    ),
    (
        "missing_label",
        "slots:\n  - {name: car, cardinality: one, value_type: product, label: {en: car}}\n",
        "slots[0] 'car'",
        "label.zh",
    ),
    (
        "bad_ask_regex",
        "slots:\n  - {name: car, cardinality: one, value_type: product, label: {en: a, zh: b}, ask: {en: ['(']}}\n",
        "slots[0] 'car'",
        "ask.en[0]",
    ),
    (
        "unknown_opposite",
        "slots:\n  - {name: likes, cardinality: many, value_type: text, label: {en: a, zh: b}, opposite: hates}\n",
        "likes",
        "opposite",
    ),
    (
        "unknown_ended_slot",
        "slots:\n  - {name: relationship_status, cardinality: one, value_type: text, label: {en: a, zh: b},"
        " ends: {partnr: [single]}}\n",
        "relationship_status",
        "ends",
    ),
]


@pytest.mark.parametrize("name,text,entry,field", CATALOGUE_CASES, ids=[c[0] for c in CATALOGUE_CASES])
def test_datafiles_bad_catalogue_names_file_entry_field(tmp_path, name, text, entry, field):
    path = _write(tmp_path, f"{name}.yaml", text)
    with pytest.raises(DataFileError) as err:
        load_catalogue(path)
    message = str(err.value)
    assert str(path) in message and entry in message and field in message


PATTERN_CASES = [
    ("unknown_slot", "patterns:\n  - {id: p1, lang: en, slot: spaceship, regex: '(?P<value>x)'}\n", "p1", "slot"),
    ("bad_regex", "patterns:\n  - {id: p2, lang: en, slot: car, regex: '(?P<value>x'}\n", "p2", "regex"),
    ("unknown_macro", "patterns:\n  - {id: p3, lang: zh, slot: car, regex: '@nosuch(?P<value>x)'}\n", "p3", "@nosuch"),
    ("no_value_group", "patterns:\n  - {id: p4, lang: en, slot: car, regex: 'my car'}\n", "p4", "value"),
    ("bad_lang", "patterns:\n  - {id: p5, lang: fr, slot: car, regex: '(?P<value>x)'}\n", "p5", "lang"),
]


@pytest.mark.parametrize("name,text,entry,field", PATTERN_CASES, ids=[c[0] for c in PATTERN_CASES])
def test_datafiles_bad_slot_pattern_names_file_entry_field(tmp_path, name, text, entry, field):
    path = _write(tmp_path, f"{name}.yaml", text)
    with pytest.raises(DataFileError) as err:
        load_slot_patterns(path)
    message = str(err.value)
    assert str(path) in message and entry in message and field in message


def test_datafiles_all_problems_reported_at_once(tmp_path):
    path = _write(
        tmp_path,
        "two.yaml",
        "patterns:\n"
        "  - {id: a, lang: en, slot: nope, regex: '(?P<value>x)'}\n"
        "  - {id: b, lang: en, slot: car, regex: '('}\n",
    )
    with pytest.raises(DataFileError) as err:
        load_slot_patterns(path)
    problems = err.value.problems
    assert any("'a'" in p and "slot" in p for p in problems)
    assert any("'b'" in p and "regex" in p for p in problems)


def test_datafiles_bad_happening_names_missing_argument(tmp_path):
    path = _write(
        tmp_path, "h.yaml", "happenings:\n  - {id: h1, lang: en, kind: trip, needs: [place], regex: 'went to x'}\n"
    )
    with pytest.raises(DataFileError) as err:
        load_happening_patterns(path)
    assert "h1" in str(err.value) and "needs" in str(err.value)


def test_datafiles_bad_lexicon_names_entry_and_field(tmp_path):
    for name in ("relations.yaml", "animals.yaml", "jobs.yaml", "categories.yaml", "surnames_zh.yaml"):
        (tmp_path / name).write_text(bundled("lexicons", name).read_text(encoding="utf-8"), encoding="utf-8")
    _write(
        tmp_path,
        "entities.yaml",
        "entities:\n  - {key: shanghai, label: planet, en: [Shanghai]}\n  - {key: beijing, label: place}\n",
    )
    with pytest.raises(DataFileError) as err:
        load_lexicons(tmp_path)
    message = str(err.value)
    assert "entities[0] 'shanghai'" in message and "label" in message
    assert "entities[1] 'beijing'" in message and "surface form" in message


def test_datafiles_not_yaml_is_reported(tmp_path):
    path = _write(tmp_path, "broken.yaml", "slots: [\n")
    with pytest.raises(DataFileError) as err:
        load_catalogue(path)
    assert "not valid YAML" in str(err.value)
