"""Language detection per turn: en / zh / mixed / other."""

from __future__ import annotations

import pytest

from memtracks import UnsupportedLanguageError
from memtracks.pipeline.language import check_language, detect_language, primary_language


@pytest.mark.parametrize(
    "text,lang",
    [
        ("I moved to Shanghai last month.", "en"),
        ("我下周三要去北京出差", "zh"),
        ("我朋友的车是Model 3。", "zh"),
        ("I moved to 上海 last month.", "en"),
        ("明天的 meeting 我会 join，然后 send the report", "mixed"),
        ("Привет, как дела?", "other"),
        ("مرحبا كيف حالك", "other"),
        ("12345 !!!", "en"),
        ("😀😀", "en"),
    ],
)
def test_language_detect(text, lang):
    assert detect_language(text) == lang


def test_language_mixed_goes_to_larger_script():
    assert primary_language("mixed", "明天的 meeting 我会 join，然后 send the report") in ("en", "zh")
    assert primary_language("mixed", "我们明天下午开会讨论项目 ok") == "zh"


@pytest.mark.parametrize(
    "given,expected",
    [(None, None), ("en", "en"), ("EN", "en"), ("zh", "zh"), ("zh-CN", "zh"), ("zh_TW", "zh"), ("mixed", "mixed")],
)
def test_language_check_accepts_known_codes(given, expected):
    assert check_language(given) == expected


@pytest.mark.parametrize("given", ["fr", "de", "klingon", ""])
def test_language_check_rejects_unknown_codes(given):
    with pytest.raises(UnsupportedLanguageError, match="'en', 'zh'"):
        check_language(given)
