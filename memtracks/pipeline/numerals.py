"""Numbers written with digits, Chinese numerals or English words: "30", "三十", "两",
"twenty-five"; and the number a counted phrase starts with ("two kids", 两个孩子)."""

from __future__ import annotations

import re

_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "兩": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_UNITS = {"十": 10, "百": 100, "千": 1000}
_EN_ONES = {
    word: n
    for n, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen"
        " sixteen seventeen eighteen nineteen".split()
    )
}
_EN_TENS = {word: 10 * n for n, word in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)}
_ZH_NUMBER = r"^([零〇一二两兩三四五六七八九十百\d]+)"
_COUNTED_ZH = re.compile(_ZH_NUMBER + r"\s*(?:个|個|只|隻|条|條|位|名|头|頭|匹)?[\u4e00-\u9fff]{1,3}$")


def parse_number(text: str) -> int | None:
    """The integer ``text`` spells, or None. Handles 0–9999 in Chinese numerals."""
    text = text.strip()
    if text.isdigit():
        return int(text)
    if text[:1].isascii() and text[:1].isalpha():
        return _english(text.lower())
    if not text or any(ch not in _DIGITS and ch not in _UNITS for ch in text):
        return None
    total, current = 0, 0
    for ch in text:
        if ch in _DIGITS:
            current = _DIGITS[ch]
        else:
            total += (current or 1) * _UNITS[ch]
            current = 0
    return total + current


def _english(text: str) -> int | None:
    words = re.split(r"[\s-]+", text)
    if len(words) == 1:
        return _EN_ONES.get(words[0], _EN_TENS.get(words[0]))
    if len(words) == 2 and words[0] in _EN_TENS and _EN_ONES.get(words[1], 0) in range(1, 10):
        return _EN_TENS[words[0]] + _EN_ONES[words[1]]
    return None


def says_a_number(text: str) -> bool:
    """Does ``text`` say a number anywhere: digits, a Chinese numeral, or one in English words
    ("34", 三十四, "thirty-four", "two kids"; not "I'm not that old yet")?"""
    if any(ch.isdigit() or ch in _DIGITS or ch in _UNITS for ch in text):
        return True
    return any(parse_number(word) is not None for word in re.split(r"[\s,]+", text.lower()) if word)


def counted_number(text: str) -> int | None:
    """The number ``text`` is, or the one it counts with: "two kids" 2, "3 cats" 3, 两个孩子 2;
    None when anything but a noun or two follows the number."""
    text = text.strip()
    number = parse_number(text)
    if number is not None:
        return number
    m = _COUNTED_ZH.match(text)
    if m:
        return parse_number(m.group(1))
    words = text.split()
    for n in (2, 1):
        rest = words[n:]
        if 1 <= len(rest) <= 2 and all(w.isalpha() for w in rest):
            number = parse_number(" ".join(words[:n]))
            if number is not None:
                return number
    return None


_EN_WORDS = {n: w for w, n in _EN_ONES.items()}
_ZH_WORDS = "零一二三四五六七八九十"
_ZH_COUNTERS = re.compile(_ZH_NUMBER)
_EN_PLURAL = {"kid": "kids", "child": "children", "baby": "babies", "son": "sons", "daughter": "daughters"}


def recount(value: str, number: int) -> str | None:
    """``value``, a counted phrase ("one kid", 兩個小孩, "2 children"), counting ``number``
    instead, written as it was written ("three kids", 三個小孩, "3 children"); None when
    ``value`` starts with no number."""
    value = value.strip()
    if not 0 < number < 100 or counted_number(value) is None:
        return None
    m = _ZH_COUNTERS.match(value)
    if m:  # Chinese: 两 / 兩 for two, in the script the value was written in
        said = m.group(1)
        if said.isdigit():
            word = str(number)
        elif number == 2:
            word = "兩" if "兩" in value or any(ch in value for ch in "個隻條頭") else "两"
        else:
            word = _ZH_WORDS[number] if number <= 10 else f"十{_ZH_WORDS[number - 10]}" if number < 20 else str(number)
        return word + value[len(said) :]
    first, _, rest = value.partition(" ")
    word = str(number) if first.isdigit() else _EN_WORDS.get(number, str(number))
    if number != 1 and rest:
        head, _, tail = rest.partition(" ")
        rest = " ".join(w for w in (_EN_PLURAL.get(head.lower(), head), tail) if w)
    return f"{word} {rest}" if rest else word
