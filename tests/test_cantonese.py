"""Written Hong Kong Cantonese reads as the Mandarin the patterns are written in (咗: 了,
喺: 在, 揸: 开, 而家: 现在), word for word of the same length, so values keep their place in
the text as written: 我住喺將軍澳 is a home, 上個月搬咗去沙田 a move, 我揸一架Toyota Alphard a car."""

from __future__ import annotations

from datetime import timedelta

import pytest
from conversation import fact_states, say

from memtracks.data.lexicons import default_lexicons, load_cantonese
from memtracks.errors import DataFileError


@pytest.mark.parametrize(
    "text,mandarin",
    [
        ("我住喺將軍澳。", "我住在将军澳。"),
        ("上個月搬咗去沙田，返工近好多。", "上个月搬了去沙田，上班近好多。"),
        ("我而家冇食素喇。", "我现在没吃素喇。"),
    ],
)
def test_cantonese_reads_as_mandarin_of_the_same_length(text, mandarin):
    read = default_lexicons().to_simplified(text)
    assert read == mandarin and len(read) == len(text)


@pytest.mark.parametrize(
    "before,after,slot,expected",
    [
        ("我住喺將軍澳。", "上個月搬咗去沙田，返工近好多。", "lives_in", {"將軍澳": "replaced", "沙田": "current"}),
        (
            "我揸一架Toyota Alphard。",
            "Alphard賣咗喇，換咗架平治GLC。",
            "car",
            {"Toyota Alphard": "replaced", "平治GLC": "current"},
        ),
        ("我喺恒生銀行做嘢。", "我喺恒生銀行做嘢。", "employer", {"恒生銀行": "current"}),
    ],
)
def test_cantonese_changes_are_read(memory, before, after, slot, expected):
    say(memory, before, after, every=timedelta(days=60))
    assert fact_states(memory, slot) == expected


def test_a_bad_table_names_the_file_the_word_and_the_field(tmp_path):
    path = tmp_path / "traditional.yaml"
    path.write_text("pairs: 個个\ncantonese:\n  咗: 了了\n", encoding="utf-8")
    with pytest.raises(DataFileError) as err:
        load_cantonese(path)
    assert "traditional.yaml" in str(err.value) and "cantonese['咗']" in str(err.value)
