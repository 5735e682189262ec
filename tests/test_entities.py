"""Entities with language-independent keys, from spaCy (English) and jieba (Chinese)."""

from __future__ import annotations

import pytest

from memtracks.pipeline.entities import extract_entities


def entities(toolkit, text, known=None):
    analysis = toolkit.nlp.analyze([text])[0]
    return [(e.text, e.label, e.key) for e in extract_entities(analysis, toolkit.lexicons, known)]


@pytest.mark.parametrize(
    "text,expected",
    [
        ("I moved to Shanghai last month.", [("Shanghai", "place", "shanghai")]),
        (
            "My friend Tom works at Google in Seattle.",
            [("Tom", "person", "tom"), ("Google", "org", "google"), ("Seattle", "place", "seattle")],
        ),
        ("My friend's car is a Model 3.", [("Model 3", "product", "model_3")]),
        ("I speak English and Japanese.", [("English", "language", "english"), ("Japanese", "language", "japanese")]),
        (
            "Yesterday Sarah went to the museum with Melanie.",
            [("Sarah", "person", "sarah"), ("Melanie", "person", "melanie")],
        ),
    ],
)
def test_entities_english(toolkit, text, expected):
    assert entities(toolkit, text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        ("我下周三要去北京出差", [("北京", "place", "beijing")]),
        ("我朋友的车是Model 3。", [("Model 3", "product", "model_3")]),
        ("我在阿里巴巴工作，住在杭州", [("阿里巴巴", "org", "alibaba"), ("杭州", "place", "hangzhou")]),
        ("张伟上个月搬到了深圳", [("张伟", "person", "张伟"), ("深圳", "place", "shenzhen")]),
        ("我对花生过敏", []),
        ("我买了一台 iPhone 15 Pro", [("iPhone", "product", "iphone")]),
        ("我新买了一台 Pixel 9", [("Pixel 9", "product", "pixel 9")]),
    ],
)
def test_entities_chinese(toolkit, text, expected):
    assert entities(toolkit, text) == expected


@pytest.mark.parametrize("en,zh", [("Shanghai", "上海"), ("Google", "谷歌"), ("Tokyo", "东京"), ("English", "英语")])
def test_entities_keys_are_shared_across_languages(toolkit, en, zh):
    [(_, _, key_en)] = entities(toolkit, f"I love {en}.")
    [(_, _, key_zh)] = entities(toolkit, f"我喜欢{zh}。")
    assert key_en == key_zh


@pytest.mark.parametrize("text,name", [("豆豆最近不爱吃东西", "豆豆"), ("Luna has been sleeping a lot", "Luna")])
def test_entities_known_names_are_found(toolkit, text, name):
    known = {name: (name.lower(), "pet")}
    assert (name, "pet", name.lower()) in entities(toolkit, text, known)
