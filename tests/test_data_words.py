"""The time words and the stop words are data like every other file: one loader each in
memtracks/data, a bad file fails naming file, entry and field, and the toolkit holds what the
time normalizer and lexical search read."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml
from conftest import at, cst

from memtracks import DataFileError, Memory
from memtracks.data.files import bundled
from memtracks.data.stopwords import default_stopwords, load_stopwords
from memtracks.data.time_words import default_time_words, load_time_words
from memtracks.pipeline.timenorm import normalize_time
from memtracks.retrieval.lexical import TOKENIZER, tokenize, tokenizer_stamp
from memtracks.toolkit import Toolkit


def _copy(tmp_path: Path, name: str, edit) -> Path:
    doc = yaml.safe_load(bundled("lexicons", name).read_text(encoding="utf-8"))
    edit(doc)
    path = tmp_path / name
    path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    return path


def _time_words(tmp_path: Path, en=lambda doc: None, zh=lambda doc: None):
    _copy(tmp_path, "time_en.yaml", en)
    _copy(tmp_path, "time_zh.yaml", zh)
    return load_time_words(tmp_path)


def _stopwords(tmp_path: Path, edit):
    return load_stopwords(_copy(tmp_path, "stopwords.yaml", edit))


# ---------------------------------------------------------------------- a bad file names file, entry and field


def test_a_bad_english_time_word_names_file_entry_and_field(tmp_path: Path) -> None:
    with pytest.raises(DataFileError) as caught:
        _time_words(tmp_path, en=lambda doc: doc["weekdays"][0].update(index=9))
    message = str(caught.value)
    assert str(tmp_path / "time_en.yaml") in message
    assert "weekdays[0] 'monday'" in message and "field 'index'" in message


def test_a_bad_chinese_time_word_names_file_entry_and_field(tmp_path: Path) -> None:
    with pytest.raises(DataFileError) as caught:
        _time_words(tmp_path, zh=lambda doc: doc["day_words"].append({"word": "大后儿", "offset": "后"}))
    message = str(caught.value)
    assert str(tmp_path / "time_zh.yaml") in message
    assert "'大后儿'" in message and "field 'offset'" in message


def test_a_bad_english_stop_word_names_file_entry_and_field(tmp_path: Path) -> None:
    with pytest.raises(DataFileError) as caught:
        _stopwords(tmp_path, lambda doc: doc["pleasantries_en"].insert(1, 7))
    message = str(caught.value)
    assert str(tmp_path / "stopwords.yaml") in message
    assert "pleasantries_en[1]" in message and "field 'pleasantries_en'" in message and "7" in message


def test_a_bad_chinese_stop_word_names_file_entry_and_field(tmp_path: Path) -> None:
    with pytest.raises(DataFileError) as caught:
        _stopwords(tmp_path, lambda doc: doc["zh_words"].insert(2, "吗"))
    message = str(caught.value)
    assert str(tmp_path / "stopwords.yaml") in message
    assert "zh_words[2] '吗'" in message and "field 'zh_words'" in message


# ---------------------------------------------------------------------- the toolkit holds them; the modules read it


def test_the_toolkit_holds_the_one_default_load() -> None:
    toolkit = Toolkit.load()
    assert toolkit.time_words is default_time_words()
    assert toolkit.stopwords is default_stopwords()
    assert tokenizer_stamp(toolkit.stopwords) == TOKENIZER == tokenizer_stamp(None)


def _overmorrow(doc: dict) -> None:
    doc["day_words"].append({"word": "overmorrow", "offset": 2})


def _houerge(doc: dict) -> None:
    doc["day_words"].append({"word": "后儿个", "offset": 2})


def test_the_time_normalizer_reads_the_time_words_it_is_given(tmp_path: Path) -> None:
    words = _time_words(tmp_path, en=_overmorrow, zh=_houerge)
    ref = cst(2024, 1, 10, 9)
    assert normalize_time("I fly to Paris overmorrow", ref) == []
    assert normalize_time("我后儿个去北京", ref) == []
    (english,) = normalize_time("I fly to Paris overmorrow", ref, time_words=words)
    assert (english.text, english.start) == ("overmorrow", cst(2024, 1, 12))
    (chinese,) = normalize_time("我后儿个去北京", ref, lang="zh", time_words=words)
    assert (chinese.text, chinese.start) == ("后儿个", cst(2024, 1, 12))


def test_a_memory_writes_and_asks_with_its_toolkits_time_words(tmp_path: Path, toolkit, embedder) -> None:
    words = _time_words(tmp_path, en=_overmorrow, zh=_houerge)
    mine = dataclasses.replace(toolkit, time_words=words)
    with Memory(tmp_path / "m.db", toolkit=mine, embedder=embedder) as mem:
        now = at(2024, 1, 10, 9)
        mem.write("I fly to Paris overmorrow.", user_id="u1", timestamp=now)
        mem.write("我后儿个去北京出差。", user_id="u1", timestamp=now)
        said = {t.text: t.start.date().isoformat() for e in mem.events("u1") for t in e.times}
        assert said == {"overmorrow": "2024-01-12", "后儿个": "2024-01-12"}
        asked = mem.reader.analyze("What do I do overmorrow?", user_id="u1", now=now)
        assert [t.text for t in asked.times] == ["overmorrow"]
        assert [t.text for t in mem.reader.analyze("我后儿个做什么？", user_id="u1", now=now).times] == ["后儿个"]


def test_lexical_search_reads_the_stop_words_it_is_given(tmp_path: Path) -> None:
    def edit(doc: dict) -> None:
        doc["en"] += " vet"
        doc["zh_words"].append("宠物")

    stop = _stopwords(tmp_path, edit)
    assert "vet" in tokenize("Who is Miso's vet?") and "vet" not in tokenize("Who is Miso's vet?", stop=stop)
    assert "宠物" in tokenize("我的宠物医生") and "宠物" not in tokenize("我的宠物医生", stop=stop)
    assert tokenizer_stamp(stop) != TOKENIZER  # saved indexes made with other stop words are rebuilt


def test_a_memory_indexes_and_asks_with_its_toolkits_stop_words(tmp_path: Path, toolkit, embedder) -> None:
    def edit(doc: dict) -> None:
        doc["en"] += " vet"
        doc["zh_words"].append("宠物")

    mine = dataclasses.replace(toolkit, stopwords=_stopwords(tmp_path, edit))
    with Memory(tmp_path / "m.db", toolkit=mine, embedder=embedder) as mem:
        assert mem.indexes.stopwords is mine.stopwords
        now = at(2024, 1, 10, 9)
        assert "vet" not in mem.reader.analyze("Who is my vet?", user_id="u1", now=now).terms
        assert "宠物" not in mem.reader.analyze("我的宠物医生是谁？", user_id="u1", now=now).terms
    with Memory(tmp_path / "n.db", toolkit=toolkit, embedder=embedder) as mem:
        assert "vet" in mem.reader.analyze("Who is my vet?", user_id="u1", now=now).terms
        assert "宠物" in mem.reader.analyze("我的宠物医生是谁？", user_id="u1", now=now).terms
